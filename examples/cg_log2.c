/* cg_log2: a CG-shaped loop whose exchange is repeated log2(P) times inside
 * every iteration (the shape of NPB CG's reduction exchange, issue 20).
 *
 * Each of ITERS iterations: a local sweep over SIZE doubles, then log2(P)
 * exchange steps with the ring neighbours (MPI_Irecv from rank-1, MPI_Send to
 * rank+1, MPI_Wait: one Irecv per step), then one MPI_Allreduce of a double
 * (the dot product). The partners are ring neighbours rather than NPB's
 * rank XOR 2^k so that every step is the same event: the repetition count is
 * the only thing that changes with P. One Allreduce before the loop. P must
 * be a power of two (at least 4: on 2 ranks the left and right neighbours are
 * the same rank).
 *
 * With -x the partner of step k is rank XOR 2^k, as in NPB CG's reduction
 * exchange (and a hand-written recursive doubling): step k receives from and
 * sends to that rank, so the partner changes from step to step.
 *
 * With -H step k exchanges SIZE / 2^(k+1) doubles instead of one (recursive
 * halving: the sizes halve from step to step; SIZE a multiple of P).
 *
 * usage: cg_log2 [-s SIZE] [-i ITERS] [-x] [-H]     (defaults 64, 2) */
#include "ex_common.h"

enum { TAG_STEP = 7 };

static double sweep(double *v, int n, double shift)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        v[k] = 0.5 * v[k] + shift;
        s += v[k] * v[k];
    }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 64, .iters = 2};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS] [-x] [-H]", 1 << 20, &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    int steps = 0;
    while ((1 << steps) < nranks)
        steps++;
    if ((1 << steps) != nranks) {
        if (rank == 0)
            fprintf(stderr, "cg_log2: %d ranks: need a power of two\n", nranks);
        MPI_Finalize();
        return 2;
    }
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    double *v = ex_alloc((size_t)args.size), *in = ex_alloc((size_t)args.size);
    double local = sweep(v, args.size, 1.0), dot = 0.0;
    MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int it = 0; it < args.iters; it++) {
        local = sweep(v, args.size, dot / nranks);
        for (int k = 0; k < steps; k++) { /* log2(P) exchange steps */
            MPI_Request req;
            int from = args.xor_partners ? rank ^ (1 << k) : left;
            int to = args.xor_partners ? rank ^ (1 << k) : right;
            int n = args.halving ? args.size >> (k + 1) : 1;
            double *out = args.halving ? v : &local;
            MPI_Irecv(in, n, MPI_DOUBLE, from, TAG_STEP, MPI_COMM_WORLD, &req);
            MPI_Send(out, n, MPI_DOUBLE, to, TAG_STEP, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            local = 0.5 * (local + in[0]);
        }
        MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("cg_log2 ranks=%d size=%d iters=%d steps=%d dot=%.6E\n", nranks, args.size,
               args.iters, steps, dot);
    free(v);
    free(in);
    MPI_Finalize();
    return 0;
}
