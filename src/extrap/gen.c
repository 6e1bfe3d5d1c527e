/* Generating the events of a P-rank run from the model: one event of rank r
 * from its class template (extrap_gen), the streaming source, the writer of
 * a pseudo-trace directory and the --explain text.
 *
 * Memory of the source: O(P) small per-rank state (class, position, clock,
 * a values buffer used only by completions) plus the member lists of the
 * communicators being created, shared by their members and freed once every
 * member has read them. Events are never stored: each is computed from the
 * template when the consumer asks for it. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ one event */

static int64_t scale(int64_t v, int law, const tev *t, const xgrid *g, int64_t ct, int nd)
{
    if (v == 0 || law == MC_LAW_CONST || law == MC_LAW_AUTO)
        return v;
    double f = law_f(law, g->P, (double)ct, nd) / law_f(law, t->baseP, (double)t->csize, nd);
    double r = (double)v * f;
    if (r > 9e18)
        r = 9e18;
    return llround(r);
}

/* Number slot s of t at grid g: its law, then (t->smask) doubled or halved
 * once per copy; a halving that leaves a fraction sets *inexact. */
static int64_t scale_slot(const tev *t, uint32_t s, const xgrid *g, int64_t ct, int nd,
                          int *inexact)
{
    int64_t v = t->law[s] == MC_LAW_FIT ? extrap_fit_size(t, s, g->P)
                                         : scale(t->num[s], t->law[s], t, g, ct, nd);
    if (s >= 32 || !(t->smask >> s & 1u) || !t->copy)
        return v;
    uint32_t c = t->copy < 62 ? t->copy : 62;
    if (t->sdir > 0)
        return v < (INT64_MAX >> c) ? v << c : INT64_MAX;
    if (v & (((int64_t)1 << c) - 1))
        *inexact = 1;
    return v >> c;
}

/* Rule `sizes data`: coordinate c along d of the target grid g as a
 * coordinate of the traced grid tg, in a tiling of it: modulo the traced size
 * where every position is alike, else the borders stay borders and the
 * interior tiles the traced interior; -1 when tg has no such position. */
static int data_coord(const mc_extrap *x, const xgrid *tg, const xgrid *g, int d, int c)
{
    int n0 = tg->dims[d], n = g->dims[d];
    if (x->homogeneous[d])
        return c % n0;
    if (c == 0)
        return 0;
    if (c == n - 1)
        return n0 - 1;
    return n0 >= 3 ? 1 + (c - 1) % (n0 - 2) : -1;
}

/* The traced rank at target coordinates c (data_coord), or -1. */
static int data_rank(const mc_extrap *x, const xgrid *tg, const xgrid *g, const int *c)
{
    int m[MAXD];
    for (int d = 0; d < g->nd; d++)
        if ((m[d] = data_coord(x, tg, g, d, c[d])) < 0)
            return -1;
    return grid_rank(tg, m);
}

/* Whether number slot s of t is a received size, whose peer slot s names
 * the sender. */
static int received_slot(const tev *t, uint32_t s)
{
    if (s >= 2)
        return 1; /* a completion's received bytes */
    if (mc_op_has(t->e.op, MC_OPF_SENDRECV))
        return s == 1;
    return s == 0 && !mc_op_has(t->e.op, MC_OPF_SEND | MC_OPF_SEND_INIT);
}

/* The member of class C whose traced sizes rank r (coordinates c) takes for
 * slot s of t: the traced rank at its place in the tiling; for a received
 * size from a grid offset, the traced rank that received from the sender's
 * place, so that a receive takes the size its sender sends (across a seam
 * of the tiling too); any member when the traced grid has no such rank. */
static uint32_t data_member(const mc_extrap *x, const xclass *C, const xgrid *g, int r,
                            const int *c, const tev *t, uint32_t s)
{
    const xgrid *tg = &x->tgrid[C->trace];
    int q = data_rank(x, tg, g, c);
    int32_t j = q >= 0 ? C->dmidx[q] : -1;
    const pdesc *p = s < t->npeer ? &t->peer[s] : NULL;
    if (p && p->kind == PD_REL && received_slot(t, s)) {
        int cs[MAXD], ok = 1;
        for (int d = 0; d < g->nd && ok; d++) {
            int n = g->dims[d];
            cs[d] = c[d] + p->v[d];
            if (cs[d] < 0 || cs[d] >= n)
                cs[d] = g->wrap[d] ? ((cs[d] % n) + n) % n : (ok = 0);
        }
        int ps = ok ? data_rank(x, tg, g, cs) : -1, m[MAXD];
        if (ps >= 0) {
            grid_coords(tg, ps, m);
            for (int d = 0; d < tg->nd && ok; d++) {
                int n0 = tg->dims[d];
                m[d] -= p->v[d];
                if (m[d] < 0 || m[d] >= n0)
                    m[d] = tg->wrap[d] ? ((m[d] % n0) + n0) % n0 : (ok = 0);
            }
            int32_t js = ok ? C->dmidx[grid_rank(tg, m)] : -1;
            if (js >= 0)
                j = js;
        }
    }
    return j >= 0 ? (uint32_t)j : (uint32_t)r % t->dnm;
}

/* A point-to-point or completion slot at rank r (coordinates c): its block
 * share where it has one (share.c), its traced member's size where it
 * follows the data, else its law. */
static int64_t p2p_slot(const mc_extrap *x, const xclass *C, const tev *t, uint32_t s,
                        const xgrid *g, int r, const int *c, int64_t ct, int *inexact)
{
    if (t->share && s < t->nnum && t->share[s] >= 0)
        return extrap_share_size(x, t->share[s], g, c);
    if (t->dsz && s < 32 && (t->dmask >> s & 1u)) {
        int64_t v = t->dsz[(size_t)data_member(x, C, g, r, c, t, s) * t->nnum + s];
        return t->law[s] == MC_LAW_FIT ? extrap_fit_rescale(t, s, v, g->P)
                                       : scale(v, t->law[s], t, g, ct, x->nd);
    }
    return scale_slot(t, s, g, ct, x->nd, inexact);
}

/* c: r's grid coordinates, computed once per event by the caller (the
 * divisions of grid_coords were a tenth of a million-rank replay's
 * generator cost when every peer and communicator recomputed them). */
static int32_t apply_peer(const mc_extrap *x, const xgrid *g, int r, const int *c, const tev *t,
                          const pdesc *p)
{
    switch (p->kind) {
    case PD_REL: {
        int cc[MAXD];
        for (int d = 0; d < g->nd; d++) {
            int n = g->dims[d];
            cc[d] = c[d] + p->v[d];
            if (cc[d] >= 0 && cc[d] < n)
                continue;
            if (!g->wrap[d])
                return MC_NONE;
            cc[d] = ((cc[d] % n) + n) % n;
        }
        return grid_rank(g, cc);
    }
    case PD_ABS: return p->v[0] < g->P ? p->v[0] : MC_NONE;
    case PD_ABS_END: return g->P - 1 - p->v[0] >= 0 ? g->P - 1 - p->v[0] : MC_NONE;
    case PD_CROOT:
    case PD_CROOT_END: {
        const cdesc *cd = &x->cd[t->comm];
        int size = cdesc_size(cd, g);
        int k = p->kind == PD_CROOT ? p->v[0] : size - 1 - p->v[0];
        return k >= 0 && k < size ? cdesc_member(cd, g, r, k) : MC_NONE;
    }
    case PD_COMMSIZE: return cdesc_size(&x->cd[t->comm], g);
    case PD_NPB_TRANSPOSE: {
        int q = extrap_npb_transpose(r, g->P);
        return q >= 0 ? q : MC_NONE; /* P not a power of two: refused beforehand */
    }
    case PD_XOR: {
        int k = p->v[0] + extrap_copy_pos(p->v[1], t->copy, t->ncopies);
        int32_t q = k >= 0 && k < 31 ? r ^ (1 << k) : -1;
        return q >= 0 && q < g->P ? q : MC_NONE; /* out of range: refused beforehand */
    }
    default: return p->v[0];
    }
}

static int grow(genbuf *vb, uint32_t n)
{
    if (n <= vb->cap)
        return 0;
    uint32_t cap = vb->cap ? vb->cap : 8;
    while (cap < n)
        cap *= 2;
    int64_t *v = realloc(vb->v, cap * sizeof *v);
    if (!v)
        return -1;
    vb->v = v;
    vb->cap = cap;
    return 0;
}

mc_err extrap_comm_vals(const mc_extrap *x, const xgrid *g, int r, const tev *t, genbuf *vb,
                        uint32_t *n, mc_error *err)
{
    const cdesc *cd = &x->cd[t->newcomm];
    int size = cdesc_size(cd, g), kept = 0;
    for (int d = 0; d < g->nd; d++)
        kept += (cd->keep >> d) & 1u;
    uint32_t total = (uint32_t)size + (t->cart ? 1u + 2u * (uint32_t)kept : 0u);
    if (grow(vb, total))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory for a communicator of %d ranks",
                            size);
    for (int k = 0; k < size; k++)
        vb->v[k] = cdesc_member(cd, g, r, k);
    if (t->cart) {
        uint32_t o = (uint32_t)size;
        vb->v[o++] = kept;
        for (int d = 0; d < g->nd; d++)
            if (cd->keep & (1u << d))
                vb->v[o++] = g->dims[d];
        for (int d = 0; d < g->nd; d++)
            if (cd->keep & (1u << d))
                vb->v[o++] = x->periodic[d];
    }
    *n = total;
    return MC_OK;
}

mc_err extrap_gen(const mc_extrap *x, const xgrid *g, int r, const tev *t, const xclass *C,
                  int64_t t_prev_end, mc_event *out, genbuf *vb, const int64_t *shared_vals,
                  mc_error *err)
{
    *out = t->e;
    int c[MAXD];
    grid_coords(g, r, c);
    const cdesc *cd = &x->cd[t->comm];
    int64_t ct = cdesc_size(cd, g);
    out->comm = cdesc_id_at(cd, g, r, c);
    int op = t->e.op;
    int wait = mc_op_has(op, MC_OPF_COMPLETION) && t->e.nvals, inexact = 0;
    if (t->newcomm >= 0) {
        const cdesc *nc = &x->cd[t->newcomm];
        out->newcomm = cdesc_id_at(nc, g, r, c);
        int size = cdesc_size(nc, g);
        out->peer2 = size;
        if (shared_vals) {
            int kept = 0;
            for (int d = 0; d < g->nd; d++)
                kept += (nc->keep >> d) & 1u;
            out->vals = (int64_t *)shared_vals;
            out->nvals = (uint32_t)size + (t->cart ? 1u + 2u * (uint32_t)kept : 0u);
        } else {
            mc_err rc = extrap_comm_vals(x, g, r, t, vb, &out->nvals, err);
            if (rc)
                return rc;
            out->vals = vb->v;
        }
        if (op == MC_OP_COMM_SPLIT) {
            if (t->color == SK_FIXED_INDEX)
                out->tag = grid_fixed_index(g, nc->keep, r);
            if (t->key == SK_KEPT_INDEX)
                out->bytes = grid_sub_index(g, nc->keep, r);
            else if (t->key == SK_WORLD_RANK)
                out->bytes = r;
        }
    } else if (wait) {
        if (grow(vb, t->e.nvals))
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        memcpy(vb->v, t->e.vals, t->e.nvals * sizeof *vb->v);
        int pos = extrap_copy_pos(t->tdir, t->copy, t->ncopies);
        for (uint32_t q = 0; q < t->e.nvals / 4; q++) {
            vb->v[4 * q + 1] = apply_peer(x, g, r, c, t, &t->peer[2 + q]);
            vb->v[4 * q + 3] = p2p_slot(x, C, t, 2 + q, g, r, c, ct, &inexact);
            if (q < 31 && (t->tmask >> (q + 1) & 1u)) /* the step's tag */
                vb->v[4 * q + 2] += pos;
        }
        out->vals = vb->v;
    } else if (t->varr) {
        /* per-rank counts: one count per comm rank, or N items dealt out */
        uint32_t n = t->varr * (uint32_t)ct;
        if (ct > UINT32_MAX / 2 || grow(vb, n))
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory for %lld per-rank counts",
                                (long long)ct);
        if (t->vkind[0] == VK_XPOSE) { /* A x B items from blocks of rows to columns */
            int64_t u = scale_slot(t, 2, g, ct, x->nd, &inexact);
            int64_t B = scale_slot(t, 4, g, ct, x->nd, &inexact);
            int64_t A = scale_slot(t, 5, g, ct, x->nd, &inexact);
            int64_t me = cdesc_rank(cd, g, r);
            int64_t rows = extrap_mul(u, extrap_share(A, ct, me, t->vlast[1]));
            int64_t cols = extrap_mul(u, extrap_share(B, ct, me, t->vlast[0]));
            for (uint32_t k = 0; k < (uint32_t)ct; k++) {
                vb->v[k] = extrap_mul(rows, extrap_share(B, ct, k, t->vlast[0]));
                vb->v[ct + k] = extrap_mul(cols, extrap_share(A, ct, k, t->vlast[1]));
            }
        }
        for (uint32_t a = 0; a < t->varr && t->vkind[0] != VK_XPOSE; a++) {
            int64_t v = scale_slot(t, 2 + a, g, ct, x->nd, &inexact), N = 0;
            if (t->vkind[a] == VK_BLOCK)
                N = scale_slot(t, 2 + t->varr + a, g, ct, x->nd, &inexact);
            int64_t *arr = vb->v + a * (uint32_t)ct;
            for (uint32_t k = 0; k < (uint32_t)ct; k++)
                arr[k] = t->vkind[a] == VK_BLOCK
                             ? extrap_mul(v, extrap_share(N, ct, k, t->vlast[a]))
                             : v;
        }
        out->vals = t->vhide ? NULL : vb->v; /* a non-root's: for its own entry */
        out->nvals = t->vhide ? 0 : n;
    }
    if (t->tmask & 1u)
        out->tag = t->e.tag + extrap_copy_pos(t->tdir, t->copy, t->ncopies);
    if (t->newcomm < 0) {
        out->peer = apply_peer(x, g, r, c, t, &t->peer[0]);
        out->peer2 = apply_peer(x, g, r, c, t, &t->peer[1]);
        out->bytes = p2p_slot(x, C, t, 0, g, r, c, ct, &inexact);
        out->bytes2 = p2p_slot(x, C, t, 1, g, r, c, ct, &inexact);
        if (t->own[0] || t->own[1]) { /* the rank's own entry of a block distribution */
            int me = cdesc_rank(cd, g, r);
            if (t->own[0])
                out->bytes = vb->v[(uint32_t)(t->own[0] - 1) * (uint32_t)ct + (uint32_t)me];
            if (t->own[1])
                out->bytes2 = vb->v[(uint32_t)(t->own[1] - 1) * (uint32_t)ct + (uint32_t)me];
        }
    }
    if (inexact) {
        return mc_error_set(err, MC_ERR_USAGE, "rank %d: %s: a size halved once per copy of "
                            "its repeated block is not a whole number of bytes at copy %u at "
                            "P=%d", r, mc_op_name(op), t->copy, g->P);
    }
    /* Times: the burst follows the compute law, durations are kept. */
    int64_t burst = t->e.burst;
    if (burst > 0 && C->burst_law != MC_LAW_CONST)
        burst = llround((double)burst * extrap_burst_factor(C, t, g->P, ct, x->nd));
    int64_t dur = mc_event_duration(&t->e);
    if (t_prev_end == INT64_MIN) { /* the first event keeps its recorded start */
        out->t_start = t->e.t_start;
    } else {
        out->t_start = t_prev_end + burst;
    }
    out->t_end = out->t_start + dur;
    out->burst = t_prev_end == INT64_MIN ? t->e.burst : burst;
    if (out->cpu > 0 && t->e.burst > 0)
        out->cpu = llround((double)out->cpu * (double)burst / (double)t->e.burst);
    return MC_OK;
}

int extrap_event_equal(const mc_event *a, const mc_event *b, char *why, size_t len)
{
    return extrap_event_equal_as(a, b, 0, why, len);
}

int extrap_event_equal_as(const mc_event *a, const mc_event *b, int data, char *why,
                          size_t len)
{
    /* rule sizes data: point-to-point sizes and completions' received bytes
     * are the data's, not the model's */
    int p2p = data && mc_event_p2p_size(a, MC_FIELD_BYTES);
#define DIFF(field)                                                                          \
    if (a->field != b->field) {                                                              \
        snprintf(why, len, #field " %lld in the model, %lld in the trace",                   \
                 (long long)a->field, (long long)b->field);                                  \
        return 0;                                                                            \
    }
    if (a->op != b->op) {
        snprintf(why, len, "%s in the model, %s in the trace", mc_op_name(a->op),
                 mc_op_name(b->op));
        return 0;
    }
    DIFF(site) DIFF(peer) DIFF(tag)
    if (!p2p) {
        DIFF(bytes)
    }
    DIFF(peer2) DIFF(tag2)
    if (!p2p) {
        DIFF(bytes2)
    }
    DIFF(req) DIFF(nvals)
    if (a->comm != b->comm || a->newcomm != b->newcomm) {
        snprintf(why, len, "communicator %llx/%llx in the model, %llx/%llx in the trace",
                 (unsigned long long)a->comm, (unsigned long long)a->newcomm,
                 (unsigned long long)b->comm, (unsigned long long)b->newcomm);
        return 0;
    }
#undef DIFF
    for (uint32_t i = 0; i < a->nvals; i++)
        if (a->vals[i] != b->vals[i] && !(data && mc_event_p2p_size(a, i))) {
            snprintf(why, len, "value %u is %lld in the model, %lld in the trace", i,
                     (long long)a->vals[i], (long long)b->vals[i]);
            return 0;
        }
    return 1;
}

/* ------------------------------------------------------------ target grid */

static mc_err check_ambiguity(const mc_extrap *x, const xgrid *g, mc_error *err);
static mc_err check_repeat_laws(const mc_extrap *x, const xgrid *g, mc_error *err);
static mc_err check_once_laws(const mc_extrap *x, const xgrid *g, mc_error *err);
static mc_err check_partners(const mc_extrap *x, const xgrid *g, mc_error *err);
static mc_err check_item_counts(const mc_extrap *x, const xgrid *g, mc_error *err);
static mc_err check_readings(const mc_extrap *x, const xgrid *g, mc_error *err);

static void dims_str(const xgrid *g, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int d = 0; d < g->nd && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", d ? "x" : "", g->dims[d]);
}

/* Categories present along a dimension of n ranks. */
static int cats_of(int n, int *cats)
{
    if (n == 1) {
        cats[0] = CAT_SINGLE;
        return 1;
    }
    cats[0] = CAT_LO;
    cats[1] = CAT_HI;
    if (n == 2)
        return 2;
    cats[2] = CAT_INT;
    return 3;
}

/* A rank of grid g whose class has the categories cat[]. */
static int rank_with(const xgrid *g, const int *cat)
{
    int c[MAXD];
    for (int d = 0; d < g->nd; d++)
        c[d] = cat[d] == CAT_HI ? g->dims[d] - 1 : cat[d] == CAT_INT ? 1 : 0;
    return grid_rank(g, c);
}

mc_err extrap_target_grid(const mc_extrap *x, int P, xgrid *g, mc_error *err)
{
    memset(g, 0, sizeof *g);
    g->nd = x->nd;
    g->P = P;
    if (P < 1)
        return mc_error_set(err, MC_ERR_USAGE, "--ranks %d: need at least 1 rank", P);
    for (int d = 0; d < x->nd; d++)
        g->wrap[d] = x->periodic[d];
    if (x->rules.dims[0] > 0 && !x->rules.replicate) {
        long prod = 1;
        for (int d = 0; d < x->nd; d++) {
            g->dims[d] = x->rules.dims[d];
            prod *= g->dims[d];
        }
        if (prod != P)
            return mc_error_set(err, MC_ERR_USAGE, "grid: %ld ranks in the grid given, %d asked "
                                "for with --ranks", prod, P);
    } else if (!x->from_dims_create && !x->rules.replicate) {
        char d0[64];
        dims_str(&x->tgrid[0], d0, sizeof d0);
        return mc_error_set(err, MC_ERR_USAGE, "%s: the traced grid %s is not what "
                            "MPI_Dims_create gives: state the %d-rank grid (--grid)",
                            x->paths[0], d0, P);
    } else {
        mc_extrap_dims_create(P, x->nd, g->dims);
    }
    if (check_ambiguity(x, g, err) || check_item_counts(x, g, err) ||
        check_readings(x, g, err) || check_repeat_laws(x, g, err) ||
        check_once_laws(x, g, err) || check_partners(x, g, err) || extrap_depth_check(x, g, err) ||
        extrap_share_check(x, g, err))
        return err->code;
    if (x->rules.replicate)
        return MC_OK;
    /* Every class the run needs must have a template. */
    int cats[MAXD][3], nc[MAXD], idx[MAXD] = {0};
    for (int d = 0; d < g->nd; d++)
        nc[d] = cats_of(g->dims[d], cats[d]);
    for (;;) {
        int cat[MAXD];
        for (int d = 0; d < g->nd; d++)
            cat[d] = cats[d][idx[d]];
        int r = rank_with(g, cat);
        if (extrap_class_for(x, g, r) < 0) {
            char name[64], dd[64];
            class_name(g->nd, grid_class(g, r), name, sizeof name);
            dims_str(g, dd, sizeof dd);
            int bad = 0;
            for (int d = 0; d < g->nd; d++)
                if (cat[d] != CAT_LO)
                    bad = d;
            return mc_error_set(err, MC_ERR_USAGE, "the %d-rank grid %s has ranks of class "
                                "(%s), which no trace shows (the traced ranks differ by "
                                "position along dimension %d): trace a run with at least 3 "
                                "ranks along every dimension", P, dd, name, bad);
        }
        int d = 0;
        while (d < g->nd && ++idx[d] == nc[d])
            idx[d++] = 0;
        if (d == g->nd)
            break;
    }
    return MC_OK;
}

/* "rank 0" or the position class's name ("int,lo"), for messages. */
static void class_label(const mc_extrap *x, int c, char *buf, size_t len)
{
    if (c == ORIGIN)
        snprintf(buf, len, "rank 0");
    else
        class_name(x->nd, c, buf, len);
}

/* Several laws that fit a block's traced repetition counts must agree at P,
 * or the count would be a guess (as check_ambiguity for sizes). */
static mc_err check_repeat_laws(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        for (int j = 0; j < C->nrep; j++)
            for (int q = 0; q < 2; q++) {
                const xrep *B = &C->rep[j];
                if (B->alt_law[q] < 0)
                    continue;
                double a = B->a * law_f(B->law, g->P, 1, x->nd);
                double b = B->alt_a[q] * law_f(B->alt_law[q], g->P, 1, x->nd);
                if (fabs(a - b) <= 1e-9)
                    continue;
                char name[64];
                class_label(x, c, name, sizeof name);
                return mc_error_set(err, MC_ERR_USAGE, "class (%s): a block of %u events "
                                    "(event %u on: %s) repeats as often as both %g x %s(P) and "
                                    "%g x %s(P) in the traces, which give %g and %g copies at "
                                    "P=%d: trace one more process count or state the law "
                                    "(--rule repeat=%x:LAW)", name, B->len, B->start,
                                    OPAT(x, C->trace, &C->ev[B->start].e), B->a,
                                    mc_extrap_law_name(B->law), B->alt_a[q],
                                    mc_extrap_law_name(B->alt_law[q]), a, b, g->P,
                                    (unsigned)C->ev[B->start].e.site);
            }
    }
    return MC_OK;
}

/* An exchange with rank XOR 2^k done once in every trace, where a law of
 * P is the same at every traced P: a loop of that many steps would do more
 * at a P where the law is more (NPB CG's row reduction traced at 2 and 4). */
static mc_err check_once_laws(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        if (!C->present || !C->once_law || C->once_at >= C->n)
            continue;
        double f = law_f(C->once_law, g->P, 1, x->nd);
        double f0 = law_f(C->once_law, C->ev[C->once_at].baseP, 1, x->nd);
        if (fabs(f - f0) <= 1e-9)
            continue;
        char name[64];
        class_label(x, c, name, sizeof name);
        const pdesc *p = &C->ev[C->once_at].peer[0];
        return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): one exchange "
                            "with rank XOR %d in every trace, where %s(P) is %g at every "
                            "traced P: a loop of %s(P) steps (NPB CG's row reduction) would "
                            "do %g at P=%d: trace a process count where %s(P) is not %g",
                            name, C->once_at, OPAT(x, C->trace, &C->ev[C->once_at].e),
                            1 << (p->xk >= 0 && p->xk < 30 ? p->xk : 0),
                            mc_extrap_law_name(C->once_law), f0,
                            mc_extrap_law_name(C->once_law), f / f0, g->P,
                            mc_extrap_law_name(C->once_law), f0);
    }
    return MC_OK;
}

/* Partners that must exist at P: NPB CG's transpose needs P a power of two;
 * rank XOR 2^k exists on every rank only when P is a multiple of 2^(k+1),
 * k growing with the copies of a repeated block. */
static mc_err check_partners(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        for (uint32_t i = 0; i < C->n; i++) {
            const tev *t = &C->ev[i];
            int j = extrap_rep_of(C, i);
            double cf = j >= 0 ? C->rep[j].a * law_f(C->rep[j].law, g->P, 1, x->nd) : 1;
            double copies = floor(cf + 0.5);
            if (fabs(cf - copies) > 1e-9)
                continue; /* refused when expanded: not a whole number of copies */
            for (uint32_t s = 0; s < t->npeer; s++) {
                const pdesc *p = &t->peer[s];
                char name[64];
                if (p->kind == PD_NPB_TRANSPOSE && extrap_npb_transpose(0, g->P) < 0) {
                    class_label(x, c, name, sizeof name);
                    return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): the "
                                        "transpose partner on NPB CG's process grid needs P a "
                                        "power of two: not P=%d", name, i,
                                        OPAT(x, x->cls[c].trace, &t->e), g->P);
                }
                /* a step rule (v[1]) only stands in a block: none when no copies */
                if (p->kind != PD_XOR || (p->v[1] && copies < 1))
                    continue;
                double kmax = p->v[0] + (p->v[1] ? copies - 1 : 0);
                if (kmax < 30 && fmod((double)g->P, ldexp(2.0, (int)kmax)) == 0)
                    continue;
                class_label(x, c, name, sizeof name);
                return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): partners "
                                    "rank XOR 2^k up to k=%.0f exist on every rank only when "
                                    "P is a multiple of 2^%.0f: not at P=%d", name, i,
                                    OPAT(x, x->cls[c].trace, &t->e), kmax, kmax + 1, g->P);
            }
        }
    }
    return MC_OK;
}

/* Laws that fit the traces equally well must agree at P, or the choice
 * would be a guess: refuse, naming the event and the laws. */
static mc_err check_ambiguity(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++)
        for (uint32_t i = 0; i < x->cls[c].n; i++) {
            const tev *t = &x->cls[c].ev[i];
            int64_t ct = cdesc_size(&x->cd[t->comm], g);
            for (uint32_t s = 0; s < t->nnum; s++) {
                if (t->law[s] == MC_LAW_FIT) /* the fit refused its own ambiguity */
                    continue;
                int64_t chosen = scale(t->num[s], t->law[s], t, g, ct, x->nd);
                for (int law = 1; law < MC_LAW_COUNT; law++) {
                    if (!(t->alt[s] & (1u << law)) || law == t->law[s])
                        continue;
                    int64_t other = scale(t->num[s], law, t, g, ct, x->nd);
                    if (other == chosen)
                        continue;
                    char name[64];
                    class_label(x, c, name, sizeof name);
                    return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): the "
                                        "traces fit both '%s' and '%s' for its %s, which give "
                                        "%lld and %lld at P=%d: trace one more process count "
                                        "or state the law (--rule size.%s=LAW)", name, i,
                                        OPAT(x, x->cls[c].trace, &t->e),
                                        mc_extrap_law_name(t->law[s]),
                                        mc_extrap_law_name(law), extrap_slot_name(t, s),
                                        (long long)chosen, (long long)other, g->P,
                                        t->sclass[s] == MC_SC_BLOCK ? "block"
                                        : t->sclass[s] == MC_SC_REDUCE ? "reduce" : "p2p");
                }
            }
        }
    return MC_OK;
}

/* The number of items a block distribution deals out is whole at g, or the
 * law that scales it has no answer there (10 items of 4 ranks, grown with
 * the comm size, at 6 ranks). */
static mc_err check_item_counts(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++)
        for (uint32_t i = 0; i < x->cls[c].n; i++) {
            const tev *t = &x->cls[c].ev[i];
            for (uint32_t a = 0; a < t->varr; a++) {
                uint32_t s = 2 + t->varr + a;
                if (t->vkind[a] != VK_BLOCK || t->law[s] == MC_LAW_CONST)
                    continue;
                double ct = cdesc_size(&x->cd[t->comm], g), N;
                if (t->law[s] == MC_LAW_FIT)
                    N = mc_fit_eval(&t->fit[s], g->P, 0);
                else
                    N = (double)t->num[s] * law_f(t->law[s], g->P, ct, x->nd) /
                        law_f(t->law[s], t->baseP, (double)t->csize, x->nd);
                if (fabs(N - nearbyint(N)) <= 1e-6 * (1 + fabs(N)))
                    continue;
                char name[64], law[200];
                class_label(x, c, name, sizeof name);
                extrap_law_str(t, s, law, sizeof law);
                return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): %lld items "
                                    "dealt out at P=%d become %.4g at P=%d by the law %s: "
                                    "no whole number; state the law (--rule size.%s=LAW)",
                                    name, i, OPAT(x, x->cls[c].trace, &t->e), (long long)t->num[s],
                                    (int)t->baseP, N, g->P, law,
                                    t->sclass[s] == MC_SC_BLOCK ? "block" : "reduce");
            }
        }
    return MC_OK;
}

/* ------------------------------------------------------------ readings */

/* Value of slot s of t at grid g under reading j (0: the slots; else
 * t->rd[j - 1], whose values scale as the slots' do); -1 when that value
 * is no whole number there. rs is the slot's index in a reading. */
static int64_t read_slot(const tev *t, uint32_t j, uint32_t s, uint32_t rs, const xgrid *g,
                         int64_t ct, int nd, int *inexact)
{
    int64_t v = scale_slot(t, s, g, ct, nd, inexact), b = t->num[s];
    if (!j)
        return v;
    int64_t r = t->rd[j - 1].num[rs];
    if (b == r)
        return v;
    if (b <= 0 || v > INT64_MAX / (r > 0 ? r : 1) || (v * r) % b)
        return -1;
    return v * r / b;
}

/* Describes reading j of t. */
static void reading_str(const tev *t, uint32_t j, char *buf, size_t len)
{
    const int64_t *num = j ? t->rd[j - 1].num : t->num + 2;
    const uint8_t *last = j ? t->rd[j - 1].last : t->vlast;
    if (t->vkind[0] == VK_XPOSE) {
        snprintf(buf, len, "%lld x %lld items of %lld bytes, rows dealt out %s, columns %s",
                 (long long)num[3], (long long)num[2], (long long)num[0],
                 extrap_dist_name(last[1]), extrap_dist_name(last[0]));
        return;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t a = 0; a < t->varr && o < len; a++)
        if (t->vkind[a] == VK_BLOCK)
            o += (size_t)snprintf(buf + o, len - o, "%s%lld items of %lld bytes dealt out %s",
                                  o ? "; " : "", (long long)num[t->varr + a],
                                  (long long)num[a], extrap_dist_name(last[a]));
}

/* Whether reading j of t gives the counts of reading 0 on a comm of ct
 * ranks at grid g; where not, *at and *v0, *v1 say the first that differ. */
static int same_counts(const tev *t, uint32_t j, const xgrid *g, int64_t ct, int nd,
                       int64_t *at, int64_t *v0, int64_t *v1)
{
    int inexact = 0;
    const uint8_t *last = j ? t->rd[j - 1].last : t->vlast;
    *at = 0, *v0 = *v1 = -1;
    if (t->vkind[0] == VK_XPOSE) { /* counts u sA(me) sB(k): one rank-1 matrix or another */
        int64_t u[2], B[2], A[2];
        const uint8_t *lst[2] = {t->vlast, last};
        for (uint32_t q = 0; q < 2; q++) {
            u[q] = read_slot(t, q ? j : 0, 2, 0, g, ct, nd, &inexact);
            B[q] = read_slot(t, q ? j : 0, 4, 2, g, ct, nd, &inexact);
            A[q] = read_slot(t, q ? j : 0, 5, 3, g, ct, nd, &inexact);
            if (u[q] < 0 || B[q] < 0 || A[q] < 0)
                return 0;
        }
        int64_t i0 = -1, j0 = -1; /* a non-zero row and column of reading 0 */
        for (int64_t k = 0; k < ct && (i0 < 0 || j0 < 0); k++) {
            if (i0 < 0 && extrap_share(A[0], ct, k, lst[0][1]))
                i0 = k;
            if (j0 < 0 && extrap_share(B[0], ct, k, lst[0][0]))
                j0 = k;
        }
        for (int64_t k = 0; k < ct; k++)
            for (int side = 0; side < 2; side++) { /* row i0 and column j0 */
                int64_t r = side ? k : (i0 < 0 ? 0 : i0), c = side ? (j0 < 0 ? 0 : j0) : k;
                int64_t m[2];
                for (int q = 0; q < 2; q++)
                    m[q] = extrap_mul(extrap_mul(u[q], extrap_share(A[q], ct, r, lst[q][1])),
                                      extrap_share(B[q], ct, c, lst[q][0]));
                if (m[0] != m[1]) {
                    *at = r, *v0 = m[0], *v1 = m[1];
                    return 0;
                }
            }
        return 1;
    }
    for (uint32_t a = 0; a < t->varr; a++) {
        if (t->vkind[a] != VK_BLOCK)
            continue;
        int64_t u0 = read_slot(t, 0, 2 + a, a, g, ct, nd, &inexact);
        int64_t N0 = read_slot(t, 0, 2 + t->varr + a, t->varr + a, g, ct, nd, &inexact);
        int64_t u1 = read_slot(t, j, 2 + a, a, g, ct, nd, &inexact);
        int64_t N1 = read_slot(t, j, 2 + t->varr + a, t->varr + a, g, ct, nd, &inexact);
        if (u1 < 0 || N1 < 0)
            return 0;
        for (int64_t k = 0; k < ct; k++) {
            *v0 = extrap_mul(u0, extrap_share(N0, ct, k, t->vlast[a]));
            *v1 = extrap_mul(u1, extrap_share(N1, ct, k, last[a]));
            if (*v0 != *v1) {
                *at = k;
                return 0;
            }
        }
    }
    return 1;
}

/* Per-rank counts that the traces leave open to more than one reading (a
 * balanced split and FFTW's ceil blocks, items of one size or of half of
 * it) must give the same counts at the target, or the pseudo-trace would
 * be one guess: refused, naming both readings. */
static mc_err check_readings(const mc_extrap *x, const xgrid *g, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++)
        for (uint32_t i = 0; i < x->cls[c].n; i++) {
            const tev *t = &x->cls[c].ev[i];
            int64_t ct = cdesc_size(&x->cd[t->comm], g), at, v0, v1;
            for (uint32_t j = 1; j <= t->nrd; j++) {
                if (ct <= 0 || same_counts(t, j, g, ct, x->nd, &at, &v0, &v1))
                    continue;
                char name[64], r0[256], r1[256], diff[128] = "";
                class_label(x, c, name, sizeof name);
                reading_str(t, 0, r0, sizeof r0);
                reading_str(t, j, r1, sizeof r1);
                if (v0 >= 0 && v1 >= 0)
                    snprintf(diff, sizeof diff, ", comm rank %lld %lld bytes against %lld",
                             (long long)at, (long long)v0, (long long)v1);
                int modes = memcmp(t->vlast, t->rd[j - 1].last, sizeof t->vlast) != 0;
                return mc_error_set(err, MC_ERR_USAGE, "class (%s), event %u (%s): the traced "
                                    "counts are %s, or %s, and these differ at P=%d (%lld "
                                    "ranks in the communicator%s): trace a process count "
                                    "that tells them apart%s", name, i,
                                    OPAT(x, x->cls[c].trace, &t->e), r0, r1, g->P,
                                    (long long)ct, diff,
                                    modes ? ", or state how items are dealt out (--rule "
                                            "blocks=first|last|ceil)" : "");
            }
        }
    return MC_OK;
}

/* ------------------------------------------------------------ comm cache */

typedef struct centry {
    uint64_t id;
    int64_t *vals;
    int64_t left;     /* members that have not read it yet */
    int holders;      /* members whose current event it is */
    struct centry *next;
} centry;

#define NBUCKETS 4096

typedef struct ccache {
    centry *b[NBUCKETS];
} ccache;

static unsigned bucket(uint64_t id)
{
    return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 52) & (NBUCKETS - 1);
}

static centry *cache_get(ccache *c, const mc_extrap *x, const xgrid *g, int r, const tev *t,
                         uint64_t id, mc_error *err)
{
    unsigned h = bucket(id);
    for (centry *e = c->b[h]; e; e = e->next)
        if (e->id == id)
            return e;
    centry *e = calloc(1, sizeof *e);
    genbuf vb = {0};
    uint32_t n = 0;
    if (!e || extrap_comm_vals(x, g, r, t, &vb, &n, err)) {
        free(e);
        free(vb.v);
        if (!err->code)
            mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    e->id = id;
    e->vals = vb.v;
    e->left = cdesc_size(&x->cd[t->newcomm], g);
    e->next = c->b[h];
    c->b[h] = e;
    return e;
}

static void cache_release(ccache *c, centry *e)
{
    if (--e->holders > 0 || e->left > 0)
        return;
    centry **pp = &c->b[bucket(e->id)];
    while (*pp && *pp != e)
        pp = &(*pp)->next;
    if (*pp)
        *pp = e->next;
    free(e->vals);
    free(e);
}

static void cache_free(ccache *c)
{
    for (int h = 0; h < NBUCKETS; h++)
        while (c->b[h]) {
            centry *e = c->b[h];
            c->b[h] = e->next;
            free(e->vals);
            free(e);
        }
}

/* ------------------------------------------------------------ source */

typedef struct rstate {
    int32_t cls;       /* -1: not started */
    int32_t levels;    /* coarse levels of the rank (depth.c) */
    uint32_t dins;     /* coarse-level events given before template event pos */
    uint32_t pos;
    uint64_t it;       /* folded loop: copies of its second iteration repeated */
    int64_t t_end;
    genbuf vb;
    centry *held;
} rstate;

typedef struct xsource {
    mc_source base;
    const mc_extrap *x;
    mc_extrap *owned;
    xgrid g;
    rstate *st;
    ccache cache;
    tev *xev[NCLASSES];   /* each class's events at P (repetitions expanded) */
    uint32_t xn[NCLASSES];
    int xown[NCLASSES];
    xloop loop[NCLASSES]; /* folded input: the iteration repeated (b = 0: none) */
} xsource;

/* Event e at position pos of a class with a folded loop, as the rank's
 * stream has it: a copy of the second iteration creates the ids one
 * iteration later each time, and the events after the loop come after all
 * the ids its copies created. */
static int loop_ids(const xloop *lp, uint64_t extra, uint32_t pos, uint64_t it, mc_event *e,
                    genbuf *vb)
{
    int64_t delta = pos >= lp->b ? (int64_t)(extra * lp->nreq) : (int64_t)(it * lp->nreq);
    if (!delta || !lp->nreq)
        return 0;
    if (e->nvals && e->vals != vb->v &&
        mc_op_has(e->op, MC_OPF_COMPLETION | MC_OPF_REQ_LIST)) { /* the template's own */
        if (grow(vb, e->nvals))
            return -1;
        memcpy(vb->v, e->vals, e->nvals * sizeof *vb->v);
        e->vals = vb->v;
    }
    uint64_t hi = pos >= lp->b ? UINT64_MAX : (uint64_t)lp->first_req + lp->nreq;
    mc_event_shift_requests(e, lp->first_req, hi, delta);
    return 0;
}

static int xs_next(mc_source *s, int rank, mc_event *e, mc_error *err)
{
    xsource *xs = (xsource *)s;
    const mc_extrap *x = xs->x;
    if (rank < 0 || rank >= s->nranks) {
        mc_error_set(err, MC_ERR_USAGE, "%s: rank %d out of range (0..%d)", s->name, rank,
                     s->nranks - 1);
        return -1;
    }
    rstate *rs = &xs->st[rank];
    if (rs->held) {
        cache_release(&xs->cache, rs->held);
        rs->held = NULL;
    }
    if (rs->cls < 0) {
        rs->cls = extrap_class_for(x, &xs->g, rank);
        if (rs->cls < 0) {
            mc_error_set(err, MC_ERR_USAGE, "%s: rank %d: no class template", s->name, rank);
            return -1;
        }
        rs->t_end = INT64_MIN;
        rs->levels = extrap_depth_levels(x, &xs->g, rank);
    }
    const xclass *C = &x->cls[rs->cls];
    if (rs->dins < extrap_depth_here(x, C, rs->pos, rs->levels)) {
        tev lv; /* a coarse level's event, before the template's at pos */
        pdesc pd[2];
        extrap_depth_event(x, rs->dins++, &lv, pd);
        if (extrap_gen(x, &xs->g, rank, &lv, C, rs->t_end, e, &rs->vb, NULL, err))
            return -1;
        rs->t_end = e->t_end;
        return 1;
    }
    const xloop *lp = xs->loop[rs->cls].b ? &xs->loop[rs->cls] : NULL;
    uint64_t extra = lp ? C->loop_n - 2 : 0;
    if (lp && rs->pos == lp->b && rs->it < extra) { /* the second iteration once more */
        rs->pos = lp->a;
        rs->dins = 0;
        rs->it++;
        return xs_next(s, rank, e, err); /* levels may come first there */
    }
    if (rs->pos >= xs->xn[rs->cls]) { /* an ended rank needs no buffer: a reader
                                         going rank after rank keeps one */
        free(rs->vb.v);
        rs->vb = (genbuf){0};
        return 0;
    }
    const tev *t = &xs->xev[rs->cls][rs->pos];
    const int64_t *shared = NULL;
    if (t->newcomm >= 0) {
        uint64_t id = cdesc_id(&x->cd[t->newcomm], &xs->g, rank);
        centry *ce = cache_get(&xs->cache, x, &xs->g, rank, t, id, err);
        if (!ce)
            return -1;
        ce->left--;
        ce->holders++;
        rs->held = ce;
        shared = ce->vals;
    }
    if (extrap_gen(x, &xs->g, rank, t, C, rs->t_end, e, &rs->vb, shared, err))
        return -1;
    if (lp && !shared && loop_ids(lp, extra, rs->pos, rs->it, e, &rs->vb))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    rs->t_end = e->t_end;
    rs->pos++;
    rs->dins = 0;
    return 1;
}

static void xs_close(mc_source *s)
{
    xsource *xs = (xsource *)s;
    for (int r = 0; xs->st && r < s->nranks; r++)
        free(xs->st[r].vb.v);
    free(xs->st);
    cache_free(&xs->cache);
    for (int c = 0; c < NCLASSES; c++)
        if (xs->xown[c])
            extrap_expanded_free(xs->xev[c], xs->xn[c]);
    mc_extrap_destroy(xs->owned);
    free(xs);
}

/* A rank's state here is a cache miss of its own at 10^6 ranks. */
static void xs_prefetch(const mc_source *s, int rank)
{
    const xsource *xs = (const xsource *)s;
    if (rank >= 0 && rank < s->nranks)
        __builtin_prefetch(&xs->st[rank]);
}

static const mc_source_ops xs_ops = {.next = xs_next, .close = xs_close, .prefetch = xs_prefetch};

mc_source *mc_extrap_source(const mc_extrap *x, int nranks, mc_error *err)
{
    xgrid g;
    if (extrap_target_grid(x, nranks, &g, err) || extrap_fit_check(x, nranks, err))
        return NULL;
    xsource *xs = calloc(1, sizeof *xs);
    if (xs)
        xs->st = calloc((size_t)nranks, sizeof *xs->st);
    if (!xs || !xs->st) {
        free(xs);
        mc_error_set(err, MC_ERR_NOMEM, "out of memory for %d ranks", nranks);
        return NULL;
    }
    for (int r = 0; r < nranks; r++)
        xs->st[r].cls = -1;
    xs->x = x;
    xs->g = g;
    for (int c = 0; c < NCLASSES; c++) {
        if (!x->cls[c].present)
            continue;
        int fr = 0;
        if (extrap_expand(x, &x->cls[c], nranks, &xs->xev[c], &xs->xn[c], &xs->xown[c], err) ||
            (x->cls[c].loop_n >= 2 &&
             (fr = extrap_fold_region(xs->xev[c], xs->xn[c], &xs->loop[c])) != 1)) {
            if (x->cls[c].loop_n >= 2 && fr != 1) {
                char cname[96];
                class_label(x, c, cname, sizeof cname);
                mc_error_set(err, MC_ERR_USAGE, "%s: %s: the two iterations its main loop was "
                             "read as are not one after the other in the model at P=%d (a "
                             "repeated block spans them?): the loop cannot be repeated",
                             x->paths[0], cname, nranks);
            }
            xs->base.nranks = nranks;
            xs_close(&xs->base);
            return NULL;
        }
    }
    xs->base.ops = &xs_ops;
    xs->base.nranks = nranks;
    xs->base.name = x->paths[0];
    return &xs->base;
}

/* Laws of a burst that do not depend on the communicator of its event. */
static int law_needs_comm(int law)
{
    return law == MC_LAW_INV_COMM || law == MC_LAW_COMM || law == MC_LAW_P_PER_COMM ||
           law == MC_LAW_VOLUME_PER_COMM;
}

mc_err mc_extrap_source_burst_factor(const mc_source *s, double *f, mc_error *err)
{
    if (!s || s->ops != &xs_ops)
        return mc_error_set(err, MC_ERR_USAGE, "not an extrapolated source");
    const xsource *xs = (const xsource *)s;
    const mc_extrap *x = xs->x;
    int law = -1, baseP = -1;
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        if (!C->present)
            continue;
        if (C->burst_law == MC_LAW_FIT)
            return mc_error_set(err, MC_ERR_USAGE, "%s: compute bursts follow a model fitted "
                                "per class (compute=fit): not one factor per run", s->name);
        if ((law >= 0 && C->burst_law != law) || law_needs_comm(C->burst_law))
            return mc_error_set(err, MC_ERR_USAGE, "%s: compute bursts follow %s, which "
                                "depends on each event's communicator: not one factor per run",
                                s->name, mc_extrap_law_name(C->burst_law));
        law = C->burst_law;
        for (uint32_t i = 0; i < C->n; i++) {
            if (baseP >= 0 && C->ev[i].baseP != baseP)
                return mc_error_set(err, MC_ERR_USAGE, "%s: event classes come from traces "
                                    "at different process counts: not one factor per run",
                                    s->name);
            baseP = C->ev[i].baseP;
        }
    }
    if (law < 0 || baseP <= 0) {
        *f = 1.0;
        return MC_OK;
    }
    *f = law_f(law, xs->g.P, 0, x->nd) / law_f(law, baseP, 0, x->nd);
    return MC_OK;
}

int mc_extrap_source_folded(const mc_source *s)
{
    return s && s->ops == &xs_ops ? mc_extrap_folded(((const xsource *)s)->x) : 0;
}

mc_source *mc_extrap_open_source(const char *trace, int nranks, const mc_extrap_rules *rules,
                                 mc_error *err)
{
    const char *t[1] = {trace};
    mc_extrap *x = mc_extrap_build(t, 1, rules, err);
    if (!x)
        return NULL;
    mc_source *s = mc_extrap_source(x, nranks, err);
    if (!s) {
        mc_extrap_destroy(x);
        return NULL;
    }
    ((xsource *)s)->owned = x;
    return s;
}

/* ------------------------------------------------------------ writer */

static mc_err write_meta(const mc_extrap *x, const xgrid *g, const char *dir, mc_error *err)
{
    mc_meta *m = mc_meta_create(g->P);
    if (!m)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    mc_error merr = {0};
    mc_meta *src = mc_meta_read(x->paths[0], &merr);
    mc_err rc = MC_OK;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mpicast extrapolate %s --ranks %d", x->paths[0], g->P);
    rc = mc_meta_set(m, "command", cmd, err);
    char chk[640];
    if (x->checked)
        snprintf(chk, sizeof chk, "yes: %d of %d input traces rebuilt from the others, %llu "
                 "events equal", x->checked, x->ntraces, (unsigned long long)x->checked_events);
    else
        snprintf(chk, sizeof chk, "no: %s", x->unchecked);
    if (!rc)
        rc = mc_meta_set(m, "checked", chk, err);
    static const char *const keys[] = {"mpi_library", "timer", "mode", "start"};
    for (size_t i = 0; !rc && src && i < sizeof keys / sizeof *keys; i++)
        if (mc_meta_get(src, keys[i]))
            rc = mc_meta_set(m, keys[i], mc_meta_get(src, keys[i]), err);
    for (size_t i = 0; !rc && src && i < mc_meta_nsites(src); i++)
        rc = mc_meta_add_site(m, mc_meta_site_at(src, i), err);
    /* Communicators: one per distinct id created in the run. */
    genbuf vb = {0};
    for (int c = 0; !rc && c < NCLASSES; c++)
        for (uint32_t i = 0; !rc && i < x->cls[c].n; i++) {
            const tev *t = &x->cls[c].ev[i];
            if (t->newcomm < 0)
                continue;
            const cdesc *cd = &x->cd[t->newcomm];
            for (int r = 0; !rc && r < g->P; r++) {
                if (grid_sub_lowest(g, cd->keep, r) != r) /* one member names the comm */
                    continue;
                uint64_t id = cdesc_id(cd, g, r);
                if (mc_meta_comm_find(m, id))
                    continue;
                uint32_t n;
                rc = extrap_comm_vals(x, g, r, t, &vb, &n, err);
                int size = cdesc_size(cd, g);
                int32_t *mem = rc ? NULL : malloc((size_t)size * sizeof *mem);
                if (!rc && !mem)
                    rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                for (int k = 0; !rc && k < size; k++)
                    mem[k] = (int32_t)vb.v[k];
                if (!rc)
                    rc = mc_meta_add_comm(m, id, mem, size, size, err);
                free(mem);
            }
        }
    free(vb.v);
    if (!rc)
        rc = mc_meta_write(m, dir, err);
    mc_meta_destroy(src);
    mc_meta_destroy(m);
    return rc;
}

mc_err mc_extrap_write(const mc_extrap *x, int nranks, const char *dir, mc_error *err)
{
    return mc_extrap_write_progress(x, nranks, dir, NULL, NULL, err);
}

mc_err mc_extrap_write_progress(const mc_extrap *x, int nranks, const char *dir,
                                void (*rank_done)(void *ctx), void *ctx, mc_error *err)
{
    mc_source *s = mc_extrap_source(x, nranks, err);
    if (!s)
        return err->code ? err->code : MC_ERR_USAGE;
    unsigned flags = 0;
    for (int c = 0; c < NCLASSES && !flags; c++)
        for (uint32_t i = 0; i < x->cls[c].n && !flags; i++)
            if (x->cls[c].ev[i].e.cpu >= 0)
                flags = MC_WRITER_CPU;
    mc_err rc = MC_OK;
    for (int r = 0; r < nranks && !rc; r++) {
        mc_writer *w = mc_writer_open(dir, r, flags, 0, err);
        if (!w) {
            rc = err->code ? err->code : MC_ERR_IO;
            break;
        }
        mc_event e;
        int got;
        while ((got = mc_source_next(s, r, &e, err)) == 1 && !rc)
            rc = mc_writer_add(w, &e, err);
        if (got < 0 && !rc)
            rc = err->code ? err->code : MC_ERR_INTERNAL;
        mc_error cerr = {0};
        if (mc_writer_close(w, &cerr) && !rc) {
            *err = cerr;
            rc = cerr.code;
        }
        if (rank_done && !rc)
            rank_done(ctx);
    }
    const xgrid g = ((xsource *)s)->g;
    mc_source_close(s);
    if (!rc)
        rc = write_meta(x, &g, dir, err);
    return rc;
}

/* ------------------------------------------------------------ explain */

static void peer_str(const pdesc *p, int nd, char *buf, size_t len)
{
    switch (p->kind) {
    case PD_REL: {
        size_t o = (size_t)snprintf(buf, len, "offset (");
        for (int d = 0; d < nd && o < len; d++)
            o += (size_t)snprintf(buf + o, len - o, "%s%+d", d ? "," : "", p->v[d]);
        if (o < len)
            snprintf(buf + o, len - o, ")");
        break;
    }
    case PD_ABS: snprintf(buf, len, "rank %d", p->v[0]); break;
    case PD_ABS_END: snprintf(buf, len, "rank P-%d", p->v[0] + 1); break;
    case PD_CROOT: snprintf(buf, len, "comm rank %d", p->v[0]); break;
    case PD_CROOT_END: snprintf(buf, len, "last comm rank"); break;
    case PD_COMMSIZE: snprintf(buf, len, "comm size"); break;
    case PD_NPB_TRANSPOSE:
        snprintf(buf, len, "transpose on NPB CG's grid (2^ceil(log2 P/2) columns)");
        break;
    case PD_XOR:
        if (p->v[1] > 0)
            snprintf(buf, len, "rank XOR 2^(%d + copy)", p->v[0]);
        else if (p->v[1] < 0)
            snprintf(buf, len, "rank XOR 2^(%d + copies-1 - copy)", p->v[0]);
        else
            snprintf(buf, len, "rank XOR %d", 1 << p->v[0]);
        break;
    default:
        if (p->v[0] == MC_NONE)
            snprintf(buf, len, "none");
        else
            snprintf(buf, len, "%d", p->v[0]);
    }
}

static void comm_str(const mc_extrap *x, int cdi, char *buf, size_t len)
{
    const cdesc *c = &x->cd[cdi];
    if (c->kind == CD_WORLD) {
        snprintf(buf, len, "world");
    } else if (c->kind == CD_SELF) {
        snprintf(buf, len, "self");
    } else {
        size_t o = (size_t)snprintf(buf, len, "seq %u grid", c->seq);
        if (c->keep == (1u << x->nd) - 1) {
            snprintf(buf + o, len - o, " (all)");
            return;
        }
        o += (size_t)snprintf(buf + o, len - o, " dims {");
        for (int d = 0; d < x->nd && o < len; d++)
            if (c->keep & (1u << d))
                o += (size_t)snprintf(buf + o, len - o, " %d", d);
        if (o < len)
            snprintf(buf + o, len - o, " }");
    }
}

/* How a block distribution deals its items out, for --explain. */
static const char *dist_str(int mode)
{
    return mode == XD_CEIL   ? "blocks of ceil(N/c) from the first rank on (FFTW's)"
           : mode == XD_LAST ? "the last N mod c ranks one more"
                             : "the first N mod c ranks one more";
}

static const char *xpose_dist_str(const tev *t, char *buf, size_t len)
{
    if (t->vlast[0] == t->vlast[1])
        return dist_str(t->vlast[0]);
    snprintf(buf, len, "rows: %s; columns: %s", dist_str(t->vlast[1]), dist_str(t->vlast[0]));
    return buf;
}

static void event_rule(const mc_extrap *x, const tev *t, char *buf, size_t len)
{
    char cs[64], p0[64], p1[64];
    comm_str(x, t->comm, cs, sizeof cs);
    size_t o = (size_t)snprintf(buf, len, "%-12s comm %s", mc_op_name(t->e.op), cs);
    int kind = mc_op_kind_of(t->e.op);
    if (kind == MC_KIND_P || kind == MC_KIND_C) {
        peer_str(&t->peer[0], x->nd, p0, sizeof p0);
        o += (size_t)snprintf(buf + o, len - o, ", %s %s", kind == MC_KIND_C ? "root" : "peer",
                              p0);
        if (t->e.op == MC_OP_SENDRECV || t->e.op == MC_OP_SENDRECV_REPLACE) {
            peer_str(&t->peer[1], x->nd, p1, sizeof p1);
            o += (size_t)snprintf(buf + o, len - o, ", source %s", p1);
        }
        char law[200];
        extrap_law_str(t, 0, law, sizeof law);
        if (t->share && t->share[0] >= 0)
            extrap_share_str(x, t->share[0], law, sizeof law);
        if (o < len)
            o += (size_t)snprintf(buf + o, len - o, ", size %s",
                                  t->own[0] ? "the rank's own count" : law);
        extrap_law_str(t, 1, law, sizeof law);
        if (t->share && t->share[1] >= 0)
            extrap_share_str(x, t->share[1], law, sizeof law);
        if ((t->num[1] || t->own[1]) && o < len)
            o += (size_t)snprintf(buf + o, len - o, ", received %s",
                                  t->own[1] ? "the rank's own count" : law);
        if (t->vhide && o < len)
            o += (size_t)snprintf(buf + o, len - o, ", the root's counts");
        if (t->vkind[0] == VK_XPOSE && o < len)
            o += (size_t)snprintf(buf + o, len - o,
                                  ", counts the transpose of %lld x %lld items of %lld bytes "
                                  "(fixed) from blocks of rows to blocks of columns, %s",
                                  (long long)t->num[5], (long long)t->num[4],
                                  (long long)t->num[2], xpose_dist_str(t, law, sizeof law));
        for (uint32_t a = 0; a < t->varr && t->vkind[0] != VK_XPOSE && o < len; a++) {
            extrap_law_str(t, 2 + a, law, sizeof law);
            if (t->vkind[a] != VK_BLOCK) {
                o += (size_t)snprintf(buf + o, len - o, ", counts (equal per rank) %s", law);
                continue;
            }
            char items[200];
            extrap_law_str(t, 2 + t->varr + a, items, sizeof items);
            o += (size_t)snprintf(buf + o, len - o,
                                  ", counts a block distribution of %lld items (%s) of %lld "
                                  "bytes (%s) at P=%d, %s",
                                  (long long)t->num[2 + t->varr + a], items,
                                  (long long)t->num[2 + a], law, (int)t->baseP,
                                  dist_str(t->vlast[a]));
        }

    } else if (mc_op_has(t->e.op, MC_OPF_COMPLETION) && t->npeer > 2) {
        for (uint32_t s = 2; s < t->npeer && o < len; s++) {
            peer_str(&t->peer[s], x->nd, p0, sizeof p0);
            o += (size_t)snprintf(buf + o, len - o, "%s%s", s == 2 ? ", sources " : "; ", p0);
        }
        for (uint32_t s = 2; t->share && s < t->nnum && o < len; s++)
            if (t->share[s] >= 0) {
                char sh[200];
                extrap_share_str(x, t->share[s], sh, sizeof sh);
                o += (size_t)snprintf(buf + o, len - o, ", completed sizes %s", sh);
                break;
            }
        if (t->dsz && (t->dmask >> 2) && o < len) {
            char law[200];
            extrap_law_str(t, 2 + (uint32_t)__builtin_ctz(t->dmask >> 2), law, sizeof law);
            o += (size_t)snprintf(buf + o, len - o, ", completed sizes %s", law);
        }
    } else if (t->newcomm >= 0) {
        comm_str(x, t->newcomm, p0, sizeof p0);
        o += (size_t)snprintf(buf + o, len - o, ", creates %s", p0);
        if (t->e.op == MC_OP_COMM_SPLIT && o < len) {
            static const char *const sk[] = {"constant", "row-major index of the fixed dims",
                                             "row-major index of the kept dims", "world rank"};
            o += (size_t)snprintf(buf + o, len - o, ", colour %s, key %s", sk[t->color],
                                  sk[t->key]);
        }
    }
    if (t->smask && o < len) /* recursive halving, multigrid levels */
        o += (size_t)snprintf(buf + o, len - o, ", sizes %s once per copy",
                              t->sdir > 0 ? "doubled" : "halved");
    const char *pos = t->tdir > 0 ? "copy" : "copies-1 - copy";
    if ((t->tmask & 1u) && o < len) /* NPB CG tags each step with its index */
        snprintf(buf + o, len - o, ", tag %d + %s", t->e.tag, pos);
    else if (t->tmask && o < len)
        snprintf(buf + o, len - o, ", tags received moving by %s", pos);
}

/* compute=fit: the family, its held-out error and the runner-up (as model). */
static void explain_burst_fit(const xclass *C, int nranks, FILE *out)
{
    const mc_fit *f = &C->burst_fit;
    char formula[160];
    mc_fit_formula(f, "P", formula, sizeof formula);
    fprintf(out, "  compute per rank fitted over %d traces: %s, %s (held-out error %.3g %%",
            C->burst_npts, mc_family_name(f->family), formula, extrap_pct(f->cv));
    if (C->burst_runner >= 0)
        fprintf(out, "; runner-up %s, %.3g %%", mc_family_name(C->burst_runner),
                extrap_pct(C->burst_runner_cv));
    fprintf(out, ")");
    double base = C->n > 0 ? mc_fit_eval(f, C->ev[0].baseP, 0) : 0;
    if (nranks > 0 && base > 0) /* 0: a class without compute, nothing to scale */
        fprintf(out, ": bursts x %.4g at P=%d", mc_fit_eval(f, nranks, 0) / base, nranks);
    fprintf(out, "\n");
}

void mc_extrap_explain(const mc_extrap *x, int nranks, FILE *out)
{
    fprintf(out, "# extrapolation model (docs/extrapolation.md)\n");
    if (x->notes)
        fputs(x->notes, out);
    int claw = x->rules.law[MC_SC_COMPUTE] != MC_LAW_AUTO ? x->rules.law[MC_SC_COMPUTE]
               : x->rules.strong ? MC_LAW_VOLUME : MC_LAW_CONST;
    fprintf(out, "scaling: %s; compute bursts: %s\n", x->rules.strong ? "strong" : "weak",
            mc_extrap_law_name(claw));
    fprintf(out, "explained: %llu of the traced events regenerated exactly%s\n",
            (unsigned long long)x->explained,
            x->rules.data_sizes && x->ntraces > 1
                ? " (point-to-point sizes: the largest trace's; the others' are the data's)"
                : "");
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        if (!C->present)
            continue;
        char name[64];
        class_label(x, c, name, sizeof name);
        fprintf(out, "\nclass (%s): template P=%d rank %d (%d rank%s of the class there), %u "
                "events\n", name, x->tP[C->trace], C->rank, C->nmembers,
                C->nmembers > 1 ? "s" : "", C->n);
        if (C->burst_law == MC_LAW_FIT)
            explain_burst_fit(C, nranks, out);
        else if (C->burst_npts >= 2)
            fprintf(out, "  compute per rank measured ~ P^%.2f over %d traces (not applied: "
                    "bursts follow the compute rule)\n", C->burst_alpha, C->burst_npts);
        for (int j = 0; j < C->nrep; j++) {
            const xrep *B = &C->rep[j];
            char law[200];
            extrap_rep_law_str(B, law, sizeof law);
            fprintf(out, "  events %u..%u repeat %s times (request ids +%u per copy)\n",
                    B->start, B->start + B->len - 1, law, B->nreq);
            for (int q = 0; q < 2; q++)
                if (B->alt_law[q] >= 0)
                    fprintf(out, "  the traces fit %g x %s(P) as well: a P where it gives "
                            "another count is refused\n", B->alt_a[q],
                            mc_extrap_law_name(B->alt_law[q]));
            if (B->nruns >= 2)
                fprintf(out, "  the block recurs in %u runs (one per outer iteration), each "
                        "repeated as often\n", B->nruns);
        }
        /* Distinct rules in order of appearance, with their counts. */
        char (*seen)[256] = calloc(C->n ? C->n : 1, sizeof *seen);
        unsigned *cnt = calloc(C->n ? C->n : 1, sizeof *cnt);
        uint32_t ns = 0;
        for (uint32_t i = 0; seen && cnt && i < C->n; i++) {
            char line[256];
            event_rule(x, &C->ev[i], line, sizeof line);
            uint32_t j = 0;
            while (j < ns && strcmp(seen[j], line) != 0)
                j++;
            if (j == ns)
                memcpy(seen[ns++], line, sizeof line);
            cnt[j]++;
        }
        for (uint32_t j = 0; seen && cnt && j < ns; j++)
            fprintf(out, "  %6u x %s\n", cnt[j], seen[j]);
        free(seen);
        free(cnt);
        if (C->dknown && x->depth.len)
            fprintf(out, "  coarse levels before template event%s %u%s\n",
                    C->ndpos > 1 ? "s" : "", C->ndpos ? C->dpos[0] : 0,
                    C->ndpos > 1 ? ", ... (one per run)" : "");
    }
    extrap_depth_explain(x, out);
    if (nranks > 0) {
        mc_error err = {0};
        xgrid g;
        if (extrap_target_grid(x, nranks, &g, &err)) {
            fprintf(out, "\ntarget: %s\n", err.msg);
            return;
        }
        char dd[64];
        dims_str(&g, dd, sizeof dd);
        fprintf(out, "\ntarget: %d ranks, grid %s\n", nranks, x->rules.replicate ? "(replicate)"
                                                                                 : dd);
    }
}
