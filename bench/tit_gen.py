#!/usr/bin/env python3
"""Writes a synthetic SimGrid time-independent trace (one file per rank and a
list file) for the replay comparison of bench/simgrid_compare.sh.

Usage: bench/tit_gen.py RANKS ITERS OUTDIR [--bytes B] [--flops F] [--every K]
                        [--pattern ring|halo3d|alltoall|bcast|rdallreduce]
                        [--dims X,Y,Z]

ring (default), per iteration of each rank: compute F flops; irecv from the
left neighbour and isend to the right one (B bytes, tag 1); wait for both;
every K iterations an allreduce of 8 bytes.
halo3d: ranks on an X x Y x Z periodic grid (x fastest); per iteration:
compute F flops, 6 irecv from the neighbours and 6 isend to them (tag = the
direction, 0..5), then a wait for each.
alltoall: per iteration, a pairwise all-to-all written as point-to-point:
rounds k = 1..P-1 of irecv from r-k, isend to r+k (tag k), two waits; a
compute of F flops before each iteration.
bcast: per iteration, a binomial-tree broadcast of B bytes from rank 0 written
as blocking point-to-point (recv from the parent, send to each child, tag 1),
no compute: issue 24's LogGOPSim comparison (64 ranks, 72000 iterations, 8 B).
rdallreduce: per iteration, a recursive-doubling allreduce of B bytes written
as point-to-point (round k: irecv from and isend to rank XOR 2^k, tag k, two
waits), no compute; P a power of two (issue 24: 64 KiB at 64 and 1024 ranks).
Only actions and argument forms that both `smpirun -replay` (SimGrid 3.32)
and `mpicast predict` read."""
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
    ap.add_argument("--pattern", choices=["ring", "halo3d", "alltoall", "bcast", "rdallreduce"], default="ring")
    ap.add_argument("--dims", default="")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if a.pattern != "ring":
        return write_other(a)
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


def halo3d_peers(r, d):
    """(peer, tag) for the 6 directions: +x, -x, +y, -y, +z, -z."""
    c = [r % d[0], r // d[0] % d[1], r // (d[0] * d[1])]
    out = []
    for k in range(6):
        dim, s = k // 2, (1 if k % 2 == 0 else -1)
        e = list(c)
        e[dim] = (e[dim] + s) % d[dim]
        out.append(e[0] + d[0] * (e[1] + d[1] * e[2]))
    return out


def binomial(r, P):
    """Rank r's parent (None for the root, 0) and children, in send order, in
    a binomial-tree broadcast of P ranks (also bench/goal_gen.py's)."""
    mask = 1
    while mask < P and not r & mask:
        mask <<= 1
    parent = r - mask if r else None
    kids = []
    mask >>= 1
    while mask:
        if r + mask < P:
            kids.append(r + mask)
        mask >>= 1
    return parent, kids


def tree_lines(a, r):
    """One iteration of rank r in the bcast and rdallreduce patterns."""
    P, out = a.ranks, []
    if a.pattern == "bcast":
        parent, kids = binomial(r, P)
        if parent is not None:
            out.append(f"{r} recv {parent} 1 {a.bytes}")
        return out + [f"{r} send {c} 1 {a.bytes}" for c in kids]
    k = 0
    while (1 << k) < P:
        q = r ^ (1 << k)
        out += [f"{r} irecv {q} {k} {a.bytes}", f"{r} isend {q} {k} {a.bytes}",
                f"{r} wait {q} {r} {k}", f"{r} wait {r} {q} {k}"]
        k += 1
    return out


def write_other(a):
    P = a.ranks
    if a.pattern == "rdallreduce" and P & (P - 1):
        raise SystemExit(f"tit_gen.py: rdallreduce needs a power of two, not {P}")
    if a.pattern == "halo3d":
        d = [int(x) for x in a.dims.split(",")] if a.dims else []
        if len(d) != 3 or d[0] * d[1] * d[2] != P:
            raise SystemExit(f"tit_gen.py: --dims X,Y,Z with X*Y*Z = {P} needed for halo3d")
    names = []
    for r in range(P):
        name = f"rank-{r}.txt"
        names.append(name)
        lines = [f"{r} init"]
        for _ in range(a.iters):
            if a.pattern in ("bcast", "rdallreduce"):
                lines += tree_lines(a, r)
                continue
            lines.append(f"{r} compute {a.flops:g}")
            if a.pattern == "halo3d":
                to = halo3d_peers(r, d)
                # the message of direction k comes from the neighbour opposite k
                frm = [to[k ^ 1] for k in range(6)]
                lines += [f"{r} irecv {frm[k]} {k} {a.bytes}" for k in range(6)]
                lines += [f"{r} isend {to[k]} {k} {a.bytes}" for k in range(6)]
                lines += [f"{r} wait {frm[k]} {r} {k}" for k in range(6)]
                lines += [f"{r} wait {r} {to[k]} {k}" for k in range(6)]
            else:
                for k in range(1, P):
                    src, dst = (r - k) % P, (r + k) % P
                    lines.append(f"{r} irecv {src} {k} {a.bytes}")
                    lines.append(f"{r} isend {dst} {k} {a.bytes}")
                    lines.append(f"{r} wait {src} {r} {k}")
                    lines.append(f"{r} wait {r} {dst} {k}")
        lines.append(f"{r} finalize")
        with open(os.path.join(a.outdir, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.outdir, "trace.list"), "w") as f:
        f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()
