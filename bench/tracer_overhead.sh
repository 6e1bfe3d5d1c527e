#!/usr/bin/env bash
# Tracer overhead and trace size (issue 2's benchmarks), Open MPI, 2 ranks:
#   bench/tracer_overhead.sh [BUILD]
# Prints the median time per MPI call without the tracer, with it (wall mode)
# and with thread CPU times (cpu mode), and the bytes per event on disk.
set -euo pipefail
BUILD=${1:-build}
BIN="$BUILD/bench/bench_tracer_loop"
LIB="$BUILD/lib/libmpicast-trace.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ITERS=${ITERS:-20000}
run() { mpirun --oversubscribe -np 2 "$@" "$BIN" "$ITERS" 11 | sed -n 's/^ns_per_call_median //p'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "untraced:          $(run)"
echo "traced (wall):     $(run -x LD_PRELOAD="$LIB" -x MPICAST_TRACE_DIR="$tmp/wall" -x MPICAST_MODE=wall)"
echo "traced (cpu):      $(run -x LD_PRELOAD="$LIB" -x MPICAST_TRACE_DIR="$tmp/cpu" -x MPICAST_MODE=cpu)"
events=$("$BUILD/bin/mpicast" stats "$tmp/wall" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"].values()))')
bytes=$(cat "$tmp"/wall/rank-*.mct | wc -c)
echo "trace size (wall): $bytes bytes for $events events = $(python3 -c "print(round($bytes/$events, 2))") bytes/event"
