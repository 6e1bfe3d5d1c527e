/* An EP-like program for the extrapolation tests: every rank computes, then
 * joins an MPI_Allreduce of one double, ITERS times (SCAMP's NPB-EP pattern:
 * all ranks alike). usage: test_extrap_allreduce_loop [ITERS] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, iters = argc > 1 ? atoi(argv[1]) : 4;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double acc = 0.0, sum = 0.0;
    for (int it = 0; it < iters; it++) {
        for (int k = 1; k <= 20000; k++)
            acc += sin(k * 1e-3 * (rank + 1)) / k;
        MPI_Allreduce(&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        acc = sum * 1e-3;
    }
    if (rank == 0)
        printf("allreduce_loop iters=%d sum=%.6e\n", iters, sum);
    MPI_Finalize();
    return 0;
}
