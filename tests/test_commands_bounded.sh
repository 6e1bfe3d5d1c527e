#!/bin/bash
# Issue 21 item 3: a generated 2*10^7-event trace (bench_bigtrace, 3 ranks) runs
# through report, export chrome --window, export otf2 and (issue 26) extrapolate
# to 6 ranks, which folds each rank's main loop, in bounded memory: each
# command runs under a 1 GiB address-space limit (ulimit -v), where holding the
# events (about 120 bytes each in memory: 2.4 GB) would fail. Not timed.
# usage: test_commands_bounded.sh MPICAST BENCH_BIGTRACE
set -u
M=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$GEN" "$T/t" 3 2e7 > /dev/null || fail "bench_bigtrace"
n=$("$M" stats "$T/t" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"].values()))')
[ "$n" -ge 19900000 ] || fail "the trace has $n calls, expected about 2*10^7"
run() { # what, args...
    local what=$1
    shift
    (ulimit -v 1048576 && "$M" "$@" > "$T/out" 2> "$T/err") || fail "$what: $(tail -1 "$T/err")"
}
run report report "$T/t" -o "$T/r.html" --quiet
tail -c 8 "$T/r.html" | grep -q '</html>' || fail "report: the HTML is not complete"
run "export chrome --window" export chrome "$T/t" -o "$T/c.json" --window 0:0.01
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/c.json" || fail "chrome: not JSON"
run "export otf2" export otf2 "$T/t" -o "$T/o"
[ -f "$T/o/traces.otf2" ] || ls "$T/o" | grep -q otf2 || fail "otf2: no archive written"
run extrapolate extrapolate "$T/t" --ranks 6 -o "$T/x" --quiet --explain
grep -q "3 of 3 ranks have one" "$T/out" || fail "extrapolate: the input was not folded: $(cat "$T/out")"
grep -q "warning: extrapolate: large input: each rank's main loop was folded" "$T/err" ||
    fail "extrapolate: folded without saying so on stderr: $(cat "$T/err")"
m=$("$M" stats "$T/x" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"].values()))')
[ "$m" -eq $((2 * n)) ] || fail "extrapolate: $m calls at 6 ranks, expected twice the input's $n"
echo "ok: 2*10^7 events through report, export chrome --window, export otf2, extrapolate under 1 GiB"
