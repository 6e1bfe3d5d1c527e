#!/usr/bin/env python3
"""DUMPI import checks against the reference traces in tests/data/dumpi/.

times FIXTURE: `mpicast import dumpi` of FIXTURE, then every event's entry and exit
    time equals the walltime dumpi2ascii printed for the same call (the *.txt beside
    the rank files), to the nanosecond, relative to the earliest MPI_Init exit; the
    CPU time of each burst equals the cputime gap between the two calls.
trace FIXTURE --exe EXE --np N ARGS...: the example traced with `mpicast trace`
    (mpirun --oversubscribe -np N EXE ARGS) gives, call by call, the same events
    (operation, communicator, peer, tag, sizes, members) as the import. For
    master_worker the master's wildcard receives depend on timing: there each
    receive's source must be the worker the DUMPI status names and the events are
    compared without peers and tags on rank 0; the workers' calls, whose split
    between workers is timing too, are compared as one multiset.

usage: test_dumpi_check.py --mpicast BIN times DIR
       test_dumpi_check.py --mpicast BIN trace DIR --exe EXE --np N -- ARGS...
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

# Calls mpicast does not record (local queries): their time joins the burst.
LOCAL = {"MPI_Comm_rank", "MPI_Comm_size", "MPI_Cart_shift", "MPI_Dims_create",
         "MPI_Wtime", "MPI_Type_size", "MPI_Type_commit", "MPI_Type_free",
         "MPI_Get_count"}
CALL = re.compile(r"^(MPI_\w+) (entering|returning) at walltime ([0-9.]+), "
                  r"cputime ([0-9.]+) seconds")


def ns(text):
    return int(Decimal(text) * 1000000000)


def txt_calls(path):
    """[(name, wall_in, wall_out, cpu_in, cpu_out)] of the recorded calls."""
    calls, cur = [], None
    with open(path) as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue
            name, what, wall, cpu = m.groups()
            if what == "entering":
                cur = [name, ns(wall), None, ns(cpu), None]
            else:
                cur[2], cur[4] = ns(wall), ns(cpu)
                if name not in LOCAL:
                    calls.append(tuple(cur))
    return calls


def dump(mpicast, trace, times):
    args = [mpicast, "dump", trace] + ([] if times else ["--no-times"])
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    ranks = {}
    for line in out.splitlines():
        f = line.split()
        ranks.setdefault(int(f[0]), []).append(f[1:])
    return ranks


def field(ev, key, default=None):
    for tok in ev[1:]:
        if tok.startswith(key + "="):
            return int(tok.split("=", 1)[1])
    return default


def import_fixture(mpicast, fixture, out):
    subprocess.run([mpicast, "import", "dumpi", fixture, "-o", out], check=True)


def check_times(mpicast, fixture, tmp):
    out = os.path.join(tmp, "imp")
    import_fixture(mpicast, fixture, out)
    files = sorted(glob.glob(os.path.join(fixture, "dumpi-*-[0-9]*.txt")))
    calls = [txt_calls(p) for p in files]
    epoch = min(c[2] for rank in calls for c in rank if c[0] == "MPI_Init")
    got = dump(mpicast, out, True)
    n = 0
    for r, rank in enumerate(calls):
        evs = got[r]
        if len(evs) != len(rank):
            sys.exit(f"rank {r}: {len(evs)} events imported, {len(rank)} calls in the text")
        for i, (c, ev) in enumerate(zip(rank, evs)):
            if "MPI_" + ev[0] != c[0]:
                sys.exit(f"rank {r} event {i}: {ev[0]} where the text has {c[0]}")
            if field(ev, "start") != c[1] - epoch or field(ev, "end") != c[2] - epoch:
                sys.exit(f"rank {r} event {i} ({c[0]}): start/end {field(ev, 'start')}/"
                         f"{field(ev, 'end')} ns, text {c[1] - epoch}/{c[2] - epoch}")
            want_cpu = c[3] - rank[i - 1][4] if i else None
            if i and field(ev, "cpu") != want_cpu:
                sys.exit(f"rank {r} event {i}: cpu {field(ev, 'cpu')} ns, text {want_cpu}")
            n += 1
    print(f"{n} events: times equal the text to the ns")


def strip(ev, keys):
    return [t for t in ev if t.split("=")[0] not in keys]


def check_trace(mpicast, fixture, exe, np, args, tmp):
    imp, run = os.path.join(tmp, "imp"), os.path.join(tmp, "run")
    import_fixture(mpicast, fixture, imp)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    subprocess.run([mpicast, "trace", "-o", run, "--", "mpirun", "--oversubscribe", "-np",
                    str(np), exe] + args, check=True, env=env, stdout=subprocess.DEVNULL)
    a, b = dump(mpicast, imp, False), dump(mpicast, run, False)
    if sorted(a) != sorted(b):
        sys.exit(f"ranks: import {sorted(a)}, trace {sorted(b)}")
    wild = os.path.basename(os.path.normpath(fixture)) == "master_worker"
    n = 0
    if wild:  # which worker gets which task is timing: the workers' calls as a whole
        x = sorted(" ".join(strip(e, {"site"})) for r in a if r for e in a[r])
        y = sorted(" ".join(strip(e, {"site"})) for r in b if r for e in b[r])
        if x != y:
            sys.exit("the workers' calls differ between the import and the trace")
        n += len(x)
    for r in sorted(a) if not wild else [0]:
        drop = {"site"} | ({"peer", "tag", "vals"} if wild and r == 0 else set())
        x = [strip(e, drop) for e in a[r]]
        y = [strip(e, drop) for e in b[r]]
        if len(x) != len(y):
            sys.exit(f"rank {r}: {len(x)} events imported, {len(y)} traced")
        for i, (p, q) in enumerate(zip(x, y)):
            if p != q:
                sys.exit(f"rank {r} event {i}: import {' '.join(p)} / trace {' '.join(q)}")
            n += 1
    if wild:  # the master's receives name the worker the DUMPI status names
        txt = sorted(glob.glob(os.path.join(fixture, "dumpi-*-0000.txt")))[0]
        srcs = [int(s) for s in re.findall(r"status=\[\{bytes=\d+, cancelled=0, source=(\d+)",
                                            open(txt).read())]
        got = [field(e, "peer") for e in a[0] if e[0] == "Recv"]
        if got != srcs or not srcs:
            sys.exit(f"master's receive sources {got}, DUMPI statuses {srcs}")
    print(f"{n} events equal call by call")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("what", choices=["times", "trace"])
    ap.add_argument("fixture")
    ap.add_argument("--exe")
    ap.add_argument("--np", type=int)
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    o = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    o.args = rest
    tmp = tempfile.mkdtemp(prefix="mc-dumpi-")
    try:
        if o.what == "times":
            check_times(o.mpicast, o.fixture, tmp)
        else:
            check_trace(o.mpicast, o.fixture, o.exe, o.np, o.args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
