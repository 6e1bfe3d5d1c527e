#!/bin/bash
# The tracer's clock in a traced run (src/trace/clock.h): by default the TSC
# is used where the CPU and the kernel vouch for it, and meta.json says so;
# MPICAST_CLOCK=monotonic forces clock_gettime ("CLOCK_MONOTONIC"); an
# unknown value is refused by `mpicast trace` before the run (src/base/env.c)
# and, with the tracer preloaded by hand, ignored with one note. Each trace must pass the exact
# check of tests/mpi/trace_known.c (ordered times, epoch at Init's end).
#
# usage: test_trace_clock_run.sh MPICAST CHECKER FLAVOUR PROGRAM
set -u
mpicast=$1 check=$2 flavour=$3 prog=$4

fail() { echo "FAIL: $*" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$flavour" = mpich ]; then
    launcher=(mpirun.mpich -np 2)
else
    launcher=(mpirun --oversubscribe -np 2)
fi
tmp=$(mktemp -d /tmp/mpicast-clock-test-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

timer_of() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["timer"])' "$1/meta.json"
}

# What the tracer should pick by default on this machine (clock.c's rule).
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
source=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo tsc)
expect=CLOCK_MONOTONIC
if [ "$(uname -m)" = x86_64 ] && [[ " $flags " == *" constant_tsc "* ]] &&
    [[ " $flags " == *" nonstop_tsc "* ]] && [ "$source" = tsc ]; then
    expect=CLOCK_MONOTONIC+TSC
fi

run() { # NAME CLOCK-VALUE (empty: unset)
    local dir=$tmp/$1
    if [ -n "$2" ]; then
        MPICAST_CLOCK=$2 timeout 120 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" \
            >"$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; fail "$1: traced run exited with $?"; }
    else
        (unset MPICAST_CLOCK; timeout 120 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog") \
            >"$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; fail "$1: traced run exited with $?"; }
    fi
    "$check" known "$dir" wall || fail "$1: trace check"
    if grep -q "mpicast-trace: rank.*TSC" "$tmp/$1.out"; then
        cat "$tmp/$1.out"
        fail "$1: the clock check at MPI_Finalize complained"
    fi
}

run default ""
[ "$(timer_of "$tmp/default")" = "$expect" ] ||
    fail "default: timer $(timer_of "$tmp/default"), expected $expect"

run monotonic monotonic
[ "$(timer_of "$tmp/monotonic")" = CLOCK_MONOTONIC ] ||
    fail "MPICAST_CLOCK=monotonic: timer $(timer_of "$tmp/monotonic"), expected CLOCK_MONOTONIC"

MPICAST_CLOCK=bogus "$mpicast" trace -o "$tmp/refused" -- "${launcher[@]}" "$prog" \
    >"$tmp/refused.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "MPICAST_CLOCK=bogus: expected auto|tsc|monotonic" "$tmp/refused.out" ||
    { cat "$tmp/refused.out"; fail "mpicast trace with MPICAST_CLOCK=bogus: exit $rc"; }
[ ! -e "$tmp/refused" ] || fail "mpicast trace with MPICAST_CLOCK=bogus ran the program"
# the tracer preloaded by hand: the run goes on, with one note
lib=$(dirname "$mpicast")/../lib/libmpicast-trace$([ "$flavour" = mpich ] && echo -mpich).so
mkdir "$tmp/bogus"
MPICAST_CLOCK=bogus MPICAST_TRACE_DIR=$tmp/bogus LD_PRELOAD=$lib timeout 120 \
    "${launcher[@]}" "$prog" >"$tmp/bogus.out" 2>&1 ||
    { cat "$tmp/bogus.out"; fail "bogus: traced run exited with $?"; }
# (not the `known` check: its call-site names are resolved by `mpicast trace`)
[ "$(timer_of "$tmp/bogus")" = "$expect" ] || fail "bogus: timer $(timer_of "$tmp/bogus")"
[ "$(grep -c 'ignoring MPICAST_CLOCK=bogus' "$tmp/bogus.out")" = 1 ] ||
    { cat "$tmp/bogus.out"; fail "bogus: expected one note about MPICAST_CLOCK"; }

echo "ok: clock $flavour (default $expect)"
