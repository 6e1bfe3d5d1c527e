/* --per-iteration's third normalisation (issue 27): set-up and per
 * iteration. A function called s times outside the main loop and f(x)
 * times in each of its iterations (cg's Allreduce, 2T + 1; LAMMPS's
 * Sendrecv, 6 at set-up and 6 at each re-neighbouring, every 20th step) has
 * totals s + iters·f(x): exact neither per run nor per iteration. Fitted by
 * least squares on the totals, for the laws f that are linear in their
 * coefficients (constant, linear, logarithmic, inverse, grid-split), and
 * judged by leave-one-out like every other model. */
#define MPICAST_MODEL_INTERNAL
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const mc_family setup_families[] = {MC_FAMILY_CONSTANT, MC_FAMILY_LINEAR, MC_FAMILY_LOG,
                                           MC_FAMILY_INVERSE, MC_FAMILY_GRID};
enum { NSETUP = sizeof setup_families / sizeof setup_families[0] };

/* The same margins as the selection of fit.c: rounding, and parsimony (a
 * law with more coefficients must lower the held-out error by 10 %). */
#define SETUP_PARSIMONY 0.10

typedef struct pts {
    const double *x, *it, *y;
    const unsigned char *unscored;
    size_t n;
} pts;

/* The law's column h(x) (f = b + a·h); 0 for the constant. */
static double column(mc_family fam, int gdim, double x)
{
    mc_fit f;
    memset(&f, 0, sizeof f);
    f.family = fam, f.ok = 1, f.c[1] = 1, f.gdim = gdim;
    return mc_fit_eval(&f, x, 0);
}

/* Row i of the design: 1, iters, iters·h(x) (k = 2 for the constant). */
static void row(const pts *P, mc_family fam, int gdim, size_t i, double *r)
{
    r[0] = 1, r[1] = P->it[i];
    if (fam != MC_FAMILY_CONSTANT)
        r[2] = P->it[i] * column(fam, gdim, P->x[i]);
}

/* Least squares over every point, with the design's leverages in h; -1
 * when the points cannot determine every coefficient (a dependent column:
 * every run with the same iterations, say). */
static int fit_all(const pts *P, mc_family fam, int gdim, size_t k, double *X, double *y,
                   double *h, double *c, double *rss)
{
    for (size_t i = 0; i < P->n; i++) {
        row(P, fam, gdim, i, X + i * k);
        y[i] = P->y[i];
    }
    if (P->n < k || mcm_leverage(X, P->n, k, h))
        return -1;
    return mcm_lsq(X, y, P->n, k, c, rss);
}

static double eval_row(const double *r, const double *c, size_t k)
{
    double v = 0;
    for (size_t j = 0; j < k; j++)
        v += r[j] * c[j];
    return v;
}

/* Fits one law; 0 with *f filled (f->ok), -1 when it cannot be fitted. The
 * held-out error is over the folds that can be fitted (a fold leaving out
 * the only run of other iterations cannot tell s from iters·f), NAN when
 * fewer than two, or fewer than half the scored points, can. The full
 * fit's leverages h are left in h. */
static int fit_law(const pts *P, mc_family fam, int gdim, double *buf, mc_fit *f, double *s)
{
    size_t k = fam == MC_FAMILY_CONSTANT ? 2 : 3, n = P->n;
    double *X = buf, *y = X + n * k, *h = y + n, *F = h + n, *A = F + n, c[3], rss, r[3];
    for (size_t i = 0; i < n; i++) {
        row(P, fam, gdim, i, r);
        for (size_t j = 0; j < k; j++)
            if (!isfinite(r[j]))
                return -1;
    }
    if (fit_all(P, fam, gdim, k, X, y, h, c, &rss))
        return -1;
    memset(f, 0, sizeof *f);
    f->family = fam, f->ok = 1, f->gdim = gdim;
    f->c[0] = c[1], f->c[1] = k > 2 ? c[2] : 0;
    *s = c[0];
    f->rss = rss;
    f->nparams = f->ncoef = (int)k;
    for (size_t i = 0; i < n; i++) {
        row(P, fam, gdim, i, r);
        F[i] = eval_row(r, c, k);
    }
    f->mape = mcm_mape(P->y, F, n);
    f->ar2 = f->aicc = NAN;
    /* each fold's prediction from the full fit: y_i - e_i / (1 - h_i), h
     * the leverages of the full design (O(n), as fit.c's); h_i = 1 is a
     * fold that cannot determine every coefficient (F[i] is read before
     * F[scored <= i] is written) */
    size_t scorable = 0, scored = 0;
    for (size_t i = 0; i < n; i++) {
        if (P->unscored && P->unscored[i])
            continue;
        scorable++;
        if (!(h[i] < 1 - 1e-9))
            continue;
        double pred = P->y[i] - (P->y[i] - F[i]) / (1 - h[i]);
        A[scored] = P->y[i];
        F[scored++] = pred;
    }
    f->cv = scored >= 2 && 2 * scored >= scorable ? mcm_mape(A, F, scored) : NAN;
    return 0;
}

static int beats(const mc_fit *b, const mc_fit *a)
{
    double tol = 1e-6 + 1e-6 * fabs(a->cv);
    if (b->ncoef == a->ncoef)
        return b->cv < a->cv - tol;
    if (b->ncoef > a->ncoef)
        return b->cv < a->cv * (1 - SETUP_PARSIMONY) - tol;
    return b->cv < a->cv / (1 - SETUP_PARSIMONY) + tol;
}

int mcm_setup_fit(const mc_series_opts *o, const double *x, const double *it, const double *y,
                  const unsigned char *unscored, size_t n, mcm_setup *out)
{
    memset(out, 0, sizeof *out);
    out->fit.cv = out->runner.cv = out->setup = out->runner_setup = NAN;
    if (o->by == MC_VAR_PN || n < 3 || mcm_distinct(it, n) < 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(it[i]) || it[i] <= 0)
            return 0;
    double *buf = malloc(n * (3 + 4) * sizeof *buf + sizeof *buf);
    if (!buf)
        return -1;
    pts P = {x, it, y, unscored, n};
    mc_fit fits[NSETUP];
    double s[NSETUP];
    int best = -1;
    for (int i = 0; i < NSETUP; i++) {
        mc_family fam = setup_families[i];
        fits[i].ok = 0;
        int gdim = fam == MC_FAMILY_GRID ? o->fit.grid_dims : 0;
        if ((o->fit.have_families && !o->fit.families[fam]) ||
            (fam == MC_FAMILY_GRID && (o->by != MC_VAR_P || gdim <= 0)))
            continue;
        if (fit_law(&P, fam, gdim, buf, &fits[i], &s[i]))
            continue;
        fits[i].candidate = n > (size_t)fits[i].ncoef && isfinite(fits[i].cv);
        if (fits[i].candidate && (best < 0 || beats(&fits[i], &fits[best])))
            best = i;
    }
    free(buf);
    if (best < 0)
        return 0;
    int ru = -1;
    for (int i = 0; i < NSETUP; i++)
        if (i != best && fits[i].ok && fits[i].candidate && (ru < 0 || beats(&fits[i], &fits[ru])))
            ru = i;
    out->fit = fits[best], out->setup = s[best];
    if (ru >= 0)
        out->runner = fits[ru], out->runner_setup = s[ru];
    return 1;
}
