/* wavefront: the pipelined sweeps of an LU-like solver (NPB LU's SSOR, issue 20) on a
 * 2-D process grid.
 *
 * The ranks form an R x C grid (MPI_Dims_create(P, 2), non-periodic MPI_Cart_create).
 * Each rank owns SIZE x SIZE cells. Per iteration, a lower sweep runs from the
 * north-west corner to the south-east one: for each of SIZE/BLOCK column blocks a rank
 * receives BLOCK boundary values from its north and from its west neighbour (when it
 * has them), updates the block, and sends its south and east boundary to those
 * neighbours (when it has them); so the ranks of one anti-diagonal work together and a
 * wave crosses the grid. An upper sweep then runs back from the south-east corner. A
 * residual MPI_Allreduce ends the iteration. As in NPB LU, a rank at a border does not
 * call MPI at all for the neighbour it lacks: the number of calls depends on where the
 * rank sits on the grid (corner, edge, interior).
 *
 * usage: wavefront [-s SIZE] [-i ITERS]     (defaults 64, 3; SIZE a multiple of 8) */
#include "ex_common.h"

enum { BLOCK = 8, TAG_LOWER = 11, TAG_UPPER = 12 };

/* One block's update: a Gauss-Seidel-like pass reading the boundary just received. */
static void update(double *u, int n, int col0, const double *in_a, const double *in_b,
                   int forward)
{
    for (int j = 0; j < BLOCK; j++) {
        int c = forward ? col0 + j : col0 + BLOCK - 1 - j;
        for (int i = 0; i < n; i++) {
            int r = forward ? i : n - 1 - i;
            double w = 0.25 * (in_a[j] + in_b[i % BLOCK]);
            u[(long)r * n + c] = 0.5 * u[(long)r * n + c] + 0.1 * w + 1e-3;
        }
    }
}

/* One sweep: receive from `up_a` and `up_b` (the neighbours the wave comes from),
 * update, send to `down_a` and `down_b`; MPI_PROC_NULL neighbours get no call. */
static void sweep(double *u, int n, int forward, int up_a, int up_b, int down_a, int down_b,
                  MPI_Comm cart)
{
    double in_a[BLOCK], in_b[BLOCK], out[BLOCK];
    int tag = forward ? TAG_LOWER : TAG_UPPER;
    for (int blk = 0; blk < n / BLOCK; blk++) {
        for (int k = 0; k < BLOCK; k++)
            in_a[k] = in_b[k] = 0.0;
        if (up_a != MPI_PROC_NULL)
            MPI_Recv(in_a, BLOCK, MPI_DOUBLE, up_a, tag, cart, MPI_STATUS_IGNORE);
        if (up_b != MPI_PROC_NULL)
            MPI_Recv(in_b, BLOCK, MPI_DOUBLE, up_b, tag, cart, MPI_STATUS_IGNORE);
        int col0 = forward ? blk * BLOCK : n - (blk + 1) * BLOCK;
        update(u, n, col0, in_a, in_b, forward);
        for (int k = 0; k < BLOCK; k++)
            out[k] = u[(long)(forward ? n - 1 : 0) * n + col0 + k];
        if (down_a != MPI_PROC_NULL)
            MPI_Send(out, BLOCK, MPI_DOUBLE, down_a, tag, cart);
        if (down_b != MPI_PROC_NULL)
            MPI_Send(out, BLOCK, MPI_DOUBLE, down_b, tag, cart);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 64, .iters = 3};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS]", 1 << 14, &args) != 0 ||
        args.size % BLOCK) {
        if (rank == 0 && args.size % BLOCK)
            fprintf(stderr, "wavefront: SIZE must be a multiple of %d\n", BLOCK);
        MPI_Finalize();
        return 2;
    }
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Dims_create(nranks, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int north, south, west, east;
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);
    int n = args.size;
    double *u = ex_alloc((size_t)n * (size_t)n);
    double res = 0.0;
    for (int it = 0; it < args.iters; it++) {
        sweep(u, n, 1, north, west, south, east, cart);  /* lower: NW -> SE */
        sweep(u, n, 0, south, east, north, west, cart);  /* upper: SE -> NW */
        double local = 0.0;
        for (long k = 0; k < (long)n * n; k++)
            local += u[k] * u[k];
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, cart);
    }
    if (rank == 0)
        printf("wavefront ranks=%d grid=%dx%d size=%d iters=%d residual=%.9E\n", nranks,
               dims[0], dims[1], n, args.iters, res);
    MPI_Comm_free(&cart);
    free(u);
    MPI_Finalize();
    return 0;
}
