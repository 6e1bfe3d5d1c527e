#!/bin/bash
# Every internal header (src/MODULE/NAME.h) is guarded by one spelling,
# MPICAST_MODULE_NAME_H, the module not repeated where NAME starts with it
# (src/sim/sim_internal.h: MPICAST_SIM_INTERNAL_H, src/sweep/sweep.h:
# MPICAST_SWEEP_H). Fails naming each header that differs.
set -u
SRC=${SRC:?SRC: the source tree}
bad=0
n=0
for h in "$SRC"/src/*/*.h; do
    module=$(basename "$(dirname "$h")" | tr 'a-z' 'A-Z')
    stem=$(basename "$h" .h | tr 'a-z' 'A-Z')
    if [ "$stem" = "$module" ]; then
        want="MPICAST_${module}_H"
    else
        want="MPICAST_${module}_${stem#"${module}"_}_H"
    fi
    got=$(grep -m1 -E '^#ifndef [A-Z0-9_]+_H$' "$h" | awk '{print $2}')
    def=$(grep -m1 -E '^#define [A-Z0-9_]+_H$' "$h" | awk '{print $2}')
    n=$((n + 1))
    if [ "$got" != "$want" ] || [ "$def" != "$want" ]; then
        echo "${h#"$SRC"/}: guard '${got:-none}'/'${def:-none}', expected $want" >&2
        bad=1
    fi
done
[ "$n" -gt 0 ] || { echo "no headers under $SRC/src" >&2; exit 1; }
exit $bad
