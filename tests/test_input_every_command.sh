#!/usr/bin/env bash
# Every subcommand that reads a trace opens it through the input registry
# (include/mpicast/input.h), so each accepts each input kind: a trace
# directory, an OTF2 archive (its directory or anchor file), a SimGrid
# time-independent trace (a merged file, a list file, or the directory
# `export tit` writes). Checks computed values, not only exit codes:
#  - the OTF2 export of a trace predicts, counts and dumps like the trace
#    (dump compared with the archive imported by `import otf2`);
#  - sweep, report and predict give the same predicted time on each kind;
#  - `export tit` of the archive equals `export tit` of the trace;
#  - a 4-rank TIT trace extrapolated to 8 ranks equals the 8-rank TIT trace
#    written directly (`dump --no-times`), and predicts the same time;
#  - a FIFO as input is refused at once with a one-line error.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_inputs_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$MKTRACE" "$T/tr"
"$MPICAST" export otf2 "$T/tr" -o "$T/otf2" --quiet
"$MPICAST" export tit "$T/tr" -o "$T/tit" --quiet 2>/dev/null
"$MPICAST" import otf2 "$T/otf2" -o "$T/back" --quiet

predicted() { "$MPICAST" predict "$1" --json --quiet | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])'; }
stats_key() { "$MPICAST" stats "$1" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["calls"], d["bytes"], d["messages"]["total_bytes"])'; }

ref_T=$(predicted "$T/tr")
ref_stats=$(stats_key "$T/tr")
back_stats=$(stats_key "$T/back")
back_dump=$("$MPICAST" dump "$T/back" --no-times | md5sum)
tit_T=$(predicted "$T/tit/traces.txt")

for k in "$T/tr" "$T/otf2" "$T/otf2/traces.otf2" "$T/tit" "$T/tit/traces.txt"; do
  case "$k" in
    *otf2*) want_T=$ref_T; want_stats=$back_stats ;;
    *tit*) want_T=$tit_T; want_stats="" ;;
    *) want_T=$ref_T; want_stats=$ref_stats ;;
  esac
  got_T=$(predicted "$k")
  [ "$got_T" = "$want_T" ] || fail "predict $k: $got_T, expected $want_T"
  got_stats=$(stats_key "$k")
  [ -z "$want_stats" ] || [ "$got_stats" = "$want_stats" ] || fail "stats $k: $got_stats, expected $want_stats"
  # messages of every kind carry the same bytes as the trace's
  [ "${got_stats##* }" = "${ref_stats##* }" ] || fail "stats $k: message bytes ${got_stats##* }"
  case "$k" in *otf2*)
    [ "$("$MPICAST" dump "$k" --no-times | md5sum)" = "$back_dump" ] || fail "dump $k differs from its import" ;;
  esac
  "$MPICAST" dump "$k" --rank 1 > /dev/null || fail "dump --rank 1 $k"
  "$MPICAST" blocks "$k" | grep -q '^block ' || fail "blocks $k"
  sw=$("$MPICAST" sweep "$k" --vary network.latency=1us --set network.latency=1us --csv --quiet | tail -1)
  pr=$("$MPICAST" predict "$k" --set network.latency=1us --json --quiet | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])')
  python3 - "$sw" "$pr" <<'PY' || fail "sweep $k disagrees with predict"
import sys
row, pr = sys.argv[1].split(","), float(sys.argv[2])
assert abs(float(row[2]) - pr) <= 1e-12 * max(1.0, pr), (row, pr)
PY
  "$MPICAST" report "$k" -o "$T/r.html"
  grep -q "predicted time</td><td><b>$(python3 -c "print('%.9f' % $want_T)") s" "$T/r.html" || fail "report $k: predicted time"
  "$MPICAST" export chrome "$k" -o "$T/c.json" --quiet
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/c.json" || fail "export chrome $k"
done

"$MPICAST" export tit "$T/otf2/traces.otf2" -o "$T/tit2" --quiet 2>/dev/null
diff -r "$T/tit" "$T/tit2" > /dev/null || fail "export tit of the archive differs from the trace's"

# extrapolation reads text traces too: 4 -> 8 ranks equals the real 8
tit_run() {
  for ((r = 0; r < $1; r++)); do
    printf 'p%d init\np%d compute 2000000\np%d allreduce 4096 100000\np%d barrier\np%d finalize\n' $r $r $r $r $r
  done
}
tit_run 4 > "$T/a4.txt"
tit_run 8 > "$T/a8.txt"
"$MPICAST" extrapolate "$T/a4.txt" --ranks 8 -o "$T/x8" > /dev/null
"$MPICAST" dump "$T/x8" --no-times > "$T/x8.dump"
"$MPICAST" dump "$T/a8.txt" --no-times > "$T/a8.dump"
diff "$T/x8.dump" "$T/a8.dump" || fail "extrapolated text trace differs from the real one"
x_T=$("$MPICAST" predict "$T/a4.txt" --ranks 8 --json --quiet | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])')
[ "$x_T" = "$(predicted "$T/a8.txt")" ] || fail "predict --ranks 8 of the text trace: $x_T, the real 8-rank one differs"

mkfifo "$T/fifo"
set +e
msg=$(timeout 10 "$MPICAST" stats "$T/fifo" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] || fail "FIFO input: exit $rc, expected 1"
case "$msg" in *"$T/fifo: not a regular file (a FIFO)"*) ;; *) fail "FIFO input: $msg" ;; esac
echo "every command read every input kind"
