#!/bin/sh
# Issue 21 item 3: every command on a trace of 2·10^7 events (bench_bigtrace,
# 3 ranks by default: extrapolation needs 3 along a periodic ring): peak RSS and wall time, against `stats` (target: within
# 2x of stats and under 256 MiB). Outputs go to a temporary directory
# (about 1.5 GB of disk at the default size); export chrome is given a window,
# the whole run's JSON would be about 7 GB.
# usage: bench/commands_2e7.sh BUILD_DIR [EVENTS] [RANKS]
set -e
B=${1:?usage: commands_2e7.sh BUILD_DIR [EVENTS] [RANKS]}
N=${2:-2e7}
P=${3:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/bench/bench_bigtrace" "$T/t" "$P" "$N" >/dev/null
echo "trace: $N events, $P ranks, $(du -sh "$T/t" | cut -f1) on disk"
run() { # NAME ARGS...
    name=$1
    shift
    rm -rf "$T/out" "$T/out.json" "$T/out.html"
    if /usr/bin/time -f "%M %e" -o "$T/time" "$B/bin/mpicast" "$@" >/dev/null 2>"$T/err"; then
        read -r rss sec < "$T/time"
        printf '%-34s peak RSS %8s KiB  %8s s\n' "$name" "$rss" "$sec"
    else
        printf '%-34s FAILED: %s\n' "$name" "$(tail -1 "$T/err")"
    fi
}
run stats stats "$T/t"
run "stats --json" stats "$T/t" --json
run "dump" dump "$T/t"
run "blocks" blocks "$T/t"
run "predict" predict "$T/t"
run "validate" validate "$T/t"
run "report" report "$T/t" -o "$T/out.html"
run "export tit" export tit "$T/t" -o "$T/out"
run "export otf2" export otf2 "$T/t" -o "$T/out"
run "export dumpi" export dumpi "$T/t" -o "$T/out"
run "export chrome --window 0:0.01" export chrome "$T/t" -o "$T/out.json" --window 0:0.01
run "extrapolate --ranks 4" extrapolate "$T/t" --ranks 4 -o "$T/out"
