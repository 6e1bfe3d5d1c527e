/* Tracer overhead benchmark (run by bench/tracer_overhead.sh, with and
 * without the tracer preloaded): a tight loop of Isend/Irecv/Waitall of 8
 * bytes between two ranks; prints the median time per MPI call over
 * repetitions. Usage: mpirun -np 2 bench_tracer_loop [iterations] [reps]
 * With 1 rank the loop sends to itself: no waiting for a second process, so
 * the tracer's own cost shows without the scheduling noise of a loaded
 * machine (and callgrind can count its instructions). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* This thread's CPU time: unlike the wall clock it does not count the time
 * the rank was descheduled, so on a loaded machine it shows the tracer's
 * own cost better (at 2 ranks it still counts the polling for a late peer). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int reps = argc > 2 ? atoi(argv[2]) : 11;
    if (size > 2) {
        if (rank == 0)
            fprintf(stderr, "bench_tracer_loop: run with 1 or 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = size - 1 - rank; /* 1 rank: itself */
    char sbuf[8] = {0}, rbuf[8];
    double *per_call = malloc((size_t)reps * sizeof *per_call);
    double *cpu_per_call = malloc((size_t)reps * sizeof *cpu_per_call);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), c0 = cpu_seconds();
        for (long i = 0; i < iters; i++) {
            MPI_Request req[2];
            MPI_Irecv(rbuf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        per_call[r] = (MPI_Wtime() - t0) / (3.0 * (double)iters) * 1e9;
        cpu_per_call[r] = (cpu_seconds() - c0) / (3.0 * (double)iters) * 1e9;
    }
    qsort(per_call, (size_t)reps, sizeof *per_call, cmp_double);
    qsort(cpu_per_call, (size_t)reps, sizeof *cpu_per_call, cmp_double);
    if (rank == 0)
        printf("ns_per_call_median %.1f  (min %.1f, max %.1f; %ld iterations x %d reps, 3 calls each)\n",
               per_call[reps / 2], per_call[0], per_call[reps - 1], iters, reps);
    if (rank == 0)
        printf("cpu_ns_per_call_median %.1f  (min %.1f, max %.1f; thread CPU time)\n",
               cpu_per_call[reps / 2], cpu_per_call[0], cpu_per_call[reps - 1]);
    free(per_call);
    free(cpu_per_call);
    MPI_Finalize();
    return 0;
}
