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
 * Sharing is incremental: when a flow starts or ends, only the flows that
 * cross one of its links are re-rated, by progressive filling against the
 * capacity the other flows leave on each link (their rates held). The cost
 * is in the number of flows sharing links with the changed one, never in
 * all flows. The result is feasible (no link above capacity) and max-min
 * fair within that neighbourhood; a flow farther away keeps its rate until
 * a flow of its own neighbourhood changes (network.sharing=exact re-rates
 * every flow instead: the reference, for checking). Flows started at one
 * instant are rated together, in the advance() of the wake they ask for at
 * that instant; flow ends come from an indexed heap of predicted ends.
 *
 * Engine protocol (include/mpicast/net.h, mc_net_flow_ops): start_flow at
 * the issue; the model asks for wakes (hooks.wake) and, in advance(),
 * delivers each message (hooks.arrive) once its flow is through.
 *
 * Time: integer ps as in the simulator; a flow's remaining bytes are a
 * double settled at each rate change, its end rounded once per change.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/net.h"
#include "net_models.h"
#include "topo_impl.h"

/* A link: what the refill touches (96 bytes) ... Its first TL_IN active
 * flows are stored in the link itself: a list allocated apart was a cache
 * miss of its own on every visit (a fifth of a halo replay's refill time). */
#define TL_IN 12
typedef struct tlink {
    double cap;      /* B/ps, INFINITY for infinite */
    double alloc;    /* sum of its flows' rates */
    double resid;    /* scratch: capacity left for the flows being re-rated */
    int32_t *fl;     /* active flows beyond TL_IN: all of them, or NULL (in) */
    int32_t nfl;
    int32_t cnt;     /* scratch: unfixed flows of the current refill */
    uint32_t mark;   /* scratch: refill generation */
    int32_t capfl;   /* room in fl */
    int32_t in[TL_IN]; /* active flows while there are at most TL_IN */
} tlink;

/* The link's active flows (nfl of them). */
static inline int32_t *lfl(tlink *k) { return k->fl ? k->fl : k->in; }

/* ... and its statistics, kept apart so they stay out of the refill's cache
 * lines. */
typedef struct tstat {
    int64_t busy_since, busy; /* ps */
    double bytes;
    int32_t peak;
} tstat;

typedef struct tflow {
    double rem;      /* bytes left at t_last */
    double rate;     /* B/ps */
    int64_t t_last, t_end, delay, cookie;
    int32_t hpos;    /* index in the end heap, -1 when not in it */
    uint32_t mark;   /* refill generation it belongs to */
    int32_t npath, next;
    uint8_t fixed, live;
} tflow;

/* An entry of the heap of flow ends: the flow and a copy of its t_end. */
typedef struct topo_eh {
    int64_t t;
    int32_t f;
} topo_eh;

typedef struct topo_net {
    mc_net base;
    topo_shape T;
    int nranks;
    int32_t *node;        /* rank -> node */
    tlink *links;
    tstat *st;            /* per link */
    int64_t nlinks;
    int64_t o, g, L, hop, oi, gi, Li; /* ps */
    int maxp;             /* path slots per flow */
    tflow *fl;
    int32_t *path;        /* maxp per flow: its links */
    int32_t nfl, capfl, free_fl;
    topo_eh *h;           /* indexed min-heap of flows by t_end */
    size_t nh, caph;
    int32_t *pend;        /* flows started, not rated yet (rated in advance) */
    size_t npend, cappend;
    int64_t armed;        /* earliest wake asked for and not yet seen */
    uint32_t gen;         /* refill generation */
    uint64_t seq;         /* messages, for ecmp */
    int32_t *set, *lset, *tmp; /* scratch lists */
    size_t capset, caplset;
    mc_net_hooks hooks;
    int failed;           /* out of memory: flows are then priced alone */
    int exact;            /* network.sharing=exact: re-rate every flow each time */
} topo_net;

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

/* ------------------------------------------------------------ heap of flow ends */

/* Indexed heap of flows by (t_end, id): one entry per rated flow, moved in
 * place when its end moves. An entry carries a copy of its flow's t_end, so
 * that sifting compares within the heap array instead of loading a flow
 * record per comparison (scattered: a cache miss each). */
static int eh_less(topo_eh a, topo_eh b)
{
    return a.t < b.t || (a.t == b.t && a.f < b.f);
}

static void eh_place(topo_net *n, size_t i, topo_eh e)
{
    n->h[i] = e;
    n->fl[e.f].hpos = (int32_t)i;
}

static void eh_up(topo_net *n, size_t i)
{
    topo_eh e = n->h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!eh_less(e, n->h[p]))
            break;
        eh_place(n, i, n->h[p]);
        i = p;
    }
    eh_place(n, i, e);
}

static void eh_down(topo_net *n, size_t i)
{
    topo_eh e = n->h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n->nh)
            break;
        if (c + 1 < n->nh && eh_less(n->h[c + 1], n->h[c]))
            c++;
        if (!eh_less(n->h[c], e))
            break;
        eh_place(n, i, n->h[c]);
        i = c;
    }
    eh_place(n, i, e);
}

/* Inserts flow f or moves it after its t_end changed. */
static int eh_update(topo_net *n, int32_t f)
{
    topo_eh e = {n->fl[f].t_end, f};
    if (n->fl[f].hpos < 0) {
        if (grow((void **)&n->h, &n->caph, n->nh + 1, sizeof *n->h))
            return -1;
        eh_place(n, n->nh++, e);
    } else {
        n->h[n->fl[f].hpos] = e;
    }
    size_t i = (size_t)n->fl[f].hpos;
    eh_up(n, i);
    eh_down(n, (size_t)n->fl[f].hpos);
    return 0;
}

static void eh_remove(topo_net *n, int32_t f)
{
    int32_t i = n->fl[f].hpos;
    if (i < 0)
        return;
    n->fl[f].hpos = -1;
    topo_eh last = n->h[--n->nh];
    if ((size_t)i == n->nh)
        return;
    eh_place(n, (size_t)i, last);
    eh_up(n, (size_t)i);
    eh_down(n, (size_t)n->fl[last.f].hpos);
}

/* The earliest end of a rated flow, or INT64_MAX. */
static int64_t next_end(topo_net *n)
{
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

static int link_add(topo_net *n, int32_t l, int32_t f, int64_t t)
{
    tlink *k = &n->links[l];
    if (!k->fl && k->nfl == TL_IN) {
        /* out of inline room: every flow moves to a list of its own */
        size_t c = 0;
        if (grow((void **)&k->fl, &c, 2 * TL_IN, sizeof *k->fl))
            return -1;
        memcpy(k->fl, k->in, sizeof k->in);
        k->capfl = (int32_t)c;
    } else if (k->fl && k->nfl == k->capfl) {
        size_t c = (size_t)k->capfl;
        if (grow((void **)&k->fl, &c, (size_t)k->nfl + 1, sizeof *k->fl))
            return -1;
        k->capfl = (int32_t)c;
    }
    lfl(k)[k->nfl++] = f;
    tstat *x = &n->st[l];
    if (k->nfl == 1)
        x->busy_since = t;
    if (k->nfl > x->peak)
        x->peak = k->nfl;
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
        n->st[l].busy += t - n->st[l].busy_since;
        k->alloc = 0; /* no drift carried into the next busy period */
    }
}

/* ------------------------------------------------------------ refill */

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

static int set_add(topo_net *n, size_t *ns, int32_t f)
{
    if (grow((void **)&n->set, &n->capset, *ns + 1, sizeof *n->set))
        return -1;
    n->set[(*ns)++] = f;
    return 0;
}

/* Re-rates flows set[0..ns) at t by progressive filling, holding the rates
 * of every other flow. */
static int refill(topo_net *n, size_t ns, int64_t t)
{
    uint32_t g = n->gen;
    size_t nl = 0;
    for (size_t i = 0; i < ns; i++) {
        if (i + 1 < ns) {
            /* the next flow's links, while this one's are summed: the
             * neighbourhood is scattered over the link array (collect
             * already fetched the paths) */
            int32_t nx = n->set[i + 1];
            const int32_t *pn = &n->path[(size_t)nx * n->maxp];
            for (int j = 0; j < n->fl[nx].npath; j++)
                __builtin_prefetch(&n->links[pn[j]]);
        }
        tflow *f = &n->fl[n->set[i]];
        settle(f, t);
        f->fixed = 0;
        const int32_t *p = &n->path[(size_t)n->set[i] * n->maxp];
        for (int j = 0; j < f->npath; j++) {
            tlink *k = &n->links[p[j]];
            if (isinf(k->cap))
                continue;
            if (k->mark != g) {
                k->mark = g;
                k->cnt = 0;
                k->resid = k->cap - k->alloc;
                if (grow((void **)&n->lset, &n->caplset, nl + 1, sizeof *n->lset))
                    return -1;
                n->lset[nl++] = p[j];
            }
            k->cnt++;
            k->resid += f->rate;
        }
    }
    /* Progressive filling by levels: the smallest fair share among the
     * links is the next level; every link at that level fixes its unfixed
     * flows there (shares only grow as flows get fixed elsewhere); links
     * with no unfixed flow left drop out. Few levels in practice, so a scan
     * per level beats a priority queue. */
    size_t live = nl;
    while (live) {
        double lvl = INFINITY;
        for (size_t i = 0; i < live; i++) {
            const tlink *k = &n->links[n->lset[i]];
            double sh = k->resid > 0 ? k->resid / k->cnt : 0;
            if (sh < lvl)
                lvl = sh;
        }
        double cut = lvl * (1 + 1e-9);
        for (size_t i = 0; i < live; i++) {
            tlink *k = &n->links[n->lset[i]];
            if (k->cnt == 0)
                continue;
            double share = k->resid > 0 ? k->resid / k->cnt : 0;
            if (share > cut)
                continue;
            if (share < k->cap * 1e-12)
                share = k->cap * 1e-12; /* rounding left nothing: keep a trickle */
            for (int32_t q = 0; q < k->nfl && k->cnt > 0; q++) {
                int32_t fi = lfl(k)[q];
                tflow *f = &n->fl[fi];
                if (f->mark != g || f->fixed)
                    continue;
                f->fixed = 1;
                double old = f->rate;
                f->rate = share;
                const int32_t *p = &n->path[(size_t)fi * n->maxp];
                for (int j = 0; j < f->npath; j++) {
                    tlink *k2 = &n->links[p[j]];
                    if (isinf(k2->cap))
                        continue;
                    k2->alloc += share - old;
                    k2->resid -= share;
                    k2->cnt--;
                }
            }
        }
        size_t w = 0;
        for (size_t i = 0; i < live; i++)
            if (n->links[n->lset[i]].cnt > 0)
                n->lset[w++] = n->lset[i];
        live = w;
    }
    for (size_t i = 0; i < ns; i++) {
        int32_t fi = n->set[i];
        tflow *f = &n->fl[fi];
        double d = f->rem / f->rate;
        int64_t end = t + (d < 4e18 ? (int64_t)ceil(d - 1e-6) : (int64_t)4e18);
        if (end < t)
            end = t;
        if (end != f->t_end || f->hpos < 0) {
            f->t_end = end;
            if (eh_update(n, fi))
                return -1;
        }
    }
    return 0;
}

/* Flows crossing a finite link of flow fi (fi itself included when live):
 * the neighbourhood to re-rate. */
static int collect(topo_net *n, int32_t fi, size_t *ns)
{
    const tflow *f = &n->fl[fi];
    const int32_t *p = &n->path[(size_t)fi * n->maxp];
    for (int j = 0; j < f->npath; j++) {
        const tlink *k = &n->links[p[j]];
        if (isinf(k->cap))
            continue;
        const int32_t *a = k->fl ? k->fl : k->in;
        for (int32_t q = 0; q < k->nfl; q++) {
            tflow *x = &n->fl[a[q]];
            if (x->mark != n->gen) {
                x->mark = n->gen;
                __builtin_prefetch(&n->path[(size_t)a[q] * n->maxp]); /* for refill */
                if (set_add(n, ns, a[q]))
                    return -1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ flows */

static int32_t flow_new(topo_net *n)
{
    if (n->free_fl >= 0) {
        int32_t f = n->free_fl;
        n->free_fl = n->fl[f].next;
        return f;
    }
    if (n->nfl == n->capfl) {
        int32_t c = n->capfl ? n->capfl * 2 : 1024;
        tflow *a = realloc(n->fl, (size_t)c * sizeof *a);
        if (!a)
            return -1;
        n->fl = a;
        int32_t *p = realloc(n->path, (size_t)c * n->maxp * sizeof *p);
        if (!p)
            return -1;
        n->path = p;
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

static int topo_start_flow(mc_net *base, int64_t t, int src, int dst, int64_t bytes,
                           int64_t cookie, int64_t *arrive)
{
    topo_net *n = (topo_net *)base;
    n->seq++;
    int32_t tmp[TOPO_MAXD * 64 + 8];
    int32_t *p = n->maxp <= (int)(sizeof tmp / sizeof tmp[0]) ? tmp : n->tmp;
    int hops, intra;
    int np = route(n, src, dst, p, &hops, &intra);
    int64_t delay = intra ? n->oi + n->Li : n->o + n->L + (int64_t)hops * n->hop;
    double b = bytes > 0 ? (double)bytes : 0;
    double mincap = INFINITY;
    for (int i = 0; i < np; i++) {
        n->st[p[i]].bytes += b;
        if (n->links[p[i]].cap < mincap)
            mincap = n->links[p[i]].cap;
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
    memset(f, 0, sizeof *f);
    f->rem = b;
    f->t_last = t;
    f->delay = delay;
    f->cookie = cookie;
    f->npath = np;
    f->live = 1;
    f->next = -1;
    f->hpos = -1;
    memcpy(&n->path[(size_t)fi * n->maxp], p, (size_t)np * sizeof *p);
    for (int i = 0; i < np; i++)
        if (link_add(n, p[i], fi, t))
            n->failed = 1;
    /* Rated in advance(t), with every other flow started at this instant:
     * one refill for a burst of sends (a halo, a collective round) instead
     * of one per send. */
    if (grow((void **)&n->pend, &n->cappend, n->npend + 1, sizeof *n->pend)) {
        n->failed = 1;
        return 0;
    }
    n->pend[n->npend++] = fi;
    if (n->armed > t) {
        n->armed = t;
        n->hooks.wake(n->hooks.ctx, t);
    }
    return 0;
}

static void flow_end(topo_net *n, int32_t fi, int64_t t)
{
    tflow *f = &n->fl[fi];
    const int32_t *p = &n->path[(size_t)fi * n->maxp];
    for (int j = 0; j < f->npath; j++) {
        tlink *k = &n->links[p[j]];
        if (!isinf(k->cap))
            k->alloc -= f->rate;
        link_remove(n, p[j], fi, t);
    }
    f->live = 0;
    f->next = n->free_fl;
    n->free_fl = fi;
}

static void topo_advance(mc_net *base, int64_t t)
{
    topo_net *n = (topo_net *)base;
    if (t >= n->armed)
        n->armed = INT64_MAX;
    /* end every due flow, then re-rate once the union of their
     * neighbourhoods and those of the flows started since the last call */
    size_t nd = 0;
    while (next_end(n) <= t) {
        int32_t fi = n->h[0].f;
        eh_remove(n, fi);
        tflow *f = &n->fl[fi];
        int64_t when = f->t_end + f->delay;
        int64_t cookie = f->cookie;
        flow_end(n, fi, t);
        n->hooks.arrive(n->hooks.ctx, cookie, when);
        if (set_add(n, &nd, fi)) {
            n->failed = 1;
            break;
        }
    }
    if (nd || n->npend) {
        n->gen++;
        size_t ns = nd;
        for (size_t i = 0; i < nd; i++)
            n->fl[n->set[i]].mark = n->gen; /* ended: not to be re-rated */
        for (size_t i = 0; i < nd && !n->failed; i++)
            if (collect(n, n->set[i], &ns))
                n->failed = 1;
        for (size_t i = 0; i < n->npend && !n->failed; i++)
            if (collect(n, n->pend[i], &ns))
                n->failed = 1;
        n->npend = 0;
        if (n->exact) { /* network.sharing=exact: every flow, the reference */
            ns = nd;
            for (int32_t q = 0; q < n->nfl; q++)
                if (n->fl[q].live) {
                    n->fl[q].mark = n->gen;
                    if (set_add(n, &ns, q))
                        n->failed = 1;
                }
        }
        if (!n->failed) {
            memmove(n->set, n->set + nd, (ns - nd) * sizeof *n->set);
            if (refill(n, ns - nd, t))
                n->failed = 1;
        }
    }
    arm(n);
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
        if (n->st[i].bytes > 0)
            used++;
    if (!out || max == 0)
        return used;
    mc_net_link_stat *all = calloc(used ? used : 1, sizeof *all);
    if (!all)
        return 0;
    size_t k = 0;
    for (int64_t i = 0; i < n->nlinks; i++) {
        const tlink *l = &n->links[i];
        const tstat *x = &n->st[i];
        if (!(x->bytes > 0))
            continue;
        mc_net_link_stat *s = &all[k++];
        topo_link_name(&n->T, (int32_t)i, s->name, sizeof s->name);
        s->bandwidth = isinf(l->cap) ? INFINITY : l->cap * MC_PS_PER_S;
        s->bytes = x->bytes;
        s->busy = (double)x->busy * 1e-12;
        s->peak_flows = x->peak;
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
        free(n->links[i].fl);
    free(n->links);
    free(n->st);
    free(n->node);
    free(n->fl);
    free(n->path);
    free(n->h);
    free(n->pend);
    free(n->set);
    free(n->lset);
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
    n->armed = INT64_MAX;
    n->exact = strcmp(str_or(p, "network.sharing", "local"), "exact") == 0;
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
    n->links = calloc((size_t)n->nlinks, sizeof *n->links);
    n->st = calloc((size_t)n->nlinks, sizeof *n->st);
    n->tmp = malloc((size_t)n->maxp * sizeof *n->tmp);
    if (!n->links || !n->st || !n->tmp)
        return topo_fail(n, err, "the links");
    double link = bw_per_ps(num_or(p, "network.link_bandwidth", INFINITY));
    double nic = bw_per_ps(num_or(p, "network.nic_bandwidth", INFINITY));
    double up = bw_per_ps(num_or(p, "network.uplink_bandwidth", INFINITY));
    double shm = bw_per_ps(num_or(p, "intranode.bandwidth", INFINITY));
    for (int64_t i = 0; i < n->nlinks; i++) {
        int32_t id = (int32_t)i;
        n->links[i].cap = id < 2 * nodes ? nic : id < 3 * nodes ? shm
                        : topo_is_uplink(&n->T, id) ? up : link;
    }
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
        if (n->links[p[i]].cap < mincap)
            mincap = n->links[p[i]].cap;
    double d = bytes > 0 && !isinf(mincap) ? (double)bytes / mincap : 0;
    out->arrive = (intra ? n->oi + n->Li : n->o + n->L + (int64_t)hops * n->hop) +
                  (int64_t)ceil(d - 1e-6);
}

static const mc_net_flow_ops topo_flow_ops = {topo_set_hooks, topo_start_flow, topo_advance,
                                              topo_link_stats};

const mc_net_ops mc_net_topo_ops = {
    "topo", "topology (crossbar, ring, mesh/torus, fattree, hxb, switches, dragonfly) with "
            "max-min fair link sharing between concurrent messages",
    topo_create, topo_transfer, topo_destroy, &topo_flow_ops};
