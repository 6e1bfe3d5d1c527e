/* Replay speed with the topo network model (contention on), issue 5.
 * Usage: bench_topo [halo|alltoall|all] [scale] [MODEL]   (MODEL: topo, or loggp
 * for the same replays without contention, as a reference); halo=XxYxZ or
 * alltoall=XxYxZ replays the case on another grid of ranks (and torus dims)
 *   halo      4096 ranks on a 16x16x16 torus3d, 3-D halo exchange: per
 *             iteration a compute burst, 6 Irecv + 6 Isend of 64 KiB to the
 *             grid neighbours, Waitall
 *   alltoall  1024 ranks on an 8x8x16 torus3d, Alltoall of 4 KiB per peer
 *             (pairwise algorithm)
 * Links: 5 GB/s, 100 ns per hop, L = 1 us, o = 1 us. Prints trace events
 * per second, engine events per second and flows (messages) per second per
 * CPU second (the machine is shared), and the predicted time; then the end
 * in ps and a digest of every rank's end, communication and wait times and
 * every used link's statistics, to check that a change of the model moves
 * no result. BENCH_TOPO_SET="key=value;..." sets further platform keys
 * (another topology, ranks per node, network.sharing=exact...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"

enum { K_HALO, K_ALLTOALL };

typedef struct gen {
    mc_source base;
    int kind, d[3];
    uint32_t iters;
    uint32_t *it;
    uint8_t *step;
    int64_t (*vals)[48];
} gen;

static int nb(const gen *g, int r, int k)
{
    int x = r % g->d[0], y = r / g->d[0] % g->d[1], z = r / (g->d[0] * g->d[1]);
    int dim = k / 2, s = k % 2 ? -1 : 1;
    int c[3] = {x, y, z};
    c[dim] = (c[dim] + s + g->d[dim]) % g->d[dim];
    return c[0] + g->d[0] * (c[1] + g->d[1] * c[2]);
}

static int gen_next(mc_source *s, int r, mc_event *e, mc_error *err)
{
    (void)err;
    gen *g = (gen *)s;
    if (g->it[r] >= g->iters)
        return 0;
    uint32_t i = g->it[r];
    memset(e, 0, sizeof *e);
    e->comm = MC_COMM_WORLD;
    e->peer = e->peer2 = MC_NONE;
    e->newcomm = MC_COMM_NULL;
    e->cpu = -1;
    if (g->kind == K_ALLTOALL) {
        e->op = MC_OP_ALLTOALL;
        e->bytes = e->bytes2 = 4096;
        e->peer2 = s->nranks;
        e->burst = 20000 + (r * 13 + i * 7) % 1000;
        g->it[r]++;
        return 1;
    }
    int st = g->step[r];
    if (st < 6) {
        e->op = MC_OP_IRECV;
        e->peer = nb(g, r, st ^ 1); /* from the opposite side */
        e->tag = st;
        e->bytes = 65536;
        e->req = 12 * i + 1 + (uint32_t)st;
    } else if (st < 12) {
        e->op = MC_OP_ISEND;
        e->peer = nb(g, r, st - 6);
        e->tag = st - 6;
        e->bytes = 65536;
        e->req = 12 * i + 1 + (uint32_t)st;
        if (st == 6)
            e->burst = 50000 + (r * 37 + i * 11) % 5000;
    } else {
        e->op = MC_OP_WAITALL;
        int64_t *v = g->vals[r];
        for (int k = 0; k < 12; k++) {
            v[4 * k] = 12 * i + 1 + (uint32_t)k;
            v[4 * k + 1] = MC_NONE, v[4 * k + 2] = MC_NONE, v[4 * k + 3] = 0;
        }
        e->vals = v;
        e->nvals = 48;
    }
    if (++g->step[r] == 13) {
        g->step[r] = 0;
        g->it[r]++;
    }
    return 1;
}

static void gen_close(mc_source *s) { (void)s; }
static const mc_source_ops gen_ops = {gen_next, gen_close};

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static const char *g_model = "topo";

/* BENCH_TOPO_SET="key=value;key=value": platform keys set after the
 * defaults (another topology, ranks per node...), for checking that a
 * change of the model leaves every predicted time as it was. */
static void extra_sets(mc_platform *p)
{
    const char *env = getenv("BENCH_TOPO_SET");
    char buf[1024];
    if (!env || strlen(env) >= sizeof buf)
        return;
    strcpy(buf, env);
    for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        mc_error err = {0};
        if (mc_platform_set(p, kv, &err))
            fprintf(stderr, "bench_topo: %s: %s\n", kv, err.msg);
    }
}

/* FNV-1a over the results that a model change must not move: every rank's
 * end, communication and wait times, and every used link's statistics. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t digest(const mc_sim_result *res, mc_net *net)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r = 0; r < res->nranks; r++) {
        const mc_sim_rank *k = &res->ranks[r];
        h = fnv(h, &k->end, sizeof k->end);
        h = fnv(h, &k->comm, sizeof k->comm);
        h = fnv(h, &k->wait, sizeof k->wait);
    }
    size_t nl = mc_net_link_stats(net, NULL, 0);
    mc_net_link_stat *ls = nl ? calloc(nl, sizeof *ls) : NULL;
    if (ls) {
        nl = mc_net_link_stats(net, ls, nl);
        for (size_t i = 0; i < nl; i++) {
            h = fnv(h, ls[i].name, strlen(ls[i].name));
            h = fnv(h, &ls[i].bytes, sizeof ls[i].bytes);
            h = fnv(h, &ls[i].busy, sizeof ls[i].busy);
            h = fnv(h, &ls[i].peak_flows, sizeof ls[i].peak_flows);
        }
    }
    free(ls);
    return h;
}

static int run_case(const char *name, int kind, const int *d, uint32_t iters, const char *dims)
{
    int P = d[0] * d[1] * d[2];
    gen g = {0};
    g.base.ops = &gen_ops;
    g.base.nranks = P;
    g.base.name = "synthetic";
    g.kind = kind;
    memcpy(g.d, d, sizeof g.d);
    g.iters = iters;
    g.it = calloc((size_t)P, sizeof *g.it);
    g.step = calloc((size_t)P, sizeof *g.step);
    g.vals = calloc((size_t)P, sizeof *g.vals);
    mc_platform *p = mc_platform_create();
    mc_error err = {0};
    char dimset[64];
    snprintf(dimset, sizeof dimset, "network.dims=%s", dims);
    char model[64];
    snprintf(model, sizeof model, "network.model=%s", g_model);
    const char *sets[] = {model, "network.topology=torus3d", dimset,
                          "network.bandwidth=5GB/s", "network.hop_latency=100ns",
                          "network.latency=1us", "network.overhead=1us",
                          "collectives.alltoall=pairwise", NULL};
    for (int i = 0; sets[i]; i++)
        if (mc_platform_set(p, sets[i], &err))
            fprintf(stderr, "bench_topo: %s: %s\n", sets[i], err.msg);
    extra_sets(p);
    mc_net *net = mc_net_create(NULL, p, P, &err);
    if (!net) {
        fprintf(stderr, "bench_topo: %s\n", err.msg);
        return 1;
    }
    mc_sim_options opt = {0};
    opt.net = net;
    double c0 = cpu_seconds();
    mc_sim_result res;
    mc_err rc = mc_sim_run(&g.base, p, &opt, &res, &err);
    double cpu = cpu_seconds() - c0;
    if (rc) {
        fprintf(stderr, "bench_topo: %s: %s\n", name, err.msg);
    } else {
        if (!(cpu > 0))
            cpu = 1e-9;
        mc_net_link_stat hot[1];
        size_t nl = mc_net_link_stats(net, hot, 1);
        printf("%-9s %s ranks %5d  trace events %9llu  engine events %9llu  flows %9llu\n"
               "          cpu %.3f s (wall %.3f s): trace events/s %.2f M, engine events/s "
               "%.2f M, flows/s %.2f M; predicted %.6f s; %zu links used, hottest %s "
               "(peak %d flows)\n",
               name, g_model, P, (unsigned long long)res.events, (unsigned long long)res.sim_events,
               (unsigned long long)res.messages, cpu, res.wall_seconds,
               (double)res.events / cpu * 1e-6, (double)res.sim_events / cpu * 1e-6,
               (double)res.messages / cpu * 1e-6, mc_sim_seconds(res.end), nl,
               nl ? hot[0].name : "-", nl ? hot[0].peak_flows : 0);
        printf("          end %lld ps, digest %016llx\n", (long long)res.end,
               (unsigned long long)digest(&res, net));
    }
    mc_sim_result_free(&res);
    mc_net_destroy(net);
    mc_platform_destroy(p);
    free(g.it);
    free(g.step);
    free(g.vals);
    return rc != MC_OK;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (!(scale > 0))
        scale = 1.0;
    if (argc > 3)
        g_model = argv[3];
    /* halo=XxYxZ, alltoall=XxYxZ: another grid of ranks (the torus has the
     * same dims), e.g. small enough for network.sharing=exact */
    int d[3] = {0, 0, 0};
    const char *eq = strchr(which, '=');
    char kind[16] = "";
    if (eq) {
        if (sscanf(eq + 1, "%dx%dx%d", &d[0], &d[1], &d[2]) != 3 || d[0] < 1 || d[1] < 1 ||
            d[2] < 1 || (size_t)(eq - which) >= sizeof kind) {
            fprintf(stderr, "bench_topo: %s: expected halo=XxYxZ or alltoall=XxYxZ\n", which);
            return 2;
        }
        memcpy(kind, which, (size_t)(eq - which));
        which = kind;
    }
    int all = strcmp(which, "all") == 0, rc = 0;
    if (all || strcmp(which, "halo") == 0)
        rc |= run_case("halo", K_HALO, d[0] ? d : (int[]){16, 16, 16}, (uint32_t)(20 * scale),
                       eq ? eq + 1 : "16x16x16");
    if (all || strcmp(which, "alltoall") == 0)
        rc |= run_case("alltoall", K_ALLTOALL, d[0] ? d : (int[]){16, 8, 8},
                       (uint32_t)(2 * scale), eq ? eq + 1 : "16x8x8");
    return rc;
}
