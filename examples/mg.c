/* mg: the communication of a multigrid V-cycle on a 2-D periodic process grid
 * (issue 20: the NPB MG shape).
 *
 * The ranks form MPI_Dims_create(P, 2) = R x C (MPI_Cart_create, periodic); each
 * holds a SIZE x SIZE block (weak scaling; SIZE a power of two). Per iteration:
 *   - down the V over the local levels l = 0 .. L-1 (L = log2 SIZE): a smoothing step
 *     exchanges one face of SIZE / 2^l doubles with each of the 4 grid neighbours
 *     (MPI_Sendrecv, tag l), the faces halving from level to level;
 *   - with -c, the coarse levels below them, on fewer ranks: at coarse level j
 *     (j = 1 .. log2 min(R, C), as long as 2^j divides R and C) only the ranks whose grid coordinates are both
 *     multiples of 2^j are active, and they exchange one double with the active
 *     neighbours 2^j away along each dimension; the other ranks wait (nothing to
 *     trace); the number of coarse levels and the set of active ranks change with P;
 *   - up the V: the local levels again, L-1 down to 0 (faces doubling);
 *   - one MPI_Allreduce of the residual (1 double).
 *
 * usage: mg [-s SIZE] [-i ITERS] [-c]     (defaults 16, 2) */
#include "ex_common.h"

enum { TAG_COARSE = 100 };

/* One smoothing step's face exchange of n doubles with the 4 neighbours. */
static void exchange(MPI_Comm cart, double *out, double *in, int n, int tag)
{
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        MPI_Cart_shift(cart, d, 1, &lo, &hi);
        MPI_Sendrecv(out, n, MPI_DOUBLE, hi, tag, in, n, MPI_DOUBLE, lo, tag, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, n, MPI_DOUBLE, lo, tag, in, n, MPI_DOUBLE, hi, tag, cart,
                     MPI_STATUS_IGNORE);
        for (int k = 0; k < n; k++)
            out[k] = 0.5 * (out[k] + in[k]);
    }
}

/* Coarse level j: the active ranks (coordinates multiples of 2^j) exchange one
 * double with the active neighbours 2^j away. */
static void coarse(MPI_Comm cart, const int *coords, double *v, int j)
{
    int step = 1 << j;
    if (coords[0] % step || coords[1] % step)
        return;
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        double in = 0.0;
        MPI_Cart_shift(cart, d, step, &lo, &hi);
        MPI_Sendrecv(v, 1, MPI_DOUBLE, hi, TAG_COARSE + j, &in, 1, MPI_DOUBLE, lo,
                     TAG_COARSE + j, cart, MPI_STATUS_IGNORE);
        v[0] = 0.5 * (v[0] + in);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 16, .iters = 2};
    int coarse_levels = 0;
    for (int i = 1; i < argc; i++) /* -c is this program's own */
        if (strcmp(argv[i], "-c") == 0) {
            coarse_levels = 1;
            for (int j = i; j + 1 < argc; j++)
                argv[j] = argv[j + 1];
            argc--;
            i--;
        }
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS] [-c]", 1 << 16, &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    if (args.size & (args.size - 1)) {
        if (rank == 0)
            fprintf(stderr, "mg: SIZE %d: need a power of two\n", args.size);
        MPI_Finalize();
        return 2;
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    MPI_Dims_create(nranks, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 2, coords);
    int levels = 0, clevels = 0;
    while ((1 << (levels + 1)) <= args.size)
        levels++;
    /* level j while 2^j divides both sides, so that the partner 2^j away (past
     * the wrap) is active too: log2 min(R, C) levels when both are powers of two */
    while (coarse_levels && (2 << clevels) <= (dims[0] < dims[1] ? dims[0] : dims[1]) &&
           dims[0] % (2 << clevels) == 0 && dims[1] % (2 << clevels) == 0)
        clevels++;
    double *out = ex_alloc((size_t)args.size), *in = ex_alloc((size_t)args.size);
    double res = 0.0;
    for (int it = 0; it < args.iters; it++) {
        for (int l = 0; l < levels; l++) /* down the V: faces halving */
            exchange(cart, out, in, args.size >> l, l);
        for (int j = 1; j <= clevels; j++) /* coarse levels on fewer ranks */
            coarse(cart, coords, out, j);
        for (int l = levels - 1; l >= 0; l--) /* up the V: faces doubling */
            exchange(cart, out, in, args.size >> l, l);
        double local = out[0];
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, cart);
    }
    if (rank == 0)
        printf("mg ranks=%d grid=%dx%d size=%d levels=%d coarse=%d iters=%d res=%.9E\n",
               nranks, dims[0], dims[1], args.size, levels, clevels, args.iters, res);
    free(out);
    free(in);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
