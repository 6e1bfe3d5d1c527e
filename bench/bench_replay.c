/* Replay speed of the simulator on synthetic in-memory event streams (no
 * trace files: events are generated on demand, a few bytes of state per
 * rank). Usage: bench_replay [p2p|allreduce|alltoall|memory|all] [scale]
 *   p2p        1024 ranks, ~10^7 events: Irecv/Isend/Waitall with shifting
 *              partners and a compute burst per iteration (eager, 1 KiB)
 *   allreduce  1024 ranks, compute + Allreduce of 8 B (recursive doubling)
 *   alltoall   1024 ranks, Alltoall of 1 KiB per peer, pairwise algorithm
 *   memory     10^6 ranks x 10 events (3 Irecv/Isend/Waitall exchanges and
 *              a compute event): peak RSS per rank, in-flight messages
 *              included
 *   compute    10^6 ranks x 10 compute events: the fixed cost per rank
 * `scale` multiplies the sizes (default 1). Prints one line per case:
 * trace events replayed per second and point-to-point operations (sends and
 * receives, including those inside collectives) per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mpicast/platform.h"
#include "mpicast/sim.h"

enum { K_P2P, K_ALLREDUCE, K_ALLTOALL, K_MEMORY, K_COMPUTE };

typedef struct gen {
    mc_source base;
    int kind;
    uint32_t iters;     /* iterations per rank */
    uint32_t *it;       /* per rank: current iteration */
    uint8_t *step;      /* per rank: event within the iteration */
    int64_t (*vals)[8]; /* per rank: Waitall values (borrowed by the event) */
} gen;

static int gen_next(mc_source *s, int r, mc_event *e, mc_error *err)
{
    (void)err;
    gen *g = (gen *)s;
    uint32_t i = g->it[r];
    int P = s->nranks;
    if (i >= g->iters && !(g->kind == K_MEMORY && g->step[r] == 0))
        return 0;
    memset(e, 0, sizeof *e);
    e->comm = MC_COMM_WORLD;
    e->peer = e->peer2 = MC_NONE;
    e->newcomm = MC_COMM_NULL;
    e->cpu = -1;
    if (i >= g->iters) { /* memory: a closing compute event, the 10th */
        e->op = MC_OP_COMPUTE;
        e->bytes = 1000;
        g->step[r] = 1;
        return 1;
    }
    if (g->kind == K_P2P || g->kind == K_MEMORY) {
        /* partners r -/+ k, k = 1..7 cycling; no division by P per event so
         * that the generator costs little next to the simulator it feeds */
        int k = 1 + (int)(i % 7);
        if (k > P - 1)
            k = 1 + (k - 1) % (P - 1 > 0 ? P - 1 : 1);
        int from = r - k < 0 ? r - k + P : r - k, to = r + k >= P ? r + k - P : r + k;
        switch (g->step[r]) {
        case 0:
            e->op = MC_OP_IRECV;
            e->peer = from;
            e->bytes = 1024;
            e->req = 2 * i + 1;
            break;
        case 1:
            e->op = MC_OP_ISEND;
            e->peer = to;
            e->bytes = 1024;
            e->req = 2 * i + 2;
            e->burst = 1000 + (r * 37 + i * 11) % 500;
            break;
        default:
            e->op = MC_OP_WAITALL;
            int64_t *v = g->vals[r];
            v[0] = 2 * i + 1, v[1] = from, v[2] = 0, v[3] = 1024;
            v[4] = 2 * i + 2, v[5] = MC_NONE, v[6] = MC_NONE, v[7] = 0;
            e->vals = v;
            e->nvals = 8;
            break;
        }
        if (++g->step[r] == 3) {
            g->step[r] = 0;
            g->it[r]++;
        }
    } else if (g->kind == K_COMPUTE) {
        e->op = MC_OP_COMPUTE;
        e->bytes = 1000 + r % 100;
        g->it[r]++;
    } else {
        e->op = g->kind == K_ALLREDUCE ? MC_OP_ALLREDUCE : MC_OP_ALLTOALL;
        e->bytes = e->bytes2 = g->kind == K_ALLREDUCE ? 8 : 1024;
        e->peer2 = P;
        e->burst = 2000 + (r * 13 + i * 7) % 1000;
        g->it[r]++;
    }
    return 1;
}

static void gen_close(mc_source *s) { (void)s; }
static const mc_source_ops gen_ops = {.next = gen_next, .close = gen_close};

static gen *gen_create(int kind, int nranks, uint32_t iters)
{
    gen *g = calloc(1, sizeof *g);
    g->base.ops = &gen_ops;
    g->base.nranks = nranks;
    g->base.name = "synthetic";
    g->kind = kind;
    g->iters = iters;
    g->it = calloc((size_t)nranks, sizeof *g->it);
    g->step = calloc((size_t)nranks, sizeof *g->step);
    if (kind == K_P2P || kind == K_MEMORY)
        g->vals = calloc((size_t)nranks, sizeof *g->vals);
    return g;
}

static void gen_destroy(gen *g)
{
    free(g->it);
    free(g->step);
    free(g->vals);
    free(g);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int run_case(const char *name, int kind, int nranks, uint32_t iters)
{
    gen *g = gen_create(kind, nranks, iters);
    mc_platform *p = mc_platform_create();
    mc_error err = {0};
    mc_platform_set(p, "collectives.allreduce=recursive_doubling", &err);
    mc_platform_set(p, "collectives.alltoall=pairwise", &err);
    long rss0 = peak_rss_kib();
    double c0 = cpu_seconds();
    mc_sim_result res;
    mc_err rc = mc_sim_run(&g->base, p, NULL, &res, &err);
    double cpu = cpu_seconds() - c0;
    long rss1 = peak_rss_kib();
    if (rc) {
        fprintf(stderr, "bench_replay: %s: %s\n", name, err.msg);
        mc_sim_result_free(&res);
        mc_platform_destroy(p);
        gen_destroy(g);
        return 1;
    }
    double w = res.wall_seconds > 0 ? res.wall_seconds : 1e-9;
    uint64_t ops = 2 * res.messages; /* each message: one send, one receive */
    if (!(cpu > 0))
        cpu = 1e-9;
    /* The machine is shared: rates per second of CPU time are the stable
     * figure; wall-clock rates are printed too. */
    printf("%-9s ranks %7d  trace events %9llu  engine events %9llu  messages %9llu\n"
           "          wall %.3f s, cpu %.3f s: trace events/s %.2f M (wall %.2f M), "
           "p2p ops/s %.2f M (wall %.2f M); predicted %.6f s; peak RSS %ld MiB",
           name, nranks, (unsigned long long)res.events, (unsigned long long)res.sim_events,
           (unsigned long long)res.messages, w, cpu, (double)res.events / cpu * 1e-6,
           (double)res.events / w * 1e-6, (double)ops / cpu * 1e-6, (double)ops / w * 1e-6,
           mc_sim_seconds(res.end), rss1 / 1024);
    if (kind == K_MEMORY || kind == K_COMPUTE)
        printf("  (%.0f B/rank over the baseline, generator state %zu B/rank included)",
               (double)(rss1 - rss0) * 1024.0 / nranks,
               sizeof(uint32_t) + sizeof(uint8_t) + (g->vals ? sizeof(int64_t[8]) : 0));
    printf("\n");
    fflush(stdout);
    mc_sim_result_free(&res);
    mc_platform_destroy(p);
    gen_destroy(g);
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (!(scale > 0))
        scale = 1.0;
    int all = strcmp(which, "all") == 0, rc = 0;
    /* memory first: peak RSS is monotonic, so measure it before the others */
    if (all || strcmp(which, "memory") == 0)
        rc |= run_case("memory", K_MEMORY, (int)(1000000 * scale), 3);
    if (strcmp(which, "compute") == 0)
        rc |= run_case("compute", K_COMPUTE, (int)(1000000 * scale), 10);
    if (all || strcmp(which, "p2p") == 0)
        rc |= run_case("p2p", K_P2P, 1024, (uint32_t)(3256 * scale));
    if (all || strcmp(which, "allreduce") == 0)
        rc |= run_case("allreduce", K_ALLREDUCE, 1024, (uint32_t)(200 * scale));
    if (all || strcmp(which, "alltoall") == 0)
        rc |= run_case("alltoall", K_ALLTOALL, 1024, (uint32_t)(4 * scale));
    return rc;
}
