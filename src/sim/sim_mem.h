/* Internal to the replay simulator: memory helpers (mem.c) for the large
 * arrays of a replay with 10^5-10^6 ranks: a huge-page hint, the prefetch
 * of a record, and the free-index stacks of the pools. Not a public
 * interface. */
#ifndef MPICAST_SIM_MEM_H
#define MPICAST_SIM_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Asks for transparent huge pages on a large array (a hint: ignored where
 * THP is off, or "always" anyway). With 10^5-10^6 ranks every event
 * touches a few arrays of hundreds of MB at random: with 4 KiB pages each
 * access is also a TLB miss and a page walk. */
void sim_hint_huge(void *p, size_t bytes);

/* GCC counts a prefetch as no effect, so it finds a function that only reads
 * memory and prefetches "pure" and drops a call to it whose result is unused
 * (tests/test_sim_prefetch_in_binary.sh checks they reach the binary). The
 * empty volatile asm in each such function (each prefetch stage,
 * sim_prefetch_range) is the effect that keeps it. */
#define SIM_PF_KEEP() __asm__ __volatile__("")

/* Every cache line of [p, p + len). */
static inline void sim_prefetch_range(const void *p, size_t len)
{
    SIM_PF_KEEP();
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    for (const char *end = (const char *)p + len; c < end; c += 64)
        __builtin_prefetch(c);
}

/* The free entries of a pool, as a stack of indices. A list threaded
 * through the records made every take a cache miss once the list ran deep
 * (the record of the next free entry had to be read to find the one after),
 * and two takes in a row (a Sendrecv's two requests) waited on each other;
 * from an array the next entries to be taken are known and fetched ahead.
 * Its array grows with the pool's, so a push never fails. */
typedef struct idstack {
    int32_t *a;
    int32_t n;
} idstack;

/* Gives entry i back to free stack fs (room: its array grows with the
 * pool's). */
static inline void sim_pool_give(idstack *fs, int32_t i)
{
    fs->a[fs->n++] = i;
}

#endif
