#!/bin/bash
# mpicast-bench notices a disturbed measurement (issue 21 item 5): the test
# hook MPICAST_BENCH_DISTURB=EVERY:SECONDS[:PASSES] makes every EVERY-th
# ping-pong repetition SECONDS longer (docs/bench.md).
#  - lasting (every pass): the bench measures again, still sees it, warns on
#    stderr (even with --quiet) and writes quality = disturbed with its
#    reasons; the medians written are the undisturbed ones (a third of the
#    repetitions disturbed cannot move a median), far below the delay;
#  - transient (the first two sweeps only): the bench measures again (for
#    the spreads, or for medians that stand out) and the spread written is the
#    clean one, not the injected one.
# usage: test_bench_disturb.sh BENCH ompi|mpich
set -eu
bench=$1 flavour=$2
tmp=$(mktemp -d)
trap 'kill ${contention_pid:-} 2> /dev/null || true; rm -rf "$tmp"' EXIT
if [ "$flavour" = ompi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    run="mpirun --oversubscribe -x MPICAST_BENCH_DISTURB"
else
    run="mpirun.mpich"
fi
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 || true; exit 1; }
# The figures (not the warning) need a machine that nothing else uses: a
# rank that waits milliseconds for a core turns undisturbed medians of
# microseconds into milliseconds, and the injected delay (which lengthens
# rank 0's time slices) makes the scheduler preempt it more. A figure that
# fails on an overloaded or contended machine (tests/contention.sh) is a
# skip (exit 77), as in test_bench_run.sh; the warning checks always count.
. "$(dirname "$0")/contention.sh"
overloaded() { awk -v n="$(nproc)" '{ exit !($1 > 2 * n) }' /proc/loadavg; }
figure_fail() {
    overloaded && { echo "SKIP: machine overloaded (load $(cut -d' ' -f1 /proc/loadavg)): $*" >&2; exit 77; }
    contended && { echo "SKIP: machine contended ($contention_why): $*" >&2; exit 77; }
    fail "$@"
}
delay=0.005
args=(--max-size 1KiB --step 256 --reps 12 --budget 5ms)
value() { sed -n "s/^$1 = //p" "$2"; }
# every pingpong.SIZE in microseconds, one per line
points_us() {
    sed -n 's/^pingpong\.[^ ]* = //p' "$1" | awk '/us$/ { sub("us", ""); print; next }
        /ms$/ { sub("ms", ""); print $1 * 1000; next } { print $1 * 1e6 }'
}

# lasting
contention_start 2
MPICAST_BENCH_DISTURB=3:$delay $run -np 2 "$bench" -o "$tmp/d.ini" "${args[@]}" --quiet \
    2> "$tmp/err" || fail "disturbed run: exit $?"
contention_stop
grep -q "^mpicast-bench: warning: disturbed measurement after 2 rounds of measuring again" \
    "$tmp/err" || fail "no warning on stderr"
grep -q "sizes with a spread above 50 %" "$tmp/err" || fail "warning does not name the spread"
[ "$(value quality "$tmp/d.ini")" = disturbed ] || fail "quality is not 'disturbed'"
grep -q "^# WARNING: disturbed measurement" "$tmp/d.ini" || fail "no warning in the file"
grep -q "^#   .*sizes with a spread above 50 %" "$tmp/d.ini" || fail "no reason in the file"
# the injected spread: a 5 ms delay on a round trip of microseconds
awk -v s="$(value spread "$tmp/d.ini")" 'BEGIN { exit !(s > 10) }' \
    || figure_fail "spread $(value spread "$tmp/d.ini") does not show the disturbance"
n=$(points_us "$tmp/d.ini" | wc -l)
[ "$n" -ge 5 ] || fail "only $n ping-pong points"
points_us "$tmp/d.ini" | awk -v lim="$(awk -v d=$delay 'BEGIN { print d * 1e6 / 2 }')" \
    '$1 >= lim { bad = 1 } END { exit bad }' || figure_fail "a disturbed median was written"

# transient: gone once measured again
contention_start 2
MPICAST_BENCH_DISTURB=3:$delay:2 $run -np 2 "$bench" -o "$tmp/t.ini" "${args[@]}" \
    2> "$tmp/err" || fail "transient run: exit $?"
contention_stop
# measured again by the verdict (spreads) or, on a noisy machine where the
# disturbed medians stand out from their neighbours, by the spike repair first
grep -Eq "(disturbed measurement \(.*\)|stands out from its neighbours): measuring again" \
    "$tmp/err" || fail "not measured again"
awk -v s="$(value spread "$tmp/t.ini")" 'BEGIN { exit !(s < 1) }' \
    || figure_fail "spread $(value spread "$tmp/t.ini"): the transient disturbance was kept"
points_us "$tmp/t.ini" | awk -v lim="$(awk -v d=$delay 'BEGIN { print d * 1e6 / 2 }')" \
    '$1 >= lim { bad = 1 } END { exit bad }' || figure_fail "a disturbed median was written"
echo "ok ($flavour)"
