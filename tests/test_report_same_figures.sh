#!/usr/bin/env bash
# report shows the figures of `stats` (one stats module: the same MPI time,
# application window and message counts), and fails with exit 1 and a
# one-line error naming the input when an input cannot be read (issue 26:
# it wrote the error into the HTML only and exited 0), leaving no page.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
T=$(mktemp -d /tmp/mc_repfig_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$T/tr"
"$MPICAST" report "$T/tr" -o "$T/r.html" --no-predict --quiet
"$MPICAST" stats "$T/tr" --json > "$T/s.json"
python3 - "$T/r.html" "$T/s.json" <<'PY'
import json, re, sys
html, st = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
m = re.search(r"time in MPI \(all ranks\)</td><td>([\d.]+) s of ([\d.]+) s \(([\d.]+) %\)", html)
assert m, "no MPI time row"
assert abs(float(m.group(1)) - st["mpi_time"]) < 1e-6, (m.group(1), st["mpi_time"])
assert m.group(3) == "%.1f" % st["mpi_percent"], (m.group(3), st["mpi_percent"])
msgs = re.search(r"point-to-point messages</td><td>(\d+) \((\d+) bytes\)", html)
assert msgs and int(msgs.group(1)) == st["messages"]["sends"] and int(msgs.group(2)) == st["messages"]["total_bytes"], msgs
calls = re.search(r"MPI calls</td><td>(\d+)<", html)
assert calls and int(calls.group(1)) == st["calls"], calls
print("report and stats agree:", m.group(3), "% in MPI,", msgs.group(1), "messages")
PY
set +e
err=$("$MPICAST" report "$T/tr" "$T/missing" -o "$T/bad.html" --no-predict --quiet 2>&1); rc=$?
set -e
[ $rc -eq 1 ] || fail "report with a missing input: exit $rc"
case "$err" in *"$T/missing"*) ;; *) fail "the error does not name the input: $err" ;; esac
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "more than one error line: $err"
[ ! -e "$T/bad.html" ] || fail "a failed report left its page"
echo ok
