#!/usr/bin/env python3
"""Traces one example program at several process counts and checks the trace exactly.

For each run it calls `mpicast trace -o DIR -- mpirun ... EXAMPLE ARGS`, then
`mpicast dump DIR --no-times` and `mpicast stats DIR --json`, and compares with what
the example must do (examples/README.md):

* dump: per rank, the multiset of events (op, peer, tag, bytes, peer2, tag2, bytes2 and
  the communicator members / number of completion values) equals the model's;
* stats: per function the total and per-rank calls and bytes, the function set, and the
  point-to-point message statistics equal the model's, and the README's closed-form
  totals hold;
* master_worker: the task each worker got is read from the trace, then every Recv of
  the master must name the worker that really sent the result (never MC_ANY = -2);
* a Fortran twin (--twin): the C twin is traced with the same arguments and the
  statistics (calls and bytes per function and rank) and the output line are equal.

No tolerance: counts and bytes are exact integers; averages are checked against the
exact quotient.

usage: examples_check.py --mpicast BIN --example NAME --exe PATH
                         --flavour openmpi|mpich [--ranks 1,2,4,8] [--twin PATH]
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

NONE = -1   # MC_NONE: no peer / MPI_PROC_NULL
ANY = -2    # MC_ANY: an unresolved wildcard

D = 8       # bytes of one MPI_DOUBLE

# Ops whose `bytes` count in `mpicast stats` (point-to-point and collectives); the
# others (completion, communicator management, Init/Finalize) count 0 bytes.
P2P = {"Send", "Recv", "Sendrecv", "Isend", "Irecv"}
COLL = {"Allreduce", "Reduce", "Alltoall", "Bcast"}
# Collectives with per-rank counts: their vals (the counts) are compared, and stats
# counts their bytes from the counts (docs/json.md, `bytes`)
VCOLL = {"Scatterv", "Alltoallv", "Reduce_scatter", "Allgatherv", "Gatherv"}
SENDS = {"Send", "Isend", "Sendrecv"}
COMPLETION = {"Wait", "Waitall"}
MANAGEMENT = {"Cart_create", "Comm_split", "Comm_create", "Comm_free"}


class CheckError(Exception):
    pass


def ev(op, peer=NONE, tag=NONE, nbytes=0, peer2=NONE, tag2=NONE, bytes2=0, vals=()):
    """One expected event, in the fields `mpicast dump --no-times` prints.

    vals: the values themselves for communicator management, ("n", count) for
    completion calls (whose request ids are not predicted), () otherwise."""
    return (op, peer, tag, nbytes, peer2, tag2, bytes2, tuple(vals))


# ------------------------------------------------------------------ topology

def dims_create(nnodes, ndims):
    """MPI_Dims_create with all dims free: as balanced as possible, non-increasing.
    Exhaustive search (tiny process counts): the factorisation that minimises the
    largest dimension, then the next, ... which is what both MPI libraries return."""
    best = None

    def rec(left, slots, cur):
        nonlocal best
        if slots == 1:
            cand = sorted(cur + [left], reverse=True)
            if best is None or cand < best:
                best = cand
            return
        for f in range(1, left + 1):
            if left % f == 0:
                rec(left // f, slots - 1, cur + [f])

    rec(nnodes, ndims, [])
    return best


def cart_coords(rank, dims):
    coords = []
    for d in range(len(dims)):
        stride = 1
        for e in dims[d + 1:]:
            stride *= e
        coords.append((rank // stride) % dims[d])
    return coords


def cart_rank(coords, dims):
    rank = 0
    for c, n in zip(coords, dims):
        rank = rank * n + c
    return rank


def cart_shift(rank, dims, periodic, d):
    """(lo, hi) neighbours of rank along d, as MPI_Cart_shift(d, 1); NONE outside."""
    out = []
    for step in (-1, 1):
        c = cart_coords(rank, dims)
        c[d] += step
        if 0 <= c[d] < dims[d]:
            out.append(cart_rank(c, dims))
        elif periodic:
            c[d] %= dims[d]
            out.append(cart_rank(c, dims))
        else:
            out.append(NONE)
    return out


# ------------------------------------------------------------------ models
# Each model returns (events, formulas): events[r] is the list of rank r's events in
# program order; formulas maps "MPI_X" to the README's closed-form (calls, bytes)
# totals over all ranks, and "messages" to (sends, total_bytes).

def opts(args):
    """The example options as a dict (defaults of the C programs applied by caller)."""
    o = {"s": None, "i": None, "p": False, "b": False, "V": False, "N": False, "G": False,
         "S": False}
    it = iter(args)
    for a in it:
        if a in ("-s", "-i"):
            o[a[1]] = int(next(it))
        elif a == "-p":
            o["p"] = True
        elif a == "-b":
            o["b"] = True
        elif a in ("-V", "-N", "-G", "-S"):
            o[a[1]] = True
        else:
            raise CheckError("unknown example option %r" % a)
    return o


def wrap(events):
    """Init first and Finalize last on every rank."""
    return [[ev("Init")] + e + [ev("Finalize")] for e in events]


def model_ring(P, o, _trace):
    s, T = o["s"], o["i"]
    b = D * s
    events = []
    for r in range(P):
        e = []
        left, right = (r - 1) % P, (r + 1) % P
        for _ in range(T if P > 1 else 0):
            send = ev("Send", right, 7, b)
            recv = ev("Recv", left, 7, b, bytes2=b)
            e += [send, recv] if r == 0 else [recv, send]
        events.append(e)
    n = T * P if P > 1 else 0
    formulas = {"MPI_Send": (n, n * b), "MPI_Recv": (n, n * b), "messages": (n, n * b)}
    return wrap(events), formulas


def halo_faces(r, dims, s, strong):
    """Bytes of rank r's face across each dimension: s^(n-1) doubles, or (-S) the
    product of its blocks of the s cells along the other dimensions (the first
    s mod dims[e] coordinates one cell more)."""
    nd = len(dims)
    coords, rest = [], r
    for d in reversed(range(nd)):
        coords.insert(0, rest % dims[d])
        rest //= dims[d]
    cells = [s // dims[e] + (coords[e] < s % dims[e]) if strong else s for e in range(nd)]
    faces = []
    for d in range(nd):
        f = D
        for e in range(nd):
            if e != d:
                f *= cells[e]
        faces.append(f)
    return faces


def model_halo(nd):
    def model(P, o, _trace):
        s, T, periodic, nb = o["s"], o["i"], o["p"], o["b"]
        dims = dims_create(P, nd)
        events = []
        calls_bytes, msgs, msg_bytes = 0, 0, 0
        for r in range(P):
            nbr = [cart_shift(r, dims, periodic, d) for d in range(nd)]
            bd = halo_faces(r, dims, s, o["S"])
            for d in range(nd):
                calls_bytes += 2 * T * bd[d]
                real = sum(1 for q in nbr[d] if q != NONE)
                msgs += real * T
                msg_bytes += real * T * bd[d]
            e = [ev("Cart_create", peer2=P,
                    vals=list(range(P)) + [nd] + dims + [int(periodic)] * nd)]
            for _ in range(T):
                if nb:
                    for d in range(nd):
                        lo, hi = nbr[d]
                        e += [irecv(lo, 2 * d, bd[d]), irecv(hi, 2 * d + 1, bd[d])]
                    for d in range(nd):
                        lo, hi = nbr[d]
                        e += [ev("Isend", hi, 2 * d, bd[d]), ev("Isend", lo, 2 * d + 1, bd[d])]
                    e.append(ev("Waitall", vals=("n", 4 * 4 * nd)))
                else:
                    for d in range(nd):
                        lo, hi = nbr[d]
                        e.append(sendrecv(hi, 2 * d, bd[d], lo))
                        e.append(sendrecv(lo, 2 * d + 1, bd[d], hi))
                e.append(ev("Allreduce", nbytes=D, peer2=P, bytes2=D))
            e.append(reduce_to_0(r, P))
            e.append(ev("Comm_free"))
            events.append(e)
        # README formulas: 2*nd*T face calls of b bytes per rank; real messages:
        # periodic 2*nd per rank, else sum over d of 2*(dims[d]-1)*P/dims[d]
        # (-S: each call of its rank's face, summed above).
        calls = 2 * nd * T * P
        if not o["S"]:
            b = D * s ** (nd - 1)
            readme = (2 * nd * P * T if periodic else
                      sum(2 * (dims[d] - 1) * (P // dims[d]) for d in range(nd)) * T)
            if (readme, readme * b, calls * b) != (msgs, msg_bytes, calls_bytes):
                raise CheckError("halo model: the README's formulas disagree with the sum")
        formulas = {"MPI_Cart_create": (P, 0), "MPI_Allreduce": (T * P, D * T * P),
                    "MPI_Reduce": (P, D * P), "MPI_Comm_free": (P, 0),
                    "messages": (msgs, msg_bytes)}
        if nb:
            formulas.update({"MPI_Irecv": (calls, calls_bytes),
                             "MPI_Isend": (calls, calls_bytes), "MPI_Waitall": (T * P, 0)})
        else:
            formulas["MPI_Sendrecv"] = (calls, calls_bytes)
        return wrap(events), formulas
    return model


def model_mg(P, o, _trace):
    """mg without -c: per iteration the local levels down (faces halving) and up."""
    s, T = o["s"], o["i"]
    dims = dims_create(P, 2)
    L = s.bit_length() - 1
    events = []
    for r in range(P):
        nbr = [cart_shift(r, dims, True, d) for d in range(2)]
        e = [ev("Cart_create", peer2=P, vals=list(range(P)) + [2] + dims + [1, 1])]
        for _ in range(T):
            for l in list(range(L)) + list(reversed(range(L))):
                b = D * (s >> l)
                for d in range(2):
                    lo, hi = nbr[d]
                    e += [sendrecv(hi, l, b, lo), sendrecv(lo, l, b, hi)]
            e.append(ev("Allreduce", nbytes=D, peer2=P, bytes2=D))
        e.append(ev("Comm_free"))
        events.append(e)
    # README: 8 Sendrecv per level and iteration, 2 faces of s/2^l doubles each way
    calls = 8 * L * T * P
    nbytes = 8 * T * P * D * sum(s >> l for l in range(L))
    formulas = {"MPI_Cart_create": (P, 0), "MPI_Sendrecv": (calls, nbytes),
                "MPI_Allreduce": (T * P, D * T * P), "MPI_Comm_free": (P, 0),
                "messages": (calls, nbytes)}
    return wrap(events), formulas


def sendrecv(dest, tag, b, source):
    """A Sendrecv as recorded: a receive from MPI_PROC_NULL matches nothing (source
    MC_NONE, tag MPI_ANY_TAG = -1 = MC_NONE, 0 bytes)."""
    if source == NONE:
        return ev("Sendrecv", dest, tag, b, NONE, NONE, 0)
    return ev("Sendrecv", dest, tag, b, source, tag, b)


def irecv(source, tag, b):
    """An Irecv as recorded: from MPI_PROC_NULL it has neither source nor tag."""
    return ev("Irecv", source, tag if source != NONE else NONE, b)


def reduce_to_0(rank, P):
    """MPI_Reduce of one double to root 0; the receive side counts on the root only."""
    return ev("Reduce", 0, NONE, D, P, NONE, D if rank == 0 else 0)


def model_cg(P, o, _trace):
    s, T = o["s"], o["i"]
    b = D * s
    allreduce = ev("Allreduce", nbytes=D, peer2=P, bytes2=D)
    events = []
    for r in range(P):
        up = r - 1 if r > 0 else None
        down = r + 1 if r < P - 1 else None
        e = [allreduce]
        for _ in range(T):
            if up is not None:
                e.append(ev("Irecv", up, 2, b))
            if down is not None:
                e.append(ev("Irecv", down, 1, b))
            if up is not None:
                e.append(ev("Send", up, 1, b))
            if down is not None:
                e.append(ev("Send", down, 2, b))
            e += [ev("Wait", vals=("n", 4))] * ((up is not None) + (down is not None))
            e += [allreduce, allreduce]
        events.append(e)
    n = 2 * (P - 1) * T
    formulas = {"MPI_Irecv": (n, n * b), "MPI_Send": (n, n * b), "MPI_Wait": (n, 0),
                "MPI_Allreduce": ((2 * T + 1) * P, D * (2 * T + 1) * P), "messages": (n, n * b)}
    return wrap(events), formulas


def model_fft(P, o, _trace):
    s, T, V = o["s"], o["i"], o["V"]
    R, C = dims_create(P, 2)
    events = []
    for r in range(P):
        row, col = r // C, r % C
        rows, cols = [row * C + j for j in range(C)], [i * C + col for i in range(R)]
        if o["G"]:  # the same communicators from groups (-G)
            e = [ev("Comm_create", peer2=C, vals=rows), ev("Comm_create", peer2=R, vals=cols)]
        else:
            e = [ev("Comm_split", tag=row, nbytes=col, peer2=C, vals=rows),
                 ev("Comm_split", tag=col, nbytes=row, peer2=R, vals=cols)]
        if V:  # the seed of each rank from rank 0, one double each
            e.append(ev("Scatterv", 0, NONE, 0, P, NONE, D, vals=[D] * P if r == 0 else []))
        for _ in range(T):
            if V:  # equal counts: the blocks of the Alltoall
                e.append(ev("Alltoallv", peer2=C, vals=[D * s * R] * (2 * C)))
                e.append(ev("Alltoallv", peer2=R, vals=[D * s * C] * (2 * R)))
            else:
                e.append(ev("Alltoall", nbytes=D * s * R, peer2=C, bytes2=D * s * R))
                e.append(ev("Alltoall", nbytes=D * s * C, peer2=R, bytes2=D * s * C))
        if V:
            e += [ev("Reduce_scatter", peer2=C, vals=[D] * C),
                  ev("Allgatherv", nbytes=D, peer2=R, vals=[D] * R),
                  ev("Gatherv", 0, NONE, D, P, NONE, 0, vals=[D] * P if r == 0 else [])]
        else:
            e.append(reduce_to_0(r, P))
        if o["G"]:  # the first row alone broadcasts the sum; the others get COMM_NULL
            if row == 0:
                e += [ev("Comm_create", peer2=C, vals=list(range(C))),
                      ev("Bcast", 0, NONE, D, C, NONE, D), ev("Comm_free")]
            else:
                e.append(ev("Comm_create", peer2=0))
        e += [ev("Comm_free"), ev("Comm_free")]
        events.append(e)
    create = "MPI_Comm_create" if o["G"] else "MPI_Comm_split"
    formulas = {create: (3 * P if o["G"] else 2 * P, 0),
                "MPI_Comm_free": (2 * P + (C if o["G"] else 0), 0), "messages": (0, 0)}
    if o["G"]:
        formulas["MPI_Bcast"] = (C, C * D)
    if V:  # README (-V): Alltoallv 2T per rank of s*R*C doubles; one double elsewhere
        formulas.update({"MPI_Alltoallv": (2 * T * P, 2 * D * s * T * P * P),
                         "MPI_Scatterv": (P, D * (2 * P - 1)),
                         "MPI_Reduce_scatter": (P, D * C * P),
                         "MPI_Allgatherv": (P, D * P), "MPI_Gatherv": (P, D * P)})
    else:
        formulas.update({"MPI_Alltoall": (2 * T * P, D * s * T * (R + C) * P),
                         "MPI_Reduce": (P, D * P)})
    return wrap(events), formulas


def model_cg2d(P, o, _trace):
    s, T = o["s"], o["i"]
    k = P.bit_length() - 1
    l2 = (k + 1) // 2
    nc = 1 << l2
    nr = P // nc
    b = D * s
    events = []
    for r in range(P):
        if nr == nc:
            exch = (r % nr) * nr + r // nr
        else:
            exch = 2 * (((r // 2) % nr) * nr + (r // 2) // nr) + r % 2
        e = []
        up = [(r ^ (1 << i), i + 1 if o["N"] else 1) for i in range(l2)]
        # -N: NPB's sum counts its steps down, step i tagged i + 1; the dot's tagged up
        down = [(r ^ (1 << i), i + 1) for i in reversed(range(l2))] if o["N"] else up
        for _ in range(T):
            for nbytes, steps in ((b, down), (b, [(exch, 2)]), (D, up)):
                for q, tag in steps:
                    e += [ev("Irecv", q, tag, nbytes), ev("Send", q, tag, nbytes),
                          ev("Wait", vals=("n", 4))]
            e.append(ev("Allreduce", nbytes=D, peer2=P, bytes2=D))
        events.append(e)
    # README: T(2L+1) Irecv and Send per rank, T((L+1)s + L) D bytes each
    c, nbytes = T * (2 * l2 + 1) * P, T * ((l2 + 1) * s + l2) * D * P
    formulas = {"MPI_Irecv": (c, nbytes), "MPI_Send": (c, nbytes), "MPI_Wait": (c, 0),
                "MPI_Allreduce": (T * P, T * P * D), "messages": (c, nbytes)}
    return wrap(events), formulas


def model_wavefront(P, o, _trace):
    n, T = o["s"], o["i"]
    R, C = dims_create(P, 2)
    nb, m = n // 8, 8 * D
    events = []
    for r in range(P):
        north, south = cart_shift(r, [R, C], False, 0)
        west, east = cart_shift(r, [R, C], False, 1)
        e = [ev("Cart_create", peer2=P, vals=list(range(P)) + [2, R, C, 0, 0])]
        for _ in range(T):
            # lower sweep from the north-west (tag 11), upper from the south-east (12);
            # no call for a missing neighbour
            for ups, downs, tag in (((north, west), (south, east), 11),
                                    ((south, east), (north, west), 12)):
                for _ in range(nb):
                    e += [ev("Recv", u, tag, m, bytes2=m) for u in ups if u != NONE]
                    e += [ev("Send", d, tag, m) for d in downs if d != NONE]
            e.append(ev("Allreduce", nbytes=D, peer2=P, bytes2=D))
        e.append(ev("Comm_free"))
        events.append(e)
    # README: T*b*h receives and sends per rank; summed over ranks h counts each grid
    # link twice
    k = T * nb * 2 * (R * (C - 1) + C * (R - 1))
    formulas = {"MPI_Recv": (k, k * m), "MPI_Send": (k, k * m), "MPI_Cart_create": (P, 0),
                "MPI_Allreduce": (T * P, T * P * D), "MPI_Comm_free": (P, 0),
                "messages": (k, k * m)}
    return wrap(events), formulas


STOP_TAG, TASK_TAG, RESULT_TAG = 1, 100, 20000


def model_master_worker(P, o, trace):
    """The assignment of tasks to workers depends on timing: it is read from the
    master's task Sends in the trace, everything else follows from it."""
    m, N = o["s"], o["i"]
    W = P - 1
    if W == 0:
        return wrap([[]]), {"messages": (0, 0)}
    owner = {}
    for e in trace[0]:
        if e[0] == "Send" and e[2] >= TASK_TAG:
            task = e[2] - TASK_TAG
            if task in owner or not 0 <= task < N or not 1 <= e[1] <= W:
                raise CheckError("master_worker: bad task send %r" % (e,))
            owner[task] = e[1]
    if len(owner) != N:
        raise CheckError("master_worker: %d tasks sent, expected %d" % (len(owner), N))
    for t in range(min(N, W)):   # the first round is deterministic
        if owner[t] != t + 1:
            raise CheckError("master_worker: task %d went to %d, not %d" % (t, owner[t], t + 1))
    master = []
    for t in range(N):
        master.append(ev("Send", owner[t], TASK_TAG + t, D * m))
        # The matched source of an MPI_ANY_SOURCE receive is the real worker.
        master.append(ev("Recv", owner[t], RESULT_TAG + t, D, bytes2=D))
    master += [ev("Send", w, STOP_TAG, 0) for w in range(1, P)]
    events = [master]
    for w in range(1, P):
        e = []
        for t in sorted(t for t in owner if owner[t] == w):
            e += [ev("Recv", 0, TASK_TAG + t, D * m, bytes2=D * m),
                  ev("Send", 0, RESULT_TAG + t, D)]
        e.append(ev("Recv", 0, STOP_TAG, D * m, bytes2=0))
        events.append(e)
    formulas = {"MPI_Send": (2 * N + W, D * m * N + D * N),
                "MPI_Recv": (2 * N + W, D * N + D * m * (N + W)),
                "messages": (2 * N + W, D * m * N + D * N)}
    return wrap(events), formulas


# Per example: the model, the C defaults (-s, -i), and the runs per process count
# (argument lists; halo runs cover all four periodic/blocking combinations).
HALO_RUNS = {1: [[], ["-p", "-b"]], 2: [["-p"], ["-b"]], 4: [[], ["-p", "-b"]],
             8: [["-p"], ["-b"], ["-S"], ["-S", "-b", "-p"]]}
EXAMPLES = {
    # 20000 doubles (160 KB) exceed the eager limits: rendezvous sends are traced too.
    "ring": (model_ring, (1024, 20),
             lambda P: [["-s", "100", "-i", "5"], ["-s", "20000", "-i", "2"]]),
    "halo1d": (model_halo(1), (4096, 20),
               lambda P: [["-s", "64", "-i", "4"] + v for v in HALO_RUNS.get(P, [[]])]),
    # -S -s 7 at 4 x 2 and -s 5 at 2 x 2 x 2: blocks the grid does not divide
    "halo2d": (model_halo(2), (64, 20),
               lambda P: [["-s", "8", "-i", "3"] + v for v in HALO_RUNS.get(P, [[]])] +
               ([["-s", "7", "-i", "3", "-S"]] if P == 8 else [])),
    "halo3d": (model_halo(3), (16, 20),
               lambda P: [["-s", "4", "-i", "3"] + v for v in HALO_RUNS.get(P, [[]])] +
               ([["-s", "5", "-i", "3", "-S", "-b"]] if P == 8 else [])),
    "cg": (model_cg, (64, 30), lambda P: [["-s", "8", "-i", "4"]]),
    "fft": (model_fft, (256, 10), lambda P: [["-s", "4", "-i", "3"], ["-s", "4", "-i", "3", "-V"],
                                             ["-s", "4", "-i", "3", "-G"]]),
    "wavefront": (model_wavefront, (64, 3), lambda P: [["-s", "16", "-i", "2"]]),
    "mg": (model_mg, (16, 2), lambda P: [["-s", "16", "-i", "2"]]),
    "cg2d": (model_cg2d, (256, 3), lambda P: [["-s", "16", "-i", "2"],
                                               ["-s", "16", "-i", "2", "-N"]]),
    # 5 tasks at 8 ranks leaves two workers without a task (they only get the stop).
    "master_worker": (model_master_worker, (1024, 40),
                      lambda P: [["-s", "32", "-i", "5" if P == 8 else "11"]]),
}
EXAMPLES["halo1d_f"] = EXAMPLES["halo1d"]
EXAMPLES["mg_f"] = EXAMPLES["mg"]


# ------------------------------------------------------------------ running

def launcher(flavour, nranks):
    if flavour == "openmpi":
        return ["mpirun.openmpi", "--oversubscribe", "-np", str(nranks)]
    return ["mpirun.mpich", "-n", str(nranks)]


def run(cmd, env, what):
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=180)
    except subprocess.TimeoutExpired:
        raise CheckError("%s: timed out: %s" % (what, " ".join(cmd)))
    if p.returncode != 0:
        raise CheckError("%s: exit %d: %s\n%s" % (what, p.returncode, " ".join(cmd),
                                                   p.stderr[-2000:]))
    return p.stdout


def trace_run(mpicast, flavour, exe, nranks, args, workdir, label):
    """Traces one run; returns (program output, dump events per rank, stats JSON)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.pop("MPICAST_TRACE_DIR", None)
    tdir = os.path.join(workdir, label)
    out = run([mpicast, "trace", "-o", tdir, "--"] + launcher(flavour, nranks) + [exe] + args,
              env, label + ": trace")
    dump = run([mpicast, "dump", tdir, "--no-times"], env, label + ": dump")
    stats = json.loads(run([mpicast, "stats", tdir, "--json"], env, label + ": stats"))
    return out, parse_dump(dump, nranks, label), stats


def parse_dump(text, nranks, label):
    events = [[] for _ in range(nranks)]
    for line in text.splitlines():
        tok = line.split()
        if not tok or not tok[0].lstrip("-").isdigit():
            continue
        rank, op = int(tok[0]), tok[1]
        if not 0 <= rank < nranks:
            raise CheckError("%s: dump line of rank %d: %s" % (label, rank, line))
        f = {}
        for t in tok[2:]:
            k, _, v = t.partition("=")
            f[k] = v
        vals = [int(v) for v in f["vals"].split(",")] if f.get("vals") else []
        if op in COMPLETION:
            vals = ("n", len(vals))
        elif op not in MANAGEMENT and op not in VCOLL:
            vals = ()
        events[rank].append(ev(op, int(f.get("peer", NONE)), int(f.get("tag", NONE)),
                               int(f.get("bytes", 0)), int(f.get("peer2", NONE)),
                               int(f.get("tag2", NONE)), int(f.get("bytes2", 0)), vals))
    return events


# ------------------------------------------------------------------ checks

def mpi_name(op):
    return "MPI_" + op


def check_events(label, got, want, unordered=()):
    """Each rank's events must be the expected ones in program order; ranks in
    `unordered` (whose order depends on timing) only as a multiset."""
    for r, (g, w) in enumerate(zip(got, want)):
        gc, wc = collections.Counter(g), collections.Counter(w)
        if gc != wc:
            missing = list((wc - gc).elements())[:5]
            extra = list((gc - wc).elements())[:5]
            raise CheckError("%s: rank %d events differ\n  expected, not traced: %s\n"
                             "  traced, not expected: %s" % (label, r, missing, extra))
        if r not in unordered and g != w:
            i = next(i for i, (x, y) in enumerate(zip(g, w)) if x != y)
            raise CheckError("%s: rank %d event %d out of order: traced %r, expected %r"
                             % (label, r, i, g[i], w[i]))


def vcoll_bytes(e, rank):
    """stats' bytes of a per-rank-count collective (docs/json.md): the rank's send
    side — Alltoallv its send counts (the first half of vals), Scatterv the root's
    send counts (a non-root: the block it receives), Reduce_scatter the vector it
    contributes (the sum of the receive counts); Gatherv, Allgatherv one block."""
    op, root, nbytes, size, bytes2, vals = e[0], e[1], e[3], e[4], e[6], e[7]
    if op == "Alltoallv":
        return sum(vals[:size])
    if op == "Scatterv":
        return sum(vals) if rank == root else bytes2
    if op == "Reduce_scatter":
        return sum(vals)
    return nbytes


def expected_stats(events):
    """Per function: per-rank [calls, bytes]; messages: per rank [sends, bytes]."""
    P = len(events)
    fn = collections.defaultdict(lambda: [[0, 0] for _ in range(P)])
    msgs = [[0, 0] for _ in range(P)]
    for r, evs in enumerate(events):
        for e in evs:
            op, peer, nbytes = e[0], e[1], e[3]
            c = fn[mpi_name(op)][r]
            c[0] += 1
            if op in VCOLL:
                nbytes = vcoll_bytes(e, r)
            c[1] += nbytes if op in P2P or op in COLL or op in VCOLL else 0
            if op in SENDS and peer >= 0:
                msgs[r][0] += 1
                msgs[r][1] += nbytes
    return fn, msgs


def equal(label, what, got, want):
    if got != want:
        raise CheckError("%s: %s is %r, expected %r" % (label, what, got, want))


def expected_grid(events):
    """The process grid stats reports: rank 0's first Cart_create (every example
    makes its grid of MPI_COMM_WORLD): vals are the members, ndims, dims,
    periods (docs/trace-format.md)."""
    for e in events[0] if events else []:
        if e[0] == "Cart_create":   # (op, peer, tag, bytes, peer2, tag2, bytes2, vals)
            v = e[7][e[4]:]
            nd = v[0]
            return {"dims": list(v[1:1 + nd]), "periods": [x != 0 for x in v[1 + nd:1 + 2 * nd]]}
    return None


def check_stats(label, stats, events, formulas):
    P = len(events)
    fn, msgs = expected_stats(events)
    equal(label, "ranks", stats["ranks"], P)
    equal(label, "process_grid", stats.get("process_grid", "missing"), expected_grid(events))
    equal(label, "function set", sorted(stats["functions"]), sorted(fn))
    for name, per_rank in fn.items():
        got = stats["functions"][name]
        equal(label, name + " calls", got["calls"], sum(c for c, _ in per_rank))
        equal(label, name + " bytes", got["bytes"], sum(b for _, b in per_rank))
        equal(label, name + " per_rank", [[x["calls"], x["bytes"]] for x in got["per_rank"]],
              per_rank)
    for name, (calls, nbytes) in formulas.items():
        if name == "messages":
            continue
        got = stats["functions"].get(name, {"calls": 0, "bytes": 0})   # absent: no call
        equal(label, name + " (README formula)", [got["calls"], got["bytes"]], [calls, nbytes])
    sends, total = formulas["messages"]
    m = stats["messages"]
    equal(label, "messages.sends (README formula)", m["sends"], sends)
    equal(label, "messages.total_bytes (README formula)", m["total_bytes"], total)
    equal(label, "messages.sends", m["sends"], sum(s for s, _ in msgs))
    equal(label, "messages.total_bytes", m["total_bytes"], sum(b for _, b in msgs))
    equal(label, "per_rank sends", [[x["sends"], x["send_bytes"]] for x in stats["per_rank"]],
          msgs)
    # The averages are quotients of the exact integers above.
    if abs(m["sends_per_rank"] - sends / P) > 1e-9 * max(1, sends):
        raise CheckError("%s: sends_per_rank %r != %d/%d" % (label, m["sends_per_rank"], sends, P))
    want_avg = total / sends if sends else 0
    if abs(m["avg_bytes"] - want_avg) > 1e-9 * max(1, want_avg):
        raise CheckError("%s: avg_bytes %r != %r" % (label, m["avg_bytes"], want_avg))


def check_wildcards(label, events):
    """No receive may keep an unresolved wildcard (MC_ANY) as its source or tag."""
    for r, evs in enumerate(events):
        for e in evs:
            if e[0] == "Recv" and (e[1] == ANY or e[2] == ANY):
                raise CheckError("%s: rank %d: unresolved wildcard in %r" % (label, r, e))


def function_table(stats):
    return {k: (v["calls"], v["bytes"], [(x["calls"], x["bytes"]) for x in v["per_rank"]])
            for k, v in stats["functions"].items()}


def check_one(a, workdir, nranks, args):
    model, defaults, _ = EXAMPLES[a.example]
    label = "%s-%s-np%d%s" % (a.example, a.flavour, nranks, "".join(args).replace("-", "_"))
    out, got, stats = trace_run(a.mpicast, a.flavour, a.exe, nranks, args, workdir, label)
    o = opts(args)
    o["s"] = o["s"] or defaults[0]
    o["i"] = o["i"] or defaults[1]
    want, formulas = model(nranks, o, got)
    lines = out.splitlines()
    if len(lines) != 1:
        raise CheckError("%s: expected one output line, got %r" % (label, out))
    check_wildcards(label, got)
    # The master's receives come in the order the workers finish.
    check_events(label, got, want, unordered={0} if a.example == "master_worker" else ())
    check_stats(label, stats, want, formulas)
    if a.twin:
        tout, tgot, tstats = trace_run(a.mpicast, a.flavour, a.twin, nranks, args, workdir,
                                       label + "-twin")
        equal(label, "output of the C twin", tout, out)
        equal(label, "statistics of the C twin", function_table(tstats),
              function_table(stats))
        check_events(label + " twin", tgot, got)
    shutil.rmtree(os.path.join(workdir, label), ignore_errors=True)
    shutil.rmtree(os.path.join(workdir, label + "-twin"), ignore_errors=True)
    return label


def check_strong_too_small(a):
    """-S with fewer cells than ranks along a dimension: the usage exit (2) and a message
    naming it, not a run with empty blocks."""
    cmd = launcher(a.flavour, 4) + [a.exe, "-S", "-s", "1"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=180)
    except subprocess.TimeoutExpired:
        raise CheckError("-S -s 1 at 4 ranks: timed out")
    if p.returncode != 2 or "fewer cells than the" not in p.stderr:
        raise CheckError("-S -s 1 at 4 ranks: exit %d, expected 2 with 'fewer cells than "
                         "the': %s" % (p.returncode, p.stderr[-500:]))
    return "%s-%s -S -s 1 at 4 ranks refused" % (a.example, a.flavour)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mpicast", required=True)
    p.add_argument("--example", required=True, choices=sorted(EXAMPLES))
    p.add_argument("--exe", required=True)
    p.add_argument("--flavour", required=True, choices=["openmpi", "mpich"])
    p.add_argument("--ranks", default="1,2,4,8")
    p.add_argument("--twin")
    a = p.parse_args()
    workdir = tempfile.mkdtemp(prefix="mpicast-examples-")
    try:
        for nranks in [int(x) for x in a.ranks.split(",")]:
            for args in EXAMPLES[a.example][2](nranks):
                t0 = time.time()
                label = check_one(a, workdir, nranks, args)
                print("ok   %s (%.1f s)" % (label, time.time() - t0))
        if a.example.startswith("halo"):
            print("ok   %s" % check_strong_too_small(a))
    except CheckError as e:
        print("FAIL %s" % e)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
