/* The topo model's sharing solver (topo_model.h): progressive filling of
 * the flows a change re-rates, the others' rates held, and the
 * network.sharing modes as a table of {name, refill}. See topo.c's header
 * for what each mode re-rates; every floating-point operation is in the
 * order of the first version (tests/test_topo_bitexact.c). */
#include <math.h>
#include <string.h>

#define MPICAST_NET_INTERNAL
#include "topo_model.h"

/* What collect() gathers around a flow: every flow on its links, or
 * (bottleneck sharing) those whose rate its end or its start should move. */
enum { TC_ALL, TC_ENDED, TC_STARTED };

/* ------------------------------------------------------------ progressive filling */

/* The links of the nl flows of set, scattered over the link array, asked
 * for at once, so that the misses overlap instead of coming one by one in
 * the loops that follow (collect already asked for the flows): the number
 * of links visited, at most one scratch entry each. */
static size_t prefetch_links(const topo_net *n, size_t ns)
{
    size_t tot = 0;
    for (size_t i = 0; i < ns; i++) {
        int np = n->fl[n->set[i]].npath;
        tot += (size_t)np;
        const int32_t *p = fpath(n, n->set[i]);
        for (int j = 0; j < np; j++)
            __builtin_prefetch(&n->links[p[j]]);
    }
    return tot;
}

/* Room for tot visits of links by ns flows. scr: every entry that a link's
 * slot may name (below capscr) has an id of -1 or that of the link listed
 * there in this refill. */
static int refill_reserve(topo_net *n, size_t ns, size_t tot)
{
    size_t oldcap = n->capscr;
    if (ENSURE(&n->scr, &n->capscr, tot > 0 ? tot : 1, sizeof *n->scr) ||
        ENSURE(&n->spath, &n->capspath, tot, sizeof *n->spath) ||
        ENSURE(&n->soff, &n->capsoff, ns + 1, sizeof *n->soff) ||
        ENSURE(&n->live, &n->caplive, tot, sizeof *n->live))
        return -1;
    for (size_t i = oldcap; i < n->capscr; i++)
        n->scr[i].id = -1;
    return 0;
}

/* Lists each flow of set[0..ns)'s finite links once as scratch slots
 * (spath, from soff[i]), so that fixing it touches only the dense scratch,
 * each link's entry with the capacity left by the flows held and its
 * count of flows to re-rate; settles the flows at t. The number of links. */
static size_t list_slots(topo_net *n, size_t ns, int64_t t)
{
    const tcaps C = n->caps;
    tlink *L = n->links;
    tflow *F = n->fl;
    tmark *M = n->fmark;
    const int32_t *set = n->set;
    tscr *S = n->scr;
    int32_t *sp = n->spath;
    size_t *so = n->soff;
    size_t nl = 0, off = 0;
    for (size_t i = 0; i < ns; i++) {
        int32_t fi = set[i];
        tflow *f = &F[fi];
        topo_settle(f, t);
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
    return nl;
}

/* Fixes the unfixed flows of link entry x at its share: each takes it,
 * and every link of its route gives it up. */
static void fix_link(topo_net *n, tscr *x)
{
    const uint32_t g = n->gen;
    tmark *M = n->fmark;
    tscr *S = n->scr;
    const int32_t *sp = n->spath;
    const size_t *so = n->soff;
    double share = x->share;
    double cap = cap_of(&n->caps, x->id);
    if (share < cap * 1e-12)
        share = cap * 1e-12; /* rounding left nothing: keep a trickle */
    tlink *k = &n->links[x->id];
    const int32_t *a = lfl(k);
    for (int32_t q = 0, nf = k->nfl; q < nf && x->cnt > 0; q++) {
        int32_t fi = a[q];
        if (M[fi].gen != g)
            continue; /* not re-rated here, or rated already */
        M[fi].gen = g + 1;
        M[fi].bneck = x->id;
        tflow *f = &n->fl[fi];
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

/* Progressive filling by levels over the nl links of the scratch: the
 * smallest fair share among the links is the next level; every link at
 * that level fixes its unfixed flows there (shares only grow as flows get
 * fixed elsewhere); links with no unfixed flow left drop out. Few levels
 * in practice, so a scan per level beats a priority queue; the scan that
 * drops the links done also finds the next level. */
static void fill_by_levels(topo_net *n, size_t nl)
{
    tscr *S = n->scr;
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
            fix_link(n, x);
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
}

/* Re-rates flows set[0..ns) at t by progressive filling, holding the rates
 * of every other flow. The order of every floating-point operation is that
 * of the first version (set order, links in order of first appearance, a
 * link's flows in list order), so that rates and times are reproduced to
 * the bit. */
static int refill(topo_net *n, size_t ns, int64_t t, topo_rated *out)
{
    if (refill_reserve(n, ns, prefetch_links(n, ns)))
        return -1;
    size_t nl = list_slots(n, ns, t);
    fill_by_levels(n, nl);
    tscr *S = n->scr;
    for (size_t i = 0; i < nl; i++) {
        n->links[S[i].id].alloc = S[i].alloc;
        S[i].id = -1; /* a link's stale slot then never matches */
    }
    *out = (topo_rated){n->set, ns};
    return 0;
}

/* ------------------------------------------------------------ route */

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
    topo_settle(f, t);
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

/* The changed flows' route changes: room in the scratch for each of their
 * links, whose ids below capscr are -1 or a link listed in this refill. */
static int route_reserve(topo_net *n, size_t nd, size_t np)
{
    size_t tot = 0;
    for (size_t i = 0; i < nd + np; i++)
        tot += (size_t)n->fl[i < nd ? n->done[i] : n->pend[i - nd]].npath;
    size_t oldcap = n->capscr;
    if (ENSURE(&n->scr, &n->capscr, tot > 0 ? tot : 1, sizeof *n->scr))
        return -1;
    for (size_t i = oldcap; i < n->capscr; i++)
        n->scr[i].id = -1;
    return 0;
}

/* A started flow takes, without taking from anyone, the least room its
 * route leaves; the flows above it are re-rated with it. With several
 * started flows (the np of pend), those above the least of these
 * (harmless: a flow at or below its start's room is fixed at its own rate
 * before any link fills). */
static double start_room(const topo_net *n, size_t np)
{
    const tcaps C = n->caps;
    double lam0 = INFINITY;
    for (size_t i = 0; i < np; i++) {
        const int32_t c = n->pend[i];
        const int32_t *p = fpath(n, c);
        for (int j = 0, m = n->fl[c].npath; j < m; j++) {
            double room = cap_of(&C, p[j]) - n->links[p[j]].alloc; /* inf: infinite link */
            lam0 = room < lam0 ? room : lam0;
        }
    }
    return lam0;
}

/* Lists link id (capacity cap) as scratch entry nl: its flows to re-rate
 * join the set (*ns of them, marked gen), each with its slots among the
 * links listed (spath[si * maxp ...], soff[si] of them) and its bound
 * (xcap: its rate at a start, none at an end); the entry has their count
 * and the capacity the held flows leave. Held: at a start (ended 0), the
 * flows at or below `above`. */
static int list_link(topo_net *n, int32_t id, double cap, int ended, size_t nd, double above,
                     size_t *ns, size_t nl)
{
    const uint32_t g = n->gen;
    const size_t mp = (size_t)n->maxp;
    tlink *k = &n->links[id];
    size_t nf = (size_t)k->nfl;
    size_t m = *ns; /* in a register: soff's size_t stores could alias *ns */
    if (ENSURE(&n->set, &n->capset, m + nf, sizeof *n->set) ||
        ENSURE(&n->spath, &n->capspath, (m + nf) * mp, sizeof *n->spath) ||
        ENSURE(&n->soff, &n->capsoff, m + nf + 1, sizeof *n->soff) ||
        ENSURE(&n->xcap, &n->capxcap, m + nf, sizeof *n->xcap))
        return -1;
    tmark *M = n->fmark;
    int32_t *sp = n->spath;
    size_t *so = n->soff;
    double *xc = n->xcap;
    k->slot = (int32_t)nl;
    tscr *x = &n->scr[nl];
    *x = (tscr){cap - k->alloc, 0, 0, 0, id};
    const int32_t *a = lfl(k);
    for (size_t q = 0; q < nf; q++) {
        int32_t fi = a[q];
        const double r = n->fl[fi].rate;
        if (M[fi].gen != g) {
            if (!ended && r > 0 && r <= above)
                continue; /* held */
            M[fi].gen = g;
            M[fi].si = (int32_t)m;
            n->set[m] = fi;
            so[m] = 0;
            xc[m++] = r > 0 && !nd ? r : INFINITY; /* 0: started */
        }
        size_t si = (size_t)M[fi].si;
        sp[si * mp + so[si]++] = (int32_t)nl;
        x->cnt++;
        x->resid += r;
    }
    *ns = m;
    x->share = share_of(x);
    return 0;
}

/* At an end, each flow of set[0..ns)'s bound from its links not listed:
 * its rate plus an equal part of the room left there. */
static void end_bounds(topo_net *n, size_t ns)
{
    const tcaps C = n->caps;
    const tlink *L = n->links;
    const tscr *S = n->scr;
    double *xc = n->xcap;
    for (size_t i = 0; i < ns; i++) {
        const tflow *f = &n->fl[n->set[i]];
        const double r = f->rate;
        const int32_t *p = fpath(n, n->set[i]);
        for (int j = 0, m = f->npath; j < m && r > 0; j++) {
            const tlink *k = &L[p[j]];
            if (S[k->slot].id == p[j])
                continue;
            double room = cap_of(&C, p[j]) - k->alloc; /* +inf: infinite link */
            double q = r + (room > 0 ? room : 0) / k->nfl;
            xc[i] = q < xc[i] ? q : xc[i];
        }
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
static int refill_route(topo_net *n, size_t nd, size_t np, int64_t t, topo_rated *out)
{
    const tcaps C = n->caps;
    if (route_reserve(n, nd, np))
        return -1;
    const double above = start_room(n, np) * (1 + 1e-9);
    /* the links to fill: ended flows' links first, whose flows are all
     * re-rated, so that whether a flow is in the set is known when it is
     * first seen */
    size_t nl = 0, ns = 0;
    for (size_t i = 0; i < nd + np; i++) {
        const int ended = i < nd;
        const int32_t c = ended ? n->done[i] : n->pend[i - nd];
        const int32_t *p = fpath(n, c);
        for (int j = 0, m = n->fl[c].npath; j < m; j++) {
            int32_t id = p[j];
            double cap = cap_of(&C, id);
            const tlink *k = &n->links[id];
            if (isinf(cap) || k->nfl == 0 || n->scr[k->slot].id == id ||
                (ended && k->alloc + n->fl[c].rate < cap * (1 - 1e-9)))
                continue; /* listed already, or nothing held back by it */
            if (list_link(n, id, cap, ended, nd, above, &ns, nl++))
                return -1;
        }
    }
    if (ENSURE(&n->chg, &n->capchg, ns, sizeof *n->chg))
        return -1;
    if (nd)
        end_bounds(n, ns);
    n->nchg = 0;
    fill_levels(n, ns, nl, t);
    for (size_t i = 0; i < nl; i++)
        n->scr[i].id = -1;
    *out = (topo_rated){n->chg, n->nchg};
    return 0;
}

/* ------------------------------------------------------------ local, bottleneck, exact */

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

void topo_gen_wrap(topo_net *n)
{
    for (int32_t q = 0; q < n->nfl; q++)
        n->fmark[q].gen = 0;
    n->gen = 2;
}

/* Gathers into n->set (*ns of them) the flows around the nd ended flows of
 * done[] and the np started ones of pend[], as collect's how_end and
 * how_start say. */
static int around(topo_net *n, size_t nd, size_t np, int how_end, int how_start, size_t *ns)
{
    for (size_t i = 0; i < nd; i++)
        if (collect(n, n->done[i], ns, how_end))
            return -1;
    for (size_t i = 0; i < np; i++)
        if (collect(n, n->pend[i], ns, how_start))
            return -1;
    return 0;
}

/* network.sharing=local: every flow on the changed flows' finite links. */
static int refill_local(topo_net *n, size_t nd, size_t np, int64_t t, topo_rated *out)
{
    size_t ns = 0;
    if (around(n, nd, np, TC_ALL, TC_ALL, &ns))
        return -1;
    return refill(n, ns, t, out);
}

/* network.sharing=bottleneck: those of them whose rate the change moves
 * (rerate). */
static int refill_bottleneck(topo_net *n, size_t nd, size_t np, int64_t t, topo_rated *out)
{
    size_t ns = 0;
    if (around(n, nd, np, TC_ENDED, TC_STARTED, &ns))
        return -1;
    return refill(n, ns, t, out);
}

/* network.sharing=exact, the reference: every flow in flight, whatever
 * changed. */
static int refill_exact(topo_net *n, size_t nd, size_t np, int64_t t, topo_rated *out)
{
    (void)nd;
    (void)np;
    size_t ns = 0;
    for (int32_t q = 0; q < n->nfl; q++)
        if (n->fc[q].live) {
            n->fmark[q].gen = n->gen;
            if (topo_list_add(&n->set, &n->capset, &ns, q))
                return -1;
        }
    return refill(n, ns, t, out);
}

/* ------------------------------------------------------------ the modes */

/* network.sharing's values; the first is the default. Only route waits
 * for the engine's flush (topo_start_flow): the others keep a wake per
 * instant of starts, and with it their results. */
static const topo_sharing topo_sharings[] = {
    {"route", refill_route, 1},
    {"local", refill_local, 0},
    {"bottleneck", refill_bottleneck, 0},
    {"exact", refill_exact, 0},
};

const topo_sharing *topo_sharing_find(const char *name)
{
    for (size_t i = 0; i < sizeof topo_sharings / sizeof topo_sharings[0]; i++)
        if (name && strcmp(name, topo_sharings[i].name) == 0)
            return &topo_sharings[i];
    return &topo_sharings[0];
}
