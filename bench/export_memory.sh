#!/bin/sh
# Issue 21 item 3 / issue 26 item 3: exports stream the trace. Peak RSS of
# `export tit`, `export otf2` and `stats` on synthetic traces (bench_bigtrace)
# of two sizes: stats and export tit stay flat; export otf2 grows up to the
# OTF2 library's own pool (128 MiB per writer) and no further; export chrome
# keeps 24 bytes per message (its first pass, for flows and waits).
# usage: bench/export_memory.sh BUILD_DIR [EVENTS1] [EVENTS2] [RANKS]
set -e
B=${1:?usage: export_memory.sh BUILD_DIR [EVENTS1] [EVENTS2] [RANKS]}
N1=${2:-1e6}
N2=${3:-1e7}
P=${4:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for n in "$N1" "$N2"; do
    "$B/bench/bench_bigtrace" "$T/t" "$P" "$n" >/dev/null
    for cmd in stats "export tit" "export otf2" "export chrome"; do
        rm -rf "$T/out"
        case $cmd in
        stats) set -- stats "$T/t" ;;
        "export chrome") set -- export chrome "$T/t" -o "$T/out" ;;
        *) set -- $cmd "$T/t" -o "$T/out" ;;
        esac
        /usr/bin/time -f "%M %e" -o "$T/time" "$B/bin/mpicast" "$@" >/dev/null 2>&1 || true
        read -r rss sec < "$T/time"
        printf '%-14s %10s events %3s ranks: peak RSS %8s KiB, %6s s\n' "$cmd" "$n" "$P" "$rss" "$sec"
    done
    rm -rf "$T/t"
done
