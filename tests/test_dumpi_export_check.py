#!/usr/bin/env python3
"""`mpicast export dumpi` checked against the reference DUMPI traces.

roundtrip FIXTURE: import FIXTURE, export it, import the export again: `dump --no-times`
    equal (calls, communicators, requests, sizes).
bytes FIXTURE (ring): the exported rank files follow the fixture's own bytes: magic,
    body offset and layout of every record (label, mask, thread, four times, then the
    arguments: dest/source, tag, communicator and count x datatype size equal; the
    export writes counts of MPI_BYTE where the program used MPI_DOUBLE), the header
    version 13.0.0, the footer's call counts, the datatype size table and the index.
    What differs, by design: the local calls (Comm_rank, Comm_size) mpicast does not
    record are absent, Init's argv is the trace's command, and times are shifted by
    the same constant on every call (compared relative to Init's exit).

usage: test_dumpi_export_check.py --mpicast BIN roundtrip|bytes FIXTURE
"""
import argparse
import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MAGIC = 0xFFAADD44554D5049
LOCAL = {81, 82}  # Comm_size, Comm_rank


class Reader:
    def __init__(self, data, pos):
        self.d, self.p = data, pos

    def get(self, fmt):
        v = struct.unpack_from(">" + fmt, self.d, self.p)
        self.p += struct.calcsize(">" + fmt)
        return v[0] if len(v) == 1 else v


def parse(path):
    """Index, header, footer counts, size table and the records of the ring calls."""
    d = open(path, "rb").read()
    assert struct.unpack_from(">Q", d, 0)[0] == MAGIC, "no magic"
    idx = struct.unpack_from(">8Q", d, len(d) - 64)
    assert idx[0] == MAGIC, "no index"
    sizes_at, _, _, header, body, footer, _ = idx[1:]
    r = Reader(d, sizes_at)
    sizes = [r.get("I") for _ in range(r.get("I"))]
    r = Reader(d, footer)
    assert r.get("Q") == 0xF007FEE7, "footer magic"
    counts = [r.get("I") for _ in range(291)]
    version = tuple(d[header:header + 3])
    r = Reader(d, body)
    r.get("I"), r.get("I")
    off_wall = struct.unpack_from(">I", d, body + 4)[0]
    recs = []
    while True:
        label = r.get("H")
        if label == 293:
            break
        mask, thread = r.get("B"), r.get("H")
        t = []
        for on in (mask & 4, mask & 8):
            if on:
                for _ in range(2):
                    s, ns = r.get("H"), r.get("I")
                    t.append((s + off_wall) * 10**9 + ns if on == 8 else None)
        wall = [x for x in t if x is not None]
        if label in (0, 1):  # count, type, peer, tag, comm [, statuses]
            count, typ, peer, tag, comm = r.get("i"), r.get("H"), r.get("i"), r.get("i"), r.get("H")
            args = (count * sizes[typ], peer, tag, comm)
            if label == 1:
                n = r.get("I")
                args += (n,)
                r.p += 14 * n
        elif label in (81, 82):
            args = (r.get("H"), r.get("i"))
        elif label == 124:
            for _ in range(r.get("I")):
                n = r.get("I")
                r.p += n
            args = ()
        else:
            args = ()
        recs.append((label, mask, thread, wall, args))
    return {"version": version, "counts": counts, "sizes": sizes, "recs": recs,
            "body": body, "order": sorted(range(7), key=lambda i: idx[1 + i])}


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("what", choices=["roundtrip", "bytes"])
    ap.add_argument("fixture")
    o = ap.parse_args()
    m = o.mpicast
    tmp = tempfile.mkdtemp(prefix="mc-dumpi-x-")
    try:
        imp, out, back = (os.path.join(tmp, n) for n in ("imp", "out", "back"))
        run(m, "import", "dumpi", o.fixture, "-o", imp)
        run(m, "export", "dumpi", imp, "-o", out)
        if o.what == "roundtrip":
            run(m, "import", "dumpi", out, "-o", back)
            a = subprocess.run([m, "dump", imp, "--no-times"], capture_output=True, text=True,
                               check=True).stdout
            b = subprocess.run([m, "dump", back, "--no-times"], capture_output=True, text=True,
                               check=True).stdout
            if a != b or not a:
                sys.exit("dump --no-times differs after export dumpi and import")
            print(f"{len(a.splitlines())} events equal after the round trip")
            return
        ref_files = sorted(glob.glob(os.path.join(o.fixture, "dumpi-*-[0-9]*.bin")))
        for rank, ref_path in enumerate(ref_files):
            ref = parse(ref_path)
            got = parse(os.path.join(out, "dumpi-mpicast-%04d.bin" % rank))
            for key in ("version", "sizes", "body", "order"):
                if ref[key] != got[key]:
                    sys.exit(f"rank {rank}: {key}: fixture {ref[key]}, export {got[key]}")
            want = [x for x in ref["recs"] if x[0] not in LOCAL]
            if [x[0] for x in want] != [x[0] for x in got["recs"]]:
                sys.exit(f"rank {rank}: the sequence of calls differs")
            t0r, t0g = want[0][3][1], got["recs"][0][3][1]
            for i, (p, q) in enumerate(zip(want, got["recs"])):
                if p[1:3] != q[1:3] or p[4] != q[4] and p[0] != 124:
                    sys.exit(f"rank {rank} record {i}: fixture {p}, export {q}")
                if [t - t0r for t in p[3]] != [t - t0g for t in q[3]]:
                    sys.exit(f"rank {rank} record {i}: wall times differ")
            for label in {x[0] for x in want} | {290}:
                c = ref["counts"][label] - (sum(ref["counts"][k] for k in LOCAL) if label == 290 else 0)
                if c != got["counts"][label]:
                    sys.exit(f"rank {rank}: call count of {label}: {got['counts'][label]}, "
                             f"fixture {c}")
        print(f"{len(ref_files)} rank files follow the fixture's layout")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
