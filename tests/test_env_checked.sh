#!/bin/bash
# MPICAST_* variables are checked before any command runs (issue 26 item 4,
# include/mpicast/env.h): a value mpicast cannot parse is an error naming the
# variable (exit 1; before, MPICAST_READ_MEMORY=abc fell back to the default
# and MPICAST_MODE=walll traced in wall mode), a misspelt name a warning, an
# empty value is unset.
# env: MPICAST, TESTS
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
in=$TESTS/data/tit/pingpong.list
expect() { # RC STDERR_PATTERN VAR=VALUE...
    local rc=$1 pat=$2
    shift 2
    err=$(env "$@" "$MPICAST" stats "$in" 2>&1 >/dev/null); got=$?
    [ "$got" = "$rc" ] || fail "$*: exit $got, expected $rc ($err)"
    if [ -n "$pat" ]; then
        [[ "$err" == *"$pat"* ]] || fail "$*: stderr '$err' lacks '$pat'"
        [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$*: more than one line: $err"
    else
        [ -z "$err" ] || fail "$*: unexpected stderr: $err"
    fi
}
expect 1 "mpicast: MPICAST_READ_MEMORY=abc: expected a size in bytes" MPICAST_READ_MEMORY=abc
expect 1 "mpicast: MPICAST_READ_MEMORY=-5MiB: expected a size" MPICAST_READ_MEMORY=-5MiB
expect 1 "MPICAST_MODE=walll: expected wall|cpu|token" MPICAST_MODE=walll
expect 1 "MPICAST_OPEN_FILES=0: expected a positive whole number" MPICAST_OPEN_FILES=0
expect 1 "MPICAST_CHUNK_EVENTS=12x: expected a positive whole number" MPICAST_CHUNK_EVENTS=12x
expect 1 "MPICAST_FLUSH_INTERVAL=soon: expected a number of seconds" MPICAST_FLUSH_INTERVAL=soon
expect 1 "MPICAST_CLOCK=rdtsc: expected auto|tsc|monotonic" MPICAST_CLOCK=rdtsc
expect 1 "MPICAST_POLL_HOT=fast: expected on|exact|off" MPICAST_POLL_HOT=fast
expect 0 "mpicast: warning: MPICAST_OPEN_FILE is not a variable mpicast reads (ignored)" \
    MPICAST_OPEN_FILE=3
expect 0 "" MPICAST_READ_MEMORY=1GiB MPICAST_OPEN_FILES=8 MPICAST_MODE=cpu MPICAST_CLOCK=tsc \
    MPICAST_BUFFER=64KiB MPICAST_FLUSH_INTERVAL=0.5 MPICAST_PROGRESS_INTERVAL=1 \
    MPICAST_POLL_HOT=exact MPICAST_POLL_STATS=1
expect 0 "" MPICAST_MODE= MPICAST_READ_MEMORY=
# the check applies to every command, `trace` included (its variables reach the tracer)
err=$(MPICAST_CHUNK_EVENTS=lots "$MPICAST" trace -o "$(mktemp -u /tmp/mpicast-env-XXXXXX)" -- true 2>&1); rc=$?
[ "$rc" = 1 ] && [[ "$err" == *"MPICAST_CHUNK_EVENTS=lots"* ]] || fail "trace: exit $rc: $err"
echo ok
