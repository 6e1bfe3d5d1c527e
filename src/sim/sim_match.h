/* Internal to the replay simulator: the matching table (match.c), where
 * posted receives meet unexpected messages by (receiver, communicator,
 * source, tag). Not a public interface. */
#ifndef MPICAST_SIM_MATCH_H
#define MPICAST_SIM_MATCH_H

#include <stdint.h>

/* Matching bucket: one (receiver, communicator, source, tag) key with its
 * FIFO of posted receives and FIFO of unexpected messages. The buckets are
 * the slots of an open-addressing table (match.c): an index is valid until
 * the next sim_match_get or sim_match_maybe_drop. */
typedef struct bucket {
    uint64_t comm;
    int64_t tag;
    int32_t dst, src;           /* dst < 0: free slot */
    int32_t rq_head, rq_tail; /* sim_req */
    int32_t uq_head, uq_tail; /* sim_msg */
} bucket;

/* Home slot of a matching key in a table of mask + 1 slots: each field
 * spread by its own multiply, then Fibonacci hashing (the top bits of the
 * last product depend on every bit of every field). */
static inline uint32_t sim_match_home(uint64_t comm, int64_t tag, int32_t dst, int32_t src,
                                      uint32_t mask)
{
    uint64_t x = ((uint64_t)(uint32_t)dst << 32 | (uint32_t)src) ^
                 (uint64_t)tag * 0xc2b2ae3d27d4eb4full ^ comm * 0x165667b19e3779f9ull;
    /* log2(mask + 1) by ctz: popcount is a libgcc call without -mpopcnt */
    return (uint32_t)((x * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll((uint64_t)mask + 1)));
}

typedef struct sim sim; /* sim_objects.h */

/* find: index or -1; get: found or created
 * (-1 out of memory, S failed); maybe_drop: frees the bucket if both its
 * queues are empty. */
int32_t sim_match_find(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src);
int32_t sim_match_get(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src);
void sim_match_maybe_drop(sim *S, int32_t bi);

#endif
