/* mpicast tracer — a small open-addressing hash map from a 64-bit key to a
 * (64-bit value, pointer) pair, for handle → info lookups on the call path.
 * Key 0 is reserved (empty slot). Linear probing with backward-shift
 * deletion: no tombstones, so lookups stay short under create/free churn. */
#ifndef MPICAST_TRACE_MAP_H
#define MPICAST_TRACE_MAP_H

#include <stdint.h>
#include <stddef.h>

typedef struct mct_slot {
    uint64_t key;
    uint64_t a;
    void *b;
} mct_slot;

typedef struct mct_map {
    mct_slot *slots;
    size_t cap; /* power of two, or 0 */
    size_t n;
} mct_map;

/* The slot holding key, or NULL. */
mct_slot *mct_map_find(const mct_map *m, uint64_t key);
/* The slot for key, inserted (a = 0, b = NULL) if absent; NULL if out of memory. */
mct_slot *mct_map_put(mct_map *m, uint64_t key);
/* Removes key if present; returns 1 if it was there. */
int mct_map_del(mct_map *m, uint64_t key);
void mct_map_free(mct_map *m);

#endif
