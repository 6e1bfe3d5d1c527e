#!/usr/bin/env bash
# Our trace -> OTF2 -> our trace: otf2-print reads the export without
# errors; the imported trace has the same events (op, peer, tag, bytes,
# comm, times) except the documented losses (docs/formats.md); predict gives
# the same prediction on the trace, the imported trace and the archive
# itself; predict --timeline-otf2 writes an archive otf2-print reads.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_otf2rt_XXXXXX)
trap 'rm -rf "$T"' EXIT
"$MKTRACE" "$T/tr"
"$MPICAST" export otf2 "$T/tr" -o "$T/otf2" --quiet
for r in 0 1 2 3; do [ -f "$T/otf2/traces/$r.def" ] || { echo "no definition file for location $r"; exit 1; }; done
if command -v otf2-print >/dev/null 2>&1; then
  otf2-print "$T/otf2/traces.otf2" > "$T/print.txt" 2> "$T/print.err"
  [ ! -s "$T/print.err" ] || { cat "$T/print.err"; exit 1; }
  grep -q 'MPI_SEND' "$T/print.txt"
  grep -q 'MPI_COLLECTIVE_END' "$T/print.txt"
  [ "$(grep -c '^MPI_ISEND ' "$T/print.txt")" -eq 4 ]
  otf2-print -G "$T/otf2/traces.otf2" > "$T/defs.txt"
  grep -q 'mpicast comm 0x100000001' "$T/defs.txt"
else
  echo "otf2-print not installed (Debian otf2-tools): reading check skipped"
fi
"$MPICAST" import otf2 "$T/otf2/traces.otf2" -o "$T/back" --quiet
"$MPICAST" dump "$T/tr" > "$T/a.txt"
"$MPICAST" dump "$T/back" > "$T/b.txt"
python3 - "$T/a.txt" "$T/b.txt" <<'PY'
import sys
def parse(path):
    out = []
    for line in open(path):
        f = line.split()
        d = {"rank": f[0], "op": f[1]}
        for kv in f[2:]:
            if "=" in kv:
                k, v = kv.split("=", 1)
                d[k] = v
        out.append(d)
    return out
a, b = parse(sys.argv[1]), parse(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
keys = ("rank", "op", "comm", "peer", "tag", "bytes", "start", "end", "burst", "req")
for x, y in zip(a, b):
    ks = keys
    if x["op"] == "Comm_split":   # colour, key, members, new comm kept (mpicast::comm_call)
        ks = keys + ("newcomm", "vals")
    if x["op"] == "Irecv":        # lost: the buffer size (OTF2 has the message size)
        ks = tuple(k for k in keys if k != "bytes")
    for k in ks:
        if x.get(k) != y.get(k):
            sys.exit(f"round trip differs in {k}: {x} vs {y}")
    if x["op"] in ("Waitall", "Wait"):
        assert x.get("vals") == y.get("vals"), (x, y)
print(f"{len(a)} events round-trip")
PY
p() { "$MPICAST" predict "$@" --json | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["predicted_time"]))'; }
A=$(p "$T/tr"); B=$(p "$T/back"); C=$(p "$T/otf2/traces.otf2"); D=$(p "$T/otf2")
echo "predicted: trace $A, imported $B, archive $C / $D"
[ "$A" = "$B" ] && [ "$A" = "$C" ] && [ "$A" = "$D" ]
# the simulated run as OTF2
"$MPICAST" predict "$T/tr" --timeline-otf2 "$T/sim" > /dev/null
[ -f "$T/sim/traces.otf2" ]
if command -v otf2-print >/dev/null 2>&1; then
  otf2-print "$T/sim/traces.otf2" > "$T/sim.txt" 2> "$T/sim.err"
  [ ! -s "$T/sim.err" ] || { cat "$T/sim.err"; exit 1; }
  grep -q 'ENTER.*MPI_Allreduce' "$T/sim.txt"
  grep -q 'ENTER.*compute' "$T/sim.txt"
fi
# an archive that is not one
set +e
"$MPICAST" import otf2 "$T/tr" -o "$T/x" 2>/dev/null; [ $? -eq 1 ] || exit 1
set -e
echo ok
