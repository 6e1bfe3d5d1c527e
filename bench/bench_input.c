/* Input speed alone (issue 24 item 1: "the readers deliver at least 10 M
 * events per second to the engine on one core"): opens any input through
 * the registry, as every command does, and pulls every event of every rank,
 * taking ranks in turn a few events at a time as a replay does (so each
 * rank's chunk and state go in and out of the cache). No simulation.
 * Usage: bench_input INPUT [EVENTS_PER_TURN [REPS]]   (default 4, 3)
 * Reads the input REPS times and prints events, the least CPU seconds of
 * this thread and events per CPU second (the best of REPS: this machine is
 * shared), and a checksum of the fields read (so two builds can be compared
 * for equality). The prefetch hint is given 8 ranks ahead, as the replay
 * gives it a few events ahead. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpicast/input.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Mixes an event's fields into h (cheap: the bench times the reader). */
static uint64_t mix(uint64_t h, const mc_event *e)
{
    uint64_t f = (uint64_t)e->t_end ^ (uint64_t)e->burst << 7 ^ (uint64_t)e->op << 13 ^
                 (uint64_t)e->peer << 21 ^ (uint64_t)e->bytes << 29 ^ (uint64_t)e->req << 37 ^
                 (uint64_t)(e->nvals ? e->vals[0] : 0) << 43;
    return (h ^ f) * 1099511628211u;
}

/* One pass over the input; its CPU seconds, or -1 on error. */
static double read_all(const char *path, int turn, uint64_t *events, uint64_t *h)
{
    mc_error err = {0};
    double t0 = cpu_now();
    mc_source *s = mc_input_open(path, &err);
    if (!s) {
        fprintf(stderr, "bench_input: %s\n", err.msg);
        return -1;
    }
    int n = s->nranks, live = n;
    char *done = calloc((size_t)n, 1);
    *events = 0;
    *h = 1469598103934665603u;
    while (live > 0) {
        for (int r = 0; r < n; r++) {
            mc_source_prefetch(s, (r + 8) % n);
            for (int k = 0; k < turn && !done[r]; k++) {
                mc_event e;
                int rc = mc_source_next(s, r, &e, &err);
                if (rc < 0) {
                    fprintf(stderr, "bench_input: %s\n", err.msg);
                    return -1;
                }
                if (rc == 0) {
                    done[r] = 1;
                    live--;
                    break;
                }
                ++*events;
                *h = mix(*h, &e);
            }
        }
    }
    mc_source_close(s);
    free(done);
    return cpu_now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_input INPUT [EVENTS_PER_TURN [REPS]]\n");
        return 2;
    }
    int turn = argc > 2 ? atoi(argv[2]) : 4, reps = argc > 3 ? atoi(argv[3]) : 3;
    double best = -1;
    uint64_t events = 0, h = 0;
    for (int i = 0; i < (reps < 1 ? 1 : reps); i++) {
        double t = read_all(argv[1], turn < 1 ? 1 : turn, &events, &h);
        if (t < 0)
            return 1;
        if (best < 0 || t < best)
            best = t;
    }
    printf("%s: %llu events, %.3f s CPU (best of %d), %.2f M events/s, checksum %016llx\n",
           argv[1], (unsigned long long)events, best, reps, (double)events / best / 1e6,
           (unsigned long long)h);
    return 0;
}
