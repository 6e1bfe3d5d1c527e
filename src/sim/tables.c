/* Priority queue of timed events and the u64 -> i64 hash map of the engine. */
#include <stdlib.h>
#include "sim_internal.h"

/* ------------------------------------------------------------ heap */

/* Branch-free (time, seq) order: the outcome is unpredictable, so a
 * misprediction per comparison would dominate the replay. */
static inline int before(const hentry *a, const hentry *b)
{
    return (a->t < b->t) | ((a->t == b->t) & (a->s < b->s));
}

/* A 4-ary heap: half the levels of a binary one and its four children share
 * a cache line or two, which matters since popping dominates the replay. */
#define ARITY 4

int heap_push(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 1024;
        hentry *a = realloc(h->a, cap * sizeof *a);
        if (!a)
            return -1;
        h->a = a;
        h->cap = cap;
    }
    hentry e = {t, (seq << 32) | ((uint64_t)(type & 3u) << 30) | ((uint32_t)idx & 0x3fffffffu)};
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (!before(&e, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
    return 0;
}

hentry heap_pop(heap *h)
{
    hentry top = h->a[0];
    hentry last = h->a[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = ARITY * i + 1;
        if (c >= n)
            break;
        size_t best = c;
        if (c + ARITY <= n) {
            /* full node: tournament of two pairs, selected without branches */
            size_t b01 = c + (size_t)before(&h->a[c + 1], &h->a[c]);
            size_t b23 = c + 2 + (size_t)before(&h->a[c + 3], &h->a[c + 2]);
            best = before(&h->a[b23], &h->a[b01]) ? b23 : b01;
        } else {
            for (size_t k = c + 1; k < n; k++)
                if (before(&h->a[k], &h->a[best]))
                    best = k;
        }
        if (!before(&h->a[best], &last))
            break;
        h->a[i] = h->a[best];
        i = best;
    }
    if (n)
        h->a[i] = last;
    return top;
}

/* ------------------------------------------------------------ u64 map */

#define EMPTY UINT64_MAX

static inline size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (size_t)k;
}

static int grow(u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = malloc(cap * sizeof *keys);
    int64_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        keys[i] = EMPTY;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == EMPTY)
            continue;
        size_t j = hash64(m->keys[i]) & (cap - 1);
        while (keys[j] != EMPTY)
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int64_t *u64map_insert(u64map *m, uint64_t key, int *created)
{
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return NULL;
    size_t mask = m->cap - 1, i = hash64(key) & mask;
    while (m->keys[i] != EMPTY) {
        if (m->keys[i] == key) {
            *created = 0;
            return &m->vals[i];
        }
        i = (i + 1) & mask;
    }
    m->keys[i] = key;
    m->vals[i] = 0;
    m->n++;
    *created = 1;
    return &m->vals[i];
}

int64_t *u64map_ref(u64map *m, uint64_t key)
{
    int created;
    return u64map_insert(m, key, &created);
}

int u64map_put(u64map *m, uint64_t key, int64_t val)
{
    int64_t *v = u64map_ref(m, key);
    if (!v)
        return -1;
    *v = val;
    return 0;
}

int u64map_get(const u64map *m, uint64_t key, int64_t *val)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = hash64(key) & mask;
    while (m->keys[i] != EMPTY) {
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
        i = (i + 1) & mask;
    }
    return 0;
}

void u64map_del(u64map *m, uint64_t key)
{
    if (!m->cap)
        return;
    size_t mask = m->cap - 1, i = hash64(key) & mask;
    while (m->keys[i] != key) {
        if (m->keys[i] == EMPTY)
            return;
        i = (i + 1) & mask;
    }
    /* Backward shift: move later entries of the probe run into the hole. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (m->keys[j] == EMPTY)
            break;
        size_t home = hash64(m->keys[j]) & mask;
        /* keep j where it is if its home lies cyclically in (i, j] */
        if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        i = j;
    }
    m->keys[i] = EMPTY;
    m->n--;
}

void u64map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}
