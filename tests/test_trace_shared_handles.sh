#!/bin/bash
# Requests that share one MPI handle (Open MPI's static request for every
# operation on MPI_PROC_NULL) each keep their own id: the completions name
# every id once, and the trace replays without "unknown request".
# usage: test_trace_shared_handles.sh MPICAST FLAVOUR PROGRAM
set -u
mpicast=$1 flavour=$2 prog=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$flavour" = mpich ]; then launcher=(mpirun.mpich -np 1); else launcher=(mpirun -np 1); fi
tmp=$(mktemp -d /tmp/mpicast-shared-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$mpicast" trace -o "$tmp/t" -- "${launcher[@]}" "$prog" || { echo "FAIL: trace"; exit 1; }
"$mpicast" dump "$tmp/t" --no-times > "$tmp/dump" || { echo "FAIL: dump"; exit 1; }
created=$(grep -o ' req=[0-9]*' "$tmp/dump" | sed 's/ req=//' | sort -n | tr '\n' ' ')
completed=$(grep -E '^0 (Wait|Waitall) ' "$tmp/dump" | sed 's/.*vals=\([^ ]*\).*/\1/' |
            tr ',' '\n' | awk 'NR % 4 == 1' | sort -n | tr '\n' ' ')
[ "$created" = "1 2 3 4 5 6 " ] || { echo "FAIL: created ids '$created'"; exit 1; }
[ "$completed" = "$created" ] || { echo "FAIL: completed ids '$completed' != '$created'"; cat "$tmp/dump"; exit 1; }
"$mpicast" predict "$tmp/t" > /dev/null || { echo "FAIL: predict"; exit 1; }
echo "ok: ids $created each completed once"
