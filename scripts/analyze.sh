#!/usr/bin/env bash
# `make analyze` (issue 9): static analysis and a Valgrind memcheck pass.
#  1. cppcheck over src/ (warnings and portability; reviewed exceptions in
#     scripts/cppcheck.supp) must report nothing;
#  2. every unit-test executable of BUILD runs under memcheck with no error
#     and no definite leak;
#  3. mpicast runs under memcheck on the broken inputs of tests/bad (each
#     must still give its one-line message and exit 1).
# usage: scripts/analyze.sh BUILD    (a non-sanitizer build, e.g. build/)
set -uo pipefail
build=$(cd "${1:?usage: scripts/analyze.sh BUILD}" && pwd)
cd "$(dirname "$0")/.."
failed=0
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite)

t0=$(date +%s)
if cppcheck --quiet --enable=warning,portability --std=c11 --inline-suppr -Iinclude -Isrc -j2 \
     --suppressions-list=scripts/cppcheck.supp --error-exitcode=1 \
     --template='{file}:{line}: {severity}: {id}: {message}' src/; then
  echo "analyze: cppcheck src/: clean ($(( $(date +%s) - t0 )) s)"
else
  echo "analyze: cppcheck src/: findings above"; failed=1
fi

t0=$(date +%s)
# Unit tests: the single-executable tests of BUILD/tests (scripts drive mpicast).
mapfile -t tests < <(cd "$build" && ctest -N --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    c = t.get("command") or []
    if len(c) == 1 and "/tests/" in c[0]:
        print(c[0])')
n=0
for t in "${tests[@]}"; do
  n=$((n + 1))
  if ! (cd "$build/tests" && "${VG[@]}" "$t" >/dev/null 2>"$build/valgrind-$(basename "$t").log"); then
    echo "analyze: memcheck $(basename "$t"): FAILED"; tail -20 "$build/valgrind-$(basename "$t").log"
    failed=1
  fi
done
echo "analyze: memcheck over $n unit tests ($(( $(date +%s) - t0 )) s)"

t0=$(date +%s)
if MPICAST_WRAPPER="${VG[*]}" python3 tests/test_bad_inputs.py "$build/bin/mpicast" tests/bad \
     >"$build/valgrind-bad-inputs.log" 2>&1; then
  echo "analyze: memcheck of mpicast on tests/bad: $(tail -1 "$build/valgrind-bad-inputs.log") ($(( $(date +%s) - t0 )) s)"
else
  echo "analyze: memcheck of mpicast on tests/bad: FAILED"; grep FAIL "$build/valgrind-bad-inputs.log" | head -20
  failed=1
fi
exit $failed
