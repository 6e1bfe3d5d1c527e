#!/bin/sh
# Issue-26 benchmark: `mpicast model` (default selection: leave-one-out over
# every family) on one series with D distinct p, and `mpicast scaling` on a
# CSV of R rows (R/10 distinct (p, n): 10 repeats each). Prints wall and CPU
# seconds (CPU is the figure to compare on a shared machine) and peak RSS.
# Before issue 26: model 1.2 / 10.9 / 64 / >120 s at D = 50 / 100 / 200 / 400;
# scaling > 120 s at R = 10^6.
# usage: bench/bench_model.sh BUILD_DIR [D...] [-- R...]
#   defaults: D = 50 100 200 400 10000, R = 10000 100000 1000000
set -e
B=${1:?usage: bench_model.sh BUILD_DIR [D...] [-- R...]}
shift
DS="" RS=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do DS="$DS $1"; shift; done
[ "${1:-}" = "--" ] && shift
RS="$*"
DS=${DS:-"50 100 200 400 10000"}
RS=${RS:-"10000 100000 1000000"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
measure() { # label, command...
    label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >/dev/null
    read -r wall user sys rss < "$T/time"
    printf "%-34s wall %7.2f s  cpu %7.2f s  rss %7d KB\n" "$label" "$wall" \
        "$(echo "$user + $sys" | bc)" "$rss"
}
for D in $DS; do
    # a saturating count with 3 % deterministic noise: every family fits,
    # the normal form tries all its exponents in every fold
    python3 - "$D" > "$T/m.csv" <<'PY'
import sys
D = int(sys.argv[1])
print("p,n,function,metric,value")
for i in range(D):
    p = i + 1
    v = (4 * min(p, 0.6 * D) + 50) * (1 + 0.03 * ((i * 7919) % 13 - 6) / 6)
    print(f"{p},1,MPI_Send,calls,{v}")
PY
    measure "model, $D distinct p" "$B/bin/mpicast" model "$T/m.csv" --by p --json
done
for R in $RS; do
    python3 - "$R" > "$T/s.csv" <<'PY'
import sys
R = int(sys.argv[1])
distinct = max(R // 10, 1)
ns = max(int(distinct ** 0.5), 1)
print("p,n,tau,gamma")
for r in range(R):
    k = r % distinct
    n = 1000 * (1 + k // ns)
    p = 1 + k % ns
    a = 0.01 * n
    tau = a * (1 / p + 0.02 + 0.001 * p)
    print(f"{p},{n},{tau},{a}")
PY
    measure "scaling, $R rows" "$B/bin/mpicast" scaling "$T/s.csv" --json
done
