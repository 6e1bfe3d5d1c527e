/* The topo network model: a topology of links (topo_route.c) whose
 * bandwidth concurrent messages share, max-min fairly, as flows. This
 * file: its parameters, the engine protocol and link statistics; the
 * flows and their end heap are in topo_flow.c, the sharing solver and the
 * network.sharing modes in topo_share.c (topo_model.h).
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
#define MPICAST_NET_INTERNAL
#include "net_models.h"
#include "topo_model.h"


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
    int32_t fi = topo_flow_open(n, p, np, b, t);
    if (fi < 0) {
        n->failed = 1;
        *arrive = t + delay + (int64_t)ceil(b / mincap - 1e-6);
        return 1;
    }
    n->fc[fi].delay = delay;
    n->fc[fi].cookie = cookie;
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
    if (topo_list_add(&n->pend, &n->cappend, &n->npend, fi)) {
        n->failed = 1;
        return 0;
    }
    if (n->share->flush && n->hooks.flush) {
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

static void topo_advance(mc_net *base, int64_t t)
{
    topo_net *n = (topo_net *)base;
    prefetch_next(n);
    if (t >= n->armed)
        n->armed = INT64_MAX;
    /* end every due flow, then re-rate once the union of their
     * neighbourhoods and those of the flows started since the last call */
    size_t nd = 0;
    while (topo_next_end(n) <= t) {
        int32_t fi = n->h[0].f;
        int64_t when = n->h[0].t + n->fc[fi].delay;
        int64_t cookie = n->fc[fi].cookie;
        topo_eh_remove(n, fi);
        n->npop++;
        topo_flow_end(n, fi, t);
        n->hooks.arrive(n->hooks.ctx, cookie, when);
        if (topo_list_add(&n->done, &n->capdone, &nd, fi)) {
            n->failed = 1;
            break;
        }
    }
    if (nd || n->npend) {
        topo_rated r;
        if (!n->failed && (topo_share_rerate(n, nd, n->npend, t, &r) ||
                           topo_set_ends(n, r.f, r.n, t)))
            n->failed = 1;
        n->npend = 0;
    }
    topo_arm(n);
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

void topo_free(topo_net *n)
{
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

static void topo_destroy(mc_net *base)
{
    topo_free((topo_net *)base);
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
    n->share = topo_sharing_find(str_or(p, "network.sharing", "route"));
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

/* Pricing without the flow interface: the message alone on its route.
 * Every leg costs the same: the model has no rendezvous overhead. */
static void topo_transfer(mc_net *base, int64_t t, int src, int dst, int64_t bytes,
                          mc_net_leg leg, mc_net_cost *out)
{
    (void)t;
    (void)leg;
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

/* network.topology names one of ours whichever model is chosen (a sweep may
 * switch to topo at a later point). */
static mc_err topo_check(const mc_platform *p, mc_error *err)
{
    if (!mc_platform_is_set(p, "network.topology") ||
        mc_platform_check_choice(mc_platform_str(p, "network.topology"), TOPO_NAMES, err) ==
            MC_OK)
        return MC_OK;
    mc_error_prefix(err, "network.topology");
    return MC_ERR_PLATFORM;
}

const mc_net_ops mc_net_topo_ops = {
    .name = "topo",
    .summary = "topology (crossbar, ring, mesh/torus, fattree, hxb, switches, dragonfly) with "
               "max-min fair link sharing between concurrent messages",
    .create = topo_create,
    .transfer = topo_transfer,
    .destroy = topo_destroy,
    .flow = &topo_flow_ops,
    .keys = topo_keys,
    .check = topo_check,
};
