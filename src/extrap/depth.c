/* Coarse levels on fewer ranks (issue 20: a multigrid V-cycle's coarse
 * grids, NPB MG's shape). At coarse level j only the ranks whose grid
 * coordinates are multiples of 2^j take part, talking to partners 2^j away,
 * and the number of levels follows the grid (log2 of its smaller side): the
 * members of one position class then differ in their number of events, and
 * the set of ranks that do a level changes with P. No position class can
 * describe that, so the levels are taken out of every rank's events before
 * the classes are formed (each class keeps where they go) and described by
 * one rule on the divisibility of the coordinates (extrap_impl.h, xdepth):
 *
 *   1. the block: the events a rank with the most events has and a rank
 *      with the fewest lacks, cut into copies (one per level) whose tags
 *      move by a step and whose partners' offsets double or stay;
 *   2. every rank's runs of copies (one run per outer iteration);
 *   3. the rule: the dimensions whose coordinates count, the number of
 *      levels as a law of the grid, level 1's events with their sizes, tag
 *      steps and partner offsets, each checked on every copy of every rank
 *      of every trace (every rule that fits is kept: where two give other
 *      events at the target P, it is refused);
 *   4. the levels stripped from the events the classes see.
 *
 * A rebuild of the leave-one-out check takes the rule of the model of every
 * trace as stated (steps 1 and 3 inherited). What this file does not
 * recognise is left as it was, and the classes then name what differs. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_ANY 64 /* the valuation of a coordinate 0: every level */
#define MAXCAND 16   /* candidate offsets per dimension */

/* ------------------------------------------------------------ the rule */

static int log2_floor(int n)
{
    int l = 0;
    while (n >> (l + 1))
        l++;
    return l;
}

/* The smallest dimension of g among mask's. */
static int min_dim(const xgrid *g, unsigned mask)
{
    int m = 0;
    for (int d = 0; d < g->nd; d++)
        if ((mask >> d & 1u) && (!m || g->dims[d] < m))
            m = g->dims[d];
    return m ? m : 1;
}

static int cap_at(const xdepth *D, const xgrid *g, int law, int b)
{
    int c = law == XD_CAP_CONST ? b : log2_floor(min_dim(g, D->mask)) + b;
    return c > 0 ? c : 0;
}

/* The smallest 2-adic valuation of coordinates c along mask. */
static int coord_depth(const int *c, int nd, unsigned mask)
{
    int v = DEPTH_ANY;
    for (int d = 0; d < nd; d++)
        if ((mask >> d & 1u) && c[d]) {
            int z = __builtin_ctz((unsigned)c[d]);
            if (z < v)
                v = z;
        }
    return v;
}

static int levels_with(const xdepth *D, const xgrid *g, int r, int law, int b)
{
    int c[MAXD];
    grid_coords(g, r, c);
    int v = coord_depth(c, g->nd, D->mask), cap = cap_at(D, g, law, b);
    return v < cap ? v : cap;
}

int extrap_depth_levels(const mc_extrap *x, const xgrid *g, int r)
{
    const xdepth *D = &x->depth;
    return D->len ? levels_with(D, g, r, D->cap_law, D->cap_b) : 0;
}

/* The rank at offset v (doubled `copy` times if dbl) from coordinates c on
 * g; MC_NONE past a non-periodic border. */
static int32_t offset_peer(const xgrid *g, const int *c, const int32_t *v, int dbl, int copy)
{
    int cc[MAXD];
    for (int d = 0; d < g->nd; d++) {
        int64_t n = g->dims[d], o = (int64_t)v[d] * (dbl && copy < 40 ? (int64_t)1 << copy : 1);
        int64_t q = c[d] + o;
        if (q < 0 || q >= n) {
            if (!g->wrap[d])
                return MC_NONE;
            q = ((q % n) + n) % n;
        }
        cc[d] = (int)q;
    }
    return grid_rank(g, cc);
}

/* ------------------------------------------------------------ generation */

uint32_t extrap_depth_here(const mc_extrap *x, const xclass *C, uint32_t pos, int m)
{
    if (m <= 0 || !C->ndpos)
        return 0;
    uint32_t lo = 0, hi = C->ndpos; /* dpos is ascending */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (C->dpos[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < C->ndpos && C->dpos[lo] == pos ? (uint32_t)m * x->depth.len : 0;
}

void extrap_depth_event(const mc_extrap *x, uint32_t idx, tev *t, pdesc *pd)
{
    const xdepth *D = &x->depth;
    uint32_t j = idx % D->len;
    int copy = (int)(idx / D->len);
    *t = D->ev[j];
    for (uint32_t s = 0; s < t->npeer && s < 2; s++) {
        pd[s] = t->peer[s];
        const xdpeer *q = &D->peer[2 * j + s];
        if (q->nalt) {
            int64_t f = q->dbl[0] && copy < 40 ? (int64_t)1 << copy : 1;
            for (int d = 0; d < MAXD; d++)
                pd[s].v[d] = (int32_t)(q->v[0][d] * f);
        }
    }
    t->peer = pd;
    t->e.tag += extrap_depth_step(D->tfit[2 * j]) * copy;
    t->e.tag2 += extrap_depth_step(D->tfit[2 * j + 1]) * copy;
}

/* ------------------------------------------------------------ finding the block */

typedef struct dkey {
    int op;
    int32_t site;
    int comm;
} dkey;

/* The level block's first operation and call site, for messages. */
static const char *key_at_buf(const mc_extrap *x, int k, const dkey *K, char *buf, size_t len)
{
    mc_event e;
    mc_event_clear(&e);
    e.op = K->op;
    e.site = K->site;
    return extrap_op_at(x, k, &e, buf, len);
}
#define key_at(x, k, K) key_at_buf((x), (k), (K), (char[EXTRAP_OP_AT_MAX]){0}, EXTRAP_OP_AT_MAX)

static int key_is(const tev *t, const dkey *k)
{
    return t->e.op == k->op && t->e.site == k->site && t->comm == k->comm;
}

static int same_key(const tev *a, const tev *b)
{
    return a->e.op == b->e.op && a->e.site == b->e.site && a->comm == b->comm;
}

/* The first stretch of a (na events) that b (nb) lacks: 0 with *start and
 * *len, -1 when a is not b with events inserted there. */
static int first_insertion(const aev *a, uint32_t na, const aev *b, uint32_t nb,
                           uint32_t *start, uint32_t *len)
{
    uint32_t i = 0;
    while (i < na && i < nb && same_key(&a[i].t, &b[i].t))
        i++;
    if (i == na)
        return -1;
    for (uint32_t s = 1; i + s <= na; s++) {
        uint32_t w = 0; /* both agree again for 8 events, or to their ends */
        while (w < 8 && i + s + w < na && i + w < nb && same_key(&a[i + s + w].t, &b[i + w].t))
            w++;
        if (w == 8 || (i + s + w == na && i + w == nb)) {
            *start = i;
            *len = s;
            return 0;
        }
    }
    return -1;
}

/* Copy c of the block at A[start .. + L) is copy 0 one level on: the
 * same call, sizes and partner rule, tags moved by c steps. */
static int level_of(const xgrid *g, int r, const aev *A, uint32_t start, uint32_t L, uint32_t c)
{
    int co[MAXD];
    grid_coords(g, r, co);
    for (uint32_t j = 0; j < L; j++) {
        const aev *a = &A[start + j], *e = &A[start + c * L + j];
        if (!same_key(&a->t, &e->t) || a->t.e.bytes != e->t.e.bytes ||
            a->t.e.bytes2 != e->t.e.bytes2 || a->t.npeer != e->t.npeer)
            return 0;
        int64_t dt = (int64_t)e->t.e.tag - a->t.e.tag, dt2 = (int64_t)e->t.e.tag2 - a->t.e.tag2;
        if ((dt != 0 && dt != (int64_t)c && dt != -(int64_t)c) ||
            (dt2 != 0 && dt2 != (int64_t)c && dt2 != -(int64_t)c))
            return 0;
        for (uint32_t s = 0; s < a->t.npeer && s < 2; s++) {
            if (!a->pc[s].isrank)
                continue;
            int32_t q = e->pc[s].lit;
            if (q != offset_peer(g, co, a->pc[s].rel, 1, (int)c) &&
                q != offset_peer(g, co, a->pc[s].rel, 0, (int)c))
                return 0;
        }
    }
    return 1;
}

/* The shortest period of the inserted stretch A[start .. + len) of rank r
 * under which it is copies of one level (0: none). */
static uint32_t level_length(const xgrid *g, int r, const aev *A, uint32_t start, uint32_t len)
{
    for (uint32_t L = 1; L <= len; L++) {
        if (len % L)
            continue;
        int ok = 1;
        for (uint32_t c = 1; c < len / L && ok; c++)
            ok = level_of(g, r, A, start, L, c);
        if (ok)
            return L;
    }
    return 0;
}

/* Ranks with the most and the fewest events of trace k. */
static void extreme_ranks(const xbuild *b, int k, int *most, int *fewest)
{
    *most = *fewest = 0;
    for (int r = 1; r < b->x->tP[k]; r++) {
        if (b->raw[k][r].n > b->raw[k][*most].n)
            *most = r;
        if (b->raw[k][r].n < b->raw[k][*fewest].n)
            *fewest = r;
    }
}

/* Level 1's calls (keys, *L of them) from the largest trace whose ranks
 * differ in their number of events; *kk, *z: that trace and its rank with
 * the most. 0 when found. */
static int find_keys(const xbuild *b, dkey **K, uint32_t *L, int *kk, int *z)
{
    const mc_extrap *x = b->x;
    *kk = -1;
    for (int k = 0; k < x->ntraces; k++) {
        int most, fewest;
        extreme_ranks(b, k, &most, &fewest);
        if (b->raw[k][most].n != b->raw[k][fewest].n && (*kk < 0 || x->tP[k] > x->tP[*kk])) {
            *kk = k;
            *z = most;
        }
    }
    if (*kk < 0)
        return -1;
    int most, fewest;
    extreme_ranks(b, *kk, &most, &fewest);
    const aev *A = b->abs[*kk][most], *B = b->abs[*kk][fewest];
    uint32_t start, len;
    if (first_insertion(A, b->raw[*kk][most].n, B, b->raw[*kk][fewest].n, &start, &len))
        return -1;
    *L = level_length(&x->tgrid[*kk], most, A, start, len);
    if (!*L || !(*K = calloc(*L, sizeof **K)))
        return -1;
    for (uint32_t j = 0; j < *L; j++)
        (*K)[j] = (dkey){A[start + j].t.e.op, A[start + j].t.e.site, A[start + j].t.comm};
    return 0;
}

/* Level 1's calls of an inherited rule, their communicators as this
 * build numbers them; -1 when a communicator is unknown here. */
static int inherited_keys(const xbuild *b, dkey **K, uint32_t *L)
{
    const xdepth *I = &b->inherit->depth;
    const mc_extrap *x = b->x;
    *L = I->len;
    if (!(*K = calloc(*L, sizeof **K)))
        return -1;
    for (uint32_t j = 0; j < *L; j++) {
        const cdesc *c = &b->inherit->cd[I->ev[j].comm];
        int comm = -1;
        for (int i = 0; i < x->ncd && comm < 0; i++)
            if (x->cd[i].kind == c->kind && x->cd[i].keep == c->keep && x->cd[i].seq == c->seq)
                comm = i;
        if (comm < 0) {
            free(*K);
            return -1;
        }
        (*K)[j] = (dkey){I->ev[j].e.op, I->ev[j].e.site, comm};
    }
    return 0;
}

/* ------------------------------------------------------------ runs per rank */

static uint32_t copies_at(const aev *A, uint32_t n, uint32_t i, const dkey *K, uint32_t L)
{
    uint32_t c = 0;
    for (;; c++) {
        if (i + (c + 1) * L > n)
            return c;
        for (uint32_t j = 0; j < L; j++)
            if (!key_is(&A[i + c * L + j].t, &K[j]))
                return c;
    }
}

static int add_run(xdrank *d, uint32_t at, uint32_t pos)
{
    uint32_t *a = realloc(d->at, (d->nruns + 1) * sizeof *a);
    if (a)
        d->at = a;
    uint32_t *p = realloc(d->pos, (d->nruns + 1) * sizeof *p);
    if (p)
        d->pos = p;
    if (!a || !p)
        return -1;
    d->at[d->nruns] = at;
    d->pos[d->nruns++] = pos;
    return 0;
}

/* The runs of level copies in rank r of trace k. */
static int scan_rank(const xbuild *b, int k, int r, const dkey *K, uint32_t L, xdrank *d,
                     mc_error *err)
{
    const aev *A = b->abs[k][r];
    uint32_t n = b->raw[k][r].n, stripped = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t c = copies_at(A, n, i, K, L);
        if (!c) {
            i++;
            stripped++;
            continue;
        }
        if (d->nruns && (int)c != d->m)
            FAIL("%s: rank %d: coarse levels (event %u on, %s): %d levels in one run, %u in "
                 "another: not explained", b->x->paths[k], r, i, key_at(b->x, k, &K[0]), d->m,
                 c);
        if (add_run(d, i, stripped))
            FAIL("out of memory");
        d->m = (int)c;
        i += c * L;
    }
    d->known = d->nruns > 0;
    return 0;
}

/* A rank without levels does the events of a rank with levels without
 * them (ref, its runs): then its levels would go where ref's do. */
static int place_like(const xbuild *b, int k, int r, const xdrank *ref, int refr, uint32_t L,
                      xdrank *d)
{
    const aev *A = b->abs[k][r], *R = b->abs[k][refr];
    uint32_t n = b->raw[k][r].n, nr = b->raw[k][refr].n;
    if (n + (uint64_t)ref->nruns * (uint32_t)ref->m * L != nr)
        return 0;
    uint32_t i = 0, q = 0;
    for (uint32_t e = 0; e < nr;) {
        if (q < ref->nruns && e == ref->at[q]) {
            e += (uint32_t)ref->m * L;
            q++;
            continue;
        }
        if (!same_key(&A[i++].t, &R[e++].t))
            return 0;
    }
    for (q = 0; q < ref->nruns; q++)
        if (add_run(d, 0, ref->pos[q]))
            return -1;
    free(d->at);
    d->at = NULL;
    d->known = 1;
    return 0;
}

static int scan_all(xbuild *b, const dkey *K, uint32_t L, mc_error *err)
{
    mc_extrap *x = b->x;
    if (!(b->drank = calloc((size_t)x->ntraces, sizeof *b->drank)))
        FAIL("out of memory");
    for (int k = 0; k < x->ntraces; k++) {
        if (!(b->drank[k] = calloc((size_t)x->tP[k], sizeof **b->drank)))
            FAIL("out of memory");
        int ref = -1;
        for (int r = 0; r < x->tP[k]; r++) {
            if (scan_rank(b, k, r, K, L, &b->drank[k][r], err))
                return -1;
            if (b->drank[k][r].m > 0 && (ref < 0 || b->drank[k][r].m > b->drank[k][ref].m))
                ref = r;
        }
        for (int r = 0; ref >= 0 && r < x->tP[k]; r++) {
            xdrank *d = &b->drank[k][r];
            if (d->nruns && d->nruns != b->drank[k][ref].nruns)
                FAIL("%s: rank %d does coarse levels (%s) in %u runs, rank %d in %u: not "
                     "explained", x->paths[k], r, key_at(x, k, &K[0]), d->nruns, ref,
                     b->drank[k][ref].nruns);
            if (!d->nruns && place_like(b, k, r, &b->drank[k][ref], ref, L, d))
                FAIL("out of memory");
        }
    }
    return 0;
}

/* ------------------------------------------------------------ inferring the rule */

/* Every rank's number of levels is min(its coordinates' valuation along
 * mask, the trace's most): 1, with each trace's most in cap[]. */
static int mask_fits(const xbuild *b, unsigned mask, int *cap)
{
    const mc_extrap *x = b->x;
    xdepth D = {.mask = mask};
    for (int k = 0; k < x->ntraces; k++) {
        cap[k] = 0;
        for (int r = 0; r < x->tP[k]; r++)
            if (b->drank[k][r].m > cap[k])
                cap[k] = b->drank[k][r].m;
        for (int r = 0; r < x->tP[k]; r++)
            if (levels_with(&D, &x->tgrid[k], r, XD_CAP_CONST, cap[k]) != b->drank[k][r].m)
                return 0;
    }
    return 1;
}

/* cap(P) = law + b on every trace (b from the first). */
static int cap_fits(const xbuild *b, xdepth *D, int law, const int *cap, int *bo)
{
    const mc_extrap *x = b->x;
    *bo = law == XD_CAP_CONST ? cap[0] : cap[0] - log2_floor(min_dim(&x->tgrid[0], D->mask));
    for (int k = 0; k < x->ntraces; k++)
        if (cap_at(D, &x->tgrid[k], law, *bo) != cap[k])
            return 0;
    return 1;
}

static int infer_count(xbuild *b, int kk, int z, mc_error *err)
{
    mc_extrap *x = b->x;
    xdepth *D = &x->depth;
    int cap[64];
    unsigned mask = (1u << x->nd) - 1;
    while (mask && !mask_fits(b, mask, cap))
        mask--;
    if (!mask)
        FAIL("%s: coarse levels (rank %d, event %u on): the ranks that do them are not those "
             "whose grid coordinates are multiples of 2^level: not explained", x->paths[kk], z,
             b->drank[kk][z].at[0]);
    D->mask = mask;
    int b0, b1;
    int f0 = cap_fits(b, D, XD_CAP_LOG2MIN, cap, &b0), f1 = cap_fits(b, D, XD_CAP_CONST, cap, &b1);
    if (!f0 && !f1)
        FAIL("%s: coarse levels (rank %d, event %u on): %d levels at P=%d, %d at P=%d: neither "
             "log2 of the grid's smaller dimension nor a constant: not explained", x->paths[kk],
             z, b->drank[kk][z].at[0], cap[0], x->tP[0], cap[x->ntraces - 1],
             x->tP[x->ntraces - 1]);
    D->cap_law = f0 ? XD_CAP_LOG2MIN : XD_CAP_CONST;
    D->cap_b = f0 ? b0 : b1;
    D->alt_law = f0 && f1 ? XD_CAP_CONST : -1;
    D->alt_b = b1;
    return 0;
}

/* Calls back fn(ctx, k, r, c, ev) for event j of copy c of every run of
 * every rank of every trace with levels; stops at fn's nonzero. */
typedef int (*obs_fn)(void *ctx, const xbuild *b, int k, int r, int c, const aev *a);
static int each_obs(const xbuild *b, uint32_t j, obs_fn fn, void *ctx)
{
    const mc_extrap *x = b->x;
    for (int k = 0; k < x->ntraces; k++)
        for (int r = 0; r < x->tP[k]; r++) {
            const xdrank *d = &b->drank[k][r];
            for (uint32_t q = 0; q < d->nruns && d->at; q++)
                for (int c = 0; c < d->m; c++) {
                    int rc = fn(ctx, b, k, r, c, &b->abs[k][r][d->at[q] + (uint32_t)c * x->depth.len + j]);
                    if (rc)
                        return rc;
                }
        }
    return 0;
}

/* Level 1's event j, checked on every copy: literals, sizes, tags. */
typedef struct lit_ctx {
    xdepth *D;
    uint32_t j;
    mc_error *err;
} lit_ctx;

static int check_literal(void *ctx, const xbuild *b, int k, int r, int c, const aev *a)
{
    lit_ctx *l = ctx;
    mc_error *err = l->err;
    const tev *t = &l->D->ev[l->j], *e = &a->t;
    uint32_t i = (uint32_t)(a - b->abs[k][r]);
    const char *path = b->x->paths[k];
#define OPSTR OPAT(b->x, k, &e->e) /* formatted only for a message */
    if (e->newcomm >= 0 || e->e.nvals || e->e.req || extrap_is_completion(e->e.op) ||
        e->varr || e->nnum != t->nnum || e->npeer != t->npeer || e->e.op == MC_OP_COMM_SPLIT)
        FAIL("%s: rank %d event %u (%s): a coarse level with requests, values or new "
             "communicators: not explained", path, r, i, OPSTR);
    for (uint32_t s = 0; s < e->nnum; s++)
        if (e->num[s] != t->num[s])
            FAIL("%s: rank %d event %u (%s): level %d's %s is %lld, level 1's on rank %d of "
                 "%s %lld: sizes that change with the level or the rank are not explained",
                 path, r, i, OPSTR, c + 1, extrap_slot_name(e, s), (long long)e->num[s],
                 l->D->obs_rank, b->x->paths[l->D->obs_trace], (long long)t->num[s]);
    for (uint32_t s = 2; s < e->npeer; s++)
        if (memcmp(&e->peer[s], &t->peer[s], sizeof e->peer[s]) != 0)
            FAIL("%s: rank %d event %u (%s): not explained", path, r, i, OPSTR);
    int32_t got[2] = {e->e.tag, e->e.tag2}, t0[2] = {t->e.tag, t->e.tag2};
    for (int q = 0; q < 2; q++) {
        int64_t d = (int64_t)got[q] - t0[q];
        uint8_t fit = (uint8_t)((d == 0) | (d == c) << 1 | (d == -c) << 2);
        l->D->tfit[2 * l->j + (uint32_t)q] &= fit;
        if (!l->D->tfit[2 * l->j + (uint32_t)q])
            FAIL("%s: rank %d event %u (%s): level %d's %s %d is not level 1's %d moved by a "
                 "step per level: not explained", path, r, i, OPSTR, c + 1,
                 q ? "receive tag" : "tag",
                 got[q], t0[q]);
    }
    return 0;
#undef OPSTR
}

/* Candidate level-1 offsets of peer slot s of event j, per dimension. */
typedef struct cand_ctx {
    uint32_t s;
    int n[MAXD];
    int32_t v[MAXD][MAXCAND];
    int32_t lit;
    int anyrank;
} cand_ctx;

static void add_cand(cand_ctx *cc, int d, int32_t v)
{
    for (int i = 0; i < cc->n[d]; i++)
        if (cc->v[d][i] == v)
            return;
    if (cc->n[d] < MAXCAND)
        cc->v[d][cc->n[d]++] = v;
}

static int collect_cand(void *ctx, const xbuild *b, int k, int r, int c, const aev *a)
{
    cand_ctx *cc = ctx;
    const pcand *p = &a->pc[cc->s];
    (void)r;
    cc->lit = p->lit;
    if (c || !p->isrank)
        return 0;
    cc->anyrank = 1;
    const xgrid *g = &b->x->tgrid[k];
    for (int d = 0; d < g->nd; d++) {
        add_cand(cc, d, p->rel[d]); /* and -n/2 for +n/2 on a periodic dimension */
        if (p->ambd >> d & 1u)
            add_cand(cc, d, -p->rel[d]);
    }
    return 0;
}

/* Sorts candidates nearest first, + before -: the first rule that fits is
 * the simplest. */
static int cand_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    int32_t aa = a < 0 ? -a : a, ab = b < 0 ? -b : b;
    return aa != ab ? (aa > ab) - (aa < ab) : (a < b) - (a > b);
}

typedef struct fit_ctx {
    uint32_t s;
    int32_t v[MAXD];
    int dbl;
} fit_ctx;

static int peer_misfits(void *ctx, const xbuild *b, int k, int r, int c, const aev *a)
{
    const fit_ctx *f = ctx;
    int co[MAXD];
    grid_coords(&b->x->tgrid[k], r, co);
    return a->pc[f->s].lit != offset_peer(&b->x->tgrid[k], co, f->v, f->dbl, c);
}

/* Every offset rule of peer slot s of event j that fits every copy. */
static int infer_peer(xbuild *b, uint32_t j, uint32_t s, mc_error *err)
{
    mc_extrap *x = b->x;
    xdepth *D = &x->depth;
    xdpeer *q = &D->peer[2 * j + s];
    cand_ctx cc = {.s = s};
    each_obs(b, j, collect_cand, &cc);
    if (!cc.anyrank) { /* MPI_PROC_NULL everywhere: a literal, checked by the traces */
        D->ev[j].peer[s].kind = PD_LIT;
        D->ev[j].peer[s].v[0] = cc.lit;
        return 0;
    }
    for (int d = 0; d < x->nd; d++)
        qsort(cc.v[d], (size_t)cc.n[d], sizeof cc.v[d][0], cand_cmp);
    for (int dbl = 1; dbl >= 0; dbl--) {
        int idx[MAXD] = {0};
        for (;;) {
            fit_ctx f = {.s = s, .dbl = dbl};
            for (int d = 0; d < x->nd; d++)
                f.v[d] = cc.v[d][idx[d]];
            if (!each_obs(b, j, peer_misfits, &f) && q->nalt < XD_MAXALT) {
                memcpy(q->v[q->nalt], f.v, sizeof f.v);
                q->dbl[q->nalt++] = (uint8_t)dbl;
            }
            int d = 0;
            while (d < x->nd && ++idx[d] == cc.n[d])
                idx[d++] = 0;
            if (d == x->nd)
                break;
        }
    }
    if (!q->nalt)
        FAIL("%s: rank %d event %u (%s): a coarse level's %s is at no grid offset that doubles "
             "(or stays) from level to level: not explained", x->paths[D->obs_trace],
             D->obs_rank, D->obs_index + j, OPAT(x, D->obs_trace, &D->ev[j].e),
             s ? "source" : "partner");
    pdesc *p = &D->ev[j].peer[s];
    memset(p, 0, sizeof *p);
    p->kind = PD_REL;
    p->xk = -1;
    memcpy(p->v, q->v[0], sizeof p->v);
    return 0;
}

/* Level 1's events (from rank z of trace kk) and their rules. */
static int infer_events(xbuild *b, int kk, int z, uint32_t L, mc_error *err)
{
    mc_extrap *x = b->x;
    xdepth *D = &x->depth;
    D->len = L;
    D->obs_trace = kk;
    D->obs_rank = z;
    D->obs_index = b->drank[kk][z].at[0];
    D->nruns = b->drank[kk][z].nruns;
    D->ev = calloc(L, sizeof *D->ev);
    D->peer = calloc(2 * L, sizeof *D->peer);
    D->tfit = malloc(2 * L);
    if (!D->ev || !D->peer || !D->tfit)
        FAIL("out of memory");
    memset(D->tfit, 7, 2 * L);
    for (uint32_t j = 0; j < L; j++) {
        if (extrap_tev_copy(&D->ev[j], &b->abs[kk][z][D->obs_index + j].t))
            FAIL("out of memory");
        tev *t = &D->ev[j];
        t->baseP = x->tP[kk];
        for (uint32_t s = 0; s < t->nnum; s++) {
            t->law[s] = MC_LAW_CONST;
            t->alt[s] = 0;
        }
        lit_ctx l = {D, j, err};
        if (each_obs(b, j, check_literal, &l))
            return -1;
        for (uint32_t s = 0; s < t->npeer && s < 2; s++)
            if (t->peer[s].kind == PD_LIT && infer_peer(b, j, s, err))
                return -1;
    }
    return 0;
}

/* The rule of the model of every trace, taken as stated (a rebuild). */
static int inherit_rule(xbuild *b, const dkey *K, mc_error *err)
{
    const xdepth *I = &b->inherit->depth;
    xdepth *D = &b->x->depth;
    *D = *I;
    D->ev = calloc(I->len, sizeof *D->ev);
    D->peer = malloc(2 * I->len * sizeof *D->peer);
    D->tfit = malloc(2 * I->len);
    if (!D->ev || !D->peer || !D->tfit)
        FAIL("out of memory");
    memcpy(D->peer, I->peer, 2 * I->len * sizeof *D->peer);
    memcpy(D->tfit, I->tfit, 2 * I->len);
    D->obs_trace = 0;
    for (uint32_t j = 0; j < I->len; j++) {
        if (extrap_tev_copy(&D->ev[j], &I->ev[j]))
            FAIL("out of memory");
        D->ev[j].comm = K[j].comm;
    }
    return 0;
}

/* ------------------------------------------------------------ stripping */

static int strip_rank(xbuild *b, int k, int r, mc_error *err)
{
    const xdrank *d = &b->drank[k][r];
    rawrank *rr = &b->raw[k][r];
    uint32_t cut = d->at ? d->nruns * (uint32_t)d->m * b->x->depth.len : 0, n = rr->n - cut;
    rawrank s = {calloc(n ? n : 1, sizeof *s.ev), n, n};
    aev *A = calloc(n ? n : 1, sizeof *A);
    if (!s.ev || !A) {
        free(s.ev);
        free(A);
        FAIL("out of memory");
    }
    uint32_t o = 0, q = 0;
    for (uint32_t i = 0; i < rr->n; i++) {
        if (cut && q < d->nruns && i == d->at[q]) {
            uint32_t end = i + (uint32_t)d->m * b->x->depth.len;
            for (; i < end; i++) {
                extrap_tev_free(&b->abs[k][r][i].t);
                free(b->abs[k][r][i].pc);
            }
            i--;
            q++;
            continue;
        }
        s.ev[o] = rr->ev[i]; /* the values stay the full copy's */
        A[o++] = b->abs[k][r][i];
    }
    free(b->abs[k][r]);
    b->abs[k][r] = A;
    b->full[k][r] = *rr;
    *rr = s;
    return 0;
}

static int strip_all(xbuild *b, mc_error *err)
{
    mc_extrap *x = b->x;
    if (!(b->full = calloc((size_t)x->ntraces, sizeof *b->full)))
        FAIL("out of memory");
    for (int k = 0; k < x->ntraces; k++) {
        if (!(b->full[k] = calloc((size_t)x->tP[k], sizeof **b->full)))
            FAIL("out of memory");
        for (int r = 0; r < x->tP[k]; r++)
            if (strip_rank(b, k, r, err))
                return -1;
    }
    return 0;
}

/* Some position class of some trace has members with other numbers of
 * events (or a rebuild inherits levels): worth looking for levels. */
static int classes_differ(const xbuild *b)
{
    const mc_extrap *x = b->x;
    for (int k = 0; k < x->ntraces; k++) {
        uint32_t n[NCLASSES];
        int seen[NCLASSES] = {0};
        for (int r = 0; r < x->tP[k]; r++) {
            int c = r ? grid_class(&x->tgrid[k], r) : ORIGIN;
            if (seen[c] && n[c] != b->raw[k][r].n)
                return 1;
            seen[c] = 1;
            n[c] = b->raw[k][r].n;
        }
    }
    return 0;
}

int extrap_depth_find(xbuild *b, mc_error *err)
{
    mc_extrap *x = b->x;
    int inherit = b->inherit && b->inherit->depth.len;
    if (x->rules.replicate || (!inherit && !classes_differ(b)))
        return 0;
    dkey *K = NULL;
    uint32_t L = 0;
    int kk = -1, z = -1;
    if (inherit ? inherited_keys(b, &K, &L) : find_keys(b, &K, &L, &kk, &z))
        return 0; /* no levels recognised: the classes say what differs */
    int rc;
    if (inherit) {
        rc = scan_all(b, K, L, err) || inherit_rule(b, K, err) ? -1 : 0;
    } else {
        x->depth.len = L;
        if (scan_all(b, K, L, err) || !b->drank[kk][z].nruns || infer_count(b, kk, z, err)) {
            /* not levels as this rule knows them: the classes say what differs */
            memset(err, 0, sizeof *err);
            free(K);
            extrap_depth_free_build(b);
            memset(&x->depth, 0, sizeof x->depth);
            return 0;
        }
        rc = infer_events(b, kk, z, L, err);
    }
    if (!rc)
        rc = strip_all(b, err);
    free(K);
    return rc;
}

/* ------------------------------------------------------------ classes */

int extrap_depth_class(const xbuild *b, int k, const int *mem, int nm, xclass *out,
                       const char *cname, mc_error *err)
{
    const xdrank *ref = NULL;
    int refr = -1;
    for (int j = 0; b->drank && j < nm; j++) {
        const xdrank *d = &b->drank[k][mem[j]];
        if (!d->known)
            continue;
        if (!ref) {
            ref = d;
            refr = mem[j];
        } else if (d->nruns != ref->nruns ||
                   memcmp(d->pos, ref->pos, d->nruns * sizeof *d->pos) != 0) {
            FAIL("%s: %s: rank %d does its coarse levels before its event %u, rank %d before "
                 "its event %u: not explained", b->x->paths[k], cname, refr,
                 ref->nruns ? ref->pos[0] : 0, mem[j], d->nruns ? d->pos[0] : 0);
        }
    }
    if (!ref)
        return 0;
    out->dpos = malloc((ref->nruns ? ref->nruns : 1) * sizeof *out->dpos);
    if (!out->dpos)
        FAIL("out of memory");
    memcpy(out->dpos, ref->pos, ref->nruns * sizeof *out->dpos);
    out->ndpos = ref->nruns;
    out->dknown = 1;
    return 0;
}

/* ------------------------------------------------------------ the target */

static const char *cap_name(int law)
{
    return law == XD_CAP_CONST ? "a constant" : "log2 of the grid's smaller dimension";
}

/* Two offset rules give the same partners at every level below `levels`
 * of grid g. */
static int same_partners(const xgrid *g, const int32_t *a, int da, const int32_t *c, int dc,
                         int levels)
{
    for (int l = 0; l < levels && l < 40; l++)
        for (int d = 0; d < g->nd; d++) {
            int64_t oa = (int64_t)a[d] * (da ? (int64_t)1 << l : 1);
            int64_t oc = (int64_t)c[d] * (dc ? (int64_t)1 << l : 1);
            int64_t n = g->dims[d];
            if (g->wrap[d] ? ((oa - oc) % n + n) % n != 0 : oa != oc)
                return 0;
        }
    return 1;
}

static void offset_str(const int32_t *v, int nd, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < nd && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%+d", d ? "," : "", v[d]);
    if (o < len)
        snprintf(buf + o, len - o, ")");
}

/* The rules that fit the traces agree on every level at g. */
static mc_err check_alternatives(const mc_extrap *x, const xgrid *g, int cap, mc_error *err)
{
    const xdepth *D = &x->depth;
    const char *path = x->paths[D->obs_trace];
    for (uint32_t j = 0; j < D->len; j++) {
#define OPSTR OPAT(x, D->obs_trace, &D->ev[j].e) /* formatted only for a message */
        for (int q = 0; q < 2 && cap >= 2; q++) {
            uint8_t f = D->tfit[2 * j + (uint32_t)q];
            if (f & (f - 1))
                return mc_error_set(err, MC_ERR_USAGE, "%s: rank %d event %u (%s): coarse "
                                    "levels: no traced rank does two, so the traces cannot tell "
                                    "how its %s moves from level to level, and P=%d has %d: "
                                    "trace a larger process count", path, D->obs_rank,
                                    D->obs_index + j, OPSTR, q ? "receive tag" : "tag", g->P,
                                    cap);
        }
        for (uint32_t s = 0; s < 2; s++) {
            const xdpeer *p = &D->peer[2 * j + s];
            for (int a = 1; a < p->nalt; a++) {
                if (same_partners(g, p->v[0], p->dbl[0], p->v[a], p->dbl[a], cap))
                    continue;
                char o0[64], o1[64];
                offset_str(p->v[0], g->nd, o0, sizeof o0);
                offset_str(p->v[a], g->nd, o1, sizeof o1);
                return mc_error_set(err, MC_ERR_USAGE, "%s: rank %d event %u (%s): coarse "
                                    "level 1's %s fits both offset %s%s and %s%s on the traced "
                                    "grids (+n/2 = -n/2 there), which give other partners at "
                                    "P=%d: trace a process count whose grid tells them apart",
                                    path, D->obs_rank, D->obs_index + j, OPSTR,
                                    s ? "source" : "partner", o0,
                                    p->dbl[0] ? " doubled per level" : "", o1,
                                    p->dbl[a] ? " doubled per level" : "", g->P);
            }
        }
    }
    return MC_OK;
#undef OPSTR
}

/* Every partner of a coarse level must do that level too. On a grid side
 * that is not a power of two, an offset of 2^j wraps onto a rank whose
 * coordinate is no multiple of 2^j (6 columns: column 4 + 4 is column 2),
 * and a pseudo-trace whose message nobody receives cannot be right. */
static mc_err partners_active(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    const xdepth *D = &x->depth;
    for (int r = 0; r < g->P; r++) {
        int m = extrap_depth_levels(x, g, r), c[MAXD];
        if (m <= 0)
            continue;
        grid_coords(g, r, c);
        for (int copy = 0; copy < m; copy++)
            for (uint32_t j = 0; j < D->len; j++)
                for (uint32_t s = 0; s < 2 && s < D->ev[j].npeer; s++) {
                    const xdpeer *q = &D->peer[2 * j + s];
                    int32_t p = q->nalt ? offset_peer(g, c, q->v[0], q->dbl[0], copy) : MC_NONE;
                    if (p == MC_NONE || extrap_depth_levels(x, g, p) > copy)
                        continue;
                    return mc_error_set(err, MC_ERR_USAGE, "rank %d: coarse level %d's %s "
                                        "is rank %d, which does not do level %d at P=%d (a grid "
                                        "side that is not a multiple of 2^%d): not extrapolated "
                                        "there", r, copy + 1, s ? "source" : "partner", p,
                                        copy + 1, g->P, copy + 1);
                }
    }
    return MC_OK;
}

mc_err extrap_depth_check(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    const xdepth *D = &x->depth;
    if (!D->len)
        return MC_OK;
    const char *path = x->paths[D->obs_trace];
    int cap = cap_at(D, g, D->cap_law, D->cap_b);
    if (D->alt_law >= 0 && cap_at(D, g, D->alt_law, D->alt_b) != cap)
        return mc_error_set(err, MC_ERR_USAGE, "%s: rank %d event %u (%s): the numbers of "
                            "coarse levels traced fit both %s and %s, which give %d and %d "
                            "levels at P=%d: trace one more process count", path, D->obs_rank,
                            D->obs_index, OPAT(x, D->obs_trace, &D->ev[0].e),
                            cap_name(D->cap_law),
                            cap_name(D->alt_law), cap, cap_at(D, g, D->alt_law, D->alt_b),
                            g->P);
    if (check_alternatives(x, g, cap, err) || partners_active(x, g, err))
        return err->code;
    for (int r = 0; r < g->P && cap > 0; r++) {
        int m = extrap_depth_levels(x, g, r), c = m > 0 ? extrap_class_for(x, g, r) : -1;
        if (m <= 0 || c < 0 || x->cls[c].dknown)
            continue;
        char cname[96];
        extrap_class_str(x, c, cname, sizeof cname);
        return mc_error_set(err, MC_ERR_USAGE, "rank %d (%s) has %d coarse levels at P=%d, "
                            "but no traced rank of its class showed where they go: trace a "
                            "run where ranks of that class do coarse levels", r, cname, m, g->P);
    }
    return MC_OK;
}

/* ------------------------------------------------------------ explain */

/* "+2^j", "-2^(j+1)", "+3 x 2^(j-1)", "+1" for an offset of level j. */
static void level_offset_str(int32_t v, int dbl, char *buf, size_t len)
{
    int32_t a = v < 0 ? -v : v;
    char sign = v < 0 ? '-' : '+';
    if (!v || !dbl)
        snprintf(buf, len, "%+d", v);
    else if ((a & (a - 1)) == 0) {
        int e = __builtin_ctz((unsigned)a) - 1;
        if (e == 0)
            snprintf(buf, len, "%c2^j", sign);
        else
            snprintf(buf, len, "%c2^(j%+d)", sign, e);
    } else {
        snprintf(buf, len, "%+d x 2^(j-1)", v);
    }
}

static void peer_rule_str(const mc_extrap *x, const xdpeer *p, const pdesc *pd, char *buf,
                          size_t len)
{
    if (!p->nalt) {
        snprintf(buf, len, pd->kind == PD_LIT && pd->v[0] == MC_NONE ? "none" : "as traced");
        return;
    }
    size_t o = (size_t)snprintf(buf, len, "offset (");
    for (int d = 0; d < x->nd && o < len; d++) {
        char s[32];
        level_offset_str(p->v[0][d], p->dbl[0], s, sizeof s);
        o += (size_t)snprintf(buf + o, len - o, "%s%s", d ? "," : "", s);
    }
    if (o < len)
        snprintf(buf + o, len - o, ")%s", p->nalt > 1 ? " (other offsets fit the traces too)"
                                                      : "");
}

static void dims_of(const mc_extrap *x, unsigned mask, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int d = 0; d < x->nd && o < len; d++)
        if (mask >> d & 1u)
            o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "", d);
}

static void tag_str(int32_t t0, uint8_t fit, char *buf, size_t len)
{
    int st = extrap_depth_step(fit);
    if (fit & (fit - 1))
        snprintf(buf, len, "%d (its step per level untold)", t0);
    else if (!st)
        snprintf(buf, len, "%d", t0);
    else
        snprintf(buf, len, "%d %c j", t0 - st, st > 0 ? '+' : '-');
}

/* Every rank partner of level j is 2^j away along one dimension. */
static int partners_2j(const xdepth *D, int nd)
{
    for (uint32_t k = 0; k < 2 * D->len; k++) {
        const xdpeer *p = &D->peer[k];
        for (int d = 0; p->nalt && d < nd; d++)
            if (p->v[0][d] && (!p->dbl[0] || (p->v[0][d] != 2 && p->v[0][d] != -2)))
                return 0;
    }
    return 1;
}

void extrap_depth_explain(const mc_extrap *x, FILE *out)
{
    const xdepth *D = &x->depth;
    if (!D->len)
        return;
    char dims[32], count[64];
    dims_of(x, D->mask, dims, sizeof dims);
    if (D->cap_law == XD_CAP_CONST)
        snprintf(count, sizeof count, "%d", D->cap_b);
    else if (D->cap_b)
        snprintf(count, sizeof count, "log2 min(dims %s) %+d", dims, D->cap_b);
    else
        snprintf(count, sizeof count, "log2 min(dims %s)", dims);
    fprintf(out, "\ncoarse levels: ranks whose grid coordinates (dims %s) are multiples of 2^j, "
            "j = 1 .. %s, %s (level 1: %s rank %d, events %u..%u)\n", dims, count,
            partners_2j(D, x->nd) ? "partners 2^j away" : "partners below",
            x->paths[D->obs_trace], D->obs_rank, D->obs_index, D->obs_index + D->len - 1);
    if (D->alt_law >= 0)
        fprintf(out, "  the traced numbers of levels fit %s too (the target must agree)\n",
                cap_name(D->alt_law));
    if (D->nruns)
        fprintf(out, "  %u run%s per rank (one per outer iteration)\n", D->nruns,
                D->nruns > 1 ? "s" : "");
    for (int k = 0; k < x->ntraces; k++) {
        int n = cap_at(D, &x->tgrid[k], D->cap_law, D->cap_b);
        fprintf(out, "  trace %s: %d level%s\n", x->paths[k], n, n == 1 ? "" : "s");
    }
    for (uint32_t j = 0; j < D->len; j++) {
        const tev *t = &D->ev[j];
        char p0[128], p1[128], t0[64], t1[64];
        peer_rule_str(x, &D->peer[2 * j], &t->peer[0], p0, sizeof p0);
        peer_rule_str(x, &D->peer[2 * j + 1], &t->peer[1], p1, sizeof p1);
        tag_str(t->e.tag, D->tfit[2 * j], t0, sizeof t0);
        tag_str(t->e.tag2, D->tfit[2 * j + 1], t1, sizeof t1);
        if (t->npeer >= 2 && t->e.op == MC_OP_SENDRECV)
            fprintf(out, "  level j: %-12s peer %s, source %s, tag %s, receive tag %s, sizes "
                    "const\n", mc_op_name(t->e.op), p0, p1, t0, t1);
        else
            fprintf(out, "  level j: %-12s peer %s, tag %s, sizes const\n", mc_op_name(t->e.op),
                    p0, t0);
    }
}

/* ------------------------------------------------------------ freeing */

void extrap_depth_free(xdepth *d)
{
    for (uint32_t j = 0; d->ev && j < d->len; j++)
        extrap_tev_free(&d->ev[j]);
    free(d->ev);
    free(d->peer);
    free(d->tfit);
    memset(d, 0, sizeof *d);
}

void extrap_depth_free_build(xbuild *b)
{
    const mc_extrap *x = b->x;
    for (int k = 0; b->drank && k < x->ntraces; k++) {
        for (int r = 0; b->drank[k] && r < x->tP[k]; r++) {
            free(b->drank[k][r].pos);
            free(b->drank[k][r].at);
        }
        free(b->drank[k]);
    }
    free(b->drank);
    b->drank = NULL;
}
