/* Merging a position class across the traces: the same class must have the
 * same events in every trace, once the blocks repeated as often as P says
 * are compressed (repeat.c) and ambiguous peer offsets are decided by the
 * trace that tells them apart; each size is then fitted by a law of P (or
 * takes the stated rule), and the compute per rank's slope is measured. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ laws */

static int law_fits(int law, const double *v, const double *P, const double *c, int n, int d)
{
    if (n < 1)
        return 0; /* no trace has the class: nothing to fit */
    double a = v[0] / law_f(law, P[0], c[0], d);
    for (int i = 0; i < n; i++) {
        double want = a * law_f(law, P[i], c[i], d);
        if (fabs(want - v[i]) > 0.5 + 1e-9 * fabs(v[i]))
            return 0;
    }
    return 1;
}

/* The law stated for size class sc: AUTO where none is, and for size.p2p=fit
 * outside the data's slots (it fits only those: fit_laws). */
static int stated_law(const mc_extrap_rules *ru, int sc)
{
    return ru->law[sc] == MC_LAW_FIT && sc != MC_SC_COMPUTE ? MC_LAW_AUTO : ru->law[sc];
}

static int default_law(const mc_extrap_rules *ru, int sc)
{
    if (stated_law(ru, sc) != MC_LAW_AUTO)
        return ru->law[sc];
    static const int weak[MC_SC_COUNT] = {MC_LAW_CONST, MC_LAW_CONST, MC_LAW_INV_COMM,
                                          MC_LAW_CONST};
    static const int strong[MC_SC_COUNT] = {MC_LAW_SURFACE, MC_LAW_CONST,
                                            MC_LAW_VOLUME_PER_COMM, MC_LAW_VOLUME};
    return ru->strong ? strong[sc] : weak[sc];
}

/* The law the model of every trace chose for slot s of event i, when this
 * class's template is that model's event for event (op, site, slots). */
static int inherited_law(const xclass *I, const xclass *R, uint32_t i, uint32_t s)
{
    if (!I || I->n != R->n)
        return 0;
    const tev *a = &I->ev[i], *c = &R->ev[i];
    return a->e.op == c->e.op && a->e.site == c->e.site && a->nnum == c->nnum && s < a->nnum;
}

/* One block of a rebuilt class C (BC), its model's (BI of I). */
static void inherit_block_steps(const xrep *BI, const xclass *I, const xrep *BC, xclass *C)
{
    if (!C->present || BC->len != BI->len)
        return;
    uint32_t nr = BC->nruns >= 2 ? BC->nruns : 1;
    for (uint32_t j = 0; j < nr; j++) {
        uint32_t at = BC->nruns >= 2 ? BC->run[j] : BC->start;
        for (uint32_t i = 0; i < BC->len && at + i < C->n && BI->start + i < I->n; i++) {
            const tev *a = &I->ev[BI->start + i];
            tev *t = &C->ev[at + i];
            for (uint32_t s = 0; s < t->npeer && s < a->npeer; s++) {
                pdesc *p = &t->peer[s];
                if (a->peer[s].kind != PD_XOR || !a->peer[s].v[1] || p->xk < 0)
                    continue;
                memset(p->v, 0, sizeof p->v);
                p->kind = PD_XOR;
                p->v[0] = p->xk;
                p->v[1] = a->peer[s].v[1];
            }
            if (a->tmask && !t->tmask) { /* tags: one copy kept its own */
                t->tdir = a->tdir;
                t->tmask = a->tmask;
            }
            if (a->smask && !t->smask) { /* sizes likewise */
                t->sdir = a->sdir;
                t->smask = a->smask;
            }
        }
    }
}

/* A rebuild whose traces hold one copy of a repeated block cannot see a
 * partner rank XOR 2^(k0 + copy) advance from copy to copy; the model of
 * every trace saw it, and like the block itself it is taken as stated: the
 * slots it marks become that rule (k0 from the copy's own partner), in every
 * run's copy. A partner that is not XOR 2^k0 stays, and the check reports it. */
static void inherit_xor_steps(const xclass *I, xclass *per, int ntraces)
{
    for (int k = 0; k < ntraces; k++)
        for (int b = 0; b < per[k].nrep && b < I->nrep; b++)
            inherit_block_steps(&I->rep[b], I, &per[k].rep[b], &per[k]);
}

/* Offsets a and b are the same peers on grid g's dimensions `dims` (mod n). */
static int same_mod(const xgrid *g, uint32_t dims, const int32_t *a, const int32_t *b)
{
    for (int d = 0; d < g->nd; d++) {
        int n = g->dims[d];
        if ((dims >> d & 1u) ? (((a[d] - b[d]) % n) + n) % n != 0 : a[d] != b[d])
            return 0;
    }
    return 1;
}

/* A peer offset that is ambiguous in one trace (n/2 of a periodic dimension
 * of even n: 2x2x2 runs) is taken from a trace where it is not (or, in a
 * rebuild, from the model of every trace), if that offset gives the same
 * peers in the ambiguous trace; refused when no trace decides it. */
static int resolve_ambiguous(xbuild *b, xclass *per, int rep, const xclass *I, const char *cname,
                             mc_error *err)
{
    mc_extrap *x = b->x;
    xclass *R = &per[rep];
    for (uint32_t i = 0; i < R->n; i++)
        for (uint32_t s = 0; s < R->ev[i].npeer; s++) {
            const pdesc *good = NULL;
            for (int k = 0; k < x->ntraces && !good; k++) {
                const pdesc *q = per[k].present && per[k].n == R->n &&
                                         s < per[k].ev[i].npeer ? &per[k].ev[i].peer[s] : NULL;
                if (q && q->kind == PD_REL && !q->amb)
                    good = q;
            }
            if (!good && I && i < I->n && s < I->ev[i].npeer && I->ev[i].peer[s].kind == PD_REL)
                good = &I->ev[i].peer[s];
            for (int k = 0; k < x->ntraces; k++) {
                pdesc *q = per[k].present && per[k].n == R->n && s < per[k].ev[i].npeer
                               ? &per[k].ev[i].peer[s] : NULL;
                if (!q || q->kind != PD_REL || !q->amb)
                    continue;
                if (!good)
                    FAIL("%s: %s, event %u (%s): %s", x->paths[k], cname, i,
                         OPAT(x, k, &per[k].ev[i].e), EXTRAP_AMBIGUOUS);
                if (same_mod(&x->tgrid[k], q->amb, q->v, good->v)) {
                    memcpy(q->v, good->v, sizeof q->v);
                    q->amb = 0;
                }
            }
        }
    return 0;
}

/* ------------------------------------------------------------ merge */

/* Where the coarse levels go (depth.c): the same in every trace that shows
 * it (a class whose members did none in one trace takes another's). */
static int merge_levels(const mc_extrap *x, xclass *per, int rep, const char *cname,
                        mc_error *err)
{
    xclass *R = &per[rep];
    for (int k = 0; k < x->ntraces && !R->dknown; k++)
        if (per[k].present && per[k].dknown && per[k].n == R->n) {
            R->dpos = per[k].dpos;
            R->ndpos = per[k].ndpos;
            R->dknown = 1;
            per[k].dpos = NULL;
            per[k].ndpos = 0;
            per[k].dknown = 0;
        }
    for (int k = 0; k < x->ntraces; k++) {
        const xclass *C = &per[k];
        if (!C->present || !C->dknown || k == rep)
            continue;
        if (C->ndpos != R->ndpos || memcmp(C->dpos, R->dpos, C->ndpos * sizeof *C->dpos) != 0)
            FAIL("%s: its coarse levels come before event %u at P=%d, before event %u at P=%d: "
                 "not explained", cname, C->ndpos ? C->dpos[0] : 0, x->tP[k],
                 R->ndpos ? R->dpos[0] : 0, x->tP[rep]);
    }
    if (R->dknown && R->nrep)
        FAIL("%s: coarse levels and a block repeated as often as P says in one class: not "
             "explained", cname);
    return 0;
}

/* The trace of the most ranks that has the class (its template becomes the
 * model's), or -1; *ntr: the traces that have it. */
static int representative(const mc_extrap *x, const xclass *per, int *ntr)
{
    int rep = -1;
    *ntr = 0;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present) {
            (*ntr)++;
            if (rep < 0 || x->tP[k] > x->tP[rep])
                rep = k;
        }
    return rep;
}

static int same_loop_counts(const mc_extrap *x, const xclass *per, int rep, const char *cname,
                            mc_error *err)
{
    const xclass *R = &per[rep];
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && per[k].loop_n != R->loop_n)
            FAIL("%s: the main loop runs %llu iterations at P=%d, %llu at P=%d: a folded loop "
                 "is extrapolated only with the same count in every trace (trace runs of "
                 "equal iterations)", cname, (unsigned long long)per[k].loop_n, x->tP[k],
                 (unsigned long long)R->loop_n, x->tP[rep]);
    return 0;
}

/* Compresses the blocks repeated as often as P says to one copy each: the
 * stated ones, else those of the model of every trace (I, a rebuild), else
 * those found here. */
static int compress_repetitions(xbuild *b, int cls, xclass *per, int rep, const xclass *I,
                                const char *cname, mc_error *err)
{
    mc_extrap *x = b->x;
    xclass *R = &per[rep];
    if (x->rules.nrepeat && extrap_stated_repetition(x, per, cname, err))
        return -1;
    int inherit = I && !R->nrep; /* the model's blocks, in the order they were found */
    for (int j = 0; inherit && j < I->nrep; j++)
        if (extrap_apply_repetition(x, per, I->rep[j].found_at, I->rep[j].len, I->rep[j].law,
                                    &I->rep[j].fit, I->rep[j].nruns > 1, cname, err))
            return -1;
    if (I && I->nrep && R->nrep)
        inherit_xor_steps(I, per, x->ntraces);
    /* Blocks repeated as often as P says, one after the other, until the
     * traces' templates are alike (NPB CG: the sum's steps, then the dot
     * product's), unless stated or inherited. */
    for (int found = !R->nrep; found;) {
        int differ = 0;
        for (int k = 0; k < x->ntraces; k++)
            differ |= per[k].present && per[k].n != R->n;
        if (!differ)
            break;
        if (extrap_find_repetition(x, cls, per, cname, err))
            return -1;
    }
    return inherit ? 0 : extrap_find_fixed_loops(x, per, cname, err);
}

/* Event a of one trace is the representative's c, sizes aside. */
static int same_event(const tev *a, const tev *c)
{
    int same = a->e.op == c->e.op && a->e.site == c->e.site && a->comm == c->comm &&
               a->newcomm == c->newcomm && a->e.tag2 == c->e.tag2 &&
               (a->e.op == MC_OP_COMM_SPLIT || a->e.tag == c->e.tag) &&
               a->npeer == c->npeer && a->nnum == c->nnum && a->color == c->color &&
               a->key == c->key && a->loop == c->loop && a->tdir == c->tdir &&
               extrap_same_shares(a, c) &&
               a->tmask == c->tmask && a->sdir == c->sdir && a->smask == c->smask &&
               a->vhide == c->vhide;
    for (uint32_t s = 0; same && s < a->npeer; s++)
        same = a->peer[s].kind == c->peer[s].kind &&
               (a->peer[s].kind == PD_COMMSIZE ||
                memcmp(a->peer[s].v, c->peer[s].v, sizeof a->peer[s].v) == 0);
    return same;
}

static int same_events(const mc_extrap *x, const xclass *per, int rep, const char *cname,
                       mc_error *err)
{
    const xclass *R = &per[rep];
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present || k == rep)
            continue;
        if (per[k].n != R->n)
            FAIL("%s: %d events at P=%d, %d at P=%d: repetition counts that vary with P are "
                 "not explained (state the run's events per class, or trace runs with equal "
                 "iterations)", cname, per[k].n, x->tP[k], R->n, x->tP[rep]);
        for (uint32_t i = 0; i < R->n; i++) {
            const tev *a = &per[k].ev[i], *c = &R->ev[i];
            if (!same_event(a, c))
                FAIL("%s, event %u: %s at P=%d, %s at P=%d with another peer, tag or "
                     "communicator: the change with P is not explained", cname, i,
                     OPAT(x, k, &a->e), x->tP[k], OPAT(x, rep, &c->e), x->tP[rep]);
        }
    }
    return 0;
}

/* Reading j of array a of e: j = 0 its slots, j > 0 e->rd[j - 1]. */
static void array_reading(const tev *e, uint32_t a, uint32_t j, int64_t *u, int64_t *N,
                          uint8_t *mode)
{
    const int64_t *num = j ? e->rd[j - 1].num : e->num + 2;
    *u = num[a], *N = num[e->varr + a];
    *mode = j ? e->rd[j - 1].last[a] : e->vlast[a];
}

/* Items of array a of e read as items of u bytes dealt out in mode `mode`,
 * or -1 when its counts have no such reading. An equal array (c divides N)
 * fits every mode. */
static int64_t items_read(const tev *e, uint32_t a, int64_t u, uint8_t mode)
{
    if (e->vkind[a] != VK_BLOCK) {
        int64_t v = e->num[2 + a];
        return u > 0 && v % u == 0 ? extrap_mul(v / u, e->csize) : -1;
    }
    for (uint32_t j = 0; j <= e->nrd; j++) {
        int64_t uj, Nj;
        uint8_t mj;
        array_reading(e, a, j, &uj, &Nj, &mj);
        if (uj == u && mj == mode)
            return Nj;
    }
    return -1;
}

/* e's readings of array a: the ns of su/sm (item size, mode), the first in
 * its slots; N[j] the items of each. */
static int set_block_readings(tev *e, uint32_t a, const int64_t *su, const uint8_t *sm,
                              const int64_t *N, int ns)
{
    xread base;
    memset(&base, 0, sizeof base);
    memcpy(base.num, e->num + 2, 2 * e->varr * sizeof *e->num);
    memcpy(base.last, e->vlast, sizeof base.last);
    free(e->rd);
    e->rd = NULL, e->nrd = 0;
    if (ns > 1 && !(e->rd = malloc((size_t)(ns - 1) * sizeof *e->rd)))
        return -1;
    for (int j = 0; j < ns; j++) {
        xread *o = j ? &e->rd[j - 1] : &base;
        if (j)
            *o = base;
        o->num[a] = su[j], o->num[e->varr + a] = N[j], o->last[a] = sm[j];
    }
    e->nrd = (uint8_t)(ns - 1);
    e->num[2 + a] = base.num[a], e->num[2 + e->varr + a] = base.num[e->varr + a];
    e->vlast[a] = base.last[a];
    return 0;
}

/* Array a of event i as a block distribution in every trace once one trace
 * (or the model of every trace, I) has it so: a trace whose comm size
 * divides the items has one count for every rank, which is v / u items
 * each; the bytes that are the rank's own entry become it there too. The
 * readings (item size and distribution) that every trace's counts fit are
 * kept, the first in the slots; the target decides whether they part
 * (check_readings in gen.c). */
static int block_everywhere(const mc_extrap *x, xclass *per, const tev *ref, int refP,
                            uint32_t i, uint32_t a, const char *cname, mc_error *err)
{
    int64_t su[XREAD_MAX], u0, N0;
    uint8_t sm[XREAD_MAX], m0;
    int ns = 0, miss = -1;
    for (uint32_t j = 0; j <= ref->nrd && ns < XREAD_MAX; j++) {
        int64_t u, N;
        uint8_t m;
        array_reading(ref, a, j, &u, &N, &m);
        int k = 0;
        while (k < x->ntraces && (!per[k].present || items_read(&per[k].ev[i], a, u, m) >= 0))
            k++;
        if (k == x->ntraces)
            su[ns] = u, sm[ns++] = m;
        else if (miss < 0)
            miss = k;
    }
    array_reading(ref, a, 0, &u0, &N0, &m0);
    if (!ns) {
        const tev *e = &per[miss].ev[i];
        FAIL("%s, event %u (%s): array %u is %lld items of %lld bytes dealt out %s at P=%d "
             "(%s), and its counts at P=%d fit no reading the P=%d counts have (items of "
             "one size, dealt out one way): not explained", cname, i, OPAT(x, miss, &e->e),
             a + 1, (long long)N0, (long long)u0, extrap_dist_name(m0), refP,
             ref->nrd ? "or another reading" : "the only reading", x->tP[miss], refP);
    }
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present)
            continue;
        tev *e = &per[k].ev[i];
        if (e->vkind[a] == VK_BLOCK)
            for (int s = 0; s < 2; s++)
                if ((e->own[s] == a + 1) != (ref->own[s] == a + 1))
                    FAIL("%s, event %u (%s): the %s is the rank's own count at one P and "
                         "not at another: not explained", cname, i, OPAT(x, k, &e->e),
                         extrap_slot_name(e, (uint32_t)s));
        int64_t N[XREAD_MAX], v = e->num[2 + a];
        for (int j = 0; j < ns; j++)
            N[j] = items_read(e, a, su[j], sm[j]);
        for (int s = 0; s < 2 && e->vkind[a] != VK_BLOCK; s++) {
            if (ref->own[s] != a + 1)
                continue;
            if (e->num[s] != v)
                FAIL("%s, event %u (%s): %s %lld at P=%d is not the rank's own count %lld: "
                     "not explained", cname, i, OPAT(x, k, &e->e),
                     extrap_slot_name(e, (uint32_t)s), (long long)e->num[s], x->tP[k],
                     (long long)v);
            e->own[s] = (uint8_t)(a + 1);
            e->num[s] = 0;
            if (s == 0)
                e->e.bytes = 0;
            else
                e->e.bytes2 = 0;
        }
        e->vkind[a] = VK_BLOCK;
        if (set_block_readings(e, a, su, sm, N, ns))
            FAIL("out of memory");
    }
    return 0;
}

/* One of A, B, u of a transpose (slot s of event i) from every trace that
 * shows it (non-zero), the same in all; 0 when none does. A and B come
 * with the way they are dealt out (vlast[l], l >= 0). Says which trace
 * parts from the others when the traces' readings have none in common. */
static int xpose_known(const mc_extrap *x, const xclass *per, uint32_t i, uint32_t s, int l,
                       const char *what, const char *cname, int64_t *out, uint8_t *last,
                       mc_error *err)
{
    int at = 0;
    *out = 0;
    for (int k = 0; k < x->ntraces; k++) {
        const tev *e = &per[k].ev[i];
        if (!per[k].present || e->vkind[0] != VK_XPOSE || !e->num[s])
            continue;
        if (*out && e->num[s] != *out)
            FAIL("%s, event %u (%s): the transpose's %s is %lld at P=%d and %lld at P=%d: "
                 "only a fixed global size is extrapolated", cname, i, OPAT(x, k, &e->e),
                 what, (long long)*out, at, (long long)e->num[s], x->tP[k]);
        if (*out && l >= 0 && e->vlast[l] != *last)
            FAIL("%s, event %u (%s): the transpose's %s is dealt out %s at P=%d and %s at "
                 "P=%d: not explained", cname, i, OPAT(x, k, &e->e), what,
                 extrap_dist_name(*last), at, extrap_dist_name(e->vlast[l]), x->tP[k]);
        *out = e->num[s], at = x->tP[k];
        if (l >= 0)
            *last = e->vlast[l];
    }
    return 0;
}

/* A transpose's reading across traces: u, B and A (0: no trace shows it
 * yet) and how B and A are dealt out. */
typedef struct xglob {
    int64_t u, B, A;
    uint8_t lb, la;
} xglob;

static xglob xpose_reading(const tev *e, uint32_t j)
{
    const int64_t *num = j ? e->rd[j - 1].num : e->num + 2;
    const uint8_t *last = j ? e->rd[j - 1].last : e->vlast;
    return (xglob){num[0], num[2], num[3], num[2] ? last[0] : 0, num[3] ? last[1] : 0};
}

/* g and r merged into *m, or 0 when they differ where both know. */
static int xglob_merge(const xglob *g, const xglob *r, xglob *m)
{
    if ((g->u && r->u && g->u != r->u) || (g->B && r->B && (g->B != r->B || g->lb != r->lb)) ||
        (g->A && r->A && (g->A != r->A || g->la != r->la)))
        return 0;
    *m = (xglob){g->u ? g->u : r->u, g->B ? g->B : r->B, g->A ? g->A : r->A,
                 g->B ? g->lb : r->lb, g->A ? g->la : r->la};
    return 1;
}

/* The readings of the transpose that every trace's readings allow
 * (L[0 .. *nl)); refused with the first slot that parts when none does. */
static int xpose_common(const mc_extrap *x, const xclass *per, uint32_t i, const char *cname,
                        xglob *L, int *nl, mc_error *err)
{
    *nl = 1;
    L[0] = (xglob){0, 0, 0, 0, 0};
    for (int k = 0; k < x->ntraces; k++) {
        const tev *e = &per[k].ev[i];
        if (!per[k].present || e->vkind[0] != VK_XPOSE)
            continue;
        xglob M[XREAD_MAX];
        int nm = 0;
        for (int g = 0; g < *nl; g++)
            for (uint32_t j = 0; j <= e->nrd && nm < XREAD_MAX; j++) {
                xglob r = xpose_reading(e, j), m;
                int dup = 0;
                if (!xglob_merge(&L[g], &r, &m))
                    continue;
                for (int q = 0; q < nm && !dup; q++)
                    dup = !memcmp(&M[q], &m, sizeof m);
                if (!dup)
                    M[nm++] = m;
            }
        if (!nm) {
            int64_t v;
            uint8_t last;
            if (xpose_known(x, per, i, 2, -1, "item size", cname, &v, NULL, err) ||
                xpose_known(x, per, i, 4, 0, "number of columns", cname, &v, &last, err) ||
                xpose_known(x, per, i, 5, 1, "number of rows", cname, &v, &last, err))
                return -1;
            FAIL("%s, event %u (%s): the counts at P=%d fit no reading (item size, rows and "
                 "columns, how they are dealt out) that the other traces' counts fit: not "
                 "explained", cname, i, OPAT(x, k, &e->e), x->tP[k]);
        }
        memcpy(L, M, (size_t)nm * sizeof *M);
        *nl = nm;
    }
    return 0;
}

/* Whether trace k's counts are those of transpose g (u filled in from a
 * trace that shows one side when no trace shows it whole). */
static int xpose_fits(const mc_extrap *x, const xclass *per, uint32_t i, xglob *g, int *bad)
{
    for (int k = 0; k < x->ntraces && !g->u; k++) { /* u from a trace that shows one side */
        const tev *e = &per[k].ev[i];
        int64_t items = e->num[4] ? g->A : g->B, c = e->csize;
        if (per[k].present && e->vkind[0] == VK_XPOSE && e->num[3] && items % c == 0)
            g->u = e->num[3] / (items / c);
    }
    for (int k = 0; k < x->ntraces; k++) {
        const tev *e = &per[k].ev[i];
        int64_t c = e->csize, u = g->u, A = g->A, B = g->B;
        if (!per[k].present)
            continue;
        int ok = c > 0 && u > 0;
        if (ok && e->vkind[0] == VK_XPOSE && e->num[3]) /* one side shown */
            ok = e->num[4] ? A % c == 0 && e->num[3] == extrap_mul(u, A / c)
                           : B % c == 0 && e->num[3] == extrap_mul(u, B / c);
        else if (ok && e->vkind[0] != VK_XPOSE) /* both equal */
            ok = A % c == 0 && B % c == 0 &&
                 e->num[2] == extrap_mul(extrap_mul(u, A / c), B / c) && e->num[3] == e->num[2];
        if (!ok) {
            *bad = k;
            return 0;
        }
    }
    return 1;
}

/* An Alltoallv that transposes A x B items of u bytes in some trace (or in
 * the model of every trace, I): the same A, B and u in every trace, each
 * shown by at least one, and every trace's counts (one array or both equal
 * where the comm size divides) those of that transpose. The readings that
 * remain are kept, the first in the slots (check_readings in gen.c). */
static int transpose_everywhere(const mc_extrap *x, xclass *per, const xclass *I, uint32_t i,
                                const char *cname, mc_error *err)
{
    xglob L[XREAD_MAX], ok[XREAD_MAX], first;
    int nl, nok = 0, bad = -1;
    if (xpose_common(x, per, i, cname, L, &nl, err))
        return -1;
    for (int g = 0; g < nl && I && I->ev[i].vkind[0] == VK_XPOSE; g++) {
        const tev *m = &I->ev[i];
        L[g].u = L[g].u ? L[g].u : m->num[2];
        L[g].lb = L[g].B ? L[g].lb : m->vlast[0];
        L[g].la = L[g].A ? L[g].la : m->vlast[1];
        L[g].B = L[g].B ? L[g].B : m->num[4];
        L[g].A = L[g].A ? L[g].A : m->num[5];
    }
    int k0 = 0;
    while (k0 < x->ntraces - 1 && !per[k0].present)
        k0++;
    const char *op = per[k0].present ? OPAT(x, k0, &per[k0].ev[i].e) : "Alltoallv";
    if (!L[0].A || !L[0].B)
        FAIL("%s, event %u (%s): every traced comm size divides the transpose's number of "
             "%s, so no trace shows it: trace a process count that does not", cname, i, op,
             L[0].A ? "columns" : "rows");
    first = L[0];
    for (int g = 0; g < nl; g++) {
        int b = -1;
        if (xpose_fits(x, per, i, &L[g], &b))
            ok[nok++] = L[g];
        else if (bad < 0)
            bad = b, first = L[g];
    }
    if (!nok)
        FAIL("%s, event %u (%s): the counts at P=%d are not the transpose of %lld x %lld "
             "items of %lld bytes that %s: not explained", cname, i, op, x->tP[bad],
             (long long)first.A, (long long)first.B, (long long)first.u,
             first.u ? "the other traces show" : "the traces show (no item size)");
    for (int k = 0; k < x->ntraces; k++) {
        tev *e = &per[k].ev[i];
        if (!per[k].present)
            continue;
        free(e->rd);
        e->rd = NULL, e->nrd = 0;
        if (nok > 1 && !(e->rd = malloc((size_t)(nok - 1) * sizeof *e->rd)))
            FAIL("out of memory");
        for (int g = 1; g < nok; g++)
            e->rd[g - 1] = (xread){{ok[g].u, 0, ok[g].B, ok[g].A}, {ok[g].lb, ok[g].la}};
        e->nrd = (uint8_t)(nok - 1);
        e->vkind[0] = e->vkind[1] = VK_XPOSE;
        e->vlast[0] = ok[0].lb, e->vlast[1] = ok[0].la;
        e->num[2] = ok[0].u, e->num[3] = 0, e->num[4] = ok[0].B, e->num[5] = ok[0].A;
    }
    return 0;
}

/* Every per-rank-count array of the class's events the same kind in every
 * trace (block_everywhere, transpose_everywhere). */
static int same_array_kinds(const mc_extrap *x, xclass *per, int rep, const xclass *I,
                            const char *cname, mc_error *err)
{
    const xclass *R = &per[rep];
    for (uint32_t i = 0; i < R->n; i++) {
        int xpose = I && I->n == R->n && I->ev[i].e.op == R->ev[i].e.op &&
                    I->ev[i].vkind[0] == VK_XPOSE;
        for (int k = 0; k < x->ntraces && !xpose; k++)
            xpose = per[k].present && per[k].ev[i].vkind[0] == VK_XPOSE;
        if (xpose) {
            if (transpose_everywhere(x, per, I && I->n == R->n ? I : NULL, i, cname, err))
                return -1;
            continue;
        }
        for (uint32_t a = 0; a < R->ev[i].varr; a++) {
            const tev *ref = NULL;
            int refP = 0;
            for (int k = 0; k < x->ntraces && !ref; k++)
                if (per[k].present && per[k].ev[i].vkind[a] == VK_BLOCK)
                    ref = &per[k].ev[i], refP = x->tP[k];
            if (!ref && I && I->n == R->n && I->ev[i].e.op == R->ev[i].e.op &&
                I->ev[i].varr == R->ev[i].varr && I->ev[i].vkind[a] == VK_BLOCK)
                ref = &I->ev[i], refP = I->ev[i].baseP;
            if (ref && block_everywhere(x, per, ref, refP, i, a, cname, err))
                return -1;
        }
    }
    return 0;
}

/* The law of a per-rank-count array's slot s when none is inferred: a
 * block distribution keeps its item size and deals out a fixed number of
 * items (strong scaling) or one that grows with the communicator (weak;
 * a stated size law replaces either); a transpose keeps its global size;
 * -1 for any other slot. */
static int array_law(const mc_extrap_rules *ru, const tev *t, uint32_t s)
{
    if (!t->varr || s < 2)
        return -1;
    uint32_t a = s - 2 < t->varr ? s - 2 : s - 2 - t->varr;
    if (t->vkind[a] == VK_XPOSE) /* a fixed global size */
        return MC_LAW_CONST;
    if (t->vkind[a] != VK_BLOCK)
        return s - 2 < t->varr ? -1 : MC_LAW_CONST;
    return s - 2 < t->varr || ru->strong ? MC_LAW_CONST : MC_LAW_COMM;
}

/* Slot s of event i in every trace that has the class: values, P, communicator sizes. */
static int slot_values(const mc_extrap *x, const xclass *per, uint32_t i, uint32_t s,
                       double *v, double *P, double *c, int *k0)
{
    int n = 0;
    *k0 = -1;
    for (int k = 0; k < x->ntraces && n < 64; k++)
        if (per[k].present) {
            if (*k0 < 0)
                *k0 = k;
            v[n] = (double)per[k].ev[i].num[s];
            P[n] = x->tP[k];
            c[n] = (double)per[k].ev[i].csize;
            n++;
        }
    return n;
}

/* The first one-factor law that gives slot s's n traced values v (at P,
 * communicator sizes c) in every trace (-1: none); t->alt collects every law
 * that does. */
static int exact_law(const mc_extrap *x, tev *t, uint32_t s, const double *v, const double *P,
                     const double *c, int n)
{
    /* every law of docs/extrapolation.md; each is scaled on the
     * first trace and must reproduce every other one, which it was
     * not fitted on */
    static const int order[] = {MC_LAW_CONST, MC_LAW_P_PER_COMM, MC_LAW_INV_COMM,
                                MC_LAW_COMM, MC_LAW_P, MC_LAW_INV_P, MC_LAW_SURFACE,
                                MC_LAW_VOLUME, MC_LAW_VOLUME_PER_COMM, MC_LAW_LOG2P};
    int law = -1;
    for (size_t o = 0; o < sizeof order / sizeof *order; o++)
        if (law_fits(order[o], v, P, c, n, x->nd)) {
            if (law < 0)
                law = order[o];
            t->alt[s] |= (uint16_t)(1u << order[o]);
        }
    return law;
}

/* Number slot s of event t (event i of every trace's template): the first
 * law that fits every trace, else a model family that gives each to the byte. */
static int infer_law(const mc_extrap *x, const xclass *per, tev *t, uint32_t i, uint32_t s,
                     const char *cname, mc_error *err)
{
    double v[64], P[64], c[64];
    int k0, n = slot_values(x, per, i, s, v, P, c, &k0);
    int law = exact_law(x, t, s, v, P, c, n);
    if (law >= 0) {
        t->law[s] = (uint8_t)law;
        return 0;
    }
    mc_fit fit;
    int other, got = extrap_size_fit(v, P, n, &fit, &other);
    if (got < 0)
        FAIL("%s, event %u (%s): %s: the traces fit both %s and %s, which part at larger P: "
             "trace one more process count", cname, i, OPAT(x, k0, &t->e),
             extrap_slot_name(t, s), mc_family_name(fit.family), mc_family_name(other));
    if (got == 0)
        FAIL("%s, event %u (%s): %s %g at P=%g, %g at P=%g: no law (const, p/comm, "
             "1/comm, comm, p, 1/p, surface, volume, volume/comm, log2p) fits, nor a model "
             "family to the byte (three traces or more): not explained",
             cname, i, OPAT(x, k0, &t->e), extrap_slot_name(t, s), v[0],
             P[0], v[n - 1], P[n - 1]);
    if (extrap_set_fit(t, s, &fit))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    return 0;
}

/* Whether slot s of event i follows the data in some trace (tev.dmask). */
static int data_slot_anywhere(const mc_extrap *x, const xclass *per, uint32_t i, uint32_t s)
{
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && i < per[k].n && s < 32 && (per[k].ev[i].dmask >> s & 1u))
            return 1;
    return 0;
}

/* A leave-one-out rebuild takes the model's law of a data slot as stated
 * (it was judged on every trace). */
static int inherit_data_fit(const xclass *I, const xclass *R, tev *t, uint32_t i, uint32_t s,
                            const char *cname, mc_error *err)
{
    if (!inherited_law(I, R, i, s) || (I->ev[i].law[s] == MC_LAW_FIT && !I->ev[i].fit))
        FAIL("%s, event %u: %s has no law in the model of every trace: not explained",
             cname, i, extrap_slot_name(t, s));
    t->law[s] = I->ev[i].law[s];
    if (t->law[s] == MC_LAW_FIT && extrap_set_fit(t, s, &I->ev[i].fit[s]))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    return 0;
}

/* Slot s of R's event t as a data slot: its members' sizes, equal where it
 * did not differ in R's trace. 0, or -1 out of memory. */
static int data_column(const xclass *R, tev *t, uint32_t s)
{
    if (!t->dsz) {
        uint32_t nm = (uint32_t)R->dnrows;
        if (!(t->dsz = malloc((size_t)nm * t->nnum * sizeof *t->dsz)))
            return -1;
        for (uint32_t j = 0; j < nm; j++)
            memcpy(t->dsz + (size_t)j * t->nnum, t->num, t->nnum * sizeof *t->dsz);
        t->dnm = nm;
    }
    t->dmask |= 1u << s;
    return 0;
}

/* size.p2p=fit, slot s of R's event t (event i) alike on the members, yet
 * the data's sizes (a class of one rank): a one-factor law if one gives
 * every trace, else fitted and scaled like the data's from the traced value;
 * in a rebuild, as the model of every trace did. 1 when decided here, 0 when
 * left to the usual inference (a rebuild's slot the model inferred), -1 on
 * error. */
static int fit_like_data(const mc_extrap *x, const xclass *per, xclass *R, const xclass *I,
                         tev *t, uint32_t i, uint32_t s, const char *cname, mc_error *err)
{
    const tev *m = I && inherited_law(I, R, i, s) ? &I->ev[i] : NULL;
    if (I && !(m && m->law[s] == MC_LAW_FIT && m->dsz && s < 32 && (m->dmask >> s & 1u)))
        return 0;
    if (!I) {
        double v[64], P[64], c[64];
        int k0, n = slot_values(x, per, i, s, v, P, c, &k0);
        int law = exact_law(x, t, s, v, P, c, n);
        if (law >= 0) {
            t->law[s] = (uint8_t)law;
            return 1;
        }
    }
    if (R->dmidx && R->dnrows > 0 && data_column(R, t, s))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    if (m)
        return inherit_data_fit(I, R, t, i, s, cname, err) ? -1 : 1;
    return extrap_data_fit(x, per, t, i, s, cname, err) ? -1 : 1;
}

/* The law of every number slot of the representative's template R:
 * constant where nothing scales, the model's in a rebuild (I), the stated
 * or default one, else inferred from the traces (ntr of them). */
static int fit_laws(const mc_extrap *x, const xclass *per, xclass *R, int ntr, const xclass *I,
                    const char *cname, mc_error *err)
{
    for (uint32_t i = 0; i < R->n; i++) {
        tev *t = &R->ev[i];
        for (uint32_t s = 0; s < t->nnum; s++) {
            int sc = t->sclass[s];
            if (t->e.op == MC_OP_COMM_SPLIT || mc_op_kind_of(t->e.op) == MC_KIND_M ||
                (mc_op_kind_of(t->e.op) == MC_KIND_X && t->e.op != MC_OP_COMPUTE)) {
                t->law[s] = MC_LAW_CONST;
                continue;
            }
            int al = array_law(&x->rules, t, s);
            if (al >= 0 && (t->vkind[0] == VK_XPOSE || s < 2 + t->varr)) {
                t->law[s] = (uint8_t)al; /* a fixed size of the items dealt out */
                continue;
            }
            if (x->rules.data_sizes && data_slot_anywhere(x, per, i, s)) {
                /* sizes that follow the data: the stated, fitted or default
                 * law scales the representative's members' (no law
                 * reproduces them) */
                if (data_column(R, t, s))
                    return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
                if (x->rules.law[sc] == MC_LAW_FIT) {
                    if (I ? inherit_data_fit(I, R, t, i, s, cname, err)
                          : extrap_data_fit(x, per, t, i, s, cname, err))
                        return -1;
                    continue;
                }
                t->law[s] = (uint8_t)default_law(&x->rules, sc);
                continue;
            }
            if (x->rules.data_sizes && x->rules.law[sc] == MC_LAW_FIT && extrap_data_slot(t, s)) {
                int rc = fit_like_data(x, per, R, I, t, i, s, cname, err);
                if (rc < 0)
                    return -1;
                if (rc > 0)
                    continue;
            }
            if (stated_law(&x->rules, sc) == MC_LAW_AUTO && x->rules.infer &&
                inherited_law(I, R, i, s)) {
                t->law[s] = I->ev[i].law[s];
                if (t->law[s] == MC_LAW_FIT && extrap_set_fit(t, s, &I->ev[i].fit[s]))
                    return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
                continue;
            }
            if (stated_law(&x->rules, sc) != MC_LAW_AUTO || ntr < 2 || !x->rules.infer) {
                /* a stated size law applies to the number of items dealt out */
                if (stated_law(&x->rules, sc) != MC_LAW_AUTO)
                    al = -1;
                t->law[s] = (uint8_t)(al >= 0 ? al : default_law(&x->rules, sc));
                continue;
            }
            if (infer_law(x, per, t, i, s, cname, err))
                return -1;
        }
    }
    return 0;
}

/* Report how the compute per rank changed with P (log-log slope). */
static void burst_slope(const mc_extrap *x, const xclass *per, xclass *R)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int npts = 0;
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present)
            continue;
        double tot = 0;
        for (uint32_t i = 0; i < per[k].n; i++)
            tot += per[k].ev[i].e.burst > 0 ? (double)per[k].ev[i].e.burst : 0;
        if (tot <= 0)
            continue;
        double lx = log((double)x->tP[k]), ly = log(tot);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
        npts++;
    }
    if (npts >= 2 && npts * sxx - sx * sx > 1e-12) {
        R->burst_alpha = (npts * sxy - sx * sy) / (npts * sxx - sx * sx);
        R->burst_npts = npts;
    }
}

/* Same class in several traces: same events; fit every size. */
int extrap_merge_class(xbuild *b, int cls, xclass *per, mc_error *err)
{
    mc_extrap *x = b->x;
    char cname[96];
    extrap_class_str(x, cls, cname, sizeof cname);
    int ntr, rep = representative(x, per, &ntr);
    if (rep < 0)
        return 0;
    xclass *R = &per[rep];
    const xclass *I = b->inherit && b->inherit->cls[cls].present ? &b->inherit->cls[cls] : NULL;
    if (same_loop_counts(x, per, rep, cname, err) ||
        compress_repetitions(b, cls, per, rep, I, cname, err) ||
        merge_levels(x, per, rep, cname, err) || resolve_ambiguous(b, per, rep, I, cname, err) ||
        same_events(x, per, rep, cname, err) || same_array_kinds(x, per, rep, I, cname, err) ||
        fit_laws(x, per, R, ntr, I, cname, err))
        return -1;
    for (uint32_t i = 0; i < R->n; i++)
        R->ev[i].baseP = x->tP[rep];
    burst_slope(x, per, R);
    if (extrap_burst_fit(x, per, R, I, cname, err))
        return -1;
    x->cls[cls] = *R;
    x->cls[cls].burst_law = default_law(&x->rules, MC_SC_COMPUTE);
    memset(R, 0, sizeof *R);
    return 0;
}
