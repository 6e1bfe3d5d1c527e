#!/bin/sh
# Issue-25 benchmark (not a test): a pseudo-trace of P ranks written as DUMPI,
# streamed (docs/performance.md, "Pseudo-traces to DUMPI").
#   1. extrapolate SMALL --ranks P --format dumpi: the DUMPI files written straight
#      from the extrapolation's event source, at P (default 10^6) and at P/16, so
#      that the peak RSS of the two can be compared (bytes per rank);
#   2. export dumpi of an extrapolated trace directory at P2 (default 65536) and
#      at P2/16: the same comparison for the other path.
# Each run reports wall and CPU seconds, peak RSS (/usr/bin/time -v), the files and
# bytes written. SMALL is a DUMPI fixture of an example (default tests/data/dumpi/cg:
# the CG example traced at 4 ranks), imported first. On a machine shared with
# others, the RSS and the sizes are the figures; seconds are only indicative.
# usage: bench/dumpi_extrap.sh BUILD_DIR [P] [FIXTURE] [P2] [SCRATCH_DIR]
#   P or P2 = 0 skips that part
#   disk: about 6 KB per rank for cg (6 GB at 10^6), removed after each run
set -e
B=${1:?usage: dumpi_extrap.sh BUILD_DIR [P] [FIXTURE] [P2] [SCRATCH_DIR]}
P=${2:-1000000}
HERE=$(cd "$(dirname "$0")/.." && pwd)
FIX=${3:-$HERE/tests/data/dumpi/cg}
P2=${4:-65536}
T=$(mktemp -d "${5:-${TMPDIR:-/tmp}}/mc_dumpi_bench_XXXXXX")
trap 'rm -rf "$T"' EXIT
MC="$B/bin/mpicast"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time, apt-get install time)"; exit 1; }

"$MC" import dumpi "$FIX" -o "$T/small" >/dev/null

# measure LABEL OUTDIR CMD...: runs CMD under /usr/bin/time -v, prints one line
measure() {
    label=$1 out=$2
    shift 2
    /usr/bin/time -v "$@" 2>"$T/time.txt" >/dev/null || { cat "$T/time.txt"; exit 1; }
    grep -q 'cannot express' "$T/time.txt" && grep 'cannot express' "$T/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time.txt")
    user=$(sed -n 's/.*User time (seconds): //p' "$T/time.txt")
    sys=$(sed -n 's/.*System time (seconds): //p' "$T/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time.txt")
    files=$(find "$out" -type f | wc -l)
    bytes=$(find "$out" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f\n", s}')
    printf '%-44s wall %8s  cpu %7.2f s  peak RSS %8s KiB  files %8s  bytes %12s\n' \
        "$label" "$wall" "$(echo "$user + $sys" | bc)" "$rss" "$files" "$bytes"
    echo "$rss" > "$T/rss.last"
}

echo "== $(basename "$FIX") ($(ls "$FIX"/*.bin | wc -l) ranks) extrapolated to DUMPI; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$P" -gt 0 ] && for n in $((P / 16)) "$P"; do
    measure "extrapolate --ranks $n --format dumpi" "$T/d" "$MC" extrapolate "$T/small" \
        --ranks "$n" -o "$T/d" --format dumpi --quiet
    grep -q "^numprocs=$n\$" "$T/d/dumpi-mpicast.meta" || { echo "FAIL: meta of $n ranks"; exit 1; }
    cp "$T/rss.last" "$T/rss.$n"
    rm -rf "$T/d"
done
[ "$P" -gt 0 ] && a=$(cat "$T/rss.$((P / 16))") b=$(cat "$T/rss.$P") &&
echo "   peak RSS growth from $((P / 16)) to $P ranks: $((b - a)) KiB = $(( (b - a) * 1024 / (P - P / 16) )) bytes per rank"

[ "$P2" -gt 0 ] && for n in $((P2 / 16)) "$P2"; do
    "$MC" extrapolate "$T/small" --ranks "$n" -o "$T/x" --quiet
    measure "export dumpi (extrapolated dir, $n ranks)" "$T/e" "$MC" export dumpi "$T/x" \
        -o "$T/e" --quiet
    cp "$T/rss.last" "$T/rss.e$n"
    rm -rf "$T/x" "$T/e"
done
[ "$P2" -gt 0 ] && a=$(cat "$T/rss.e$((P2 / 16))") b=$(cat "$T/rss.e$P2") &&
echo "   peak RSS growth from $((P2 / 16)) to $P2 ranks: $((b - a)) KiB = $(( (b - a) * 1024 / (P2 - P2 / 16) )) bytes per rank"
