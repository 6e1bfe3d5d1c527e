#!/bin/sh
# Issue-6 benchmark: a 2-D halo exchange traced at 16 ranks (4x4, 10 iterations),
# extrapolated to P ranks (default 1,048,576 = 1024x1024):
#   1. the extrapolation source alone (bench_extrap): events, time, peak RSS;
#   2. mpicast predict TRACE --ranks P (loggp; two replays: the platform's network
#      and the free network): wall time, CPU time (the figure to compare on a
#      shared machine) and peak RSS from /usr/bin/time.
# usage: bench/bench_extrap.sh BUILD_DIR [P] [PREDICT OPTIONS...]   (minutes at the default P)
#   e.g. --jobs 1 (replays one after the other: half the memory) or --no-breakdown
set -e
B=${1:?usage: bench_extrap.sh BUILD_DIR [P]}
P=${2:-1048576}
shift $(( $# < 2 ? $# : 2 ))
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$B/bin/mpicast" trace -o "$T/halo16" -- mpirun.openmpi --oversubscribe -np 16 \
    "$B/examples/halo2d" -s 64 -i 10 >/dev/null
echo "== extrapolation source alone, $P ranks"
"$B/bench/bench_extrap" "$T/halo16" "$P"
echo "== mpicast predict --ranks $P (loggp) $*"
/usr/bin/time -f "wall %e s, cpu %U s user + %S s sys, peak RSS %M KiB" "$B/bin/mpicast" predict "$T/halo16" --ranks "$P" \
    --set network.model=loggp "$@"
