#!/usr/bin/env bash
# The same time-independent trace replayed by SimGrid (`smpirun -replay`) and
# by `mpicast predict` with the `topo` model on equivalent 3-D tori, both
# sharing link bandwidth between concurrent messages (issue 5 cross-check).
#   bench/simgrid_topo_compare.sh BUILD halo3d|alltoall X,Y,Z ITERS [BYTES [FLOPS]]
# (FLOPS: the compute per iteration, 1e5 = 100 us by default)
# Needs Debian's libsimgrid-dev (smpirun); not part of `make check`.
# Prints one Markdown table row (the columns of docs/accuracy.md).
#
# Equivalence: a SimGrid <cluster topology="TORUS"> with one host per router
# and no limiter link: a message crosses the torus links of its
# dimension-order route, each SPLITDUPLEX (one link per direction), 5 GBps and
# 0.1 us each; in mpicast, network.topology=torus3d with the same dims (x
# fastest in both), link_bandwidth 5 GB/s, hop_latency 0.1 us, latency 0, and
# infinite NIC links (the route's torus links only). Overheads o = 0.2 us at
# both ends (smpi/os, smpi/ois, smpi/or); SMPI's bandwidth and latency
# factors 1 and no cross traffic (acknowledgements taking reverse bandwidth).
# Differences left: SimGrid solves max-min fairness over all flows at every
# change (its LMM), mpicast re-rates the flows sharing a link with the
# changed one (network.sharing route, the default; MC_SHARING=local or exact for
# reference); SimGrid charges a route's latency before the transfer, mpicast
# after it; at a distance of exactly half a ring SimGrid goes the - way from
# the middle coordinate, mpicast always the + way. Eager up to 64 KiB in
# both; 1 Gflop/s hosts. SMPI's small messages go out at once, as mpicast's
# eager ones (smpi/async-small-thresh); without it SimGrid starts a transfer
# only once its receive is posted. No NIC sharing: SimGrid's cluster
# limiter_link is one link for both directions, crossed again at every hop,
# which has no equivalent in mpicast (injection and ejection links apart).
set -euo pipefail
BUILD=$(cd "$1" && pwd) PATTERN=$2 DIMS=$3 ITERS=$4 BYTES=${5:-8192} FLOPS=${6:-1e5}
IFS=, read -r X Y Z <<<"$DIMS"
P=$((X * Y * Z))
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/smpi_replay.sh
. "$HERE/smpi_replay.sh"
# shellcheck source=bench/mc_torus.sh
. "$HERE/mc_torus.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$HERE/tit_gen.py" "$P" "$ITERS" "$tmp" --bytes "$BYTES" --flops "$FLOPS" --pattern "$PATTERN" \
  --dims "$DIMS"
cat > "$tmp/torus.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="torus" prefix="node-" suffix="" radical="0-$((P - 1))" speed="1Gf"
           bw="5GBps" lat="0.1us" topology="TORUS" topo_parameters="$X,$Y,$Z"
           sharing_policy="SPLITDUPLEX"/>
</platform>
XML
actions=$(cat "$tmp"/rank-*.txt | wc -l)
cd "$tmp"
smpi_replay torus.xml "$P" --cfg=network/crosstraffic:0 --cfg=smpi/async-small-thresh:65536
t2=$(date +%s.%N)
mc_torus_predict "$BUILD" "$X" "$Y" "$Z" "${MC_SHARING:-route}" trace.list > mc.json
t3=$(date +%s.%N)
python3 - "$PATTERN" "$DIMS" "$ITERS" "$BYTES" "$actions" "$sg_pred" "$sg_wall" "$t2" "$t3" <<'PY'
import json, sys
pattern, dims, iters, size, actions = sys.argv[1:6]
sg_pred = float(sys.argv[6])
sg_wall, t2, t3 = map(float, sys.argv[7:10])
mc = json.load(open("mc.json"))
mc_wall = t3 - t2
print(f"| {pattern} | {dims} | {iters} | {size} | {actions} | {sg_pred:.6f} | "
      f"{mc['predicted_time']:.6f} | {(mc['predicted_time'] - sg_pred) / sg_pred * 100:+.2f} % | "
      f"{sg_wall:.2f} | {mc_wall:.3f} | {int(actions) / sg_wall / 1e6:.3f} | "
      f"{mc['events'] / mc['sim_wall_seconds'] / 1e6:.2f} |")
PY
