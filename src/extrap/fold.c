/* Folding the main loop of large inputs (extrap_impl.h, "Folded inputs"):
 * a trace is loop-compressed (means) into a private temporary directory, and
 * inference reads each rank's main loop as two iterations. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>
#include <string.h>

#include "mpicast/compress.h"
#include "mpicast/outfile.h"

/* Input events from which inference folds (MPICAST_EXTRAP_FOLD). */
#define FOLD_EVENTS_DEFAULT 500000u

uint64_t extrap_fold_threshold(void)
{
    const char *s = getenv("MPICAST_EXTRAP_FOLD");
    char *end;
    unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
    return s && *s && !*end ? (uint64_t)v : FOLD_EVENTS_DEFAULT;
}

typedef struct fold_ctx {
    void (*step)(void *ctx);
    void *step_ctx;
    xfold *f;
    mc_compress_info *info;
    int bad_rank;      /* first rank with more than one loop record, or -1 */
    uint64_t bad_records;
} fold_ctx;

static void rank_done(void *p, int r)
{
    fold_ctx *c = p;
    const mc_compress_info *in = c->info;
    if (c->step)
        c->step(c->step_ctx);
    if (in->rank_records > 1 && c->bad_rank < 0) {
        c->bad_rank = r;
        c->bad_records = in->rank_records;
    }
    if (r < c->f->nranks && in->rank_records == 1)
        c->f->rank[r] = (xfold_rank){.first = in->rank_first, .iterations = in->rank_iterations,
                                     .period = in->rank_period, .req_first = in->rank_req_first,
                                     .req_count = in->rank_req_count};
}

mc_err extrap_fold(const char *trace, int nranks, int data_sizes, void (*step)(void *ctx),
                   void *ctx, xfold *f, mc_error *err)
{
    memset(f, 0, sizeof *f);
    if (!(f->rank = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *f->rank)))
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    f->nranks = nranks;
    if (mc_out_temp_dir_create(f->dir, sizeof f->dir, "fold", trace, err)) {
        extrap_fold_free(f);
        return err->code;
    }
    mc_compress_info info;
    fold_ctx c = {.step = step, .step_ctx = ctx, .f = f, .info = &info, .bad_rank = -1};
    int flags = MC_COMPRESS_ALIGN | (data_sizes ? MC_COMPRESS_SIZES_MEAN : 0);
    mc_err rc = mc_compress_trace(trace, f->dir, flags, &info, rank_done, &c, err);
    if (rc) {
        mc_error_replace(err, f->dir, trace);
    } else if (info.ranks != nranks) {
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: %d ranks read, %d expected", trace,
                          info.ranks, nranks);
    } else if (c.bad_rank >= 0) {
        /* each record would deliver two iterations and lose the rest */
        rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d: an iteration of its main loop "
                          "differs from the others (%llu loop records): a main loop is folded "
                          "only when every iteration is alike", trace, c.bad_rank,
                          (unsigned long long)c.bad_records);
    }
    f->looped = info.ranks_looped;
    f->events = info.events;
    if (rc)
        extrap_fold_free(f);
    return rc;
}

void extrap_fold_free(xfold *f)
{
    if (!f)
        return;
    if (f->dir[0])
        mc_out_dir_abort(f->dir);
    free(f->rank);
    memset(f, 0, sizeof *f);
}

int extrap_fold_tag(const xfold *f, int r, uint64_t i)
{
    if (!f || !f->dir[0] || r < 0 || r >= f->nranks)
        return 0;
    const xfold_rank *fr = &f->rank[r];
    if (fr->iterations < 2 || i < fr->first)
        return 0;
    uint64_t k = (i - fr->first) / fr->period;
    return k < 2 ? (int)k + 1 : 0;
}

void extrap_fold_renumber(const xfold *f, int r, uint64_t i, mc_event *e)
{
    if (!f || !f->dir[0] || r < 0 || r >= f->nranks)
        return;
    const xfold_rank *fr = &f->rank[r];
    if (fr->iterations <= 2 || !fr->req_count || i < fr->first + 2 * (uint64_t)fr->period)
        return;
    /* ids after the second iteration's are those of a run with two */
    uint64_t lo = (uint64_t)fr->req_first + 2 * (uint64_t)fr->req_count;
    mc_event_shift_requests(e, lo, UINT64_MAX,
                            -(int64_t)((fr->iterations - 2) * fr->req_count));
}

int extrap_fold_region(const tev *ev, uint32_t n, xloop *out)
{
    uint32_t i = 0, a1, a2, b;
    memset(out, 0, sizeof *out);
    while (i < n && ev[i].loop == 0)
        i++;
    if (i == n)
        return 0; /* no folded loop */
    for (a1 = i; i < n && ev[i].loop == 1;)
        i++;
    for (a2 = i; i < n && ev[i].loop == 2;)
        i++;
    b = i;
    while (i < n && ev[i].loop == 0)
        i++;
    if (i != n || a2 == a1 || b == a2)
        return -1; /* not prefix, iteration 0, iteration 1, rest */
    out->a = a2;
    out->b = b;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t k = a2; k < b; k++) /* ids the iteration creates: consecutive */
        if (ev[k].e.req) {
            lo = ev[k].e.req < lo ? ev[k].e.req : lo;
            hi = ev[k].e.req > hi ? ev[k].e.req : hi;
            out->nreq++;
        }
    if (out->nreq && hi - lo + 1 != out->nreq)
        return -1;
    out->first_req = out->nreq ? lo : 0;
    return 1;
}
