#!/usr/bin/env bash
# Plots through gnuplot: `mpicast report --plots DIR` writes every plot as
# PNG (pngcairo) and SVG (svg terminal): per-rank stacked bars, predicted
# time and breakdown versus process count (from predict --json files and
# traces), strong/weak scaling curves (scaling --json). Checks the files are
# real PNG/SVG with the plot's labels in them.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "SKIP: gnuplot is not installed (Debian gnuplot-nox)"; exit 77
fi
T=$(mktemp -d /tmp/mc_plots_XXXXXX)
trap 'rm -rf "$T"' EXIT
"$MKTRACE" "$T/tr"
"$MPICAST" predict "$T/tr" --json > "$T/p4.json"
# a second point: the same trace on a slower network
"$MPICAST" predict "$T/tr" --json --set network.bandwidth=100MB/s \
  | python3 -c 'import json,sys; d=json.load(sys.stdin); d["ranks"]=16; json.dump(d,sys.stdout)' > "$T/p16.json"
# timings of the model tau = 0.001 n (1/p + 0.01 + 0.002 p)
python3 -c "
print('p,n,tau,gamma')
for n in (1000, 2000, 4000):
    a = 1e-3 * n
    for p in (1, 2, 4, 8, 16):
        print(f'{p},{n},{a*(1/p+0.01+0.002*p):.9g},{a*(1+0.002*p*p):.9g}')" > "$T/t.csv"
"$MPICAST" scaling "$T/t.csv" --strong n=1000 --weak k=250 --json > "$T/scaling.json"
SC="$T/scaling.json"
# a platform with a measured ping-pong table: T_comm(size) against its LogGP model
cat > "$T/plat.ini" <<'INI'
[network]
latency = 1us
overhead = 0.5us
bandwidth = 5GB/s
[table]
pingpong.8 = 2.1us
pingpong.1KiB = 2.3us
pingpong.64KiB = 15us
pingpong.1MiB = 210us
INI
SW=""
if "$MPICAST" sweep --help >/dev/null 2>&1; then
  "$MPICAST" sweep "$T/tr" --vary network.bandwidth=1GB/s,10GB/s --json > "$T/sweep.json"
  SW="$T/sweep.json"
else
  echo "note: mpicast sweep is not available: no sweep plot"
fi
"$MPICAST" report "$T/tr" "$T/p4.json" "$T/p16.json" $SC $SW -o "$T/r.html" --plots "$T/plots" \
  --platform "$T/plat.ini" --quiet
for f in ranks0 scale tcomm $([ -n "$SW" ] && echo sweep4); do
  [ "$(head -c 8 "$T/plots/$f.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "$f.png is not a PNG"; exit 1; }
  grep -q '<svg' "$T/plots/$f.svg" || { echo "$f.svg is not SVG"; exit 1; }
done
grep -q 'compute' "$T/plots/ranks0.svg"
grep -q 'communication' "$T/plots/scale.svg"
grep -q 'measured' "$T/plots/tcomm.svg"
if [ -n "$SW" ]; then grep -q 'bandwidth=10GB/s' "$T/plots/sweep4.svg"; fi
grep -q '<svg' "$T/plots/scaling3.svg"
grep -q 'strong:n=1000' "$T/r.html"
# the scale table has the three points (4, 4 and 16 processes) in order
python3 - "$T/r.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
html = html[html.index("Predicted time versus process count"):]
rows = re.findall(r'<tr><td>[^<]*</td><td>(\d+)</td><td>([0-9.]+)</td>', html)
ranks = [int(r) for r, _ in rows]
assert ranks == [4, 4, 16], rows
PY
echo ok
