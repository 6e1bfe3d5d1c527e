#!/usr/bin/env bash
# mpicast trace picks the tracer of the MPI the program is linked against,
# and refuses a launcher of the other MPI before anything runs (issue 21
# item 4: the ranks used to segfault inside the wrong tracer's MPI_Init and
# mpicast still said "trace in DIR").
# usage: test_trace_wrong_mpi.sh MPICAST OMPI_PROGRAM MPICH_PROGRAM
set -euo pipefail
M=$1 OMPI_PROG=$2 MPICH_PROG=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpiexec.mpich >/dev/null && command -v mpirun.openmpi >/dev/null ||
  { echo "needs both mpiexec.mpich and mpirun.openmpi"; exit 77; }
T=$(mktemp -d /tmp/mc_wrongmpi_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
refused() { # DIR LAUNCHER... : exit 1, one line naming both MPIs, no run, no trace
  local dir=$1; shift
  set +e
  out=$("$M" trace -o "$dir" -- "$@" 2>"$T/err"); rc=$?
  set -e
  err=$(cat "$T/err")
  [ $rc -eq 1 ] || fail "$*: exit $rc, expected 1 ($err)"
  [ -z "$out" ] || fail "$*: the program ran: $out"
  [ "$(wc -l < "$T/err")" -eq 1 ] || fail "$*: not one line: $err"
  case "$err" in *"MPICH"*"Open MPI"*|*"Open MPI"*"MPICH"*) ;; *) fail "$*: $err" ;; esac
  [ ! -e "$dir" ] || fail "$*: $dir was created"
}
refused "$T/a" mpiexec.mpich -n 2 "$OMPI_PROG"
refused "$T/b" mpirun.openmpi --oversubscribe -np 2 "$MPICH_PROG"
# the program decides when no launcher is given: a singleton MPICH run
"$M" trace -o "$T/c" -- "$MPICH_PROG" >/dev/null 2>"$T/err" || fail "singleton MPICH run: $(cat "$T/err")"
python3 - "$T/c/meta.json" <<'PY' || fail "the singleton run was not traced with the MPICH tracer"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["ranks"] == 1 and "MPICH" in m["mpi_library"], m.get("mpi_library")
PY
echo ok
