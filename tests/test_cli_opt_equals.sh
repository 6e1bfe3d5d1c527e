#!/usr/bin/env bash
# One option grammar: "--opt=value" is "--opt value" for every subcommand
# (one parser, src/cli/opts.c), and nothing after a bare "--" is touched (the
# traced program's own arguments). Compares whole outputs of both spellings.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_opteq_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$T/tr"
printf '[network]\nlatency = 3us\n' > "$T/p.ini"

same() { # same "ARGS with spaces" "ARGS with ="
  local a b
  a=$(eval "\"\$MPICAST\" $1" 2>&1) || fail "$1: exit $?: $a"
  b=$(eval "\"\$MPICAST\" $2" 2>&1) || fail "$2: exit $?: $b"
  [ "$a" = "$b" ] || fail "'$1' and '$2' differ"
  [ -n "$a" ] || fail "$1: no output"
}
# (the replay's own wall time is left out: it differs between two runs)
untimed='| python3 -c "import json,sys; d=json.load(sys.stdin); d.pop(\"sim_wall_seconds\"); d.pop(\"events_per_second\"); print(d)"'
same "predict \$T/tr --platform \$T/p.ini --set network.bandwidth=1GB/s --json --jobs 1 $untimed" \
     "predict \$T/tr --platform=\$T/p.ini --set=network.bandwidth=1GB/s --json --jobs=1 $untimed"
same 'dump $T/tr --rank 2 --no-times' 'dump $T/tr --rank=2 --no-times'
same 'sweep $T/tr --vary network.latency=1us,2us --csv --quiet' \
     'sweep $T/tr --vary=network.latency=1us,2us --csv --quiet'
same 'export tit $T/tr -o $T/t1 --flops 2e9 --quiet 2>/dev/null; cat $T/t1/rank-1.txt' \
     'export tit $T/tr -o $T/t2 --flops=2e9 --quiet 2>/dev/null; cat $T/t2/rank-1.txt'
# a value that is itself KEY=VALUE keeps its own '='
out=$("$MPICAST" predict "$T/tr" --set=network.latency=7us --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])')
ref=$("$MPICAST" predict "$T/tr" --set network.latency=7us --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])')
[ "$out" = "$ref" ] || fail "--set=KEY=VALUE: $out vs $ref"
# after "--" the traced command's arguments stay as written (builds without
# the tracer library, e.g. the sanitizer build, cannot run `trace`)
got=$("$MPICAST" trace -o "$T/run" -- sh -c 'printf "%s\n" "$1"' sh --flag=value 2>"$T/err" | head -1 || true)
if grep -q "tracer library not found" "$T/err"; then
  echo "no tracer library in this build: the '--' check is skipped"
else
  [ "$got" = "--flag=value" ] || fail "argument after -- was changed: '$got'"
fi
echo "--opt=value and --opt value agree"
