#!/bin/bash
# A trace with more rank files than the process may open (issue 26 item 3:
# `ulimit -n 256` with 1,000 ranks): every reader keeps a bounded pool of
# open rank files (src/format/reader.c) or TIT files (src/format/tit.c) and
# reopens at the offset, so predict, sweep, stats, export and extrapolate
# work and give the figures they give without a limit.
# env: MPICAST, TESTS
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mpicast-fdpool-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
meta=$(ls "$TESTS"/data/dumpi/ring/*.meta)
"$MPICAST" extrapolate "$meta" --ranks 1000 -o T >/dev/null 2>&1 || fail "extrapolate to 1000 ranks"
"$MPICAST" export tit T -o TIT >/dev/null 2>&1 || fail "export tit"
# figures without a limit (wall-clock keys dropped)
figures() { grep -v -E '"(sim_wall_seconds|events_per_second|wall_seconds)"'; }
"$MPICAST" predict T --json | figures > free.json || fail "predict without a limit"
"$MPICAST" predict TIT/traces.txt --json | figures > free_tit.json || fail "predict TIT"
"$MPICAST" sweep T --vary network.latency=1us,3us --json | figures > free_sweep.json || fail "sweep"
"$MPICAST" stats T --json > free_stats.json || fail "stats"

limited() { # OUT COMMAND...: run under ulimit -n 256, stdout to OUT
    local out=$1
    shift
    (ulimit -n 256 && "$MPICAST" "$@") > "$out" 2> err || fail "ulimit -n 256: $*: $(tail -1 err)"
}
limited p.json predict T --json
figures < p.json | cmp -s - free.json || fail "predict under the limit differs"
limited pt.json predict TIT/traces.txt --json
figures < pt.json | cmp -s - free_tit.json || fail "predict of the TIT trace under the limit differs"
limited s.json sweep T --vary network.latency=1us,3us --jobs 2 --json
figures < s.json | cmp -s - free_sweep.json || fail "sweep --jobs 2 under the limit differs"
limited st.json stats T --json
cmp -s st.json free_stats.json || fail "stats under the limit differs"
limited /dev/null extrapolate T --ranks 1200 -o T2
limited /dev/null export otf2 T -o O
# a pool of 3 files: every chunk after the first reopens its file at the offset
MPICAST_OPEN_FILES=3 "$MPICAST" predict T --json | figures | cmp -s - free.json \
    || fail "predict with MPICAST_OPEN_FILES=3 differs"
echo ok
