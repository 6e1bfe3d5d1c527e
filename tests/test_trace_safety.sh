#!/bin/bash
# The tracer and `mpicast trace` write only what they own (issue 26):
#   - a non-empty -o DIR is refused (exit 1, one line, nothing touched);
#     --force replaces a trace in it; --force on other files is refused
#   - a symlink planted in the trace directory is never followed: its target
#     keeps its bytes, whether `mpicast trace` or a bare LD_PRELOAD run
#   - the trace is owner-only (directory 0700, files 0600)
#   - a rank file cut at a chunk boundary is reported truncated
#   - a command that runs no traced MPI program: exit 1, "no trace written"
#   - a rank that fork()s: the child writes nothing (no event twice)
#   - SIGTERM or SIGHUP to `mpicast trace` ends the job: no rank outlives it
# usage: test_trace_safety.sh MPICAST CHECKER PROGRAM(trace_known) FORKER(trace_fork)
#                             SPINNER(trace_spin)
set -u
mpicast=$1 check=$2 prog=$3 forker=$4 spinner=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d /tmp/mpicast-trace-safety-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
launch=(mpirun --oversubscribe -np 2)
victim=$tmp/victim
printf 'precious\n' >"$victim"
untouched() { [ "$(cat "$victim")" = precious ] || fail "$1: the symlink target was written"; }

# 1. a fresh trace: owner-only directory and files
timeout 120 "$mpicast" trace -o "$tmp/t" -- "${launch[@]}" "$prog" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "traced run"; }
[ "$(stat -c %a "$tmp/t")" = 700 ] || fail "directory mode $(stat -c %a "$tmp/t")"
for f in "$tmp"/t/*; do
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f")"
done
[ -f "$tmp/t/meta.json" ] && [ -f "$tmp/t/rank-000001.mct" ] || fail "trace files missing"
ls -a "$tmp/t" | grep -q tmp && fail "a temporary was left: $(ls -a "$tmp/t")"
"$check" known "$tmp/t" wall || fail "trace check"

# 1b. a copy cut exactly after its first chunk (no partial chunk to notice):
#     reported truncated, with the rank file and the last event read
cp -r "$tmp/t" "$tmp/cut"
f=$tmp/cut/rank-000001.mct
comp=$(od -An -tu4 -j $((32 + 12)) -N4 "$f" | tr -d ' ')
truncate -s $((32 + 24 + comp)) "$f"
"$mpicast" stats "$tmp/cut" --json >"$tmp/cut.json" 2>"$tmp/err" || fail "cut: stats exit $?"
grep -q '"truncated": true' "$tmp/cut.json" || fail "cut: not reported truncated"
grep -q "rank-000001.mct: ends after event 0 (Init) without MPI_Finalize" "$tmp/err" ||
    { cat "$tmp/err"; fail "cut: no warning naming the rank file and its last event"; }
"$mpicast" stats "$tmp/t" --json | grep -q '"truncated": false' || fail "complete trace: truncated"

# 2. reusing it without --force: refused, one line, the old trace unchanged
sum=$(cat "$tmp"/t/* | md5sum)
out=$("$mpicast" trace -o "$tmp/t" -- "${launch[@]}" "$prog" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "non-empty: exit $rc"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "non-empty: not one line: $out"
case $out in "mpicast: $tmp/t: not empty (holds "*"--force"*) ;; *) fail "non-empty: '$out'" ;; esac
[ "$(cat "$tmp"/t/* | md5sum)" = "$sum" ] || fail "non-empty: the old trace changed"

# 3. --force replaces a trace, even one with planted symlinks (the links
#    are removed, their targets stay), and the stale rank file is gone
ln -s "$victim" "$tmp/t/rank-000007.mct"
ln -sf "$victim" "$tmp/t/meta.json"
timeout 120 "$mpicast" trace -o "$tmp/t" --force -- "${launch[@]}" "$prog" >/dev/null \
    2>"$tmp/err" || { cat "$tmp/err"; fail "--force run"; }
untouched "--force"
[ -e "$tmp/t/rank-000007.mct" ] && fail "--force kept a stale rank file"
[ -L "$tmp/t/meta.json" ] && fail "--force: meta.json is still a symlink"
"$check" known "$tmp/t" wall || fail "--force: trace check"

# 4. --force refuses a directory holding something that is not a trace's
echo mine >"$tmp/t/notes.txt"
out=$("$mpicast" trace -o "$tmp/t" --force -- "${launch[@]}" "$prog" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "foreign file: exit $rc"
case $out in "mpicast: $tmp/t: holds notes.txt, which is not a trace's file"*) ;;
    *) fail "foreign file: '$out'" ;; esac
[ "$(cat "$tmp/t/notes.txt")" = mine ] && [ -f "$tmp/t/rank-000000.mct" ] ||
    fail "foreign file: something was removed"

# 5. a bare LD_PRELOAD run into a directory with planted symlinks (no
#    `mpicast trace` to check it first): the tracer refuses to follow them
lib=$("$mpicast" trace -o "$tmp/env" -- sh -c 'echo "$LD_PRELOAD"' 2>/dev/null)
bare_run() {
    MPICAST_TRACE_DIR=$1 timeout 120 "${launch[@]}" -x LD_PRELOAD="$lib" \
        -x MPICAST_TRACE_DIR "$prog" >/dev/null 2>"$tmp/err"
}
mkdir "$tmp/p" "$tmp/q"
ln -s "$victim" "$tmp/p/meta.json"    # replaced by the rename, not written through
ln -s "$victim" "$tmp/p/sites-000001.txt"
bare_run "$tmp/p"
untouched "meta.json symlink"
[ -f "$tmp/p/meta.json" ] && [ ! -L "$tmp/p/meta.json" ] || fail "meta.json not written"
[ -L "$tmp/p/sites-000001.txt" ] || fail "the planted sites file was replaced"
ln -s "$victim" "$tmp/q/rank-000000.mct"
bare_run "$tmp/q"
untouched "rank file symlink"
grep -q "rank-000000.mct: cannot create: File exists (not overwritten)" "$tmp/err" ||
    { cat "$tmp/err"; fail "bare run: no warning about the planted rank file"; }
[ -e "$tmp/q/rank-000001.mct" ] && fail "bare run: a partial trace was left"

# 6. a command that runs no MPI program under the tracer
out=$("$mpicast" trace -o "$tmp/none" -- true 2>&1); rc=$?
[ "$rc" = 1 ] || fail "trace -- true: exit $rc"
case $out in "mpicast: "*"/none: no trace written"*) ;; *) fail "trace -- true: '$out'" ;; esac

# 7. a rank that forks with N events buffered: each event once, the replay
#    completes (duplicated events made it deadlock)
n=40
timeout 120 "$mpicast" trace -o "$tmp/f" -- "${launch[@]}" "$forker" "$n" >/dev/null \
    2>"$tmp/err" || { cat "$tmp/err"; fail "fork run"; }
"$mpicast" dump "$tmp/f" --no-times >"$tmp/dump" || fail "fork: dump"
count() { awk -v r="$1" -v op="$2" '$1 == r && $2 == op' "$tmp/dump" | wc -l; }
[ "$(count 0 Send)" = $((2 * n)) ] || fail "fork: rank 0 has $(count 0 Send) Sends, expected $((2 * n))"
[ "$(count 1 Recv)" = $((2 * n)) ] || fail "fork: rank 1 has $(count 1 Recv) Recvs, expected $((2 * n))"
for r in 0 1; do
    for op in Init Barrier Finalize; do
        [ "$(count $r $op)" = 1 ] || fail "fork: rank $r has $(count $r $op) $op events"
    done
done
"$mpicast" predict "$tmp/f" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; fail "fork: predict"; }

# 8. a signal to the wrapper reaches the job, and the wrapper waits for it
descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}
for sig in TERM HUP; do
    rm -f "$tmp/ready"
    "$mpicast" trace -o "$tmp/s$sig" -- "${launch[@]}" "$spinner" "$tmp/ready" \
        >/dev/null 2>&1 &
    wrapper=$!
    for _ in $(seq 1 600); do
        [ -e "$tmp/ready" ] && break
        kill -0 "$wrapper" 2>/dev/null || break
        sleep 0.1
    done
    [ -e "$tmp/ready" ] || { kill -KILL "$wrapper"; fail "SIG$sig: the job never got ready"; }
    real=$(readlink -f "$spinner")
    ranks=()
    for p in $(descendants "$wrapper"); do
        [ "$(readlink -f "/proc/$p/exe" 2>/dev/null)" = "$real" ] && ranks+=("$p")
    done
    [ "${#ranks[@]}" = 2 ] || { kill -KILL "$wrapper"; fail "SIG$sig: ${#ranks[@]} ranks found"; }
    kill -"$sig" "$wrapper"
    timeout 60 tail --pid="$wrapper" -f /dev/null || { kill -KILL "$wrapper"; fail "SIG$sig: the wrapper did not end"; }
    wait "$wrapper"
    for p in "${ranks[@]}"; do # a zombie is dead (a container's init may not reap it)
        state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
        [ -n "$state" ] && [ "$state" != Z ] &&
            { kill -KILL "${ranks[@]}"; fail "SIG$sig: rank $p outlived the wrapper"; }
    done
    [ -e "$tmp/s$sig/rank-000000.mct" ] || fail "SIG$sig: no readable prefix"
done
echo ok
