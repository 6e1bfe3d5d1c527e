/* The synthetic topo replays of bench_topo and test_topo_bitexact. */
#include "topo_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nb(const topo_case *g, int r, int k)
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
    topo_case *g = (topo_case *)s;
    if (g->it[r] >= g->iters)
        return 0;
    uint32_t i = g->it[r];
    memset(e, 0, sizeof *e);
    e->comm = MC_COMM_WORLD;
    e->peer = e->peer2 = MC_NONE;
    e->newcomm = MC_COMM_NULL;
    e->cpu = -1;
    if (g->kind == TC_ALLTOALL) {
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
static const mc_source_ops gen_ops = {.next = gen_next, .close = gen_close};

mc_err topo_case_open(topo_case *c, int kind, const int d[3], uint32_t iters, const char *model,
                      const char *extra, mc_error *err)
{
    int P = d[0] * d[1] * d[2];
    memset(c, 0, sizeof *c);
    c->base.ops = &gen_ops;
    c->base.nranks = P;
    c->base.name = "synthetic";
    c->kind = kind;
    memcpy(c->d, d, sizeof c->d);
    c->iters = iters;
    c->it = calloc((size_t)P, sizeof *c->it);
    c->step = calloc((size_t)P, sizeof *c->step);
    c->vals = calloc((size_t)P, sizeof *c->vals);
    c->plat = mc_platform_create();
    if (!c->it || !c->step || !c->vals || !c->plat) {
        topo_case_close(c);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory for %d ranks", P);
    }
    char modelset[64], dimset[64], buf[1024];
    snprintf(modelset, sizeof modelset, "network.model=%s", model);
    snprintf(dimset, sizeof dimset, "network.dims=%dx%dx%d", d[0], d[1], d[2]);
    const char *sets[] = {modelset, "network.topology=torus3d", dimset,
                          "network.bandwidth=5GB/s", "network.hop_latency=100ns",
                          "network.latency=1us", "network.overhead=1us",
                          "collectives.alltoall=pairwise", NULL};
    mc_err rc = MC_OK;
    for (int i = 0; sets[i] && rc == MC_OK; i++)
        rc = mc_platform_set(c->plat, sets[i], err);
    snprintf(buf, sizeof buf, "%s", extra ? extra : "");
    for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv && rc == MC_OK;
         kv = strtok_r(NULL, ";", &save))
        rc = mc_platform_set(c->plat, kv, err);
    if (rc == MC_OK && !(c->net = mc_net_create(NULL, c->plat, P, err)))
        rc = err->code ? err->code : MC_ERR_PLATFORM;
    if (rc != MC_OK)
        topo_case_close(c);
    return rc;
}

mc_err topo_case_run(topo_case *c, mc_sim_result *res, mc_error *err)
{
    mc_sim_options opt = {0};
    opt.net = c->net;
    return mc_sim_run(&c->base, c->plat, &opt, res, err);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

uint64_t topo_case_digest(const topo_case *c, const mc_sim_result *res)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r = 0; r < res->nranks; r++) {
        const mc_sim_rank *k = &res->ranks[r];
        h = fnv(h, &k->end, sizeof k->end);
        h = fnv(h, &k->comm, sizeof k->comm);
        h = fnv(h, &k->wait, sizeof k->wait);
    }
    size_t nl = mc_net_link_stats(c->net, NULL, 0);
    mc_net_link_stat *ls = nl ? calloc(nl, sizeof *ls) : NULL;
    if (ls) {
        nl = mc_net_link_stats(c->net, ls, nl);
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

void topo_case_close(topo_case *c)
{
    mc_net_destroy(c->net);
    mc_platform_destroy(c->plat);
    free(c->it);
    free(c->step);
    free(c->vals);
    memset(c, 0, sizeof *c);
}

mc_err topo_case_replay(int kind, const int d[3], uint32_t iters, const char *extra,
                        uint64_t *digest, int64_t *end, size_t *links, mc_error *err)
{
    topo_case c;
    mc_err rc = topo_case_open(&c, kind, d, iters, "topo", extra, err);
    if (rc)
        return rc;
    mc_sim_result res;
    rc = topo_case_run(&c, &res, err);
    if (rc == MC_OK) {
        *digest = topo_case_digest(&c, &res);
        *end = res.end;
        *links = mc_net_link_stats(c.net, NULL, 0);
    }
    mc_sim_result_free(&res);
    topo_case_close(&c);
    return rc;
}
