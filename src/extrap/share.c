/* Block shares (issue 20): message sizes that differ between ranks because a
 * fixed global size does not divide the process grid. A code that splits N
 * cells along each grid dimension gives the first N mod n coordinates (or
 * the last) one cell more, so a face, a row or a column of u bytes a cell
 * has a size that depends on the rank's coordinate along one dimension,
 * u * extrap_share(N, n, c) (a 3-d face: along two, the product of two such
 * blocks). Such sizes differ between the members of a
 * position class (4 x 4 ranks over 10 cells: 3, 3, 2, 2), and no law of P
 * gives them, so the classes refused them.
 *
 * Each number slot of a point-to-point or completion event is keyed by its
 * call site, the occurrence of that site in the rank's stream and the slot.
 * A key whose sizes differ between the ranks of one trace is fitted. Along a
 * line of ranks that differ in one coordinate d only, a share shows two
 * sizes in the ratio (q + 1) / q, which gives q and which coordinates hold
 * q + 1 cells (the first or the last); every coordinate of every trace then
 * gives N_d as an interval (q or q + 1 cells at coordinate c of n hold for
 * N in [n (s - 1) + c + 1, n s + c], c counted from the other end for the
 * last), whose intersection is N_d. The dimensions it follows are those
 * along which a trace's sizes change (two for a 3-d face: u times the
 * product of two blocks); u is what remains, the same on every rank. The
 * slot then holds u and the share's index, and the generator gives each
 * rank its own blocks at the target grid.
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

/* One key's record: whether its sizes differ within a trace (24 bytes: one
 * per call site, occurrence and slot, shared by the ranks). */
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

/* Calls fn(ctx, k, r, t, s, key, border) for every eligible slot of every
 * rank; border: an empty one to or from MPI_PROC_NULL, which is no
 * observation (a border's: the classes tell those apart), but a send that
 * takes a share that gives it no item (an empty ceil block at a border). */
typedef int (*slot_fn)(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key, int border);

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
                    rc = fn(ctx, k, r, &a->t, s, key_of(a->t.e.site, occ, s),
                            !a->t.num[s] && s < a->t.npeer && a->pc[s].lit == MC_NONE);
            }
            free(om.site);
            free(om.count);
        }
    return rc;
}

/* ------------------------------------------------------------ pass 1 and 2 */

static int mark_varying(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key, int border)
{
    (void)r;
    if (border)
        return 0;
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

static int collect(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key, int border)
{
    collect_ctx *c = ctx;
    if (border)
        return 0;
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

/* Levels of one trace along one dimension: the two block sizes q and q + 1
 * of the cells along it, and which coordinates hold q + 1. */
typedef struct dlevel {
    int64_t q;      /* -1: no line along d shows two sizes */
    uint8_t *high;  /* per coordinate: 0 unknown, 1 q cells, 2 q + 1 */
} dlevel;

/* The levels along d of a trace whose sizes are val[r] (-1: not seen): along
 * each line of ranks that differ only in their coordinate along d, a size
 * times q + 1 / q. 0 when the lines disagree or one shows three sizes. */
static int levels_along(const xgrid *g, const int64_t *val, int d, dlevel *lv)
{
    int n = g->dims[d];
    int64_t stride = 1;
    for (int e = d + 1; e < g->nd; e++)
        stride *= g->dims[e];
    lv->q = -1;
    memset(lv->high, 0, (size_t)n);
    for (int r = 0; r < g->P; r++) {
        if ((r / stride) % n) /* a line starts at coordinate 0 along d */
            continue;
        int64_t lo = -1, hi = -1;
        for (int c = 0; c < n; c++) {
            int64_t v = val[r + c * stride];
            if (v < 0 || v == lo || v == hi)
                continue;
            if (lo < 0)
                lo = v;
            else if (hi < 0)
                hi = v;
            else
                return 0;
        }
        if (hi < 0)
            continue;
        if (lo > hi) {
            int64_t t = lo;
            lo = hi;
            hi = t;
        }
        if (lo % (hi - lo)) /* lo / hi is no q / (q + 1) */
            return 0;
        int64_t q = lo / (hi - lo);
        if (lv->q >= 0 && lv->q != q)
            return 0;
        lv->q = q;
        for (int c = 0; c < n; c++) {
            int64_t v = val[r + c * stride];
            uint8_t h = v == hi ? 2 : v == lo ? 1 : 0;
            if (h && lv->high[c] && lv->high[c] != h)
                return 0;
            if (h)
                lv->high[c] = h;
        }
    }
    return 1;
}

/* Where the larger blocks are: 0 the first coordinates, 1 the last, -1
 * neither (or both: only one level seen). */
static int side_of(const dlevel *lv, int n)
{
    int first = 1, last = 1;
    for (int c = 0; c < n; c++)
        for (int e = c + 1; e < n; e++) {
            if (lv->high[c] == 1 && lv->high[e] == 2)
                first = 0;
            if (lv->high[c] == 2 && lv->high[e] == 1)
                last = 0;
        }
    return first == last ? -1 : last;
}

/* Size of reading s at coordinates c of grid g, with N at its low (hi = 0)
 * or high end of the range. */
static int64_t share_at(const xsread *s, const xgrid *g, const int *c, int hi)
{
    int64_t v = s->u;
    for (int j = 0; j < s->nd; j++)
        v = extrap_mul(v, extrap_share(hi ? s->nhi[j] : s->nlo[j], g->dims[s->d[j]],
                                       c[s->d[j]], s->last[j]));
    return v;
}

/* Whether reading s gives every observed size (N at one end of its range). */
static int explains(const mc_extrap *x, const xsread *s, const obs *ob, size_t nob, int hi)
{
    for (size_t i = 0; i < nob; i++) {
        const xgrid *g = &x->tgrid[ob[i].k];
        int c[MAXD];
        grid_coords(g, ob[i].r, c);
        for (int j = 0; j < s->nd; j++)
            if (s->d[j] >= g->nd)
                return 0;
        if (share_at(s, g, c, hi) != ob[i].v)
            return 0;
    }
    return 1;
}

/* u from the first observation whose blocks are not empty; 0 if none. */
static int64_t unit_from(const mc_extrap *x, xsread *s, const obs *ob, size_t nob)
{
    for (size_t i = 0; i < nob; i++) {
        const xgrid *g = &x->tgrid[ob[i].k];
        int c[MAXD];
        grid_coords(g, ob[i].r, c);
        s->u = 1;
        int64_t blocks = share_at(s, g, c, 0);
        if (blocks > 0)
            return ob[i].v % blocks ? 0 : ob[i].v / blocks;
    }
    return 0;
}

/* Dimension d of reading s (index j) from the traces' levels lv[k]: its
 * side and N's range (the intervals every coordinate of known level allows:
 * a block of s cells at coordinate c of n is N in [n (s - 1) + c + 1,
 * n s + c], c counted from the other end for the last). 0 when they
 * disagree or contradict the stated side (stated: 1 first, 2 last). */
static int fit_dim(const mc_extrap *x, dlevel *const *lv, int d, int j, int stated, xsread *s)
{
    int side = stated == 1 + XD_FIRST || stated == 1 + XD_LAST ? stated - 1 : -1;
    for (int k = 0; k < x->ntraces; k++) {
        if (!lv[k] || lv[k][d].q < 0)
            continue;
        int sk = side_of(&lv[k][d], x->tgrid[k].dims[d]);
        if (sk >= 0 && side >= 0 && sk != side)
            return 0;
        if (sk >= 0)
            side = sk;
    }
    if (side < 0)
        side = 0; /* one level at each coordinate seen: either end gives the same */
    int64_t lo = 1, hi = INT64_MAX / 4;
    for (int k = 0; k < x->ntraces; k++) {
        if (!lv[k] || lv[k][d].q < 0)
            continue;
        int64_t n = x->tgrid[k].dims[d];
        for (int64_t c = 0; c < n; c++) {
            if (!lv[k][d].high[c])
                continue;
            int64_t b = lv[k][d].q + (lv[k][d].high[c] == 2), cc = side ? n - 1 - c : c;
            if (b > INT64_MAX / 4 / n)
                return 0;
            int64_t a = n * (b - 1) + cc + 1, z = n * b + cc;
            lo = a > lo ? a : lo;
            hi = z < hi ? z : hi;
        }
    }
    if (lo > hi)
        return 0;
    s->d[j] = d;
    s->last[j] = (uint8_t)side;
    s->nlo[j] = lo;
    s->nhi[j] = hi;
    return 1;
}

/* The sizes of trace k's ranks (val[r], -1: not seen) from the
 * observations ob[*i ..] of that trace, *i moved past them. 0 when a rank
 * shows two sizes (not a function of its place). */
static int trace_values(const obs *ob, size_t nob, size_t *i, int k, int P, int64_t *val)
{
    for (int r = 0; r < P; r++)
        val[r] = -1;
    for (; *i < nob && ob[*i].k == k; (*i)++) {
        if (val[ob[*i].r] >= 0 && val[ob[*i].r] != ob[*i].v)
            return 0;
        val[ob[*i].r] = ob[*i].v;
    }
    return 1;
}

/* The levels of every trace along every dimension (lv[k], NULL for a trace
 * without observations); 0 when a trace's sizes are no balanced blocks. */
static int all_levels(const mc_extrap *x, const obs *ob, size_t nob, dlevel (*lvs)[MAXD],
                      dlevel **lv, int64_t *val, uint8_t *flags, int maxP)
{
    size_t i = 0;
    for (int k = 0; k < x->ntraces; k++) {
        const xgrid *g = &x->tgrid[k];
        lv[k] = NULL;
        if (i >= nob || ob[i].k != k)
            continue;
        if (!trace_values(ob, nob, &i, k, g->P, val))
            return 0;
        lv[k] = lvs[k];
        for (int d = 0; d < g->nd; d++) {
            lv[k][d].high = flags + ((size_t)k * MAXD + (size_t)d) * (size_t)maxP;
            if (!levels_along(g, val, d, &lv[k][d]))
                return 0;
        }
    }
    return 1;
}

/* The balanced reading of the observations (the first or the last N mod n
 * coordinates one item more): 1 with *s, 0 when none fits. */
static int balanced_fit(const mc_extrap *x, const obs *ob, size_t nob, int64_t *val,
                        uint8_t *flags, int maxP, xsread *s)
{
    dlevel lvs[64][MAXD], *lv[64];
    if (!all_levels(x, ob, nob, lvs, lv, val, flags, maxP))
        return 0;
    memset(s, 0, sizeof *s); /* padding too: shares are compared by memcmp */
    for (int d = 0; d < x->nd; d++) {
        int varies = 0;
        for (int k = 0; k < x->ntraces; k++)
            varies |= lv[k] && d < x->tgrid[k].nd && lv[k][d].q >= 0;
        if (varies && !fit_dim(x, lv, d, s->nd++, x->rules.blocks, s))
            return 0;
    }
    if (!s->nd || (s->u = unit_from(x, s, ob, nob)) <= 0)
        return 0;
    if (!explains(x, s, ob, nob, 1))
        memcpy(s->nhi, s->nlo, sizeof s->nhi);
    return explains(x, s, ob, nob, 0);
}

/* ------------------------------------------------------------ ceil readings */

/* Values of N one dimension allows: a small sorted set. */
#define NSET_MAX 64
typedef struct nset {
    int64_t v[NSET_MAX];
    int n;
    uint8_t seen; /* some line narrowed it (else every N is open) */
} nset;

/* Adds lo .. hi to s; 0 when that makes more than NSET_MAX. */
static int nset_add(nset *s, int64_t lo, int64_t hi)
{
    for (int64_t N = lo; N <= hi; N++) {
        int i = 0;
        while (i < s->n && s->v[i] < N)
            i++;
        if (i < s->n && s->v[i] == N)
            continue;
        if (s->n == NSET_MAX)
            return 0;
        memmove(s->v + i + 1, s->v + i, (size_t)(s->n - i) * sizeof *s->v);
        s->v[i] = N;
        s->n++;
    }
    return 1;
}

/* s: the values in both s and line. */
static void nset_meet(nset *s, const nset *line)
{
    if (!s->seen) {
        *s = *line;
        s->seen = 1;
        return;
    }
    int k = 0;
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < line->n; j++)
            if (line->v[j] == s->v[i]) {
                s->v[k++] = s->v[i];
                break;
            }
    s->n = k;
}

/* Bounds on N in ceil blocks of B items (B = ceil(N / n)) from one line's
 * sizes v[c * stride] in items of w bytes: a full block at coordinate c is
 * N >= (c + 1) B, a part b is N = c B + b, none N <= c B. */
static void ceil_bounds(const int64_t *v, int64_t stride, int n, int64_t w, int64_t B,
                        int64_t *lo, int64_t *hi)
{
    *lo = (B - 1) * n + 1, *hi = B * n;
    for (int c = 0; c < n && *lo <= *hi; c++) {
        int64_t b = v[c * stride] / w, at = c * B + b;
        if (v[c * stride] < 0)
            continue;
        if (b == B)
            *lo = at > *lo ? at : *lo;
        else if (b == 0)
            *hi = at < *hi ? at : *hi;
        else if (at < *lo || at > *hi)
            *lo = *hi + 1;
        else
            *lo = *hi = at;
    }
}

/* The N that ceil blocks give a line of ranks whose sizes are v[c * stride]
 * (c < n, -1 not seen): for every item size w dividing the sizes, the
 * largest size is a full block. 1 with *out, 0 when the line shows one size
 * only (it tells nothing), -1 when it allows more than NSET_MAX values. */
static int ceil_line(const int64_t *v, int64_t stride, int n, nset *out)
{
    int64_t H = -1, G = 0, first = -1;
    int two = 0;
    for (int c = 0; c < n; c++) {
        int64_t s = v[c * stride];
        if (s < 0)
            continue;
        two |= first >= 0 && s != first;
        first = first < 0 ? s : first;
        H = s > H ? s : H;
        G = extrap_gcd(G, s);
    }
    if (!two || H <= 0)
        return 0;
    out->n = 0;
    for (int64_t a = 1; a <= G / a; a++) {
        if (G % a)
            continue;
        for (int i = 0; i < 1 + (G / a != a); i++) {
            int64_t w = i ? G / a : a, B = H / w, lo, hi;
            if (B > INT64_MAX / 4 / n)
                continue;
            ceil_bounds(v, stride, n, w, B, &lo, &hi);
            if (lo <= hi && !nset_add(out, lo, hi))
                return -1;
        }
    }
    return 1;
}

/* Narrows ns to the N that ceil blocks along d give every line of a trace
 * whose sizes are val[r]; *varies when some line shows two sizes. */
static void ceil_along(const xgrid *g, const int64_t *val, int d, nset *ns, uint8_t *varies)
{
    int n = g->dims[d];
    int64_t stride = 1;
    for (int e = d + 1; e < g->nd; e++)
        stride *= g->dims[e];
    for (int r = 0; r < g->P; r++) {
        if ((r / stride) % n) /* a line starts at coordinate 0 along d */
            continue;
        nset line;
        int rc = ceil_line(val + r, stride, n, &line);
        if (rc > 0)
            nset_meet(ns, &line);
        *varies |= rc != 0;
    }
}

/* Appends to rd[*n .. max) the readings in ceil blocks (every dimension that
 * some trace's sizes follow) that give every observation; *more when there
 * are more than fit, or the traces leave N too open to enumerate them. */
static void ceil_fits(const mc_extrap *x, const obs *ob, size_t nob, int64_t *val, xsread *rd,
                      int *n, int max, int *more)
{
    nset ns[MAXD];
    uint8_t varies[MAXD] = {0};
    memset(ns, 0, sizeof ns);
    size_t i = 0;
    for (int k = 0; k < x->ntraces; k++) {
        const xgrid *g = &x->tgrid[k];
        if (!trace_values(ob, nob, &i, k, g->P, val))
            return;
        for (int d = 0; d < g->nd; d++)
            ceil_along(g, val, d, &ns[d], &varies[d]);
    }
    xsread s;
    memset(&s, 0, sizeof s);
    for (int d = 0; d < x->nd; d++) {
        if (!varies[d])
            continue;
        if (!ns[d].seen) {
            *more = 1;
            return;
        }
        if (!ns[d].n)
            return;
        s.d[s.nd] = d;
        s.last[s.nd++] = XD_CEIL;
    }
    int idx[MAXD] = {0}, tries = 0;
    while (s.nd) {
        for (int j = 0; j < s.nd; j++)
            s.nlo[j] = s.nhi[j] = ns[s.d[j]].v[idx[j]];
        if ((s.u = unit_from(x, &s, ob, nob)) > 0 && explains(x, &s, ob, nob, 0)) {
            if (*n == max) {
                *more = 1;
                return;
            }
            rd[(*n)++] = s;
        }
        if (++tries > 4096) {
            *more = 1;
            return;
        }
        int j = 0;
        while (j < s.nd && ++idx[j] == ns[s.d[j]].n)
            idx[j++] = 0;
        if (j == s.nd)
            break;
    }
}

/* The share of key q: fitted on its observations (sorted by trace, then
 * rank), or (a rebuild) the inherited one if it gives them. 1 with *out,
 * 0 when none, -1 out of memory. Every reading that fits is kept (the
 * balanced one first; the stated rule blocks narrows them): the target
 * must not tell them apart. */
static int fit_key(const mc_extrap *x, uint64_t key, const obs *ob, size_t nob,
                   const mc_extrap *I, xshare *out)
{
    int ih = inherited_share(I, key);
    if (ih >= 0) {
        *out = I->share[ih];
        return explains(x, &out->r, ob, nob, 0);
    }
    int maxP = 1;
    for (int k = 0; k < x->ntraces; k++)
        maxP = x->tgrid[k].P > maxP ? x->tgrid[k].P : maxP;
    /* the coordinates' levels of every trace and dimension (maxP each: no
     * dimension has more coordinates than ranks) */
    uint8_t *flags = malloc((size_t)x->ntraces * MAXD * (size_t)maxP);
    int64_t *val = malloc((size_t)maxP * sizeof *val);
    xsread rd[1 + XSHARE_ALT];
    int n = 0, more = 0, stated = x->rules.blocks;
    if (flags && val && stated != 1 + XD_CEIL && balanced_fit(x, ob, nob, val, flags, maxP, rd))
        n = 1;
    if (flags && val && (!stated || stated == 1 + XD_CEIL))
        ceil_fits(x, ob, nob, val, rd, &n, 1 + XSHARE_ALT, &more);
    int rc = flags && val ? n > 0 : -1;
    free(flags);
    free(val);
    if (rc > 0) {
        memset(out, 0, sizeof *out);
        out->r = rd[0];
        out->nalt = n - 1;
        out->more = more;
        memcpy(out->alt, rd + 1, (size_t)(n - 1) * sizeof *rd);
    }
    return rc;
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
static int normalise(void *ctx, int k, int r, tev *t, uint32_t s, uint64_t key, int border)
{
    norm_ctx *c = ctx;
    krec *q = kmap_get(c->m, key, 0);
    if (!q || q->share < 0)
        return 0;
    if (border) { /* a receive from MPI_PROC_NULL is empty whatever its block */
        int co[MAXD];
        if (s || !mc_op_has(t->e.op, MC_OPF_SEND | MC_OPF_SEND_INIT))
            return 0;
        grid_coords(&c->x->tgrid[k], r, co);
        if (share_at(&c->x->share[q->share].r, &c->x->tgrid[k], co, 0))
            return 0;
    }
    if (!t->share) {
        if (!(t->share = malloc(t->nnum * sizeof *t->share)))
            return -1;
        for (uint32_t j = 0; j < t->nnum; j++)
            t->share[j] = -1;
    }
    int64_t u = c->x->share[q->share].r.u;
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
    if (!b->inherit && (!fitted || ru->replicate || (ru->law[MC_SC_P2P] != MC_LAW_AUTO &&
                                                        ru->law[MC_SC_P2P] != MC_LAW_FIT)))
        return 0;
    if (!x->nd)
        return 0;
    kmap m = {0};
    obsvec ov = {0};
    collect_ctx cc = {&m, b->inherit, &ov};
    int rc = each_slot(b, mark_varying, &m);
    int any = b->inherit && b->inherit->nshare_key;
    for (uint32_t i = 0; !rc && !any && m.a && i <= m.mask; i++)
        any = m.a[i].used && m.a[i].varies;
    if (!rc && !any) { /* every size the same on every rank of a trace: nothing to fit */
        kmap_free(&m);
        return 0;
    }
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
    return share_at(&x->share[i].r, g, c, 0);
}

/* "Sendrecv, site 584fc9b0, halo.c:108 in main" for the first template
 * whose slot holds share i. */
static const char *share_op(const mc_extrap *x, int i, char *buf, size_t len)
{
    for (int c = 0; c < NCLASSES; c++)
        for (uint32_t e = 0; e < x->cls[c].n; e++) {
            const tev *t = &x->cls[c].ev[e];
            for (uint32_t s = 0; t->share && s < t->nnum; s++)
                if (t->share[s] == i)
                    return extrap_op_at(x, x->cls[c].trace, &t->e, buf, len);
        }
    snprintf(buf, len, "a message");
    return buf;
}

/* Whether g is the grid of a trace (every reading gives its sizes). */
static int traced_grid(const mc_extrap *x, const xgrid *g)
{
    for (int k = 0; k < x->ntraces; k++)
        if (x->tgrid[k].nd == g->nd &&
            !memcmp(x->tgrid[k].dims, g->dims, (size_t)g->nd * sizeof *g->dims))
            return 1;
    return 0;
}

static void read_str(const xsread *s, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "%lld B x the rank's block%s of", (long long)s->u,
                                s->nd > 1 ? "s" : "");
    for (int j = 0; j < s->nd && o < len; j++) {
        char n[48];
        if (s->nlo[j] == s->nhi[j])
            snprintf(n, sizeof n, "N=%lld", (long long)s->nlo[j]);
        else
            snprintf(n, sizeof n, "N=%lld..%lld", (long long)s->nlo[j], (long long)s->nhi[j]);
        o += (size_t)snprintf(buf + o, len - o, "%s %s items along dimension %d (%s)",
                              j ? " and" : "", n, s->d[j],
                              s->last[j] == XD_CEIL ? "blocks of ceil(N/n)"
                              : s->last[j] == XD_LAST ? "the last N mod n one more"
                                                      : "the first N mod n one more");
    }
}

/* The first rank of g where readings a and b give other sizes (-1: none). */
static int first_apart(const xsread *a, const xsread *b, const xgrid *g, int64_t *va,
                       int64_t *vb)
{
    for (int r = 0; r < g->P; r++) {
        int c[MAXD];
        grid_coords(g, r, c);
        *va = share_at(a, g, c, 0), *vb = share_at(b, g, c, 0);
        if (*va != *vb)
            return r;
    }
    return -1;
}

static mc_err check_dims(const mc_extrap *x, int i, const xsread *s, const xgrid *g,
                         mc_error *err)
{
    for (int j = 0; j < s->nd; j++) {
        if (s->d[j] >= g->nd)
            return mc_error_set(err, MC_ERR_USAGE, "a message size is a block share "
                                "along grid dimension %d, which the %d-rank grid does not "
                                "have", s->d[j], g->P);
        int64_t n = g->dims[s->d[j]];
        for (int64_t c = 0; c < n && s->nlo[j] < s->nhi[j]; c++)
            if (extrap_share(s->nlo[j], n, c, s->last[j]) !=
                extrap_share(s->nhi[j], n, c, s->last[j])) {
                char what[512];
                extrap_share_str(x, i, what, sizeof what);
                return mc_error_set(err, MC_ERR_USAGE, "a message size is %s, and the "
                                    "traces give N along dimension %d only as %lld to "
                                    "%lld, which part at P=%d (%lld ranks along it): "
                                    "trace a process count that tells them apart", what,
                                    s->d[j], (long long)s->nlo[j], (long long)s->nhi[j],
                                    g->P, (long long)n);
            }
    }
    return MC_OK;
}

/* Every reading the traces fit must give the sizes of the one the slots
 * take at g, or the pseudo-trace would be one guess. */
static mc_err check_alts(const mc_extrap *x, int i, const xgrid *g, mc_error *err)
{
    const xshare *s = &x->share[i];
    char op[EXTRAP_OP_AT_MAX], r0[256], r1[256];
    if (s->more && !traced_grid(x, g)) {
        read_str(&s->r, r0, sizeof r0);
        return mc_error_set(err, MC_ERR_USAGE, "%s: the message size is %s, or one of more "
                            "readings in blocks of ceil(N/n) than mpicast enumerates, which "
                            "may differ at P=%d: trace a process count that tells them "
                            "apart, or state how items are dealt out (--rule "
                            "blocks=first|last|ceil)", share_op(x, i, op, sizeof op), r0, g->P);
    }
    for (int j = 0; j < s->nalt; j++) {
        int64_t va, vb;
        int r = first_apart(&s->r, &s->alt[j], g, &va, &vb);
        if (r < 0)
            continue;
        read_str(&s->r, r0, sizeof r0);
        read_str(&s->alt[j], r1, sizeof r1);
        int modes = memcmp(s->r.last, s->alt[j].last, sizeof s->r.last) != 0;
        return mc_error_set(err, MC_ERR_USAGE, "%s: the traced message sizes are %s, or %s, "
                            "and these differ at P=%d (rank %d: %lld bytes against %lld): "
                            "trace a process count that tells them apart%s",
                            share_op(x, i, op, sizeof op), r0, r1, g->P, r, (long long)va,
                            (long long)vb, modes ? ", or state how items are dealt out "
                                                   "(--rule blocks=first|last|ceil)" : "");
    }
    return MC_OK;
}

mc_err extrap_share_check(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int i = 0; i < x->nshare; i++) {
        const xshare *s = &x->share[i];
        if (check_dims(x, i, &s->r, g, err))
            return err->code;
        for (int j = 0; j < s->nalt; j++)
            for (int d = 0; d < s->alt[j].nd; d++)
                if (s->alt[j].d[d] >= g->nd)
                    return check_dims(x, i, &s->alt[j], g, err);
        if (check_alts(x, i, g, err))
            return err->code;
    }
    return MC_OK;
}

void extrap_share_str(const mc_extrap *x, int i, char *buf, size_t len)
{
    const xshare *s = &x->share[i];
    read_str(&s->r, buf, len);
    if (!s->nalt && !s->more)
        return;
    size_t o = strlen(buf);
    char alt[256] = "one in blocks of ceil(N/n)";
    if (s->nalt)
        read_str(&s->alt[0], alt, sizeof alt);
    snprintf(buf + o, len - o, "; the traces fit as well %s%s", alt,
             s->nalt > 1 || (s->nalt && s->more) ? " and more readings" : "");
}
