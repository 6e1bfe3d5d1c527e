#!/bin/sh
# Issue-9 benchmark: a synthetic trace of N events (default 10^9, 64 ranks;
# bench_bigtrace) replayed by `mpicast predict`: wall and CPU time and peak
# RSS (/usr/bin/time), which must stay far below 1 GiB however many events.
# usage: bench/bench_bigtrace.sh BUILD_DIR [EVENTS] [RANKS] [PREDICT OPTIONS...]
# (about 0.5 GB of disk per 10^9 events, in a temporary directory under
# ${TMPDIR:-/tmp}; minutes at the default size)
set -e
B=${1:?usage: bench_bigtrace.sh BUILD_DIR [EVENTS] [RANKS] [PREDICT OPTIONS...]}
N=${2:-1e9}
P=${3:-64}
shift $(( $# < 3 ? $# : 3 ))
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "== writing $N events over $P ranks"
"$B/bench/bench_bigtrace" "$T/big" "$P" "$N"
echo "== mpicast predict $*"
/usr/bin/time -f "wall %e s, cpu %U s user + %S s sys, peak RSS %M KiB" \
    "$B/bin/mpicast" predict "$T/big" --quiet "$@" | grep -E 'predicted|breakdown|replayed'
