/* The matching table of the replay (sim_match.h). */
#include <stdint.h>
#include <stdlib.h>
#include "sim_objects.h"

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

/* sim_fail's effect without its engine.c dependency (match.c is also
 * linked without the engine by test_sim_match_table). */
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
