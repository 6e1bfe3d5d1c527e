/* Reading the traces into memory for inference: every rank of every trace
 * (small runs), or of its folded copy (fold.c), within a bound on the
 * events held. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/input.h"

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

mc_err extrap_read_trace(xbuild *b, int k, mc_error *err)
{
    mc_extrap *x = b->x;
    const xfold *fold;
    mc_source *s = open_trace(b, k, &fold, err);
    if (!s)
        return err->code ? err->code : MC_ERR_IO;
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
