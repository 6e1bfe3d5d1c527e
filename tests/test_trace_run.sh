#!/bin/bash
# Runs a tiny MPI program under `mpicast trace` at 2 ranks and checks the trace.
#
# usage: test_trace_run.sh WHAT MPICAST CHECKER FLAVOUR PROGRAM [NRANKS]
#   WHAT     known    trace PROGRAM (tests/mpi/trace_known.*), check every event
#            all      trace PROGRAM (tests/mpi/trace_all.c) at NRANKS, check the
#                     whole trace for consistency
#            cpu      the same with --mode cpu (events carry CPU times)
#            exit     PROGRAM exits 3 after MPI_Finalize: the status must stay 3
#            sigkill  PROGRAM (tests/mpi/trace_spin.c) is killed with SIGKILL
#                     mid-run: each rank file must yield a readable prefix
#            cxx      PROGRAM (tests/mpi/trace_cxx.cpp), started by its bare name
#                     through PATH from another directory: its call sites'
#                     functions are demangled C++ names in meta.json, with the file
#            poll     PROGRAM (tests/mpi/trace_poll.c) polls: its failed polls are
#                     folded into a few records (MPICAST_POLL_FOLD=0: one each),
#                     and stats counts every call the program counted, with and
#                     without the tracer's fast path (MPICAST_POLL_HOT=off)
#            poll_f   the same for PROGRAM tests/mpi/trace_poll.f90 (Fortran)
#            thread   PROGRAM (tests/mpi/trace_known.*) traced with chunks of 4
#                     events, compressed on the compressor thread and inline
#                     (MPICAST_COMPRESS_THREAD=off): the same events
#   FLAVOUR  ompi | mpich
set -u
what=$1 mpicast=$2 check=$3 flavour=$4 prog=$5 np=${6:-2}

fail() { echo "FAIL: $*" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$flavour" = mpich ]; then
    launcher=(mpirun.mpich -np "$np")
else
    launcher=(mpirun --oversubscribe -np "$np")
fi
tmp=$(mktemp -d /tmp/mpicast-trace-test-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/trace

# The poll tests: calls of OP on rank 0 in the stats JSON file $1; rank 0's
# records without times and fold counts, runs of equal ones as one (what the
# fast path must not change, mct_poll_run); and poll_counts LABEL TRACE OPS...,
# which checks that stats gives each OP's count the program printed in
# $tmp/out (op=N, lower case) and prints their sum.
calls() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["functions"].get("MPI_"+sys.argv[2], {}).get("calls", 0))' "$1" "$2"; }
shape() { "$mpicast" dump "$1" --rank 0 --no-times | sed 's/ calls=[0-9]*//' | uniq; }
poll_counts() {
    local label=$1 d=$2 total=0 op key n
    shift 2
    "$mpicast" stats "$d" --json >"$tmp/stats.json" || fail "stats"
    for op in "$@"; do
        key=$(echo "$op" | tr 'A-Z' 'a-z')s
        n=$(sed -n "s/.* $key=\([0-9]*\).*/\1/p; s/^ *$key=\([0-9]*\).*/\1/p" "$tmp/out")
        [ -n "$n" ] || { cat "$tmp/out" >&2; fail "no $key count printed"; }
        [ "$(calls "$tmp/stats.json" "$op")" = "$n" ] ||
            fail "$label: stats gives $(calls "$tmp/stats.json" "$op") $op calls," \
                "the program made $n"
        total=$((total + n))
    done
    echo "$total"
}

# Every descendant of a process (the ranks sit under mpirun or hydra's proxy).
descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}

case $what in
known | cpu)
    mode=wall
    [ "$what" = cpu ] && mode=cpu
    timeout 120 "$mpicast" trace -o "$dir" --mode "$mode" -- "${launcher[@]}" "$prog" ||
        fail "traced run exited with $?"
    "$check" known "$dir" "$mode" || fail "trace check"
    ;;
all)
    timeout 120 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" ||
        fail "traced run exited with $?"
    "$check" all "$dir" "$np" || fail "trace check"
    ;;
exit)
    timeout 120 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" 3 >"$tmp/out" 2>&1
    rc=$?
    [ "$rc" = 3 ] || { cat "$tmp/out"; fail "exit status $rc, expected 3"; }
    # and the trace is still complete
    "$check" known "$dir" wall || fail "trace check"
    ;;
sigkill)
    export MPICAST_CHUNK_EVENTS=64
    timeout 120 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" "$tmp/ready" \
        >"$tmp/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        [ -e "$tmp/ready" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -e "$tmp/ready" ] || { kill "$pid" 2>/dev/null; cat "$tmp/out"; fail "the program never got ready"; }
    real=$(readlink -f "$prog")
    ranks=()
    for p in $(descendants "$pid"); do
        [ "$(readlink -f "/proc/$p/exe" 2>/dev/null)" = "$real" ] && ranks+=("$p")
    done
    [ "${#ranks[@]}" = 2 ] || { kill "$pid"; fail "found ${#ranks[@]} ranks, expected 2"; }
    kill -KILL "${ranks[@]}"
    wait "$pid"
    "$check" prefix "$dir" 2 || fail "prefix check"
    ;;
cxx)
    # a program found through PATH is named bare by dladdr: the tracer must
    # still find its file (it looked in the working directory)
    (cd "$tmp" && PATH="$(cd "$(dirname "$prog")" && pwd):$PATH" timeout 120 \
        "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$(basename "$prog")") >"$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail "traced run exited with $?"; }
    python3 - "$dir/meta.json" <<'PY' || fail "C++ names"
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
names = [s.get("function", "") for s in sites]
print("sites:", names)
for want in ("physics::Solver::exchange(int)", "double physics::total<double>(double)"):
    assert want in names, f"{want} missing"
assert not any(n.startswith("_Z") for n in names), "a mangled name is left"
assert any(str(s.get("file", "")).endswith("trace_cxx.cpp") for s in sites), "no file:line"
PY
    ;;
thread)
    for m in on off; do
        MPICAST_CHUNK_EVENTS=4 MPICAST_COMPRESS_THREAD=$m timeout 120 "$mpicast" trace \
            -o "$tmp/t-$m" -- "${launcher[@]}" "$prog" >"$tmp/out" 2>&1 ||
            { cat "$tmp/out"; fail "traced run ($m) exited with $?"; }
        "$mpicast" dump --no-times "$tmp/t-$m" >"$tmp/dump-$m" || fail "dump ($m)"
    done
    chunks=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
p, n = 32, 0
while p < len(d):
    p += 24 + struct.unpack_from("<I", d, p + 12)[0]
    n += 1
print(n)' "$tmp/t-on/rank-000000.mct")
    events=$(wc -l <"$tmp/dump-on")
    echo "compressor thread: $events events, rank 0 in $chunks chunks"
    [ "$chunks" -ge 5 ] || fail "only $chunks chunks: the thread had nothing to do"
    diff "$tmp/dump-on" "$tmp/dump-off" || fail "the compressor thread changed the trace"
    ;;
poll)
    for fold in default 0 slow; do
        d=$tmp/poll-$fold
        opt=()
        [ "$fold" = 0 ] && opt=(--no-fold)
        hot=on
        [ "$fold" = slow ] && hot=off
        MPICAST_POLL_HOT=$hot MPICAST_POLL_STATS=1 timeout 120 "$mpicast" trace -o "$d" \
            "${opt[@]}" -- "${launcher[@]}" "$prog" >"$tmp/out" 2>&1 ||
            { cat "$tmp/out"; fail "traced run exited with $?"; }
        total=$(poll_counts "fold=$fold" "$d" Test Iprobe Testany Testall Testsome) ||
            exit 1
        # every 200 us burst inside the last polling run is a burst of >= 180 us
        spins=$(sed -n 's/.* spins=\([0-9]*\).*/\1/p' "$tmp/out")
        kept=$("$mpicast" dump "$d" --rank 0 | awk '/ Irecv .* tag=20 /{on=1; next}
            on && / Test / {for (i = 1; i <= NF; i++) if ($i ~ /^burst=/) {
                split($i, b, "="); if (b[2] >= 180000) n++ } } END {print n + 0}')
        [ -n "$spins" ] && [ "$spins" -gt 0 ] || { cat "$tmp/out"; fail "no spins printed"; }
        [ "$kept" -ge "$spins" ] ||
            fail "fold=$fold: $spins bursts of 200 us between polls, $kept kept in the trace"
        fast=$(sed -n 's/.*rank 0: \([0-9]*\) failed polls folded on the fast path.*/\1/p' \
            "$tmp/out")
        [ -n "$fast" ] || { cat "$tmp/out"; fail "no fast-path count (MPICAST_POLL_STATS)"; }
        records=$("$mpicast" dump "$d" --rank 0 | wc -l)
        echo "fold=$fold: $total polls in $records records, $fast on the fast path," \
            "$kept of $spins bursts"
        if [ "$fold" = 0 ]; then
            [ "$records" -ge "$total" ] || fail "--no-fold folded: $records records"
            [ "$fast" = 0 ] || fail "--no-fold: $fast polls on the fast path"
            continue
        fi
        # a descheduled rank or an interrupt leaves a gap over 2 us and starts a
        # new record: the test asks for 50 calls per record, not for one record
        [ $((records * 50)) -lt "$total" ] ||
            fail "polls not folded: $records records for $total calls"
        for op in Test Iprobe Testany Testall Testsome; do
            "$mpicast" dump "$d" --rank 0 | grep -q "$op .*calls=" || fail "no folded $op record"
        done
        if [ "$fold" = slow ]; then
            [ "$fast" = 0 ] || fail "MPICAST_POLL_HOT=off: $fast polls on the fast path"
            shape "$d" >"$tmp/shape-slow"
            shape "$tmp/poll-default" >"$tmp/shape-hot"
            diff "$tmp/shape-hot" "$tmp/shape-slow" >&2 ||
                fail "the fast path changed the records (fast: left, slow path: right)"
        else
            [ $((fast * 2)) -gt "$total" ] || fail "only $fast of $total polls on the fast path"
        fi
    done
    ;;
poll_f)
    # the Fortran entry points' fast path: counts, folding and records as the slow path's
    for hot in on off; do
        d=$tmp/pollf-$hot
        MPICAST_POLL_HOT=$hot MPICAST_POLL_STATS=1 timeout 120 "$mpicast" trace -o "$d" -- \
            "${launcher[@]}" "$prog" >"$tmp/out" 2>&1 ||
            { cat "$tmp/out"; fail "traced run exited with $?"; }
        total=$(poll_counts "hot=$hot" "$d" Test Iprobe Testall Testsome) || exit 1
        for op in Test Iprobe Testall Testsome; do
            "$mpicast" dump "$d" --rank 0 | grep -q "$op .*calls=" || fail "no folded $op record"
        done
        fast=$(sed -n 's/.*rank 0: \([0-9]*\) failed polls folded on the fast path.*/\1/p' \
            "$tmp/out")
        [ -n "$fast" ] || { cat "$tmp/out"; fail "no fast-path count (MPICAST_POLL_STATS)"; }
        echo "hot=$hot: $total polls, $fast on the fast path"
        if [ "$hot" = on ]; then
            [ $((fast * 2)) -gt "$total" ] || fail "only $fast of $total polls on the fast path"
        else
            [ "$fast" = 0 ] || fail "MPICAST_POLL_HOT=off: $fast polls on the fast path"
        fi
    done
    shape "$tmp/pollf-on" >"$tmp/shape-on"
    shape "$tmp/pollf-off" >"$tmp/shape-off"
    diff "$tmp/shape-on" "$tmp/shape-off" >&2 ||
        fail "the fast path changed the records (fast: left, slow path: right)"
    ;;
*)
    fail "unknown test $what"
    ;;
esac
echo "ok: $what $flavour $(basename "$prog")"
