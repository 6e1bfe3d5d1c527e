/* The topo model's flows (topo_model.h): their records, the links' lists
 * of the flows on them, and the heap of flow ends that advance() pops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MPICAST_NET_INTERNAL
#include "topo_model.h"

/* ------------------------------------------------------------ memory */

/* Doubling from 64 elements. */
int topo_grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *p = realloc(*a, c * elem);
    if (!p)
        return -1;
    *a = p;
    *cap = c;
    return 0;
}

/* Grows an array of 64-byte aligned records (aligned_alloc: realloc would
 * lose the alignment). */
static void *grow_aligned(void *old, size_t used, size_t cap, size_t elem)
{
    size_t bytes = (cap * elem + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes);
    if (!p)
        return NULL;
    if (used)
        memcpy(p, old, used * elem);
    free(old);
    return p;
}

/* ------------------------------------------------------------ heap of flow ends */

/* Flow ends, in two parts split at a horizon H: the ends before H in an
 * indexed 4-ary min-heap by (t_end, id) ("near"), the others in an
 * unordered array ("far"). A refill moves the ends of the flows it
 * re-rates, most of them beyond H: in the far array that is a store, where
 * a heap of every flow in flight sifted through its depth (a tenth of a
 * halo replay). When the near heap runs empty, H moves on: the earliest
 * eighth of the far ends moves into it. All near ends are below H and all
 * far ends at or above it, so the earliest end is the near heap's top, and
 * ends come out in (t_end, id) order whatever the split.
 *
 * hpos[f]: index in the near heap (>= 0), -2 - index in the far array, or
 * -1 (not rated). Entries carry a copy of t_end, so that sifting compares
 * within the heap array, and the heap's four children of an entry share a
 * cache line (h[4i+1..4i+4] starts a line: h is hmem + 3). */
static inline int eh_less(topo_eh a, topo_eh b)
{
    /* no short cut: a value, not branches (eh_down selects with it) */
    return (a.t < b.t) | ((a.t == b.t) & (a.f < b.f));
}

/* Past the near heap's last entry: EH_PAD entries later than every end,
 * so that eh_down compares four children without counting them. */
#define EH_PAD 4
static const topo_eh eh_sentinel = {INT64_MAX, INT32_MAX};

static void eh_place(topo_net *n, size_t i, topo_eh e)
{
    n->h[i] = e;
    n->hpos[e.f] = (int32_t)i;
}

static void eh_up(topo_net *n, size_t i, topo_eh e)
{
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!eh_less(e, n->h[p]))
            break;
        eh_place(n, i, n->h[p]);
        i = p;
    }
    eh_place(n, i, e);
}

static void eh_down(topo_net *n, size_t i, topo_eh e)
{
    const topo_eh *h = n->h;
    const size_t nh = n->nh;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= nh)
            break;
        /* the earliest of the four children by a tournament of selects,
         * not branches: which child wins is a coin toss for a predictor
         * (missing children are sentinels) */
        size_t a = c + (size_t)eh_less(h[c + 1], h[c]);
        size_t b = c + 2 + (size_t)eh_less(h[c + 3], h[c + 2]);
        size_t m = eh_less(h[b], h[a]) ? b : a;
        if (!eh_less(h[m], e))
            break;
        eh_place(n, i, h[m]);
        i = m;
    }
    eh_place(n, i, e);
}

static int eh_reserve(topo_net *n, size_t need)
{
    if (need <= n->caph)
        return 0;
    size_t c = n->caph ? 2 * n->caph : 1024;
    while (c < need)
        c *= 2;
    topo_eh *m = grow_aligned(n->hmem, n->hmem ? n->nh + 3 : 0, c + 3 + EH_PAD, sizeof *m);
    if (!m)
        return -1;
    n->hmem = m;
    n->h = m + 3;
    n->caph = c;
    for (size_t i = n->nh; i < c + EH_PAD; i++)
        n->h[i] = eh_sentinel;
    return 0;
}

static void near_remove(topo_net *n, size_t i)
{
    topo_eh last = n->h[--n->nh];
    n->h[n->nh] = eh_sentinel;
    if (i == n->nh)
        return;
    if (eh_less(last, n->h[i]))
        eh_up(n, i, last);
    else
        eh_down(n, i, last);
}

static void far_place(topo_net *n, size_t i, topo_eh e)
{
    n->far[i] = e;
    n->hpos[e.f] = -2 - (int32_t)i;
}

static void far_remove(topo_net *n, size_t i)
{
    topo_eh last = n->far[--n->nfar];
    if (i < n->nfar)
        far_place(n, i, last);
}

/* Inserts flow f with end t, or moves it after its end changed to t. */
static int eh_update(topo_net *n, int32_t f, int64_t t)
{
    topo_eh e = {t, f};
    int32_t pos = n->hpos[f];
    if (t < n->horizon) {
        if (pos >= 0) {
            if (t < n->h[pos].t)
                eh_up(n, (size_t)pos, e);
            else
                eh_down(n, (size_t)pos, e);
            return 0;
        }
        if (eh_reserve(n, n->nh + 1))
            return -1;
        if (pos <= -2)
            far_remove(n, (size_t)(-2 - pos));
        eh_up(n, n->nh++, e); /* a new entry only moves up */
        return 0;
    }
    if (pos <= -2) {
        n->far[-2 - pos].t = t;
        return 0;
    }
    if (n->nfar == n->capfar &&
        topo_grow((void **)&n->far, &n->capfar, n->nfar + 1, sizeof *n->far))
        return -1;
    if (pos >= 0)
        near_remove(n, (size_t)pos);
    far_place(n, n->nfar++, e);
    return 0;
}

void topo_eh_remove(topo_net *n, int32_t f)
{
    int32_t pos = n->hpos[f];
    n->hpos[f] = -1;
    if (pos >= 0)
        near_remove(n, (size_t)pos);
    else if (pos <= -2)
        far_remove(n, (size_t)(-2 - pos));
}

/* The near heap is empty: moves the horizon past about the earliest
 * fraction hq/32 of the far ends (estimated from an evenly spaced sample)
 * and those ends into the heap. At least the earliest far end moves. The
 * fraction adapts: when the heap ran empty after few ends (their flows
 * re-rated beyond the horizon), the next horizon is farther. */
static int eh_refresh(topo_net *n)
{
    enum { NS = 32 };
    uint64_t ran = n->npop - n->npop_refresh;
    n->npop_refresh = n->npop;
    if (ran < n->nfar / 16 && n->hq < NS - 1)
        n->hq = 2 * n->hq + 1;
    else if (ran > n->nfar / 4 && n->hq > 3)
        n->hq /= 2;
    int64_t smp[NS] = {0};
    size_t m = n->nfar, ns = m < NS ? m : NS;
    for (size_t i = 0; i < ns; i++) { /* insertion sort of the sample */
        int64_t v = n->far[i * m / ns].t;
        size_t j = i;
        for (; j > 0 && smp[j - 1] > v; j--)
            smp[j] = smp[j - 1];
        smp[j] = v;
    }
    n->horizon = smp[(ns - 1) * (size_t)n->hq / (NS - 1)] + 1;
    size_t w = 0;
    for (size_t i = 0; i < m; i++) {
        topo_eh e = n->far[i];
        if (e.t < n->horizon) {
            if (eh_reserve(n, n->nh + 1))
                return -1;
            eh_up(n, n->nh++, e);
        } else {
            far_place(n, w++, e);
        }
    }
    n->nfar = w;
    return 0;
}

int64_t topo_next_end_refresh(topo_net *n)
{
    if (eh_refresh(n)) {
        /* out of memory: the flows are priced alone from now on; what
         * is in flight ends through the heap filled so far */
        n->failed = 1;
    }
    return n->nh ? n->h[0].t : INT64_MAX;
}

/* ------------------------------------------------------------ links */

/* Moves the flows of link k to a list of twice their number. */
static int link_spill(tlink *k)
{
    size_t c = 2 * (size_t)k->nfl;
    int32_t *a = malloc(c * sizeof *a);
    if (!a)
        return -1;
    memcpy(a, lfl(k), (size_t)k->nfl * sizeof *a);
    if (k->capfl)
        free(k->u.fl);
    k->u.fl = a;
    k->capfl = (int32_t)c;
    return 0;
}

static int link_add(topo_net *n, int32_t l, int32_t f, int64_t t)
{
    tlink *k = &n->links[l];
    if (k->nfl == (k->capfl ? k->capfl : TL_IN) && link_spill(k))
        return -1;
    lfl(k)[k->nfl++] = f;
    if (k->nfl == 1) {
        n->since[l] = t; /* written, never read on the way */
        k->busy -= t;
    }
    if (k->nfl > k->peak)
        k->peak = k->nfl;
    return 0;
}

/* Unordered removal: a link's list is short next to the refill that
 * follows, and a search saves a back-pointer per flow and link. */
static void link_remove(topo_net *n, int32_t l, int32_t f, int64_t t)
{
    tlink *k = &n->links[l];
    int32_t *a = lfl(k);
    int32_t q = k->nfl - 1;
    while (q > 0 && a[q] != f)
        q--;
    a[q] = a[--k->nfl];
    if (k->nfl == 0) {
        k->busy += t;
        k->alloc = 0; /* no drift carried into the next busy period */
    }
}

/* ------------------------------------------------------------ flows */

/* (int64_t)ceil(x) for -1 < x < 2^62, without the libm call (not inlined
 * without SSE4.1): exact, as every double of that range above 2^52 is an
 * integer and the truncation below is exact. */
static inline int64_t ceil_ps(double x)
{
    int64_t i = (int64_t)x; /* toward zero: 0 for -1 < x < 0, as ceil */
    return (double)i < x ? i + 1 : i;
}

/* The ends of the flows fs[0..ns), just re-rated at t, into the end heap. */
int topo_set_ends(topo_net *n, const int32_t *fs, size_t ns, int64_t t)
{
    for (size_t i = 0; i < ns; i++) {
        int32_t fi = fs[i];
        tflow *f = &n->fl[fi];
        double d = f->rem / f->rate;
        int64_t end = t + (d < 4e18 ? ceil_ps(d - 1e-6) : (int64_t)4e18);
        if (end < t)
            end = t;
        if (end != f->t_end || n->hpos[fi] < 0) {
            f->t_end = end;
            if (eh_update(n, fi, end))
                return -1;
        }
    }
    return 0;
}

static int32_t flow_new(topo_net *n)
{
    if (n->free_fl >= 0) {
        int32_t f = n->free_fl;
        n->free_fl = n->fc[f].next;
        return f;
    }
    if (n->nfl == n->capfl) {
        int32_t c = n->capfl ? n->capfl * 2 : 1024;
        tflow *a = grow_aligned(n->fl, (size_t)n->nfl, (size_t)c, sizeof *a);
        if (!a)
            return -1;
        n->fl = a;
        tcold *b = realloc(n->fc, (size_t)c * sizeof *b);
        if (!b)
            return -1;
        n->fc = b;
        int32_t *h = realloc(n->hpos, (size_t)c * sizeof *h);
        if (!h)
            return -1;
        n->hpos = h;
        tmark *m = realloc(n->fmark, (size_t)c * sizeof *m);
        if (!m)
            return -1;
        n->fmark = m;
        if (n->maxp > TF_PIN) {
            int32_t *p = realloc(n->xpath, (size_t)c * n->maxp * sizeof *p);
            if (!p)
                return -1;
            n->xpath = p;
        }
        n->capfl = c;
    }
    return n->nfl++;
}

int32_t topo_flow_open(topo_net *n, const int32_t *p, int np, double bytes, int64_t t)
{
    int32_t fi = flow_new(n);
    if (fi < 0)
        return -1;
    tflow *f = &n->fl[fi];
    f->rem = bytes;
    f->rate = 0;
    f->t_last = t;
    f->t_end = 0;
    f->npath = np;
    f->fin = 1;
    for (int i = 0; i < np; i++)
        if (isinf(link_cap(n, p[i])))
            f->fin = 0;
    memcpy(np <= TF_PIN ? f->path : &n->xpath[(size_t)fi * n->maxp], p,
           (size_t)np * sizeof *p);
    tcold *c = &n->fc[fi];
    c->live = 1;
    c->next = -1;
    n->hpos[fi] = -1;
    n->fmark[fi].gen = 0;
    n->fmark[fi].bneck = -1;
    for (int i = 0; i < np; i++)
        if (link_add(n, p[i], fi, t))
            n->failed = 1;
    return fi;
}

void topo_flow_end(topo_net *n, int32_t fi, int64_t t)
{
    tflow *f = &n->fl[fi];
    const int32_t *p = fpath(n, fi);
    for (int j = 0; j < f->npath; j++) {
        if (f->fin || !isinf(link_cap(n, p[j])))
            n->links[p[j]].alloc -= f->rate;
        link_remove(n, p[j], fi, t);
    }
    n->fc[fi].live = 0;
    n->fc[fi].next = n->free_fl;
    n->free_fl = fi;
}

