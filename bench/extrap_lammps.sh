#!/bin/sh
# Issue 20 item 6: extrapolation checked on a real application. LAMMPS's
# bench/in.lj (Debian package lammps, `lmp`; the input of
# bench/accuracy_apps.py) is traced at 27 ranks (3x3x3: every periodic
# dimension has 3 ranks, so +1 and -1 differ) and extrapolated to 64 (4x4x4),
# weak (box edge 9 -> 12 lattice cells: 108 atoms per rank) and strong (edge 12
# at both); the pseudo-traces are compared with a real 64-rank run event by
# event (operation, peer, tag, request, site; sizes apart, which follow the
# atoms) and by predict with compute scaled away (cpu.speed=1e6).
# Then the 64-rank run is extrapolated to 125 with --rule sizes=data and
# compared with a real 125-rank run the same way; and a long run (LONG steps,
# 2.4 M events at 64 ranks for 1000: folded by default) the same way.
# With STRONG_FIT=1, also strong scaling (box edge 15) traced at 27, 64, 125
# and 216 ranks, extrapolated to 343 with --rule size.p2p=fit (the data's
# sizes fitted) and from 216 alone with surface, against a real 343-rank run
# (about 4 minutes more on two cores).
# usage: bench/extrap_lammps.sh BUILD_DIR [STEPS [LONG]]
set -e
B=${1:?usage: extrap_lammps.sh BUILD_DIR [STEPS [LONG]]}
STEPS=${2:-40}
LONG=${3:-1000}
M=$(cd "$B" && pwd)/bin/mpicast
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
python3 -c "import sys; sys.path.insert(0, '$HERE'); import accuracy_apps as a; open('in.lj', 'w').write(a.IN_LJ)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # DIR NP EDGE [STEPS]
    "$M" trace -o "$1" -- mpirun.openmpi --oversubscribe -np "$2" lmp -in in.lj \
        -var s "$3" -var t "${4:-$STEPS}" -log none -screen none > /dev/null
}
run w27 27 9
run s27 27 12
run r64 64 12
"$M" extrapolate w27 --ranks 64 -o w64 --quiet
"$M" extrapolate s27 --ranks 64 --scaling strong -o s64 --quiet 2> /dev/null
# Session 28: the 64-rank trace itself (4 ranks per dimension, so several
# per class, whose sizes differ) extrapolated to 125 by --rule sizes=data,
# against a real 125-rank run (edge 15).
run r125 125 15
"$M" extrapolate r64 --ranks 125 --rule sizes=data -o d125 --quiet 2> /dev/null
# Session 29: the long run, whose steps differ in sizes, folded with them aside.
run k64 64 12 "$LONG"
run k125 125 15 "$LONG"
/usr/bin/time -f "extrapolate k64 -> 125 (folded): %e s, %M KB" \
    "$M" extrapolate k64 --ranks 125 --rule sizes=data -o f125 --quiet 2>&1 | grep -v warning
PAIRS="w64 r64|s64 r64|d125 r125|f125 k125"
PREDICT="r64 w64 s64 r125 d125 k125 f125"
if [ "${STRONG_FIT:-0}" = 1 ]; then
    for p in 27 64 125 216 343; do run g$p $p 15; done
    "$M" extrapolate g27 g64 g125 g216 --ranks 343 --scaling strong --rule sizes=data \
        --rule size.p2p=fit -o x343f --quiet 2>&1 | grep -v "large input" || true
    "$M" extrapolate g216 --ranks 343 --scaling strong --rule sizes=data \
        --rule size.p2p=surface -o x343s --quiet 2> /dev/null
    PAIRS="$PAIRS|x343f g343|x343s g343"
    PREDICT="$PREDICT g343 x343f x343s"
fi
IFS='|'
for pair in $PAIRS; do
    IFS=' '
    set -- $pair
    x=$1
    "$M" dump --no-times "$2" > real.txt
    "$M" dump --no-times "$x" > pseudo.txt
    python3 - "$x" <<'EOF'
import re, statistics, sys
a = open("real.txt").read().splitlines()
b = open("pseudo.txt").read().splitlines()
strip = lambda l: [t for t in l.split() if not re.match(r"(bytes2?|vals)=", t)]
same = sum(strip(x) == strip(y) for x, y in zip(a, b))
rel = []
for x, y in zip(a, b):
    mx, my = re.findall(r"bytes=(\d+)", x), re.findall(r"bytes=(\d+)", y)
    if mx and my and int(mx[0]) > 64:
        rel.append((int(my[0]) - int(mx[0])) / int(mx[0]))
mag = sorted(abs(r) for r in rel)
print("%s: events %d real, %d pseudo; %d equal but sizes; messages > 64 B: %d, size error "
      "median %.1f %%, p90 %.1f %%, mean signed %+.1f %%"
      % (sys.argv[1], len(a), len(b), same, len(rel), 100 * statistics.median(mag),
         100 * mag[int(0.9 * len(mag))], 100 * statistics.mean(rel)))
# every channel (sender, receiver, tag) sends and receives the same sizes
import collections
sent, got = collections.defaultdict(list), collections.defaultdict(list)
for l in b:
    f = l.split()
    d = dict(x.split("=", 1) for x in f[2:] if "=" in x)
    r = f[0]
    if f[1] in ("Send", "Sendrecv"):
        sent[(r, d["peer"], d.get("tag", "0"))].append(int(d.get("bytes", 0)))
    if f[1] == "Sendrecv":
        got[(d["peer2"], r, d.get("tag2", "0"))].append(int(d.get("bytes2", 0)))
    if f[1] == "Wait":
        v = d["vals"].split(",")
        for q in range(0, len(v), 4):
            if int(v[q + 1]) >= 0:
                got[(v[q + 1], r, v[q + 2])].append(int(v[q + 3]))
keys = set(sent) | set(got)
bad = sum(sorted(sent.get(k, [])) != sorted(got.get(k, [])) for k in keys)
print("%s: %d channels, %d whose sent and received sizes differ" % (sys.argv[1], len(keys), bad))
EOF
done
IFS=' '
for t in $PREDICT; do
    printf '%s: ' "$t"
    "$M" predict "$t" --no-breakdown --set cpu.speed=1e6 | head -1
done
