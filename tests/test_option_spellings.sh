#!/usr/bin/env bash
# One option grammar (issue 22, item 9): for every converted subcommand,
# each value option its --help lists gives the same exit status and the same
# first line on stderr as "--opt=V" and as "--opt V" (V a value the option
# refuses or takes, the same both ways), and the grammar took it (no
# "unknown option" / "needs a value"); each flag given "=x" is refused
# (exit 2, "takes no value"). The options come from the help text, so an
# option added to a table is checked without touching this test.
set -euo pipefail
: "${MPICAST:?}" "${MKTRACE:?}"
MPICAST=$(readlink -f "$MPICAST") # the runs below work in directories of their own
T=$(mktemp -d /tmp/mc_optsp_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$T/tr"

# the arguments each command needs besides the option under test
declare -A BASE=(
  [predict]="$T/tr --jobs 1"
  [sweep]="$T/tr --quiet"
  [extrapolate]="$T/tr --ranks 8 --explain"
  [dump]="$T/tr"
  [stats]="$T/tr"
  [compress]="$T/tr -o c"
  [import]="otf2 $T/none"
  [validate]="$T/tr"
  [blocks]="$T/tr"
  [scaling]="$T/none.csv"
  [model]="$T/none.csv"
  [trace]="" # options come before the command: without one, the same usage error
  [export]="chrome $T/tr -o e.json --quiet"
  [report]="$T/tr -o r.html --no-predict --quiet"
)
run() { # DIR ARGS...: exit status, then the first stderr line
  local dir=$1; shift
  mkdir -p "$dir"
  local rc=0
  (cd "$dir" && timeout 300 "$MPICAST" "$@" > /dev/null 2> err) || rc=$?
  echo "$rc $(head -1 "$dir/err")"
}
checked=0 n=0
for cmd in "${!BASE[@]}"; do
  read -r -a base <<< "${BASE[$cmd]}"
  "$MPICAST" "$cmd" --help > "$T/help" || fail "$cmd --help: exit $?"
  # "  -q, --quiet   text" / "  --platform FILE  text" / "  --replicate [R]  text"
  while IFS= read -r label; do
    read -r name metavar <<< "${label##*, }"
    n=$((n + 1))
    if [ -z "$metavar" ]; then
      got=$(run "$T/w0" "$cmd" "${base[@]}" "$name=x")
      [ "${got%% *}" = 2 ] && [[ "$got" == *"takes no value"* ]] ||
        fail "$cmd $name=x: $got (expected exit 2, takes no value)"
    else
      v=BAD
      [[ "$metavar" == \[* ]] && v=7 # an optional value is taken only when a number
      a=$(run "$T/w1.$n" "$cmd" "${base[@]}" "$name=$v")
      b=$(run "$T/w2.$n" "$cmd" "${base[@]}" "$name" "$v")
      [ "$a" = "$b" ] || fail "$cmd: '$name=$v' gives '$a', '$name $v' gives '$b'"
      [[ "$a" != *"unknown option"* && "$a" != *"needs a value"* ]] ||
        fail "$cmd $name=$v: not taken: $a"
    fi
    checked=$((checked + 1))
  done < <(grep -E '^  -' "$T/help" | sed -E 's/^  //; s/  .*//')
done
[ "$checked" -ge 10 ] || fail "only $checked options found in the help texts"
echo "$checked options: --opt=V and --opt V agree, flags refuse =x"
