/* A profile evaluated on one model and bound to a trace's sites: the
 * simulator's compute hook of `predict --profile` (include/mpicast/cpu.h).
 * The lookup mirrors the compute table's (src/format/blocks.c): blocks by
 * file:line keys, the rank's row first, then the all-ranks row. */
#include "cpu_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/blocks.h"

typedef struct time_row {
    long from, to;  /* key indices */
    int32_t rank;   /* -1: the block's all-ranks row */
    double s;       /* modelled time per burst */
    size_t block;   /* in the profile (all-ranks row: one of the block's) */
} time_row;


struct mc_cpu_times {
    mc_block_keys *keys; /* over the profile's strings (borrowed) */
    time_row *rows;      /* sorted by (from, to, rank) */
    size_t nrows;
    mc_cpu_counts counts;
};

static int cmp_row(const void *pa, const void *pb)
{
    const time_row *a = pa, *b = pb;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Numbers the profile's block keys (mc_block_keys; the strings stay the
 * profile's). */
static mc_err intern_keys(mc_cpu_times *t, const mc_cpu_profile *p, mc_error *err)
{
    size_t n = mc_cpu_profile_count(p);
    const char **all = malloc((2 * n + 1) * sizeof *all);
    if (!all)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        all[2 * i] = mc_cpu_profile_at(p, i)->from;
        all[2 * i + 1] = mc_cpu_profile_at(p, i)->to;
    }
    t->keys = mc_block_keys_create(all, 2 * n);
    free(all);
    return t->keys ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, "out of memory");
}

/* Appends one all-ranks row per block (rows sorted by block): the sum of
 * its rows' times over the sum of their bursts; keeps the per-rank rows
 * only when asked. */
static void add_all_ranks_rows(mc_cpu_times *t, const double *bursts, int per_rank)
{
    size_t n = t->nrows, out = per_rank ? n : 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double total = 0, nb = 0;
        for (; j < n && t->rows[j].from == t->rows[i].from && t->rows[j].to == t->rows[i].to; j++) {
            total += t->rows[j].s * bursts[t->rows[j].block];
            nb += bursts[t->rows[j].block];
        }
        t->rows[out++] = (time_row){t->rows[i].from, t->rows[i].to, -1, total / nb,
                                    t->rows[i].block};
        i = j;
    }
    t->nrows = out;
    if (t->nrows > 1)
        qsort(t->rows, t->nrows, sizeof *t->rows, cmp_row);
}

mc_cpu_times *mc_cpu_times_create(const mc_cpu_model *m, const mc_cpu_profile *p,
                                  const mc_meta *meta, double factor, int per_rank,
                                  mc_error *err)
{
    mc_cpu_times *t = calloc(1, sizeof *t);
    size_t n = mc_cpu_profile_count(p);
    double *bursts = calloc(n + 1, sizeof *bursts);
    if (!t || !bursts || !(t->rows = calloc(2 * n + 1, sizeof *t->rows))) {
        free(t);
        free(bursts);
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    cpu_memos ms;
    cpu_memos_init(&ms);
    if (intern_keys(t, p, err) != MC_OK)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const mc_cpu_block *b = mc_cpu_profile_at(p, i);
        mc_cpu_eval e;
        if (cpu_eval_block(m, p, i, &e, &ms, err) != MC_OK)
            goto fail;
        bursts[i] = b->bursts;
        t->rows[t->nrows++] = (time_row){mc_block_keys_find(t->keys, b->from),
                                         mc_block_keys_find(t->keys, b->to), b->rank,
                                         e.time / b->bursts * factor, i};
    }
    if (t->nrows > 1)
        qsort(t->rows, t->nrows, sizeof *t->rows, cmp_row);
    add_all_ranks_rows(t, bursts, per_rank);
    if (mc_block_keys_bind(t->keys, meta, err) != MC_OK)
        goto fail;
    cpu_memos_free(&ms);
    free(bursts);
    return t;
fail:
    cpu_memos_free(&ms);
    free(bursts);
    mc_cpu_times_destroy(t);
    return NULL;
}

void mc_cpu_times_destroy(mc_cpu_times *t)
{
    if (!t)
        return;
    mc_block_keys_destroy(t->keys);
    free(t->rows);
    free(t);
}

static const time_row *find(const mc_cpu_times *t, int32_t rank, long from, long to)
{
    time_row probe = {from, to, rank, 0, 0};
    return t->nrows ? bsearch(&probe, t->rows, t->nrows, sizeof *t->rows, cmp_row) : NULL;
}

static const time_row *lookup(const mc_cpu_times *t, int rank, int32_t prev_site, int32_t site)
{
    long from = mc_block_keys_of_site(t->keys, prev_site);
    long to = mc_block_keys_of_site(t->keys, site);
    if (from < 0 || to < 0)
        return NULL;
    const time_row *r = find(t, rank, from, to);
    return r || rank < 0 ? r : find(t, -1, from, to);
}

double mc_cpu_times_lookup(const mc_cpu_times *t, int rank, int32_t prev_site, int32_t site)
{
    const time_row *r = lookup(t, rank, prev_site, site);
    return r ? r->s : -1;
}

long mc_cpu_times_block(const mc_cpu_times *t, int rank, int32_t prev_site, int32_t site)
{
    const time_row *r = lookup(t, rank, prev_site, site);
    return r ? (long)r->block : -1;
}

int64_t mc_cpu_hook(void *ctx, int rank, int32_t prev_site, int32_t site, int64_t scaled_ps)
{
    mc_cpu_times *t = ctx;
    double s = mc_cpu_times_lookup(t, rank, prev_site, site);
    if (s < 0) {
        /* the first event of a rank closes no block: not a burst */
        if (prev_site != 0 || scaled_ps != 0)
            t->counts.fell_back++;
        return -1;
    }
    t->counts.from_profile++;
    double ps = s * 1e12;
    return ps < 9e18 ? llround(ps) : INT64_MAX / 2;
}

mc_cpu_counts mc_cpu_get_counts(const mc_cpu_times *t) { return t->counts; }
