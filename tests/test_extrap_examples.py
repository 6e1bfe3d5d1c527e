#!/usr/bin/env python3
"""Extrapolation checked against real runs (issue 6).

For each case an example is traced (Open MPI, oversubscribed, small sizes, 2-3
iterations) at one or more small process counts and at a larger one; the small
traces are extrapolated to the larger count with `mpicast extrapolate -o`, and

* `mpicast dump --no-times` of the pseudo-trace equals the real trace's, line for
  line (operation, communicator, peer, tag, sizes, request, values, site);
* `mpicast predict` of the pseudo-trace is within 5 % of the real trace's, and
  `mpicast predict SMALL --ranks P` (streamed) predicts exactly what the written
  pseudo-trace does. Predictions run with cpu.speed=1e6: the traced compute
  bursts of 16-36 ranks oversubscribed on a couple of cores are wall-clock noise,
  which no extrapolation can reproduce; what is compared is the communication
  structure.

Cases that must be refused exit 1 naming what is not explained.

With --fold, every case runs 6 iterations and extrapolate folds each rank's main
loop whatever the input's size (MPICAST_EXTRAP_FOLD=1: inference reads two
iterations of it, the pseudo-trace repeats the second; docs/extrapolation.md,
"Large inputs"): the same comparisons then check the folded path, and
`--explain` must say that it was taken.

usage: test_extrap_examples.py --mpicast BIN --examples DIR --allreduce-loop EXE [--fold]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

# name: (program, args, small process counts, target process count, extra extrapolate args)
CASES = [
    ("halo1d", "halo1d", ["-s", "64", "-i", "3"], [4], 8, []),
    ("halo1d_periodic", "halo1d", ["-s", "64", "-i", "3", "-p"], [5], 8, []),
    ("halo2d", "halo2d", ["-s", "16", "-i", "3"], [9], 16, []),
    ("halo2d_periodic", "halo2d", ["-s", "16", "-i", "3", "-p"], [9], 16, []),
    ("halo2d_nonblocking", "halo2d", ["-s", "16", "-i", "2", "-b", "-p"], [9], 16, []),
    ("halo3d", "halo3d", ["-s", "4", "-i", "2"], [27], 36, []),
    ("halo3d_periodic", "halo3d", ["-s", "4", "-i", "2", "-p"], [27], 36, []),
    # a 2x2x2 trace, where +1 and -1 are the same rank, with a 3x3x3 one that tells
    # them apart (issue 20: LAMMPS's smallest 3-d runs)
    ("halo3d_periodic_8_27", "halo3d", ["-s", "4", "-i", "2", "-p"], [8, 27], 36, []),
    # a fixed 10 x 10 grid the process grid does not divide (-S, issue 20): faces of the
    # rank's block (4 x 4: 3, 3, 2, 2 cells), block shares of N = 10; 6 x 6 and 6 x 4
    ("halo2d_strong_uneven", "halo2d", ["-s", "10", "-i", "2", "-S"], [4, 9, 16], 36, []),
    ("halo2d_strong_uneven_nb", "halo2d", ["-s", "11", "-i", "2", "-S", "-b", "-p"],
     [4, 9, 16], 24, []),
    # 3-d faces: products of two blocks (3 x 3 x 3: 4 x 4, 4 x 3 and 3 x 3 cells); 4 x 3 x 3
    ("halo3d_strong_uneven", "halo3d", ["-s", "10", "-i", "2", "-S"], [8, 27], 36, []),
    # blocks of ceil(N/n) (-F): 14 cells over 3 are 5 5 4 (balanced too), over 4 4 4 4 2
    # (also 7 items of 16 B balanced): only 14 items of 8 B in ceil blocks fit both; at
    # 6 x 6 3 3 3 3 2 0, an empty block whose faces are empty
    ("halo2d_ceil_inferred", "halo2d", ["-s", "14", "-i", "2", "-S", "-F"], [9, 16], 36, []),
    # 3-d faces of two ceil blocks: 10 over 2 is 5 5 (no reading tells), over 3 4 4 2
    ("halo3d_ceil_inferred", "halo3d", ["-s", "10", "-i", "2", "-S", "-F"], [8, 27], 36, []),
    ("cg", "cg", ["-s", "16", "-i", "3"], [4], 8, []),
    ("cg_inferred", "cg", ["-s", "16", "-i", "3"], [3, 5], 8, []),
    ("ring", "ring", ["-s", "64", "-i", "3"], [4], 8, []),
    ("fft_inferred", "fft", ["-s", "8", "-i", "2"], [4, 8, 16], 32, []),
    # strong scaling: blocks follow volume/comm, inferred from two traces (issue 27)
    ("fft_strong_two_counts", "fft", ["-s", "8", "-i", "2", "-S"], [4, 16], 32, []),
    # per-rank-count collectives with equal counts (issue 20): Scatterv, Alltoallv on
    # Comm_split row/column communicators, Reduce_scatter, Allgatherv, Gatherv
    ("fft_vector_inferred", "fft", ["-s", "8", "-i", "2", "-V"], [4, 8, 16], 32, []),
    ("fft_vector_strong", "fft", ["-s", "8", "-i", "2", "-V", "-S"], [4, 16], 32, []),
    # items dealt out in blocks (issue 20): transposes of 10 x 11 doubles by Alltoallv
    # (on 2 members the rows are equal, 5 5, the columns not, 6 5; on 4 both differ), and
    # a checksum vector of 10 values: Reduce_scatter and Allgatherv counts 3,3,2,2 on 4
    # members, equal on 2; Allgatherv's send size is the rank's own block
    # The 11 columns are 6,5 on 2 members and 3,3,3,2 on 4 alike dealt out first or in
    # ceil(N/c) blocks (FFTW's), which part on 8 members: the rule says which
    ("fft_block_inferred", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10"], [4, 8, 16], 32,
     ["--rule", "blocks=first"]),
    ("fft_block_strong", "fft", ["-s", "8", "-i", "2", "-V", "-S", "-B", "10"], [4, 16], 32,
     ["--rule", "blocks=first"]),
    # the same with the remainder on the last ranks (-R: 2,2,3,3 on 4 members)
    ("fft_block_last", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10", "-R"], [4, 8, 16],
     32, []),
    # FFTW-MPI's blocks (-F): ceil(N/c) items from the first member on, the next the rest,
    # none after it (issue 20): 13 x 14 on 4 members is 4,4,4,1 x 4,4,4,2, which no
    # balanced split gives; on the 8-member columns at 32, 2,2,2,2,2,2,1,0
    ("fft_ceil_inferred", "fft", ["-s", "8", "-i", "2", "-V", "-B", "13", "-F"], [4, 8, 16],
     32, []),
    ("fft_ceil_strong", "fft", ["-s", "8", "-i", "2", "-V", "-S", "-B", "13", "-F"], [4, 16],
     32, []),
    # MPI_Comm_create with row and column groups, and a first-row communicator the other
    # ranks get as MPI_COMM_NULL (issue 20); row 0 is then a class of its own, so the
    # block law is stated (two counts per class fit both const and p/comm)
    ("fft_groups", "fft", ["-s", "8", "-i", "2", "-G"], [4, 8, 16], 32,
     ["--rule", "size.block=p/comm"]),
    # partners rank XOR 2^k, k advancing over log2 P steps in each iteration (issue 20)
    ("cg_log2_xor", "cg_log2", ["-s", "16", "-i", "2", "-x"], [4, 8, 16], 32, []),
    # recursive halving: step k exchanges SIZE / 2^(k+1) doubles with rank XOR 2^k
    ("cg_log2_halving", "cg_log2", ["-s", "64", "-i", "2", "-x", "-H"], [4, 8, 16], 32, []),
    # NPB CG's shape (issue 20): 2:1 grid when P is not a square, transpose partners,
    # rank XOR 2^k row reductions repeated log2(npcols) times, twice per iteration
    ("cg2d", "cg2d", ["-s", "16", "-i", "2"], [4, 8, 16], 32, []),
    # NPB's own loops (-N): the sum's steps counted down and tagged with their index, the
    # dot product's tagged 1 .. log2(npcols): two repeated blocks per iteration
    ("cg2d_npb", "cg2d", ["-s", "16", "-i", "2", "-N"], [4, 8, 16], 32, []),
    # an LU-like pipelined wavefront: border ranks skip the calls for missing
    # neighbours (issue 20); 3x3 -> 4x3
    ("wavefront", "wavefront", ["-s", "16", "-i", "2"], [9], 12, []),
    # a multigrid V-cycle's local levels: faces halving down the V and doubling up it
    ("mg", "mg", ["-s", "16", "-i", "2"], [9], 36, []),
    # its coarse levels on fewer ranks (-c): level j on the ranks whose coordinates are
    # multiples of 2^j, partners 2^j away, log2 min(R, C) levels (issue 20); 8x8 tells
    # the level-1 partner +2 from -2, which 4x4 cannot; 16x8 at the target
    ("mg_coarse", "mg", ["-s", "16", "-i", "2", "-c"], [16, 64], 128, []),
    # the same V-cycle written in Fortran (its MPI calls reach the tracer's Fortran
    # entry points under Open MPI); skipped without a Fortran compiler
    ("mg_coarse_fortran", "mg_f", ["-s", "16", "-i", "2", "-c"], [16, 64], 128, []),
    ("allreduce_loop", "@loop", ["3"], [4], 8, []),
]

# Dump equality only: Open MPI hands out one request handle for several eager
# Isends, and the tracer (as of this writing) then records one request id for all
# of them in Waitall, which the simulator rejects for the real trace as well.
DUMP_ONLY = {"halo2d_nonblocking"}

# Folded, the multigrid cases need every rank's loop to start at one shared event
# (the fold's MC_COMPRESS_ALIGN): rank 4 of a 4x4 grid, without coarse levels, has
# its loop found from its Allreduce, rank 8 from a coarse level's Sendrecv.

# name: (program, args, small counts, target, expected words in the error[, extra args])
REFUSED = [
    ("master_worker", "master_worker", ["-s", "16", "-i", "12"], [6], 8,
     ["rank 1", "master_worker.c:", "not explained"]),
    # two counts where 'const' and 'p/comm' both fit the column all-to-all
    ("fft_two_counts", "fft", ["-s", "8", "-i", "2"], [4, 8], 16, ["fit both", "Alltoall", "fft.c:"]),
    # a periodic dimension of 2 ranks: offsets +1 and -1 are the same rank
    ("halo1d_periodic_2", "halo1d", ["-s", "64", "-i", "2", "-p"], [2], 8, ["ambiguous"]),
    # 2x2x2 and 4x2x2: no trace tells +1 from -1 along the last two dimensions
    ("halo3d_periodic_8_16", "halo3d", ["-s", "4", "-i", "2", "-p"], [8, 16], 27, ["ambiguous"]),
    # multigrid coarse levels from 2x2 and 4x4: level 1's partner 2 away is +2 = -2 on
    # both, and the 8x8 target tells them apart
    # a 6x6 target: level 2's partner of column 4 is column 8 mod 6 = 2, which does no
    # level 2; that pseudo-trace would send what no rank receives
    ("mg_coarse_6x6", "mg", ["-s", "16", "-i", "2", "-c"], [16, 64], 36,
     ["coarse level 2", "does not do level 2 at P=36"]),
    ("mg_coarse_4_16", "mg", ["-s", "16", "-i", "2", "-c"], [4, 16], 64,
     ["rank 0 event 18 (Sendrecv, site ", "mg.c:", "+n/2 = -n/2", "trace a process count"]),
    # one trace: 2 levels at 4x4 fit log2 min(R, C) and a constant number alike
    ("mg_coarse_one", "mg", ["-s", "16", "-i", "2", "-c"], [16], 64,
     ["rank 0 event 18 (Sendrecv, site ", "mg.c:", "3 and 2 levels at P=64",
      "trace one more process count"]),
    # rows of 2 ranks at P=4 and 8: 10 rows dealt out over 2 are equal, so no trace shows
    # how many rows the row transpose has, and at 32 the rows have 4 ranks
    ("fft_block_rows_hidden", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10"], [4, 8], 32,
     ["Alltoallv", "divides the transpose's number of rows", "trace a process count"]),
    # without the rule the traces leave the columns' distribution open
    ("fft_block_open", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10"], [4, 8, 16], 32,
     ["Alltoallv", "columns first", "columns ceil", "differ at P=32",
      "--rule blocks=first|last|ceil"]),
    # one trace at 16 ranks (4x4) of ceil blocks: 11 columns on 4 members, 3,3,3,2, are
    # also dealt out first, and the two part on the 8-member columns at 32
    ("fft_ceil_one", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10", "-F"], [16], 32,
     ["Alltoallv", "rows dealt out ceil, columns first", "differ at P=32",
      "trace a process count that tells them apart", "--rule blocks="]),
    # with the distribution stated, the item size stays open: 3,3,3,2 doubles are also
    # 6,6,6,4 items of 4 bytes, 22 columns in blocks of 6
    ("fft_ceil_one_unit", "fft", ["-s", "8", "-i", "2", "-V", "-B", "10", "-F"], [16], 32,
     ["Alltoallv", "10 x 11 items of 8 bytes, rows dealt out ceil, columns ceil, or 10 x 22 "
      "items of 4 bytes", "differ at P=32", "trace a process count that tells them apart"],
     ["--rule", "blocks=ceil"]),
    # ceil blocks of halo faces: 4 4 4 2 cells on 4 and 2 x 7, 0 on 8 are also 7 items
    # of 16 B balanced (2 2 2 1, 1 x 7, 0) and part on the 6 x 6 grid
    ("halo2d_ceil_16_64", "halo2d", ["-s", "14", "-i", "2", "-S", "-F"], [16, 64], 36,
     ["Sendrecv, site ", "halo.c:", "(the first N mod n one more), or ",
      "(blocks of ceil(N/n))", "differ at P=36", "trace a process count that tells them apart",
      "--rule blocks="]),
    # one trace under strong scaling: the same readings part on 3 x 3
    ("halo2d_ceil_one", "halo2d", ["-s", "14", "-i", "2", "-S", "-F"], [16], 9,
     ["halo.c:", "(the first N mod n one more), or 16 B", "(blocks of ceil(N/n))",
      "differ at P=9 (rank 1: 32 bytes against 48)"],
     ["--scaling", "strong"]),
    # two counts: log2(npcols) and P/4 both fit 1 and 2 steps, and differ at 16
    ("cg2d_two_counts", "cg2d", ["-s", "16", "-i", "2"], [4, 8], 16,
     ["log2cols(P) and", "x p(P)", "cg2d.c:", "trace one more process count"]),
    # 4 x 2 and 4 x 4 grids: the row reduction has 2 steps at both, which a constant and
    # log2(npcols) fit alike, and they part at 32 (3 steps); written with 2 before
    ("cg2d_8_16", "cg2d", ["-s", "16", "-i", "2"], [8, 16], 32,
     ["2 x const(P) and 1 x log2cols(P)", "cg2d.c:", "2 and 3 copies at P=32",
      "--rule repeat="]),
    # 1 x 2 and 2 x 2 grids: one row-reduction step at both, the loop unseen; 8 has 2
    ("cg2d_2_4", "cg2d", ["-s", "16", "-i", "2"], [2, 4], 8,
     ["one exchange with rank XOR 1 in every trace", "cg2d.c:", "would do 2 at P=8"]),
    # XOR partners from one trace: rank XOR 1 and rank + P/2 look alike at one P
    ("cg_log2_xor_one", "cg_log2", ["-s", "16", "-i", "2", "-x"], [8], 16,
     ["rank XOR 1", "cg_log2.c:", "second process count"]),
]


class Failure(Exception):
    pass


def run(cmd, check=True, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=ENV, **kw)
    if check and p.returncode != 0:
        raise Failure("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p


class Ctx:
    def __init__(self, args, tmp):
        self.fold = args.fold
        self.mpicast = args.mpicast
        self.examples = args.examples
        self.loop = args.allreduce_loop
        self.tmp = tmp
        self.cache = {}

    def exe(self, prog):
        return self.loop if prog == "@loop" else os.path.join(self.examples, prog)

    def trace(self, prog, pargs, nranks):
        if self.fold:  # enough iterations for a main loop (3 or more alike)
            pargs = ["6" if prog == "@loop" or (i and pargs[i - 1] == "-i") else a
                     for i, a in enumerate(pargs)]
        key = (prog, tuple(pargs), nranks)
        if key in self.cache:
            return self.cache[key]
        d = os.path.join(self.tmp, "t%d" % len(self.cache))
        run([self.mpicast, "trace", "-o", d, "--", "mpirun.openmpi", "--oversubscribe",
             "-np", str(nranks), self.exe(prog)] + pargs)
        self.cache[key] = d
        return d

    def dump(self, d):
        return run([self.mpicast, "dump", "--no-times", d]).stdout.splitlines()

    def predict(self, args):
        out = run([self.mpicast, "predict", "--json", "--set", "cpu.speed=1e6"] + args).stdout
        return json.loads(out)["predicted_time"]


def check_case(ctx, name, prog, pargs, small, target, extra):
    traces = [ctx.trace(prog, pargs, p) for p in small]
    real = ctx.trace(prog, pargs, target)
    out = os.path.join(ctx.tmp, "x_" + name)
    x = run([ctx.mpicast, "extrapolate"] + traces + ["--ranks", str(target), "-o", out,
                                                     "--explain"] + extra)
    folded = x.stdout.count("read as two iterations")
    if ctx.fold and folded != len(traces):
        raise Failure("%s: --explain names %d folded inputs of %d:\n%s"
                      % (name, folded, len(traces), x.stdout))
    if not ctx.fold and folded:
        raise Failure("%s: a small input was folded:\n%s" % (name, x.stdout))
    a, b = ctx.dump(real), ctx.dump(out)
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise Failure("%s: line %d differs:\n  real   %s\n  pseudo %s" % (name, i + 1, x, y))
        raise Failure("%s: %d lines in the real dump, %d in the pseudo-trace" % (name, len(a), len(b)))
    if name in DUMP_ONLY:
        return "%d events equal (prediction not compared)" % len(a)
    t_real = ctx.predict([real])
    t_pseudo = ctx.predict([out])
    if abs(t_pseudo - t_real) > 0.05 * t_real:
        raise Failure("%s: predicted %.9g s from the pseudo-trace, %.9g s from the real one"
                      % (name, t_pseudo, t_real))
    if len(small) == 1:
        t_stream = ctx.predict([traces[0], "--ranks", str(target)] + extra)
        if abs(t_stream - t_pseudo) > 1e-12:
            raise Failure("%s: predict --ranks %d gives %.12g s, the written pseudo-trace %.12g s"
                          % (name, target, t_stream, t_pseudo))
    return "%d events equal, predicted %.6g s vs %.6g s real (%+.2f %%)" % (
        len(a), t_pseudo, t_real, 100.0 * (t_pseudo - t_real) / t_real)


def check_refused(ctx, name, prog, pargs, small, target, words, extra=()):
    traces = [ctx.trace(prog, pargs, p) for p in small]
    out = os.path.join(ctx.tmp, "r_" + name)
    p = run([ctx.mpicast, "extrapolate"] + traces + ["--ranks", str(target), "-o", out]
            + list(extra), check=False)
    if p.returncode != 1:
        raise Failure("%s: exit %d, expected 1 (refused)\n%s" % (name, p.returncode, p.stderr))
    msg = "\n".join(l for l in p.stderr.strip().splitlines()
                    if not l.startswith("mpicast: warning: "))
    if not msg.startswith("mpicast: ") or msg.count("\n"):
        raise Failure("%s: expected one 'mpicast: ...' line, got:\n%s" % (name, msg))
    for w in words:
        if w not in msg:
            raise Failure("%s: '%s' not in the message: %s" % (name, w, msg))
    if os.path.exists(os.path.join(out, "meta.json")):
        raise Failure("%s: a refused extrapolation wrote %s" % (name, out))
    return "refused: " + msg[len("mpicast: "):][:150]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--allreduce-loop", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--fold", action="store_true")
    args = ap.parse_args()
    if args.fold:
        ENV["MPICAST_EXTRAP_FOLD"] = "1"

    tmp = tempfile.mkdtemp(prefix="mc_extrap_")
    failures = 0
    try:
        ctx = Ctx(args, tmp)
        for case in CASES + REFUSED:
            name = case[0]
            if args.only and name not in args.only.split(","):
                continue
            if not os.path.exists(ctx.exe(case[1])):
                print("skip %-20s %s not built" % (name, case[1]), flush=True)
                continue
            t0 = time.time()
            try:
                if case in CASES:
                    what = check_case(ctx, *case)
                else:
                    what = check_refused(ctx, *case)
                print("ok   %-20s %s (%.1f s)" % (name, what, time.time() - t0), flush=True)
            except Failure as e:
                failures += 1
                print("FAIL %-20s %s" % (name, e), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
