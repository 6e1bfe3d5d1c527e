/* A tiny MPI program whose parallel part is marked with MPI_Pcontrol, for the
 * `mpicast scaling` trace input (tests/data/model/pcontrol_test.py).
 *
 * usage: pcontrol_prog OUT WORK_MS SERIAL_MS ITERS [noend]
 *   Each of ITERS steps: MPI_Pcontrol(1); WORK_MS/(p·ITERS) ms of busy work
 *   and an Allreduce; MPI_Pcontrol(0); SERIAL_MS/ITERS ms of "redundant
 *   serial" work. Then, unless `noend`, MPI_Pcontrol(1) right before
 *   MPI_Finalize so that mpicast's tracer (paused by Pcontrol(0)) records
 *   Finalize. Rank r writes OUT.r: "gamma app" — its own MPI_Wtime sums of
 *   the marked parts and the time from MPI_Init's return to MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Busy work for ms milliseconds of wall time (a sleep would let the
 * oversubscribed ranks' timings depend on the scheduler less, but busy work
 * is what a compute phase looks like to the tracer either way). */
static void work(double ms)
{
    double end = MPI_Wtime() + ms / 1e3;
    volatile double x = 0;
    while (MPI_Wtime() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    if (argc < 5) {
        fprintf(stderr, "usage: pcontrol_prog OUT WORK_MS SERIAL_MS ITERS [noend]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double work_ms = atof(argv[2]), serial_ms = atof(argv[3]);
    int iters = atoi(argv[4]);
    int noend = argc > 5 && strcmp(argv[5], "noend") == 0;
    double gamma = 0, v = rank, sum;
    work(serial_ms / 2); /* setup: serial, before the first parallel part */
    for (int it = 0; it < iters; it++) {
        MPI_Pcontrol(1);
        double g0 = MPI_Wtime();
        work(work_ms / size / iters);
        MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        gamma += MPI_Wtime() - g0;
        MPI_Pcontrol(0);
        work(serial_ms / 2 / iters);
    }
    if (!noend)
        MPI_Pcontrol(1);
    double app = MPI_Wtime() - t0;
    MPI_Finalize();
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "%.9f %.9f\n", gamma, app);
    return fclose(f) != 0;
}
