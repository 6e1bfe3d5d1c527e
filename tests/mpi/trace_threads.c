/* Several threads calling MPI at once (tests/test_trace_safety_threads.py).
 *
 *   trace_threads multiple ITERS   MPI_THREAD_MULTIPLE; thread t (0..3) runs
 *                                  (t+1)*ITERS rounds on its own communicator
 *                                  (duplicated by the main thread, in order t)
 *                                  with tag 10+t: Irecv+Isend+Waitall,
 *                                  Sendrecv, Allreduce. The trace has no thread
 *                                  field: a call's communicator names its thread.
 *   trace_threads funneled ITERS   MPI_THREAD_FUNNELED: the same rounds, all
 *                                  made by the main thread while 3 others compute
 *   trace_threads bench LEVEL ITERS REPS
 *                                  bench_tracer_loop's Isend/Irecv/Waitall loop on
 *                                  one thread after MPI_Init_thread(LEVEL: single,
 *                                  funneled, multiple): prints ns_per_call_median
 * Neighbours form a ring, so any number of ranks works (1: itself). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4

static MPI_Comm comms[NTHREADS];
static int rank, size;
static long iters;

static void rounds(int t, long n)
{
    MPI_Comm c = comms[t];
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    for (long i = 0; i < n; i++) {
        int s = rank * 100 + t, r = -1, sum = 0;
        MPI_Request req[2];
        MPI_Irecv(&r, 1, MPI_INT, src, 10 + t, c, &req[0]);
        MPI_Isend(&s, 1, MPI_INT, dest, 10 + t, c, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        if (r != src * 100 + t) {
            fprintf(stderr, "thread %d: got %d from %d\n", t, r, src);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Sendrecv(&s, 1, MPI_INT, dest, 10 + t, &r, 1, MPI_INT, src, 10 + t, c,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, c);
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    rounds(t, (t + 1) * iters);
    return NULL;
}

static volatile double sink;
static void *compute_main(void *arg)
{
    (void)arg;
    double x = 0;
    for (long i = 0; i < 2000000; i++)
        x += (double)i * 1e-9;
    sink = x;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench(int argc, char **argv)
{
    const char *lv = argc > 2 ? argv[2] : "single";
    int want = strcmp(lv, "multiple") == 0   ? MPI_THREAD_MULTIPLE
               : strcmp(lv, "funneled") == 0 ? MPI_THREAD_FUNNELED
                                             : MPI_THREAD_SINGLE;
    int got;
    MPI_Init_thread(&argc, &argv, want, &got);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 3 ? atol(argv[3]) : 20000;
    int reps = argc > 4 ? atoi(argv[4]) : 11;
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    char sbuf[8] = {0}, rbuf[8];
    double *per = malloc((size_t)reps * sizeof *per);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Request req[2];
            MPI_Irecv(rbuf, 8, MPI_BYTE, from, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
        per[r] = (MPI_Wtime() - t0) / (3.0 * (double)n) * 1e9;
    }
    qsort(per, (size_t)reps, sizeof *per, cmp_double);
    if (rank == 0)
        printf("ns_per_call_median %.1f level %s provided %d\n", per[reps / 2], lv, got);
    free(per);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "multiple";
    if (strcmp(mode, "bench") == 0)
        return bench(argc, argv);
    int multiple = strcmp(mode, "multiple") == 0;
    iters = argc > 2 ? atol(argv[2]) : 50;
    int got;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &got);
    if (multiple && got < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "trace_threads: MPI_THREAD_MULTIPLE not provided (%d)\n", got);
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, multiple ? thread_main : compute_main, (void *)(long)t);
    if (!multiple)
        for (int t = 0; t < NTHREADS; t++)
            rounds(t, (t + 1) * iters);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);
    if (rank == 0)
        printf("trace_threads %s: ok\n", mode);
    MPI_Finalize();
    return 0;
}
