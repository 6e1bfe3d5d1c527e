#!/usr/bin/env bash
# Tracer cost in instructions, not time (timings on a shared machine are noise):
#   bench/tracer_callgrind.sh [BUILD]
# Runs build/bench/bench_tracer_loop at 1 rank (Open MPI, sending to itself)
# under valgrind --tool=callgrind --separate-threads=yes with ITERS and
# 2*ITERS iterations, untraced and traced, and prints the difference divided
# by the calls in between (3 per iteration: Irecv, Isend, Waitall): the
# instructions per call of the MPI thread and of the rank's other threads
# (the compressor thread; Open MPI's own threads add ~0), so start-up and
# Finalize cancel out. LIB=... measures another tracer build; BIN=... another
# loop program (bench_tracer_poll for failed MPI_Test polls); ENV="K=V ..."
# is passed to the traced runs (MPICAST_COMPRESS_THREAD=off). The traced
# runs get MPICAST_FLUSH_INTERVAL=100000 first (ENV can override it): the
# 1 s forced flush compresses on the MPI thread, and under callgrind whether
# it falls in a run depends on the host's speed. REPS=N (default 5) repeats
# the measurement and prints each and the median: runs still differ by up to
# 8 % (the hand-off between the MPI thread and the compressor thread
# depends on thread scheduling, which callgrind serialises differently).
set -euo pipefail
BUILD=${1:-build}
BIN=${BIN:-$BUILD/bench/bench_tracer_loop}
LIB=${LIB:-$BUILD/lib/libmpicast-trace.so}
ITERS=${ITERS:-10000}
REPS=${REPS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xenv=(-x MPICAST_FLUSH_INTERVAL=100000)
for kv in ${ENV:-}; do xenv+=(-x "$kv"); done

# count NAME N [mpirun -x ...]: callgrind files $tmp/NAME.N.PID[-T]
count() {
    local name=$1 n=$2
    shift 2
    mpirun --oversubscribe -np 1 "$@" valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$tmp/$name.$n.%p" "$BIN" "$n" 1 >/dev/null 2>&1
}

# per_call NAME: "main M other O" instructions per call between the two runs
per_call() {
    python3 - "$tmp" "$1" "$ITERS" <<'PY'
import glob, re, sys
tmp, name, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
def totals(n):
    main = other = 0
    for f in glob.glob("%s/%s.%d.*" % (tmp, name, n)):
        m = re.search(r"^summary: (\d+)", open(f).read(), re.M)
        if not m:
            continue
        if f.endswith("-01"):
            main += int(m.group(1))
        else:
            other += int(m.group(1))
    return main, other
(m1, o1), (m2, o2) = totals(iters), totals(2 * iters)
calls = 3 * iters
print("main %d other %d" % (round((m2 - m1) / calls), round((o2 - o1) / calls)))
PY
}

echo "instructions per call ($(basename "$BIN"), 1 rank, ${ENV:-default settings}):"
mains=() alls=()
for rep in $(seq 1 "$REPS"); do
    rm -rf "${tmp:?}"/*
    for n in "$ITERS" $((2 * ITERS)); do
        count plain "$n"
        count traced "$n" -x LD_PRELOAD="$LIB" -x MPICAST_TRACE_DIR="$tmp/t$n" "${xenv[@]}"
    done
    read -r _ pm _ po <<<"$(per_call plain)"
    read -r _ tm _ to <<<"$(per_call traced)"
    echo "  run $rep: untraced MPI thread $pm, other $po; traced MPI thread $tm, other $to;" \
         "tracer: MPI thread $((tm - pm)), in all $((tm + to - pm - po))"
    mains+=($((tm - pm)))
    alls+=($((tm + to - pm - po)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "  tracer (median of $REPS): MPI thread $(median "${mains[@]}"), in all $(median "${alls[@]}")"
