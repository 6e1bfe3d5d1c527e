/* The event queue's memory stays bounded by the entries it holds, not by
 * the entries it has ever held: ranks that keep pushing events at times
 * inside the sorted run (every pop pushes a successor a little later, as a
 * few ranks in lock-step do for 10^8 events) must not make the run keep its
 * popped entries. It did: a 10^8-event replay of 16 ranks peaked at 1.4 GB.
 * Also checks the pops stay in time order. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "sim/sim_queue.h"

enum { LIVE = 16, CYCLES = 2000000 };

static size_t room(const heap *h)
{
    size_t n = 0;
    for (int k = 0; k < HEAP_BUCKETS; k++)
        n += h->b[k].cap;
    return n;
}

int main(void)
{
    for (int64_t step = 1; step <= 1000; step *= 10) {
        heap h = {0};
        uint64_t seq = 0;
        for (int i = 0; i < LIVE; i++)
            CHECK(sim_heap_push(&h, i * step, seq++, EV_STEP, i) == 0);
        int64_t last = -1;
        size_t most = 0;
        for (int c = 0; c < CYCLES; c++) {
            hentry e;
            CHECK(sim_heap_pop(&h, &e) == 0);
            CHECK(e.t >= last);
            last = e.t;
            /* the successor: within the next LIVE steps, often the same time */
            int64_t t = e.t + (int64_t)(c % 3) * step * (c % LIVE) / 2;
            CHECK(sim_heap_push(&h, t, seq++, EV_STEP, HE_IDX(e)) == 0);
            size_t r = room(&h);
            most = r > most ? r : most;
        }
        CHECK_EQ_INT((int64_t)h.n, LIVE);
        if (most > 4096)
            fprintf(stderr, "step %lld: queue room grew to %zu entries for %d live\n",
                    (long long)step, most, LIVE);
        CHECK(most <= 4096);
        sim_heap_free(&h);
    }
    return 0;
}
