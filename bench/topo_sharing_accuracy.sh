#!/usr/bin/env bash
# How far each network.sharing mode of `topo` lands from network.sharing=exact
# (exact max-min fairness at every change), on the cases sessions 5-8 used to
# judge a change of the sharing rule (issue 5):
#   a64    64-rank pairwise all-to-all written as point-to-point, 60 kB
#          messages, two iterations, 4x4x4 torus (bench/tit_gen.py; the
#          platform of bench/simgrid_topo_compare.sh) - the case where
#          bottleneck is weakest;
#   a256   the same with 256 ranks, 8 KiB, 8x8x4;
#   halo, a2a, a2a-big: bench_topo halo=8x8x4, alltoall=8x4x4 and
#          alltoall=8x8x4 (half the iterations), its own platform.
# Usage: bench/topo_sharing_accuracy.sh BUILD [MODE...]   (default: local route bottleneck)
# Prints a Markdown table: exact's predicted time per case, then per mode the
# difference from it and the wall seconds of its five replays. Manual (about 15 s
# for the two default modes), not part of `make check`.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(local route bottleneck)
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/mc_torus.sh
. "$HERE/mc_torus.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$HERE/tit_gen.py" 64 2 "$tmp/a64" --pattern alltoall --dims 4,4,4 --bytes 60000 >/dev/null
python3 "$HERE/tit_gen.py" 256 2 "$tmp/a256" --pattern alltoall --dims 8,8,4 --bytes 8192 >/dev/null

predicted() { # predicted_time of the `predict --json` document on stdin
  python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time"])'
}

# predicted times (s) of the five cases with network.sharing=$1, one per line
replay() {
  mc_torus_predict "$BUILD" 4 4 4 "$1" "$tmp/a64/trace.list" | predicted
  mc_torus_predict "$BUILD" 8 8 4 "$1" "$tmp/a256/trace.list" | predicted
  for c in "halo=8x8x4 1" "alltoall=8x4x4 1" "alltoall=8x8x4 0.5"; do
    # shellcheck disable=SC2086 # the case and its scale, two arguments
    BENCH_TOPO_SET="network.sharing=$1" "$BUILD/bench/bench_topo" $c |
      sed -n 's/.*end \([0-9]*\) ps.*/\1e-12/p' | python3 -c 'import sys; print(float(sys.stdin.read()))'
  done
}

replay exact > "$tmp/exact"
echo "| mode | a64 | a256 | halo | a2a | a2a-big | wall s |"
echo "|---|---|---|---|---|---|---|"
python3 -c 'import sys; print("| exact (s) | " + " | ".join("%.6g" % float(l) for l in open(sys.argv[1])) + " | |")' "$tmp/exact"
for m in "${modes[@]}"; do
  start=$(date +%s.%N)
  replay "$m" > "$tmp/$m"
  end=$(date +%s.%N)
  python3 - "$tmp/exact" "$tmp/$m" "$m" "$start" "$end" <<'PY'
import sys
ex = [float(l) for l in open(sys.argv[1])]
md = [float(l) for l in open(sys.argv[2])]
cells = ["%+.2f %%" % ((b - a) / a * 100) for a, b in zip(ex, md)]
print("| %s | %s | %.1f |" % (sys.argv[3], " | ".join(cells), float(sys.argv[5]) - float(sys.argv[4])))
PY
done
