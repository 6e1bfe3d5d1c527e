#!/bin/bash
# Kills a traced run at a random point and checks that `mpicast stats` reads
# every rank's prefix, and that the tracer did not change the exit status.
#
# usage: test_trace_safety_kill.sh MPICAST FLAVOUR VICTIM NP KIND
#   VICTIM  tests/mpi/trace_victim.c built for FLAVOUR (ompi | mpich)
#   KIND    sigkill  SIGKILL to every rank, a random time after 200 rounds
#                    (what a batch system does last): each rank keeps what the
#                    incremental flush wrote (MPICAST_FLUSH_INTERVAL=0.1)
#           sigterm  SIGTERM to every rank the same way: each rank flushes
#                    in its handler, so it keeps >= 200 rounds
#           segv     a random rank faults (null write) after a random number
#                    of rounds R: its trace holds exactly R rounds
#           raise    the same with raise(SIGTERM)
#           abort    the same with MPI_Abort
# The random choices are printed (and taken from MPICAST_TEST_SEED if set).
set -u
mpicast=$1 flavour=$2 prog=$3 np=$4 kind=$5

fail() { echo "FAIL: $*" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$flavour" = mpich ]; then
    launcher=(mpirun.mpich -np "$np")
else
    launcher=(mpirun --oversubscribe -np "$np")
fi
tmp=$(mktemp -d /tmp/mpicast-safety-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/trace
seed=${MPICAST_TEST_SEED:-$$}
RANDOM=$seed
export MPICAST_FLUSH_INTERVAL=0.1

descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}

# calls of FUNCTION on RANK in `stats --json` (0 if absent)
calls() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["functions"].get(sys.argv[2], {"per_rank": []})
print(sum(p["calls"] for p in f["per_rank"] if p["rank"] == int(sys.argv[3])))' "$tmp/stats.json" "$1" "$2"
}

stats() {
    "$mpicast" stats "$dir" --json >"$tmp/stats.json" 2>"$tmp/stats.err" ||
        { cat "$tmp/stats.err"; fail "stats exit $?"; }
    local n
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"])' "$tmp/stats.json")
    [ "$n" = "$np" ] || fail "stats sees $n ranks, expected $np"
}

case $kind in
sigkill | sigterm)
    sig=KILL
    [ "$kind" = sigterm ] && sig=TERM
    delay=$((RANDOM % 1000))
    echo "seed $seed: SIG$sig to all $np ranks 1.$(printf %03d $delay) s after round 200"
    timeout 150 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" run "$tmp/ready" \
        >"$tmp/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 1200); do
        [ -e "$tmp/ready" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -e "$tmp/ready" ] || { kill "$pid" 2>/dev/null; cat "$tmp/out"; fail "never ready"; }
    sleep "1.$(printf %03d $delay)"
    real=$(readlink -f "$prog")
    ranks=()
    for p in $(descendants "$pid"); do
        [ "$(readlink -f "/proc/$p/exe" 2>/dev/null)" = "$real" ] && ranks+=("$p")
    done
    [ "${#ranks[@]}" = "$np" ] || { kill "$pid"; fail "found ${#ranks[@]} ranks, expected $np"; }
    kill -"$sig" "${ranks[@]}"
    wait "$pid"
    stats
    for ((r = 0; r < np; r++)); do
        n=$(calls MPI_Sendrecv $r)
        i=$(calls MPI_Init $r)
        [ "$i" = 1 ] || fail "rank $r: $i Init events"
        # ranks move in step (Allreduce), so all passed round ~200 before the signal
        [ "$n" -ge 150 ] || { cat "$tmp/out"; fail "rank $r: only $n Sendrecv events readable"; }
        echo "rank $r: $n rounds readable"
    done
    ;;
segv | raise | abort)
    # 8 ranks on a small machine (MPICH busy-polls): fewer rounds
    span=950
    [ "$np" -gt 4 ] && span=250
    rounds=$((50 + RANDOM % span))
    victim=$((RANDOM % np))
    echo "seed $seed: rank $victim dies ($kind) after $rounds rounds"
    timeout 150 "${launcher[@]}" "$prog" "$kind" "$rounds" "$victim" >"$tmp/plain" 2>&1
    want=$?
    timeout 150 "$mpicast" trace -o "$dir" -- "${launcher[@]}" "$prog" "$kind" "$rounds" \
        "$victim" >"$tmp/out" 2>&1
    got=$?
    # MPICH's launcher now and then reports 1 for a rank's MPI_Abort(3), traced or
    # not (once in 25 untraced runs under load): a difference is confirmed by
    # running the untraced program twice more
    for _ in 1 2; do
        [ "$got" = "$want" ] && break
        timeout 150 "${launcher[@]}" "$prog" "$kind" "$rounds" "$victim" >"$tmp/plain" 2>&1
        want=$?
    done
    [ "$got" = "$want" ] || { cat "$tmp/out"; fail "exit status $got traced, $want untraced"; }
    [ "$got" != 0 ] || fail "the run did not fail"
    grep -q "mpicast-trace" "$tmp/out" && { cat "$tmp/out"; fail "tracer warning"; }
    stats
    for ((r = 0; r < np; r++)); do
        n=$(calls MPI_Sendrecv $r)
        a=$(calls MPI_Allreduce $r)
        if [ "$r" = "$victim" ]; then
            [ "$n" = "$rounds" ] && [ "$a" = "$rounds" ] ||
                fail "victim rank $r: $n Sendrecv, $a Allreduce readable, expected $rounds"
        fi
        [ "$(calls MPI_Init $r)" = 1 ] || fail "rank $r: Init not readable"
        echo "rank $r: $n Sendrecv, $a Allreduce readable (exit $got)"
    done
    ;;
*)
    fail "unknown kind $kind"
    ;;
esac
echo "ok: $kind $flavour np=$np"
