/* mpicast-bench --compute: the reference kernels (kernels.h). */
#include "kernels.h"

#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mcb_triad_rate(size_t n, int reps)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = 1.0 + (double)(i % 7);
        c[i] = 2.0 - (double)(i % 5);
    }
    double best = 0;
    volatile double scalar = 3.0;
    for (int r = 0; r < reps; r++) {
        double s = scalar, t0 = now();
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        double t = now() - t0;
        /* STREAM counts 3 arrays of 8 B per element (no write-allocate) */
        double rate = t > 0 ? 24.0 * (double)n / t : 0;
        if (rate > best)
            best = rate;
        b[r % n] = a[(r * 7) % n]; /* a depends on the result: not dead code */
    }
    volatile double sink = a[n / 2];
    (void)sink;
    free(a);
    free(b);
    free(c);
    return best;
}

double mcb_flop_rate(long updates, int reps)
{
    double best = 0;
    volatile double seed = 1.0;
    for (int r = 0; r < reps; r++) {
        /* 8 independent chains of x = x * m + a: 2 flops per update, no
         * dependency between chains, so the loop runs at the FP units' rate
         * (without -ffast-math the compiler keeps every operation) */
        double m = 0.999999 * seed, ad = 1e-6 * seed;
        double x0 = 1, x1 = 2, x2 = 3, x3 = 4, x4 = 5, x5 = 6, x6 = 7, x7 = 8;
        double t0 = now();
        for (long i = 0; i < updates / 8; i++) {
            x0 = x0 * m + ad;
            x1 = x1 * m + ad;
            x2 = x2 * m + ad;
            x3 = x3 * m + ad;
            x4 = x4 * m + ad;
            x5 = x5 * m + ad;
            x6 = x6 * m + ad;
            x7 = x7 * m + ad;
        }
        double t = now() - t0;
        volatile double sink = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
        (void)sink;
        double rate = t > 0 ? 2.0 * (double)(updates / 8 * 8) / t : 0;
        if (rate > best)
            best = rate;
    }
    return best;
}
