#!/usr/bin/env python3
"""Pseudo-traces to DUMPI (issue 25 item 2).

stream FIXTURE P...: the DUMPI fixture imported is the small trace; for each P,
    `extrapolate --ranks P --format dumpi` (DUMPI written straight from the
    extrapolation) must read back with the same `dump --no-times` as
    `extrapolate --ranks P` to mpicast format, and as that trace after
    `export dumpi` + `import dumpi`; the DUMPI directory holds P rank files and
    a .meta with numprocs=P; per-rank event counts and peers are compared from
    the dumps (and so reported when they differ).
refuse FIXTURE: the new output obeys outfile.h: refused over its input, inside it,
    and over a non-empty directory (exit 1, nothing written); a bad --format is a
    usage error (exit 2); `export dumpi` of a trace with v-collectives names every
    dropped operation in one warning.

usage: test_dumpi_extrapolate_check.py --mpicast BIN stream|refuse FIXTURE [P...]
       [--tit TIT]
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(args, ok=(0,)):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        sys.exit("FAIL: %s -> %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p


def per_rank(dump):
    """Events per rank and the peers each rank names (from dump --no-times)."""
    count, peers = collections.Counter(), collections.defaultdict(collections.Counter)
    for line in dump.splitlines():
        f = line.split()
        if not f or not f[0].isdigit():
            continue
        count[int(f[0])] += 1
        for m in re.finditer(r"\bpeer2?=(-?\d+)", line):
            peers[int(f[0])][int(m.group(1))] += 1
    return count, peers


def same(what, a, b):
    ca, pa = per_rank(a)
    cb, pb = per_rank(b)
    for r in sorted(set(ca) | set(cb)):
        if ca[r] != cb[r]:
            sys.exit("FAIL: %s: rank %d has %d events, expected %d" % (what, r, ca[r], cb[r]))
        if pa[r] != pb[r]:
            sys.exit("FAIL: %s: rank %d peers %s, expected %s" % (what, r, dict(pa[r]),
                                                                dict(pb[r])))
    if a != b:
        la, lb = a.splitlines(), b.splitlines()
        i = next(i for i in range(min(len(la), len(lb))) if la[i] != lb[i]) \
            if any(x != y for x, y in zip(la, lb)) else min(len(la), len(lb))
        sys.exit("FAIL: %s: dump differs at line %d:\n  %s\n  %s" % (
            what, i + 1, la[i] if i < len(la) else "<end>", lb[i] if i < len(lb) else "<end>"))


def stream(mc, tmp, small, ranks):
    for p in ranks:
        x, d, e, ei = (os.path.join(tmp, "%s%d" % (k, p)) for k in ("x", "d", "e", "ei"))
        run([mc, "extrapolate", small, "--ranks", str(p), "-o", x, "--quiet"])
        run([mc, "extrapolate", small, "--ranks", str(p), "-o", d, "--format", "dumpi",
             "--quiet"])
        bins = glob.glob(os.path.join(d, "dumpi-mpicast-*.bin"))
        if len(bins) != p:
            sys.exit("FAIL: P=%d: %d rank files in %s" % (p, len(bins), d))
        meta = open(os.path.join(d, "dumpi-mpicast.meta")).read()
        if "numprocs=%d\n" % p not in meta:
            sys.exit("FAIL: P=%d: meta says %r" % (p, meta))
        run([mc, "export", "dumpi", x, "-o", e, "--quiet"])
        run([mc, "import", "dumpi", e, "-o", ei])
        ref = run([mc, "dump", "--no-times", x]).stdout
        direct = run([mc, "dump", "--no-times", d]).stdout
        again = run([mc, "dump", "--no-times", ei]).stdout
        if len(ref.splitlines()) < 2 * p:
            sys.exit("FAIL: P=%d: only %d events" % (p, len(ref.splitlines())))
        same("P=%d: --format dumpi vs mpicast format" % p, direct, ref)
        same("P=%d: --format dumpi vs export dumpi + import dumpi" % p, direct, again)
        print("P=%d: %d events, %d rank files: equal" % (p, len(ref.splitlines()), len(bins)))
        for k in (x, d, e, ei):
            shutil.rmtree(k)


def refuse(mc, tmp, small, tit):
    def refused(args, msg, code=1):
        p = run([mc] + args, ok=(code,))
        if msg not in p.stderr:
            sys.exit("FAIL: %s: expected %r in %r" % (" ".join(args), msg, p.stderr))
    base = ["extrapolate", small, "--ranks", "8", "--format", "dumpi", "--quiet", "-o"]
    before = sorted(os.listdir(small))
    refused(base + [small], "is the input")
    refused(base + [os.path.join(small, "sub")], "is inside the input")
    if sorted(os.listdir(small)) != before:
        sys.exit("FAIL: the refused output wrote into the input")
    full = os.path.join(tmp, "full")
    os.mkdir(full)
    open(os.path.join(full, "keep"), "w").write("precious")
    refused(base + [full], "not empty")
    if os.listdir(full) != ["keep"] or open(os.path.join(full, "keep")).read() != "precious":
        sys.exit("FAIL: the non-empty directory was written")
    refused(["extrapolate", small, "--ranks", "8", "--format", "otf2", "-o",
             os.path.join(tmp, "o")], "expected mpicast or dumpi", code=2)
    if tit:
        p = run([mc, "export", "dumpi", tit, "-o", os.path.join(tmp, "tit"), "--quiet"])
        lines = [l for l in p.stderr.splitlines() if "cannot express" in l]
        want = ["Gatherv", "Allgatherv", "Scatterv", "Alltoallv"]
        if len(lines) != 1 or not all(w in lines[0] for w in want):
            sys.exit("FAIL: expected one warning naming %s, got %r" % (want, p.stderr))
    print("refusals and warning: ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("--tit")
    ap.add_argument("mode", choices=["stream", "refuse"])
    ap.add_argument("fixture")
    ap.add_argument("ranks", nargs="*", type=int)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mc_dumpi_x_")
    try:
        small = os.path.join(tmp, "small")
        run([a.mpicast, "import", "dumpi", a.fixture, "-o", small])
        if a.mode == "stream":
            stream(a.mpicast, tmp, small, a.ranks)
        else:
            refuse(a.mpicast, tmp, small, a.tit)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
