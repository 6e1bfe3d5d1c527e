/* The small-scale regime rule (issue 27): a code often takes another path at
 * the smallest process counts or sizes — a serial path at p = 1, a special
 * case at p = 2 (hpcc's Sendrecv: 0, 16895, 3176, 3181 calls per process at
 * p = 1, 2, 4, 8) — and no law of all the points predicts the larger ones.
 * When the fit of every point is poor on held-out points, the smallest
 * parameter values are left out, one at a time, while a law of the rest
 * predicts each of its points well; see mc_model_regime in model.h. */
#define MPICAST_MODEL_INTERNAL
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Selects on the points with x >= from: 0 and *out when a law of them
 * predicts each within MC_REGIME_MAX_CV; 1 when none does; -1 out of
 * memory. */
static int fit_from(mc_model_var var, const double *x, const double *y, size_t n,
                    const mc_fit_opts *o, double from, mc_fit *out, mc_fit *all,
                    mc_select *used, double *bx, double *by, unsigned char *bu)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] >= from) {
            bx[k] = x[i], by[k] = y[i];
            bu[k] = o->unscored ? o->unscored[i] : 0;
            k++;
        }
    mc_fit_opts so = *o;
    so.unscored = o->unscored ? bu : NULL;
    mc_error e = {0};
    if (mc_model_select(var, bx, NULL, by, k, &so, out, all, used, &e) != MC_OK)
        return e.code == MC_ERR_NOMEM ? -1 : 1;
    return *used == MC_SELECT_CV && isfinite(out->cv) && out->cv <= MC_REGIME_MAX_CV ? 0 : 1;
}

mc_err mc_model_regime(mc_model_var var, const double *x, const double *y, size_t npts,
                       const mc_fit_opts *opts, double full_cv, double *from, mc_fit *best,
                       mc_fit all[MC_FAMILY_COUNT], mc_select *used, mc_error *err)
{
    *from = NAN;
    if (var == MC_VAR_PN || (opts->select != MC_SELECT_AUTO && opts->select != MC_SELECT_CV) ||
        !(full_cv > MC_REGIME_MIN_CV) || npts < 3)
        return MC_OK;
    double *xs = malloc(3 * npts * sizeof *xs);
    unsigned char *bu = malloc(npts);
    if (!xs || !bu) {
        free(xs);
        free(bu);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    double *bx = xs + npts, *by = bx + npts;
    size_t d = mcm_distinct_sorted(x, npts, xs);
    int rc = 1;
    /* at most half of the values left out: the later regime must have at
     * least the support of the earlier one; at least two values kept */
    for (size_t k = 1; rc == 1 && 2 * k <= d && d - k >= 2; k++) {
        mc_fit f, a[MC_FAMILY_COUNT];
        mc_select u;
        rc = fit_from(var, x, y, npts, opts, xs[k], &f, a, &u, bx, by, bu);
        if (rc == 0 && f.cv < full_cv / MC_REGIME_GAIN) {
            *from = xs[k];
            *best = f;
            memcpy(all, a, sizeof a);
            *used = u;
        } else if (rc == 0) {
            rc = 1;
        }
    }
    free(xs);
    free(bu);
    return rc < 0 ? mc_error_set(err, MC_ERR_NOMEM, "out of memory") : MC_OK;
}
