/* ring: a token of SIZE doubles travels ITERS times around the ring of ranks.
 *
 * Rank 0 starts each round with MPI_Send to rank 1 and ends it with MPI_Recv from the
 * last rank; every other rank receives from its left neighbour, works on the token and
 * sends it to its right neighbour. With one rank the ring has no edge: the token is
 * worked on locally and no message is sent.
 *
 * usage: ring [-s SIZE] [-i ITERS]     (defaults 1024 doubles, 20 rounds) */
#include <math.h>

#include "ex_common.h"

enum { TOKEN_TAG = 7 };

/* The compute burst of one hop: a few flops per element (kept because the token is
 * the program's result); the values stay bounded, tending to sqrt(2 * (rank + 1)). */
static void work_on_token(double *token, int n, int rank)
{
    for (int i = 0; i < n; i++)
        token[i] = sqrt(0.5 * token[i] * token[i] + (double)(rank + 1));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 1024, .iters = 20};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS]", 1 << 24, &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    int n = args.size;
    double *token = ex_alloc((size_t)n);
    for (int i = 0; i < n; i++)
        token[i] = (double)i / n;
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;

    for (int it = 0; it < args.iters; it++) {
        if (nranks == 1) {
            work_on_token(token, n, rank);
        } else if (rank == 0) {
            work_on_token(token, n, rank);
            MPI_Send(token, n, MPI_DOUBLE, right, TOKEN_TAG, MPI_COMM_WORLD);
            MPI_Recv(token, n, MPI_DOUBLE, left, TOKEN_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(token, n, MPI_DOUBLE, left, TOKEN_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            work_on_token(token, n, rank);
            MPI_Send(token, n, MPI_DOUBLE, right, TOKEN_TAG, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            sum += token[i];
        printf("ring ranks=%d size=%d iters=%d checksum=%.12E\n", nranks, n, args.iters, sum);
    }
    free(token);
    MPI_Finalize();
    return 0;
}
