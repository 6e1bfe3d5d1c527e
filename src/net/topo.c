/* The topo network model: a topology of links (topo_route.c) whose
 * bandwidth concurrent messages share, max-min fairly, as flows.
 *
 * A message of s bytes from rank a to rank b, issued at t:
 *   sender CPU busy o (network.overhead), NIC g (network.gap);
 *   its data is a flow over the route: node(a)'s injection link, the
 *   topology links, node(b)'s ejection link (ranks of one node: that node's
 *   shared-memory link, intranode.* parameters);
 *   the flow transfers s bytes at the rate max-min fair sharing gives it,
 *   recomputed whenever a flow starts or ends; when its last byte is
 *   through (t_end), the message arrives at t_end + o + L + hops * hop_latency;
 *   the receiver's CPU is busy o, its NIC g.
 * With infinite bandwidth every flow is instantaneous, so a crossbar gives
 * exactly loggp's times with G = 0 (arrival t + o + L, o at both ends).
 *
 * Sharing is incremental: when a flow starts or ends, only flows that
 * cross one of its links are re-rated, by progressive filling against the
 * capacity the other flows leave on each link (their rates held). The cost
 * is in the number of flows sharing links with the changed one, never in
 * all flows. The result is feasible (no link above capacity) and max-min
 * fair within the re-rated set; a flow farther away keeps its rate until
 * something on its own links changes. Which flows of those links:
 *   network.sharing=local: every flow on them;
 *   network.sharing=bottleneck: only those whose rate the change is meant
 *     to move. A flow that ends frees capacity for the flows bottlenecked on
 *     its links (each flow keeps the link that fixed its rate in its last
 *     refill); a flow that starts on a link with room for an equal share
 *     (capacity left >= capacity / flows) takes it from no one, and on a
 *     full link takes it from the flows bottlenecked there or above the new
 *     equal share. Smaller refills (bench_topo CPU: halo -8 to -17 %,
 *     all-to-all -31 to -35 %), but a flow whose recorded bottleneck went
 *     stale waits longer for a re-rate: within 2 % of exact on bench_topo's
 *     cases, 16 % above it on a 64-rank all-to-all of 60 kB messages
 *     (docs/platform.md);
 *   network.sharing=route (default): progressive filling over the
 *     changed flows' routes only (at an end, the links of its route that
 *     were full; at a start, its route, with the flows there above the
 *     room it leaves), each re-rated flow bounded by its other links
 *     (refill_route): local's accuracy against exact, about half its CPU
 *     on bench_topo's all-to-all (docs/platform.md, docs/performance.md);
 *   network.sharing=exact: every flow in flight (the reference).
 * Flows started at one instant are rated together, in the advance() of the
 * wake they ask for at that instant (route: of the engine's flush once the
 * instant's events are done, hooks.flush); flow ends come from an indexed heap of
 * predicted ends.
 *
 * Engine protocol (include/mpicast/net.h, mc_net_flow_ops): start_flow at
 * the issue; the model asks for wakes (hooks.wake) and, in advance(),
 * delivers each message (hooks.arrive) once its flow is through.
 *
 * Time: integer ps as in the simulator; a flow's remaining bytes are a
 * double settled at each rate change, its end rounded once per change.
 *
 * Speed (issue 5's benchmark, bench/bench_topo.c): a replay is millions of
 * small refills, each touching a few flows and links scattered over MiBs,
 * so the layout is what the cost is made of: records of one cache line
 * (links, flows with their routes), dense arrays for what is only tested
 * or scratch, prefetches one call ahead, a heap split at a horizon. Within
 * a refill (the all-to-all's cost: long routes, every link a few flows),
 * each re-rated flow's links are listed once as slots of the dense scratch,
 * which also carries the links' allocations until the refill ends, so that
 * fixing a flow touches nothing else; branches that a predictor cannot
 * learn (capacity class, a link's last flow, the earliest child in the end
 * heap, a flow already collected) are replaced by selects. The order of
 * every floating-point operation is kept, so rates and times are those of
 * the first version to the bit (bench_topo prints a digest of them;
 * tests/test_topo_bitexact.c checks 14 of them; docs/performance.md). Those
 * are of network.sharing=local; bottleneck has its own two pins in
 * tests/test_topo_sharing_near_exact.c (route too).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/net.h"
#include "net_models.h"
#include "topo_impl.h"

/* Layout. The records that a refill touches are one cache line each (64
 * bytes, aligned): a link, and a flow with its route; what the refill only
 * tests or uses as scratch is in dense arrays (fmark, scr, spath). With thousands
 * of flows in flight these records are MiBs, beyond the L2 cache, so a
 * refill costs the lines it touches; the layouts measured before this one
 * are in docs/performance.md (issue 5). */

/* A link. Its first TL_IN active flows are stored in the link itself: a
 * list allocated apart is a cache miss of its own on every visit. Its
 * capacity is not stored: it follows from the id (tcaps). */
#define TL_IN 6
typedef struct tlink {
    double alloc;    /* sum of its flows' rates */
    int64_t busy;    /* ps: sum of the ends minus the starts of its busy
                        periods (topo_net.since completes an open one) */
    double bytes;    /* of every flow that crossed it */
    int32_t slot;    /* its entry in scr during a refill that lists it */
    int32_t nfl;     /* active flows */
    int32_t peak;    /* most active flows at once */
    int32_t capfl;   /* 0: the flows are in in[]; else room in fl */
    union {
        int32_t in[TL_IN];
        int32_t *fl; /* once they outgrew in[] */
    } u;
} tlink;

/* Scratch of a refill, one entry per link it re-rates, dense so that the
 * scans by level stay within a few lines. */
typedef struct tscr {
    double resid;    /* capacity left for the flows being re-rated */
    double share;    /* resid / cnt (0 when resid <= 0), kept up to date while
                        cnt > 0: the scans by level compare it without dividing */
    double alloc;    /* the link's alloc, updated here (the same additions in
                        the same order) and stored back once at the end: the
                        updates then stay within the dense scratch */
    int32_t cnt;     /* unfixed flows of the refill on it */
    int32_t id;      /* the link */
} tscr;

/* v when x > 0, else +0: by a mask, as a compiler would branch on it (and
 * mispredict when a link's last flow leaves nothing, which is often). */
static inline double pos_or_zero(double x, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b &= -(uint64_t)(x > 0);
    memcpy(&v, &b, sizeof v);
    return v;
}

static inline double share_of(const tscr *x)
{
    return x->resid > 0 ? x->resid / x->cnt : 0;
}

/* A flow: what the refill reads and writes, with its route when it has at
 * most TF_PIN links (longer routes are in topo_net.xpath). */
#define TF_PIN 6
typedef struct tflow {
    double rem;      /* bytes left at t_last */
    double rate;     /* B/ps */
    int64_t t_last, t_end;
    int32_t npath;
    int32_t path[TF_PIN];
    int32_t fin;     /* 1: every link of the route has a finite capacity
                        (no per-link test in the loops) */
} tflow;

/* Per flow, tested for every flow of a link in collect and refill (most of
 * which are not re-rated), hence apart and dense: gen while in the current
 * refill, gen + 1 once rated there; si its index in the refill's set. */
typedef struct tmark {
    uint32_t gen;
    int32_t si;
    int32_t bneck;   /* the link that fixed its rate in its last refill
                        (-1 before its first): network.sharing=bottleneck */
} tmark;

/* ... and what only its start and end read. */
typedef struct tcold {
    int64_t delay, cookie;
    int32_t next;    /* free list */
    int32_t live;
} tcold;

/* An entry of the heap of flow ends: the flow and a copy of its t_end. */
typedef struct topo_eh {
    int64_t t;
    int32_t f;
} topo_eh;

/* Link capacities by class (B/ps, INFINITY for infinite): NIC links below
 * nic_end, shared-memory links below shm_end, topology links above. Kept
 * in a local copy where used in loops: stores to doubles (rates) may alias
 * the model's fields, which would be reloaded after each. */
typedef struct tcaps {
    int32_t nic_end, shm_end;
    double cap[3]; /* NIC, shared memory, topology */
} tcaps;

/* Indexed by two comparisons rather than chosen by branches: the classes
 * alternate along a route (NIC, topology..., NIC), which a branch
 * predictor gets wrong. */
static inline double cap_of(const tcaps *c, int32_t id)
{
    return c->cap[(id >= c->nic_end) + (id >= c->shm_end)];
}

typedef struct topo_net {
    mc_net base;
    topo_shape T;
    int nranks;
    int32_t *node;        /* rank -> node */
    tlink *links;         /* 64-byte aligned */
    int64_t *since;       /* per link: start of its current busy period */
    int64_t nlinks;
    tcaps caps;
    int64_t o, g, L, hop, oi, gi, Li; /* ps */
    int maxp;             /* longest route (links) */
    tflow *fl;            /* 64-byte aligned */
    tcold *fc;
    int32_t *hpos;        /* per flow: index in the end heap, -1 when not in it */
    tmark *fmark;         /* per flow: refill marks (tmark) */
    int32_t *xpath;       /* maxp per flow: routes longer than TF_PIN */
    int32_t nfl, capfl, free_fl;
    topo_eh *hmem, *h;    /* near ends: 4-ary min-heap, h = hmem + 3 */
    size_t nh, caph;
    topo_eh *far;         /* far ends, unordered */
    size_t nfar, capfar;
    int64_t horizon;      /* near ends < horizon <= far ends */
    int32_t hq;           /* eh_refresh: fraction of the far ends moved, /32 */
    uint64_t npop, npop_refresh; /* flows ended, and at the last refresh */
    int32_t *pend;        /* flows started, not rated yet (rated in advance) */
    size_t npend, cappend;
    int64_t armed;        /* earliest wake asked for and not yet seen */
    uint32_t gen;         /* refill generation, even (flows use gen + 1) */
    uint64_t seq;         /* messages, for ecmp */
    int32_t *set, *live, *done, *tmp; /* scratch lists */
    size_t capset, caplive, capdone;
    tscr *scr;            /* per link of the current refill */
    size_t capscr;
    int32_t *spath;       /* per flow of the refill's set: its finite links as
                             scr slots, from soff[si] to soff[si + 1] */
    size_t capspath;
    size_t *soff;
    size_t capsoff;
    double *xcap;         /* network.sharing=route: per flow of the set, the
                             bound its links off the changed route put on it */
    size_t capxcap;
    int32_t *chg;         /* network.sharing=route: the flows whose rate it
                             moved (nchg), for new ends */
    size_t capchg, nchg;
    int32_t pf, pf_stage; /* prefetch_next: the next flow to end, and how far */
    int32_t pfl[8];       /* flows whose links prefetch_next fetches */
    int32_t npfl;
    mc_net_hooks hooks;
    int failed;           /* out of memory: flows are then priced alone */
    int sharing;          /* network.sharing: TS_LOCAL, TS_BOTTLENECK or TS_EXACT */
} topo_net;

enum { TS_LOCAL, TS_BOTTLENECK, TS_EXACT, TS_ROUTE };

/* What collect() gathers around a flow: every flow on its links, or
 * (bottleneck sharing) those whose rate its end or its start should move. */
enum { TC_ALL, TC_ENDED, TC_STARTED };

_Static_assert(sizeof(tlink) == 64, "a link is one cache line");
_Static_assert(sizeof(tflow) == 64, "a flow is one cache line");
_Static_assert(sizeof(topo_eh) == 16, "four heap entries per cache line");

static inline double link_cap(const topo_net *n, int32_t id)
{
    return cap_of(&n->caps, id);
}

/* The link's active flows (nfl of them). */
static inline int32_t *lfl(tlink *k)
{
    return k->capfl ? k->u.fl : k->u.in;
}

/* The route of flow fi. */
static inline const int32_t *fpath(const topo_net *n, int32_t fi)
{
    const tflow *f = &n->fl[fi];
    return f->npath <= TF_PIN ? f->path : &n->xpath[(size_t)fi * n->maxp];
}

/* ------------------------------------------------------------ small helpers */

static double bw_per_ps(double bps)
{
    if (isnan(bps) || isinf(bps) || bps <= 0)
        return INFINITY;
    return bps / MC_PS_PER_S;
}

static double num_or(const mc_platform *p, const char *key, double d)
{
    double v = p ? mc_platform_num(p, key) : NAN;
    return isnan(v) ? d : v;
}

static const char *str_or(const mc_platform *p, const char *key, const char *d)
{
    const char *v = p ? mc_platform_str(p, key) : NULL;
    return v && *v ? v : d;
}

static int grow(void **a, size_t *cap, size_t need, size_t elem)
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

/* grow's test inline: refills ask for room several times each, and
 * almost always have it. */
#define ENSURE(a, cap, need, elem) \
    ((need) <= *(cap) ? 0 : grow((void **)(a), (cap), (need), (elem)))

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
    if (n->nfar == n->capfar && grow((void **)&n->far, &n->capfar, n->nfar + 1, sizeof *n->far))
        return -1;
    if (pos >= 0)
        near_remove(n, (size_t)pos);
    far_place(n, n->nfar++, e);
    return 0;
}

static void eh_remove(topo_net *n, int32_t f)
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

/* The earliest end of a rated flow, or INT64_MAX. */
static int64_t next_end(topo_net *n)
{
    if (!n->nh && n->nfar && eh_refresh(n)) {
        /* out of memory: the flows are priced alone from now on; what
         * is in flight ends through the heap filled so far */
        n->failed = 1;
        if (!n->nh)
            return INT64_MAX;
    }
    return n->nh ? n->h[0].t : INT64_MAX;
}

static void arm(topo_net *n)
{
    if (n->npend)
        return; /* a wake at the current time is pending for them */
    int64_t t = next_end(n);
    if (t < n->armed) {
        n->armed = t;
        n->hooks.wake(n->hooks.ctx, t);
    }
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

/* ------------------------------------------------------------ refill */

/* (int64_t)ceil(x) for -1 < x < 2^62, without the libm call (not inlined
 * without SSE4.1): exact, as every double of that range above 2^52 is an
 * integer and the truncation below is exact. */
static inline int64_t ceil_ps(double x)
{
    int64_t i = (int64_t)x; /* toward zero: 0 for -1 < x < 0, as ceil */
    return (double)i < x ? i + 1 : i;
}

/* Moves the flow's progress to t at its current rate. */
static void settle(tflow *f, int64_t t)
{
    if (t > f->t_last) {
        f->rem -= f->rate * (double)(t - f->t_last);
        if (f->rem < 0)
            f->rem = 0;
        f->t_last = t;
    }
}

static int list_add(int32_t **a, size_t *cap, size_t *ns, int32_t f)
{
    if (*ns == *cap && grow((void **)a, cap, *ns + 1, sizeof **a))
        return -1;
    (*a)[(*ns)++] = f;
    return 0;
}

/* The ends of the flows fs[0..ns), just re-rated at t, into the end heap. */
static int set_ends(topo_net *n, const int32_t *fs, size_t ns, int64_t t)
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

/* Re-rates flows set[0..ns) at t by progressive filling, holding the rates
 * of every other flow. The order of every floating-point operation is that
 * of the first version (set order, links in order of first appearance, a
 * link's flows in list order), so that rates and times are reproduced to
 * the bit. */
static int refill(topo_net *n, size_t ns, int64_t t)
{
    const tcaps C = n->caps;
    const uint32_t g = n->gen;
    tlink *L = n->links;
    tflow *F = n->fl;
    tmark *M = n->fmark;
    const int32_t *set = n->set;
    /* The neighbourhood is scattered over the link array: every link is
     * asked for at once, so that the misses overlap instead of coming one
     * by one in the loops below (collect already asked for the flows).
     * The same pass sizes the scratch: at most one entry per visit. */
    size_t tot = 0;
    for (size_t i = 0; i < ns; i++) {
        int np = F[set[i]].npath;
        tot += (size_t)np;
        const int32_t *p = fpath(n, set[i]);
        for (int j = 0; j < np; j++)
            __builtin_prefetch(&L[p[j]]);
    }
    /* scr: every entry that a link's slot may name (below capscr) has an
     * id of -1 or that of the link listed there in this refill */
    size_t oldcap = n->capscr;
    if (ENSURE(&n->scr, &n->capscr, tot > 0 ? tot : 1, sizeof *n->scr) ||
        ENSURE(&n->spath, &n->capspath, tot, sizeof *n->spath) ||
        ENSURE(&n->soff, &n->capsoff, ns + 1, sizeof *n->soff) ||
        ENSURE(&n->live, &n->caplive, tot, sizeof *n->live))
        return -1;
    tscr *S = n->scr;
    for (size_t i = oldcap; i < n->capscr; i++)
        S[i].id = -1;
    int32_t *sp = n->spath;
    size_t *so = n->soff;
    size_t nl = 0, off = 0;
    /* Each flow's finite links are listed once as scratch slots (sp), so
     * that fixing it below touches only the dense scratch. */
    for (size_t i = 0; i < ns; i++) {
        int32_t fi = set[i];
        tflow *f = &F[fi];
        settle(f, t);
        M[fi].si = (int32_t)i;
        so[i] = off;
        const int32_t *p = fpath(n, fi);
        const double r = f->rate;
        const int fin = f->fin;
        for (int j = 0, np = f->npath; j < np; j++) {
            int32_t id = p[j];
            if (!fin && isinf(cap_of(&C, id)))
                continue;
            tlink *k = &L[id];
            size_t sl = (size_t)k->slot;
            if (S[sl].id != id) { /* first seen in this refill */
                sl = nl++;
                k->slot = (int32_t)sl;
                S[sl] = (tscr){cap_of(&C, id) - k->alloc, 0, k->alloc, 0, id};
            }
            S[sl].cnt++;
            S[sl].resid += r;
            sp[off++] = (int32_t)sl;
        }
    }
    so[ns] = off;
    /* Progressive filling by levels: the smallest fair share among the
     * links is the next level; every link at that level fixes its unfixed
     * flows there (shares only grow as flows get fixed elsewhere); links
     * with no unfixed flow left drop out. Few levels in practice, so a scan
     * per level beats a priority queue; the scan that drops the links done
     * also finds the next level. */
    int32_t *lv = n->live;
    double lvl = INFINITY;
    for (size_t i = 0; i < nl; i++) {
        lv[i] = (int32_t)i;
        double sh = S[i].share = share_of(&S[i]);
        if (sh < lvl)
            lvl = sh;
    }
    size_t live = nl;
    while (live) {
        double cut = lvl * (1 + 1e-9);
        for (size_t i = 0; i < live; i++) {
            tscr *x = &S[lv[i]];
            if (x->cnt == 0 || x->share > cut)
                continue;
            double share = x->share;
            double cap = cap_of(&C, x->id);
            if (share < cap * 1e-12)
                share = cap * 1e-12; /* rounding left nothing: keep a trickle */
            tlink *k = &L[x->id];
            const int32_t *a = lfl(k);
            for (int32_t q = 0, nf = k->nfl; q < nf && x->cnt > 0; q++) {
                int32_t fi = a[q];
                if (M[fi].gen != g)
                    continue; /* not re-rated here, or rated already */
                M[fi].gen = g + 1;
                M[fi].bneck = x->id;
                tflow *f = &F[fi];
                double old = f->rate;
                f->rate = share;
                const double dd = share - old;
                size_t si = (size_t)M[fi].si;
                for (size_t e = so[si], ee = so[si + 1]; e < ee; e++) {
                    tscr *x2 = &S[sp[e]];
                    x2->alloc += dd;
                    double rs = x2->resid -= share;
                    int32_t c = --x2->cnt;
                    /* unconditional (no branch to mispredict): the share
                     * of a link left with no flow is never read */
                    double q2 = rs / (double)(c + (c == 0));
                    x2->share = rs > 0 ? q2 : 0;
                }
            }
        }
        size_t w = 0;
        lvl = INFINITY;
        for (size_t i = 0; i < live; i++) {
            const tscr *x = &S[lv[i]];
            if (x->cnt > 0) {
                lv[w++] = lv[i];
                if (x->share < lvl)
                    lvl = x->share;
            }
        }
        live = w;
    }
    for (size_t i = 0; i < nl; i++) {
        L[S[i].id].alloc = S[i].alloc;
        S[i].id = -1; /* a link's stale slot then never matches */
    }
    return set_ends(n, set, ns, t);
}

/* route: fixes flow fi of the set at rate `share` at t: its links among
 * those filled give it up,
 * and, when its rate moves, its progress is settled, every link of its
 * route takes the difference, and it is listed in chg for a new end. */
static void fix_flow(topo_net *n, int32_t fi, double share, int64_t t)
{
    tmark *M = n->fmark;
    M[fi].gen = n->gen + 1;
    const size_t si = (size_t)M[fi].si, mp = (size_t)n->maxp;
    for (size_t e = si * mp, ee = e + n->soff[si]; e < ee; e++) {
        int32_t sl = n->spath[e];
        tscr *x = &n->scr[sl];
        double rs = x->resid -= share;
        int32_t c = --x->cnt;
        x->share = rs > 0 && c > 0 ? rs / c : 0;
    }
    tflow *f = &n->fl[fi];
    if (share == f->rate)
        return;
    settle(f, t);
    const double dd = share - f->rate;
    f->rate = share;
    const int32_t *p = fpath(n, fi);
    for (int j = 0, m = f->npath; j < m; j++)
        n->links[p[j]].alloc += dd; /* an infinite link's is never read */
    n->chg[n->nchg++] = fi;
}

/* A link's share to fix its flows at: never 0 (rounding can leave nothing:
 * a trickle keeps every flow's end finite). */
static inline double link_floor(const topo_net *n, const tscr *x)
{
    double cap = link_cap(n, x->id);
    return x->share < cap * 1e-12 ? cap * 1e-12 : x->share;
}

/* route's progressive filling of set[0..ns) over the nl links of the
 * scratch, each flow bounded by xcap: the level is the least share of the
 * links; flows bound at or below it are fixed at their bound (the shares
 * only rise as flows leave them), else every link at the level fixes its
 * flows there. A scan of the links and flows per level: a heap of levels
 * was tried, and was slower on every case measured (docs/performance.md). */
static void fill_levels(topo_net *n, size_t ns, size_t nl, int64_t t)
{
    const uint32_t g = n->gen;
    const tmark *M = n->fmark;
    const int32_t *set = n->set;
    const double *xc = n->xcap;
    const tscr *S = n->scr;
    for (size_t left = ns; left > 0;) {
        double lvl = INFINITY;
        for (size_t i = 0; i < nl; i++)
            lvl = S[i].cnt > 0 && S[i].share < lvl ? S[i].share : lvl;
        const double cut = lvl * (1 + 1e-9);
        size_t first = left;
        for (size_t i = 0; i < ns; i++) /* flows at their bound */
            if (M[set[i]].gen == g && xc[i] <= cut) {
                fix_flow(n, set[i], xc[i], t);
                left--;
            }
        const int bounded = left < first; /* shares rose: a new level */
        for (size_t i = 0; i < nl && !bounded; i++) { /* else the links at it */
            if (S[i].cnt == 0 || S[i].share > cut)
                continue;
            double share = link_floor(n, &S[i]);
            tlink *k = &n->links[S[i].id];
            const int32_t *a = lfl(k);
            for (int32_t q = 0, nf = k->nfl; q < nf; q++)
                if (M[a[q]].gen == g) {
                    fix_flow(n, a[q], share, t);
                    left--;
                }
        }
        if (left == first)
            break; /* not reached: the least share's link has a flow to fix */
    }
}

/* network.sharing=route: max-min progressive filling over the links where
 * the change can move a rate, each re-rated flow's other links only
 * bounding it. At instant t, with the nd flows of done[] ended and the np
 * of pend[] started:
 *   - a started flow gets, without taking from anyone, the least room its
 *     route has left (lam0: capacity minus the rates on it); it takes more
 *     only from the flows on its route above lam0, so those are re-rated
 *     with it, over its route's links, the others held. A start takes
 *     bandwidth, it gives none: the re-rated flows are bounded by their
 *     current rates (max-min could raise a flow whose rival elsewhere was
 *     slowed; that waits for the next change there);
 *   - an ended flow frees its rate only where that rate was holding others
 *     back, on the links of its route that were full; every flow on them
 *     is re-rated over them, bounded on each of its other links by its
 *     rate plus an equal part of the room left there (capacity minus the
 *     rates, split between all its flows), so that no link goes above its
 *     capacity whatever the others on it are given.
 * Against local, it reads the routes of the flows it re-rates only at an
 * end, fills a few links instead of forty, and leaves alone the flows
 * whose rate cannot move. */
static int refill_route(topo_net *n, size_t nd, size_t np, int64_t t)
{
    const tcaps C = n->caps;
    const uint32_t g = n->gen;
    tlink *L = n->links;
    tflow *F = n->fl;
    tmark *M = n->fmark;
    size_t tot = 0;
    for (size_t i = 0; i < nd + np; i++)
        tot += (size_t)F[i < nd ? n->done[i] : n->pend[i - nd]].npath;
    size_t oldcap = n->capscr;
    if (ENSURE(&n->scr, &n->capscr, tot > 0 ? tot : 1, sizeof *n->scr))
        return -1;
    tscr *S = n->scr;
    for (size_t i = oldcap; i < n->capscr; i++)
        S[i].id = -1;
    /* A started flow takes, without taking from anyone, the least room its
     * route leaves; the flows above it are re-rated with it. With several
     * started flows, those above the least of these (harmless: a flow at or
     * below its start's room is fixed at its own rate before any link
     * fills). Ended flows' links first, whose flows are all re-rated, so
     * that whether a flow is in the set is known when it is first seen. */
    double lam0 = INFINITY;
    for (size_t i = nd; i < nd + np; i++) {
        const int32_t c = n->pend[i - nd];
        const int32_t *p = fpath(n, c);
        for (int j = 0, m = F[c].npath; j < m; j++) {
            double room = cap_of(&C, p[j]) - L[p[j]].alloc; /* inf: infinite link */
            lam0 = room < lam0 ? room : lam0;
        }
    }
    const double above = lam0 * (1 + 1e-9);
    /* the links to fill; the flows to re-rate (set, marked gen), each with
     * its slots among those links (sp[si * maxp ...], so[si] of them), and
     * each link's count and capacity left with the held flows taken out */
    const size_t mp = (size_t)n->maxp;
    size_t nl = 0, ns = 0;
    int32_t *sp = n->spath;
    size_t *so = n->soff;
    double *xc = n->xcap;
    for (size_t i = 0; i < nd + np; i++) {
        const int ended = i < nd;
        const int32_t c = ended ? n->done[i] : n->pend[i - nd];
        const int32_t *p = fpath(n, c);
        for (int j = 0, m = F[c].npath; j < m; j++) {
            int32_t id = p[j];
            double cap = cap_of(&C, id);
            tlink *k = &L[id];
            if (isinf(cap) || k->nfl == 0 || S[k->slot].id == id ||
                (ended && k->alloc + F[c].rate < cap * (1 - 1e-9)))
                continue; /* listed already, or nothing held back by it */
            size_t nf = (size_t)k->nfl;
            if (ENSURE(&n->set, &n->capset, ns + nf, sizeof *n->set) ||
                ENSURE(&n->spath, &n->capspath, (ns + nf) * mp, sizeof *n->spath) ||
                ENSURE(&n->soff, &n->capsoff, ns + nf + 1, sizeof *n->soff) ||
                ENSURE(&n->xcap, &n->capxcap, ns + nf, sizeof *n->xcap))
                return -1;
            sp = n->spath;
            so = n->soff;
            xc = n->xcap;
            k->slot = (int32_t)nl;
            tscr *x = &S[nl];
            *x = (tscr){cap - k->alloc, 0, 0, 0, id};
            const int32_t *a = lfl(k);
            for (size_t q = 0; q < nf; q++) {
                int32_t fi = a[q];
                const double r = F[fi].rate;
                if (M[fi].gen != g) {
                    if (!ended && r > 0 && r <= above)
                        continue; /* held */
                    M[fi].gen = g;
                    M[fi].si = (int32_t)ns;
                    n->set[ns] = fi;
                    so[ns] = 0;
                    xc[ns++] = r > 0 && !nd ? r : INFINITY; /* 0: started */
                }
                size_t si = (size_t)M[fi].si;
                sp[si * mp + so[si]++] = (int32_t)nl;
                x->cnt++;
                x->resid += r;
            }
            x->share = share_of(x);
            nl++;
        }
    }
    if (ENSURE(&n->chg, &n->capchg, ns, sizeof *n->chg))
        return -1;
    const int32_t *set = n->set;
    /* at an end, each flow's bound from its other links */
    for (size_t i = 0; i < ns && nd; i++) {
        const tflow *f = &F[set[i]];
        const double r = f->rate;
        const int32_t *p = fpath(n, set[i]);
        for (int j = 0, m = f->npath; j < m && r > 0; j++) {
            const tlink *k = &L[p[j]];
            if (S[k->slot].id == p[j])
                continue;
            double room = cap_of(&C, p[j]) - k->alloc; /* +inf: infinite link */
            double q = r + (room > 0 ? room : 0) / k->nfl;
            xc[i] = q < xc[i] ? q : xc[i];
        }
    }
    n->nchg = 0;
    fill_levels(n, ns, nl, t);
    for (size_t i = 0; i < nl; i++)
        S[i].id = -1;
    return set_ends(n, n->chg, n->nchg, t);
}

/* Bottleneck sharing, link l of flow fi: does flow x on it have to be re-rated?
 * For an ended fi, when l was x's bottleneck. For a started fi, when l has
 * no room for an equal share eq of its flows (so the caller asks only
 * then) and x is bottlenecked on l or runs above eq. */
static inline int rerate(const topo_net *n, int how, int32_t x, int32_t l, double eq)
{
    return n->fmark[x].bneck == l || (how == TC_STARTED && n->fl[x].rate > eq * (1 - 1e-9));
}

/* Flows crossing a finite link of flow fi (fi itself included when live):
 * appended to set[*ns..], the neighbourhood to re-rate; how (TC_*) says
 * which of them. */
static int collect(topo_net *n, int32_t fi, size_t *ns, int how)
{
    const tflow *f = &n->fl[fi];
    const int32_t *p = fpath(n, fi);
    const uint32_t g = n->gen;
    const tcaps C = n->caps;
    tmark *M = n->fmark;
    size_t m = *ns;
    for (int j = 0; j < f->npath; j++) {
        if (!f->fin && isinf(cap_of(&C, p[j])))
            continue;
        tlink *k = &n->links[p[j]];
        const int32_t *a = lfl(k);
        int32_t nf = k->nfl;
        if (ENSURE(&n->set, &n->capset, m + (size_t)nf, sizeof *n->set)) {
            *ns = m;
            return -1;
        }
        int32_t *set = n->set;
        if (how != TC_ALL) {
            /* a started flow (counted in nfl, not rated yet: not in alloc)
             * on a link with room for an equal share takes it from no one */
            const double cap = cap_of(&C, p[j]), eq = cap / nf;
            const int room = how == TC_STARTED && cap - k->alloc >= eq;
            for (int32_t q = 0; q < nf; q++) {
                int32_t x = a[q];
                if (M[x].gen == g || (x != fi && (room || !rerate(n, how, x, p[j], eq))))
                    continue;
                set[m++] = x;
                M[x].gen = g;
            }
            continue;
        }
        /* appended unconditionally, kept only if new: no branch on the
         * mark, which is as often set as not */
        for (int32_t q = 0; q < nf; q++) {
            int32_t x = a[q];
            set[m] = x;
            m += M[x].gen != g;
            M[x].gen = g;
        }
    }
    /* the flows to re-rate, for refill */
    for (size_t i = *ns; i < m; i++)
        __builtin_prefetch(&n->fl[n->set[i]]);
    *ns = m;
    return 0;
}

/* ------------------------------------------------------------ flows */

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

/* Route of rank a to rank b into p (link ids); hop count in *hops. */
static int route(topo_net *n, int a, int b, int32_t *p, int *hops, int *intra)
{
    int na = n->node[a], nb = n->node[b];
    *intra = na == nb;
    if (na == nb) {
        p[0] = 2 * n->T.nnodes + na;
        *hops = 0;
        return 1;
    }
    p[0] = na;
    int h = topo_route(&n->T, na, nb, n->seq * 0x9e3779b97f4a7c15ull ^ (uint64_t)a << 20 ^ (uint64_t)b,
                       p + 1);
    p[h + 1] = n->T.nnodes + nb;
    *hops = h;
    return h + 2;
}

/* The records that the end of the next flow to end will read, fetched one
 * step per call into the model (start_flow, advance), as each step needs
 * the lines of the previous one: its flow record (advance), its links,
 * then the flows on them. Hints only: a refill's first touches were its
 * largest stalls (a fifth of the model's time in the halo). */
static void prefetch_next(topo_net *n)
{
    for (int32_t i = 0; i < n->npfl; i++) {
        const tflow *f = &n->fl[n->pfl[i]];
        for (int j = 0; j < f->npath && f->npath <= TF_PIN; j++)
            __builtin_prefetch(&n->links[f->path[j]]);
    }
    n->npfl = 0;
    if (n->pf < 0)
        return;
    const tflow *f = &n->fl[n->pf];
    const int32_t *p = f->path;
    int m = f->npath;
    if (m > TF_PIN) { /* long routes: too many lines to be worth it */
        n->pf = -1;
        return;
    }
    if (n->pf_stage == 1) {
        for (int j = 0; j < m; j++)
            __builtin_prefetch(&n->links[p[j]]);
        n->pf_stage = 2;
        return;
    }
    int left = 16;
    for (int j = 0; j < m; j++) {
        tlink *k = &n->links[p[j]];
        const int32_t *a = lfl(k);
        for (int32_t q = 0; q < k->nfl && left > 0; q++, left--)
            __builtin_prefetch(&n->fl[a[q]]);
    }
    n->pf = -1;
}

static int topo_start_flow(mc_net *base, int64_t t, int src, int dst, int64_t bytes,
                           int64_t cookie, int64_t *arrive)
{
    topo_net *n = (topo_net *)base;
    prefetch_next(n);
    n->seq++;
    int32_t tmp[TOPO_MAXD * 64 + 8];
    int32_t *p = n->maxp <= (int)(sizeof tmp / sizeof tmp[0]) ? tmp : n->tmp;
    int hops, intra;
    int np = route(n, src, dst, p, &hops, &intra);
    int64_t delay = intra ? n->oi + n->Li : n->o + n->L + (int64_t)hops * n->hop;
    double b = bytes > 0 ? (double)bytes : 0;
    double mincap = INFINITY;
    for (int i = 0; i < np; i++) {
        n->links[p[i]].bytes += b;
        double cap = link_cap(n, p[i]);
        if (cap < mincap)
            mincap = cap;
    }
    if (b == 0 || isinf(mincap) || n->failed || !n->hooks.wake) {
        double d = isinf(mincap) ? 0 : b / mincap;
        *arrive = t + delay + (int64_t)ceil(d - 1e-6);
        return 1;
    }
    int32_t fi = flow_new(n);
    if (fi < 0) {
        n->failed = 1;
        *arrive = t + delay + (int64_t)ceil(b / mincap - 1e-6);
        return 1;
    }
    tflow *f = &n->fl[fi];
    f->rem = b;
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
    c->delay = delay;
    c->cookie = cookie;
    c->live = 1;
    c->next = -1;
    n->hpos[fi] = -1;
    n->fmark[fi].gen = 0;
    n->fmark[fi].bneck = -1;
    for (int i = 0; i < np; i++)
        if (link_add(n, p[i], fi, t))
            n->failed = 1;
    /* The flows to re-rate with it in advance(): fetched while the
     * simulator gets there, and their links at the next call (hints; for
     * short routes only, where the neighbourhood is small enough for
     * them to stay in the cache until then). */
    for (int i = 0; i < np && np <= TF_PIN; i++) {
        tlink *k = &n->links[p[i]];
        const int32_t *a = lfl(k);
        for (int32_t q = 0; q < k->nfl && q < 8; q++) {
            __builtin_prefetch(&n->fl[a[q]]);
            if (n->npfl < 8)
                n->pfl[n->npfl++] = a[q];
        }
    }
    /* Rated in advance(t), with every other flow started at this instant:
     * one refill for a burst of sends (a halo, a collective round) instead
     * of one per send. */
    if (list_add(&n->pend, &n->cappend, &n->npend, fi)) {
        n->failed = 1;
        return 0;
    }
    if (n->sharing == TS_ROUTE && n->hooks.flush) {
        /* at the end of the instant: no queued wake per start (a rank's
         * sends are o apart, so nearly every start has an instant of its
         * own; the local modes keep their wakes, and their results) */
        n->hooks.flush(n->hooks.ctx);
        return 0;
    }
    if (n->armed > t) {
        n->armed = t;
        n->hooks.wake(n->hooks.ctx, t);
    }
    return 0;
}

static void flow_end(topo_net *n, int32_t fi, int64_t t)
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

/* Starts a refill generation. Marks are compared for equality only, so
 * when the counter wraps every mark is cleared once. */
static void next_gen(topo_net *n)
{
    n->gen += 2;
    if (n->gen == 0) {
        for (int32_t q = 0; q < n->nfl; q++)
            n->fmark[q].gen = 0;
        n->gen = 2;
    }
}

/* Re-rates, for network.sharing local, bottleneck and exact, the flows
 * around the nd flows of done[] that ended and those of pend[] that
 * started (every flow, for exact). */
static int refill_around(topo_net *n, size_t nd, int64_t t)
{
    size_t ns = 0;
    const int bn = n->sharing == TS_BOTTLENECK;
    for (size_t i = 0; i < nd; i++)
        if (collect(n, n->done[i], &ns, bn ? TC_ENDED : TC_ALL))
            return -1;
    for (size_t i = 0; i < n->npend; i++)
        if (collect(n, n->pend[i], &ns, bn ? TC_STARTED : TC_ALL))
            return -1;
    if (n->sharing == TS_EXACT) { /* the reference */
        ns = 0;
        for (int32_t q = 0; q < n->nfl; q++)
            if (n->fc[q].live) {
                n->fmark[q].gen = n->gen;
                if (list_add(&n->set, &n->capset, &ns, q))
                    return -1;
            }
    }
    return refill(n, ns, t);
}

static void topo_advance(mc_net *base, int64_t t)
{
    topo_net *n = (topo_net *)base;
    prefetch_next(n);
    if (t >= n->armed)
        n->armed = INT64_MAX;
    /* end every due flow, then re-rate once the union of their
     * neighbourhoods and those of the flows started since the last call */
    size_t nd = 0;
    while (next_end(n) <= t) {
        int32_t fi = n->h[0].f;
        int64_t when = n->h[0].t + n->fc[fi].delay;
        int64_t cookie = n->fc[fi].cookie;
        eh_remove(n, fi);
        n->npop++;
        flow_end(n, fi, t);
        n->hooks.arrive(n->hooks.ctx, cookie, when);
        if (list_add(&n->done, &n->capdone, &nd, fi)) {
            n->failed = 1;
            break;
        }
    }
    if (nd || n->npend) {
        next_gen(n);
        for (size_t i = 0; i < nd; i++)
            n->fmark[n->done[i]].gen = n->gen; /* ended: not to be re-rated */
        int rc = n->failed                 ? 0
                 : n->sharing == TS_ROUTE ? refill_route(n, nd, n->npend, t)
                                          : refill_around(n, nd, t);
        n->npend = 0;
        if (rc)
            n->failed = 1;
    }
    arm(n);
    if (n->nh && n->h[0].f != n->pf) {
        /* the next flow to end, whose records its advance reads first: a
         * hint, fetched while the simulator runs until then */
        int32_t fi = n->h[0].f;
        __builtin_prefetch(&n->fc[fi]);
        __builtin_prefetch(&n->fl[fi]);
        n->pf = fi;
        n->pf_stage = 1;
    }
}

static void topo_set_hooks(mc_net *base, const mc_net_hooks *h)
{
    ((topo_net *)base)->hooks = *h;
}

/* ------------------------------------------------------------ stats */

static int busier(const void *a, const void *b)
{
    const mc_net_link_stat *x = a, *y = b;
    if (x->busy != y->busy)
        return x->busy < y->busy ? 1 : -1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

static size_t topo_link_stats(const mc_net *base, mc_net_link_stat *out, size_t max)
{
    const topo_net *n = (const topo_net *)base;
    size_t used = 0;
    for (int64_t i = 0; i < n->nlinks; i++)
        if (n->links[i].bytes > 0)
            used++;
    if (!out || max == 0)
        return used;
    mc_net_link_stat *all = calloc(used ? used : 1, sizeof *all);
    if (!all)
        return 0;
    size_t k = 0;
    for (int64_t i = 0; i < n->nlinks; i++) {
        const tlink *l = &n->links[i];
        if (!(l->bytes > 0))
            continue;
        double cap = link_cap(n, (int32_t)i);
        mc_net_link_stat *s = &all[k++];
        topo_link_name(&n->T, (int32_t)i, s->name, sizeof s->name);
        s->bandwidth = isinf(cap) ? INFINITY : cap * MC_PS_PER_S;
        s->bytes = l->bytes;
        /* busy periods ended so far (an open one: its -start cancelled) */
        int64_t busy = l->busy + (l->nfl > 0 ? n->since[i] : 0);
        s->busy = (double)busy * 1e-12;
        s->peak_flows = l->peak;
    }
    qsort(all, used, sizeof *all, busier);
    size_t m = used < max ? used : max;
    memcpy(out, all, m * sizeof *out);
    free(all);
    return used;
}

/* ------------------------------------------------------------ create */

/* Fills n->node; returns the number of nodes, or -1 (err set). */
static int read_mapping(topo_net *n, const mc_platform *p, int rpn, mc_error *err)
{
    const char *how = str_or(p, "network.mapping", "block");
    int nodes = (n->nranks + rpn - 1) / rpn;
    if (strcmp(how, "file") == 0) {
        const char *path = str_or(p, "network.mapping_file", NULL);
        if (!path) {
            mc_error_set(err, MC_ERR_PLATFORM, "network.mapping=file needs network.mapping_file");
            return -1;
        }
        FILE *f = fopen(path, "r");
        if (!f) {
            mc_error_set(err, MC_ERR_IO, "%s: cannot open the mapping file", path);
            return -1;
        }
        nodes = 0;
        for (int r = 0; r < n->nranks; r++) {
            long v;
            if (fscanf(f, "%ld", &v) != 1 || v < 0 || v >= n->nranks) {
                fclose(f);
                mc_error_set(err, MC_ERR_PLATFORM, "%s:%d: expected the node of rank %d (0..%d)",
                             path, r + 1, r, n->nranks - 1);
                return -1;
            }
            n->node[r] = (int32_t)v;
            if (v + 1 > nodes)
                nodes = (int)v + 1;
        }
        fclose(f);
        return nodes;
    }
    for (int r = 0; r < n->nranks; r++)
        n->node[r] = strcmp(how, "round-robin") == 0 ? r % nodes : r / rpn;
    return nodes;
}

static void topo_destroy(mc_net *base)
{
    topo_net *n = (topo_net *)base;
    if (!n)
        return;
    for (int64_t i = 0; n->links && i < n->nlinks; i++)
        if (n->links[i].capfl)
            free(n->links[i].u.fl);
    free(n->links);
    free(n->since);
    free(n->node);
    free(n->fl);
    free(n->fc);
    free(n->hpos);
    free(n->xpath);
    free(n->hmem);
    free(n->far);
    free(n->pend);
    free(n->set);
    free(n->done);
    free(n->live);
    free(n->scr);
    free(n->spath);
    free(n->soff);
    free(n->xcap);
    free(n->chg);
    free(n->fmark);
    free(n->tmp);
    free(n);
}

static mc_net *topo_fail(topo_net *n, mc_error *err, const char *what)
{
    if (what)
        mc_error_set(err, MC_ERR_NOMEM, "topo: out of memory for %s", what);
    topo_destroy(&n->base);
    return NULL;
}

static mc_net *topo_create(const mc_platform *p, int nranks, mc_error *err)
{
    topo_net *n = calloc(1, sizeof *n);
    if (!n) {
        mc_error_set(err, MC_ERR_NOMEM, "topo: out of memory");
        return NULL;
    }
    n->base.ops = &mc_net_topo_ops;
    n->nranks = nranks > 0 ? nranks : 1;
    n->free_fl = -1;
    n->pf = -1;
    n->hq = 3;
    n->armed = INT64_MAX;
    const char *sharing = str_or(p, "network.sharing", "route");
    n->sharing = strcmp(sharing, "exact") == 0        ? TS_EXACT
                 : strcmp(sharing, "bottleneck") == 0 ? TS_BOTTLENECK
                 : strcmp(sharing, "local") == 0      ? TS_LOCAL
                                                      : TS_ROUTE;
    n->node = malloc((size_t)n->nranks * sizeof *n->node);
    if (!n->node)
        return topo_fail(n, err, "the mapping");
    double rpn = num_or(p, "network.ranks_per_node", 1);
    int nodes = read_mapping(n, p, rpn >= 1 && rpn < 1e9 ? (int)rpn : 1, err);
    if (nodes <= 0)
        return topo_fail(n, err, NULL);
    const char *routing = str_or(p, "network.routing", "deterministic");
    if (topo_shape_init(&n->T, str_or(p, "network.topology", "crossbar"),
                        str_or(p, "network.dims", ""), nodes, (int)num_or(p, "network.arity", 16),
                        num_or(p, "network.taper", 1), strcmp(routing, "ecmp") == 0, err)) {
        mc_error_prefix(err, "topo");
        return topo_fail(n, err, NULL);
    }
    n->nlinks = n->T.nlinks;
    n->maxp = n->T.maxh + 2;
    n->links = aligned_alloc(64, (size_t)n->nlinks * sizeof *n->links);
    if (n->links)
        memset(n->links, 0, (size_t)n->nlinks * sizeof *n->links);
    n->since = calloc((size_t)n->nlinks, sizeof *n->since);
    n->tmp = malloc((size_t)n->maxp * sizeof *n->tmp);
    if (!n->links || !n->since || !n->tmp)
        return topo_fail(n, err, "the links");
    double link = bw_per_ps(num_or(p, "network.link_bandwidth", INFINITY));
    double nic = bw_per_ps(num_or(p, "network.nic_bandwidth", INFINITY));
    double up = bw_per_ps(num_or(p, "network.uplink_bandwidth", INFINITY));
    double shm = bw_per_ps(num_or(p, "intranode.bandwidth", INFINITY));
    /* link_cap: the NICs (2 per node), the shared-memory links, then the
     * topology's own links, all uplinks or none (topo_is_uplink) */
    n->caps.nic_end = 2 * nodes;
    n->caps.shm_end = n->T.base;
    n->caps.cap[0] = nic;
    n->caps.cap[1] = shm;
    n->caps.cap[2] = topo_is_uplink(&n->T, n->T.base) ? up : link;
    n->o = mc_net_s_to_ps(num_or(p, "network.overhead", 0));
    n->g = mc_net_s_to_ps(num_or(p, "network.gap", 0));
    n->L = mc_net_s_to_ps(num_or(p, "network.latency", 0));
    n->hop = mc_net_s_to_ps(num_or(p, "network.hop_latency", 0));
    n->oi = mc_net_s_to_ps(num_or(p, "intranode.overhead", 0));
    n->gi = mc_net_s_to_ps(num_or(p, "intranode.gap", 0));
    n->Li = mc_net_s_to_ps(num_or(p, "intranode.latency", 0));
    return &n->base;
}

/* Pricing without the flow interface: the message alone on its route. */
static void topo_transfer(mc_net *base, int64_t t, int src, int dst, int64_t bytes,
                          mc_net_cost *out)
{
    (void)t;
    topo_net *n = (topo_net *)base;
    int intra = n->node[src] == n->node[dst];
    int64_t o = intra ? n->oi : n->o, g = intra ? n->gi : n->g;
    out->send_cpu = o;
    out->send_nic = g;
    out->recv_cpu = o;
    out->recv_nic = g;
    if (n->hooks.wake) { /* the engine uses start_flow: arrive is its lower bound */
        out->arrive = intra ? n->oi + n->Li : n->o + n->L;
        return;
    }
    int32_t *p = n->tmp;
    int hops;
    int np = route(n, src, dst, p, &hops, &intra);
    double mincap = INFINITY;
    for (int i = 0; i < np; i++)
        if (link_cap(n, p[i]) < mincap)
            mincap = link_cap(n, p[i]);
    double d = bytes > 0 && !isinf(mincap) ? (double)bytes / mincap : 0;
    out->arrive = (intra ? n->oi + n->Li : n->o + n->L + (int64_t)hops * n->hop) +
                  (int64_t)ceil(d - 1e-6);
}

static const mc_net_flow_ops topo_flow_ops = {
    .set_hooks = topo_set_hooks,
    .start_flow = topo_start_flow,
    .advance = topo_advance,
    .link_stats = topo_link_stats,
};

/* The keys only this model reads (others name them as ignored). */
static const char *const topo_keys[] = {
    "network.topology", "network.dims",         "network.link_bandwidth",   "network.hop_latency",
    "network.taper",    "network.arity",        "network.nic_bandwidth",    "network.uplink_bandwidth",
    "network.mapping",  "network.mapping_file", "network.routing",          "network.sharing",
    NULL};

const mc_net_ops mc_net_topo_ops = {
    .name = "topo",
    .summary = "topology (crossbar, ring, mesh/torus, fattree, hxb, switches, dragonfly) with "
               "max-min fair link sharing between concurrent messages",
    .create = topo_create,
    .transfer = topo_transfer,
    .destroy = topo_destroy,
    .flow = &topo_flow_ops,
    .keys = topo_keys,
};
