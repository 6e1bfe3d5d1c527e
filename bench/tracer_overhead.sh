#!/usr/bin/env bash
# Tracer overhead and trace size (issue 2's benchmarks), Open MPI, 2 ranks:
#   bench/tracer_overhead.sh [BUILD]
# Prints the median time per MPI call without the tracer, with it (wall mode)
# and with thread CPU times (cpu mode), and the bytes per event on disk.
# Each line: median wall ns per call (min, max over the repetitions), then
# the median thread CPU ns per call (less disturbed by a loaded machine).
# BIN=... times another build of the loop program (the same loop binary for
# two tracer builds). RANKS=1 runs the loop on one rank sending to itself
# (no peer to wait for: the tracer's own cost). MPICAST_CLOCK is passed on
# (monotonic: the clock_gettime clock instead of the TSC).
set -euo pipefail
BUILD=${1:-build}
BIN=${BIN:-$BUILD/bench/bench_tracer_loop}
LIB="$BUILD/lib/libmpicast-trace.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ITERS=${ITERS:-20000}
REPS=${REPS:-11} # on a loaded machine: ITERS=2000 REPS=51, and read the minimum
RANKS=${RANKS:-2}
CLOCK=()
[ -n "${MPICAST_CLOCK:-}" ] && CLOCK=(-x MPICAST_CLOCK="$MPICAST_CLOCK")
run() {
  mpirun --oversubscribe -np "$RANKS" "${CLOCK[@]}" "$@" "$BIN" "$ITERS" "$REPS" |
    awk '/^ns_per_call_median/ {sub(/;/, "", $6); w = $2 " (min " $4 " max " $6 ")"}
         /^cpu_ns_per_call_median/ {c = $2}
         END {print w "  cpu " c}'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg); $RANKS ranks"
echo "untraced:          $(run)"
echo "traced (wall):     $(run -x LD_PRELOAD="$LIB" -x MPICAST_TRACE_DIR="$tmp/wall" -x MPICAST_MODE=wall)"
echo "traced (cpu):      $(run -x LD_PRELOAD="$LIB" -x MPICAST_TRACE_DIR="$tmp/cpu" -x MPICAST_MODE=cpu)"
events=$("$BUILD/bin/mpicast" stats "$tmp/wall" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"].values()))')
bytes=$(cat "$tmp"/wall/rank-*.mct | wc -c)
echo "trace size (wall): $bytes bytes for $events events = $(python3 -c "print(round($bytes/$events, 2))") bytes/event"
