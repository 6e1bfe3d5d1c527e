#!/usr/bin/env python3
"""Token execution (`mpicast trace --mode token`) changes nothing but times.

For each example (halo2d, cg, ring, and the Fortran halo1d_f) at 4 and 8 ranks, traces it in wall mode
and in token mode and checks that
  * the program's output is the same,
  * `mpicast dump --no-times` is the same (every call of every rank, with its
    peers, tags, sizes, requests and call sites),
  * meta.json says mode "token" for the token run.
Then test_token_calls (every blocking call the protocol rewrites, spinning on
MPI_Test and MPI_Iprobe, ANY_SOURCE, sub-communicator collectives) and its
Fortran twin (--calls-f: the same calls through the Fortran entry points) must
give the same output and the same calls (polls aside) in both modes, and test_token_refuse (one-sided) must be
refused with one warning and traced in cpu mode (wall and CPU times).

usage: test_token_examples.py --mpicast BIN --flavour openmpi|mpich
                              --examples DIR --calls EXE --refuse EXE
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

EXAMPLES = [("halo2d", ["-i", "10"]), ("halo2d", ["-b", "-i", "10"]),
            ("cg", ["-s", "64", "-i", "10"]), ("ring", ["-s", "512", "-i", "10"]),
            # Fortran (issue 20 item 4), when the flavour's Fortran wrapper built it
            ("halo1d_f", ["-i", "10"]), ("halo1d_f", ["-b", "-i", "10", "-p"])]


class Failure(Exception):
    pass


def launcher(flavour, np_):
    if flavour == "mpich":
        return ["mpirun.mpich", "-np", str(np_)]
    return ["mpirun", "--oversubscribe", "-np", str(np_)]


def trace(a, tmp, name, mode, np_, cmd):
    d = os.path.join(tmp, name)
    shutil.rmtree(d, ignore_errors=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run([a.mpicast, "trace", "-o", d, "--mode", mode, "--"] +
                       launcher(a.flavour, np_) + cmd, capture_output=True, text=True,
                       env=env, timeout=300)
    if p.returncode != 0:
        raise Failure("%s %s np=%d failed (%d): %s" % (mode, " ".join(cmd), np_, p.returncode,
                                                       p.stderr[-2000:]))
    meta = json.load(open(os.path.join(d, "meta.json")))
    return d, p.stdout, p.stderr, meta.get("mode")


def dump(a, d):
    return subprocess.run([a.mpicast, "dump", d, "--no-times"], capture_output=True, text=True,
                          check=True).stdout


def check_example(a, tmp, exe, args, np_):
    cmd = [exe] + args
    wd, wout, _, wmode = trace(a, tmp, "wall", "wall", np_, cmd)
    td, tout, terr, tmode = trace(a, tmp, "token", "token", np_, cmd)
    what = "%s %s np=%d" % (os.path.basename(exe), " ".join(args), np_)
    if tmode != "token" or wmode != "wall":
        raise Failure("%s: meta modes %s/%s, expected wall/token (%s)" % (what, wmode, tmode,
                                                                          terr.strip()))
    if wout != tout or not wout.strip():
        raise Failure("%s: output differs:\n wall:  %s\n token: %s" % (what, wout, tout))
    dw, dt = dump(a, wd), dump(a, td)
    if dw != dt:
        lw, lt = dw.splitlines(), dt.splitlines()
        first = next((i for i in range(min(len(lw), len(lt))) if lw[i] != lt[i]),
                     min(len(lw), len(lt)))
        raise Failure("%s: call sequences differ at line %d:\n wall:  %s\n token: %s"
                      % (what, first + 1, lw[first] if first < len(lw) else "<end>",
                         lt[first] if first < len(lt) else "<end>"))
    print("ok  %-28s same output, same %d calls" % (what, len(dw.splitlines())))


def check_calls(a, tmp, exe):
    name = os.path.basename(exe)
    for np_ in (4, 8):
        wd, wout, _, _ = trace(a, tmp, "cw", "wall", np_, [exe])
        td, tout, terr, tmode = trace(a, tmp, "ct", "token", np_, [exe])
        if tmode != "token" or wout != tout or "checksum=" not in wout:
            raise Failure("%s np=%d: mode %s, outputs:\n %s %s %s" % (name, np_, tmode, wout,
                                                                  tout, terr))
        # the same calls of each operation in both modes (polls aside: how often
        # a test or probe fails is timing, and so is the order in which
        # ANY_SOURCE receives and Waitany complete)
        def calls(d):
            return collections.Counter(l.split()[1] for l in dump(a, d).splitlines()
                                       if l.split()[1] not in ("Test", "Iprobe"))
        cw, ct = calls(wd), calls(td)
        if cw != ct or sum(ct.values()) < 20 * np_:
            raise Failure("%s np=%d: calls differ between wall and token mode: %s"
                          % (name, np_, sorted((cw - ct) + (ct - cw))))
        print("ok  %s np=%d  %d calls  %s" % (name, np_, sum(ct.values()), tout.strip()))


def check_refuse(a, tmp, exe):
    _, out, err, mode = trace(a, tmp, "rf", "token", 4, [exe])
    name = os.path.basename(exe)
    # the import found (the first in the symbol table): MPI_Win_* or MPI_Put in C,
    # mpi_win_*_ or mpi_put_ in Fortran
    found = err.lower()
    if mode != "cpu" or err.count("token mode refused") != 1 or \
            ("(mpi_win_" not in found and "(mpi_put" not in found):
        raise Failure("%s: mode %s, stderr:\n%s" % (name, mode, err))
    if "sum=6" not in out:
        raise Failure("%s: wrong output %r" % (name, out))
    print("ok  %s: one-sided program refused once, traced in cpu mode, output unchanged" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("--flavour", required=True, choices=("openmpi", "mpich"))
    ap.add_argument("--examples", required=True)
    ap.add_argument("--calls", required=True)
    ap.add_argument("--refuse", required=True)
    ap.add_argument("--calls-f", help="the Fortran twin of --calls")
    ap.add_argument("--refuse-f", help="the Fortran twin of --refuse")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mpicast-token-test-")
    try:
        for name, args in EXAMPLES:
            exe = os.path.join(a.examples, name)
            if name.endswith("_f") and not os.path.exists(exe):
                print("skip %s: the Fortran example was not built" % name)
                continue
            for np_ in (4, 8):
                check_example(a, tmp, exe, args, np_)
        check_calls(a, tmp, a.calls)
        if a.calls_f:
            check_calls(a, tmp, a.calls_f)
        check_refuse(a, tmp, a.refuse)
        if a.refuse_f:
            check_refuse(a, tmp, a.refuse_f)
    except (Failure, subprocess.SubprocessError, OSError, ValueError) as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
