/* Finding the process grid of the traces: MPI_Cart_create's, else the
 * MPI_Dims_create grid under which every Comm_split/Cart_sub/Comm_create
 * is a sub-grid, else a ring (or as the rules state). The grid's geometry
 * (coordinates, classes, sub-grids) is in rules.c. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdio.h>
#include <string.h>

/* The first Cart_create over the whole world in rank 0's events. */
static const mc_event *find_cart(const rawrank *r0)
{
    for (uint32_t i = 0; i < r0->n; i++) {
        const mc_event *e = &r0->ev[i];
        if (e->op == MC_OP_CART_CREATE && e->peer2 > 0 && (uint32_t)e->peer2 < e->nvals)
            return e;
    }
    return NULL;
}

static int has_split(const xbuild *b)
{
    for (int k = 0; k < b->x->ntraces; k++)
        for (int r = 0; r < b->x->tP[k]; r++)
            for (uint32_t i = 0; i < b->raw[k][r].n; i++) {
                int op = b->raw[k][r].ev[i].op;
                if (op == MC_OP_COMM_SPLIT || op == MC_OP_CART_SUB || op == MC_OP_COMM_CREATE)
                    return 1;
            }
    return 0;
}

/* Keep mask under which members are r's sub-grid, or -1. */
int extrap_find_keep(const xgrid *g, int r, const int64_t *m, int n)
{
    for (unsigned keep = (1u << g->nd) - 1;; keep--) {
        if (grid_sub_size(g, keep) == n) {
            int ok = 1;
            for (int i = 0; i < n && ok; i++)
                ok = m[i] == grid_sub_member(g, keep, r, i);
            if (ok)
                return (int)keep;
        }
        if (keep == 0)
            break;
    }
    return -1;
}

int extrap_members_count(const mc_event *e)
{
    return e->peer2 > 0 && (uint32_t)e->peer2 <= e->nvals ? e->peer2 : (int)e->nvals;
}

/* Where the created communicators first fail to fit (splits_fit). */
typedef struct misfit {
    int k, r;
    uint32_t i;
} misfit;

/* Do all comm creations of all traces form sub-grids of dims_create(P, nd)?
 * If not, where the first does not (m, if not NULL). */
static int splits_fit(xbuild *b, int nd, misfit *m)
{
    for (int k = 0; k < b->x->ntraces; k++) {
        xgrid g = {.nd = nd, .P = b->x->tP[k]};
        mc_extrap_dims_create(g.P, nd, g.dims);
        for (int r = 0; r < g.P; r++)
            for (uint32_t i = 0; i < b->raw[k][r].n; i++) {
                const mc_event *e = &b->raw[k][r].ev[i];
                if (!extrap_is_creation(e->op) || e->newcomm == MC_COMM_NULL || !e->nvals)
                    continue;
                if (extrap_find_keep(&g, r, e->vals, extrap_members_count(e)) < 0) {
                    if (m)
                        *m = (misfit){k, r, i};
                    return 0;
                }
            }
    }
    return 1;
}

/* "2,3,6,1,..." : the first members of a created communicator. */
static void members_str(const mc_event *e, char *buf, size_t len)
{
    int n = extrap_members_count(e), j = 0;
    size_t o = 0;
    buf[0] = 0;
    for (; j < n && o + 24 < len; j++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", j ? "," : "", (long long)e->vals[j]);
    if (j < n)
        snprintf(buf + o, len - o, ",...");
}

/* The trace of the most ranks, whose rank 0's Cart_create is the grid's. */
static int largest_trace(const mc_extrap *x)
{
    int big = 0;
    for (int k = 1; k < x->ntraces; k++)
        if (x->tP[k] > x->tP[big])
            big = k;
    return big;
}

/* Dimensions (*ndp) and periodicity of the grid as the traces show it,
 * before the rules; says how in x->grid_source. */
static mc_err traced_shape(xbuild *b, int big, const mc_event *cart, int *ndp, int *periodic,
                           mc_error *err)
{
    mc_extrap *x = b->x;
    const mc_extrap_rules *ru = &x->rules;
    int nd = 1;
    if (ru->replicate) {
        snprintf(x->grid_source, sizeof x->grid_source, "replicate (every rank like rank %d)",
                 ru->rep);
    } else if (cart) {
        int n = cart->peer2;
        nd = (int)cart->vals[n];
        if (nd < 1 || nd > MAXD || (uint32_t)(n + 1 + 2 * nd) > cart->nvals)
            return mc_error_set(err, MC_ERR_USAGE, "%s: rank 0: MPI_Cart_create with %d "
                                "dimensions: at most %d are extrapolated", x->paths[big], nd,
                                MAXD);
        for (int d = 0; d < nd; d++)
            periodic[d] = cart->vals[n + 1 + nd + d] != 0;
        snprintf(x->grid_source, sizeof x->grid_source, "MPI_Cart_create (%d-D)", nd);
    } else if (has_split(b)) {
        nd = 0;
        misfit m = {0, 0, 0};
        for (int t = 2; t <= MAXD && !nd; t++)
            if (splits_fit(b, t, t == 2 ? &m : NULL))
                nd = t;
        if (!nd) {
            const mc_event *e = &b->raw[m.k][m.r].ev[m.i];
            char mem[96];
            members_str(e, mem, sizeof mem);
            return mc_error_set(err, MC_ERR_USAGE, "%s: the communicators created by "
                                "Comm_split/Cart_sub/Comm_create are not rows, columns or "
                                "planes of an MPI_Dims_create grid: their pattern is not "
                                "explained (rank %d event %llu, %s, makes one of members %s)",
                                x->paths[m.k], m.r,
                                (unsigned long long)extrap_event_no(b, m.k, m.r, m.i),
                                OPAT(x, m.k, e), mem);
        }
        snprintf(x->grid_source, sizeof x->grid_source,
                 "MPI_Dims_create(P, %d) (rows/columns of the created communicators)", nd);
    } else {
        snprintf(x->grid_source, sizeof x->grid_source, "1-D ring of the ranks");
    }
    *ndp = nd;
    return MC_OK;
}

/* Trace k's grid of x->nd dimensions: MPI_Dims_create's, or its own
 * Cart_create's (then x->from_dims_create is cleared where they differ). */
static mc_err trace_grid(xbuild *b, int k, int big, int cart, mc_error *err)
{
    mc_extrap *x = b->x;
    int nd = x->nd;
    xgrid *g = &x->tgrid[k];
    memset(g, 0, sizeof *g);
    g->nd = nd;
    g->P = x->tP[k];
    for (int d = 0; d < nd; d++)
        g->wrap[d] = x->periodic[d];
    mc_extrap_dims_create(g->P, nd, g->dims);
    const mc_event *c = cart ? find_cart(&b->raw[k][0]) : NULL;
    if (c && !x->rules.replicate) {
        int n = c->peer2;
        if ((int)c->vals[n] != nd)
            return mc_error_set(err, MC_ERR_USAGE, "%s: MPI_Cart_create has %d dimensions, "
                                "%d in %s", x->paths[k], (int)c->vals[n], nd, x->paths[big]);
        for (int d = 0; d < nd; d++) {
            if (g->dims[d] != (int)c->vals[n + 1 + d])
                x->from_dims_create = 0;
            g->dims[d] = (int)c->vals[n + 1 + d];
        }
    }
    long prod = 1;
    for (int d = 0; d < nd; d++) {
        if (g->dims[d] < 1 || g->dims[d] > g->P)
            return mc_error_set(err, MC_ERR_FORMAT, "%s: MPI_Cart_create dimension %d has "
                                "%d ranks", x->paths[k], d, g->dims[d]);
        prod *= g->dims[d];
    }
    if (prod != g->P)
        return mc_error_set(err, MC_ERR_USAGE, "%s: the process grid has %ld ranks, the "
                            "trace %d", x->paths[k], prod, g->P);
    return MC_OK;
}

mc_err extrap_find_grid(xbuild *b, mc_error *err)
{
    mc_extrap *x = b->x;
    const mc_extrap_rules *ru = &x->rules;
    int big = largest_trace(x);
    const mc_event *cart = find_cart(&b->raw[big][0]);
    int nd = 1, periodic[MAXD] = {1, 1, 1, 1};
    mc_err rc = traced_shape(b, big, cart, &nd, periodic, err);
    if (rc)
        return rc;
    if (ru->ndims && !ru->replicate) {
        if (cart && ru->ndims != nd)
            return mc_error_set(err, MC_ERR_USAGE, "grid: %d dimensions given, but the "
                                "trace's MPI_Cart_create has %d", ru->ndims, nd);
        nd = ru->ndims;
    }
    for (int d = 0; d < nd; d++)
        if (ru->periods[d] >= 0)
            periodic[d] = ru->periods[d];
    x->nd = nd;
    memcpy(x->periodic, periodic, sizeof periodic);
    x->from_dims_create = 1;
    for (int k = 0; k < x->ntraces && !rc; k++)
        rc = trace_grid(b, k, big, cart != NULL, err);
    return rc;
}
