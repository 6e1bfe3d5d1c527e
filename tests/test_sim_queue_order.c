/* The engine's event queue (src/sim/queue.c) pops in exactly (time,
 * insertion order), like a binary heap with a sequence tie-break: checked
 * against a brute-force reference on random push/pop mixes whose times are
 * spread the ways the replay spreads them — many equal times (ranks in
 * lock-step), near futures (overheads), far futures (compute bursts), up to
 * the simulator's time limit — so that the sorted-run, spill and spread
 * paths of the radix heap all run. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "sim/sim_queue.h"

typedef struct ref_entry {
    int64_t t;
    uint64_t seq;
} ref_entry;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A time at or after now, drawn from one of several shapes. */
static int64_t draw_time(int64_t now, int shape)
{
    uint64_t r = next_rand();
    switch (shape) {
    case 0: return now;                                   /* same instant */
    case 1: return now + (int64_t)(r % 4);                /* a few ps */
    case 2: return now + (int64_t)(r % 2000000);          /* ~µs */
    case 3: return now + 1000000 * (int64_t)(r % 8);      /* coarse, many ties */
    case 4: return now + (int64_t)(r % ((uint64_t)1 << 40)); /* far */
    default: {
        int64_t lim = ((int64_t)1 << 62) + ((int64_t)1 << 52); /* past TIME_LIMIT */
        return now >= lim ? now : now + (int64_t)(r % (uint64_t)(lim - now));
    }
    }
}

static int run_mix(int shape_mask, int pushes_per_pop, int total, uint64_t seed)
{
    rng = seed;
    heap h = {0};
    ref_entry *ref = malloc((size_t)total * sizeof *ref);
    size_t nref = 0;
    uint64_t seq = 0;
    int64_t now = 0;
    int bad = 0, pushed = 0;
    while ((pushed < total || nref > 0) && !bad) {
        int npush = pushed < total ? (int)(next_rand() % (uint64_t)(2 * pushes_per_pop + 1)) : 0;
        for (int i = 0; i < npush && pushed < total; i++, pushed++) {
            int shape;
            do
                shape = (int)(next_rand() % 6);
            while (!(shape_mask & (1 << shape)));
            int64_t t = draw_time(now, shape);
            CHECK(sim_heap_push(&h, t, seq, (uint32_t)(seq & 3), (int32_t)(seq & 0x3fffffff)) == 0);
            ref[nref].t = t;
            ref[nref].seq = seq++;
            nref++;
        }
        if (nref == 0)
            continue;
        size_t best = 0;
        for (size_t i = 1; i < nref; i++)
            if (ref[i].t < ref[best].t || (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq))
                best = i;
        CHECK(!sim_heap_empty(&h));
        if (sim_heap_min(&h) != ref[best].t) {
            fprintf(stderr, "min %lld, expected %lld\n", (long long)sim_heap_min(&h),
                    (long long)ref[best].t);
            bad = 1;
        }
        hentry e;
        CHECK(sim_heap_pop(&h, &e) == 0);
        if (e.t != ref[best].t || (e.s >> 32) != (ref[best].seq & 0xffffffffu) ||
            HE_IDX(e) != (int32_t)(ref[best].seq & 0x3fffffff) ||
            HE_TYPE(e) != (uint32_t)(ref[best].seq & 3)) {
            fprintf(stderr, "popped (%lld, %llu), expected (%lld, %llu)\n", (long long)e.t,
                    (unsigned long long)(e.s >> 32), (long long)ref[best].t,
                    (unsigned long long)ref[best].seq);
            bad = 1;
        }
        now = e.t;
        ref[best] = ref[--nref];
    }
    CHECK(bad || sim_heap_empty(&h));
    sim_heap_free(&h);
    free(ref);
    return bad;
}

int main(void)
{
    /* every single shape, then mixes; growing and shrinking queues */
    for (int mask = 1; mask < 64; mask++)
        for (int ppp = 1; ppp <= 3; ppp++) {
            int bad = run_mix(mask, ppp, 3000, 0x9e3779b97f4a7c15ull * (uint64_t)(mask * 4 + ppp));
            if (bad)
                fprintf(stderr, "queue order differs: shapes mask %d, pushes/pop %d\n", mask, ppp);
            CHECK(!bad);
        }
    /* a big lock-step start (every rank at time 0), as the engine begins */
    CHECK(run_mix(1 << 0 | 1 << 2, 1, 20000, 7) == 0);
    CHECK(run_mix(1 << 2 | 1 << 4, 40, 20000, 11) == 0);
    return 0;
}
