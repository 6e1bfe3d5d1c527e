#!/bin/bash
# Issue 26: a folded extrapolation (each rank's main loop read as two
# iterations, the later ones at their mean times) is a shortcut the user did
# not ask for, so every command that extrapolates says so on stderr:
# extrapolate, predict --ranks, sweep --ranks (points and balance points).
# MPICAST_EXTRAP_FOLD=1 folds a small input; unfolded runs must stay silent.
# usage: test_folded_extrapolation_warns.sh MPICAST BENCH_BIGTRACE
set -u
M=$1
GEN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$GEN" "$T/t" 3 3e4 > /dev/null || fail "bench_bigtrace"
W="large input: each rank's main loop was folded"
check() { # fold(0|1) what, args...
    local fold=$1 what=$2
    shift 2
    if [ "$fold" = 1 ]; then
        MPICAST_EXTRAP_FOLD=1 "$M" "$@" > "$T/out" 2> "$T/err" || fail "$what: $(tail -1 "$T/err")"
        [ "$(grep -c "warning: $what: $W" "$T/err")" = 1 ] ||
            fail "$what folded without saying so once: $(cat "$T/err")"
    else
        "$M" "$@" > "$T/out" 2> "$T/err" || fail "$what: $(tail -1 "$T/err")"
        ! grep -q "$W" "$T/err" || fail "$what: warned of a fold that did not happen"
    fi
}
for fold in 0 1; do
    rm -rf "$T/x"
    check $fold extrapolate extrapolate "$T/t" --ranks 6 -o "$T/x" --quiet
    check $fold predict predict "$T/t" --ranks 6 --no-breakdown
    check $fold sweep sweep "$T/t" --ranks 3,6 --vary network.latency=1us,2us --quiet
    check $fold sweep sweep "$T/t" --ranks 3,6 --target-efficiency 0.5 --solve network.latency --quiet
done
# the trace's own count replays the trace itself: nothing folded, nothing said
MPICAST_EXTRAP_FOLD=1 "$M" sweep "$T/t" --ranks 3 --vary network.latency=1us,2us --quiet \
    > "$T/out" 2> "$T/err" || fail "sweep --ranks 3: $(tail -1 "$T/err")"
! grep -q "$W" "$T/err" || fail "sweep at the trace's own count warned of a fold"
echo "ok: extrapolate, predict --ranks and sweep --ranks say when their input was folded"
