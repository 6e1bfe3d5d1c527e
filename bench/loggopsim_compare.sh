#!/usr/bin/env bash
# Issue 24: mpicast against LogGOPSim on LogGOPSim's own kind of input, side
# by side on one machine. Three schedules (the issue's): a binomial-tree
# broadcast of 8 B at 64 ranks (72000 times, 9.1 M events) and a recursive-
# doubling allreduce of 64 KiB at 64 ranks (4000 times, 6.1 M events) and at
# 1024 ranks (250 times, 10.2 M events), all blocking or nonblocking point-
# to-point with no compute. Each is written as a GOAL schedule (goal_gen.py,
# converted by LogGOPSim's txt2bin, timed apart) and as a SimGrid time-
# independent trace (tit_gen.py). Both simulators run mpicast's default loggp
# platform (L 0.5 us, o 0.2 us, g 0, 5 GB/s, eager up to 64 KiB; LogGOPSim
# takes integers, so its times are given in picoseconds: -L 500000 -o 200000
# -g 0 -G 200 -O 0 -S 65536). Printed per case: user CPU seconds, best of
# REPS (default 3), alternated, of LogGOPSim, `mpicast predict --no-breakdown`
# and `mpicast predict` (both replays), and whether the predicted times are
# equal to the picosecond.
#   bench/loggopsim_compare.sh BUILD LOGGOPSIM_DIR
# LOGGOPSIM_DIR holds the LogGOPSim and txt2bin binaries. LogGOPSim is not
# packaged for Debian: build it from the spcl/LogGOPSim sources (src/LogGOPSim:
# `re2c -o txt2bin.cpp txt2bin.re`, then g++ -O3 each of txt2bin.cpp +
# txt2bin_cmdline.c and LogGOPSim.cpp + loggopsim_cmdline.c, the latter with
# -lcgraph; Debian packages re2c and libgraphviz-dev). About 2.5 GB in
# ${TMPDIR:-/tmp}; several minutes. Run on an idle machine.
set -euo pipefail
B=$(cd "${1:?usage: loggopsim_compare.sh BUILD LOGGOPSIM_DIR}" && pwd)
L=$(cd "${2:?usage: loggopsim_compare.sh BUILD LOGGOPSIM_DIR}" && pwd)
REPS=${REPS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
M=$B/bin/mpicast
cpu_name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "machine: $(nproc) cores, $cpu_name; load $(cut -d' ' -f1-3 /proc/loadavg)"

# user CPU seconds of a command (its output to $T/out)
cpu() { /usr/bin/time -f %U -o "$T/time" "$@" > "$T/out" 2>/dev/null; cat "$T/time"; }
min() { printf '%s\n' "$@" | sort -g | head -1; }

fmt='%-8s %10s %8s %10s %12s %10s %8s  %s\n'
printf "$fmt" case events txt2bin LogGOPSim no-breakdown predict ratio "same time"
for c in "bcast 64 72000 8 bc64" "rdallreduce 64 4000 65536 rd64" \
         "rdallreduce 1024 250 65536 rd1024"; do
  set -- $c
  python3 "$HERE/goal_gen.py" "$1" "$2" "$3" "$4" "$T/$5.goal"
  python3 "$HERE/tit_gen.py" "$2" "$3" "$T/$5" --pattern "$1" --bytes "$4" > /dev/null
  t2b=$(cpu "$L/txt2bin" -i "$T/$5.goal" -o "$T/$5.bin")
  rm -f "$T/$5.goal"
  lg=() nb=() df=()
  for _ in $(seq "$REPS"); do
    lg+=("$(cpu "$L/LogGOPSim" -f "$T/$5.bin" -L 500000 -o 200000 -g 0 -G 200 -O 0 -S 65536 -b)")
    lgs=$(grep -o 'Maximum finishing time at host [0-9]*: [0-9]*' "$T/out" | awk '{print $NF}')
    nb+=("$(cpu "$M" predict "$T/$5/trace.list" -q --no-breakdown --json)")
    mps=$(python3 -c 'import json, sys
print(round(json.load(open(sys.argv[1]))["predicted_time"] * 1e12))' "$T/out")
    df+=("$(cpu "$M" predict "$T/$5/trace.list" -q)")
  done
  ev=$(sed -n 's/^replayed *\([0-9]*\) events.*/\1/p' "$T/out")
  best_lg=$(min "${lg[@]}") best_nb=$(min "${nb[@]}")
  ratio=$(python3 -c "print(f'{$best_lg / $best_nb:.1f}x')")
  same="yes ($mps ps)"
  [ "$lgs" = "$mps" ] || same="NO: LogGOPSim $lgs ps, mpicast $mps ps"
  printf "$fmt" "$5" "$ev" "$t2b" "$best_lg" "$best_nb" "$(min "${df[@]}")" "$ratio" "$same"
  rm -rf "$T/$5" "$T/$5.bin"
done
