#!/usr/bin/env bash
# Terminal manners (issue 8, item 6): a long `mpicast predict` shows a
# progress line on stderr when it is a terminal (a pty from script(1)),
# none with --quiet, none when stderr is not a terminal; every command
# touched here answers --help with an example.
set -euo pipefail
# every progress update is shown, so the test does not depend on the machine's speed
export MPICAST_PROGRESS_INTERVAL=0
: "${MPICAST:?}"
T=$(mktemp -d /tmp/mc_progress_XXXXXX)
trap 'rm -rf "$T"' EXIT
for c in export import report predict; do
  "$MPICAST" $c --help > "$T/help"
  grep -q '^usage: mpicast '"$c" "$T/help"
done
for c in export import report; do "$MPICAST" $c --help | grep -q '^Example'; done
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (bsdutils) is not installed: no pty to test the progress line"; exit 77
fi
python3 -c "
with open('$T/big.txt', 'w') as f:
    for i in range(300000):
        f.write('0 send 1 0 8\n1 recv 0 0 8\n' if i % 2 == 0 else '1 send 0 0 8\n0 recv 1 0 8\n')"
script -qc "'$MPICAST' predict '$T/big.txt' > /dev/null" /dev/null > "$T/tty.out"
grep -q 'predict: [0-9]' "$T/tty.out" || { echo "no progress line on a terminal"; od -c "$T/tty.out" | head; exit 1; }
script -qc "'$MPICAST' predict '$T/big.txt' --quiet > /dev/null" /dev/null > "$T/quiet.out"
! grep -q 'predict: [0-9]' "$T/quiet.out"
"$MPICAST" predict "$T/big.txt" > /dev/null 2> "$T/pipe.err"
[ ! -s "$T/pipe.err" ]
echo ok
