#!/bin/bash
# The tracer's own failures never change the traced program: same output,
# same exit status; one warning; tracing stops cleanly.
#
# usage: test_trace_safety_failures.sh MPICAST FLAVOUR VICTIM SHIM KIND
#   VICTIM  tests/mpi/trace_victim.c ("count ROUNDS 3": exits 3)
#   SHIM    libtest_trace_safety_shim.so (tests/test_trace_safety_shim.c)
#   KIND    unwritable  the trace directory cannot be created (a path under
#                       a regular file): exactly one warning for the job, no
#                       rank file left behind
#           diskfull    the directory is on a 64 KiB tmpfs (mount needs root;
#                       otherwise the shim fails the tracer's writes with
#                       ENOSPC after 64 KiB, and the test says so): at most one
#                       warning per rank, and the prefix written is readable
#           nomem       the shim fails the tracer's allocations after N
#                       successful ones, for several N: at most one warning
#                       per rank (exactly one for the job when N = 0)
set -u
mpicast=$1 flavour=$2 prog=$3 shim=$4 kind=$5
np=2 rounds=3000
[ "$kind" = diskfull ] && rounds=40000 # a trace well over 64 KiB
# The tracer is preloaded directly (not through `mpicast trace`, which
# checks the directory itself before starting anything).
lib=$(dirname "$mpicast")/../lib/libmpicast-trace.so
[ "$flavour" = mpich ] && lib=$(dirname "$mpicast")/../lib/libmpicast-trace-mpich.so

fail() { echo "FAIL: $*" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$flavour" = mpich ]; then
    launcher=(mpirun.mpich -np "$np")
else
    launcher=(mpirun --oversubscribe -np "$np")
fi
tmp=$(mktemp -d /tmp/mpicast-fail-XXXXXX) || exit 1
mounted=
cleanup() {
    [ -n "$mounted" ] && umount "$mounted"
    rm -rf "$tmp"
}
trap cleanup EXIT

timeout 120 "${launcher[@]}" "$prog" count "$rounds" 3 >"$tmp/plain.out" 2>"$tmp/plain.err"
want=$?
[ "$want" = 3 ] || { cat "$tmp/plain.err"; fail "untraced run exited $want, expected 3"; }

# traced run: DIR [PRELOAD [ENV...]]; sets rc, warnings
traced() {
    local dir=$1 pre=${2:-}
    shift
    shift
    env LD_PRELOAD="$lib${pre:+:$pre}" MPICAST_TRACE_DIR="$dir" "$@" \
        timeout 120 "${launcher[@]}" "$prog" count "$rounds" 3 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    warnings=$(grep -c '^mpicast-trace: rank' "$tmp/err")
    [ "$rc" = "$want" ] || { cat "$tmp/err"; fail "$*: exit status $rc, untraced $want"; }
    cmp -s "$tmp/out" "$tmp/plain.out" || { diff "$tmp/plain.out" "$tmp/out"; fail "$*: output changed"; }
    # each rank warns at most once
    local r
    for ((r = 0; r < np; r++)); do
        [ "$(grep -c "^mpicast-trace: rank $r:" "$tmp/err")" -le 1 ] ||
            { cat "$tmp/err"; fail "$*: rank $r warned more than once"; }
    done
}

case $kind in
unwritable)
    : >"$tmp/file"
    traced "$tmp/file/trace" ""
    [ "$warnings" = 1 ] || { cat "$tmp/err"; fail "$warnings warnings, expected 1"; }
    grep "^mpicast-trace" "$tmp/err"
    [ -e "$tmp/file/trace" ] && fail "a trace appeared"
    ;;
diskfull)
    mkdir "$tmp/full"
    if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
        mounted=$tmp/full
        echo "disk full: a 64 KiB tmpfs"
        traced "$tmp/full/trace" "" MPICAST_BUFFER=4KiB
    else
        echo "disk full: cannot mount a tmpfs here; simulated by the shim (ENOSPC after 64 KiB)"
        traced "$tmp/full/trace" "$shim" MPICAST_BUFFER=4KiB MCS_ENOSPC_AFTER=65536
    fi
    [ "$warnings" -ge 1 ] || { cat "$tmp/err"; fail "no warning for a full disk"; }
    grep "^mpicast-trace" "$tmp/err"
    # what was written before the disk filled is a readable prefix
    "$mpicast" stats "$tmp/full/trace" --json >"$tmp/stats.json" 2>"$tmp/stats.err" ||
        { cat "$tmp/stats.err"; fail "stats on the partial trace"; }
    python3 - "$tmp/stats.json" "$rounds" <<'PY' || fail "partial trace"
import json, sys
d = json.load(open(sys.argv[1]))
n = d["functions"].get("MPI_Sendrecv", {"calls": 0})["calls"]
print("readable prefix: %d ranks, %d Sendrecv of %d" % (d["ranks"], n, 2 * int(sys.argv[2])))
sys.exit(0 if d["ranks"] == 2 and 0 < n < 2 * int(sys.argv[2]) else 1)
PY
    ;;
nomem)
    for n in 0 1 2 3 5 8 13 21 34 55 89 1000000; do
        traced "$tmp/t$n" "$shim" MCS_NOMEM_AFTER=$n
        echo "allocations failing after $n: exit $rc, $warnings warning(s) $(grep -m1 "^mpicast-trace" "$tmp/err" | sed "s/.*: //")"
        if [ "$n" = 0 ]; then
            [ "$warnings" = 1 ] || { cat "$tmp/err"; fail "N=0: $warnings warnings, expected 1"; }
        fi
        if [ "$n" = 1000000 ]; then
            [ "$warnings" = 0 ] || { cat "$tmp/err"; fail "no failure, yet $warnings warnings"; }
        fi
        if [ "$warnings" != 0 ] && [ -e "$tmp/t$n/meta.json" ]; then
            fail "N=$n: meta.json written after a failure"
        fi
    done
    ;;
*)
    fail "unknown kind $kind"
    ;;
esac
echo "ok: $kind $flavour"
