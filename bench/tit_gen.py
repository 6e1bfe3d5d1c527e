#!/usr/bin/env python3
"""Writes a synthetic SimGrid time-independent trace (one file per rank and a
list file) for the replay comparison of bench/simgrid_compare.sh.

Usage: bench/tit_gen.py RANKS ITERS OUTDIR [--bytes B] [--flops F] [--every K]

Each iteration of each rank: compute F flops; irecv from the left neighbour
and isend to the right one (B bytes, tag 1); wait for both; every K
iterations an allreduce of 8 bytes. Only actions and argument forms that
both `smpirun -replay` (SimGrid 3.32) and `mpicast predict` read."""
import argparse
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ranks", type=int)
    ap.add_argument("iters", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--bytes", type=int, default=8192)
    ap.add_argument("--flops", type=float, default=1e5)
    ap.add_argument("--every", type=int, default=10)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    P = a.ranks
    names = []
    for r in range(P):
        left, right = (r - 1) % P, (r + 1) % P
        name = f"rank-{r}.txt"
        names.append(name)
        with open(os.path.join(a.outdir, name), "w") as f:
            f.write(f"{r} init\n")
            for i in range(a.iters):
                f.write(f"{r} compute {a.flops:g}\n")
                f.write(f"{r} irecv {left} 1 {a.bytes}\n")
                f.write(f"{r} isend {right} 1 {a.bytes}\n")
                f.write(f"{r} wait {left} {r} 1\n")
                f.write(f"{r} wait {r} {right} 1\n")
                if a.every > 0 and (i + 1) % a.every == 0:
                    f.write(f"{r} allreduce 8 0\n")
            f.write(f"{r} finalize\n")
    with open(os.path.join(a.outdir, "trace.list"), "w") as f:
        f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()
