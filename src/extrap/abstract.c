/* Abstracting each rank's events: communicators become sub-grid
 * descriptors, peers become candidates (grid offsets, fixed ranks, rank
 * XOR 2^k) that the class decides (classes.c), Comm_split colours and keys
 * become grid indices. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>
#include <string.h>

/* Event e's operation and call site, in a function with x and its trace's grid g. */
#define OP_HERE(e) OPAT(x, (int)(g - x->tgrid), (e))

static int is_vcoll(int op)
{
    switch (op) {
    case MC_OP_GATHERV: case MC_OP_SCATTERV: case MC_OP_ALLGATHERV: case MC_OP_ALLTOALLV:
    case MC_OP_ALLTOALLW: case MC_OP_REDUCE_SCATTER: case MC_OP_IGATHERV:
    case MC_OP_ISCATTERV: case MC_OP_IALLGATHERV: case MC_OP_IALLTOALLV:
    case MC_OP_IALLTOALLW: case MC_OP_IREDUCE_SCATTER:
        return 1;
    default:
        return 0;
    }
}

static int has_peer2(int op)
{
    return op == MC_OP_SENDRECV || op == MC_OP_SENDRECV_REPLACE || op == MC_OP_IPROBE;
}

/* Size class of a collective (blocking form). */
static int coll_sizeclass(int op)
{
    if (mc_op_is_nonblocking_coll(op))
        op -= MC_OP_IBARRIER - MC_OP_BARRIER;
    switch (op) {
    case MC_OP_ALLTOALL: case MC_OP_SCATTER: case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW:
    case MC_OP_SCATTERV:
        return MC_SC_BLOCK;
    default:
        return MC_SC_REDUCE;
    }
}

static pcand peer_cand(const xgrid *g, int r, int32_t q)
{
    pcand p;
    memset(&p, 0, sizeof p);
    p.lit = q;
    p.isrank = q >= 0 && q < g->P;
    if (!p.isrank)
        return p;
    p.xr = r ^ q;
    int cr[MAXD], cq[MAXD];
    grid_coords(g, r, cr);
    grid_coords(g, q, cq);
    for (int d = 0; d < g->nd; d++) {
        int n = g->dims[d], o = cq[d] - cr[d];
        if (g->wrap[d]) {
            o = ((o % n) + n) % n;
            if (2 * o > n)
                o -= n;
            if (n % 2 == 0 && 2 * o == n) {
                p.amb = 1;
                p.ambd |= 1u << d;
            }
        }
        p.rel[d] = o;
        if (o > 1 || o < -1)
            p.far = 1;
    }
    return p;
}

typedef struct commmap {
    uint64_t *id;
    int *cd;
    int n, cap;
} commmap;

static int cd_intern(mc_extrap *x, const cdesc *c)
{
    for (int i = 0; i < x->ncd; i++)
        if (x->cd[i].kind == c->kind && x->cd[i].keep == c->keep && x->cd[i].seq == c->seq)
            return i;
    cdesc *a = realloc(x->cd, (size_t)(x->ncd + 1) * sizeof *a);
    if (!a)
        return -1;
    x->cd = a;
    x->cd[x->ncd] = *c;
    return x->ncd++;
}

static int cm_find(const commmap *m, uint64_t id)
{
    for (int i = m->n - 1; i >= 0; i--)
        if (m->id[i] == id)
            return m->cd[i];
    return -1;
}

static int cm_add(commmap *m, uint64_t id, int cd)
{
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        uint64_t *a = realloc(m->id, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        m->id = a;
        int *c = realloc(m->cd, (size_t)cap * sizeof *c);
        if (!c)
            return -1;
        m->cd = c;
        m->cap = cap;
    }
    m->id[m->n] = id;
    m->cd[m->n++] = cd;
    return 0;
}

static int comm_of(mc_extrap *x, const commmap *m, uint64_t id, int r)
{
    if (id == MC_COMM_WORLD) {
        cdesc c = {CD_WORLD, 0, 0};
        return cd_intern(x, &c);
    }
    if (id == (MC_COMM_SELF_BASE | (uint32_t)r)) {
        cdesc c = {CD_SELF, 0, 0};
        return cd_intern(x, &c);
    }
    return cm_find(m, id);
}

/* block_dist read from the first entry, or from the last. */
static int block_dist_from(const int64_t *v, int c, int last, int64_t *u, int64_t *N)
{
#define V(k) v[last ? c - 1 - (k) : (k)]
    int R = 1;
    while (R < c && V(R) == V(0))
        R++;
    int64_t hi = V(0), lo = R < c ? V(R) : V(0);
    if (R == c || lo >= hi || lo < 0)
        return 0;
    for (int k = R; k < c; k++)
        if (V(k) != lo)
            return 0;
#undef V
    *u = hi - lo;
    if (lo % *u || lo / *u > (INT64_MAX - R) / c)
        return 0;
    *N = lo / *u * c + R;
    return 1;
}

/* One reading of an array as a block distribution: N items of u bytes,
 * dealt out in mode `mode` (extrap_share). */
typedef struct bread {
    int64_t u, N;
    uint8_t mode;
} bread;

/* The ceil readings of v (XD_CEIL): k entries a = u * B, then b = u * R
 * (R < B), then zeros, with B = ceil(N / c), N = k B + R. u is (a - b) / d
 * for d = B - R < c items (B for b = 0), so at most c - 1 of them. */
static int ceil_readings(const int64_t *v, int c, bread *out, int n, int max)
{
    int k = 1;
    while (k < c && v[k] == v[0])
        k++;
    int64_t a = v[0], b = k < c ? v[k] : 0;
    if (k == c || a <= 0 || b < 0 || b >= a)
        return n;
    for (int j = k + 1; j < c; j++)
        if (v[j])
            return n;
    for (int64_t d = 1; d < c && n < max; d++) {
        int64_t u = (a - b) / d;
        if ((a - b) % d || !u || a % u || b % u)
            continue;
        int64_t B = a / u, R = b / u;
        if (B > INT64_MAX / k - R)
            continue;
        int64_t N = k * B + R;
        if ((N + c - 1) / c == B)
            out[n++] = (bread){u, N, XD_CEIL};
    }
    return n;
}

/* Every reading of array v of c counts as a block distribution (VK_BLOCK):
 * first or last R entries hi = u * (q + 1), the rest lo = u * q, so N =
 * q c + R items of u bytes (one reading each), or ceil blocks (several item
 * sizes may fit). The first, the balanced one where it fits, is the one
 * the slots take. Returns how many, 0 when v has none of these shapes. */
static int block_readings(const int64_t *v, int c, int stated, bread *out, int max)
{
    int n = 0;
    for (int last = 0; last < 2 && n < max; last++)
        if ((!stated || stated == 1 + last) && block_dist_from(v, c, last, &out[n].u, &out[n].N))
            out[n++].mode = (uint8_t)last;
    return !stated || stated == 1 + XD_CEIL ? ceil_readings(v, c, out, n, max) : n;
}

/* An Alltoallv whose arrays are the transpose of A x B items of u bytes
 * held in blocks of A rows, sent as blocks of B columns: send count j is
 * u * share(A, me) * share(B, j), receive count j u * share(A, j) *
 * share(B, me). An array that is equal does not show its A or B (c divides
 * it); the slots then keep what the other array tells (extrap_impl.h,
 * VK_XPOSE), which every member shares. Each pair of the arrays' readings
 * that agrees is a reading of the transpose (num[0 .. 4), last[2]); returns
 * how many, 0 when no transpose fits. */
static int transpose_readings(const int64_t *sv, const int64_t *rv, int c, int me, int stated,
                              xread *out, int max)
{
    bread bs[XREAD_MAX], br[XREAD_MAX];
    int ns = block_readings(sv, c, stated, bs, XREAD_MAX);
    int nr = block_readings(rv, c, stated, br, XREAD_MAX);
    int n = 0;
    if (me < 0 || me >= c || (!ns && !nr))
        return 0;
    int sq = 1, rq = 1; /* the equal side: one count for every rank */
    for (int k = 1; k < c; k++)
        sq &= sv[k] == sv[0], rq &= rv[k] == rv[0];
    for (int i = 0; i < (ns ? ns : 1); i++)
        for (int j = 0; j < (nr ? nr : 1) && n < max; j++) {
            xread *o = &out[n];
            memset(o, 0, sizeof *o);
            if (ns && nr) { /* both shown: u from either side */
                int64_t sa = extrap_share(br[j].N, c, me, br[j].mode);
                int64_t sb = extrap_share(bs[i].N, c, me, bs[i].mode);
                if (sa <= 0 || sb <= 0 || bs[i].u % sa || br[j].u % sb ||
                    bs[i].u / sa != br[j].u / sb)
                    continue;
                *o = (xread){{bs[i].u / sa, 0, bs[i].N, br[j].N}, {bs[i].mode, br[j].mode}};
            } else if (nr) { /* send counts equal: c divides B; u * B / c per column block */
                if (!sq || sv[0] != extrap_mul(br[j].u, extrap_share(br[j].N, c, me,
                                                                      br[j].mode)))
                    continue;
                *o = (xread){{0, br[j].u, 0, br[j].N}, {0, br[j].mode}};
            } else {
                if (!rq || rv[0] != extrap_mul(bs[i].u, extrap_share(bs[i].N, c, me,
                                                                      bs[i].mode)))
                    continue;
                *o = (xread){{0, bs[i].u, bs[i].N, 0}, {bs[i].mode, 0}};
            }
            n++;
        }
    return n;
}

/* Readings rd[0 .. n) into t's array slots: the first in num and vlast,
 * the others in t->rd. */
static int keep_readings(tev *t, const xread *rd, int n, uint32_t nslots)
{
    memcpy(t->num + 2, rd[0].num, nslots * sizeof *t->num);
    memcpy(t->vlast, rd[0].last, sizeof t->vlast);
    t->nrd = 0;
    if (n < 2)
        return 0;
    if (!(t->rd = malloc((size_t)(n - 1) * sizeof *t->rd)))
        return -1;
    memcpy(t->rd, rd + 1, (size_t)(n - 1) * sizeof *t->rd);
    t->nrd = (uint8_t)(n - 1);
    return 0;
}

/* A per-rank-count collective (Alltoallv, Gatherv, ...): its vals are one or
 * two arrays (send, receive) of a count per comm rank, regenerated at the
 * new comm size (vcoll_slots says how). Sets t->varr and leaves t->e.vals
 * empty. */
static int vcoll_arrays(const mc_extrap *x, const xgrid *g, const char *path, int r,
                        unsigned long long i, const mc_event *e, tev *t, mc_error *err)
{
    int c = cdesc_size(&x->cd[t->comm], g);
    if (c <= 0 || e->nvals % (uint32_t)c || e->nvals / (uint32_t)c > 2)
        FAIL("%s: rank %d event %llu: %s: %u counts for a communicator of %d ranks: not "
             "explained", path, r, i, OP_HERE(e), e->nvals, c);
    t->varr = e->nvals / (uint32_t)c;
    t->e.nvals = 0;
    return 0;
}

/* The literal part of event e of rank r (its values, but a per-rank-count
 * collective's arrays as counts) and its communicator, into t. */
static int abstract_literal(xbuild *b, int k, int r, uint32_t i, const mc_event *e,
                            const commmap *cm, tev *t, mc_error *err)
{
    mc_extrap *x = b->x;
    const xgrid *g = &x->tgrid[k];
    const char *path = x->paths[k];
    unsigned long long no = extrap_event_no(b, k, r, i);
    t->e = *e;
    t->e.vals = NULL;
    t->newcomm = -1;
    t->loop = (uint8_t)extrap_fold_tag(b->folds ? &b->folds[k] : NULL, r, i);
    if (e->op < 0 || e->op >= MC_OP_COUNT)
        FAIL("%s: rank %d event %llu: unknown operation %d", path, r, no, e->op);
    if (e->op == MC_OP_GRAPH_CREATE || e->op == MC_OP_DIST_GRAPH_CREATE_ADJACENT ||
        e->op == MC_OP_INTERCOMM_CREATE)
        FAIL("%s: rank %d event %llu: %s: only Cartesian, split and created sub-grid "
             "communicators are extrapolated", path, r, no, OP_HERE(e));
    if (e->nvals && !is_vcoll(e->op)) {
        t->e.vals = malloc(e->nvals * sizeof *e->vals);
        if (!t->e.vals)
            FAIL("out of memory");
        memcpy(t->e.vals, e->vals, e->nvals * sizeof *e->vals);
    }
    t->comm = comm_of(x, cm, e->comm, r);
    if (t->comm < 0)
        FAIL("%s: rank %d event %llu: %s on communicator %llx, which no traced call created: "
             "not extrapolated", path, r, no, OP_HERE(e), (unsigned long long)e->comm);
    if (extrap_is_completion(e->op) && e->nvals % 4)
        FAIL("%s: rank %d event %llu: %s with %u values", path, r, no, OP_HERE(e),
             e->nvals);
    if (is_vcoll(e->op) && vcoll_arrays(x, &x->tgrid[k], path, r, no, e, t, err))
        return -1;
    return 0;
}

/* A per-rank-count collective's number slots. Each array is one count for
 * every rank (VK_EQUAL: the count), a block distribution (VK_BLOCK: unit
 * and number of items) or, for Alltoallv, the transpose of one (VK_XPOSE,
 * both arrays); any other shape is refused. Bytes or bytes2 that are the
 * rank's own entry of a block distribution become that entry (t->own), so
 * that the members of a class, whose own shares differ, agree. */
static int vcoll_slots(const mc_extrap *x, const xgrid *g, const char *path, int r,
                       unsigned long long i, const mc_event *e, tev *t, mc_error *err)
{
    int c = (int)(e->nvals / t->varr), me = cdesc_rank(&x->cd[t->comm], g, r), op = e->op;
    int xpose = t->varr == 2 && (op == MC_OP_ALLTOALLV || op == MC_OP_IALLTOALLV);
    xread rd[XREAD_MAX];
    int nrd = 0, amb = -1;
    memset(rd, 0, sizeof rd);
    for (uint32_t a = 0; a < t->varr; a++) {
        const int64_t *v = e->vals + a * (uint32_t)c;
        int k = 1;
        while (k < c && v[k] == v[0])
            k++;
        t->num[2 + a] = v[0];
        t->num[2 + t->varr + a] = 0;
        if (k == c)
            continue;
        if (xpose) { /* decided on both arrays */
            nrd = transpose_readings(e->vals, e->vals + c, c, me, x->rules.blocks, rd, XREAD_MAX);
            if (!nrd)
                FAIL("%s: rank %d event %llu: %s: per-rank counts differ (array %u of 2: comm "
                     "rank %d %lld bytes, comm rank 0 %lld) and are neither a block "
                     "distribution nor the transpose of one (the first or the last N mod %d "
                     "ranks one item more, or blocks of ceil(N/%d)): not extrapolated", path,
                     r, i, OP_HERE(e), a + 1, k, (long long)v[k], (long long)v[0], c, c);
            t->vkind[0] = t->vkind[1] = VK_XPOSE;
            if (keep_readings(t, rd, nrd, 4))
                FAIL("out of memory");
            return 0;
        }
        bread br[XREAD_MAX];
        int nb = block_readings(v, c, x->rules.blocks, br, XREAD_MAX);
        if (!nb)
            FAIL("%s: rank %d event %llu: %s: per-rank counts differ (array %u of %u: "
                 "comm rank %d %lld bytes, comm rank 0 %lld) and are no block distribution "
                 "(the first or the last N mod %d ranks one item more, or blocks of "
                 "ceil(N/%d)): not extrapolated", path, r, i, OP_HERE(e), a + 1, t->varr, k,
                 (long long)v[k], (long long)v[0], c, c);
        if (nb > 1 && nrd)
            FAIL("%s: rank %d event %llu: %s: both arrays have several readings as block "
                 "distributions: not extrapolated", path, r, i, OP_HERE(e));
        t->num[2 + a] = br[0].u, t->num[2 + t->varr + a] = br[0].N;
        t->vlast[a] = br[0].mode;
        t->vkind[a] = VK_BLOCK;
        for (int j = 0; j < nb && nb > 1; j++) /* this array's readings; the rest set below */
            rd[j].num[a] = br[j].u, rd[j].num[t->varr + a] = br[j].N, rd[j].last[a] = br[j].mode;
        if (nb > 1)
            nrd = nb, amb = (int)a;
    }
    for (int j = 0; j < nrd; j++) /* the other array as its slots have it */
        for (uint32_t a = 0; a < t->varr; a++)
            if ((int)a != amb)
                rd[j].num[a] = t->num[2 + a], rd[j].num[t->varr + a] = t->num[2 + t->varr + a],
                rd[j].last[a] = t->vlast[a];
    if (nrd > 1 && keep_readings(t, rd, nrd, 2 * t->varr))
        FAIL("out of memory");
    /* the rank's own block: Allgatherv's and Gatherv's send, Scatterv's receive */
    int s = op == MC_OP_SCATTERV || op == MC_OP_ISCATTERV ? 1
            : op == MC_OP_ALLGATHERV || op == MC_OP_IALLGATHERV || op == MC_OP_GATHERV ||
                      op == MC_OP_IGATHERV
                ? 0
                : -1;
    if (s < 0 || t->varr != 1 || t->vkind[0] != VK_BLOCK || me < 0 || me >= c ||
        t->num[s] != e->vals[me])
        return 0;
    t->own[s] = 1;
    t->num[s] = 0;
    if (s == 0)
        t->e.bytes = 0;
    else
        t->e.bytes2 = 0;
    return 0;
}

/* The slots of a->t (peers, numbers and their size class) as e's literals,
 * nreq of them for completions; the peers' literals in a->pc too. */
static int literal_slots(const mc_extrap *x, const xgrid *g, const char *path, int r,
                         unsigned long long i, const mc_event *e, uint32_t nreq, aev *a,
                         mc_error *err)
{
    tev *t = &a->t;
    t->npeer = 2 + nreq;
    t->nnum = 2 + nreq + 2 * t->varr;
    t->peer = calloc(t->npeer, sizeof *t->peer);
    a->pc = calloc(t->npeer, sizeof *a->pc);
    t->num = calloc(t->nnum, sizeof *t->num);
    t->law = calloc(t->nnum, 1);
    t->sclass = calloc(t->nnum, 1);
    t->alt = calloc(t->nnum, sizeof *t->alt);
    if (!t->peer || !a->pc || !t->num || !t->law || !t->sclass || !t->alt)
        FAIL("out of memory");
    t->csize = cdesc_size(&x->cd[t->comm], g);
    for (uint32_t s = 0; s < t->npeer; s++) {
        a->pc[s].lit = s == 0 ? e->peer : s == 1 ? e->peer2 : (int32_t)e->vals[4 * (s - 2) + 1];
        t->peer[s].kind = PD_LIT;
        t->peer[s].v[0] = a->pc[s].lit;
        t->peer[s].xk = -1;
    }
    t->num[0] = e->bytes;
    t->num[1] = e->bytes2;
    for (uint32_t q = 0; q < nreq; q++)
        t->num[2 + q] = e->vals[4 * q + 3];
    if (t->varr && vcoll_slots(x, g, path, r, i, e, t, err))
        return -1;
    mc_op_kind kind = mc_op_kind_of(e->op);
    int sc = kind == MC_KIND_C ? coll_sizeclass(e->op)
             : e->op == MC_OP_COMPUTE ? MC_SC_COMPUTE : MC_SC_P2P;
    for (uint32_t s = 0; s < t->nnum; s++)
        t->sclass[s] = (uint8_t)sc;
    return 0;
}

/* A collective's root as a rank of its communicator (from either end). */
static int collective_root(const mc_extrap *x, const xgrid *g, const char *path, int r,
                           unsigned long long i, const mc_event *e, tev *t, mc_error *err)
{
    if (e->peer >= 0) {
        const cdesc *c = &x->cd[t->comm];
        int size = cdesc_size(c, g), kr = -1;
        for (int m = 0; m < size && kr < 0; m++)
            if (cdesc_member(c, g, r, m) == e->peer)
                kr = m;
        if (kr < 0)
            FAIL("%s: rank %d event %llu: %s root %d is not a member of the communicator",
                 path, r, i, OP_HERE(e), e->peer);
        t->peer[0].kind = kr == size - 1 && size > 1 ? PD_CROOT_END : PD_CROOT;
        t->peer[0].v[0] = kr == size - 1 && size > 1 ? 0 : kr;
    }
    t->peer[1].kind = PD_COMMSIZE;
    return 0;
}

/* A created communicator as a sub-grid (registered in cm); Comm_split's
 * colour and key as the grid indices they could be (a->colmask, keymask). */
static int created_comm(mc_extrap *x, const xgrid *g, const char *path, int r,
                        unsigned long long i, const mc_event *e, commmap *cm, aev *a,
                        mc_error *err)
{
    tev *t = &a->t;
    int n = extrap_members_count(e);
    int keep = extrap_find_keep(g, r, e->vals, n);
    if (keep < 0)
        FAIL("%s: rank %d event %llu: %s: the new communicator's members are not a row, "
             "column or plane of the %d-D process grid: not explained", path, r, i,
             OP_HERE(e), g->nd);
    if ((e->newcomm & 0xffffffffull) != (uint64_t)grid_sub_lowest(g, (unsigned)keep, r))
        FAIL("%s: rank %d event %llu: %s: communicator id %llx does not name its lowest "
             "member", path, r, i, OP_HERE(e), (unsigned long long)e->newcomm);
    cdesc c = {CD_GRID, (unsigned)keep, (uint32_t)(e->newcomm >> 32)};
    t->newcomm = cd_intern(x, &c);
    if (t->newcomm < 0 || cm_add(cm, e->newcomm, t->newcomm))
        FAIL("out of memory");
    t->cart = e->op == MC_OP_CART_CREATE || e->op == MC_OP_CART_SUB;
    t->peer[1].kind = PD_COMMSIZE; /* member count, regenerated */
    if (e->op == MC_OP_COMM_SPLIT) {
        a->colmask = 1u << SK_LIT;
        if (e->tag == grid_fixed_index(g, (unsigned)keep, r))
            a->colmask |= 1u << SK_FIXED_INDEX;
        a->keymask = 1u << SK_LIT;
        if (e->bytes == grid_sub_index(g, (unsigned)keep, r))
            a->keymask |= 1u << SK_KEPT_INDEX;
        if (e->bytes == r)
            a->keymask |= 1u << SK_WORLD_RANK;
    }
    return 0;
}

/* Collectives of one rank by communicator, in call order: the n-th
 * collective on a communicator is the same call on each of its members. */
typedef struct collidx {
    int built, ncomm;
    uint64_t *comm;
    uint32_t **ev, *n, *cap;
} collidx;

static void collidx_free(collidx *c)
{
    for (int j = 0; j < c->ncomm; j++)
        free(c->ev[j]);
    free(c->comm);
    free(c->ev);
    free(c->n);
    free(c->cap);
    memset(c, 0, sizeof *c);
}

/* The list of comm's collectives in c (added when new), or -1. */
static int collidx_slot(collidx *c, uint64_t comm)
{
    for (int j = 0; j < c->ncomm; j++)
        if (c->comm[j] == comm)
            return j;
    int m = c->ncomm + 1;
    uint64_t *cm = realloc(c->comm, (size_t)m * sizeof *cm);
    if (cm)
        c->comm = cm;
    uint32_t **ev = cm ? realloc(c->ev, (size_t)m * sizeof *ev) : NULL;
    if (ev)
        c->ev = ev;
    uint32_t *n = ev ? realloc(c->n, (size_t)m * sizeof *n) : NULL;
    if (n)
        c->n = n;
    uint32_t *cap = n ? realloc(c->cap, (size_t)m * sizeof *cap) : NULL;
    if (!cap)
        return -1;
    c->cap = cap;
    c->comm[c->ncomm] = comm, c->ev[c->ncomm] = NULL, c->n[c->ncomm] = c->cap[c->ncomm] = 0;
    return c->ncomm++;
}

static int collidx_build(collidx *c, const rawrank *rr)
{
    c->built = 1;
    for (uint32_t i = 0; i < rr->n; i++) {
        if (mc_op_kind_of(rr->ev[i].op) != MC_KIND_C)
            continue;
        int j = collidx_slot(c, rr->ev[i].comm);
        if (j < 0)
            return -1;
        if (c->n[j] == c->cap[j]) {
            uint32_t cap = c->cap[j] ? 2 * c->cap[j] : 16;
            uint32_t *a = realloc(c->ev[j], cap * sizeof *a);
            if (!a)
                return -1;
            c->ev[j] = a, c->cap[j] = cap;
        }
        c->ev[j][c->n[j]++] = i;
    }
    return 0;
}

static int is_rooted_v(int op)
{
    return op == MC_OP_GATHERV || op == MC_OP_IGATHERV || op == MC_OP_SCATTERV ||
           op == MC_OP_ISCATTERV;
}

/* The root's call of a Gatherv or Scatterv that non-root rank r makes as its
 * nth collective on e's communicator (its counts), or NULL. */
static const mc_event *root_call(xbuild *b, int k, collidx *idx, int r, const mc_event *e,
                                 uint32_t nth, int *oom)
{
    int q = e->peer;
    if (!is_rooted_v(e->op) || e->nvals || q < 0 || q == r || q >= b->x->tP[k])
        return NULL;
    if (!idx[q].built && collidx_build(&idx[q], &b->raw[k][q])) {
        *oom = 1;
        return NULL;
    }
    for (int j = 0; j < idx[q].ncomm; j++)
        if (idx[q].comm[j] == e->comm && nth < idx[q].n[j]) {
            const mc_event *re = &b->raw[k][q].ev[idx[q].ev[j][nth]];
            return re->op == e->op && re->nvals ? re : NULL;
        }
    return NULL;
}

/* Abstracts event e of rank r into a; registers created communicators. A
 * non-root's Gatherv or Scatterv takes the root's counts (root_ev), so
 * that its own share follows them. */
static int abstract_event(xbuild *b, int k, int r, uint32_t i, const mc_event *e, commmap *cm,
                          const mc_event *root_ev, aev *a, mc_error *err)
{
    mc_extrap *x = b->x;
    const xgrid *g = &x->tgrid[k];
    memset(a, 0, sizeof *a);
    mc_event withroot;
    if (root_ev) {
        withroot = *e;
        withroot.vals = root_ev->vals;
        withroot.nvals = root_ev->nvals;
        e = &withroot;
        a->t.vhide = 1;
    }
    if (abstract_literal(b, k, r, i, e, cm, &a->t, err))
        return -1;
    int wait = extrap_is_completion(e->op);
    uint32_t nreq = wait ? e->nvals / 4 : 0;
    unsigned long long no = extrap_event_no(b, k, r, i);
    if (literal_slots(x, g, x->paths[k], r, no, e, nreq, a, err))
        return -1;
    mc_op_kind kind = mc_op_kind_of(e->op);
    if (kind == MC_KIND_P) {
        a->pc[0] = peer_cand(g, r, e->peer);
        if (has_peer2(e->op))
            a->pc[1] = peer_cand(g, r, e->peer2);
    } else if (kind == MC_KIND_C) {
        return collective_root(x, g, x->paths[k], r, no, e, &a->t, err);
    } else if (wait) {
        for (uint32_t q = 0; q < nreq; q++)
            a->pc[2 + q] = peer_cand(g, r, (int32_t)e->vals[4 * q + 1]);
    } else if (extrap_is_creation(e->op) && e->newcomm != MC_COMM_NULL && e->nvals) {
        return created_comm(x, g, x->paths[k], r, no, e, cm, a, err);
    }
    return 0;
}

/* Abstracts rank r's events of trace k (idx: every rank's collectives,
 * built when a root is asked); 0 or -1 with err set. */
static int abstract_rank(xbuild *b, int k, int r, collidx *idx, mc_error *err)
{
    rawrank *rr = &b->raw[k][r];
    b->abs[k][r] = calloc(rr->n ? rr->n : 1, sizeof ***b->abs);
    if (!b->abs[k][r])
        FAIL("out of memory");
    commmap cm = {0};
    collidx mine = {0};
    int bad = 0, oom = 0;
    for (uint32_t i = 0; i < rr->n && !bad && !oom; i++) {
        const mc_event *e = &rr->ev[i], *root = NULL;
        if (mc_op_kind_of(e->op) == MC_KIND_C) { /* its place among comm's collectives */
            int j = collidx_slot(&mine, e->comm);
            if (j < 0)
                oom = 1;
            else
                root = root_call(b, k, idx, r, e, mine.n[j]++, &oom);
        }
        if (!oom)
            bad = abstract_event(b, k, r, i, e, &cm, root, &b->abs[k][r][i], err);
    }
    free(cm.id);
    free(cm.cd);
    collidx_free(&mine);
    if (oom)
        FAIL("out of memory");
    return bad ? -1 : 0;
}

mc_err extrap_abstract_trace(xbuild *b, int k, mc_error *err)
{
    int P = b->x->tP[k];
    b->abs[k] = calloc((size_t)P, sizeof **b->abs);
    collidx *idx = calloc((size_t)P, sizeof *idx);
    if (!b->abs[k] || !idx) {
        free(idx);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    int bad = 0;
    for (int r = 0; r < P && !bad; r++)
        bad = abstract_rank(b, k, r, idx, err);
    for (int q = 0; q < P; q++)
        collidx_free(&idx[q]);
    free(idx);
    return bad ? (err->code ? err->code : MC_ERR_USAGE) : MC_OK;
}
