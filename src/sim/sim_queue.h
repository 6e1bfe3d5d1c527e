/* Internal to the replay simulator: the event queue (queue.c), which pops
 * events in exactly (time, insertion) order. Not a public interface. */
#ifndef MPICAST_SIM_QUEUE_H
#define MPICAST_SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

enum { EV_STEP, EV_ARRIVE, EV_PROGRESS, EV_ROUND };

/* 16 bytes, so a node's four children share a cache line: time, then
 * (insertion sequence << 32 | type << 30 | index). The 32-bit sequence breaks
 * ties in insertion order (deterministically also past its wrap-around). */
typedef struct hentry {
    int64_t t;
    uint64_t s;
} hentry;
#define HE_TYPE(e) ((uint32_t)((e).s >> 30) & 3u)
#define HE_IDX(e) ((int32_t)((e).s & 0x3fffffffu))
#define MAX_INDEX (1 << 30) /* ranks, messages, executors: fit HE_IDX */

/* The event queue: a radix heap with a sorted run. The engine's
 * times never go below the last popped one, so an entry lives in bucket
 * k = 1 + the highest bit in which its time differs from `base` (a time
 * <= every queued one). Bucket 0 is the run: the earliest entries, sorted,
 * popped from its head. When the run is used up, the lowest non-empty bucket
 * becomes the run: sorted at once if it is small, else spread over the
 * buckets below it around its minimum (its entries of that time form the
 * run). Entries of equal time always share a bucket and keep their push
 * order, so the order is exactly (time, insertion sequence) — that of a
 * binary heap with a sequence tie-break. */
#define HEAP_BUCKETS 65
typedef struct hbucket {
    hentry *a;
    uint32_t n, cap;
} hbucket;
typedef struct heap {
    hbucket b[HEAP_BUCKETS];
    uint32_t head0;  /* next entry of the run (b[0]) to pop */
    int sorted_run;  /* the run covers a bucket's whole range, not one time */
    uint64_t used;   /* bit k-1 set: bucket k (1..64) is non-empty */
    size_t n;        /* entries in the queue */
    int64_t base;    /* buckets are relative to this time (<= last) */
    int64_t last;    /* time of the last pop */
    int64_t run_end; /* times below this go into the run */
    int64_t min[HEAP_BUCKETS]; /* earliest time in each bucket (INT64_MAX: none
                                  since it was last emptied) */
    int ready;       /* initialised (a zero-filled heap is empty) */
} heap;

/* 0, or -1 out of memory. Times are expected at or after the last popped
 * one (the engine never goes back in time); an earlier one pops next, its
 * time raised to `base` if below it. */
int sim_heap_push_slow(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx);
static inline int sim_heap_push(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx)
{
    /* the common case inline: a time past the run, into a bucket with room */
    if (h->ready && t >= h->run_end) {
        unsigned k = 64u - (unsigned)__builtin_clzll((uint64_t)t ^ (uint64_t)h->base);
        hbucket *b = &h->b[k];
        if (b->n < b->cap) {
            b->a[b->n].t = t;
            b->a[b->n].s = (seq << 32) | ((uint64_t)(type & 3u) << 30) |
                           ((uint32_t)idx & 0x3fffffffu);
            b->n++;
            if (t < h->min[k])
                h->min[k] = t;
            h->used |= 1ull << (k - 1);
            h->n++;
            return 0;
        }
    }
    return sim_heap_push_slow(h, t, seq, type, idx);
}
int sim_heap_refill(heap *h); /* the run is used up: 0, or -1 out of memory */
void sim_heap_free(heap *h);
static inline int sim_heap_empty(const heap *h) { return h->n == 0; }
/* The earliest entry (the queue must not be empty); -1 out of memory. */
static inline int sim_heap_pop(heap *h, hentry *out)
{
    if (h->head0 >= h->b[0].n && sim_heap_refill(h))
        return -1;
    h->n--;
    *out = h->b[0].a[h->head0++];
    h->last = out->t;
    return 0;
}
/* The earliest time (the queue must not be empty). */
static inline int64_t sim_heap_min(const heap *h)
{
    return h->head0 < h->b[0].n ? h->b[0].a[h->head0].t
                                : h->min[1 + __builtin_ctzll(h->used)];
}

#endif
