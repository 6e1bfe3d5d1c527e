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
# --ranks and --window (issue 21 item 3): exactly the whole export's events of
# those ranks / overlapping that window, flows only between what is drawn
"$MPICAST" export chrome "$T/tr" -o "$T/r13.json" --quiet --ranks 0-1
"$MPICAST" export chrome "$T/tr" -o "$T/win.json" --quiet --window 0.00002:0.00006
python3 - "$T/real.json" "$T/r13.json" "$T/win.json" <<'PY'
import json, sys
whole, r13, win = (json.load(open(p))["traceEvents"] for p in sys.argv[1:4])
def calls(ev, keep):
    return sorted(json.dumps(e, sort_keys=True) for e in ev if e.get("cat") in ("mpi", "compute", "wait") and keep(e))
assert calls(r13, lambda e: True) == calls(whole, lambda e: e["tid"] in (0, 1)), "ranks 0-1"
assert {e["tid"] for e in r13} == {0, 1}, {e["tid"] for e in r13}
flows = [e for e in r13 if e.get("cat") == "msg"]
assert flows and len(flows) == 4 and all(e["tid"] in (0, 1) for e in flows), flows
# window [20, 60] us: slices overlapping it, B/E kept as pairs
def overlaps(e, ends):
    t0 = e["ts"]; t1 = e["ts"] + e.get("dur", 0)
    if e["ph"] == "B" or e.get("cat") == "wait":  # a wait slice is drawn with its call
        t1 = ends[(e["tid"], e["ts"])]
    return t1 >= 20 and t0 <= 60
ends = {}
for ev in (whole,):
    stack = {}
    for e in ev:
        if e.get("cat") == "mpi" and e["ph"] == "B": stack[e["tid"]] = e["ts"]
        if e.get("cat") == "mpi" and e["ph"] == "E": ends[(e["tid"], stack[e["tid"]])] = e["ts"]
def kept_whole(e):
    if e["ph"] == "E":
        return True  # checked through its B
    return overlaps(e, ends)
wb = [e for e in win if e.get("cat") in ("compute", "wait") or (e.get("cat") == "mpi" and e["ph"] == "B")]
hb = [e for e in whole if (e.get("cat") in ("compute", "wait") or (e.get("cat") == "mpi" and e["ph"] == "B")) and kept_whole(e)]
assert sorted(json.dumps(e, sort_keys=True) for e in wb) == sorted(json.dumps(e, sort_keys=True) for e in hb), (len(wb), len(hb))
assert 0 < len(wb) < len([e for e in whole if e.get("cat") == "mpi" and e["ph"] == "B"]) + 100
PY
rc=0; "$MPICAST" export tit "$T/tr" -o "$T/x" --ranks 1 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "export tit --ranks: exit $rc, expected 2"; exit 1; }
rc=0; "$MPICAST" export chrome "$T/tr" -o "$T/y.json" --window 5:1 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "--window 5:1: exit $rc, expected 2"; exit 1; }
"$MPICAST" predict "$T/tr" --timeline "$T/sim.json" > /dev/null
python3 "$TESTS/test_export_chrome_check.py" "$T/sim.json" --ranks 4
echo ok
