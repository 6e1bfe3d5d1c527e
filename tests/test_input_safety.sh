#!/bin/bash
# Inputs that say what they are (issue 26): a FIFO or device given as any
# input is refused with one line, never waited on; a rank file whose header
# names another rank, or a rank file beyond meta.json's rank count, is
# refused with FILE:WHERE.
# env: MPICAST, MKTRACE (test_export_mktrace)
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mpicast-insafe-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$MKTRACE" T >/dev/null || fail "mktrace"
"$MPICAST" stats T >/dev/null || fail "the intact trace"

refused() { # WANT COMMAND... : exit 1 within 20 s, one line containing WANT
    local want=$1
    shift
    out=$(timeout 20 "$MPICAST" "$@" 2>&1 </dev/null); rc=$?
    [ "$rc" = 124 ] && fail "$*: hangs"
    [ "$rc" = 1 ] || fail "$*: exit $rc ($out)"
    [ "$(echo "$out" | wc -l)" = 1 ] || fail "$*: not one line: $out"
    case $out in "mpicast: "*"$want"*) ;; *) fail "$*: '$out'" ;; esac
}

# a FIFO (nobody writes it) in place of each kind of input
mkfifo fifo
cp -r T F && rm F/rank-000002.mct && mkfifo F/rank-000002.mct
refused "F/rank-000002.mct: not a regular file (a FIFO)" stats F
refused "F/rank-000002.mct: not a regular file (a FIFO)" predict F
cp -r T M && rm M/meta.json && mkfifo M/meta.json
refused "M/meta.json: not a regular file (a FIFO)" stats M
mkdir D && cp T/rank-* D/ && mkdir D/meta.json
refused "D/meta.json: not a regular file (a directory)" dump D
refused "fifo: not a regular file (a FIFO)" predict T --platform fifo
refused "/dev/zero: not a regular file (a character device)" predict T --ranks 8 --rules /dev/zero
refused "fifo: not a regular file (a FIFO)" extrapolate T --ranks 8 --rules fifo --explain
refused "fifo: not a regular file (a FIFO)" predict T --compute fifo
refused "fifo: not a regular file (a FIFO)" predict fifo
refused "fifo: not a regular file (a FIFO)" model fifo --by p
refused "fifo: not a regular file (a FIFO)" scaling fifo
printf 'fifo\n' >list.txt
refused "list.txt:1: fifo: not a regular file (a FIFO)" predict list.txt

# a rank file whose header names another rank (swapped files)
cp -r T S && mv S/rank-000000.mct x && mv S/rank-000001.mct S/rank-000000.mct && mv x S/rank-000001.mct
refused "S/rank-000000.mct:12: the header says rank 1, the file name rank 0" stats S
refused "S/rank-000000.mct:12: the header says rank 1" predict S
# dump reports each rank's error (one line per bad rank)
out=$(timeout 20 "$MPICAST" dump S 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "dump S: exit $rc"
echo "$out" | grep -q "^mpicast: S/rank-000001.mct:12: the header says rank 0, the file name rank 1" ||
    fail "dump S: '$out'"
# a rank file beyond meta.json's ranks (left by another run)
cp -r T X && cp T/rank-000001.mct X/rank-000009.mct
refused "X/rank-000009.mct: rank 9, but meta.json says the trace has 4 ranks" stats X
echo ok
