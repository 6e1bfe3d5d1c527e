#!/usr/bin/env bash
# docs/commands.md is generated from the --help texts (issue 8, item 6):
# the committed page must equal what scripts/gen-command-docs.sh makes from
# this build, so that it cannot drift from the program; the generator must
# refuse a help text without an example or an exit status, so that every
# subcommand keeps both.
set -euo pipefail
: "${MPICAST:?}" "${SRC:?}"
T=$(mktemp -d /tmp/mc_cmddocs_XXXXXX)
trap 'rm -rf "$T"' EXIT
GEN="$SRC/scripts/gen-command-docs.sh"

bash "$GEN" "$MPICAST" > "$T/commands.md"
if ! diff -u "$SRC/docs/commands.md" "$T/commands.md" > "$T/diff"; then
  head -60 "$T/diff"
  echo "FAIL: docs/commands.md is out of date; regenerate it with"
  echo "  scripts/gen-command-docs.sh build/bin/mpicast > docs/commands.md"
  exit 1
fi
# every command of `mpicast --help` has its section with an example
n_cmds=$("$MPICAST" --help | sed -n '/^commands:/,$p' | grep -c '^  [a-z]')
[ "$(grep -c '^## mpicast ' "$T/commands.md")" = "$n_cmds" ] || { echo "FAIL: sections"; exit 1; }
[ "$(grep -c '^### Example$' "$T/commands.md")" = "$n_cmds" ] || { echo "FAIL: examples"; exit 1; }
[ "$n_cmds" -ge 12 ] || { echo "FAIL: only $n_cmds commands listed"; exit 1; }

# the generator's checks can fail: a stand-in mpicast whose 'dump --help'
# lacks the example, then one whose help lacks the exit status
fake() { # $1: help text of "dump"
  cat > "$T/fake" <<FAKE
#!/usr/bin/env bash
if [ "\$1" = --help ]; then printf 'usage: mpicast COMMAND\n\ncommands:\n  dump         print a trace\n'; exit 0; fi
printf '%s\n' "$1"
FAKE
  chmod +x "$T/fake"
}
fake $'usage: mpicast dump DIR\n\n  --rank R   one rank\n\nExit status: 0 ok.'
if bash "$GEN" "$T/fake" > /dev/null 2> "$T/err"; then echo "FAIL: help without example accepted"; exit 1; fi
grep -q "no 'Example:'" "$T/err"
fake $'usage: mpicast dump DIR\n\nExample:\n  mpicast dump run/'
if bash "$GEN" "$T/fake" > /dev/null 2> "$T/err"; then echo "FAIL: help without exit status accepted"; exit 1; fi
grep -q "no 'Exit status:'" "$T/err"
fake $'usage: mpicast dump DIR\n\n  --rank R   one rank\n\nExample:\n  mpicast dump run/\nExit status: 0 ok.'
bash "$GEN" "$T/fake" > "$T/ok.md"
grep -q '^mpicast dump run/$' "$T/ok.md"
grep -q '^  --rank R   one rank$' "$T/ok.md"
echo ok
