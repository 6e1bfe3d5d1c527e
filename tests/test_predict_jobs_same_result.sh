#!/usr/bin/env bash
# `predict --jobs 2` runs the platform and free-network replays at the same
# time: every figure equals the one-after-the-other run (--jobs 1) — text and
# JSON, but for the replay's own wall time — and a replay that cannot
# complete fails the same way (exit 1, same report).
set -euo pipefail
MPICAST=${1:?usage: test_predict_jobs_same_result.sh MPICAST BADDIR}
BAD=${2:?}
T=$(mktemp -d /tmp/mc_jobs_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 -c "
with open('$T/ring.txt', 'w') as f:
    for i in range(2000):
        for r in range(4):
            f.write('%d compute %d\n%d send %d %d %d\n%d recv %d %d %d\n' % (r, 1000 + 37 * r, r, (r + 1) % 4, i, 1000 * (r + 1), r, (r + 3) % 4, i, 1000 * ((r + 3) % 4 + 1)))
        for r in range(4):
            f.write('%d allreduce 64 100\n' % r)"
for fmt in "" --json; do
  "$MPICAST" predict "$T/ring.txt" --jobs 1 $fmt --set network.latency=3us > "$T/one" 
  "$MPICAST" predict "$T/ring.txt" --jobs 2 $fmt --set network.latency=3us > "$T/two"
  # the only figures allowed to differ: how long the replay took
  grep -Ev 'replayed|sim_wall_seconds|events_per_second' "$T/one" > "$T/one.f"
  grep -Ev 'replayed|sim_wall_seconds|events_per_second' "$T/two" > "$T/two.f"
  cmp -s "$T/one.f" "$T/two.f" || { diff "$T/one.f" "$T/two.f" | head; fail "--jobs 2 differs ($fmt)"; }
  grep -q 'free_network_time\|breakdown        computation' "$T/two.f" || fail "no breakdown ($fmt)"
done
# --no-breakdown: one replay, the same prediction, no breakdown
"$MPICAST" predict "$T/ring.txt" --jobs 1 --set network.latency=3us > "$T/one"
"$MPICAST" predict "$T/ring.txt" --no-breakdown --set network.latency=3us > "$T/nob"
grep -Ev 'replayed|breakdown' "$T/one" > "$T/one.f"
grep -Ev 'replayed|breakdown' "$T/nob" > "$T/nob.f"
cmp -s "$T/one.f" "$T/nob.f" || { diff "$T/one.f" "$T/nob.f" | head; fail "--no-breakdown changed the prediction"; }
grep -q '^breakdown        not computed (--no-breakdown)' "$T/nob" || fail "--no-breakdown: no notice"
"$MPICAST" predict "$T/ring.txt" --no-breakdown --json > "$T/nob.json"
python3 -c "
import json, sys
d = json.load(open('$T/nob.json'))
sys.exit(0 if d['breakdown'] is None and 'interrupted' not in d and d['predicted_time'] > 0 else 1)" ||
  fail "--no-breakdown --json: breakdown not null or an interrupted key"
# a bad --jobs is a usage error (exit 2) with a one-line message
set +e
"$MPICAST" predict "$T/ring.txt" --jobs 0 > "$T/out0" 2> "$T/err0"
rc=$?
set -e
[ "$rc" = 2 ] || fail "--jobs 0: exit $rc, expected 2"
grep -qx 'mpicast: predict: --jobs 0: expected a positive count' "$T/err0" ||
  fail "--jobs 0: message: $(cat "$T/err0")"
for j in 1 2; do
  set +e
  "$MPICAST" predict "$BAD/tit-deadlock.txt" --jobs $j > "$T/out$j" 2> "$T/err$j"
  rc=$?
  set -e
  [ "$rc" = 1 ] || fail "deadlock with --jobs $j: exit $rc"
done
cmp -s "$T/err1" "$T/err2" || { diff "$T/err1" "$T/err2"; fail "deadlock report differs"; }
echo ok
