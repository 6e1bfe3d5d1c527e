#!/usr/bin/env bash
# make demo: trace the bundled 2-D halo example at 9 ranks (a 3x3 grid) under
# Open MPI, show its statistics, predict it on the default platform, on a
# slower network and a faster CPU, extrapolate it to 64 and 1024 ranks, and
# sweep the link bandwidth of a 3-D torus at 1024 ranks.
set -euo pipefail
BUILD=${1:-build}
MPICAST="$BUILD/bin/mpicast"
TRACE="$BUILD/demo-trace"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

step() { echo; echo "== mpicast $*"; "$MPICAST" "$@"; }

rm -rf "$TRACE"
echo "== mpicast trace -o $TRACE -- mpirun -np 9 $BUILD/examples/halo2d"
"$MPICAST" trace -o "$TRACE" -- mpirun --oversubscribe -np 9 "$BUILD/examples/halo2d"
step stats "$TRACE"
step predict "$TRACE"
step predict "$TRACE" --set network.latency=5us --set network.bandwidth=1GB/s
step predict "$TRACE" --set cpu.speed=2
step predict "$TRACE" --ranks 64
step predict "$TRACE" --ranks 1024 --set network.model=topo --set network.topology=torus3d
step sweep "$TRACE" --ranks 1024 --set network.model=topo --set network.topology=torus3d \
    --vary network.link_bandwidth=100MB/s,1GB/s,10GB/s
