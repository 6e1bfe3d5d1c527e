/* fft: the communication of a 2-D-decomposed FFT (a pencil transpose).
 *
 * The ranks form an R x C grid (MPI_Dims_create(ranks, 2): R = dims[0], C = dims[1]);
 * rank = row*C + col. MPI_Comm_split gives each rank its row communicator (C members,
 * colour = row, key = col) and its column communicator (R members, colour = col,
 * key = row). Each rank holds SIZE*R*C doubles. Per iteration it does a butterfly pass,
 * an MPI_Alltoall in its row (SIZE*R doubles to each member), a local reordering and a
 * butterfly pass, then an MPI_Alltoall in its column (SIZE*C doubles to each member).
 *
 * With -S (strong scaling) the total is fixed at SIZE*256 doubles, each rank holding
 * SIZE*256/ranks, so the per-peer blocks are SIZE*256/(ranks*C) and SIZE*256/(ranks*R):
 * the `volume/comm` law of docs/extrapolation.md (ranks must divide SIZE*256 evenly).
 *
 * With -V the collectives take their per-rank-count forms with equal counts, as codes
 * written for uneven decompositions call them: the seed comes by MPI_Scatterv, the
 * transposes are MPI_Alltoallv, and the checksum goes through MPI_Reduce_scatter (row),
 * MPI_Allgatherv (column) and MPI_Gatherv (to rank 0).
 *
 * With -B N (and -V) items are dealt out in blocks, the first N mod n of a
 * communicator's n members holding one more (the distribution of codes whose sizes need
 * not divide): rank 0 deals out N seeds over the world (MPI_Scatterv) and gathers them
 * back (MPI_Gatherv), each transpose moves N x (N+1) doubles from blocks of rows to
 * blocks of columns of its row or column, and the checksum's vector has N values:
 * MPI_Reduce_scatter gives each row member its block of the row's summed vector, and
 * MPI_Allgatherv gathers the column's blocks. With -R the last N mod n members hold
 * one more instead (2DECOMP&FFT's distribution). With -F members get blocks of
 * ceil(N/n) from the first on, the next the rest and any after it none (FFTW-MPI's default
 * block size, ScaLAPACK's block distribution).
 *
 * With -G the row and column communicators come from MPI_Comm_create with each
 * rank's row and column group (disjoint groups, MPI 2.2) instead of MPI_Comm_split,
 * and the first row alone (the other ranks get MPI_COMM_NULL) broadcasts the sum.
 *
 * usage: fft [-s SIZE] [-i ITERS] [-S] [-V] [-B N [-R|-F]] [-G]     (defaults 256, 10) */
#include <math.h>

#include "ex_common.h"

/* One radix-2 pass with fixed twiddles: the flops of an FFT stage, scaled so the
 * values stay bounded over many iterations. */
static void butterfly(double *a, size_t len, int stage)
{
    const double w = cos(0.1 * (stage + 1)), scale = 1.0 / sqrt(2.0);
    for (size_t i = 0; i + 1 < len; i += 2) {
        double x = a[i], y = a[i + 1] * w;
        a[i] = (x + y) * scale;
        a[i + 1] = (x - y) * scale;
    }
}

/* Local part of the transpose: the data moves in memory (here: reversed), as the
 * blocks of a real transpose are rearranged between the two Alltoall phases. */
static void reorder(const double *in, double *out, size_t len)
{
    for (size_t k = 0; k < len; k++)
        out[k] = in[len - 1 - k];
}

static int remainder_last; /* -R: 1, -F: 2 */

/* Items of member k when n items are dealt out over `members` in blocks, the
 * first n mod members one more (PETSc's split), with -R the last (2DECOMP&FFT's),
 * with -F blocks of ceil(n / members) (FFTW-MPI's). */
static int share(int n, int members, int k)
{
    return ex_share(n, members, k, remainder_last);
}

/* counts and displacements of n items dealt out over `members` */
static void block_counts(int n, int members, int *cnt, int *displ)
{
    for (int k = 0, at = 0; k < members; at += cnt[k], k++)
        cnt[k] = share(n, members, k), displ[k] = at;
}

/* The all-to-all of a transpose among n ranks of comm, blocks of `block` doubles:
 * MPI_Alltoall, or MPI_Alltoallv with equal counts when cnt is given; with `items`
 * (-B) the transpose of items x (items + 1) doubles held in blocks of rows and sent
 * in blocks of columns (cnt and displ then hold 2 n entries). */
static void transpose(double *a, double *b, int block, int n, MPI_Comm comm, int *cnt,
                      int *displ, int items)
{
    if (!cnt) {
        MPI_Alltoall(a, block, MPI_DOUBLE, b, block, MPI_DOUBLE, comm);
        return;
    }
    if (items) {
        int me, *rcnt = cnt + n, *rdispl = displ + n;
        MPI_Comm_rank(comm, &me);
        for (int k = 0, at = 0, rat = 0; k < n; k++) {
            cnt[k] = share(items, n, me) * share(items + 1, n, k), displ[k] = at;
            rcnt[k] = share(items, n, k) * share(items + 1, n, me), rdispl[k] = rat;
            at += cnt[k], rat += rcnt[k];
        }
        MPI_Alltoallv(a, cnt, displ, MPI_DOUBLE, b, rcnt, rdispl, MPI_DOUBLE, comm);
        return;
    }
    for (int k = 0; k < n; k++)
        cnt[k] = block, displ[k] = k * block;
    MPI_Alltoallv(a, cnt, displ, MPI_DOUBLE, b, cnt, displ, MPI_DOUBLE, comm);
}

/* The global sum of `local` on rank 0 by the per-rank-count collectives: each row
 * reduces a vector of one value per member and scatters it (Reduce_scatter), each
 * column gathers its members' values (Allgatherv), and rank 0 gathers every rank's
 * row-and-column partial (Gatherv). */
/* MPI_Comm_create over the world of the group {first + k * stride : k < n}. */
static MPI_Comm comm_of_stride(int first, int n, int stride)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{first, first + (n - 1) * stride, stride}};
    MPI_Group_range_incl(world, 1, range, &g);
    MPI_Comm c;
    MPI_Comm_create(MPI_COMM_WORLD, g, &c);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    return c;
}

/* -B: rank 0 deals out `items` seeds in blocks over the world (MPI_Scatterv) and
 * gathers them back (MPI_Gatherv, the non-roots passing only their own block);
 * returns the sum of the rank's block. */
static double block_seeds(int items, int rank, int nranks, int *cnt, int *displ)
{
    double *all = ex_alloc((size_t)items), *mine = ex_alloc((size_t)share(items, nranks, 0));
    for (int k = 0; k < items; k++)
        all[k] = 0.5 * (k + 1);
    block_counts(items, nranks, cnt, displ);
    int n = cnt[rank];
    MPI_Scatterv(all, cnt, displ, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(mine, n, MPI_DOUBLE, all, cnt, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += mine[k];
    free(all);
    free(mine);
    return sum;
}

/* vector_sum's row and column steps on a vector of `items` values dealt out in
 * blocks: the row's sum reduced and scattered, then the column's blocks gathered. */
static double block_sum(double local, int items, int row, int col, int nrows, int ncols,
                        MPI_Comm row_comm, MPI_Comm col_comm)
{
    int n = nrows > ncols ? nrows : ncols;
    double *v = ex_alloc((size_t)items), *mine = ex_alloc((size_t)share(items, ncols, 0));
    int *c2 = calloc((size_t)n, sizeof *c2), *d2 = calloc((size_t)n, sizeof *d2);
    if (!c2 || !d2)
        MPI_Abort(MPI_COMM_WORLD, 1);
    v[0] = local;
    block_counts(items, ncols, c2, d2);
    MPI_Reduce_scatter(v, mine, c2, MPI_DOUBLE, MPI_SUM, row_comm);
    double part = 0.0; /* the row's sum sits in the block of member 0 */
    for (int k = 0; k < c2[col]; k++)
        part += mine[k];
    block_counts(items, nrows, c2, d2);
    for (int k = 0; k < items; k++)
        v[k] = 0.0;
    double *send = ex_alloc((size_t)share(items, nrows, 0));
    send[0] = part;
    MPI_Allgatherv(send, c2[row], MPI_DOUBLE, v, c2, d2, MPI_DOUBLE, col_comm);
    double col_sum = 0.0;
    for (int k = 0; k < items; k++)
        col_sum += v[k];
    free(send), free(mine), free(v), free(c2), free(d2);
    return col_sum;
}

static double vector_sum(double local, int nranks, int nrows, int ncols, MPI_Comm row_comm,
                         MPI_Comm col_comm, int *cnt, int *displ, int items)
{
    if (items) { /* blocks with a remainder instead of one value per member */
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        double col = block_sum(local, items, rank / ncols, rank % ncols, nrows, ncols,
                               row_comm, col_comm);
        double *w = ex_alloc((size_t)nranks), sum = 0.0;
        for (int k = 0; k < nranks; k++)
            cnt[k] = 1, displ[k] = k;
        MPI_Gatherv(&col, 1, MPI_DOUBLE, w, cnt, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int k = 0; k < nranks; k++)
            sum += w[k];
        free(w);
        return sum / nrows;
    }
    double *v = ex_alloc((size_t)(nranks > ncols ? nranks : ncols)), mine = 0.0;
    for (int k = 0; k < ncols; k++)
        v[k] = k == 0 ? local : 0.0, cnt[k] = 1;
    /* member 0 of each row's reduced slot holds the row's sum */
    MPI_Reduce_scatter(v, &mine, cnt, MPI_DOUBLE, MPI_SUM, row_comm);
    for (int k = 0; k < nrows; k++)
        cnt[k] = 1, displ[k] = k;
    MPI_Allgatherv(&mine, 1, MPI_DOUBLE, v, cnt, displ, MPI_DOUBLE, col_comm);
    double col = 0.0;
    for (int k = 0; k < nrows; k++)
        col += v[k];
    for (int k = 0; k < nranks; k++)
        cnt[k] = 1, displ[k] = k;
    MPI_Gatherv(&col, 1, MPI_DOUBLE, v, cnt, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double sum = 0.0;
    for (int k = 0; k < nranks; k++)
        sum += v[k];
    free(v);
    return sum / nrows; /* the nrows ranks of column 0 each hold the total */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 256, .iters = 10};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS] [-S] [-V] [-B N [-R|-F]] [-G]", 1 << 20,
                      &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    remainder_last = args.last;
    int dims[2] = {0, 0};
    MPI_Dims_create(nranks, 2, dims);
    int nrows = dims[0], ncols = dims[1];
    int row = rank / ncols, col = rank % ncols;
    MPI_Comm row_comm, col_comm;
    if (args.groups) { /* the same communicators, from groups (disjoint, MPI 2.2) */
        row_comm = comm_of_stride(row * ncols, ncols, 1);
        col_comm = comm_of_stride(col, nrows, ncols);
    } else {
        MPI_Comm_split(MPI_COMM_WORLD, row, col, &row_comm);
        MPI_Comm_split(MPI_COMM_WORLD, col, row, &col_comm);
    }

    int m = args.size;
    size_t len = (size_t)m * nranks;
    int brow = m * nrows, bcol = m * ncols; /* per-peer blocks of the two transposes */
    if (args.strong) {
        long total = (long)m * 256;
        if (total % ((long)nranks * ncols) || total % ((long)nranks * nrows)) {
            if (rank == 0)
                fprintf(stderr, "fft -S: %d ranks do not divide %ld doubles evenly\n", nranks, total);
            MPI_Finalize();
            return 2;
        }
        len = (size_t)(total / nranks);
        brow = (int)(len / (size_t)ncols), bcol = (int)(len / (size_t)nrows);
    }
    if (args.items) /* room for the largest block of rows of the -B transposes */
        len += (size_t)(args.items + 1) * (size_t)(args.items + 1);
    double *a = ex_alloc(len), *b = ex_alloc(len);
    double seed = rank + 1;
    int *cnt = NULL, *displ = NULL;
    if (args.vector) {
        int n = nranks > 0 ? nranks : 1;
        cnt = calloc(2 * (size_t)n, sizeof *cnt);
        displ = calloc(2 * (size_t)n, sizeof *displ);
        double *seeds = ex_alloc((size_t)n);
        if (!cnt || !displ)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int k = 0; k < nranks; k++) {
            cnt[k] = 1, displ[k] = k;
            seeds[k] = k + 1;
        }
        MPI_Scatterv(seeds, cnt, displ, MPI_DOUBLE, &seed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        free(seeds);
        if (args.items)
            seed += block_seeds(args.items, rank, nranks, cnt, displ);
    }
    for (size_t k = 0; k < len; k++)
        a[k] = sin(0.001 * (double)(k + 1) * seed);

    for (int it = 0; it < args.iters; it++) {
        butterfly(a, len, 0);
        transpose(a, b, brow, ncols, row_comm, cnt, displ, args.items);
        reorder(b, a, len);
        butterfly(a, len, 1);
        transpose(a, b, bcol, nrows, col_comm, cnt, displ, args.items);
        reorder(b, a, len);
    }

    double local = 0.0, sum = 0.0;
    for (size_t k = 0; k < len; k++)
        local += fabs(a[k]);
    if (args.vector)
        sum = vector_sum(local, nranks, nrows, ncols, row_comm, col_comm, cnt, displ,
                         args.items);
    else
        MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (args.groups) { /* row 0 alone (the others get MPI_COMM_NULL) agrees on the sum */
        MPI_Comm first_row = comm_of_stride(0, ncols, 1);
        if (first_row != MPI_COMM_NULL) {
            MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, first_row);
            MPI_Comm_free(&first_row);
        }
    }
    free(cnt);
    free(displ);
    if (rank == 0)
        printf("fft ranks=%d grid=%dx%d size=%d iters=%d checksum=%.12E\n", nranks, nrows,
               ncols, m, args.iters, sum);
    MPI_Comm_free(&row_comm);
    MPI_Comm_free(&col_comm);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
