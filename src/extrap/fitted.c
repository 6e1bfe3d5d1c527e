/* Laws fitted by mpicast model's families of P (issue 20): selection by
 * leave-one-out over constant, linear, log, inverse, linear-saturation and
 * the normal form, over three traces at least (with two, every
 * two-coefficient family fits exactly and nothing judges the choice).
 *  - Compute bursts (rule compute=fit): each class's compute per rank, so a
 *    strong-scaling code with a serial part (a/P + b) is not forced onto
 *    volume (1/P). A burst at P is its traced value times f(P)/f(P0).
 *  - Sizes no one-factor law explains (a header plus a share of the data,
 *    4096/P + 16), and repetition counts (a ring's P - 1 steps): inferred
 *    only where the family, fitted on the others, gives every traced value
 *    exactly. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double extrap_pct(double v)
{
    return fabs(v) < 5e-4 ? 0.0 : v; /* rounding noise of an exact fit: 0 % */
}

/* Total compute (bursts) of the class's representative rank in trace k. */
static double class_compute(const xclass *c)
{
    double tot = 0;
    for (uint32_t i = 0; i < c->n; i++)
        tot += c->ev[i].e.burst > 0 ? (double)c->ev[i].e.burst : 0;
    return tot;
}

/* Why a fit needs a third trace, where two are given. */
static const char *too_few_why(size_t n)
{
    return n == 2 ? ": two points fit every two-coefficient law exactly, so none can be judged"
                  : ": give traces at more process counts";
}

/* compute=fit cannot rescale a compute record's own numbers (a profile's
 * block): refuse rather than keep them unscaled. */
static int has_compute_records(const xclass *R, const char *cname, mc_error *err)
{
    for (uint32_t i = 0; i < R->n; i++)
        if (R->ev[i].e.op == MC_OP_COMPUTE && R->ev[i].nnum > 0)
            FAIL("%s, event %u: compute=fit rescales bursts, not compute records: state a "
                 "compute law (volume, const, ...)", cname, i);
    return 0;
}

int extrap_burst_fit(const mc_extrap *x, const xclass *per, xclass *R, const xclass *I,
                     const char *cname, mc_error *err)
{
    memset(&R->burst_fit, 0, sizeof R->burst_fit);
    R->burst_runner = -1;
    if (x->rules.law[MC_SC_COMPUTE] != MC_LAW_FIT)
        return 0;
    if (has_compute_records(R, cname, err))
        return -1;
    if (I && I->burst_fit.ok) { /* a leave-one-out rebuild: the model of every trace */
        R->burst_fit = I->burst_fit;
        R->burst_runner = I->burst_runner;
        R->burst_runner_cv = I->burst_runner_cv;
        R->burst_npts = I->burst_npts;
        return 0;
    }
    double P[64], y[64];
    size_t n = 0;
    for (int k = 0; k < x->ntraces && n < 64; k++)
        if (per[k].present) {
            P[n] = x->tP[k];
            y[n++] = class_compute(&per[k]);
        }
    if (n < 3)
        FAIL("%s: compute=fit needs the class in three traces or more (it is in %zu)%s",
             cname, n, too_few_why(n));
    mc_fit_opts o = mc_fit_opts_default();
    o.select = MC_SELECT_CV;
    mc_fit all[MC_FAMILY_COUNT];
    mc_select used;
    if (mc_model_select(MC_VAR_P, P, NULL, y, n, &o, &R->burst_fit, all, &used, err) != MC_OK)
        return -1;
    R->burst_npts = (int)n;
    R->burst_runner = mc_model_runner_up(all, R->burst_fit.family, used);
    R->burst_runner_cv = R->burst_runner >= 0 ? all[R->burst_runner].cv : NAN;
    return 0;
}

double extrap_burst_factor(const xclass *C, const tev *t, int P, int64_t ct, int nd)
{
    if (C->burst_law == MC_LAW_CONST)
        return 1.0;
    if (C->burst_law == MC_LAW_FIT)
        return mc_fit_eval(&C->burst_fit, P, 0) / mc_fit_eval(&C->burst_fit, t->baseP, 0);
    return law_f(C->burst_law, P, (double)ct, nd) / law_f(C->burst_law, t->baseP,
                                                        (double)t->csize, nd);
}

/* A fitted size of class c that is negative at P. */
static mc_err size_check(const mc_extrap *x, int c, int P, mc_error *err)
{
    const xclass *C = &x->cls[c];
    for (uint32_t i = 0; i < C->n; i++)
        for (uint32_t s = 0; C->ev[i].fit && s < C->ev[i].nnum; s++)
            if (C->ev[i].law[s] == MC_LAW_FIT && extrap_fit_size(&C->ev[i], s, P) < 0) {
                char name[64], law[200];
                extrap_class_str(x, c, name, sizeof name);
                extrap_law_str(&C->ev[i], s, law, sizeof law);
                return mc_error_set(err, MC_ERR_USAGE, "%s, event %u (%s): its %s, %s, is "
                                    "negative at P=%d: not extrapolated there", name, i,
                                    OPAT(x, C->trace, &C->ev[i].e),
                                    extrap_slot_name(&C->ev[i], s), law, P);
            }
    return MC_OK;
}

mc_err extrap_fit_check(const mc_extrap *x, int P, mc_error *err)
{
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        if (C->present && size_check(x, c, P, err))
            return MC_ERR_USAGE;
        /* a class without compute has no burst to scale, whatever its fit gives */
        if (!C->present || C->burst_law != MC_LAW_FIT || class_compute(C) == 0)
            continue;
        double at = mc_fit_eval(&C->burst_fit, P, 0);
        double base = mc_fit_eval(&C->burst_fit, C->ev[0].baseP, 0);
        if (!(at >= 0) || !(base > 0)) {
            char name[64], formula[160];
            extrap_class_str(x, c, name, sizeof name);
            mc_fit_formula(&C->burst_fit, "P", formula, sizeof formula);
            return mc_error_set(err, MC_ERR_USAGE, "%s: compute per rank fitted as %s is %g at "
                                "P=%d: not extrapolated there (state a compute law)", name,
                                formula, at >= 0 ? base : at, at >= 0 ? C->ev[0].baseP : P);
        }
    }
    return MC_OK;
}

/* The data size fit (size.p2p=fit) with the largest held-out error, if above
 * the warning's bound, and how many are. */
static int size_fit_warning(const mc_extrap *x, char *buf, size_t len)
{
    const mc_fit *worst = NULL;
    int wc = -1, nbad = 0, nfit = 0;
    uint32_t wi = 0;
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        for (uint32_t i = 0; C->present && i < C->n; i++)
            for (uint32_t s = 0; C->ev[i].fit && s < C->ev[i].nnum && s < 32; s++) {
                const tev *t = &C->ev[i];
                if (t->law[s] != MC_LAW_FIT || !t->dsz || !(t->dmask >> s & 1u))
                    continue;
                nfit++;
                if (!(t->fit[s].cv > MC_EXTRAP_FIT_WARN_CV))
                    continue;
                nbad++;
                if (!worst || t->fit[s].cv > worst->cv)
                    worst = &t->fit[s], wc = c, wi = i;
            }
    }
    if (!worst)
        return 0;
    char name[64];
    extrap_class_str(x, wc, name, sizeof name);
    snprintf(buf, len, "%d of %d sizes fitted to the data (size.p2p=fit) miss a trace they "
             "were not fitted on by more than %.3g %%, the worst %s event %u (%s, held-out "
             "error %.3g %%): their sizes at other P are uncertain (--explain shows each)",
             nbad, nfit, MC_EXTRAP_FIT_WARN_CV, name, wi, mc_family_name(worst->family),
             extrap_pct(worst->cv));
    return 1;
}

int mc_extrap_fit_warning(const mc_extrap *x, char *buf, size_t len)
{
    int worst = -1;
    for (int c = 0; c < NCLASSES; c++) {
        const xclass *C = &x->cls[c];
        if (C->present && C->burst_law == MC_LAW_FIT && C->burst_fit.cv > MC_EXTRAP_FIT_WARN_CV &&
            (worst < 0 || C->burst_fit.cv > x->cls[worst].burst_fit.cv))
            worst = c;
    }
    if (worst < 0)
        return size_fit_warning(x, buf, len);
    const xclass *C = &x->cls[worst];
    char name[64];
    extrap_class_str(x, worst, name, sizeof name);
    snprintf(buf, len, "%s: compute per rank fitted as %s over %d traces predicts a trace it "
             "was not fitted on within %.3g %% only: its bursts at other P are uncertain "
             "(--explain shows every class)", name, mc_family_name(C->burst_fit.family),
             C->burst_npts, extrap_pct(C->burst_fit.cv));
    return 1;
}

/* ------------------------------------------------------------ sizes */

/* Whether f's family, fitted on all traced sizes but one, gives that one to
 * the byte, for each of the n (held out: a least-squares line through three
 * sizes that are nearly on one rounds to all three without being their law). */
static int exact(const mc_fit *f, const double *v, const double *P, int n)
{
    if (!f->ok || n > 64)
        return 0;
    mc_fit_opts o = mc_fit_opts_default();
    for (int out = 0; out < n; out++) {
        double x[64], y[64];
        int m = 0;
        for (int i = 0; i < n; i++)
            if (i != out)
                x[m] = P[i], y[m++] = v[i];
        mc_fit g;
        if (mc_fit_family(f->family, MC_VAR_P, x, NULL, y, (size_t)m, &o, 0, &g) != MC_OK ||
            !g.ok || fabs(mc_fit_eval(&g, P[out], 0) - v[out]) > 0.5)
            return 0;
    }
    return 1;
}

int extrap_size_fit(const double *v, const double *P, int n, mc_fit *fit, int *other)
{
    *other = -1;
    if (n < 3)
        return 0;
    mc_fit_opts o = mc_fit_opts_default();
    o.select = MC_SELECT_CV;
    mc_select used;
    mc_error e = {0};
    mc_fit all[MC_FAMILY_COUNT];
    if (mc_model_select(MC_VAR_P, P, NULL, v, (size_t)n, &o, fit, all, &used, &e) != MC_OK ||
        !exact(fit, v, P, n))
        return 0;
    /* Another candidate as exact that parts from it beyond the traces: a guess. */
    double far = 0;
    for (int i = 0; i < n; i++)
        far = P[i] > far ? P[i] : far;
    far *= 64;
    for (int f = 0; f < MC_FAMILY_COUNT; f++)
        if (f != (int)fit->family && all[f].candidate && exact(&all[f], v, P, n) &&
            fabs(mc_fit_eval(&all[f], far, 0) - mc_fit_eval(fit, far, 0)) > 0.5) {
            *other = f;
            return -1;
        }
    return 1;
}

int extrap_set_fit(tev *t, uint32_t s, const mc_fit *f)
{
    if (!t->fit && !(t->fit = calloc(t->nnum, sizeof *t->fit)))
        return -1;
    t->fit[s] = *f;
    t->law[s] = MC_LAW_FIT;
    return 0;
}

int64_t extrap_fit_size(const tev *t, uint32_t s, int P)
{
    double r = mc_fit_eval(&t->fit[s], P, 0);
    return r > 9e18 ? INT64_MAX : r < -0.5 ? -1 : r < 0 ? 0 : llround(r);
}

/* ------------------------------------------------------------ data sizes */

/* Slot s's mean over the members of one trace's template event. */
static double data_mean(const tev *t, uint32_t s)
{
    if (!t->dsz || s >= 32 || !(t->dmask >> s & 1u) || !t->dnm)
        return (double)t->num[s];
    double sum = 0;
    for (uint32_t j = 0; j < t->dnm; j++)
        sum += (double)t->dsz[(size_t)j * t->nnum + s];
    return sum / t->dnm;
}

int extrap_data_fit(const mc_extrap *x, const xclass *per, tev *t, uint32_t i, uint32_t s,
                    const char *cname, mc_error *err)
{
    double P[64], y[64];
    size_t n = 0;
    for (int k = 0; k < x->ntraces && n < 64; k++)
        if (per[k].present && i < per[k].n && s < per[k].ev[i].nnum) {
            P[n] = x->tP[k];
            y[n++] = data_mean(&per[k].ev[i], s);
        }
    if (n < 3)
        FAIL("%s, event %u: %s: size.p2p=fit needs the class in three traces or more (it is "
             "in %zu)%s", cname, i, extrap_slot_name(t, s), n, too_few_why(n));
    mc_fit_opts o = mc_fit_opts_default();
    o.select = MC_SELECT_CV;
    o.shell_dims = x->nd; /* a face with its ghost shell, on the traced grid */
    mc_fit fit, all[MC_FAMILY_COUNT];
    mc_select used;
    if (mc_model_select(MC_VAR_P, P, NULL, y, n, &o, &fit, all, &used, err) != MC_OK)
        return -1;
    if (extrap_set_fit(t, s, &fit))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    return 0;
}

int64_t extrap_fit_rescale(const tev *t, uint32_t s, int64_t v, int P)
{
    double base = mc_fit_eval(&t->fit[s], t->baseP, 0);
    if (!(base > 0.5)) /* the traced mean is 0: the members' sizes carry no scale */
        return extrap_fit_size(t, s, P);
    double r = (double)v * mc_fit_eval(&t->fit[s], P, 0) / base;
    return r > 9e18 ? INT64_MAX : r < 0 ? 0 : llround(r);
}

/* "fit (inverse: 4096*(1/P) + 16, held-out error 0 %)" */
static void fit_str(const mc_fit *f, char *buf, size_t len)
{
    char formula[128];
    mc_fit_formula(f, "P", formula, sizeof formula);
    snprintf(buf, len, "fit (%s: %s, held-out error %.3g %%)", mc_family_name(f->family),
             formula, extrap_pct(f->cv));
}

void extrap_law_str(const tev *t, uint32_t s, char *buf, size_t len)
{
    char fit[200] = "";
    if (t->law[s] == MC_LAW_FIT && t->fit)
        fit_str(&t->fit[s], fit, sizeof fit);
    if (t->dsz && s < 32 && (t->dmask >> s & 1u)) /* rule sizes data */
        snprintf(buf, len, "data x %s", *fit ? fit : mc_extrap_law_name(t->law[s]));
    else if (*fit)
        snprintf(buf, len, "%s", fit);
    else
        snprintf(buf, len, "%s", mc_extrap_law_name(t->law[s]));
}

/* ------------------------------------------------------------ repetitions */

double extrap_rep_copies(const mc_extrap *x, const xrep *B, int P)
{
    if (B->law == MC_LAW_FIT)
        return mc_fit_eval(&B->fit, P, 0);
    return B->a * law_f(B->law, P, 1, x->nd);
}

void extrap_rep_law_str(const xrep *B, char *buf, size_t len)
{
    if (B->law == MC_LAW_FIT)
        fit_str(&B->fit, buf, len);
    else
        snprintf(buf, len, "%g x %s(P)", B->a, mc_extrap_law_name(B->law));
}
