#!/usr/bin/env bash
# Issue 24 / the "any size" rule: the default predict's second replay (the
# free network of the breakdown) in bounded memory. Writes the issue's
# broadcast (a binomial tree of 8 B from rank 0 as point-to-point, no compute,
# tit_gen.py --pattern bcast) at 64 ranks, ITERS broadcasts (default 720000:
# 90.7 M events, 1.3 GB of text), then prints peak RSS and user + system CPU
# of `predict` (both replays) and of the free-network replay alone, for BUILD
# and, side by side, BASE_BUILD.
#   bench/breakdown_memory.sh BUILD [BASE_BUILD]
# Session 27 (docs/performance.md): 1.63 GB before the same-instant rule of
# the engine, 17.5 MB after.
set -euo pipefail
B=$(cd "${1:?usage: breakdown_memory.sh BUILD [BASE_BUILD]}" && pwd)
BASE=${2:+$(cd "$2" && pwd)}
ITERS=${ITERS:-720000}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cpu_name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "machine: $(nproc) cores, $cpu_name; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/tit_gen.py" 64 "$ITERS" "$T/bc" --pattern bcast --bytes 8 > /dev/null
echo "broadcast, 64 ranks, $ITERS iterations, $(( ITERS * 126 + 128 )) events"
for b in ${BASE:+"$BASE"} "$B"; do
  for mode in "" "--no-breakdown --set network.model=free"; do
    /usr/bin/time -f "%M %U %S %e" -o "$T/time" "$b/bin/mpicast" predict "$T/bc/trace.list" -q \
        $mode > /dev/null
    read -r kb u s w < "$T/time"
    mb=$(awk -v k="$kb" 'BEGIN{print k / 1000}')
    printf '%-40s %-48s peak %8.1f MB  CPU %6.2f + %5.2f s  wall %6.2f s\n' "$b" \
        "predict ${mode:-(both replays)}" "$mb" "$u" "$s" "$w"
  done
done
