/* How much more an MPI collective costs inside an application than in a
 * back-to-back micro-benchmark (issue 21 item 8, docs/accuracy.md "Real
 * applications"): median time of MPI_Allreduce (8 B) and MPI_Alltoall
 * (BYTES per peer, default 20992: Quantum ESPRESSO's FFT transposes in the
 * accuracy table) over REPS calls, each rank first touching TOUCH bytes of
 * its own data (as an application's computation between calls does), and
 * an Alltoall whose buffers move through 64 MiB and are written by the
 * sender just before the call.
 *
 * usage: mpirun -np 2 bench_coll_cache [BYTES [REPS]]
 * Prints one line per case on rank 0. A manual benchmark, not run by ctest. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPAN ((size_t)64 << 20)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Writes one byte per cache line of w[0, n): evicts the library's state
 * and the buffers of the previous call from the caches it fills. */
static void touch(volatile char *w, size_t n)
{
    for (size_t k = 0; k < n; k += 64)
        w[k]++;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* op 0: Allreduce of one double; op 1: Alltoall of bytes per peer at
 * offset off of s and r (rotating through SPAN when rotate is set). */
static double run(int op, char *s, char *r, size_t bytes, char *w, size_t tb, int rotate,
                  int reps, double *t)
{
    double x = 1, y = 0;
    size_t off = 0;
    for (int i = 0; i < reps; i++) {
        touch(w, tb);
        if (rotate)
            touch(s + off, 2 * bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        touch(w, tb); /* the barrier's own traffic out of the cache too */
        double t0 = MPI_Wtime();
        if (op == 0)
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Alltoall(s + off, (int)bytes, MPI_BYTE, r + off, (int)bytes, MPI_BYTE,
                         MPI_COMM_WORLD);
        t[i] = MPI_Wtime() - t0;
        if (rotate)
            off = (off + 2 * bytes) % (SPAN - 2 * bytes);
    }
    return median(t, reps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 20992;
    int reps = argc > 2 ? atoi(argv[2]) : 3000;
    size_t touches[] = {0, 256 << 10, 2 << 20};
    char *s = malloc(SPAN), *r = malloc(SPAN), *w = malloc(2 << 20);
    double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
    if (!s || !r || !w || !t || reps < 1 || bytes * (size_t)size * 2 > SPAN) {
        if (rank == 0)
            fprintf(stderr, "bench_coll_cache: bad arguments or out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(s, 1, SPAN);
    memset(r, 0, SPAN);
    memset(w, 0, 2 << 20);
    for (size_t i = 0; i < sizeof touches / sizeof *touches; i++) {
        double ar = run(0, s, r, bytes, w, touches[i], 0, reps, t);
        double a2a = run(1, s, r, bytes, w, touches[i], 0, reps, t);
        if (rank == 0)
            printf("touch %7zu B: Allreduce 8 B %.2f us, Alltoall %zu B/peer %.2f us\n",
                   touches[i], ar * 1e6, bytes, a2a * 1e6);
    }
    double moving = run(1, s, r, bytes, w, 0, 1, reps, t);
    if (rank == 0)
        printf("buffers moving through 64 MiB, written before: Alltoall %zu B/peer %.2f us\n",
               bytes, moving * 1e6);
    free(t);
    free(w);
    free(r);
    free(s);
    MPI_Finalize();
    return 0;
}
