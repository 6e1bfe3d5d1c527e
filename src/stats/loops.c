/* The main loop of a rank's event stream (mc_loop_finder, stats.h): the longest run of
 * identical iterations, found in one pass in memory bounded by the number
 * of distinct event shapes.
 *
 * Every event has a shape (its operation, site, communicator, peers, tags,
 * sizes and values; not its times, request ids or folded count). A shape k
 * that occurs once per iteration cuts the stream into segments, from one
 * occurrence of k to the next; a loop of N identical iterations makes N - 1
 * equal segments in a row, whatever event of the iteration k is. Per shape
 * we keep the current run of equal segments and the longest so far; the
 * main loop is the run covering the most events. Segments are compared by
 * a polynomial hash of the shape sequence modulo 2^61 - 1 (prefix hashes:
 * a segment's hash is H(end) - H(start) * B^len), so each event costs one
 * map lookup, and a power of B only when a segment's length changes. */
#include "mpicast/stats.h"

#include <stdlib.h>
#include <string.h>

#define MOD ((1ull << 61) - 1)
#define BASE 0x1f3d5b79a3c2e4f1ull % MOD
#define MAX_SHAPES (1u << 16) /* shapes tracked per rank: about 6 MiB */

typedef struct shape {
    uint64_t key;           /* shape hash; 0: empty slot */
    int32_t op, site;       /* the shape's first event's */
    uint64_t last_pos;      /* position of its last occurrence */
    uint64_t last_h;        /* prefix hash before it */
    uint64_t seg_hash, seg_len, seg_pow; /* the current run's segment, B^len */
    uint64_t run;           /* equal segments in a row (0: none yet) */
    uint64_t run_first;     /* position of the run's first occurrence */
    uint64_t best_run, best_len, best_first;
} shape;

struct mc_loop_finder {
    shape *tab;
    size_t cap, n;
    uint64_t pos; /* events seen */
    uint64_t h;   /* prefix hash of the events seen */
    int full;     /* MAX_SHAPES reached: new shapes are not tracked */
    int aside;    /* point-to-point sizes are not in the shapes */
};

static uint64_t mulmod(uint64_t a, uint64_t b)
{
    __uint128_t p = (__uint128_t)a * b;
    uint64_t lo = (uint64_t)(p & MOD), hi = (uint64_t)(p >> 61);
    uint64_t s = lo + hi;
    return s >= MOD ? s - MOD : s;
}

static uint64_t powmod(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    for (; e; e >>= 1, b = mulmod(b, b))
        if (e & 1)
            r = mulmod(r, b);
    return r;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* Nonzero hash of what an iteration repeats: times, request ids (they
 * advance every iteration) and folded poll counts (timing) left out; aside,
 * point-to-point sizes too (mc_event_p2p_size). */
static uint64_t shape_of(const mc_event *e, int aside)
{
#define FIELD(i, v) (aside && mc_event_p2p_size(e, i) ? 0 : (uint64_t)(v))
    uint64_t h = mix(0x51ed27u, (uint64_t)(uint32_t)e->op);
    h = mix(h, (uint64_t)(uint32_t)e->site);
    h = mix(h, e->comm);
    h = mix(h, (uint64_t)(uint32_t)e->peer << 32 | (uint32_t)e->tag);
    h = mix(h, FIELD(MC_FIELD_BYTES, e->bytes));
    h = mix(h, (uint64_t)(uint32_t)e->peer2 << 32 | (uint32_t)e->tag2);
    h = mix(h, FIELD(MC_FIELD_BYTES2, e->bytes2));
    h = mix(h, e->nvals);
    if (mc_op_has(e->op, MC_OPF_COMPLETION | MC_OPF_REQ_LIST))
        for (uint32_t i = 0; i + 3 < e->nvals && e->vals; i += 4) /* not the ids */
            h = mix(mix(mix(h, (uint64_t)e->vals[i + 1]), (uint64_t)e->vals[i + 2]),
                    FIELD(i + 3, e->vals[i + 3]));
    else
        for (uint32_t i = 0; i < e->nvals && e->vals; i++)
            h = mix(h, FIELD(i, e->vals[i]));
#undef FIELD
    return h ? h : 1;
}

mc_loop_finder *mc_loop_finder_create(void)
{
    return calloc(1, sizeof(mc_loop_finder));
}

void mc_loop_finder_sizes_aside(mc_loop_finder *f, int on)
{
    f->aside = on != 0;
}

void mc_loop_finder_destroy(mc_loop_finder *f)
{
    if (f)
        free(f->tab);
    free(f);
}

void mc_loop_finder_reset(mc_loop_finder *f)
{
    /* a large table (one rank with many shapes) is dropped, not cleared: a
     * clear per rank would cost every later rank its size */
    if (f->cap > 1024) {
        free(f->tab);
        f->tab = NULL;
        f->cap = 0;
    } else if (f->tab) {
        memset(f->tab, 0, f->cap * sizeof *f->tab);
    }
    f->n = 0;
    f->pos = 0;
    f->h = 0;
    f->full = 0;
}

static shape *slot(shape *tab, size_t cap, uint64_t key)
{
    size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
    while (tab[i].key && tab[i].key != key)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

/* 0, or -1 out of memory. */
static int grow(mc_loop_finder *f)
{
    size_t cap = f->cap ? 2 * f->cap : 256;
    shape *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < f->cap; i++)
        if (f->tab[i].key)
            *slot(t, cap, f->tab[i].key) = f->tab[i];
    free(f->tab);
    f->tab = t;
    f->cap = cap;
    return 0;
}

/* Shape s occurs at position pos, the prefix hash before it being h. */
static void occur(shape *s, uint64_t pos, uint64_t h)
{
    uint64_t len = pos - s->last_pos;
    if (len != s->seg_len || !s->run) {
        uint64_t pw = powmod(BASE, len);
        uint64_t seg = (h + MOD - mulmod(s->last_h, pw)) % MOD;
        s->seg_hash = seg;
        s->seg_len = len;
        s->seg_pow = pw;
        s->run = 1;
        s->run_first = s->last_pos;
    } else {
        uint64_t seg = (h + MOD - mulmod(s->last_h, s->seg_pow)) % MOD;
        if (seg == s->seg_hash) {
            s->run++;
        } else {
            s->seg_hash = seg;
            s->run = 1;
            s->run_first = s->last_pos;
        }
    }
    if (s->run * s->seg_len > s->best_run * s->best_len ||
        (s->run * s->seg_len == s->best_run * s->best_len && s->run > s->best_run)) {
        s->best_run = s->run;
        s->best_len = s->seg_len;
        s->best_first = s->run_first;
    }
    s->last_pos = pos;
    s->last_h = h;
}

int mc_loop_finder_add(mc_loop_finder *f, const mc_event *e)
{
    uint64_t key = shape_of(e, f->aside);
    if (2 * (f->n + 1) > f->cap && !f->full) {
        if (f->n >= MAX_SHAPES)
            f->full = 1;
        else if (grow(f) != 0)
            return -1;
    }
    shape *s = slot(f->tab, f->cap, key);
    if (s->key) {
        occur(s, f->pos, f->h);
    } else if (!f->full && 2 * (f->n + 1) <= f->cap) {
        memset(s, 0, sizeof *s);
        s->key = key;
        s->op = e->op;
        s->site = e->site;
        s->last_pos = f->pos;
        s->last_h = f->h;
        f->n++;
    }
    f->h = (mulmod(f->h, BASE) + key % (MOD - 1) + 1) % MOD;
    f->pos++;
    return 0;
}

mc_loop mc_loop_finder_result(const mc_loop_finder *f)
{
    mc_loop best = {0};
    uint64_t span = 0;
    for (size_t i = 0; i < f->cap; i++) {
        const shape *s = &f->tab[i];
        if (!s->key || s->best_run < 2)
            continue; /* a loop has at least 3 iterations: 2 equal segments */
        uint64_t sp = s->best_run * s->best_len;
        /* ties: the finer iteration, then the earlier start (the loop's
         * first event rather than a rotation of it) */
        if (sp > span || (sp == span && (s->best_run + 1 > best.iterations ||
                                          (s->best_run + 1 == best.iterations &&
                                           s->best_first < best.first)))) {
            span = sp;
            best.iterations = s->best_run + 1;
            best.period = s->best_len;
            best.first = s->best_first;
            best.op = s->op;
            best.site = s->site;
        }
    }
    best.partial = f->full;
    return best;
}
