/* Block keys as numbers (blocks.h, mc_block_keys): the one key space of
 * compute tables (blocks.c) and CPU times (src/cpu/times.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/blocks.h"

typedef struct site_key {
    int32_t site;
    long key;
} site_key;

struct mc_block_keys {
    const char **keys; /* sorted, distinct, borrowed */
    size_t nkeys;
    site_key *sites;   /* bound sites, sorted by id */
    size_t nsites;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_site(const void *pa, const void *pb)
{
    const site_key *a = pa, *b = pb;
    return (a->site > b->site) - (a->site < b->site);
}

mc_block_keys *mc_block_keys_create(const char *const *keys, size_t n)
{
    mc_block_keys *k = calloc(1, sizeof *k);
    if (!k || !(k->keys = calloc(n + 1, sizeof *k->keys))) {
        free(k);
        return NULL;
    }
    memcpy(k->keys, keys, n * sizeof *keys);
    if (n > 1)
        qsort(k->keys, n, sizeof *k->keys, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || strcmp(k->keys[u - 1], k->keys[i]) != 0)
            k->keys[u++] = k->keys[i];
    k->nkeys = u;
    return k;
}

void mc_block_keys_destroy(mc_block_keys *k)
{
    if (!k)
        return;
    free(k->keys);
    free(k->sites);
    free(k);
}

long mc_block_keys_find(const mc_block_keys *k, const char *key)
{
    const char **p = k->nkeys ? bsearch(&key, k->keys, k->nkeys, sizeof *k->keys, cmp_str) : NULL;
    return p ? (long)(p - k->keys) : -1;
}

const char *mc_block_keys_at(const mc_block_keys *k, long i) { return k->keys[i]; }

mc_err mc_block_keys_bind(mc_block_keys *k, const mc_meta *meta, mc_error *err)
{
    free(k->sites);
    k->sites = NULL;
    k->nsites = 0;
    size_t n = meta ? mc_meta_nsites(meta) : 0;
    if (!n)
        return MC_OK;
    if (!(k->sites = calloc(n, sizeof *k->sites)))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    char key[MC_SITE_KEY_MAX];
    for (size_t i = 0; i < n; i++) {
        int32_t id = mc_meta_site_at(meta, i)->id;
        long x = mc_block_keys_find(k, mc_site_key(meta, id, key, sizeof key));
        if (x >= 0)
            k->sites[k->nsites++] = (site_key){id, x};
    }
    if (k->nsites > 1)
        qsort(k->sites, k->nsites, sizeof *k->sites, cmp_site);
    return MC_OK;
}

long mc_block_keys_of_site(const mc_block_keys *k, int32_t site)
{
    site_key probe = {site, 0};
    const site_key *s =
        k->nsites ? bsearch(&probe, k->sites, k->nsites, sizeof *k->sites, cmp_site) : NULL;
    if (s)
        return s->key;
    char key[32];
    snprintf(key, sizeof key, "0x%x", (unsigned)site);
    return mc_block_keys_find(k, key);
}
