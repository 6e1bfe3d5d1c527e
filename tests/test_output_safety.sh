#!/bin/bash
# Outputs never overwrite inputs or follow symlinks (issue 26): every file a
# subcommand writes is refused when it is, or is inside, an input (exit 1,
# one line, the input byte-identical); a symlink at the output's name is
# replaced, not written through; a failed command leaves nothing under the
# output's name; extrapolate and import refuse a non-empty -o DIR.
# env: MPICAST, MKTRACE (test_export_mktrace)
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mpicast-outsafe-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$MKTRACE" T >/dev/null || fail "mktrace"
sum() { find T -type f -exec md5sum {} + | sort; }
before=$(sum)

# refused: exit 1, one line naming the output and the input, input intact
refused() { # WHAT-TO-EXPECT COMMAND...
    local want=$1
    shift
    out=$("$MPICAST" "$@" 2>&1 </dev/null); rc=$?
    [ "$rc" = 1 ] || fail "$*: exit $rc ($out)"
    [ "$(echo "$out" | wc -l)" = 1 ] || fail "$*: not one line: $out"
    case $out in "mpicast: "*"$want"*) ;; *) fail "$*: '$out'" ;; esac
    [ "$(sum)" = "$before" ] || fail "$*: the input changed"
}
refused ": is the input T" extrapolate T --ranks 8 -o T
refused ": is the input T/" extrapolate T/ --ranks 8 -o ./T
refused ": is inside the input T" extrapolate T --ranks 8 -o T/more
refused ": is inside the input T" extrapolate T --ranks 8 -o T/new/deeper/dir
refused ": is inside the input T" export chrome T -o T/rank-000000.mct
refused ": is the input T" export tit T -o T
refused ": is inside the input T" export tit T -o T/tit
refused ": is the input T" export otf2 T -o T
refused ": is inside the input T" predict T --timeline T/rank-000001.mct
refused ": is inside the input T" predict T --timeline-otf2 T/otf2
refused ": is inside the input T" blocks T --table T/meta.json
refused ": is inside the input T" report T -o T/meta.json
refused ": is the input T" import otf2 T -o T
echo "[network]" >plat.ini
refused ": is the input plat.ini" predict T --platform plat.ini --timeline plat.ini
ln -s T alias
refused ": is inside the input T" export chrome T -o alias/x.json
refused ": is inside the input alias" export chrome alias -o T/x.json

# a non-empty -o DIR for a whole trace
mkdir full && echo keep >full/notes
refused "full: not empty (holds notes)" extrapolate T --ranks 8 -o full
refused "full: not empty (holds notes)" import otf2 nothing.otf2 -o full
[ "$(cat full/notes)" = keep ] || fail "non-empty: notes changed"

# a symlink at the output's name is replaced, its target untouched
echo precious >victim
ln -s victim tl.json
"$MPICAST" predict T --timeline tl.json >/dev/null || fail "predict --timeline"
[ "$(cat victim)" = precious ] || fail "predict --timeline wrote through the symlink"
[ -L tl.json ] && fail "tl.json is still the symlink"
python3 -c 'import json,sys; json.load(open("tl.json"))' || fail "tl.json is not JSON"
ln -s victim chrome.json
"$MPICAST" export chrome T -o chrome.json -q || fail "export chrome"
[ "$(cat victim)" = precious ] || fail "export chrome wrote through the symlink"

# a failure leaves nothing under the output's name, and no temporary
"$MPICAST" export chrome missing -o gone.json 2>/dev/null && fail "export of a missing trace"
"$MPICAST" blocks missing --table gone.txt 2>/dev/null && fail "blocks of a missing trace"
[ -e gone.json ] || [ -e gone.txt ] && fail "a failed command left its output"
ls -a | grep -q '^\.gone' && fail "a temporary was left: $(ls -a)"
echo ok
