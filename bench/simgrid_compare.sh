#!/usr/bin/env bash
# The same time-independent trace replayed by SimGrid (`smpirun -replay`) and
# by `mpicast predict` on equivalent crossbar platforms (issue 3 benchmark).
#   bench/simgrid_compare.sh BUILD RANKS ITERS [BYTES]
# Needs Debian's libsimgrid-dev (smpirun); not part of `make check`.
#
# Equivalence: SimGrid cluster without backbone = a crossbar; each host has a
# private split-duplex link of 5 GBps and 0.25 us, so a message crosses two
# links: latency 0.5 us, bandwidth 5 GB/s = mpicast's default loggp L and 1/G;
# SMPI's per-message send/receive overheads (smpi/os, smpi/ois, smpi/or) set
# to mpicast's o = 0.2 us; SMPI's bandwidth and latency correction factors
# set to 1; eager/detached threshold 64 KiB in both; 1 Gflop/s hosts =
# mpicast's cpu.flops default; allreduce by recursive doubling in both.
# Differences that remain: SimGrid shares link bandwidth between concurrent
# flows and has no per-message gap; mpicast's loggp charges (s-1)G at the
# receiver (LogGOPSim semantics).
set -euo pipefail
BUILD=$(cd "$1" && pwd) P=$2 ITERS=$3 BYTES=${4:-8192}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/smpi_replay.sh
. "$HERE/smpi_replay.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$HERE/tit_gen.py" "$P" "$ITERS" "$tmp" --bytes "$BYTES"
cat > "$tmp/xbar.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="xbar" prefix="node-" suffix="" radical="0-$((P - 1))" speed="1Gf"
           bw="5GBps" lat="0.25us" sharing_policy="SPLITDUPLEX"/>
</platform>
XML
actions=$(cat "$tmp"/rank-*.txt | wc -l)
cd "$tmp"
smpi_replay xbar.xml "$P" --cfg=smpi/allreduce:rdb
t2=$(date +%s.%N)
"$BUILD/bin/mpicast" predict trace.list --set collectives.allreduce=recursive_doubling --json > mc.json
t3=$(date +%s.%N)
python3 - "$P" "$ITERS" "$BYTES" "$actions" "$sg_pred" "$sg_wall" "$t2" "$t3" <<'PY'
import json, sys
P, iters, size, actions = sys.argv[1:5]
sg_pred = float(sys.argv[5])
sg_wall, t2, t3 = map(float, sys.argv[6:9])
mc = json.load(open("mc.json"))
mc_wall = t3 - t2
print(f"| {P} | {iters} | {size} | {actions} | {sg_pred:.6f} | {mc['predicted_time']:.6f} | "
      f"{(mc['predicted_time'] - sg_pred) / sg_pred * 100:+.2f} % | {sg_wall:.2f} | {mc_wall:.3f} | "
      f"{mc['sim_wall_seconds']:.3f} | {int(actions) / sg_wall / 1e6:.3f} | "
      f"{mc['events'] / mc['sim_wall_seconds'] / 1e6:.2f} |")
PY
