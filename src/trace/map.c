/* mpicast tracer — u64-keyed hash map (see map.h). */
#include "map.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

mct_slot *mct_map_find(const mct_map *m, uint64_t key)
{
    if (m->cap == 0 || key == 0)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == key)
            return &m->slots[i];
        if (m->slots[i].key == 0)
            return NULL;
    }
}

static int grow(mct_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    mct_slot *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key == 0)
            continue;
        size_t j = slot_of(m->slots[i].key, cap);
        while (s[j].key != 0)
            j = (j + 1) & (cap - 1);
        s[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = s;
    m->cap = cap;
    return 0;
}

mct_slot *mct_map_put(mct_map *m, uint64_t key)
{
    if (key == 0)
        return NULL;
    mct_slot *s = mct_map_find(m, key);
    if (s)
        return s;
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->slots[i].key != 0)
        i = (i + 1) & (m->cap - 1);
    m->slots[i].key = key;
    m->slots[i].a = 0;
    m->slots[i].b = NULL;
    m->n++;
    return &m->slots[i];
}

int mct_map_del(mct_map *m, uint64_t key)
{
    mct_slot *s = mct_map_find(m, key);
    if (!s)
        return 0;
    size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
    /* Backward shift: move later members of the probe run into the hole
     * when their home slot does not lie strictly between hole and them. */
    for (size_t j = (i + 1) & mask; m->slots[j].key != 0; j = (j + 1) & mask) {
        size_t home = slot_of(m->slots[j].key, m->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = 0;
    m->n--;
    return 1;
}

void mct_map_free(mct_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}
