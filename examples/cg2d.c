/* cg2d: the communication of NPB CG (issue 20) on its 2-D process grid.
 *
 * P = 2^k ranks form an nprows x npcols grid with npcols = 2^ceil(k/2) (so npcols is
 * nprows, or twice nprows when P is not a square), rank = row * npcols + col, as NPB CG
 * lays them out. Each of ITERS iterations does what NPB's conj_grad does per step:
 *   - the row's sum of the matrix-vector product: log2(npcols) steps, step i exchanging
 *     SIZE doubles with rank XOR 2^i (MPI_Irecv, MPI_Send, MPI_Wait; tag 1), a partner in
 *     the same row;
 *   - the transpose exchange of SIZE doubles with NPB's exch_proc (on a square grid the
 *     rank at (col, row); on a 2:1 grid 2 (((r/2) mod nprows) nprows + (r/2)/nprows) +
 *     r mod 2), diagonal ranks exchanging with themselves as NPB's do (tag 2);
 *   - the row's dot product: log2(npcols) steps of 1 double with rank XOR 2^i, through
 *     the same row-reduction routine as the sum (one call site, tag 1);
 *   - one MPI_Allreduce of 1 double (the residual norm).
 * No communicator but MPI_COMM_WORLD, as in NPB: the grid exists only in the ranks'
 * arithmetic. Unlike NPB CG (whose two reduction loops are separate code, count their
 * steps down for the sum, and tag each step with its index), both reductions go through
 * one routine: for mpicast's extrapolation they are then one repeated block that recurs
 * twice per iteration (docs/extrapolation.md). With -N the sum is NPB's own loop
 * instead: steps counted down (rank XOR 2^(l2npcols-1) first), step i tagged with its
 * index i (l2npcols .. 1), and the dot product's steps are tagged 1 .. l2npcols: two
 * different repeated blocks per iteration, whose partners and tags move with the step.
 *
 * usage: cg2d [-s SIZE] [-i ITERS] [-N]     (defaults 256, 3; P a power of two) */
#include <math.h>

#include "ex_common.h"

enum { TAG_ROW = 1, TAG_TRANSPOSE = 2 };

/* The row's reduction of buf[0..n) (sum into buf): log2(npcols) steps with rank XOR
 * 2^i, each receiving into tmp; npb: tag i + 1. Not inlined: its calls keep one call
 * site each. */
static __attribute__((noinline)) void row_reduce(double *buf, double *tmp, int n, int rank,
                                                 int l2npcols, int npb)
{
    for (int i = 0; i < l2npcols; i++) {
        int tag = npb ? i + 1 : TAG_ROW;
        int partner = rank ^ (1 << i);
        MPI_Request req;
        MPI_Irecv(tmp, n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &req);
        MPI_Send(buf, n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int j = 0; j < n; j++)
            buf[j] = 0.5 * (buf[j] + tmp[j]);
    }
}

/* NPB's sum across the row (-N): its own loop, steps counted down, step i tagged
 * i + 1 (NPB's conj_grad: do i = l2npcols, 1, -1). */
static __attribute__((noinline)) void row_sum_npb(double *buf, double *tmp, int n, int rank,
                                                  int l2npcols)
{
    for (int i = l2npcols - 1; i >= 0; i--) {
        int partner = rank ^ (1 << i);
        MPI_Request req;
        MPI_Irecv(tmp, n, MPI_DOUBLE, partner, i + 1, MPI_COMM_WORLD, &req);
        MPI_Send(buf, n, MPI_DOUBLE, partner, i + 1, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int j = 0; j < n; j++)
            buf[j] += tmp[j];
    }
}

/* NPB's exch_proc. */
static int transpose_partner(int rank, int nprows, int npcols)
{
    if (nprows == npcols)
        return (rank % nprows) * nprows + rank / nprows;
    return 2 * (((rank / 2) % nprows) * nprows + (rank / 2) / nprows) + rank % 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 256, .iters = 3};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS] [-N]", 1 << 20, &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    int k = 0;
    while ((1 << k) < nranks)
        k++;
    if ((1 << k) != nranks) {
        if (rank == 0)
            fprintf(stderr, "cg2d: %d ranks: need a power of two\n", nranks);
        MPI_Finalize();
        return 2;
    }
    int npcols = 1 << ((k + 1) / 2), nprows = nranks / npcols, l2npcols = (k + 1) / 2;
    int n = args.size, exch = transpose_partner(rank, nprows, npcols);
    double *w = ex_alloc((size_t)n), *q = ex_alloc((size_t)n), *in = ex_alloc((size_t)n);
    for (int j = 0; j < n; j++)
        w[j] = 1.0 / (1.0 + j + rank);
    double norm = 0.0;
    for (int it = 0; it < args.iters; it++) {
        MPI_Request req;
        if (args.npb_steps) /* the row's sum of w */
            row_sum_npb(w, in, n, rank, l2npcols);
        else
            row_reduce(w, in, n, rank, l2npcols, 0);
        MPI_Irecv(q, n, MPI_DOUBLE, exch, TAG_TRANSPOSE, MPI_COMM_WORLD, &req);
        MPI_Send(w, n, MPI_DOUBLE, exch, TAG_TRANSPOSE, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        double dot = 0.0, other = 0.0;
        for (int j = 0; j < n; j++)
            dot += w[j] * q[j];
        row_reduce(&dot, &other, 1, rank, l2npcols, args.npb_steps); /* the row's dot */
        for (int j = 0; j < n; j++)
            w[j] = q[j] / (1.0 + fabs(dot));
        MPI_Allreduce(&dot, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("cg2d ranks=%d grid=%dx%d size=%d iters=%d norm=%.9E\n", nranks, nprows, npcols,
               n, args.iters, norm);
    free(w);
    free(q);
    free(in);
    MPI_Finalize();
    return 0;
}
