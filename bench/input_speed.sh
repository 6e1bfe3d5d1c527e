#!/usr/bin/env bash
# Issue 24 item 1: input at engine speed. Writes the same ~10^7-event ring
# workload as a binary trace (bench_bigtrace) and as SimGrid time-independent
# text (tit_gen.py) at 64, 1024 and 16384 ranks, then for each input prints
#   - the reader alone (bench_input: events per CPU second, best of 3, the
#     replay's prefetch hint given), and
#   - `predict --no-breakdown` and `predict` (both replays), user CPU seconds,
#     best of 3.
# With a second build (BASE), each figure is measured for both, alternated,
# so a change is judged side by side on one machine in one run.
#   bench/input_speed.sh BUILD [BASE_BUILD]
# About 1 GB in ${TMPDIR:-/tmp}; several minutes. Run on an idle machine.
set -euo pipefail
B=$(cd "${1:?usage: input_speed.sh BUILD [BASE_BUILD]}" && pwd)
BASE=${2:+$(cd "$2" && pwd)}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
for p in 64 1024 16384; do
  "$B/bench/bench_bigtrace" "$T/bin$p" "$p" 1e7 > /dev/null
done
python3 "$HERE/tit_gen.py" 64 30000 "$T/tit64" > /dev/null
python3 "$HERE/tit_gen.py" 1024 2000 "$T/tit1024" > /dev/null
python3 "$HERE/tit_gen.py" 16384 125 "$T/tit16384" > /dev/null

# best user CPU seconds of 3 runs of a command
best_cpu() {
  local best=""
  for _ in 1 2 3; do
    local t
    t=$( { /usr/bin/time -f "%U" "$@" > /dev/null; } 2>&1 | tail -1)
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
  done
  echo "$best"
}

row() { # build label input
  local b=$1 label=$2 in=$3
  local reader nb full
  reader=$("$b/bench/bench_input" "$in" 4 3 | sed -E 's/.*s CPU \(best of 3\), ([0-9.]+) M events\/s.*/\1/')
  nb=$(best_cpu "$b/bin/mpicast" predict "$in" --no-breakdown --quiet)
  full=$(best_cpu "$b/bin/mpicast" predict "$in" --quiet)
  printf '%-10s %-22s reader %6s M ev/s   predict --no-breakdown %6s s   predict %6s s CPU\n' \
    "$label" "$(basename "$(dirname "$in")")/$(basename "$in")" "$reader" "$nb" "$full"
}

for in in "$T/bin64" "$T/bin1024" "$T/bin16384" "$T/tit64/trace.list" "$T/tit1024/trace.list" \
          "$T/tit16384/trace.list"; do
  events=$("$B/bench/bench_input" "$in" 4 1 | sed -E 's/.*: ([0-9]+) events.*/\1/')
  echo "== $(basename "$(dirname "$in")")/$(basename "$in"): $events events"
  [ -n "$BASE" ] && row "$BASE" base "$in"
  row "$B" new "$in"
done
