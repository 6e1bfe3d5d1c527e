/* Writes a synthetic trace directory of a given number of events (issue 9:
 * "a synthetic trace of 10^9 events replays with peak memory under 1 GiB").
 * Usage: bench_bigtrace DIR RANKS EVENTS
 * Every rank repeats: compute burst, Irecv from the left neighbour, Isend
 * to the right one (4 KiB), Waitall; every 64th iteration an Allreduce of
 * 8 B. Bursts vary with rank and iteration (0.9-1.9 us) so the replay has
 * waiting to compute. Request ids go up by one per request, as the
 * tracer numbers them (so mpicast compress and extrapolate find the loop).
 * Ranks are written by two threads; prints events,
 * bytes on disk per event and the writing rate. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpicast/format.h"

typedef struct job {
    const char *dir;
    int nranks, first, step;
    uint64_t per_rank;
    int failed;
} job;

static mc_event blank(int op)
{
    mc_event e; /* newcomm 0: none, as the tracer stores it outside management */
    mc_event_clear(&e);
    e.op = op;
    return e;
}

static int put(mc_writer *w, mc_event e, int64_t *now, int64_t burst, int64_t dur)
{
    mc_error err = {0};
    e.t_start = *now + burst;
    e.t_end = e.t_start + dur;
    *now = e.t_end;
    if (mc_writer_add(w, &e, &err) == MC_OK)
        return 0;
    fprintf(stderr, "%s\n", err.msg);
    return -1;
}

static int write_rank(const job *j, int r)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(j->dir, r, 0, 0, &err);
    if (!w) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    int P = j->nranks, left = (r + P - 1) % P, right = (r + 1) % P;
    int64_t now = 0, wv[8] = {1, left, 1, 4096, 2, MC_NONE, MC_NONE, 0};
    int rc = put(w, blank(MC_OP_INIT), &now, 0, 1000);
    uint64_t n = 1;
    for (uint64_t i = 0; !rc && n + 5 <= j->per_rank; i++) {
        mc_event e = blank(MC_OP_IRECV);
        uint32_t id = (uint32_t)(2 * i + 1);
        wv[0] = id, wv[4] = id + 1;
        e.peer = left, e.tag = 1, e.bytes = 4096, e.req = id;
        rc |= put(w, e, &now, 900 + (int64_t)((i * 7 + (uint64_t)r * 13) % 1000), 150);
        e = blank(MC_OP_ISEND);
        e.peer = right, e.tag = 1, e.bytes = 4096, e.req = id + 1;
        rc |= put(w, e, &now, 50, 300);
        e = blank(MC_OP_WAITALL);
        e.vals = wv, e.nvals = 8;
        rc |= put(w, e, &now, 20, 2000);
        n += 3;
        if (i % 64 == 63) {
            e = blank(MC_OP_ALLREDUCE);
            e.bytes = e.bytes2 = 8, e.peer2 = P;
            rc |= put(w, e, &now, 500, 3000);
            n++;
        }
    }
    rc |= put(w, blank(MC_OP_FINALIZE), &now, 100, 1000);
    if (mc_writer_close(w, &err) != MC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        rc = -1;
    }
    return rc;
}

static void *run(void *arg)
{
    job *j = arg;
    for (int r = j->first; r < j->nranks && !j->failed; r += j->step)
        j->failed = write_rank(j, r) != 0;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: bench_bigtrace DIR RANKS EVENTS\n", stderr);
        return 2;
    }
    int P = atoi(argv[2]);
    double total = atof(argv[3]);
    if (P < 2 || total < 10.0 * P) {
        fputs("bench_bigtrace: RANKS >= 2 and EVENTS >= 10 per rank\n", stderr);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    job jobs[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        jobs[k] = (job){argv[1], P, k, 2, (uint64_t)(total / P), 0};
        if (pthread_create(&th[k], NULL, run, &jobs[k]) != 0)
            run(&jobs[k]), th[k] = 0;
    }
    for (int k = 0; k < 2; k++)
        if (th[k])
            pthread_join(th[k], NULL);
    if (jobs[0].failed || jobs[1].failed)
        return 1;
    mc_error err = {0};
    mc_meta *m = mc_meta_create(P);
    int32_t *world = malloc((size_t)P * sizeof *world);
    for (int i = 0; world && i < P; i++)
        world[i] = i;
    if (!m || !world || mc_meta_set(m, "command", "bench_bigtrace", &err) ||
        mc_meta_add_comm(m, MC_COMM_WORLD, world, P, P, &err) || mc_meta_write(m, argv[1], &err)) {
        fprintf(stderr, "bench_bigtrace: meta.json: %s\n", err.msg);
        return 1;
    }
    free(world);
    mc_meta_destroy(m);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    uint64_t bytes = 0;
    char path[4096];
    for (int r = 0; r < P; r++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/rank-%06d.mct", argv[1], r);
        if (stat(path, &st) == 0)
            bytes += (uint64_t)st.st_size;
    }
    printf("wrote %d ranks, ~%.3g events, %.2f GB (%.2f B/event) in %.1f s (%.3g events/s)\n", P,
           total, bytes / 1e9, bytes / total, s, total / s);
    return 0;
}
