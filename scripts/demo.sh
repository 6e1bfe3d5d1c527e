#!/usr/bin/env bash
# make demo: trace the bundled 2-D halo example at 4 ranks under Open MPI,
# show its statistics, and predict its run time on the default platform and
# on two other networks.
set -euo pipefail
BUILD=${1:-build}
MPICAST="$BUILD/bin/mpicast"
TRACE="$BUILD/demo-trace"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

rm -rf "$TRACE"
echo "== mpicast trace -o $TRACE -- mpirun -np 4 $BUILD/examples/halo2d"
"$MPICAST" trace -o "$TRACE" -- mpirun --oversubscribe -np 4 "$BUILD/examples/halo2d"
echo
echo "== mpicast stats $TRACE"
"$MPICAST" stats "$TRACE"
echo
echo "== mpicast predict $TRACE   (default platform: shared-memory-like)"
"$MPICAST" predict "$TRACE"
echo
echo "== mpicast predict $TRACE --set network.latency=5us --set network.bandwidth=1GB/s"
"$MPICAST" predict "$TRACE" --set network.latency=5us --set network.bandwidth=1GB/s
echo
echo "== mpicast predict $TRACE --set cpu.speed=2   (a processor twice as fast)"
"$MPICAST" predict "$TRACE" --set cpu.speed=2
