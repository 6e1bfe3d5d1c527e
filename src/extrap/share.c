/* Block shares (issue 20): message sizes that differ between ranks because a
 * fixed global size does not divide the process grid. A code that splits N
 * cells along each grid dimension gives the first N mod n coordinates (or
 * the last) one cell more, so a face, a row or a column of u bytes a cell
 * has a size that depends on the rank's coordinate along one dimension:
 * u * extrap_share(N, n, c). Such sizes differ between the members of a
 * position class (4 x 4 ranks over 10 cells: 3, 3, 2, 2), and no law of P
 * gives them, so the classes refused them.
 *
 * Each number slot of a point-to-point or completion event is keyed by its
 * call site, the occurrence of that site in the rank's stream and the slot.
 * A key whose sizes differ between the ranks of one trace is fitted: the
 * two sizes a trace shows differ by u; every rank of every trace then gives
 * N as an interval (the share s = size / u at coordinate c of n holds for
 * N in [n (s - 1) + c + 1, n s + c], the coordinate counted from the other
 * end when the remainder goes last), and N is the intersection, over one
 * dimension and one side only. The slot then holds u and the share's index,
 * and the generator gives each rank its own share at the target grid.
 * One trace shows this only under strong scaling (a fixed global size, as
 * the fit assumes); under weak scaling each class keeps its sizes. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ keys */

/* Call site (32 bits), its occurrence in the rank's stream (24), slot (8). */
#define OCC_MAX (1u << 24)
#define SLOT_MAX 256u

static uint64_t key_of(int32_t site, uint32_t occ, uint32_t s)
{
    return (uint64_t)(uint32_t)site << 32 | (uint64_t)occ << 8 | s;
}

/* Whether slot sizes of t can be a share: point-to-point and completion
 * events (not per-rank-count collectives, whose arrays have their own rules). */
static int eligible(const tev *t)
{
    return !t->varr && (mc_op_kind_of(t->e.op) == MC_KIND_P || extrap_is_completion(t->e.op));
}

/* One key's record: whether its sizes differ within a trace (24 bytes: a
 * record per slot of every event held). */
typedef struct krec {
    uint64_t key;
    int64_t v;       /* the size on the first rank seen in trace last_k */
    int32_t last_k;
    int16_t share;   /* the fitted share, or -1 */
    uint8_t varies, used;
} krec;

/* A size of a key that is fitted: its record (index in the map), trace, rank. */
typedef struct obs {
    uint32_t rec;
    int32_t k, r;
    int64_t v;
} obs;

typedef struct obsvec {
    obs *a;
    size_t n, cap;
} obsvec;

/* Open addressing, linear probing, keys never removed. */
typedef struct kmap {
    krec *a;
    uint32_t mask, n;
} kmap;

static uint32_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static int kmap_grow(kmap *m)
{
    uint32_t cap = m->a ? 2 * (m->mask + 1) : 1024;
    krec *a = calloc(cap, sizeof *a);
    if (!a)
        return -1;
    for (uint32_t i = 0; m->a && i <= m->mask; i++) {
        if (!m->a[i].used)
            continue;
        uint32_t j = hash64(m->a[i].key) & (cap - 1);
        while (a[j].used)
            j = (j + 1) & (cap - 1);
        a[j] = m->a[i];
    }
    free(m->a);
    m->a = a;
    m->mask = cap - 1;
    return 0;
}

/* The record of key, created if missing (NULL: out of memory). */
static krec *kmap_get(kmap *m, uint64_t key, int create)
{
    if (!m->a || (create && 2 * (m->n + 1) > m->mask + 1)) {
        if (!create)
            return NULL;
        if (kmap_grow(m))
            return NULL;
    }
    uint32_t j = hash64(key) & m->mask;
    while (m->a[j].used && m->a[j].key != key)
        j = (j + 1) & m->mask;
    if (m->a[j].used || !create)
        return m->a[j].used ? &m->a[j] : NULL;
    m->a[j] = (krec){.key = key, .last_k = -1, .used = 1, .share = -1};
    m->n++;
    return &m->a[j];
}

static void kmap_free(kmap *m)
{
    free(m->a);
}

/* Calls fn(ctx, k, r, t, s, key) for every eligible slot of every rank but
 * an empty one to or from MPI_PROC_NULL (a border's: the classes tell those
 * apart, and they are no share). */
typedef int (*slot_fn)(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key);

/* Occurrences of each site in one rank's stream so far (open addressing). */
typedef struct occmap {
    int32_t *site;
    uint32_t *count;
    uint32_t mask, n;
} occmap;

static uint32_t *occ_slot(occmap *m, int32_t site)
{
    if (!m->count || 2 * (m->n + 1) > m->mask + 1) {
        uint32_t cap = m->count ? 2 * (m->mask + 1) : 256;
        int32_t *ns = calloc(cap, sizeof *ns);
        uint32_t *nc = calloc(cap, sizeof *nc);
        if (!ns || !nc) {
            free(ns);
            free(nc);
            return NULL;
        }
        for (uint32_t i = 0; m->count && i <= m->mask; i++) {
            if (!m->count[i])
                continue;
            uint32_t j = hash64((uint64_t)(uint32_t)m->site[i]) & (cap - 1);
            while (nc[j])
                j = (j + 1) & (cap - 1);
            ns[j] = m->site[i];
            nc[j] = m->count[i];
        }
        free(m->site);
        free(m->count);
        m->site = ns;
        m->count = nc;
        m->mask = cap - 1;
    }
    uint32_t j = hash64((uint64_t)(uint32_t)site) & m->mask;
    while (m->count[j] && m->site[j] != site)
        j = (j + 1) & m->mask;
    if (!m->count[j]) {
        m->site[j] = site;
        m->n++;
    }
    return &m->count[j]; /* 0 until the caller counts the first */
}

static int each_slot(xbuild *b, slot_fn fn, void *ctx)
{
    const mc_extrap *x = b->x;
    int rc = 0;
    for (int k = 0; k < x->ntraces && !rc; k++)
        for (int r = 0; r < x->tP[k] && !rc; r++) {
            occmap om = {0};
            for (uint32_t i = 0; i < b->raw[k][r].n && !rc; i++) {
                aev *a = &b->abs[k][r][i];
                uint32_t *cnt = occ_slot(&om, a->t.e.site);
                if (!cnt) {
                    rc = -1;
                    break;
                }
                uint32_t occ = (*cnt)++; /* the occurrences so far */
                if (!eligible(&a->t) || occ >= OCC_MAX)
                    continue;
                for (uint32_t s = 0; s < a->t.nnum && s < SLOT_MAX && !rc; s++)
                    if (a->t.num[s] || s >= a->t.npeer || a->pc[s].lit != MC_NONE)
                        rc = fn(ctx, k, r, &a->t, s, key_of(a->t.e.site, occ, s));
            }
            free(om.site);
            free(om.count);
        }
    return rc;
}

/* ------------------------------------------------------------ pass 1 and 2 */

static int mark_varying(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key)
{
    (void)r;
    krec *q = kmap_get(ctx, key, 1);
    if (!q)
        return -1;
    if (q->last_k != k) {
        q->last_k = k;
        q->v = t->num[s];
    } else if (t->num[s] != q->v) {
        q->varies = 1;
    }
    return 0;
}

typedef struct collect_ctx {
    kmap *m;
    const mc_extrap *inherit;
    obsvec *o;
} collect_ctx;

static int inherited_share(const mc_extrap *I, uint64_t key)
{
    if (!I || !I->nshare_key)
        return -1;
    uint32_t lo = 0, hi = I->nshare_key;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (I->share_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < I->nshare_key && I->share_key[lo] == key ? I->share_of[lo] : -1;
}

static int collect(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key)
{
    collect_ctx *c = ctx;
    krec *q = kmap_get(c->m, key, 0);
    if (!q || (!q->varies && inherited_share(c->inherit, key) < 0))
        return 0;
    obsvec *v = c->o;
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        obs *a = realloc(v->a, cap * sizeof *a);
        if (!a)
            return -1;
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = (obs){(uint32_t)(q - c->m->a), k, r, t->num[s]};
    return 0;
}

/* ------------------------------------------------------------ the fit */

/* N (as [*lo, *hi]) for which every observation is u times its rank's share
 * along d; 0 when none. */
static int fit_range(const mc_extrap *x, const obs *ob, size_t nob, int d, int last,
                     int64_t u, int64_t *lo, int64_t *hi)
{
    *lo = 1;
    *hi = INT64_MAX / 4;
    for (size_t i = 0; i < nob; i++) {
        const obs *o = &ob[i];
        const xgrid *g = &x->tgrid[o->k];
        if (d >= g->nd || o->v < 0 || o->v % u)
            return 0;
        int c[MAXD];
        grid_coords(g, o->r, c);
        int64_t n = g->dims[d], cc = last ? n - 1 - c[d] : c[d], sh = o->v / u;
        if (sh > INT64_MAX / 4 / n)
            return 0;
        int64_t a = n * (sh - 1) + cc + 1, z = n * sh + cc;
        if (a > *lo)
            *lo = a;
        if (z < *hi)
            *hi = z;
        if (*lo > *hi)
            return 0;
    }
    return 1;
}

/* The unit: the difference of the two sizes a trace shows (the same in
 * every trace that shows two); 0 when none does, -1 when they disagree or a
 * trace shows more than two. */
static int64_t unit_of(const obs *ob, size_t nob, int ntraces)
{
    int64_t u = 0;
    for (int k = 0; k < ntraces; k++) {
        int64_t a = 0, z = 0;
        int nv = 0;
        for (size_t i = 0; i < nob; i++) {
            const obs *o = &ob[i];
            if (o->k != k)
                continue;
            if (!nv)
                a = z = o->v, nv = 1;
            else if (o->v != a && o->v != z && nv == 1)
                z = o->v, nv = 2;
            else if (o->v != a && o->v != z)
                return -1;
        }
        if (nv == 2) {
            int64_t du = a > z ? a - z : z - a;
            if (u && du != u)
                return -1;
            u = du;
        }
    }
    return u;
}

/* The share of key q: fitted on its observations, or (a rebuild) the
 * inherited one if they fit it. Returns 1 with *out, else 0. */
static int fit_key(const mc_extrap *x, uint64_t key, const obs *ob, size_t nob,
                   const mc_extrap *I, xshare *out)
{
    int ih = inherited_share(I, key);
    if (ih >= 0) {
        const xshare *h = &I->share[ih];
        int64_t lo, hi;
        if (!fit_range(x, ob, nob, h->d, h->last, h->u, &lo, &hi) || hi < h->nlo ||
            lo > h->nhi)
            return 0;
        *out = *h;
        return 1;
    }
    int64_t u = unit_of(ob, nob, x->ntraces);
    if (u <= 0)
        return 0;
    int found = 0;
    for (int d = 0; d < x->nd; d++)
        for (int last = 0; last < 2; last++) {
            int64_t lo, hi;
            if (!fit_range(x, ob, nob, d, last, u, &lo, &hi))
                continue;
            if (found++) /* two explanations: leave it to the classes' refusal */
                return 0;
            *out = (xshare){.d = d, .last = (uint8_t)last, .u = u, .nlo = lo, .nhi = hi};
        }
    return found == 1;
}

static int share_index(mc_extrap *x, const xshare *s)
{
    for (int i = 0; i < x->nshare; i++)
        if (!memcmp(&x->share[i], s, sizeof *s))
            return i;
    if (x->nshare >= INT16_MAX)
        return -1;
    xshare *a = realloc(x->share, (size_t)(x->nshare + 1) * sizeof *a);
    if (!a)
        return -1;
    x->share = a;
    x->share[x->nshare] = *s;
    return x->nshare++;
}

/* ------------------------------------------------------------ pass 3 */

typedef struct norm_ctx {
    kmap *m;
    const mc_extrap *x;
} norm_ctx;

/* A slot of a fitted key holds its unit and the share: the ranks then agree. */
static int normalise(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key)
{
    (void)k, (void)r;
    norm_ctx *c = ctx;
    krec *q = kmap_get(c->m, key, 0);
    if (!q || q->share < 0)
        return 0;
    if (!t->share) {
        if (!(t->share = malloc(t->nnum * sizeof *t->share)))
            return -1;
        for (uint32_t j = 0; j < t->nnum; j++)
            t->share[j] = -1;
    }
    int64_t u = c->x->share[q->share].u;
    t->share[s] = q->share;
    t->num[s] = u;
    if (s == 0)
        t->e.bytes = u;
    else if (s == 1)
        t->e.bytes2 = u;
    return 0;
}

/* By record, then in the order collected (trace, rank, event). */
static int cmp_obs(const void *a, const void *b)
{
    const obs *x = a, *y = b;
    if (x->rec != y->rec)
        return x->rec < y->rec ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* x->share_key / share_of from the fitted keys, sorted. */
static int keep_keys(mc_extrap *x, const kmap *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; m->a && i <= m->mask; i++)
        n += m->a[i].used && m->a[i].share >= 0;
    if (!n)
        return 0;
    uint64_t *pairs = malloc(n * sizeof *pairs * 2);
    if (!pairs)
        return -1;
    n = 0;
    for (uint32_t i = 0; i <= m->mask; i++)
        if (m->a[i].used && m->a[i].share >= 0) {
            pairs[2 * n] = m->a[i].key;
            pairs[2 * n + 1] = (uint64_t)m->a[i].share;
            n++;
        }
    qsort(pairs, n, 2 * sizeof *pairs, cmp_u64); /* by key: the first of each pair */
    x->share_key = malloc(n * sizeof *x->share_key);
    x->share_of = malloc(n * sizeof *x->share_of);
    if (!x->share_key || !x->share_of) {
        free(pairs);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        x->share_key[i] = pairs[2 * i];
        x->share_of[i] = (int16_t)pairs[2 * i + 1];
    }
    x->nshare_key = n;
    free(pairs);
    return 0;
}

int extrap_share_find(xbuild *b, mc_error *err)
{
    mc_extrap *x = b->x;
    const mc_extrap_rules *ru = &x->rules;
    /* one trace shows a fixed global size only under strong scaling; a
     * stated size law or a replicated rank decides instead */
    int fitted = x->ntraces >= 2 ? ru->infer : ru->strong;
    if (!b->inherit && (!fitted || ru->replicate || ru->law[MC_SC_P2P] != MC_LAW_AUTO))
        return 0;
    if (!x->nd)
        return 0;
    kmap m = {0};
    obsvec ov = {0};
    collect_ctx cc = {&m, b->inherit, &ov};
    int rc = each_slot(b, mark_varying, &m);
    if (!rc)
        rc = each_slot(b, collect, &cc);
    if (!rc && ov.n)
        qsort(ov.a, ov.n, sizeof *ov.a, cmp_obs);
    for (size_t i = 0, j; !rc && i < ov.n; i = j) {
        for (j = i; j < ov.n && ov.a[j].rec == ov.a[i].rec; j++)
            ;
        krec *q = &m.a[ov.a[i].rec];
        xshare sh;
        if (fit_key(x, q->key, ov.a + i, j - i, b->inherit, &sh) &&
            (q->share = (int16_t)share_index(x, &sh)) < 0)
            rc = -1;
    }
    free(ov.a);
    norm_ctx nc = {&m, x};
    if (!rc)
        rc = each_slot(b, normalise, &nc);
    if (!rc)
        rc = keep_keys(x, &m);
    kmap_free(&m);
    if (rc)
        FAIL("out of memory");
    return 0;
}

/* ------------------------------------------------------------ generation */

int64_t extrap_share_size(const mc_extrap *x, int i, const xgrid *g, const int *c)
{
    const xshare *s = &x->share[i];
    if (s->d >= g->nd)
        return 0;
    return extrap_mul(s->u, extrap_share(s->nlo, g->dims[s->d], c[s->d], s->last));
}

mc_err extrap_share_check(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int i = 0; i < x->nshare; i++) {
        const xshare *s = &x->share[i];
        if (s->d >= g->nd)
            return mc_error_set(err, MC_ERR_USAGE, "a message size is a block share along "
                                "grid dimension %d, which the %d-rank grid does not have",
                                s->d, g->P);
        int64_t n = g->dims[s->d];
        for (int64_t c = 0; c < n && s->nlo < s->nhi; c++)
            if (extrap_share(s->nlo, n, c, s->last) != extrap_share(s->nhi, n, c, s->last)) {
                char what[160];
                extrap_share_str(x, i, what, sizeof what);
                return mc_error_set(err, MC_ERR_USAGE, "a message size is %s, and the traces "
                                    "give N only as %lld to %lld, which part at P=%d (%lld "
                                    "ranks along the dimension): trace a process count that "
                                    "tells them apart", what, (long long)s->nlo,
                                    (long long)s->nhi, g->P, (long long)n);
            }
    }
    return MC_OK;
}

void extrap_share_str(const mc_extrap *x, int i, char *buf, size_t len)
{
    const xshare *s = &x->share[i];
    char n[48];
    if (s->nlo == s->nhi)
        snprintf(n, sizeof n, "N=%lld", (long long)s->nlo);
    else
        snprintf(n, sizeof n, "N=%lld..%lld", (long long)s->nlo, (long long)s->nhi);
    snprintf(buf, len, "%lld B x the rank's share of %s items in blocks along dimension %d "
             "(the %s N mod n one more)", (long long)s->u, n, s->d,
             s->last ? "last" : "first");
}
