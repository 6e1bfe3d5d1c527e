#!/usr/bin/env bash
# Chrome trace-event JSON of a real trace (mpicast export chrome) and of the
# simulated run (predict --timeline) validate against the trace-event format
# (test_export_chrome_check.py): required fields, matching begin/end, flows.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}" "${TESTS:?}"
T=$(mktemp -d /tmp/mc_chrome_XXXXXX)
trap 'rm -rf "$T"' EXIT
"$MKTRACE" "$T/tr"
"$MPICAST" export chrome "$T/tr" -o "$T/real.json" --quiet
# 4 ring messages + 2 pair messages; rank 0 waits for rank 3's late Isend
python3 "$TESTS/test_export_chrome_check.py" "$T/real.json" --flows 6 --wait-on 0 --ranks 4 --strict
python3 - "$T/real.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
cats = {e.get("cat") for e in ev}
assert {"compute", "mpi", "wait", "msg"} <= cats, cats
# the ring's late sender: rank 0's Waitall starts at 11 us, rank 3's Isend at 13 us
w = [e for e in ev if e.get("cat") == "wait" and e["tid"] == 0]
assert abs(w[0]["dur"] - 2.0) < 1e-9, w
names = {e["name"] for e in ev if e["ph"] == "B"}
assert {"MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Comm_split"} <= names, names
PY
"$MPICAST" export chrome "$T/tr" -o - --quiet | python3 -c 'import json,sys; json.load(sys.stdin)'
"$MPICAST" predict "$T/tr" --timeline "$T/sim.json" > /dev/null
python3 "$TESTS/test_export_chrome_check.py" "$T/sim.json" --ranks 4
echo ok
