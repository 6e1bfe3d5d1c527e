#!/usr/bin/env bash
# The report's timeline shows the whole run at any size (issue 21 item 3):
# past 20,000 slices in the window it aggregates (per rank and column, the
# share of compute, comm and wait) and says so, instead of silently stopping
# at the 20,000th rectangle. Checked on a 4-rank trace of 150,008 slices:
#  - the figure says "aggregated", and its columns reach the end of the run;
#  - per rank, the green (compute) area equals the predicted compute share
#    of the run (predict --json) within 1 %;
#  - a narrow --window draws exact slices again.
set -euo pipefail
: "${MPICAST:?}"
T=$(mktemp -d /tmp/mc_tlview_XXXXXX)
trap 'rm -rf "$T"' EXIT
python3 - "$T/big.tit" <<'PY'
import sys
P, lines = 4, []
lines += [f"{r} init" for r in range(P)]
for it in range(3000):
    for r in range(P):
        lines += [f"{r} compute {100000 * (r + 1)}", f"{r} allreduce 8192 0"]
lines += [f"{r} finalize" for r in range(P)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$MPICAST" report "$T/big.tit" -o "$T/r.html" --quiet
"$MPICAST" predict "$T/big.tit" --json --quiet > "$T/p.json"
python3 - "$T/r.html" "$T/p.json" <<'PY'
import json, re, sys
html, pred = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
svg = re.search(r'<svg[^>]*data-mode="(\w+)"[^>]*>(.*?)</svg>', html, re.S)
assert svg and svg.group(1) == "aggregated", "timeline not aggregated"
assert "150008 slices, aggregated" in html, "the figure does not say it aggregates"
LEFT, W, ROWH = 70, 1100, 18
area, right = [0.0] * 4, 0.0
for m in re.finditer(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#4e9a06"', svg.group(2)):
    x, y, w, h = map(float, m.groups())
    r = int((y - 2) // ROWH)
    area[r] += h / 11.0 * w / W
    right = max(right, x + w)
assert right > LEFT + W - 5, f"columns end at x={right}, the run at {LEFT + W}"
T = pred["predicted_time"]
for r in range(4):
    want = pred["per_rank"][r]["compute"] / T
    assert abs(area[r] - want) <= 0.01 * want, f"rank {r}: compute share {area[r]:.4f} drawn, {want:.4f} predicted"
print("aggregated timeline: compute shares", [round(a, 4) for a in area])
PY
"$MPICAST" report "$T/big.tit" -o "$T/w.html" --window 0:0.002 --quiet
grep -q 'data-mode="exact"' "$T/w.html" || { echo "FAIL: a narrow window is not drawn exactly"; exit 1; }
echo "the timeline covers the whole run"
