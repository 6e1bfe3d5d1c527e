/* Priority queue of timed events and the u64 -> i64 hash map of the engine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sim_internal.h"

void sim_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (!p || bytes < ((size_t)4 << 20))
        return;
    uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

/* ------------------------------------------------------------ heap */

/* A radix heap rather than a comparison heap: pushing is an append and each
 * entry moves down a few buckets in its lifetime, where a 4-ary heap paid a
 * chain of dependent loads and compares on every pop (a third of the replay
 * time). Small buckets are sorted into the run directly instead of being
 * spread bit by bit: ranks in lock-step put a handful of entries in each. */

#define SORT_MAX 32  /* a bucket this small becomes the run by insertion sort */
#define RUN_MAX 128  /* a sorted run this long is spread back into buckets */
#ifndef BUCKET_KEEP /* (tests shrink it) */
#define BUCKET_KEEP 65536 /* entries an emptied bucket may keep room for */
#endif

static inline unsigned bucket_of(int64_t base, int64_t t)
{
    uint64_t x = (uint64_t)t ^ (uint64_t)base;
    return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

static int reserve(hbucket *b, uint32_t more)
{
    if (b->cap - b->n >= more)
        return 0;
    uint32_t cap = b->cap ? b->cap : 64;
    while (cap - b->n < more) {
        if (cap > UINT32_MAX / 2)
            return -1;
        cap *= 2;
    }
    hentry *a = realloc(b->a, (size_t)cap * sizeof *a);
    if (!a)
        return -1;
    sim_hint_huge(a, (size_t)cap * sizeof *a);
    b->a = a;
    b->cap = cap;
    return 0;
}

/* Appends e to bucket k >= 1 (or to the run when it belongs at its end). */
static inline int bucket_append(heap *h, unsigned k, hentry e)
{
    hbucket *b = &h->b[k];
    if (e.t < h->min[k])
        h->min[k] = e.t;
    if (b->n == b->cap && reserve(b, 1))
        return -1;
    b->a[b->n++] = e;
    if (k)
        h->used |= 1ull << (k - 1);
    return 0;
}

/* An emptied bucket keeps its array for reuse unless it is big: with a
 * million ranks every bucket in turn would otherwise keep room for all the
 * queue, several times the memory of a comparison heap. */
static void release_if_big(hbucket *b)
{
    if (b->cap > BUCKET_KEEP) {
        free(b->a);
        b->a = NULL;
        b->cap = 0;
    }
}

/* Room at the run's end. Popped entries (before head0) are dropped when
 * they are half of it: a run that keeps receiving pushes at its own times
 * is never used up, and kept every entry ever popped (10^8 events at 16
 * ranks grew the queue to a gigabyte). */
static int run_room(heap *h)
{
    hbucket *b = &h->b[0];
    if (b->n < b->cap)
        return 0;
    if (h->head0 >= b->n / 2 && h->head0 > 0) {
        memmove(b->a, b->a + h->head0, (size_t)(b->n - h->head0) * sizeof *b->a);
        b->n -= h->head0;
        h->head0 = 0;
        return 0;
    }
    return reserve(b, 1);
}

/* Inserts e into the run after every entry of time <= e.t. */
static int run_insert(heap *h, hentry e)
{
    hbucket *b = &h->b[0];
    if (run_room(h))
        return -1;
    uint32_t i = b->n++;
    while (i > h->head0 && b->a[i - 1].t > e.t) {
        b->a[i] = b->a[i - 1];
        i--;
    }
    b->a[i] = e;
    return 0;
}

/* A sorted run grew long: spread it into the (empty) buckets below the one
 * it came from, around the last popped time (pushes may still come at that
 * time, never before it; it lies in the run's range since the run's first
 * entry was popped by the refill that made it). */
static int run_spill(heap *h)
{
    hbucket *r = &h->b[0];
    int64_t m = h->last;
    uint32_t w = 0;
    h->base = m;
    h->run_end = m + 1;
    h->sorted_run = 0;
    for (uint32_t i = h->head0; i < r->n; i++) {
        unsigned j = bucket_of(m, r->a[i].t);
        if (j == 0)
            r->a[w++] = r->a[i]; /* w <= i: in place */
        else if (bucket_append(h, j, r->a[i]))
            return -1;
    }
    r->n = w;
    h->head0 = 0;
    return 0;
}

int sim_heap_push_slow(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx)
{
    if (!h->ready) {
        for (int k = 0; k < HEAP_BUCKETS; k++)
            h->min[k] = INT64_MAX;
        h->run_end = h->base + 1;
        h->ready = 1;
    }
    if (t < h->base)
        t = h->base;
    hentry e = {t, (seq << 32) | ((uint64_t)(type & 3u) << 30) | ((uint32_t)idx & 0x3fffffffu)};
    if (t < h->run_end) {
        if (h->sorted_run && h->b[0].n - h->head0 >= RUN_MAX) {
            if (run_spill(h))
                return -1;
            if (t >= h->run_end)
                goto bucket;
        }
        if (run_insert(h, e))
            return -1;
    } else {
    bucket:
        if (bucket_append(h, bucket_of(h->base, t), e))
            return -1;
    }
    h->n++;
    return 0;
}

/* Bucket k's entries (times in [H + 2^(k-1), H + 2^k)) sorted into the run:
 * stable insertion sort, as they are nearly in order. */
static int refill_sorted(heap *h, unsigned k, int64_t m)
{
    hbucket *src = &h->b[k], *r = &h->b[0];
    if (reserve(r, src->n))
        return -1;
    for (uint32_t i = 0; i < src->n; i++) {
        hentry e = src->a[i];
        uint32_t j = i;
        while (j > 0 && r->a[j - 1].t > e.t) {
            r->a[j] = r->a[j - 1];
            j--;
        }
        r->a[j] = e;
    }
    r->n = src->n;
    uint64_t end = (((uint64_t)m >> (k - 1)) + 1) << (k - 1);
    h->run_end = end > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)end;
    h->sorted_run = 1;
    return 0;
}

/* The run is used up: the lowest bucket becomes the run, sorted if small,
 * else spread over the buckets below it around its minimum, in order.
 * Returns -1 if a bucket cannot grow (the queue is then unusable). */
int sim_heap_refill(heap *h)
{
    h->b[0].n = h->head0 = 0;
    release_if_big(&h->b[0]);
    unsigned k = 1u + (unsigned)__builtin_ctzll(h->used);
    int64_t m = h->min[k];
    hbucket *src = &h->b[k];
    h->base = m;
    h->used &= ~(1ull << (k - 1));
    h->min[k] = INT64_MAX;
    if (src->n <= SORT_MAX) {
        if (refill_sorted(h, k, m))
            return -1;
    } else {
        h->run_end = m + 1;
        h->sorted_run = 0;
        for (uint32_t i = 0; i < src->n; i++)
            if (bucket_append(h, bucket_of(m, src->a[i].t), src->a[i]))
                return -1;
    }
    src->n = 0;
    release_if_big(src);
    return 0;
}

void sim_heap_free(heap *h)
{
    for (int k = 0; k < HEAP_BUCKETS; k++)
        free(h->b[k].a);
    memset(h, 0, sizeof *h);
}

/* ------------------------------------------------------------ u64 map */

#define EMPTY UINT64_MAX

/* Fibonacci hashing of the key without its low 4 bits (one multiply, the
 * index from the top bits), plus those 4 bits: 16 consecutive keys — a
 * rank's consecutive request ids, a communicator's consecutive ranks — get
 * consecutive home slots. A Waitall on 12 requests then touches a line or
 * two of the map instead of 12 scattered ones (with 10^5 ranks, each a
 * cache miss), while keys that differ above bit 3 are spread as before. */
static inline size_t slot_of(uint64_t k, size_t cap)
{
    size_t g = (size_t)(((k >> 4) * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(cap)));
    return (g + (size_t)(k & 15)) & (cap - 1);
}

static int grow(sim_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    sim_map_slot *s = malloc(cap * sizeof *s);
    if (!s)
        return -1;
    sim_hint_huge(s, cap * sizeof *s);
    for (size_t i = 0; i < cap; i++)
        s[i].key = EMPTY;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->s[i].key == EMPTY)
            continue;
        size_t j = slot_of(m->s[i].key, cap);
        while (s[j].key != EMPTY)
            j = (j + 1) & (cap - 1);
        s[j] = m->s[i];
    }
    free(m->s);
    m->s = s;
    m->cap = cap;
    return 0;
}

int64_t *sim_map_insert(sim_map *m, uint64_t key, int *created)
{
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return NULL;
    size_t mask = m->cap - 1, i = slot_of(key, m->cap);
    while (m->s[i].key != EMPTY) {
        if (m->s[i].key == key) {
            *created = 0;
            return &m->s[i].val;
        }
        i = (i + 1) & mask;
    }
    m->s[i].key = key;
    m->s[i].val = 0;
    m->n++;
    *created = 1;
    return &m->s[i].val;
}

int64_t *sim_map_ref(sim_map *m, uint64_t key)
{
    int created;
    return sim_map_insert(m, key, &created);
}

int sim_map_put(sim_map *m, uint64_t key, int64_t val)
{
    int64_t *v = sim_map_ref(m, key);
    if (!v)
        return -1;
    *v = val;
    return 0;
}

int sim_map_get(const sim_map *m, uint64_t key, int64_t *val)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = slot_of(key, m->cap);
    while (m->s[i].key != EMPTY) {
        if (m->s[i].key == key) {
            *val = m->s[i].val;
            return 1;
        }
        i = (i + 1) & mask;
    }
    return 0;
}

void sim_map_del(sim_map *m, uint64_t key)
{
    if (!m->cap)
        return;
    size_t mask = m->cap - 1, i = slot_of(key, m->cap);
    while (m->s[i].key != key) {
        if (m->s[i].key == EMPTY)
            return;
        i = (i + 1) & mask;
    }
    /* Backward shift: move later entries of the probe run into the hole. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (m->s[j].key == EMPTY)
            break;
        size_t home = slot_of(m->s[j].key, m->cap);
        /* keep j where it is if its home lies cyclically in (i, j] */
        if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        m->s[i] = m->s[j];
        i = j;
    }
    m->s[i].key = EMPTY;
    m->n--;
}

void sim_map_free(sim_map *m)
{
    free(m->s);
    m->s = NULL;
    m->cap = m->n = 0;
}

/* ------------------------------------------------------------ matching buckets */

/* Open addressing with the buckets themselves in the slots (linear probing,
 * backward-shift deletion): a lookup costs one cache miss where a chained
 * table cost two (slot array, then the bucket), which was a fifth of a
 * million-rank replay. The load stays at most 1/2, so a hit probes 1.5
 * slots on average and a miss 2.5. A free slot has dst < 0 (a receiver is
 * always a rank). */

static inline int bk_is(const bucket *k, uint64_t comm, int64_t tag, int32_t dst, int32_t src)
{
    return k->dst == dst && k->src == src && k->tag == tag && k->comm == comm;
}

static int bk_grow(sim *S)
{
    uint32_t cap = S->bks ? (S->bmask + 1) * 2 : 1024;
    if (cap == 0 || cap > (uint32_t)INT32_MAX)
        return -1;
    bucket *s = malloc((size_t)cap * sizeof *s);
    if (!s)
        return -1;
    sim_hint_huge(s, (size_t)cap * sizeof *s);
    for (uint32_t i = 0; i < cap; i++)
        s[i].dst = -1;
    for (uint32_t i = 0; S->bks && i <= S->bmask; i++) {
        const bucket *k = &S->bks[i];
        if (k->dst < 0)
            continue;
        uint32_t j = sim_match_home(k->comm, k->tag, k->dst, k->src, cap - 1);
        while (s[j].dst >= 0)
            j = (j + 1) & (cap - 1);
        s[j] = *k;
    }
    free(S->bks);
    S->bks = s;
    S->bmask = cap - 1;
    return 0;
}

int32_t sim_match_find(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src)
{
    if (!S->bks)
        return -1;
    uint32_t i = sim_match_home(comm, tag, dst, src, S->bmask);
    for (;;) {
        const bucket *k = &S->bks[i];
        if (k->dst < 0)
            return -1;
        if (bk_is(k, comm, tag, dst, src))
            return (int32_t)i;
        i = (i + 1) & S->bmask;
    }
}

/* sim_fail's effect without its engine.c dependency (tables.c is also
 * linked alone by the queue tests). */
static void bk_nomem(sim *S)
{
    if (S->rc)
        return;
    S->rc = MC_ERR_NOMEM;
    if (S->err)
        mc_error_set(S->err, MC_ERR_NOMEM, "%s: out of memory",
                     S->src && S->src->name ? S->src->name : "trace");
}

int32_t sim_match_get(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src)
{
    if (!S->bks || (uint32_t)S->bused + 1 > (S->bmask + 1) / 2) {
        if (bk_grow(S)) {
            bk_nomem(S);
            return -1;
        }
    }
    uint32_t i = sim_match_home(comm, tag, dst, src, S->bmask);
    for (;;) {
        bucket *k = &S->bks[i];
        if (k->dst < 0)
            break;
        if (bk_is(k, comm, tag, dst, src))
            return (int32_t)i;
        i = (i + 1) & S->bmask;
    }
    bucket *k = &S->bks[i];
    k->comm = comm;
    k->tag = tag;
    k->dst = dst;
    k->src = src;
    k->rq_head = k->rq_tail = k->uq_head = k->uq_tail = -1;
    S->bused++;
    return (int32_t)i;
}

void sim_match_maybe_drop(sim *S, int32_t bi)
{
    bucket *k = &S->bks[bi];
    if (k->rq_head >= 0 || k->uq_head >= 0)
        return;
    /* Backward shift: later buckets of the probe run move into the hole, so
     * lookups never need tombstones. Other buckets' indices change: callers
     * hold none across a drop. */
    uint32_t mask = S->bmask, i = (uint32_t)bi, j = i;
    for (;;) {
        j = (j + 1) & mask;
        const bucket *x = &S->bks[j];
        if (x->dst < 0)
            break;
        uint32_t home = sim_match_home(x->comm, x->tag, x->dst, x->src, mask);
        /* x stays if its home lies cyclically in (i, j] */
        if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        S->bks[i] = *x;
        i = j;
    }
    S->bks[i].dst = -1;
    S->bused--;
}
