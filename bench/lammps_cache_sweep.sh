#!/bin/bash
# Issue 23: a cache-size sweep of a real application, like the INSPIRE
# study's Figs. 6 and 11 (MG and LU with L1 of 8/16/64 KB): LAMMPS's LJ melt
# (Debian package lammps, `lmp`; bench/accuracy_apps.py's in.lj) at 2 ranks,
#  1. profiled once (`mpicast trace --mode profile`: instructions and reuse
#     distances per block; ~20 min under Valgrind at the defaults),
#  2. traced 3 times with --mode cpu (the run with the least compute kept),
#  3. each block's own cycles per instruction on this machine fitted
#     (`blocks --fit-cpi --cpi-records`) and appended to the profile,
#  4. predicted over L1d x L2 sizes (`sweep --profile --vary`), at this
#     machine's other keys (PLATFORM: `mpicast-bench --cpu`; calibrated here
#     when not given).
# usage: bench/lammps_cache_sweep.sh BUILD_DIR [PLATFORM] [EDGE] [STEPS]
# Not a CI test (Valgrind takes minutes; the measured side depends on load).
set -eu
B=${1:?usage: lammps_cache_sweep.sh BUILD_DIR [PLATFORM] [EDGE] [STEPS]}
PLATFORM=${2:-}
EDGE=${3:-8}
STEPS=${4:-100}
M=$(cd "$B" && pwd)/bin/mpicast
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 -c "import sys; sys.path.insert(0, '$HERE'); import accuracy_apps as a; open('in.lj', 'w').write(a.IN_LJ)"
if [ -z "$PLATFORM" ]; then
    mpirun.openmpi -np 2 "$(cd "$B" && pwd)/bin/mpicast-bench" --cpu --quiet -o machine.ini
    PLATFORM=$T/machine.ini
fi
run=(mpirun.openmpi --oversubscribe -np 2 lmp -in in.lj -var s "$EDGE" -var t "$STEPS"
     -log none -screen none)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$M" trace --mode profile -o prof -- "${run[@]}" > /dev/null
best= bestc=
for i in 1 2 3; do
    "$M" trace --mode cpu -o "cpu$i" -- "${run[@]}" > /dev/null
    c=$("$M" blocks "cpu$i" --cpu --json | python3 -c 'import json,sys; print(sum(b["total"] for b in json.load(sys.stdin)["blocks"]))')
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(not $c < $bestc)"; then best=cpu$i bestc=$c; fi
done
"$M" blocks "$best" --cpu --profile prof/cpu-profile.txt --platform "$PLATFORM" --fit-cpi \
    --cpi-records > fit.txt
cp prof/cpu-profile.txt own.txt
grep -P '^cpi\t' fit.txt >> own.txt
echo "$(grep -cP '^cpi\t' fit.txt) blocks with their own cpi; measured compute $bestc s (all ranks)"
# blocks whose modelled misses alone exceed their measured mean get no record
# and keep cpu.cpi: the sweep then does not give back the measured compute
grep -E '^# .* none: ' fit.txt | sed 's/^# /without a cpi: /' || true
"$M" sweep "$best" --platform "$PLATFORM" --profile own.txt --quiet \
    --vary cpu.l1d.size=8KiB,16KiB,32KiB,64KiB --vary cpu.l2.size=256KiB,512KiB,1MiB,2MiB,4MiB
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
