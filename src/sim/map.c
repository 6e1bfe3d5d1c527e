/* The u64 -> i64 hash map of the replay (sim_map.h). */
#include <stdint.h>
#include <stdlib.h>
#include "sim_map.h"
#include "sim_mem.h"

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
