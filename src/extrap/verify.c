/* Verifying a model: it regenerates every rank of every trace exactly
 * (times aside), else the first event it does not explain is named. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdlib.h>

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
            if (xn[c] != rr->n) {
                rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s) has %u events, its "
                                  "class template (P=%d rank %d) %u: not explained",
                                  x->paths[k], r, cname, rr->n, x->tP[C->trace], C->rank,
                                  xn[c]);
                break;
            }
            for (uint32_t i = 0; i < rr->n && !rc; i++) {
                mc_event out;
                rc = extrap_gen(x, g, r, &xev[c][i], C, 0, &out, &vb, NULL, err);
                char why[256];
                if (!rc && !extrap_event_equal(&out, &rr->ev[i], why, sizeof why))
                    rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s, template P=%d rank "
                                      "%d) event %u (%s): %s: not explained", x->paths[k], r,
                                      cname, x->tP[C->trace], C->rank, i,
                                      mc_op_name(rr->ev[i].op), why);
                else
                    x->explained++;
            }
        }
        for (int c = 0; c < NCLASSES; c++)
            if (xown[c])
                extrap_expanded_free(xev[c], xn[c]);
    }
    free(vb.v);
    return rc;
}
