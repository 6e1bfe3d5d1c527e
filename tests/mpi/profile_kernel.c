/* Synthetic kernels with known working sets for the CPU-profile tests: each
 * sweeps an array of doubles REPS times between two barriers (one block
 * each): 28 KiB and 36 KiB (just below and just above a 32 KiB cache) and
 * 256 KiB. Each kernel is its own function so that cachegrind's
 * per-function counts separate them.
 *
 * usage: profile_kernel REPS [exit|hang]
 *   exit: rank 0 exits with status 3 after the first kernel (no Finalize)
 *   hang: rank 0 sleeps 600 s after the first kernel (to be killed) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KIB 1024
static double arr[256 * KIB / sizeof(double)];

#define SWEEP(name, bytes)                                                     \
    __attribute__((noinline)) static double name(int reps)                     \
    {                                                                          \
        double s = 0;                                                          \
        for (int r = 0; r < reps; r++)                                         \
            for (size_t i = 0; i < (bytes) / sizeof(double); i++)              \
                s += arr[i];                                                   \
        return s;                                                              \
    }
SWEEP(sweep_28k, 28 * KIB)
SWEEP(sweep_36k, 36 * KIB)
SWEEP(sweep_256k, 256 * KIB)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = argc > 1 ? atoi(argv[1]) : 10, rank;
    const char *fail = argc > 2 ? argv[2] : "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        arr[i] = (double)(i % 7);
    double s = 0;
    MPI_Barrier(MPI_COMM_WORLD); /* K28 */
    s += sweep_28k(reps);
    MPI_Barrier(MPI_COMM_WORLD); /* K36 */
    if (rank == 0 && strcmp(fail, "exit") == 0)
        exit(3);
    if (rank == 0 && strcmp(fail, "hang") == 0)
        sleep(600);
    s += sweep_36k(reps);
    MPI_Barrier(MPI_COMM_WORLD); /* K256 */
    s += sweep_256k(reps);
    MPI_Barrier(MPI_COMM_WORLD); /* END */
    if (rank == 0)
        printf("profile_kernel reps=%d sum=%g\n", reps, s);
    MPI_Finalize();
    return 0;
}
