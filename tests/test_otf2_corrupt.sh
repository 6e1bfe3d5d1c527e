#!/usr/bin/env bash
# Bad OTF2 input never crashes or hangs mpicast: a cut event file fails
# ("truncated", its prefix imported, or an invalid record); an anchor file with one flipped
# byte (which makes the OTF2 library itself spin forever) fails after
# MPICAST_OTF2_STALL seconds without progress; random damage to any file of
# the archive gives exit 0 or 1, for import and for predict on the archive.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_otf2bad_XXXXXX)
trap 'rm -rf "$T"' EXIT
export MPICAST_OTF2_STALL=3
"$MKTRACE" "$T/tr"
"$MPICAST" export otf2 "$T/tr" -o "$T/good" --quiet

cp -r "$T/good" "$T/cut"
head -c 100 "$T/good/traces/0.evt" > "$T/cut/traces/0.evt"
set +e
"$MPICAST" import otf2 "$T/cut" -o "$T/cut.out" 2> "$T/err"; rc=$?
set -e
# cut between records: "truncated"; inside a record: OTF2 says the record is invalid
[ $rc -eq 1 ] && grep -Eq 'truncated event file|rank 0: Invalid' "$T/err" || { cat "$T/err"; exit 1; }

cp -r "$T/good" "$T/anchor"
# a length field of the anchor file: OTF2 3.0 often loops forever on 0x33 there
printf '\x33' | dd of="$T/anchor/traces.otf2" bs=1 seek=46 conv=notrunc status=none
set +e
timeout 60 "$MPICAST" import otf2 "$T/anchor" -o "$T/anchor.out" 2> "$T/err"; rc=$?
timeout 60 "$MPICAST" predict "$T/anchor" > /dev/null 2>> "$T/err"; rc2=$?
set -e
[ $rc -eq 1 ] && [ $rc2 -eq 1 ] || { echo "damaged anchor: exit $rc / $rc2"; cat "$T/err"; exit 1; }
# Whether OTF2 spins, refuses to open, or opens and finds no definitions depends on the
# archive's random trace id; each is a one-line refusal naming the archive or its anchor file.
grep -Eq 'made no progress|cannot open the OTF2 archive|no global definitions' "$T/err" || { cat "$T/err"; exit 1; }
grep -v "^mpicast: $T/anchor\(/traces.otf2\)\?: " "$T/err" && { echo "a refusal not naming the archive"; exit 1; }

python3 - "$MPICAST" "$T" <<'PY'
import os, random, shutil, subprocess, sys
mpicast, T = sys.argv[1], sys.argv[2]
random.seed(2026)
files = ["traces.otf2", "traces.def"] + [f"traces/{r}.{x}" for r in range(4) for x in ("evt", "def")]
for it in range(25):
    c = os.path.join(T, "c")
    shutil.rmtree(c, ignore_errors=True)
    shutil.copytree(os.path.join(T, "good"), c)
    f = os.path.join(c, random.choice(files))
    d = bytearray(open(f, "rb").read())
    if random.random() < 0.3:
        d = d[:random.randrange(len(d))]
    else:
        for _ in range(random.randrange(1, 8)):
            d[random.randrange(len(d))] = random.randrange(256)
    open(f, "wb").write(d)
    for cmd in (["import", "otf2", c, "-o", os.path.join(T, f"o{it}")], ["predict", c]):
        p = subprocess.run([mpicast] + cmd, capture_output=True, text=True, timeout=60)
        if p.returncode not in (0, 1) or "runtime error" in p.stderr or "AddressSanitizer" in p.stderr:
            sys.exit(f"iteration {it}, {f}: {cmd[0]} exit {p.returncode}: {p.stderr[-600:]}")
print("25 damaged archives: no crash, no hang")
PY
echo ok
