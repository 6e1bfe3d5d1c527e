#!/usr/bin/env bash
# Issue 24 item 2: what a failed poll costs traced. bench_tracer_poll (1 rank,
# MPI_Test on a receive nothing matches yet, fastest of REPS repetitions of
# ITERS x 3 polls) untraced and traced with MPICAST_POLL_HOT=off (the slow
# path: frame, tables, writer), exact (the fast path, both clocks on every
# poll) and on (the default: one timed poll per fold gap), under Open MPI and
# MPICH, alternated ROUNDS times; then hpcc (if installed: Debian hpcc, its
# example input, N = 1000, 1 x 2 grid, 2 ranks, Open MPI), wall seconds of
# the whole run. Prints medians; check `uptime` first.
#   bench/tracer_poll.sh [BUILD]     (ROUNDS=5 ITERS=300000 REPS=5 HPCC_ROUNDS=10)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-300000}
REPS=${REPS:-5}
HPCC_ROUNDS=${HPCC_ROUNDS:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo "load: $(uptime)"
median() {
    sort -g | awk '{a[NR] = $1}
        END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# poll FLAVOUR MODE: ns per poll (MODE none: untraced)
poll() {
    local bin=$BUILD/bench/bench_tracer_poll lib=$BUILD/lib/libmpicast-trace.so
    local run=(mpirun.openmpi -np 1)
    if [ "$1" = mpich ]; then
        bin=$BUILD/bench/bench_tracer_poll_mpich lib=$BUILD/lib/libmpicast-trace-mpich.so
        run=(mpirun.mpich -np 1)
    fi
    rm -rf t
    if [ "$2" = none ]; then
        "${run[@]}" "$bin" "$ITERS" "$REPS"
    elif [ "$1" = mpich ]; then
        "${run[@]}" -env MPICAST_TRACE_DIR t -env MPICAST_POLL_HOT "$2" -env LD_PRELOAD "$lib" \
            "$bin" "$ITERS" "$REPS"
    else
        "${run[@]}" -x MPICAST_TRACE_DIR=t -x MPICAST_POLL_HOT="$2" -x LD_PRELOAD="$lib" \
            "$bin" "$ITERS" "$REPS"
    fi 2>/dev/null | sed -n 's/.*, \([0-9.]*\) ns per poll.*/\1/p'
}

for fl in openmpi mpich; do
    [ "$fl" = mpich ] && { [ -x "$BUILD/bench/bench_tracer_poll_mpich" ] || continue; }
    for m in none off exact on; do : >"$fl.$m"; done
    for r in $(seq "$ROUNDS"); do
        for m in none off exact on; do poll "$fl" "$m" >>"$fl.$m"; done
    done
    printf '%-8s ns per failed MPI_Test (median of %d):' "$fl" "$ROUNDS"
    for m in none off exact on; do printf ' %s %s' "$m" "$(median <"$fl.$m")"; done
    echo
done

command -v hpcc >/dev/null || { echo "hpcc: not installed (apt-get install hpcc)"; exit 0; }
python3 -c "import sys; sys.path.insert(0, '$HERE'); import apps_inputs as a
open('hpccinf.txt', 'w').write(a.hpccinf(1000, 40, 2))"
for m in none off exact on; do : >"hpcc.$m"; done
for r in $(seq "$HPCC_ROUNDS"); do
    for m in none off exact on; do
        rm -rf t
        env=()
        [ "$m" = none ] || env=(-x MPICAST_TRACE_DIR=t -x MPICAST_POLL_HOT="$m"
                                -x LD_PRELOAD="$BUILD/lib/libmpicast-trace.so")
        /usr/bin/time -f %e -o time.txt mpirun.openmpi -np 2 "${env[@]}" hpcc >/dev/null 2>&1
        cat time.txt >>"hpcc.$m"
    done
done
printf 'hpcc     wall s of the run (median of %d):' "$HPCC_ROUNDS"
for m in none off exact on; do printf ' %s %s' "$m" "$(median <"hpcc.$m")"; done
echo
