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
    int sizes; /* MC_COMPRESS_SIZES_MEAN */
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
    int64_t *szsum;   /* sizes: the body's sizes summed over its iterations */
    uint32_t *szoff;  /* where body event k's are in szsum (nbody + 1) */
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

static int vals_equal(const mc_event *e, const mc_event *x, int aside)
{
    if (!aside)
        return !e->nvals || memcmp(e->vals, x->vals, e->nvals * sizeof *x->vals) == 0;
    for (uint32_t i = 0; i < e->nvals; i++)
        if (e->vals[i] != x->vals[i] && !mc_event_p2p_size(x, i))
            return 0;
    return 1;
}

/* Whether e is what a reader delivers for body event b in iteration j
 * (mc_loop_shift_requests): every field but times (and, with sizes, but
 * point-to-point sizes). */
static int same(rank_pass *p, const mc_event *e, const mc_event *b, uint64_t j)
{
    mc_event x = *b;
    x.vals = p->scratch; /* sized for the body's largest event */
    if (b->nvals)
        memcpy(x.vals, b->vals, b->nvals * sizeof *x.vals);
    mc_loop_shift_requests(&x, p->req_first, p->req_count, j);
    int aside = p->sizes && mc_event_p2p_size(&x, MC_FIELD_BYTES);
    return e->op == x.op && e->site == x.site && e->comm == x.comm && e->peer == x.peer &&
           e->tag == x.tag && (aside || e->bytes == x.bytes) && e->peer2 == x.peer2 &&
           e->tag2 == x.tag2 && (aside || e->bytes2 == x.bytes2) && e->req == x.req &&
           e->newcomm == x.newcomm && e->folded == x.folded &&
           (e->cpu == -1) == (x.cpu == -1) && e->nvals == x.nvals &&
           vals_equal(e, &x, p->sizes);
}

/* s / d rounded to the nearest, halves away from zero (d > 0). */
static int64_t round_div(int64_t s, int64_t d)
{
    return s >= 0 ? (s + d / 2) / d : -((-s + d / 2) / d);
}

/* ------------------------------------------------------------ mean sizes
 * (MC_COMPRESS_SIZES_MEAN): per body event, its point-to-point sizes summed
 * over the iterations that matched, then replaced by their mean. */

static uint32_t size_fields(const mc_event *e)
{
    return mc_event_p2p_size(e, MC_FIELD_BYTES) ? 2 : mc_event_p2p_size(e, 3) ? e->nvals / 4 : 0;
}

static int64_t size_get(const mc_event *e, uint32_t i)
{
    if (mc_event_p2p_size(e, MC_FIELD_BYTES))
        return i ? e->bytes2 : e->bytes;
    return e->vals[4 * i + 3];
}

static void size_set(mc_event *e, uint32_t i, int64_t v)
{
    if (mc_event_p2p_size(e, MC_FIELD_BYTES))
        *(i ? &e->bytes2 : &e->bytes) = v;
    else
        e->vals[4 * i + 3] = v;
}

static void add_sizes(rank_pass *p, const mc_event *e, uint32_t k)
{
    for (uint32_t i = 0; i < p->szoff[k + 1] - p->szoff[k]; i++)
        p->szsum[p->szoff[k] + i] += size_get(e, i);
}

/* Sums the body's own sizes; 0, or -1 out of memory. */
static int sizes_start(rank_pass *p)
{
    free(p->szsum);
    free(p->szoff);
    p->szsum = NULL;
    if (!(p->szoff = malloc((p->nbody + 1) * sizeof *p->szoff)))
        return -1;
    p->szoff[0] = 0;
    for (uint32_t k = 0; k < p->nbody; k++)
        p->szoff[k + 1] = p->szoff[k] + size_fields(&p->body[k].e);
    if (!(p->szsum = calloc(p->szoff[p->nbody] + 1, sizeof *p->szsum)))
        return -1;
    for (uint32_t k = 0; k < p->nbody; k++)
        add_sizes(p, &p->body[k].e, k);
    return 0;
}

/* The body's sizes become their mean over n iterations, rounded. */
static void sizes_mean(rank_pass *p, uint64_t n)
{
    int64_t d = (int64_t)n;
    for (uint32_t k = 0; k < p->nbody; k++)
        for (uint32_t i = 0; i < p->szoff[k + 1] - p->szoff[k]; i++)
            size_set(&p->body[k].e, i, round_div(p->szsum[p->szoff[k] + i], d));
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
        for (uint32_t k = 0; k < p->nbody; k++) { /* the iteration matched */
            if (add_row(p, &p->pend[k].e, k) != 0)
                return -1;
            if (p->sizes)
                add_sizes(p, &p->pend[k].e, k);
        }
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
        for (size_t i = 0; i < (size_t)p->nbody * cols; i++) /* means */
            p->rows[i] = round_div(p->rows[i], (int64_t)(n - 1));
    mc_loop_record l = {.iterations = n, .period = p->nbody, .req_first = p->req_first,
                        .req_count = p->req_count, .exact = p->exact, .cpu = p->cpu, .at = at,
                        .loop_end = loop_end, .times = p->rows};
    if (p->sizes)
        sizes_mean(p, n);
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
        int64_t loop_end = 0, n = -1;
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
            if (p->sizes && sizes_start(p) != 0)
                return -1;
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

/* ------------------------------------------------------------ aligned loops
 *
 * The finder picks each rank's loop on its own, so ranks whose iterations
 * differ (a multigrid's coarse levels on some ranks) may see the same loop
 * rotated: rank 4 from its Allreduce, rank 8 from a coarse-level Sendrecv.
 * MC_COMPRESS_ALIGN starts every rank's loop at one shared event: an
 * (operation, site) that every looped rank's iteration has exactly once, at
 * the same occurrence of it in every rank's stream (the latest any rank's
 * own loop allows), chosen to rotate the loops the least. */

#define ALIGN_CANDIDATES 8

typedef struct align_key {
    int32_t op, site;
} align_key;

typedef struct align_cost {
    uint64_t off;    /* offset in the iteration; UINT64_MAX: not exactly once there */
    uint64_t before; /* occurrences before the iteration */
} align_cost;

static int looped(const mc_loop *lp)
{
    return lp->iterations >= 3 && lp->period <= MC_LOOP_MAX_PERIOD;
}

static int key_cmp(const void *a, const void *b)
{
    const align_key *x = a, *y = b;
    return x->op != y->op ? (x->op < y->op ? -1 : 1)
           : x->site != y->site ? (x->site < y->site ? -1 : 1)
                                : 0;
}

/* Event i (0 .. first + period) of rank r, read in order: MC_OK, or the
 * error (the finder saw the loop, so an end inside it is a changed trace). */
static mc_err next_upto_loop(mc_source *s, const char *trace, int r, mc_event *e, mc_error *err)
{
    int got = mc_source_next(s, r, e, err);
    if (got > 0)
        return MC_OK;
    return got < 0 ? (err->code ? err->code : MC_ERR_FORMAT)
                   : mc_error_set(err, MC_ERR_FORMAT, "%s: rank %d ended inside its loop",
                                  trace, r);
}

/* The candidates: the keys rank r's iteration has exactly once, in its order. */
static mc_err align_candidates(const char *trace, int r, const mc_loop *lp, align_key *cand,
                               int *ncand, mc_error *err)
{
    mc_source *s = mc_input_open(trace, err);
    align_key *body = malloc(lp->period * sizeof *body), *sorted = NULL;
    mc_err rc = !s ? (err->code ? err->code : MC_ERR_IO) : MC_OK;
    if (!rc && !body)
        rc = mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    mc_event e;
    for (uint64_t i = 0; !rc && i < lp->first + lp->period; i++)
        if (!(rc = next_upto_loop(s, trace, r, &e, err)) && i >= lp->first)
            body[i - lp->first] = (align_key){e.op, e.site};
    if (!rc && !(sorted = malloc(lp->period * sizeof *sorted)))
        rc = mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    *ncand = 0;
    if (!rc) {
        memcpy(sorted, body, lp->period * sizeof *sorted);
        qsort(sorted, lp->period, sizeof *sorted, key_cmp);
        for (uint64_t i = 0; i < lp->period && *ncand < ALIGN_CANDIDATES; i++) {
            align_key *hit = bsearch(&body[i], sorted, lp->period, sizeof *sorted, key_cmp);
            size_t at = (size_t)(hit - sorted);
            int once = (at == 0 || key_cmp(&sorted[at - 1], hit)) &&
                       (at + 1 == lp->period || key_cmp(&sorted[at + 1], hit));
            if (once)
                cand[(*ncand)++] = body[i];
        }
    }
    free(body);
    free(sorted);
    mc_source_close(s);
    return rc;
}

/* Where each candidate is in every looped rank's stream (cost[r * nc + c]). */
static mc_err align_scan(const char *trace, int nranks, const mc_loop *lp, const align_key *cand,
                         int nc, align_cost *cost, mc_error *err)
{
    mc_source *s = mc_input_open(trace, err);
    mc_err rc = !s ? (err->code ? err->code : MC_ERR_IO) : MC_OK;
    for (int r = 0; !rc && r < nranks; r++) {
        if (!looped(&lp[r]))
            continue;
        align_cost *c = &cost[(size_t)r * nc];
        uint64_t seen[ALIGN_CANDIDATES] = {0};
        for (int k = 0; k < nc; k++)
            c[k] = (align_cost){UINT64_MAX, 0};
        mc_event e;
        for (uint64_t i = 0; !rc && i < lp[r].first + lp[r].period; i++) {
            if ((rc = next_upto_loop(s, trace, r, &e, err)))
                break;
            for (int k = 0; k < nc; k++) {
                if (e.op != cand[k].op || e.site != cand[k].site)
                    continue;
                if (i < lp[r].first)
                    c[k].before++;
                else if (!seen[k]++)
                    c[k].off = i - lp[r].first;
                else
                    c[k].off = UINT64_MAX - 1; /* twice in the iteration */
            }
        }
        for (int k = 0; k < nc; k++)
            if (c[k].off == UINT64_MAX - 1)
                c[k].off = UINT64_MAX;
    }
    mc_source_close(s);
    return rc;
}

/* The new first events for candidate k (0 if some looped rank lacks it): its
 * occurrence, the same in every rank, and the total rotation in *moved. */
static int align_with(const mc_loop *lp, int nranks, const align_cost *cost, int nc, int k,
                      uint64_t *occ, uint64_t *moved)
{
    uint64_t most = 0, sum = 0;
    for (int r = 0; r < nranks; r++) {
        const align_cost *c = &cost[(size_t)r * nc + k];
        if (!looped(&lp[r]))
            continue;
        if (c->off == UINT64_MAX)
            return 0;
        most = c->before > most ? c->before : most;
    }
    for (int r = 0; r < nranks; r++) {
        const align_cost *c = &cost[(size_t)r * nc + k];
        if (looped(&lp[r]))
            sum += c->off + (most - c->before) * lp[r].period;
    }
    *occ = most;
    *moved = sum;
    return 1;
}

/* Moves the looped ranks' firsts to the candidate that rotates least, when
 * their loops do not all start at the same event already. */
static mc_err align_loops(const char *trace, int nranks, mc_loop *lp, mc_error *err)
{
    int r0 = -1, differ = 0;
    for (int r = 0; r < nranks; r++) {
        if (!looped(&lp[r]))
            continue;
        if (r0 < 0)
            r0 = r;
        else if (lp[r].first != lp[r0].first)
            differ = 1;
    }
    if (!differ)
        return MC_OK;
    align_key cand[ALIGN_CANDIDATES];
    int nc = 0;
    mc_err rc = align_candidates(trace, r0, &lp[r0], cand, &nc, err);
    if (rc || !nc)
        return rc;
    align_cost *cost = malloc((size_t)nranks * nc * sizeof *cost);
    if (!cost)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    rc = align_scan(trace, nranks, lp, cand, nc, cost, err);
    int best = -1;
    uint64_t best_occ = 0, best_moved = UINT64_MAX;
    for (int k = 0; !rc && k < nc; k++) {
        uint64_t occ, moved;
        if (align_with(lp, nranks, cost, nc, k, &occ, &moved) && moved < best_moved) {
            best = k;
            best_occ = occ;
            best_moved = moved;
        }
    }
    for (int r = 0; best >= 0 && r < nranks; r++) {
        const align_cost *c = &cost[(size_t)r * nc + best];
        if (!looped(&lp[r]))
            continue;
        lp[r].first += c->off + (best_occ - c->before) * lp[r].period;
        lp[r].op = cand[best].op;
        lp[r].site = cand[best].site;
    }
    free(cost);
    return rc;
}

/* Every rank's main loop, aligned. */
static mc_err find_aligned(const char *trace, mc_source *scan, mc_loop_finder *f, mc_loop *lp,
                           mc_error *err)
{
    for (int r = 0; r < scan->nranks; r++) {
        mc_err rc = find_loop(scan, r, f, &lp[r], err);
        if (rc)
            return rc;
    }
    return align_loops(trace, scan->nranks, lp, err);
}

mc_err mc_compress_trace(const char *trace, const char *outdir, int flags,
                         mc_compress_info *info, void (*on_rank)(void *ctx, int rank),
                         void *ctx, mc_error *err)
{
    int exact = flags & MC_COMPRESS_EXACT, sizes = (flags & MC_COMPRESS_SIZES_MEAN) != 0;
    mc_compress_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    mc_source *scan = mc_input_open(trace, err), *src = scan ? mc_input_open(trace, err) : NULL;
    mc_loop_finder *f = mc_loop_finder_create();
    mc_err rc = !scan || !src ? (err->code ? err->code : MC_ERR_IO) : MC_OK;
    if (!rc && !f)
        rc = mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    if (f)
        mc_loop_finder_sizes_aside(f, sizes);
    info->ranks = src ? src->nranks : 0;
    mc_loop *all = NULL; /* aligned: every rank's, found first */
    if (!rc && (flags & MC_COMPRESS_ALIGN)) {
        if (!(all = calloc((size_t)(info->ranks ? info->ranks : 1), sizeof *all)))
            rc = mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
        else
            rc = find_aligned(trace, scan, f, all, err);
    }
    if (!rc)
        rc = write_meta(src, outdir, exact, err);
    for (int r = 0; !rc && r < info->ranks; r++) {
        mc_loop lp = {0};
        if (all)
            lp = all[r];
        else
            rc = find_loop(scan, r, f, &lp, err);
        if (rc)
            break;
        rank_pass p = {.src = src, .rank = r, .exact = exact, .sizes = sizes, .info = info,
                       .err = err};
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
        free(p.szsum);
        free(p.szoff);
        if (!rc && on_rank)
            on_rank(ctx, r);
    }
    free(all);
    mc_loop_finder_destroy(f);
    mc_source_close(scan);
    mc_source_close(src);
    return rc;
}
