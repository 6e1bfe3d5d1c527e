/* Internal to the replay simulator: the u64 -> i64 hash map (map.c) behind
 * the request, communicator and rank maps. Not a public interface. */
#ifndef MPICAST_SIM_MAP_H
#define MPICAST_SIM_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Open addressing, linear probing, backward-shift deletion. Key UINT64_MAX
 * is reserved (empty slot). */
typedef struct sim_map_slot {
    uint64_t key;
    int64_t val;
} sim_map_slot;
typedef struct sim_map {
    sim_map_slot *s;    /* key and value side by side: one cache line per probe */
    size_t cap, n; /* cap: power of two */
} sim_map;

int sim_map_put(sim_map *m, uint64_t key, int64_t val); /* 0 or -1 (no memory) */
int sim_map_get(const sim_map *m, uint64_t key, int64_t *val); /* 1 found, 0 not */
int64_t *sim_map_ref(sim_map *m, uint64_t key); /* slot of key, created as 0; NULL on OOM */
int64_t *sim_map_insert(sim_map *m, uint64_t key, int *created); /* same, says if new */
void sim_map_del(sim_map *m, uint64_t key);
void sim_map_free(sim_map *m);

#endif
