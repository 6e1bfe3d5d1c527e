/* The event queue (sim_queue.h): a radix heap with a sorted run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sim_mem.h"
#include "sim_queue.h"

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
