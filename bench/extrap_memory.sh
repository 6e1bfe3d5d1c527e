#!/bin/sh
# Issue 26: extrapolate's peak memory against the input's size
# (docs/extrapolation.md, "Large inputs: the main loop folded"). bench_bigtrace's
# ring (3 ranks, request ids numbered as the tracer does) of N events is
# extrapolated to 6 ranks, by default (folded above 500,000 input events) and
# with folding off (MPICAST_EXTRAP_FOLD above N) up to MAX_UNFOLDED events;
# prints peak RSS, wall time and the predicted time of the pseudo-trace, so the
# two paths' results can be compared where both run.
# usage: bench/extrap_memory.sh BUILD_DIR [SIZES] [MAX_UNFOLDED]
set -e
B=${1:?usage: extrap_memory.sh BUILD_DIR [SIZES] [MAX_UNFOLDED]}
SIZES=${2:-"1e5 3e5 1e6 3e6 1e7 2e7"}
MAXU=${3:-1000000}
M=$B/bin/mpicast
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '%-10s %-9s %12s %9s %16s\n' events path "peak RSS KiB" "wall s" "predicted s"
for n in $SIZES; do
    rm -rf "$T/t"
    "$B/bench/bench_bigtrace" "$T/t" 3 "$n" >/dev/null
    for path in folded unfolded; do
        if [ $path = unfolded ]; then
            [ "$(python3 -c "print(int(float('$n')) <= $MAXU)")" = True ] || continue
            fold=$(python3 -c "print(int(float('$n')) * 2)")
        else
            fold=1
        fi
        rm -rf "$T/x"
        if MPICAST_EXTRAP_FOLD=$fold /usr/bin/time -f "%M %e" -o "$T/time" \
            "$M" extrapolate "$T/t" --ranks 6 -o "$T/x" --quiet 2>"$T/err"; then
            read -r rss sec < "$T/time"
            p=$("$M" predict "$T/x" --no-breakdown --json |
                python3 -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["predicted_time"])')
            printf '%-10s %-9s %12s %9s %16s\n' "$n" $path "$rss" "$sec" "$p"
        else
            printf '%-10s %-9s FAILED: %s\n' "$n" $path "$(tail -1 "$T/err")"
        fi
    done
done
