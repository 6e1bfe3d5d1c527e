/* Tests only: the in-memory event source (see mem_source.h). */
#include "mem_source.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "mpicast/platform.h"

typedef struct rank_events {
    mc_event *ev;
    size_t n, cap, pos;
    int64_t clock, pending;
} rank_events;

struct mem_source {
    mc_source base;
    rank_events *r;
};

static int mem_next(mc_source *s, int rank, mc_event *e, mc_error *err)
{
    mem_source *m = (mem_source *)s;
    if (rank < 0 || rank >= s->nranks) {
        mc_error_set(err, MC_ERR_USAGE, "mem: no rank %d", rank);
        return -1;
    }
    rank_events *r = &m->r[rank];
    if (r->pos >= r->n)
        return 0;
    *e = r->ev[r->pos++];
    return 1;
}

static void mem_close(mc_source *s)
{
    (void)s; /* owned by mem_source_destroy */
}

static const mc_source_ops mem_ops = {.next = mem_next, .close = mem_close};

mem_source *mem_source_create(int nranks)
{
    mem_source *m = calloc(1, sizeof *m);
    m->base.ops = &mem_ops;
    m->base.nranks = nranks;
    m->base.name = "mem";
    m->r = calloc((size_t)nranks, sizeof *m->r);
    return m;
}

void mem_source_destroy(mem_source *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->base.nranks; i++) {
        for (size_t k = 0; k < m->r[i].n; k++)
            free(m->r[i].ev[k].vals);
        free(m->r[i].ev);
    }
    free(m->r);
    free(m);
}

mc_source *mem_source_base(mem_source *m) { return &m->base; }

void mem_source_rewind(mem_source *m)
{
    for (int i = 0; i < m->base.nranks; i++)
        m->r[i].pos = 0;
}

void ms_compute(mem_source *m, int rank, int64_t ns) { m->r[rank].pending += ns; }

mc_event *ms_add(mem_source *m, int rank, int op, int64_t dur_ns)
{
    rank_events *r = &m->r[rank];
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
    }
    mc_event *e = &r->ev[r->n++];
    memset(e, 0, sizeof *e);
    e->op = op;
    e->comm = MC_COMM_WORLD;
    e->peer = e->peer2 = MC_NONE;
    e->newcomm = MC_COMM_NULL;
    e->cpu = -1;
    e->burst = r->pending;
    e->t_start = r->clock + r->pending;
    e->t_end = e->t_start + dur_ns;
    r->clock = e->t_end;
    r->pending = 0;
    return e;
}

void ms_vals(mem_source *m, mc_event *e, int n, ...)
{
    (void)m;
    free(e->vals);
    e->vals = calloc((size_t)n + 1, sizeof *e->vals);
    e->nvals = (uint32_t)n;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        e->vals[i] = va_arg(ap, int64_t);
    va_end(ap);
}

mc_event *ms_p2p(mem_source *m, int rank, int op, int peer, int tag, int64_t bytes, uint32_t req)
{
    mc_event *e = ms_add(m, rank, op, 0);
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    e->req = req;
    return e;
}

mc_event *ms_wait(mem_source *m, int rank, int op, int nreq, ...)
{
    mc_event *e = ms_add(m, rank, op, 0);
    e->vals = calloc((size_t)nreq * 4 + 1, sizeof *e->vals);
    e->nvals = (uint32_t)nreq * 4;
    va_list ap;
    va_start(ap, nreq);
    for (int i = 0; i < nreq; i++) {
        e->vals[4 * i] = va_arg(ap, uint32_t);
        e->vals[4 * i + 1] = MC_NONE;
        e->vals[4 * i + 2] = MC_NONE;
    }
    va_end(ap);
    return e;
}

int mem_run_prefetch;

mc_err mem_run(mem_source *m, const char *const *sets, const char *net_model,
               mc_sim_result *res, mc_error *err)
{
    mc_platform *p = mc_platform_create();
    if (!p)
        return mc_error_set(err, MC_ERR_NOMEM, "platform");
    for (int i = 0; sets && sets[i]; i++) {
        mc_err rc = mc_platform_set(p, sets[i], err);
        if (rc) {
            mc_platform_destroy(p);
            return rc;
        }
    }
    mem_source_rewind(m);
    mc_sim_options opt = {0};
    opt.net_model = net_model;
    opt.prefetch = mem_run_prefetch;
    mc_err rc = mc_sim_run(&m->base, p, &opt, res, err);
    mc_platform_destroy(p);
    return rc;
}
