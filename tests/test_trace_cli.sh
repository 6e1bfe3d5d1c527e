#!/bin/bash
# `mpicast trace` without MPI: usage, a command that is not found, an
# uncreatable directory, a bad mode; and the exit status of a plain command
# passes through.
# usage: test_trace_cli.sh MPICAST
set -u
mpicast=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mpicast-trace-cli-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$mpicast" trace --help | grep -q '^usage: mpicast trace' || fail "--help"

out=$("$mpicast" trace -o "$tmp/t" -- no-such-command-xyz 2>&1); rc=$?
[ "$rc" = 1 ] || fail "not found: exit $rc"
[ "$out" = "mpicast: no-such-command-xyz: command not found" ] || fail "not found: '$out'"

touch "$tmp/file"
out=$("$mpicast" trace -o "$tmp/file/sub" -- true 2>&1); rc=$?
[ "$rc" = 1 ] || fail "uncreatable: exit $rc"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "uncreatable: more than one line: $out"
case $out in "mpicast: $tmp/file/sub: cannot create: "*) ;; *) fail "uncreatable: '$out'" ;; esac

"$mpicast" trace --mode bogus -- true 2>/dev/null; rc=$?
[ "$rc" = 2 ] || fail "bad mode: exit $rc"
"$mpicast" trace 2>/dev/null; rc=$?
[ "$rc" = 2 ] || fail "no command: exit $rc"
# --sample-rate belongs to --mode profile; out of range is a usage error too
out=$("$mpicast" trace --sample-rate 0.5 -- true 2>&1); rc=$?
[ "$rc" = 2 ] || fail "--sample-rate without profile: exit $rc"
case $out in *"--sample-rate applies to --mode profile only"*) ;; *) fail "--sample-rate: '$out'" ;; esac
"$mpicast" trace --mode profile --sample-rate 1.5 -- true 2>/dev/null; rc=$?
[ "$rc" = 2 ] || fail "--sample-rate 1.5: exit $rc"
"$mpicast" trace --mode profile --sample-rate 0 -- true 2>/dev/null; rc=$?
[ "$rc" = 2 ] || fail "--sample-rate 0: exit $rc"

"$mpicast" trace -o "$tmp/t2" -- sh -c 'exit 5' 2>/dev/null; rc=$?
[ "$rc" = 5 ] || fail "plain command: exit $rc, expected 5"
[ -d "$tmp/t2" ] || fail "directory not created"
"$mpicast" trace -o "$tmp/t3" -- sh -c 'echo "$MPICAST_TRACE_DIR $MPICAST_MODE $LD_PRELOAD"' \
    2>/dev/null >"$tmp/env"
read -r d m p <"$tmp/env"
[ "$d" = "$(readlink -f "$tmp/t3")" ] || fail "MPICAST_TRACE_DIR=$d"
[ "$m" = wall ] || fail "MPICAST_MODE=$m"
case $p in *libmpicast-trace*.so) ;; *) fail "LD_PRELOAD=$p" ;; esac
echo ok
