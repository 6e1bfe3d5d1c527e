#!/usr/bin/env bash
# mpicast report renders in headless Chromium: no console or script errors,
# the expected figures (per-rank bars, timeline, time-versus-processes,
# scaling curves) are in the rendered DOM as SVG, no network access is
# attempted, and the screenshot is not blank (test_report_png_check.py).
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}" "${TESTS:?}"
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
  echo "SKIP: chromium is not installed (Debian chromium)"; exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "SKIP: gnuplot is not installed (Debian gnuplot-nox): the report would have no plots"; exit 77
fi
T=$(mktemp -d /tmp/mc_report_XXXXXX)
trap 'rm -rf "$T"' EXIT
"$MKTRACE" "$T/tr"
"$MPICAST" predict "$T/tr" --json > "$T/p4.json"
python3 -c "
print('p,n,tau,gamma')
for n in (1000, 2000, 4000):
    a = 1e-3 * n
    for p in (1, 2, 4, 8, 16):
        print(f'{p},{n},{a*(1/p+0.01+0.002*p):.9g},{a*(1+0.002*p*p):.9g}')" > "$T/t.csv"
"$MPICAST" scaling "$T/t.csv" --strong n=1000 --weak k=250 --json > "$T/scaling.json"
"$MPICAST" report "$T/tr" "$T/p4.json" "$T/scaling.json" -o "$T/report.html" --window 0:0.00005 --quiet
# self-contained: nothing fetched from elsewhere
if grep -Eq '(src|href)="(https?:)?//' "$T/report.html"; then echo "the report links to the network"; exit 1; fi

run_chrome() {
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d "$T/ud.XXXX")" \
    --enable-logging=stderr --v=0 "$@" "file://$T/report.html"
}
run_chrome --screenshot="$T/shot.png" --window-size=1280,2000 > "$T/shot.out" 2> "$T/shot.err"
run_chrome --dump-dom > "$T/dom.html" 2> "$T/dom.err"
# console messages and script errors are logged as CONSOLE / Uncaught
if grep -Ei 'CONSOLE|Uncaught|SyntaxError|TypeError' "$T/shot.err" "$T/dom.err"; then
  echo "console errors while rendering the report"; exit 1
fi
python3 - "$T/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
for fig in ("ranks0", "timeline", "scale", "scaling2"):
    m = re.search(r'<div class="figure" id="fig-%s"[^>]*>(.*?)</div>' % fig, dom, re.S)
    if not m or "<svg" not in m.group(1):
        sys.exit(f"figure {fig} is missing from the rendered DOM or has no SVG")
assert dom.count("<rect") > 20, "the timeline has too few rectangles"
assert "predicted time" in dom and "MPI_Allreduce" in dom
print("DOM ok:", dom.count("<svg"), "svg elements")
PY
python3 "$TESTS/test_report_png_check.py" "$T/shot.png" 1280 2000
echo ok
