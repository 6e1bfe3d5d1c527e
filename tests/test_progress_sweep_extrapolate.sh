#!/usr/bin/env bash
# Terminal manners (issue 8, item 6) for the long commands other than
# predict: `mpicast sweep` shows "sweep: DONE/TOTAL" (points) and
# `mpicast extrapolate -o` shows "extrapolate: ranks: DONE/P" on stderr when
# it is a terminal (a pty from script(1)); nothing with --quiet, nothing
# when stderr is not a terminal; the results do not depend on either.
set -euo pipefail
# every progress update is shown, so the test does not depend on the machine's speed
export MPICAST_PROGRESS_INTERVAL=0
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_progress_sx_XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (bsdutils) is not installed: no pty to test the progress line"; exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }

# --- sweep: 8 points of a 120000-event replay each (about 0.5 s here, 2.5 s
# under ASan: over the 0.25 s before the first line)
python3 -c "
with open('$T/big.txt', 'w') as f:
    for i in range(60000):
        f.write('0 send 1 0 8\n1 recv 0 0 8\n' if i % 2 == 0 else '1 send 0 0 8\n0 recv 1 0 8\n')"
SWEEP=("$MPICAST" sweep "$T/big.txt" --vary network.bandwidth=1GB/s,2GB/s,3GB/s,4GB/s --vary network.latency=1us,2us)
script -qc "'${SWEEP[0]}' ${SWEEP[*]:1} > '$T/sweep.tty'" /dev/null > "$T/sweep.pty"
grep -aEq 'sweep: [0-8]/8 \([0-9]+ %\)' "$T/sweep.pty" ||
  { od -c "$T/sweep.pty" | head; fail "sweep: no progress line on a terminal"; }
# the line is cleared at the end (carriage return + erase to end of line)
tail -c 4 "$T/sweep.pty" | od -c | grep -q '\\r 033   \[   K' || fail "sweep: progress line not cleared"
script -qc "'${SWEEP[0]}' ${SWEEP[*]:1} --quiet > '$T/sweep.quiet'" /dev/null > "$T/sweep.qpty"
! grep -aq 'sweep: [0-9]' "$T/sweep.qpty" || fail "sweep --quiet printed progress"
"${SWEEP[@]}" > "$T/sweep.pipe" 2> "$T/sweep.err"
[ ! -s "$T/sweep.err" ] || fail "sweep wrote on stderr that is not a terminal: $(cat "$T/sweep.err")"
cmp -s "$T/sweep.pipe" "$T/sweep.tty" || fail "sweep output differs with a progress line"
cmp -s "$T/sweep.pipe" "$T/sweep.quiet" || fail "sweep output differs with --quiet"
[ "$(grep -c GB/s "$T/sweep.pipe")" = 8 ] || fail "sweep: expected 8 points"

# --- extrapolate: 600 ranks written (about 0.5 s here, 3 s under ASan)
"$MKTRACE" "$T/tr" world-only
EX=("$MPICAST" extrapolate "$T/tr" --ranks 600 --replicate 0)
script -qc "'${EX[0]}' ${EX[*]:1} -o '$T/x1'" /dev/null > "$T/ex.pty"
grep -aEq 'extrapolate: ranks: [0-9]+/600 \([0-9]+ %\)' "$T/ex.pty" ||
  { od -c "$T/ex.pty" | head; fail "extrapolate: no progress line on a terminal"; }
[ -f "$T/x1/rank-000599.mct" ] || fail "extrapolate did not write rank 599"
script -qc "'${EX[0]}' ${EX[*]:1} -o '$T/x2' --quiet" /dev/null > "$T/ex.qpty"
! grep -aq 'extrapolate: ranks' "$T/ex.qpty" || fail "extrapolate --quiet printed progress"
"${EX[@]}" -o "$T/x3" 2> "$T/ex.err"
# --replicate from one trace is an unchecked rule: that one warning line is
# expected (issue 20), nothing else
grep -v '^mpicast: warning: extrapolate: unchecked: one trace: replicate 0 not checked' \
  "$T/ex.err" > "$T/ex.err2" || true
[ ! -s "$T/ex.err2" ] || fail "extrapolate wrote on stderr that is not a terminal"
"$MPICAST" dump "$T/x1" --no-times > "$T/d1"
"$MPICAST" dump "$T/x3" --no-times > "$T/d3"
cmp -s "$T/d1" "$T/d3" || fail "extrapolated trace differs with a progress line"

# --quiet is a known option of both (usage error 2 otherwise)
"$MPICAST" sweep "$T/big.txt" --quiet --bogus > /dev/null 2>&1 && fail "bogus option accepted"
rc=0; "$MPICAST" sweep "$T/big.txt" --bogus > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "sweep --bogus: exit $rc, expected 2"
echo ok
