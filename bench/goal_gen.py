#!/usr/bin/env python3
"""Writes a GOAL text schedule (LogGOPSim's txt2bin input) equivalent to the
time-independent traces of bench/tit_gen.py --pattern bcast|rdallreduce, for
bench/loggopsim_compare.sh.

Usage: goal_gen.py bcast|rdallreduce RANKS ITERS BYTES OUT.goal

bcast: per iteration a binomial-tree broadcast from rank 0 as blocking
point-to-point: rank r>0 receives from r - lowbit(r) (tag 1), then every rank
sends to r + mask for mask = lowbit(r)/2, ..., 1 (rank 0: P/2, ..., 1) where
r + mask < P (tag 1). Each operation of a rank requires the previous one
(blocking MPI: strictly sequential).

rdallreduce: per iteration a recursive-doubling allreduce: for k = 0..log2(P)-1,
q = r XOR 2^k: irecv from q (tag k) and isend to q (tag k); both require the two
operations of the previous round (the previous iteration's last round for k = 0).

GOAL syntax used (see txt2bin.re):
  num_ranks P
  rank R {
  a1: recv 8b from 0 tag 1
  a2: send 8b to 3 tag 1
  a2 requires a1
  }
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tit_gen import binomial  # noqa: E402  (the same tree as the text traces)


def bcast_rank(r, P, iters, nbytes, w):
    parent, kids = binomial(r, P)
    ops = [f"recv {nbytes}b from {parent} tag 1"] if parent is not None else []
    ops += [f"send {nbytes}b to {c} tag 1" for c in kids]
    n = 0
    buf = []
    for _ in range(iters):
        for op in ops:
            n += 1
            buf.append(f"a{n}: {op}\n")
            if n > 1:
                buf.append(f"a{n} requires a{n - 1}\n")
        if len(buf) > 200000:
            w("".join(buf))
            buf.clear()
    w("".join(buf))


def rd_rank(r, P, iters, nbytes, w):
    rounds = P.bit_length() - 1
    assert 1 << rounds == P, "rdallreduce needs a power of two"
    n = 0
    prev = None  # labels (recv, send) of the previous round
    buf = []
    for _ in range(iters):
        for k in range(rounds):
            q = r ^ (1 << k)
            rl, sl = f"r{n}", f"s{n}"
            n += 1
            buf.append(f"{rl}: recv {nbytes}b from {q} tag {k}\n")
            buf.append(f"{sl}: send {nbytes}b to {q} tag {k}\n")
            if prev:
                for a in (rl, sl):
                    for b in prev:
                        buf.append(f"{a} requires {b}\n")
            prev = (rl, sl)
        if len(buf) > 200000:
            w("".join(buf))
            buf.clear()
    w("".join(buf))


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    pattern, out = sys.argv[1], sys.argv[5]
    P, iters, nbytes = (int(v) for v in sys.argv[2:5])
    fn = {"bcast": bcast_rank, "rdallreduce": rd_rank}[pattern]
    with open(out, "w") as f:
        f.write(f"num_ranks {P}\n\n")
        for r in range(P):
            f.write(f"rank {r} {{\n")
            fn(r, P, iters, nbytes, f.write)
            f.write("}\n\n")


if __name__ == "__main__":
    main()
