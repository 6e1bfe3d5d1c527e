/* Cost of the extrapolation source alone (no simulator): builds the model
 * from TRACE and reads every event of a P-rank pseudo-trace, one event per
 * rank in turn (the order a replay asks for them), then prints events,
 * wall time, events per second and peak RSS.
 * usage: bench_extrap TRACE P        (bench/bench_extrap.sh runs the issue-6
 * benchmark: a 2-D halo traced at 16 ranks, 10 iterations, P = 1048576) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "mpicast/extrap.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_extrap TRACE P\n");
        return 2;
    }
    int P = atoi(argv[2]);
    mc_error err = {0};
    double t0 = now();
    mc_source *s = mc_extrap_open_source(argv[1], P, NULL, &err);
    if (!s) {
        fprintf(stderr, "bench_extrap: %s\n", err.msg);
        return 1;
    }
    double t1 = now();
    unsigned char *done = calloc((size_t)P, 1);
    unsigned long long events = 0;
    int left = P;
    while (left > 0) {
        for (int r = 0; r < P; r++) {
            if (done[r])
                continue;
            mc_event e;
            int rc = mc_source_next(s, r, &e, &err);
            if (rc < 0) {
                fprintf(stderr, "bench_extrap: %s\n", err.msg);
                return 1;
            }
            if (rc == 0) {
                done[r] = 1;
                left--;
            } else {
                events++;
            }
        }
    }
    double t2 = now();
    mc_source_close(s);
    free(done);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("ranks %d  events %llu  model %.3f s  stream %.3f s  %.3g events/s  peak RSS %.1f MiB\n",
           P, events, t1 - t0, t2 - t1, (double)events / (t2 - t1), ru.ru_maxrss / 1024.0);
    return 0;
}
