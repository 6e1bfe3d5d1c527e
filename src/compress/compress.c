/* Loop-compressed traces (include/mpicast/compress.h): per rank, a pass of
 * the loop finder, then a pass that stores the loop once and checks every
 * other iteration against it. */
#include "mpicast/compress.h"

#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"
#include "mpicast/stats.h"

/* Exact times are split into records of at most this many values, so a
 * reader holds 64 KiB of them per rank (a decoded chunk is about 200 KiB). */
#define MC_LOOP_VALUES_PER_RECORD 8192u

/* One event held with its own copy of its values. */
typedef struct held {
    mc_event e;
    int64_t *vals;
} held;

typedef struct rank_pass {
    mc_source *src;
    mc_writer *w;
    int rank;
    int exact;
    mc_compress_info *info;
    mc_error *err;
    int64_t last_end; /* t_end of the last event written or held */
    int have_last;
    held *body, *pend; /* the stored iteration; a partial one that differed */
    uint32_t nbody, npend;
    uint32_t req_first, req_count;
    int cpu;
    int64_t *scratch; /* a body event's values, shifted (same) */
    int64_t *rows; /* exact: per iteration rows; means: sums */
    size_t nrows, rows_cap;
    uint64_t records; /* loop records of this rank */
    uint64_t delivered; /* events a reader delivers up to here */
} rank_pass;

static int hold(held *h, const mc_event *e)
{
    h->e = *e;
    h->vals = NULL;
    if (e->nvals) {
        h->vals = malloc(e->nvals * sizeof *h->vals);
        if (!h->vals)
            return -1;
        memcpy(h->vals, e->vals, e->nvals * sizeof *h->vals);
    }
    h->e.vals = h->vals;
    return 0;
}

static void drop(held *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(h[i].vals);
}

static mc_err put(rank_pass *p, const mc_event *e)
{
    p->info->stored++;
    p->delivered++;
    return mc_writer_add(p->w, e, p->err);
}

/* Next event of the rank: 1, 0 at the end, -1 with the error set. */
static int next(rank_pass *p, mc_event *e)
{
    int rc = mc_source_next(p->src, p->rank, e, p->err);
    if (rc == 1)
        p->info->events++;
    return rc;
}

/* Whether e is what a reader delivers for body event b in iteration j
 * (mc_loop_shift_requests): every field but times. */
static int same(rank_pass *p, const mc_event *e, const mc_event *b, uint64_t j)
{
    mc_event x = *b;
    x.vals = p->scratch; /* sized for the body's largest event */
    if (b->nvals)
        memcpy(x.vals, b->vals, b->nvals * sizeof *x.vals);
    mc_loop_shift_requests(&x, p->req_first, p->req_count, j);
    return e->op == x.op && e->site == x.site && e->comm == x.comm && e->peer == x.peer &&
           e->tag == x.tag && e->bytes == x.bytes && e->peer2 == x.peer2 &&
           e->tag2 == x.tag2 && e->bytes2 == x.bytes2 && e->req == x.req &&
           e->newcomm == x.newcomm && e->folded == x.folded &&
           (e->cpu == -1) == (x.cpu == -1) && e->nvals == x.nvals &&
           (!e->nvals || memcmp(e->vals, x.vals, e->nvals * sizeof *x.vals) == 0);
}

/* The requests the body creates must be consecutive ids (the tracer's
 * numbering) for the reader to move them on; 0 if they are (and the scratch
 * values of `same` are allocated), -1 if not, -2 out of memory. */
static int body_requests(rank_pass *p)
{
    uint32_t first = 0, n = 0, prev = 0, most = 1;
    for (uint32_t k = 0; k < p->nbody; k++)
        most = p->body[k].e.nvals > most ? p->body[k].e.nvals : most;
    free(p->scratch);
    if (!(p->scratch = malloc(most * sizeof *p->scratch)))
        return -2;
    for (uint32_t k = 0; k < p->nbody; k++) {
        uint32_t id = p->body[k].e.req;
        if (!id)
            continue;
        if (n && id != prev + 1)
            return -1;
        if (!n)
            first = id;
        prev = id;
        n++;
    }
    p->req_first = first;
    p->req_count = n;
    return 0;
}

static int add_row(rank_pass *p, const mc_event *e, uint32_t k)
{
    int cols = p->cpu ? 3 : 2;
    int64_t v[3] = {e->burst, e->t_end - e->t_start, e->cpu};
    if (!p->exact) { /* sums; the first row holds them */
        for (int c = 0; c < cols; c++)
            p->rows[(size_t)k * cols + c] += v[c];
        return 0;
    }
    if (p->nrows + cols > p->rows_cap) {
        size_t cap = p->rows_cap ? 2 * p->rows_cap : 1024;
        int64_t *r = realloc(p->rows, cap * sizeof *r);
        if (!r)
            return -1;
        p->rows = r;
        p->rows_cap = cap;
    }
    memcpy(p->rows + p->nrows, v, (size_t)cols * sizeof *v);
    p->nrows += (size_t)cols;
    return 0;
}

/* Reads the loop's iterations after the body, up to max in all; returns
 * how many matched (body included), with a partial iteration in pend and
 * *end set at the end of the stream. -1 on error. */
static int64_t match_iterations(rank_pass *p, uint64_t max, int *end, int64_t *loop_end)
{
    uint64_t j = 1;
    *end = 0;
    *loop_end = p->body[p->nbody - 1].e.t_end;
    for (; j < max; j++) {
        for (uint32_t k = 0; k < p->nbody; k++) {
            mc_event e;
            int rc = next(p, &e);
            if (rc < 0)
                return -1;
            if (rc == 0) {
                *end = 1;
                return (int64_t)j;
            }
            if (hold(&p->pend[p->npend], &e) != 0)
                return -1;
            p->npend++;
            if (!same(p, &e, &p->body[k].e, j))
                return (int64_t)j;
        }
        for (uint32_t k = 0; k < p->nbody; k++) /* the iteration matched */
            if (add_row(p, &p->pend[k].e, k) != 0)
                return -1;
        *loop_end = p->pend[p->nbody - 1].e.t_end;
        drop(p->pend, p->npend);
        p->npend = 0;
    }
    return (int64_t)j;
}

/* Writes a loop record of n iterations for the body, then the body. */
static mc_err write_loop(rank_pass *p, uint64_t n, int64_t at, int64_t loop_end)
{
    int cols = p->cpu ? 3 : 2;
    if (!p->exact && n > 1)
        for (size_t i = 0; i < (size_t)p->nbody * cols; i++) { /* means, rounded */
            int64_t s = p->rows[i], d = (int64_t)(n - 1);
            p->rows[i] = s >= 0 ? (s + d / 2) / d : -((-s + d / 2) / d);
        }
    mc_loop_record l = {.iterations = n, .period = p->nbody, .req_first = p->req_first,
                        .req_count = p->req_count, .exact = p->exact, .cpu = p->cpu, .at = at,
                        .loop_end = loop_end, .times = p->rows};
    mc_err rc = mc_writer_add_loop(p->w, &l, p->err);
    p->info->stored++;
    p->info->records++;
    if (!p->records++) {
        p->info->rank_first = p->delivered;
        p->info->rank_iterations = n;
        p->info->rank_period = p->nbody;
        p->info->rank_req_first = p->req_first;
        p->info->rank_req_count = p->req_count;
    }
    p->delivered += (n - 1) * p->nbody; /* the body's puts deliver the first */
    if (p->rank == 0) {
        p->info->iterations += n;
        p->info->period = p->nbody;
    }
    for (uint32_t k = 0; !rc && k < p->nbody; k++)
        rc = put(p, &p->body[k].e);
    return rc;
}

/* Exact times are kept in records of at most this many iterations. */
static uint64_t block_iterations(const rank_pass *p, uint64_t left)
{
    if (!p->exact)
        return left;
    uint64_t per = MC_LOOP_VALUES_PER_RECORD / ((uint64_t)p->nbody * (p->cpu ? 3 : 2));
    per = per ? per + 1 : 1;
    return left < per ? left : per;
}

/* Stores the rest of an iteration that differed (its first npend events
 * are stored): the next block starts where the next iteration does. 1 at
 * the end of the stream, 0, -1 on error. */
static int finish_iteration(rank_pass *p, uint32_t npend)
{
    for (uint32_t k = npend; k < p->nbody; k++) {
        mc_event e;
        int rc = next(p, &e);
        if (rc <= 0)
            return rc < 0 ? -1 : 1;
        if (put(p, &e))
            return -1;
        p->last_end = e.t_end;
    }
    return 0;
}

/* The loop from the current position: blocks of iterations, each a record
 * and its body. An iteration that differs is stored as it is and the next
 * one starts a new block, so an odd iteration in the middle costs one
 * iteration; the loop ends when a block's first iteration is not repeated
 * (the epilogue). The finder gave where the iterations start and their
 * length; how many there are is found here. 1 at the end of the stream, 0
 * to go on copying, -1 on error. */
static int compress_loop(rank_pass *p, const mc_loop *lp)
{
    uint64_t left = UINT64_MAX;
    while (left > 1) {
        p->nbody = 0;
        for (uint32_t k = 0; k < lp->period; k++) {
            mc_event e;
            int rc = next(p, &e);
            if (rc <= 0) { /* the stream ended: what was read is stored as it is */
                for (uint32_t i = 0; rc == 0 && i < p->nbody; i++)
                    if (put(p, &p->body[i].e))
                        rc = -1;
                return rc < 0 ? -1 : 1;
            }
            if (hold(&p->body[p->nbody++], &e) != 0)
                return -1;
            p->cpu |= e.cpu != -1;
        }
        int64_t at = p->have_last ? p->last_end : p->body[0].e.t_start;
        int end = 0;
        int64_t loop_end, n = -1;
        size_t cols = p->cpu ? 3 : 2;
        int br = body_requests(p);
        if (br == -2)
            return -1;
        if (br == 0) {
            p->nrows = 0;
            if (!p->exact) {
                free(p->rows);
                p->rows = calloc((size_t)p->nbody * cols, sizeof *p->rows);
                p->rows_cap = p->rows ? (size_t)p->nbody * cols : 0;
                if (!p->rows)
                    return -1;
            }
            n = match_iterations(p, block_iterations(p, left), &end, &loop_end);
            if (n < 0)
                return -1;
        }
        mc_err rc = MC_OK;
        if (n >= 2)
            rc = write_loop(p, (uint64_t)n, at, loop_end);
        for (uint32_t k = 0; n < 2 && !rc && k < p->nbody; k++)
            rc = put(p, &p->body[k].e); /* no loop after all: as it is */
        for (uint32_t k = 0; !rc && k < p->npend; k++)
            rc = put(p, &p->pend[k].e);
        /* the last event written: of the partial iteration, else of the loop */
        p->last_end = p->npend ? p->pend[p->npend - 1].e.t_end
                      : n >= 2 ? loop_end
                               : p->body[p->nbody - 1].e.t_end;
        p->have_last = 1;
        uint32_t npend = p->npend;
        drop(p->pend, p->npend);
        p->npend = 0;
        int fin = rc ? -1 : end ? 1 : n >= 2 && npend ? finish_iteration(p, npend) : 0;
        drop(p->body, p->nbody);
        p->nbody = 0;
        if (fin)
            return fin;
        if (n < 2)
            return 0;
        left -= (uint64_t)n;
    }
    return 0;
}

static mc_err copy_rest(rank_pass *p)
{
    mc_event e;
    int rc;
    while ((rc = next(p, &e)) == 1)
        if (put(p, &e))
            return p->err->code;
    return rc < 0 ? (p->err->code ? p->err->code : MC_ERR_FORMAT) : MC_OK;
}

/* Writes rank r: copy up to the loop, the loop, then the rest. */
static mc_err compress_rank(rank_pass *p, const mc_loop *lp)
{
    mc_event e;
    for (uint64_t i = 0; lp->iterations >= 3 && i < lp->first; i++) {
        int rc = next(p, &e);
        if (rc <= 0)
            return rc < 0 ? p->err->code : MC_OK;
        if (put(p, &e))
            return p->err->code;
        p->last_end = e.t_end;
        p->have_last = 1;
    }
    if (lp->iterations >= 3 && lp->period <= MC_LOOP_MAX_PERIOD) {
        p->body = calloc(lp->period, sizeof *p->body);
        p->pend = calloc(lp->period, sizeof *p->pend);
        if (!p->body || !p->pend)
            return mc_error_set(p->err, MC_ERR_NOMEM, "out of memory");
        int rc = compress_loop(p, lp);
        if (rc < 0)
            return p->err->code ? p->err->code : mc_error_set(p->err, MC_ERR_NOMEM, "out of memory");
        if (rc == 1)
            return MC_OK;
    }
    return copy_rest(p);
}

/* meta.json: the input's, if any, with "compressed" (exact or means) set,
 * which predict --iterations looks for. */
static mc_err write_meta(mc_source *src, const char *outdir, int exact, mc_error *err)
{
    const mc_meta *in = mc_source_meta(src);
    mc_err rc = in ? mc_meta_write(in, outdir, err) : MC_OK;
    mc_meta *m = rc ? NULL : in ? mc_meta_read(outdir, err) : mc_meta_create(src->nranks);
    if (!rc && !m)
        rc = err->code ? err->code : mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = mc_meta_set(m, "compressed", exact ? "exact" : "means", err);
    if (!rc)
        rc = mc_meta_write(m, outdir, err);
    mc_meta_destroy(m);
    return rc;
}

/* The main loop of rank r, from a pass of its own. */
static mc_err find_loop(mc_source *src, int r, mc_loop_finder *f, mc_loop *out, mc_error *err)
{
    mc_loop_finder_reset(f);
    mc_event e;
    int rc;
    while ((rc = mc_source_next(src, r, &e, err)) == 1)
        if (mc_loop_finder_add(f, &e) != 0)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    if (rc < 0)
        return err->code ? err->code : MC_ERR_FORMAT;
    *out = mc_loop_finder_result(f);
    return MC_OK;
}

mc_err mc_compress_trace(const char *trace, const char *outdir, int exact,
                         mc_compress_info *info, void (*on_rank)(void *ctx, int rank),
                         void *ctx, mc_error *err)
{
    mc_compress_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    mc_source *scan = mc_input_open(trace, err), *src = scan ? mc_input_open(trace, err) : NULL;
    mc_loop_finder *f = mc_loop_finder_create();
    mc_err rc = !scan || !src ? (err->code ? err->code : MC_ERR_IO) : MC_OK;
    if (!rc && !f)
        rc = mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    info->ranks = src ? src->nranks : 0;
    if (!rc)
        rc = write_meta(src, outdir, exact, err);
    for (int r = 0; !rc && r < info->ranks; r++) {
        mc_loop lp = {0};
        rc = find_loop(scan, r, f, &lp, err);
        if (rc)
            break;
        rank_pass p = {.src = src, .rank = r, .exact = exact, .info = info, .err = err};
        info->rank_first = info->rank_iterations = 0;
        info->rank_period = info->rank_req_first = info->rank_req_count = 0;
        p.w = mc_writer_open(outdir, r, 0, 0, err);
        if (!p.w) {
            rc = err->code ? err->code : MC_ERR_IO;
            break;
        }
        rc = compress_rank(&p, &lp);
        info->ranks_looped += p.records > 0;
        info->rank_records = p.records;
        mc_err crc = mc_writer_close(p.w, rc ? NULL : err);
        rc = rc ? rc : crc;
        free(p.body);
        free(p.pend);
        free(p.scratch);
        free(p.rows);
        if (!rc && on_rank)
            on_rank(ctx, r);
    }
    mc_loop_finder_destroy(f);
    mc_source_close(scan);
    mc_source_close(src);
    return rc;
}
