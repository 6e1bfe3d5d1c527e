/* A traced program that dies (tests/test_trace_safety_kill.sh,
 * tests/test_trace_safety_memory.sh). Each round is a ring Sendrecv and an
 * Allreduce on MPI_COMM_WORLD.
 *
 *   trace_victim run READY           rounds until killed; rank 0 creates the
 *                                    file READY after 200 rounds
 *   trace_victim segv ROUNDS RANK    rank RANK writes through a null pointer
 *                                    after ROUNDS rounds (a real SIGSEGV)
 *   trace_victim raise ROUNDS RANK   rank RANK raises SIGTERM after ROUNDS rounds
 *   trace_victim abort ROUNDS RANK   rank RANK calls MPI_Abort(3) after ROUNDS rounds
 *   trace_victim count ROUNDS [STATUS [rss]]
 *                                    ROUNDS rounds, then MPI_Finalize; rank 0
 *                                    prints "done ROUNDS" (and with rss its peak
 *                                    resident size, maxrss_kb N); exit STATUS */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int rank, size;

static void round_trip(void)
{
    int a = rank, b = 0;
    MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % size, 1, &b, 1, MPI_INT, (rank + size - 1) % size,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "run";
    long rounds = argc > 2 ? atol(argv[2]) : 0;
    int victim = argc > 3 ? atoi(argv[3]) : 0;
    if (strcmp(mode, "run") == 0) {
        for (long it = 0;; it++) {
            round_trip();
            if (it == 200 && rank == 0 && argc > 2) {
                FILE *fp = fopen(argv[2], "w");
                if (fp)
                    fclose(fp);
            }
        }
    }
    for (long it = 0; it < rounds; it++)
        round_trip();
    if (rank == victim && strcmp(mode, "segv") == 0) {
        volatile int *volatile p = NULL;
        *p = 1;
    }
    if (rank == victim && strcmp(mode, "raise") == 0)
        raise(SIGTERM);
    if (rank == victim && strcmp(mode, "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(mode, "count") != 0) /* the others wait for the victim: killed */
        round_trip();
    /* Print before MPI_Finalize and flush: Open MPI's mpirun may drop output
     * written after Finalize by a job that exits with a non-zero status. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (rank == 0)
        printf("done %ld\n", rounds);
    if (rank == 0 && argc > 4 && strcmp(argv[4], "rss") == 0)
        printf("maxrss_kb %ld\n", ru.ru_maxrss);
    fflush(stdout);
    MPI_Finalize();
    return strcmp(mode, "count") == 0 ? victim : 0;
}
