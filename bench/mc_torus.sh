# shellcheck shell=bash
# Sourced by bench/simgrid_topo_compare.sh and bench/topo_sharing_accuracy.sh.
# mc_torus_predict BUILD X Y Z SHARING TRACE: `mpicast predict TRACE --json`
# with `topo` on an X x Y x Z torus3d equivalent to SimGrid's torus cluster
# of simgrid_topo_compare.sh (5 GB/s links, 0.1 us per hop, latency 0,
# infinite NIC links, o = 0.2 us) and the given network.sharing.
mc_torus_predict() {
  "$1/bin/mpicast" predict "$6" --json --set network.model=topo \
    --set network.topology=torus3d --set "network.dims=${2}x${3}x${4}" \
    --set network.link_bandwidth=5GB/s --set network.nic_bandwidth=inf \
    --set network.hop_latency=0.1us --set network.latency=0 --set network.overhead=0.2us \
    --set "network.sharing=$5"
}
