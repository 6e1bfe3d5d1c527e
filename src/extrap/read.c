/* Reading the traces into memory for inference: every rank of every trace
 * (small runs), or of its folded copy (fold.c), within a bound on the
 * events held. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/input.h"
#include "mpicast/format.h"

#define MAX_EVENTS_IN_MEMORY (1u << 26) /* all input events: keeps RAM bounded */
/* What inference holds per input event (the event, its values, its
 * template and its class), measured: 1.08 GB peak for 10^6 events and
 * 4.3 GB for 4·10^6 (bench_bigtrace, docs/performance.md). */
#define BYTES_PER_EVENT_HELD 1100u

/* Input events inference may hold: half the RAM at BYTES_PER_EVENT_HELD
 * each, so a trace too long is refused with the reason instead of the
 * process being killed for memory (2·10^7 events took 21 GB). */
uint64_t extrap_max_events_held(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t half = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)1 << 32;
    uint64_t n = half / BYTES_PER_EVENT_HELD;
    return n < MAX_EVENTS_IN_MEMORY ? n : MAX_EVENTS_IN_MEMORY;
}


/* Trace k's source: its folded copy's, two iterations per loop, if any. */
static mc_source *open_trace(xbuild *b, int k, const xfold **fold, mc_error *err)
{
    mc_extrap *x = b->x;
    *fold = b->folds && b->folds[k].dir[0] ? &b->folds[k] : NULL;
    mc_source *s = mc_input_open(*fold ? (*fold)->dir : x->paths[k], err);
    if (s && *fold && mc_trace_set_loop_cap(s, 2, err)) {
        mc_source_close(s);
        s = NULL;
    }
    if (!s && *fold)
        mc_error_replace(err, (*fold)->dir, x->paths[k]);
    if (s && mc_source_check_replayable(s, x->paths[k], err)) {
        mc_source_close(s);
        s = NULL;
    }
    return s;
}

/* Past the events inference holds: refused, or (unfolded) a fold wanted. */
static mc_err too_many(xbuild *b, int k, const xfold *fold, mc_error *err)
{
    if (!b->folds) {
        b->fold_wanted = 1;
        return mc_error_set(err, MC_ERR_USAGE, "%s: more than %llu input events: folding "
                            "each rank's main loop", b->x->paths[k],
                            (unsigned long long)b->max_events);
    }
    return mc_error_set(err, MC_ERR_USAGE, "%s: more than %llu input events%s: extrapolation "
                        "holds each in memory (about %u B), and that many fill half of this "
                        "machine's RAM; trace a shorter run (fewer iterations) to extrapolate "
                        "from", b->x->paths[k], (unsigned long long)b->max_events,
                        fold ? " with each rank's main loop folded to two iterations" : "",
                        BYTES_PER_EVENT_HELD);
}

/* Trace k's call sites, for messages: its meta data, if it has any (a
 * time-independent trace has none). */
static void read_meta(mc_extrap *x, int k)
{
    if (!x->meta && !(x->meta = calloc((size_t)x->ntraces, sizeof *x->meta)))
        return;
    mc_error ignored = {0};
    x->meta[k] = mc_meta_read(x->paths[k], &ignored);
}

const char *extrap_site_where(const mc_meta *m, int32_t site, char *buf, size_t len)
{
    const mc_meta_site *s = m && site ? mc_meta_site_find(m, site) : NULL;
    buf[0] = 0;
    if (!s)
        return buf;
    const char *file = s->file && s->file[0] ? strrchr(s->file, '/') : NULL;
    file = file ? file + 1 : s->file;
    int has_fn = s->function && s->function[0];
    if (file && file[0] && s->line > 0)
        snprintf(buf, len, "%s:%d%s%s", file, s->line, has_fn ? " in " : "",
                 has_fn ? s->function : "");
    else if (has_fn)
        snprintf(buf, len, "in %s", s->function);
    return buf;
}

const char *extrap_op_at(const mc_extrap *x, int k, const mc_event *e, char *buf, size_t len)
{
    const char *op = mc_op_name(e->op);
    if (!e->site) {
        snprintf(buf, len, "%s", op);
        return buf;
    }
    char where[EXTRAP_OP_AT_MAX];
    extrap_site_where(x->meta && k >= 0 && k < x->ntraces ? x->meta[k] : NULL, e->site, where,
                      sizeof where);
    snprintf(buf, len, "%s, site %x%s%s", op, (unsigned)e->site, where[0] ? ", " : "", where);
    return buf;
}

uint64_t extrap_event_no(const xbuild *b, int k, int r, uint32_t i)
{
    uint64_t n = i;
    const xdrank *d = b->drank && b->drank[k] ? &b->drank[k][r] : NULL;
    for (uint32_t q = 0; d && d->m > 0 && q < d->nruns && d->pos[q] <= i; q++)
        n += (uint64_t)d->m * b->x->depth.len;
    const xfold *f = b->folds && b->folds[k].dir[0] ? &b->folds[k] : NULL;
    const xfold_rank *fr = f && r < f->nranks ? &f->rank[r] : NULL;
    if (fr && fr->iterations > 2 && n >= fr->first + 2 * (uint64_t)fr->period)
        n += (fr->iterations - 2) * (uint64_t)fr->period; /* the folded-out iterations */
    return n;
}

mc_err extrap_read_trace(xbuild *b, int k, mc_error *err)
{
    mc_extrap *x = b->x;
    const xfold *fold;
    mc_source *s = open_trace(b, k, &fold, err);
    if (!s)
        return err->code ? err->code : MC_ERR_IO;
    read_meta(x, k);
    int P = s->nranks;
    x->tP[k] = P;
    b->raw[k] = calloc((size_t)P, sizeof **b->raw);
    if (!b->raw[k]) {
        mc_source_close(s);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", x->paths[k]);
    }
    for (int r = 0; r < P; r++) {
        rawrank *rr = &b->raw[k][r];
        mc_event e;
        int rc;
        while ((rc = mc_source_next(s, r, &e, err)) == 1) {
            if (++b->total > b->max_events) {
                mc_source_close(s);
                return too_many(b, k, fold, err);
            }
            if (rr->n == rr->cap) {
                uint32_t cap = rr->cap ? rr->cap * 2 : 64;
                mc_event *ev = realloc(rr->ev, cap * sizeof *ev);
                if (!ev)
                    goto nomem;
                rr->ev = ev;
                rr->cap = cap;
            }
            mc_event *d = &rr->ev[rr->n++];
            *d = e;
            d->vals = NULL;
            if (e.nvals) {
                d->vals = malloc(e.nvals * sizeof *d->vals);
                if (!d->vals)
                    goto nomem;
                memcpy(d->vals, e.vals, e.nvals * sizeof *d->vals);
            }
            extrap_fold_renumber(fold, r, rr->n - 1, d);
        }
        if (rc < 0) {
            if (fold)
                mc_error_replace(err, fold->dir, x->paths[k]);
            mc_source_close(s);
            return err->code ? err->code : MC_ERR_FORMAT;
        }
    }
    mc_source_close(s);
    return MC_OK;
nomem:
    mc_source_close(s);
    return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", x->paths[k]);
}
