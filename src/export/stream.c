/* A trace streamed rank by rank for the exporters that write per rank
 * (OTF2, TIT): memory bounded by the live requests of one rank, where
 * loading the trace (lt_load) took 2.4 GB for 20 M events. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"

struct lt_stream {
    mc_source *src;
    int nranks;
    int64_t tmin;  /* min(0, tfirst) */
    int64_t tfirst; /* earliest first event; INT64_MAX without events */
    uint64_t events;
    mc_event *first; /* each rank's first event (vals owned), until delivered */
    int *have_first; /* 1: first[r] waits, 0: delivered or none, -1: rank empty */
};

static void free_first(lt_stream *s, int r)
{
    free(s->first[r].vals);
    s->first[r].vals = NULL;
}

lt_stream *lt_stream_open(const char *path, mc_error *err)
{
    lt_stream *s = calloc(1, sizeof *s);
    if (!s)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path), NULL;
    if (!(s->src = mc_input_open(path, err))) {
        free(s);
        return NULL;
    }
    s->nranks = s->src->nranks;
    s->tfirst = INT64_MAX;
    size_t n = s->nranks > 0 ? (size_t)s->nranks : 1;
    s->first = calloc(n, sizeof *s->first);
    s->have_first = calloc(n, sizeof *s->have_first);
    if (!s->first || !s->have_first) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        lt_stream_close(s);
        return NULL;
    }
    /* the first event of every rank, for the earliest time before writing */
    for (int r = 0; r < s->nranks; r++) {
        mc_event e;
        int rc = mc_source_next(s->src, r, &e, err);
        if (rc < 0) {
            lt_stream_close(s);
            return NULL;
        }
        if (rc == 0) {
            s->have_first[r] = -1;
            continue;
        }
        s->first[r] = e;
        s->first[r].vals = NULL;
        if (e.nvals) {
            if (!(s->first[r].vals = malloc(e.nvals * sizeof *e.vals))) {
                mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
                lt_stream_close(s);
                return NULL;
            }
            memcpy(s->first[r].vals, e.vals, e.nvals * sizeof *e.vals);
        }
        s->have_first[r] = 1;
        if (e.t_start < s->tmin)
            s->tmin = e.t_start;
        if (e.t_start < s->tfirst)
            s->tfirst = e.t_start;
    }
    return s;
}

int lt_stream_nranks(const lt_stream *s)
{
    return s->nranks;
}

const mc_meta *lt_stream_meta(const lt_stream *s)
{
    return mc_source_meta(s->src);
}

int64_t lt_stream_tmin(const lt_stream *s)
{
    return s->tmin;
}

int64_t lt_stream_tfirst(const lt_stream *s)
{
    return s->tfirst;
}

uint64_t lt_stream_events(const lt_stream *s)
{
    return s->events;
}

int lt_stream_next(lt_stream *s, int r, mc_event *e, mc_error *err)
{
    if (r < 0 || r >= s->nranks || s->have_first[r] < 0)
        return 0;
    if (s->have_first[r] == 1) {
        /* handed out once; its vals stay owned here until the next call */
        s->have_first[r] = 0;
        *e = s->first[r];
        s->events++;
        return 1;
    }
    free_first(s, r);
    int rc = mc_source_next(s->src, r, e, err);
    s->events += rc == 1;
    return rc;
}

void lt_stream_close(lt_stream *s)
{
    if (!s)
        return;
    for (int r = 0; s->first && r < s->nranks; r++)
        free_first(s, r);
    free(s->first);
    free(s->have_first);
    mc_source_close(s->src);
    free(s);
}

/* ------------------------------------------------------------ live requests */

/* Open addressing on the request id, linear probing, deletion by backward
 * shift (no tombstones): a rank's live requests only. */
struct lt_reqmap {
    lt_reqdef *slot;
    unsigned char *used;
    size_t cap, n;
};

lt_reqmap *lt_reqmap_create(void)
{
    return calloc(1, sizeof(lt_reqmap));
}

void lt_reqmap_destroy(lt_reqmap *m)
{
    if (!m)
        return;
    free(m->slot);
    free(m->used);
    free(m);
}

void lt_reqmap_clear(lt_reqmap *m)
{
    if (m->used)
        memset(m->used, 0, m->cap);
    m->n = 0;
}

static size_t home(const lt_reqmap *m, uint32_t id)
{
    return (size_t)((id * 2654435761u) & (uint32_t)(m->cap - 1));
}

static size_t probe(const lt_reqmap *m, uint32_t id)
{
    size_t i = home(m, id);
    while (m->used[i] && m->slot[i].req != id)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(lt_reqmap *m)
{
    lt_reqmap bigger = {.cap = m->cap ? 2 * m->cap : 64};
    bigger.slot = malloc(bigger.cap * sizeof *bigger.slot);
    bigger.used = calloc(bigger.cap, 1);
    if (!bigger.slot || !bigger.used) {
        free(bigger.slot);
        free(bigger.used);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            size_t j = probe(&bigger, m->slot[i].req);
            bigger.slot[j] = m->slot[i];
            bigger.used[j] = 1;
        }
    bigger.n = m->n;
    free(m->slot);
    free(m->used);
    *m = bigger;
    return 0;
}

int lt_reqmap_put(lt_reqmap *m, const mc_event *e)
{
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    size_t i = probe(m, e->req);
    if (!m->used[i])
        m->n++;
    m->used[i] = 1;
    m->slot[i] = (lt_reqdef){.req = e->req, .op = e->op, .peer = e->peer, .tag = e->tag,
                             .bytes = e->bytes, .comm = e->comm, .seq = -1};
    return 0;
}

const lt_reqdef *lt_reqmap_get(const lt_reqmap *m, uint32_t id)
{
    if (!m->cap)
        return NULL;
    size_t i = probe(m, id);
    return m->used[i] ? &m->slot[i] : NULL;
}

lt_reqdef *lt_reqmap_get_mut(lt_reqmap *m, uint32_t id)
{
    return (lt_reqdef *)lt_reqmap_get(m, id);
}

void lt_reqmap_del(lt_reqmap *m, uint32_t id)
{
    if (!m->cap)
        return;
    size_t i = probe(m, id);
    if (!m->used[i])
        return;
    m->used[i] = 0;
    m->n--;
    /* backward shift: move up entries whose probe run crossed the hole */
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        size_t h = home(m, m->slot[j].req);
        int between = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (between)
            continue;
        m->slot[i] = m->slot[j];
        m->used[i] = 1;
        m->used[j] = 0;
        i = j;
    }
}

/* Tracks e's effect on the live requests: a creating event defines (or
 * redefines) its id; a completion ends the non-persistent ones it names;
 * Request_free ends any. Call after the event was written (its lookups
 * need the requests it completes). */
int lt_reqmap_track(lt_reqmap *m, const mc_event *e)
{
    if (e->req != MC_NO_REQ && mc_op_kind_of(e->op) != MC_KIND_W)
        return lt_reqmap_put(m, e);
    if (mc_op_kind_of(e->op) != MC_KIND_W || e->op == MC_OP_START || e->op == MC_OP_STARTALL)
        return 0;
    if (e->op == MC_OP_REQUEST_FREE) {
        for (uint32_t k = 0; k < e->nvals; k++)
            lt_reqmap_del(m, (uint32_t)e->vals[k]);
        return 0;
    }
    for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
        const lt_reqdef *d = lt_reqmap_get(m, (uint32_t)e->vals[k]);
        if (d && !lt_reqdef_persistent(d))
            lt_reqmap_del(m, (uint32_t)e->vals[k]);
    }
    return 0;
}

int lt_reqdef_persistent(const lt_reqdef *d)
{
    return mc_op_has(d->op, MC_OPF_PERSISTENT);
}
