/* Internal to the topo network model: its records and the functions its
 * files share. topo.c is the model (parameters, the engine protocol,
 * statistics); topo_flow.c the flows' records, the links' lists of flows
 * and the heap of flow ends; topo_share.c the sharing solver (progressive
 * filling, the network.sharing modes as a table); topo_solver.c drives the
 * solver without the simulator (tests). Shapes and routes: topo_impl.h.
 */
#ifndef MPICAST_NET_TOPO_MODEL_H
#define MPICAST_NET_TOPO_MODEL_H
#ifndef MPICAST_NET_INTERNAL
#error "topo_model.h is internal to src/net"
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mpicast/net.h"
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

struct topo_sharing;

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
    const struct topo_sharing *share; /* network.sharing (topo_share.c) */
} topo_net;

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

/* ------------------------------------------------------------ memory */

/* Grows *a (of *cap elements of elem bytes) to hold need, doubling. */
int topo_grow(void **a, size_t *cap, size_t need, size_t elem);

/* topo_grow's test inline: refills ask for room several times each, and
 * almost always have it. */
#define ENSURE(a, cap, need, elem) \
    ((need) <= *(cap) ? 0 : topo_grow((void **)(a), (cap), (need), (elem)))

static inline int topo_list_add(int32_t **a, size_t *cap, size_t *ns, int32_t f)
{
    if (*ns == *cap && topo_grow((void **)a, cap, *ns + 1, sizeof **a))
        return -1;
    (*a)[(*ns)++] = f;
    return 0;
}

/* Moves the flow's progress to t at its current rate. */
static inline void topo_settle(tflow *f, int64_t t)
{
    if (t > f->t_last) {
        f->rem -= f->rate * (double)(t - f->t_last);
        if (f->rem < 0)
            f->rem = 0;
        f->t_last = t;
    }
}

/* ------------------------------------------------------------ topo_flow.c */

/* A new flow of `bytes` at t over the np links of p, on its links' lists,
 * not rated (rate 0, no end): its id, or -1 out of memory. A link that
 * cannot list it sets n->failed. */
int32_t topo_flow_open(topo_net *n, const int32_t *p, int np, double bytes, int64_t t);
/* Takes ended flow fi off its links (its rate out of their alloc) at t and
 * frees its record. */
void topo_flow_end(topo_net *n, int32_t fi, int64_t t);
/* The ends of the flows fs[0..ns), just re-rated at t, into the end heap. */
int topo_set_ends(topo_net *n, const int32_t *fs, size_t ns, int64_t t);
/* Takes flow f out of the end heap. */
void topo_eh_remove(topo_net *n, int32_t f);
/* topo_next_end with the near heap empty and far ends waiting: moves
 * some into the heap (eh_refresh), then answers as topo_next_end. */
int64_t topo_next_end_refresh(topo_net *n);
/* The earliest end of a rated flow (n->h[0] then), or INT64_MAX. Inline,
 * as topo_arm: both run at every advance, and a call across files is not
 * inlined (about 2 % of bench_topo's instructions, issue 22). */
static inline int64_t topo_next_end(topo_net *n)
{
    if (__builtin_expect(!n->nh && n->nfar, 0))
        return topo_next_end_refresh(n);
    return n->nh ? n->h[0].t : INT64_MAX;
}
/* Asks for a wake at the earliest end, unless one is armed before it. */
static inline void topo_arm(topo_net *n)
{
    if (n->npend)
        return; /* a wake at the current time is pending for them */
    int64_t t = topo_next_end(n);
    if (t < n->armed) {
        n->armed = t;
        n->hooks.wake(n->hooks.ctx, t);
    }
}

/* ------------------------------------------------------------ topo_share.c */

/* The flows a refill re-rated, whose ends move: a list of the model's. */
typedef struct topo_rated {
    const int32_t *f;
    size_t n;
} topo_rated;

/* A network.sharing mode: which flows a change re-rates, and how. refill
 * re-rates at t around the nd flows of n->done (ended) and np of n->pend
 * (started). flush: the flows started at an instant are rated at the
 * engine's flush once its events are done, not at a wake of their own. */
typedef struct topo_sharing {
    const char *name;
    int (*refill)(topo_net *n, size_t nd, size_t np, int64_t t, topo_rated *out);
    int flush;
} topo_sharing;

/* The mode called name; route (the default) for any other name. */
const topo_sharing *topo_sharing_find(const char *name);
/* The generation counter wrapped to 0: every mark cleared, generation 2. */
void topo_gen_wrap(topo_net *n);
/* A new refill generation, the nd ended flows of n->done marked out of it,
 * then n->share's refill: the flows whose rate it moved in *out. Inline: it
 * runs at every advance that ends or starts a flow, and a call across files
 * is not inlined (issue 22). Marks are compared for equality only, so when
 * the counter wraps every mark is cleared once. */
static inline int topo_share_rerate(topo_net *n, size_t nd, size_t np, int64_t t,
                                    topo_rated *out)
{
    n->gen += 2;
    if (__builtin_expect(n->gen == 0, 0))
        topo_gen_wrap(n);
    for (size_t i = 0; i < nd; i++)
        n->fmark[n->done[i]].gen = n->gen; /* ended: not to be re-rated */
    return n->share->refill(n, nd, np, t, out);
}

/* ------------------------------------------------------------ topo.c */

/* Frees the model and everything it holds (NULL: nothing). */
void topo_free(topo_net *n);

#endif
