/* Tracer cost of failed polls (bench/tracer_callgrind.sh with
 * BIN=build/bench/bench_tracer_poll): a receive from itself that no send
 * matches yet, polled with MPI_Test 3 times per iteration (the unit
 * bench_tracer_loop counts in), then matched and completed. A polling loop
 * like HPCC's, folded into one record by the tracer (mc_writer_set_fold).
 * Prints the wall time per poll of the fastest repetition (bench/
 * tracer_overhead.sh compares it untraced, traced, and traced with
 * MPICAST_POLL_HOT=off).
 * Usage: mpirun -np 1 bench_tracer_poll [iterations] [reps] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    char sbuf[8] = {0}, rbuf[8];
    long failed = 0;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        MPI_Request req;
        double t0 = MPI_Wtime();
        MPI_Irecv(rbuf, 8, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &req);
        for (long i = 0; i < iters; i++)
            for (int k = 0; k < 3; k++) {
                int done = 0;
                MPI_Test(&req, &done, MPI_STATUS_IGNORE);
                failed += !done;
            }
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
        MPI_Send(sbuf, 8, MPI_BYTE, rank, 1, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("failed_polls %ld of %ld, %.1f ns per poll (fastest of %d)\n", failed,
               3 * iters * reps, best * 1e9 / (3.0 * (double)(iters > 0 ? iters : 1)), reps);
    MPI_Finalize();
    return 0;
}
