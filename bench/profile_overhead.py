#!/usr/bin/env python3
"""CPU-profile cost (issue 23, item 1): `mpicast trace --mode profile` against
an untraced run of the same command, and the profile's size per (block, rank).

  bench/profile_overhead.py --mpicast build/bin/mpicast \
      --examples build/examples [--ranks 2] [--rates 1,0.1]

For each example: the wall time of `mpirun -np N prog ARGS` (untraced), of
`mpicast trace` (wall mode) and of `mpicast trace --mode profile` at each
sampling rate; the slowdowns; per rank the lines of lackey output analysed
(MPI_Init and the MPI calls are in the stream too) and the CPU seconds and
peak memory of the analyser and of Valgrind (MPICAST_PROFILE_STATS=1); the
size of cpu-profile.txt and its bytes per (block, rank). Times are
wall-clock seconds: on a shared machine say how loaded it was (the load
average is printed).
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

EXAMPLES = [("ring", ["-s", "4096", "-i", "20"]), ("halo2d", ["-i", "10"]),
            ("cg", ["-s", "64", "-i", "10"])]


def timed(cmd, stats=None):
    t = time.time()
    r = subprocess.run(cmd, env=dict(ENV, MPICAST_PROFILE_STATS="1"), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"{cmd} failed: {r.stderr[-2000:]}")
    if stats is not None:
        for ln in r.stderr.splitlines():
            if "profile stats:" in ln:
                f = ln.split("profile stats:")[1].split()
                stats.append(dict(zip(f[0::2], f[1::2])))
    return time.time() - t


def profile_stats(path):
    blocks = instr = loads = stores = 0
    for ln in open(path):
        f = ln.rstrip("\n").split("\t")
        if f[0] == "block":
            blocks += 1
            instr += int(f[5])
            loads += int(f[6])
            stores += int(f[7])
    return blocks, instr, loads, stores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rates", default="1,0.1")
    ap.add_argument("--only", default="", help="comma-separated example names")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mct-profbench-")
    print(f"load average at start: {os.getloadavg()}")
    print("example | untraced s | traced s | profile s (rate) | slowdown | blocks x ranks | "
          "bursts' instr | loads+stores | profile bytes | bytes/(block,rank)")
    try:
        for name, args in EXAMPLES:
            if a.only and name not in a.only.split(","):
                continue
            prog = os.path.join(a.examples, name)
            cmd = ["mpirun", "-np", str(a.ranks), prog] + args
            base = timed(cmd)
            tdir = os.path.join(work, name + "-t")
            traced = timed([a.mpicast, "trace", "-o", tdir, "--"] + cmd)
            for rate in a.rates.split(","):
                pdir = os.path.join(work, f"{name}-p{rate}")
                st = []
                prof = timed([a.mpicast, "trace", "--mode", "profile", "--sample-rate", rate,
                              "-o", pdir, "--"] + cmd, st)
                path = os.path.join(pdir, "cpu-profile.txt")
                n, instr, loads, stores = profile_stats(path)
                size = os.path.getsize(path)
                print(f"{name} {' '.join(args)} | {base:.2f} | {traced:.2f} | {prof:.1f} ({rate}) | "
                      f"x{prof / base:.0f} | {n} | {instr} | {loads + stores} | {size} | "
                      f"{size / max(n, 1):.0f}")
                for r in st:
                    print(f"    rank {r['rank']}: {int(r['lines']):,} lines; analyser "
                          f"{r['analyser_cpu_s']} CPU s, {int(r['analyser_maxrss_kib']) // 1024} "
                          f"MiB; valgrind {r['valgrind_cpu_s']} CPU s, "
                          f"{int(r['valgrind_maxrss_kib']) // 1024} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
