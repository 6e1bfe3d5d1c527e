/* Verifying a model: it regenerates every rank of every trace exactly
 * (times aside), else the first event it does not explain is named. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>

/* Rank r of trace k (its events as read, rr) against its class template
 * (ev, n) with its m coarse levels inserted where the class says. */
static mc_err verify_rank(mc_extrap *x, const xgrid *g, int k, int r, const xclass *C,
                          const tev *ev, uint32_t n, int m, const rawrank *rr, genbuf *vb,
                          const char *cname, mc_error *err)
{
    uint32_t pos = 0, dins = 0;
    for (uint32_t i = 0; i < rr->n; i++) {
        tev lv;
        pdesc pd[2];
        const tev *t = &ev[pos];
        if (dins < extrap_depth_here(x, C, pos, m)) {
            extrap_depth_event(x, dins++, &lv, pd);
            t = &lv;
        } else {
            pos++;
            dins = 0;
        }
        if (pos > n)
            break; /* counted by the caller */
        mc_event out;
        char why[256];
        mc_err rc = extrap_gen(x, g, r, t, C, 0, &out, vb, NULL, err);
        if (rc)
            return rc;
        /* sizes that follow the data are the representative trace's */
        int data = x->rules.data_sizes && k != C->trace;
        if (!extrap_event_equal_as(&out, &rr->ev[i], data, why, sizeof why))
            return mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s, template P=%d rank %d) "
                                "event %u (%s): %s: not explained", x->paths[k], r, cname,
                                x->tP[C->trace], C->rank, i, OPAT(x, k, &rr->ev[i]), why);
        x->explained++;
    }
    return MC_OK;
}

mc_err extrap_verify(xbuild *b, mc_error *err)
{
    mc_extrap *x = b->x;
    genbuf vb = {0};
    mc_err rc = MC_OK;
    x->explained = 0;
    for (int k = 0; k < x->ntraces && !rc; k++) {
        const xgrid *g = &x->tgrid[k];
        tev *xev[NCLASSES] = {0};
        uint32_t xn[NCLASSES] = {0};
        int xown[NCLASSES] = {0};
        for (int c = 0; c < NCLASSES && !rc; c++)
            if (x->cls[c].present)
                rc = extrap_expand(x, &x->cls[c], g->P, &xev[c], &xn[c], &xown[c], err);
        for (int r = 0; r < g->P && !rc; r++) {
            int c = extrap_class_for(x, g, r);
            char cname[96];
            extrap_class_str(x, grid_class(g, r), cname, sizeof cname);
            const rawrank *rr = &b->raw[k][r];
            if (c < 0) {
                rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d, %s: no template", x->paths[k],
                                  r, cname);
                break;
            }
            const xclass *C = &x->cls[c];
            int m = extrap_depth_levels(x, g, r);
            uint32_t want = rr->n + (m > 0 ? C->ndpos * (uint32_t)m * x->depth.len : 0);
            if (b->full && b->full[k][r].ev)
                rr = &b->full[k][r]; /* the coarse levels are compared too */
            if (want != rr->n || (m > 0 && !C->dknown)) {
                rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s) has %u events, its "
                                  "class template (P=%d rank %d) %u: not explained",
                                  x->paths[k], r, cname, rr->n, x->tP[C->trace], C->rank,
                                  want);
                break;
            }
            rc = verify_rank(x, g, k, r, C, xev[c], xn[c], m, rr, &vb, cname, err);
        }
        for (int c = 0; c < NCLASSES; c++)
            if (xown[c])
                extrap_expanded_free(xev[c], xn[c]);
    }
    free(vb.v);
    return rc;
}
