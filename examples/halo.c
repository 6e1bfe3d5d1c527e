/* halo1d / halo2d / halo3d: Jacobi sweeps on an NDIMS-dimensional grid split over a
 * Cartesian process grid (this one source is compiled with -DNDIMS=1, 2 and 3).
 *
 * Each rank owns SIZE^NDIMS cells plus one ghost layer. Per iteration it exchanges
 * the 2*NDIMS faces (SIZE^(NDIMS-1) doubles each) with its Cartesian neighbours,
 * does one Jacobi sweep and sums the squared update with MPI_Allreduce. The grid is
 * non-periodic by default: at the borders MPI_Cart_shift gives MPI_PROC_NULL and the
 * calls are made all the same, so every rank makes the same number of calls.
 *
 * usage: haloNd [-s SIZE] [-i ITERS] [-p] [-b] [-S [-R|-F]]
 *   -p  periodic grid; -b  Irecv/Isend/Waitall instead of Sendrecv
 *   -S  strong scaling: SIZE cells along each dimension in all, dealt out in blocks
 *       over the process grid (the first SIZE mod n coordinates one cell more), so
 *       faces differ between ranks where the grid does not divide SIZE; with -R the
 *       last SIZE mod n, with -F blocks of ceil(SIZE/n) (the last coordinates may
 *       hold no cell: their faces are empty)
 *
 * halo1d_f.f90 is the Fortran twin of halo1d: keep both in step. */
#include "ex_common.h"

#ifndef NDIMS
#define NDIMS 2
#endif
#define NFACES (2 * NDIMS)

/* Source term of the Poisson problem the sweeps approach. */
#define SOURCE 1.0e-3

typedef struct {
    int n[NDIMS];         /* interior cells along each dimension */
    long stride[NDIMS];   /* index step of one cell along each dimension, ghosts included */
    long cells;           /* product of (n+2), ghosts included */
    long interior;        /* product of n */
    long face[NDIMS];     /* doubles in a face across each dimension */
} grid;

static grid make_grid(const int *n)
{
    grid g = {.cells = 1, .interior = 1};
    for (int d = NDIMS - 1; d >= 0; d--) {
        g.n[d] = n[d];
        g.stride[d] = g.cells;
        g.cells *= n[d] + 2;
        g.interior *= n[d];
    }
    for (int d = 0; d < NDIMS; d++) { /* not interior / n[d]: -F blocks may be empty */
        g.face[d] = 1;
        for (int e = 0; e < NDIMS; e++)
            g.face[d] *= e == d ? 1 : n[e];
    }
    return g;
}

/* Index of the k-th cell (row-major over the other dimensions, interior only) of the
 * layer `layer` (0 and n+1 are ghosts) across dimension d. */
static long face_index(const grid *g, int d, int layer, long k)
{
    long idx = layer * g->stride[d];
    for (int e = NDIMS - 1; e >= 0; e--) {
        if (e == d)
            continue;
        idx += (1 + k % g->n[e]) * g->stride[e];
        k /= g->n[e];
    }
    return idx;
}

/* Index of the k-th interior cell, row-major. */
static long interior_index(const grid *g, long k)
{
    long idx = 0;
    for (int e = NDIMS - 1; e >= 0; e--) {
        idx += (1 + k % g->n[e]) * g->stride[e];
        k /= g->n[e];
    }
    return idx;
}

static void pack(const grid *g, const double *u, int d, int layer, double *buf)
{
    for (long k = 0; k < g->face[d]; k++)
        buf[k] = u[face_index(g, d, layer, k)];
}

static void unpack(const grid *g, double *u, int d, int layer, const double *buf)
{
    for (long k = 0; k < g->face[d]; k++)
        u[face_index(g, d, layer, k)] = buf[k];
}

typedef struct {
    MPI_Comm cart;
    int lo[NDIMS], hi[NDIMS];   /* neighbours below/above along each dimension */
    double *send[NFACES], *recv[NFACES];
} exchange;

/* Face f = 2d carries data upwards along d (sent to hi, received from lo) with tag 2d;
 * face 2d+1 carries it downwards with tag 2d+1. Distinct tags keep the two directions
 * apart when lo == hi (two ranks on a periodic dimension). */
static void exchange_blocking(const grid *g, double *u, exchange *x)
{
    for (int d = 0; d < NDIMS; d++) {
        pack(g, u, d, g->n[d], x->send[2 * d]);
        MPI_Sendrecv(x->send[2 * d], (int)g->face[d], MPI_DOUBLE, x->hi[d], 2 * d,
                     x->recv[2 * d], (int)g->face[d], MPI_DOUBLE, x->lo[d], 2 * d,
                     x->cart, MPI_STATUS_IGNORE);
        pack(g, u, d, 1, x->send[2 * d + 1]);
        MPI_Sendrecv(x->send[2 * d + 1], (int)g->face[d], MPI_DOUBLE, x->lo[d], 2 * d + 1,
                     x->recv[2 * d + 1], (int)g->face[d], MPI_DOUBLE, x->hi[d], 2 * d + 1,
                     x->cart, MPI_STATUS_IGNORE);
    }
}

static void exchange_nonblocking(const grid *g, double *u, exchange *x)
{
    MPI_Request req[2 * NFACES];
    for (int d = 0; d < NDIMS; d++) {
        MPI_Irecv(x->recv[2 * d], (int)g->face[d], MPI_DOUBLE, x->lo[d], 2 * d, x->cart,
                  &req[2 * d]);
        MPI_Irecv(x->recv[2 * d + 1], (int)g->face[d], MPI_DOUBLE, x->hi[d], 2 * d + 1,
                  x->cart, &req[2 * d + 1]);
    }
    for (int d = 0; d < NDIMS; d++) {
        pack(g, u, d, g->n[d], x->send[2 * d]);
        pack(g, u, d, 1, x->send[2 * d + 1]);
        MPI_Isend(x->send[2 * d], (int)g->face[d], MPI_DOUBLE, x->hi[d], 2 * d, x->cart,
                  &req[NFACES + 2 * d]);
        MPI_Isend(x->send[2 * d + 1], (int)g->face[d], MPI_DOUBLE, x->lo[d], 2 * d + 1,
                  x->cart, &req[NFACES + 2 * d + 1]);
    }
    /* A real status array, not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's
     * (MPI_Status *)1 (-Wstringop-overflow). */
    MPI_Status st[2 * NFACES];
    MPI_Waitall(2 * NFACES, req, st);
}

/* Ghosts at a non-periodic border are never written: they stay 0 (Dirichlet). */
static void unpack_ghosts(const grid *g, double *u, const exchange *x)
{
    for (int d = 0; d < NDIMS; d++) {
        if (x->lo[d] != MPI_PROC_NULL)
            unpack(g, u, d, 0, x->recv[2 * d]);
        if (x->hi[d] != MPI_PROC_NULL)
            unpack(g, u, d, g->n[d] + 1, x->recv[2 * d + 1]);
    }
}

/* One Jacobi sweep from u into unew; returns the local sum of squared updates. */
static double sweep(const grid *g, const double *u, double *unew)
{
    double res = 0.0;
    for (long k = 0; k < g->interior; k++) {
        long c = interior_index(g, k);
        double acc = SOURCE;
        for (int d = 0; d < NDIMS; d++) {
            acc = acc + u[c - g->stride[d]];
            acc = acc + u[c + g->stride[d]];
        }
        unew[c] = acc / NFACES;
        double diff = unew[c] - u[c];
        res = res + diff * diff;
    }
    return res;
}

int main(int argc, char **argv)
{
    static const int max_size[3] = {1 << 24, 4096, 256};
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = NDIMS == 1 ? 4096 : NDIMS == 2 ? 64 : 16, .iters = 20};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS] [-p] [-b] [-S [-R|-F]]",
                      max_size[NDIMS - 1], &args) != 0) {
        MPI_Finalize();
        return 2;
    }

    int dims[NDIMS] = {0}, periods[NDIMS];
    for (int d = 0; d < NDIMS; d++)
        periods[d] = args.periodic;
    MPI_Dims_create(nranks, NDIMS, dims);
    exchange x;
    /* reorder = 0: Cartesian ranks are world ranks, so the peers are predictable. */
    MPI_Cart_create(MPI_COMM_WORLD, NDIMS, dims, periods, 0, &x.cart);
    for (int d = 0; d < NDIMS; d++)
        MPI_Cart_shift(x.cart, d, 1, &x.lo[d], &x.hi[d]);

    /* -S: the rank's block of the SIZE cells along each dimension */
    int n[NDIMS], coords[NDIMS];
    MPI_Cart_coords(x.cart, rank, NDIMS, coords);
    for (int d = 0; d < NDIMS; d++) {
        n[d] = args.size;
        if (args.strong && args.size < dims[d]) {
            if (rank == 0)
                fprintf(stderr, "%s: -S -s %d: fewer cells than the %d ranks along dimension "
                        "%d\n", argv[0], args.size, dims[d], d);
            MPI_Finalize();
            return 2;
        }
        if (args.strong)
            n[d] = ex_share(args.size, dims[d], coords[d], args.last);
    }
    grid g = make_grid(n);
    double *u = ex_alloc((size_t)g.cells), *unew = ex_alloc((size_t)g.cells);
    for (int f = 0; f < NFACES; f++) {
        x.send[f] = ex_alloc((size_t)g.face[f / 2]);
        x.recv[f] = ex_alloc((size_t)g.face[f / 2]);
    }

    double residual = 0.0;
    for (int it = 0; it < args.iters; it++) {
        if (args.nonblocking)
            exchange_nonblocking(&g, u, &x);
        else
            exchange_blocking(&g, u, &x);
        unpack_ghosts(&g, u, &x);
        double local = sweep(&g, u, unew);
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, x.cart);
        double *t = u;
        u = unew;
        unew = t;
    }

    double local_sum = 0.0, sum = 0.0;
    for (long k = 0; k < g.interior; k++)
        local_sum = local_sum + u[interior_index(&g, k)];
    MPI_Reduce(&local_sum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, x.cart);
    if (rank == 0)
        printf("halo%dd ranks=%d size=%d iters=%d checksum=%.12E residual=%.12E\n", NDIMS,
               nranks, args.size, args.iters, sum, residual);

    MPI_Comm_free(&x.cart);
    for (int f = 0; f < NFACES; f++) {
        free(x.send[f]);
        free(x.recv[f]);
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
