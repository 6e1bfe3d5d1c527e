#!/usr/bin/env python3
"""Traces tests/mpi/trace_threads.c (4 threads calling MPI under
MPI_THREAD_MULTIPLE, or the same calls funneled through the main thread) at
2 ranks and checks exact per-thread call counts.

usage: test_trace_safety_threads.py MPICAST FLAVOUR PROGRAM multiple|funneled

The format has no thread field: thread t uses its own communicator (the
t-th Comm_dup of the rank) and tag 10+t, so counts per communicator are
counts per thread. Waitall has no communicator: its request ids must be the
Irecv/Isend pair of one thread's round, each id completed exactly once.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

ITERS = 40
NT = 4
NP = 2


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(line):
    parts = line.split()
    ev = {"rank": int(parts[0]), "op": parts[1]}
    for p in parts[2:]:
        k, _, v = p.partition("=")
        ev[k] = v
    return ev


def check_rank(rank, evs):
    ops = collections.Counter(e["op"] for e in evs)
    for op, n in (("Init", 1), ("Finalize", 1), ("Comm_dup", NT), ("Comm_free", NT)):
        if ops[op] != n:
            fail("rank %d: %d %s events, expected %d" % (rank, ops[op], op, n))
    comms = [e["newcomm"] for e in evs if e["op"] == "Comm_dup"]
    thread_of = {c: t for t, c in enumerate(comms)}
    if len(thread_of) != NT:
        fail("rank %d: communicator ids not distinct: %s" % (rank, comms))
    per = collections.Counter()
    req_thread = {}
    for e in evs:
        if e["op"] in ("Irecv", "Isend", "Sendrecv", "Allreduce"):
            t = thread_of.get(e.get("comm"))
            if t is None:
                fail("rank %d: %s on unknown comm %s" % (rank, e["op"], e.get("comm")))
            if e["op"] != "Allreduce" and e.get("tag") != str(10 + t):
                fail("rank %d: %s on thread %d's comm with tag %s" % (rank, e["op"], t, e.get("tag")))
            per[(t, e["op"])] += 1
            if "req" in e:
                if e["req"] in req_thread:
                    fail("rank %d: request id %s used twice" % (rank, e["req"]))
                req_thread[e["req"]] = t
    completed = set()
    for e in evs:
        if e["op"] != "Waitall":
            continue
        v = e.get("vals", "").split(",")
        if len(v) != 8:
            fail("rank %d: Waitall with vals %s" % (rank, e.get("vals")))
        ids = [v[0], v[4]]
        ts = {req_thread.get(i) for i in ids}
        if len(ts) != 1 or None in ts:
            fail("rank %d: Waitall completes requests of threads %s" % (rank, ts))
        for i in ids:
            if i in completed:
                fail("rank %d: request %s completed twice" % (rank, i))
            completed.add(i)
        per[(ts.pop(), "Waitall")] += 1
    if completed != set(req_thread):
        fail("rank %d: %d requests created, %d completed" % (rank, len(req_thread), len(completed)))
    for t in range(NT):
        for op in ("Irecv", "Isend", "Waitall", "Sendrecv", "Allreduce"):
            want = (t + 1) * ITERS
            if per[(t, op)] != want:
                fail("rank %d thread %d: %d %s, expected %d" % (rank, t, per[(t, op)], op, want))
    print("rank %d: per-thread counts %s x 5 calls: exact" %
          (rank, [(t + 1) * ITERS for t in range(NT)]))


def main():
    mpicast, flavour, prog, mode = sys.argv[1:5]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launcher = (["mpirun.mpich", "-np", str(NP)] if flavour == "mpich"
                else ["mpirun", "--oversubscribe", "-np", str(NP)])
    tmp = tempfile.mkdtemp(prefix="mpicast-threads-")
    try:
        d = os.path.join(tmp, "trace")
        run = subprocess.run([mpicast, "trace", "-o", d, "--"] + launcher + [prog, mode, str(ITERS)],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=240)
        if run.returncode == 77:
            print("skip: MPI_THREAD_MULTIPLE not provided")
            sys.exit(77)
        if run.returncode != 0 or "mpicast-trace:" in run.stdout:
            fail("traced run exited %d:\n%s" % (run.returncode, run.stdout))
        dump = subprocess.run([mpicast, "dump", d, "--no-times"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=60)
        if dump.returncode != 0:
            fail("dump: " + dump.stderr)
        by_rank = collections.defaultdict(list)
        for line in dump.stdout.splitlines():
            if line.strip():
                e = parse(line)
                by_rank[e["rank"]].append(e)
        if sorted(by_rank) != list(range(NP)):
            fail("ranks in the trace: %s" % sorted(by_rank))
        for r in range(NP):
            check_rank(r, by_rank[r])
        st = subprocess.run([mpicast, "stats", d], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=60)
        if st.returncode != 0:
            fail("stats: " + st.stderr)
        # Replays refuse a trace whose rank called MPI from several threads (issue 26):
        # its one stream per rank would be replayed serialised. Funneled calls replay.
        meta = json.load(open(os.path.join(d, "meta.json")))
        threads = meta.get("threads")
        for cmd in (["predict", d], ["validate", d], ["predict", d, "--ranks", "4"],
                    ["extrapolate", d, "--ranks", "4", "-o", os.path.join(tmp, "x")]):
            p = subprocess.run([mpicast] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=120)
            if mode == "multiple":
                want = "MPI called from %d threads on rank" % (NT + 1)
                if threads is None or want not in threads:
                    fail("meta.json threads: %r, expected %r" % (threads, want))
                if p.returncode != 1 or p.stderr.count("\n") != 1 or want not in p.stderr or \
                        "serialise" not in p.stderr:
                    fail("%s on a multi-threaded trace: exit %d, stderr %r"
                         % (cmd[0], p.returncode, p.stderr))
            elif threads is not None:
                fail("funneled trace marked threads: %r" % threads)
            elif cmd[0] == "predict" and len(cmd) == 2 and p.returncode != 0:
                fail("predict of the funneled trace: exit %d: %s" % (p.returncode, p.stderr))
        print("ok: threads %s %s" % (mode, flavour))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
