#!/bin/sh
# Issue 24 item 4: `predict --iterations K` against the full replay on every bundled
# example (Open MPI, oversubscribed; predictions only, so the machine's load does not
# matter). Each example runs ITERS iterations (default 400); K = 10 and 40.
# Prints one Markdown row per example: the full prediction, the sampled ones (the trace
# compressed on the fly with exact times) and their differences; then the same with
# the trace compressed with mean times (`compress --means`), where the iterations are
# identical and the extension is exact: the difference between the two is the traced
# bursts' noise, which the first K iterations carry.
# usage: bench/sampled_examples.sh BUILD_DIR [ITERS]
set -e
B=${1:?usage: sampled_examples.sh BUILD_DIR [ITERS]}
IT=${2:-400}
M=$B/bin/mpicast
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "| example | ranks | full (s) | K = 10 (s) | diff | K = 40 (s) | diff | means: full (s) | means: K = 10 |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec in "ring 4 -s 256" "halo1d 4 -s 1024" "halo2d 4 -s 64" "halo3d 8 -s 16" \
            "cg 4 -s 256" "cg_log2 4 -s 64" "fft 4 -s 64" "wavefront 4 -s 32" \
            "master_worker 4 -s 256"; do
    set -- $spec
    ex=$1 np=$2; shift 2
    "$M" trace -o "$T/$ex" -- mpirun --oversubscribe -np "$np" "$B/examples/$ex" "$@" \
        -i "$IT" >/dev/null 2>&1
    full=$("$M" predict "$T/$ex" --json --no-breakdown | python3 -c \
        'import json,sys; print(json.load(sys.stdin)["predicted_time"])')
    row="| $ex | $np | $(printf %.6f "$full")"
    for k in 10 40; do
        if "$M" predict "$T/$ex" --json --no-breakdown --iterations $k >"$T/out" 2>"$T/err"
        then
            s=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])' \
                < "$T/out")
            row="$row | $(printf %.6f "$s") | $(python3 -c "print('%+.2f %%' % (100*($s-$full)/$full))")"
        else
            row="$row | refused: $(sed 's/^mpicast: [^ ]*: //' "$T/err" | cut -c1-48)… | –"
        fi
    done
    pt() { python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])'; }
    if "$M" compress "$T/$ex" -o "$T/$ex.m" --means >/dev/null 2>&1 &&
        mf=$("$M" predict "$T/$ex.m" --json --no-breakdown | pt) &&
        "$M" predict "$T/$ex.m" --json --no-breakdown --iterations 10 >"$T/out" 2>/dev/null; then
        ms=$(pt < "$T/out")
        row="$row | $(printf %.6f "$mf") | $(python3 -c "print('%+.4f %%' % (100*($ms-$mf)/$mf))")"
    else
        row="$row | – | –"
    fi
    echo "$row |"
done
