# Sourced by bench/simgrid_compare.sh and bench/simgrid_topo_compare.sh.
# smpi_replay PLATFORM.xml P [--cfg=...]...: replays trace.list (in the
# current directory) with smpirun on hosts node-0..node-(P-1), with the SMPI
# settings both comparisons need to match mpicast (bandwidth and latency
# factors 1, o = 0.2 us for isend/send/recv, eager/detached up to 64 KiB)
# plus the given ones. Sets sg_pred (SimGrid's simulated time, s) and sg_wall
# (its wall time, s); on failure prints the end of its log and exits 1.
smpi_replay() {
  local platform=$1 np=$2
  shift 2
  for ((i = 0; i < np; i++)); do echo "node-$i"; done > hosts
  local t0 t1
  t0=$(date +%s.%N)
  smpirun -np "$np" -platform "$platform" -hostfile hosts -replay trace.list -no-privatize \
    --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=smpi/os:0:2e-7:0 \
    --cfg=smpi/ois:0:2e-7:0 --cfg=smpi/or:0:2e-7:0 --cfg=smpi/send-is-detached-thresh:65536 \
    "$@" --log=root.thresh:warning --log=smpi_replay.thresh:info \
    > sg.log 2>&1 || { tail -5 sg.log; exit 1; }
  t1=$(date +%s.%N)
  sg_pred=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' sg.log | tail -1)
  sg_wall=$(python3 -c "print($t1 - $t0)")
}
