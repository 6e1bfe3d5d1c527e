/* Model families, their least-squares fits, and selection (docs/models.md).
 *
 * Every family is linear in its coefficients once its nonlinear part is
 * fixed (the normal form's exponents, the saturation breakpoint, the pn
 * terms); that part is chosen by least residual sum of squares (ties go to
 * the simpler choice), the coefficients by gsl_multifit_linear. Families are
 * then compared by the selection criterion: MAPE, leave-one-out
 * cross-validation (each fold refits everything, the nonlinear part too) or
 * adjusted R².
 */
#define MPICAST_MODEL_INTERNAL
#include "mpicast/model.h"
#include "model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ terms */

static int all_positive_x(const double *x, size_t N)
{
    for (size_t i = 0; i < N; i++)
        if (!(x[i] > 0))
            return 0;
    return 1;
}

/* The exponents i of Extra-P's normal form, as fractions. */
static const int EXPONENTS[][2] = {
    {0, 1}, {1, 4}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {1, 1}, {5, 4}, {4, 3},
    {3, 2}, {5, 3}, {7, 4}, {2, 1}, {9, 4}, {7, 3}, {5, 2}, {8, 3}, {11, 4}, {3, 1},
};
enum { NEXP = sizeof EXPONENTS / sizeof EXPONENTS[0], MAX_TERMS = 2 * NEXP * 3 };

double mc_term_eval(mc_term t, double x)
{
    if (!(x > 0))
        return NAN;
    double v = t.num == 0 ? 1 : pow(x, (double)t.num / t.den);
    double l = log2(x);
    for (int k = 0; k < t.j; k++)
        v *= l;
    return v;
}

static int term_is_const(mc_term t)
{
    return t.num == 0 && t.j == 0;
}

/* Simpler terms first: fewer logarithms, then integer exponents before
 * halves, thirds, quarters..., then smaller |i|, positive before negative. */
static int term_cmp(const void *a, const void *b)
{
    const mc_term *x = a, *y = b;
    if (x->j != y->j)
        return x->j - y->j;
    if (x->den != y->den)
        return x->den - y->den;
    int ax = abs(x->num), ay = abs(y->num);
    if (ax != ay)
        return ax - ay;
    return (x->num < 0) - (y->num < 0);
}

/* The hypotheses of the normal form for one parameter, simplest first,
 * without the constant term. Returns their count. */
static size_t normal_terms(int negative, mc_term *out)
{
    size_t n = 0;
    for (int j = 0; j <= 2; j++)
        for (int e = 0; e < NEXP; e++) {
            for (int s = 0; s < (negative && EXPONENTS[e][0] ? 2 : 1); s++) {
                mc_term t = {s ? -EXPONENTS[e][0] : EXPONENTS[e][0], EXPONENTS[e][1], j};
                if (!term_is_const(t))
                    out[n++] = t;
            }
        }
    qsort(out, n, sizeof *out, term_cmp);
    return n;
}

const char *mc_family_name(mc_family f)
{
    static const char *const names[MC_FAMILY_COUNT] = {
        "constant", "linear", "logarithmic", "inverse", "linear-saturation",
        "grid-split", "ghost-shell", "normal-form", "pn-product", "pn-sum", "pn-full"};
    return (unsigned)f < MC_FAMILY_COUNT ? names[f] : "unknown";
}

const char *mc_model_var_name(mc_model_var by)
{
    return by == MC_VAR_N ? "n" : "p";
}

const char *mc_select_name(mc_select s)
{
    static const char *const names[] = {"auto", "mape", "cv", "ar2", "aicc", "exact"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

int mc_family_parse(const char *name)
{
    for (int f = 0; f < MC_FAMILY_COUNT; f++)
        if (strcmp(name, mc_family_name((mc_family)f)) == 0)
            return f;
    if (strcmp(name, "log") == 0)
        return MC_FAMILY_LOG;
    if (strcmp(name, "const") == 0)
        return MC_FAMILY_CONSTANT;
    if (strcmp(name, "saturation") == 0)
        return MC_FAMILY_SATURATION;
    if (strcmp(name, "grid") == 0)
        return MC_FAMILY_GRID;
    return -1;
}

mc_fit_opts mc_fit_opts_default(void)
{
    mc_fit_opts o;
    memset(&o, 0, sizeof o);
    o.select = MC_SELECT_AUTO;
    o.negative_p = 1;
    return o;
}

/* ------------------------------------------------------------ evaluation */

/* MPI_Dims_create(p, d) makes the dimensions as equal as it can, so it
 * splits min(d, Ω(p)) of them (checked against mc_extrap_dims_create for
 * p <= 10^5, d <= 4). */
int mc_grid_split(double p, int d)
{
    if (d < 1 || !(p >= 1) || p > 1e15 || p != floor(p))
        return -1;
    long long q = (long long)p;
    int k = 0;
    for (long long f = 2; f * f <= q && k < d; f++)
        while (q % f == 0 && k < d)
            q /= f, k++;
    if (q > 1 && k < d)
        k++;
    return k;
}

static double family_column(const mc_fit *f, double x)
{
    switch (f->family) {
    case MC_FAMILY_CONSTANT: return 0;
    case MC_FAMILY_LINEAR: return x;
    case MC_FAMILY_LOG: return x > 0 ? log10(x) : NAN;
    case MC_FAMILY_INVERSE: return x != 0 ? 1 / x : NAN;
    case MC_FAMILY_SATURATION: return x < f->xbreak ? x : f->xbreak;
    case MC_FAMILY_GRID: { /* a step function: between process counts (plots) it rounds */
        int s = mc_grid_split(x >= 1 && x < 1e15 ? floor(x + 0.5) : x, f->gdim);
        return s < 0 ? NAN : s;
    }
    case MC_FAMILY_NORMAL: return mc_term_eval(f->tp, x);
    default: return NAN;
    }
}

/* The pn families' columns besides the intercept, constant terms dropped.
 * Returns their count (0..3). */
static int pn_columns(mc_family fam, mc_term tp, mc_term tn, double p, double n, double *col)
{
    double f = mc_term_eval(tp, p), g = mc_term_eval(tn, n);
    int fc = term_is_const(tp), gc = term_is_const(tn), k = 0;
    if (fam == MC_FAMILY_PN_PRODUCT) {
        if (!(fc && gc))
            col[k++] = f * g;
        return k;
    }
    if (!fc)
        col[k++] = f;
    if (!gc)
        col[k++] = g;
    if (fam == MC_FAMILY_PN_FULL && !fc && !gc)
        col[k++] = f * g;
    return k;
}

/* The ghost shell's columns besides the intercept: x^(-j/d), j = 1 .. d-1. */
static int shell_columns(int d, double x, double *col)
{
    for (int j = 1; j < d; j++)
        col[j - 1] = x > 0 ? pow(x, -(double)j / d) : NAN;
    return d - 1;
}

double mc_fit_eval(const mc_fit *f, double x, double x2)
{
    if (!f->ok)
        return NAN;
    if (f->family == MC_FAMILY_SHELL) {
        double col[3], v = f->c[0];
        for (int i = 0, k = shell_columns(f->gdim, x, col); i < k; i++)
            v += f->c[i + 1] * col[i];
        return v;
    }
    if (f->family >= MC_FAMILY_PN_PRODUCT) {
        double col[3];
        int k = pn_columns(f->family, f->tp, f->tn, x, x2, col);
        double v = f->c[0];
        for (int i = 0; i < k; i++)
            v += f->c[i + 1] * col[i];
        return v;
    }
    return f->c[0] + f->c[1] * family_column(f, x);
}

/* ------------------------------------------------------------ fitting */

/* Fits b + a·g(x) with the family's column g; fills c[0]=b, c[1]=a, rss. */
static int fit_column(mc_fit *f, const double *x, const double *y, size_t N)
{
    double *X = malloc(2 * N * sizeof *X);
    if (!X)
        return -1;
    for (size_t i = 0; i < N; i++) {
        X[2 * i] = 1;
        X[2 * i + 1] = family_column(f, x[i]);
        if (!isfinite(X[2 * i + 1])) {
            free(X);
            return -1;
        }
    }
    int rc = mcm_lsq(X, y, N, 2, f->c, &f->rss);
    free(X);
    return rc;
}

/* Relative tie tolerance on residual sums of squares: differences below it
 * are rounding, and the simpler choice stays. */
static double rss_tol(const double *y, size_t N)
{
    double s = 0;
    for (size_t i = 0; i < N; i++)
        s += y[i] * y[i];
    return 1e-10 * s + 1e-300;
}

static int fit_normal(mc_fit *f, mc_model_var var, const double *x, const double *y, size_t N,
                      const mc_fit_opts *o)
{
    /* two coefficients plus a choice among ~120 exponent pairs fit any three
     * points: demand four (five under cross-validation, whose folds drop one) */
    if (mcm_distinct(x, N) < 4)
        return -1;
    mc_term terms[MAX_TERMS];
    size_t nt = normal_terms(var == MC_VAR_P && o->negative_p, terms);
    double tol = rss_tol(y, N);
    mc_fit best = *f, cur = *f;
    best.ok = 0;
    for (size_t t = 0; t < nt; t++) {
        cur.tp = terms[t];
        if (fit_column(&cur, x, y, N) == 0 && (!best.ok || cur.rss < best.rss - tol)) {
            best = cur;
            best.ok = 1;
        }
    }
    if (!best.ok)
        return -1;
    *f = best;
    return 0;
}

/* The ghost shell of a d-dimensional subdomain: least squares over the
 * intercept and x^(-j/d), j < d; needs d distinct x. */
static int fit_shell(mc_fit *f, const double *x, const double *y, size_t N, int d)
{
    if (d < 2 || d > 3 || !all_positive_x(x, N) || mcm_distinct(x, N) < (size_t)d)
        return -1;
    f->gdim = d;
    f->nparams = d;
    double *X = malloc((size_t)d * N * sizeof *X);
    if (!X)
        return -1;
    for (size_t i = 0; i < N; i++) {
        X[(size_t)d * i] = 1;
        shell_columns(d, x[i], X + (size_t)d * i + 1);
    }
    int rc = mcm_lsq(X, y, N, (size_t)d, f->c, &f->rss);
    free(X);
    return rc;
}

/* Saturation: the breakpoint x′ is searched over prefix sums (loo.c; the
 * search is docs/models.md's), then the coefficients are fitted by SVD at
 * that x′. For fixed x′ the model b + a·min(x, x′) is linear. */
static int fit_saturation(mc_fit *f, const double *x, const double *y, size_t N)
{
    mcm_sat *s = mcm_sat_create(x, y, N);
    int rc = s ? mcm_sat_fit(s, &f->xbreak) : -1;
    mcm_sat_free(s);
    return rc ? -1 : fit_column(f, x, y, N);
}

/* ------------------------------------------------------------ two parameters */

enum { PN_TOP = 3 };

/* The candidate terms for one parameter of a pn model: the constant, then
 * the PN_TOP normal-form hypotheses that fit best along the lines where the
 * other parameter is fixed (each line's RSS relative to its own spread, summed
 * over lines). Without such lines, a small fixed set. */
static size_t pn_candidates(const double *x, const double *other, const double *y, size_t N,
                            int negative, mc_term *out)
{
    mc_term terms[MAX_TERMS];
    size_t nt = normal_terms(negative, terms);
    double *score = calloc(nt, sizeof *score);
    double *lx = malloc(N * sizeof *lx), *ly = malloc(N * sizeof *ly);
    char *done = calloc(N, 1);
    size_t nout = 0, lines = 0;
    out[nout++] = (mc_term){0, 1, 0};
    if (!score || !lx || !ly || !done)
        goto fallback;
    for (size_t i = 0; i < N; i++) {
        if (done[i])
            continue;
        size_t L = 0;
        for (size_t k = i; k < N; k++)
            if (other[k] == other[i]) {
                done[k] = 1;
                lx[L] = x[k], ly[L] = y[k], L++;
            }
        if (mcm_distinct(lx, L) < 3)
            continue;
        double sst = mcm_sst(ly, L);
        if (sst <= 0)
            continue;
        lines++;
        for (size_t t = 0; t < nt; t++) {
            mc_fit f = {.family = MC_FAMILY_NORMAL, .tp = terms[t]};
            score[t] += fit_column(&f, lx, ly, L) == 0 ? f.rss / sst : 1e300;
        }
    }
    if (lines > 0) {
        for (int r = 0; r < PN_TOP; r++) {
            size_t best = nt;
            for (size_t t = 0; t < nt; t++)
                if (score[t] >= 0 && (best == nt || score[t] < score[best] * (1 - 1e-9) - 1e-300))
                    best = t;
            if (best == nt)
                break;
            out[nout++] = terms[best];
            score[best] = -1; /* taken */
        }
    }
fallback:
    if (lines == 0) {
        static const mc_term few[] = {{1, 1, 0}, {-1, 1, 0}, {1, 2, 0}, {-1, 2, 0}, {2, 1, 0},
                                      {0, 1, 1}, {1, 1, 1}, {-1, 1, 1}};
        for (size_t t = 0; t < sizeof few / sizeof few[0]; t++)
            if (negative || few[t].num >= 0)
                out[nout++] = few[t];
    }
    free(score);
    free(lx);
    free(ly);
    free(done);
    return nout;
}

static int fit_pn_pair(mc_fit *f, const double *p, const double *n, const double *y, size_t N)
{
    double *X = malloc(4 * N * sizeof *X);
    if (!X)
        return -1;
    int k = 0;
    for (size_t i = 0; i < N; i++) {
        double col[3];
        k = pn_columns(f->family, f->tp, f->tn, p[i], n[i], col);
        X[i * (k + 1)] = 1;
        for (int j = 0; j < k; j++) {
            if (!isfinite(col[j])) {
                free(X);
                return -1;
            }
            X[i * (k + 1) + 1 + j] = col[j];
        }
    }
    memset(f->c, 0, sizeof f->c);
    int rc = mcm_lsq(X, y, N, (size_t)k + 1, f->c, &f->rss);
    f->nparams = k + 1;
    free(X);
    return rc;
}

static int fit_pn(mc_fit *f, const double *p, const double *n, const double *y, size_t N,
                  const mc_fit_opts *o)
{
    mc_term tp[PN_TOP + 16], tn[PN_TOP + 16];
    size_t np = pn_candidates(p, n, y, N, o->negative_p, tp);
    size_t nn = pn_candidates(n, p, y, N, 0, tn);
    double tol = rss_tol(y, N);
    mc_fit best = *f, cur = *f;
    best.ok = 0;
    for (size_t a = 0; a < np; a++)
        for (size_t b = 0; b < nn; b++) {
            cur.tp = tp[a], cur.tn = tn[b];
            /* a sum or full model with a constant term duplicates a simpler
             * family; the product with both constant is the mean */
            if (f->family != MC_FAMILY_PN_PRODUCT && (term_is_const(tp[a]) || term_is_const(tn[b])))
                continue;
            if (fit_pn_pair(&cur, p, n, y, N) == 0 && (!best.ok || cur.rss < best.rss - tol)) {
                best = cur;
                best.ok = 1;
            }
        }
    if (!best.ok)
        return -1;
    *f = best;
    return 0;
}

/* ------------------------------------------------------------ one family */

static int nparams_of(mc_family fam)
{
    return fam == MC_FAMILY_SATURATION ? 3 : fam == MC_FAMILY_CONSTANT ? 1 : 2;
}

/* The constant: the mean (any parameter, also by pn). */
static int fit_constant(mc_fit *f, const double *y, size_t N)
{
    if (N < 1)
        return -1;
    double s = 0;
    for (size_t i = 0; i < N; i++)
        s += y[i];
    f->c[0] = s / (double)N;
    f->c[1] = 0;
    f->rss = 0;
    for (size_t i = 0; i < N; i++)
        f->rss += (y[i] - f->c[0]) * (y[i] - f->c[0]);
    return 0;
}


/* The distinct split counts of the x (a slope needs two); 0 when an x is
 * not a process count. */
static size_t distinct_split(const double *x, size_t N, int d)
{
    unsigned long seen = 0;
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        int s = mc_grid_split(x[i], d);
        if (s < 0 || s >= 64)
            return 0;
        k += !(seen >> s & 1ul);
        seen |= 1ul << s;
    }
    return k;
}

/* Fits the family's coefficients (no quality measures). */
static int fit_core(mc_family fam, mc_model_var var, const double *x, const double *x2,
                    const double *y, size_t N, const mc_fit_opts *o, mc_fit *f)
{
    memset(f, 0, sizeof *f);
    f->family = fam;
    f->nparams = nparams_of(fam);
    if (fam == MC_FAMILY_CONSTANT)
        return (f->ok = fit_constant(f, y, N) == 0) ? 0 : -1;
    int pn = fam >= MC_FAMILY_PN_PRODUCT;
    if (pn != (var == MC_VAR_PN) || (pn && !x2))
        return -1;
    int rc;
    switch (fam) {
    case MC_FAMILY_LINEAR:
        rc = mcm_distinct(x, N) >= 2 ? fit_column(f, x, y, N) : -1;
        break;
    case MC_FAMILY_LOG:
    case MC_FAMILY_INVERSE:
        rc = mcm_distinct(x, N) >= 2 && all_positive_x(x, N) ? fit_column(f, x, y, N) : -1;
        break;
    case MC_FAMILY_SATURATION: rc = fit_saturation(f, x, y, N); break;
    case MC_FAMILY_GRID: /* a law in p of the runs' own grid */
        f->gdim = o->grid_dims;
        rc = var == MC_VAR_P && o->grid_dims > 0 && distinct_split(x, N, o->grid_dims) >= 2
                 ? fit_column(f, x, y, N)
                 : -1;
        break;
    case MC_FAMILY_SHELL:
        rc = var == MC_VAR_P ? fit_shell(f, x, y, N, o->shell_dims) : -1;
        break;
    case MC_FAMILY_NORMAL:
        rc = all_positive_x(x, N) ? fit_normal(f, var, x, y, N, o) : -1;
        break;
    default:
        rc = all_positive_x(x, N) && all_positive_x(x2, N) && mcm_distinct(x, N) >= 2 &&
                     mcm_distinct(x2, N) >= 2
                 ? fit_pn(f, x, x2, y, N, o)
                 : -1;
        break;
    }
    f->ok = rc == 0;
    return rc;
}

/* Leave-one-out by refitting each fold (the pn families, whose candidate
 * terms are chosen from the fold's own lines). */
static int loo_refit(mc_family fam, mc_model_var var, const double *x, const double *x2,
                     const double *y, size_t N, const mc_fit_opts *o, double *F)
{
    double *bx = malloc(N * sizeof *bx), *bx2 = malloc(N * sizeof *bx2),
           *by = malloc(N * sizeof *by);
    size_t i = 0;
    if (bx && bx2 && by)
        for (i = 0; i < N; i++) {
            size_t k = 0;
            for (size_t j = 0; j < N; j++)
                if (j != i) {
                    bx[k] = x[j], bx2[k] = x2 ? x2[j] : 0, by[k] = y[j];
                    k++;
                }
            mc_fit f;
            if (fit_core(fam, var, bx, x2 ? bx2 : NULL, by, k, o, &f))
                break;
            F[i] = mc_fit_eval(&f, x[i], x2 ? x2[i] : 0);
        }
    free(bx);
    free(bx2);
    free(by);
    return i == N ? 0 : -1;
}

static int cmp_dbl(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return u < v ? -1 : u > v;
}

/* The fewest distinct values of x left when one point is removed. */
static size_t fold_distinct(const double *x, size_t N)
{
    double *s = malloc(N * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, x, N * sizeof *s);
    qsort(s, N, sizeof *s, cmp_dbl);
    size_t d = 0, single = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && s[j] == s[i])
            j++;
        d++, single |= j - i == 1;
        i = j;
    }
    free(s);
    return d - single;
}

/* Normal form: each fold takes the exponent pair with the least fold RSS
 * (ties to 1e-10 of the fold's Σy² going to the simpler pair), its RSS and
 * prediction downdated from the full fit of that pair: O(N) per pair. */
static int loo_normal(mc_model_var var, const double *x, const double *y, size_t N,
                      const mc_fit_opts *o, double *F)
{
    if (mcm_distinct(x, N) < 5 || !all_positive_x(x, N))
        return -1; /* folds need 4 distinct x */
    mc_term terms[MAX_TERMS];
    size_t nt = normal_terms(var == MC_VAR_P && o->negative_p, terms);
    double *z = malloc(N * sizeof *z), *pr = malloc(N * sizeof *pr),
           *fr = malloc(N * sizeof *fr), *best = malloc(N * sizeof *best);
    int rc = z && pr && fr && best ? 0 : -1;
    double sy2 = 0;
    for (size_t i = 0; i < N; i++)
        sy2 += y[i] * y[i];
    for (size_t i = 0; rc == 0 && i < N; i++)
        best[i] = INFINITY, F[i] = NAN;
    for (size_t t = 0; rc == 0 && t < nt; t++) {
        for (size_t i = 0; i < N; i++)
            z[i] = mc_term_eval(terms[t], x[i]);
        if (mcm_loo_column(z, y, N, pr, fr))
            continue;
        for (size_t i = 0; i < N; i++) {
            double tol = 1e-10 * (sy2 - y[i] * y[i]) + 1e-300;
            if (isfinite(fr[i]) && (isinf(best[i]) || fr[i] < best[i] - tol))
                best[i] = fr[i], F[i] = pr[i];
        }
    }
    free(z);
    free(pr);
    free(fr);
    free(best);
    return rc;
}

/* Leave-one-out: each point predicted by the family fitted without it (the
 * nonlinear part chosen again in each fold); the mean absolute percentage
 * error of those predictions. NAN when a fold cannot be fitted. */
static double loo_error(mc_family fam, mc_model_var var, const double *x, const double *x2,
                        const double *y, size_t N, const mc_fit_opts *o, const mc_fit *full)
{
    if (N < 3 && !(fam == MC_FAMILY_CONSTANT && N == 2))
        return NAN;
    double *F = malloc(N * sizeof *F), *z = malloc(N * sizeof *z);
    /* every fold must keep two distinct x (pn: its own checks) */
    int rc = F && z && (x2 || fam == MC_FAMILY_CONSTANT || fold_distinct(x, N) >= 2) ? 0 : -1;
    if (rc == 0) {
        switch (fam) {
        case MC_FAMILY_CONSTANT: /* the mean of the others */
            for (size_t i = 0; i < N; i++)
                F[i] = (full->c[0] * (double)N - y[i]) / (double)(N - 1);
            break;
        case MC_FAMILY_LINEAR:
        case MC_FAMILY_LOG:
        case MC_FAMILY_INVERSE:
        case MC_FAMILY_GRID:
            for (size_t i = 0; i < N; i++)
                z[i] = family_column(full, x[i]);
            rc = mcm_loo_column(z, y, N, F, NULL);
            break;
        case MC_FAMILY_SATURATION: {
            mcm_sat *s = mcm_sat_create(x, y, N);
            rc = s ? mcm_sat_loo(s, x, y, full->xbreak, F) : -1;
            mcm_sat_free(s);
            break;
        }
        case MC_FAMILY_NORMAL: rc = loo_normal(var, x, y, N, o, F); break;
        default: rc = loo_refit(fam, var, x, x2, y, N, o, F); break;
        }
    }
    for (size_t i = 0; rc == 0 && i < N; i++)
        if (!isfinite(F[i]))
            rc = -1;
    double out = NAN;
    if (rc == 0 && o->unscored) { /* filled zeros: fitted, not scored */
        size_t k = 0;
        for (size_t i = 0; i < N; i++)
            if (!o->unscored[i])
                z[k] = y[i], F[k] = F[i], k++;
        out = k ? mcm_mape(z, F, k) : NAN;
    } else if (rc == 0) {
        out = mcm_mape(y, F, N);
    }
    free(F);
    free(z);
    return out;
}

/* AICc = N·ln(RSS/N) + 2k + 2k(k+1)/(N−k−1); an exact fit's RSS is taken as
 * 1e-20 of Σy², so exact fits tie and the penalty decides. */
static double aicc(double rss, const double *y, size_t N, int k)
{
    if ((double)N <= k + 1)
        return NAN;
    double sy2 = 0;
    for (size_t i = 0; i < N; i++)
        sy2 += y[i] * y[i];
    double r = fmax(rss, 1e-20 * sy2 + 1e-300), n = (double)N;
    return n * log(r / n) + 2.0 * k + 2.0 * k * (k + 1) / (n - k - 1);
}

mc_err mc_fit_family(mc_family fam, mc_model_var var, const double *x, const double *x2,
                     const double *y, size_t npts, const mc_fit_opts *opts, int with_cv,
                     mc_fit *fit)
{
    mc_fit_opts def = mc_fit_opts_default();
    const mc_fit_opts *o = opts ? opts : &def;
    if (fit_core(fam, var, x, x2, y, npts, o, fit))
        return MC_ERR_FORMAT;
    double *F = malloc((npts ? npts : 1) * sizeof *F);
    if (!F)
        return MC_ERR_NOMEM;
    for (size_t i = 0; i < npts; i++)
        F[i] = mc_fit_eval(fit, x[i], x2 ? x2[i] : 0);
    fit->mape = mcm_mape(y, F, npts);
    free(F);
    fit->ar2 = mcm_adj_r2(fit->rss, mcm_sst(y, npts), npts, fit->nparams - 1);
    fit->ncoef = fit->nparams + (fam >= MC_FAMILY_NORMAL);
    fit->aicc = aicc(fit->rss, y, npts, fit->ncoef);
    fit->cv = with_cv ? loo_error(fam, var, x, x2, y, npts, o, fit) : NAN;
    return MC_OK;
}

/* ------------------------------------------------------------ selection */

static double criterion(const mc_fit *f, mc_select s)
{
    switch (s) {
    case MC_SELECT_CV: return f->cv;
    case MC_SELECT_AR2: return -f->ar2; /* larger is better: negate */
    case MC_SELECT_AICC: return f->aicc;
    default: return f->mape;
    }
}

/* Whether fit b should replace the current best a. MAPE and CV are in %:
 * differences within 1e-6 % (or 1e-6 relative) are rounding, and the family
 * met first (the simpler one: linear first) stays. Parsimony: a family with
 * more coefficients must lower MAPE or CV by more than PARSIMONY (10 %) of
 * the simpler one's value, and a simpler one wins back within that margin
 * (adjusted R² and AICc already charge for coefficients). */
#define PARSIMONY 0.10
static int beats(const mc_fit *b, const mc_fit *a, mc_select s)
{
    double cb = criterion(b, s), ca = criterion(a, s);
    double tol = 1e-6 + 1e-6 * fabs(ca);
    /* the runs' own grid explains a count that a generic law with as many
     * coefficients only matches: on a tie it wins (LAMMPS's halo sends,
     * 410 per split dimension, are log2 p exactly up to p = 8) */
    if (b->nparams == a->nparams && (b->family == MC_FAMILY_GRID) != (a->family == MC_FAMILY_GRID))
        return b->family == MC_FAMILY_GRID ? cb <= ca + tol : cb < ca - tol;
    if (s == MC_SELECT_AR2 || s == MC_SELECT_AICC || b->nparams == a->nparams)
        return cb < ca - tol;
    if (b->nparams > a->nparams)
        return cb < ca * (1 - PARSIMONY) - tol;
    return cb < ca / (1 - PARSIMONY) + tol;
}

/* Held-out error (%) under which a series is called constant. */
#define CONSTANT_MAX_CV 5.0

/* A family is judged only with more points than coefficients (one left
 * over to judge it), except by the study's MAPE on the fitted points. The
 * constant takes part only under leave-one-out and only where its held-out
 * error (each point predicted by the mean of the others) is at most
 * CONSTANT_MAX_CV: parsimony would
 * otherwise prefer it to a law that is only a little better on a series
 * that clearly grows (LAMMPS's sends: 27 % against linear's 25 %), and
 * with two points it is the only family that can be judged. */
static int is_candidate(const mc_fit *f, mc_select s, size_t npts)
{
    if (!f->ok || !isfinite(criterion(f, s)))
        return 0;
    if (f->family == MC_FAMILY_CONSTANT)
        return s == MC_SELECT_CV && f->cv <= CONSTANT_MAX_CV && npts > (size_t)f->ncoef;
    return s == MC_SELECT_MAPE || npts > (size_t)f->ncoef;
}

/* Marks the candidates under s; the index of the best or -1. */
static int pick(mc_fit *fits, mc_select s, size_t npts, int skip)
{
    int bi = -1;
    for (int fam = 0; fam < MC_FAMILY_COUNT; fam++) {
        fits[fam].candidate = is_candidate(&fits[fam], s, npts);
        if (!fits[fam].candidate || fam == skip)
            continue;
        if (bi < 0 || beats(&fits[fam], &fits[bi], s))
            bi = fam;
    }
    return bi;
}

int mc_model_best_except(const mc_fit all[MC_FAMILY_COUNT], mc_select used,
                         const unsigned char skip[MC_FAMILY_COUNT])
{
    if (used == MC_SELECT_EXACT)
        return -1;
    int bi = -1;
    for (int fam = 0; fam < MC_FAMILY_COUNT; fam++) {
        if (!all[fam].candidate || skip[fam])
            continue;
        if (bi < 0 || beats(&all[fam], &all[bi], used))
            bi = fam;
    }
    return bi;
}

int mc_model_runner_up(const mc_fit all[MC_FAMILY_COUNT], mc_family best, mc_select used)
{
    unsigned char skip[MC_FAMILY_COUNT] = {0};
    skip[best] = 1;
    return mc_model_best_except(all, used, skip);
}

int mc_fit_negative_on(const mc_fit *f, double a, double b, int along_x2, double other,
                       double tol, double *at, double *val)
{
    for (int k = 0; k <= 64; k++) {
        double xv = a > 0 ? a * pow(b / a, k / 64.0) : a + (b - a) * k / 64.0;
        double v = along_x2 ? mc_fit_eval(f, other, xv) : mc_fit_eval(f, xv, other);
        if (v < -tol) {
            if (at)
                *at = xv;
            if (val)
                *val = v;
            return 1;
        }
    }
    return 0;
}

mc_err mc_model_select(mc_model_var var, const double *x, const double *x2, const double *y,
                       size_t npts, const mc_fit_opts *opts, mc_fit *best,
                       mc_fit all[MC_FAMILY_COUNT], mc_select *used, mc_error *err)
{
    mc_fit_opts def = mc_fit_opts_default();
    const mc_fit_opts *o = opts ? opts : &def;
    mc_select sel = o->select == MC_SELECT_AUTO ? MC_SELECT_CV : o->select;
    mc_fit fits[MC_FAMILY_COUNT];
    for (int fam = 0; fam < MC_FAMILY_COUNT; fam++) {
        memset(&fits[fam], 0, sizeof fits[fam]);
        fits[fam].family = (mc_family)fam;
        if (o->have_families && !o->families[fam])
            continue;
        mc_err rc = mc_fit_family((mc_family)fam, var, x, x2, y, npts, o,
                                  sel == MC_SELECT_CV, &fits[fam]);
        if (rc == MC_ERR_NOMEM)
            return mc_error_set(err, rc, "out of memory");
    }
    int bi = pick(fits, sel, npts, -1);
    /* leave-one-out undefined for every candidate: the small-sample
     * criterion; too few points even for it: the simplest exact fit */
    if (bi < 0 && sel == MC_SELECT_CV)
        bi = pick(fits, sel = MC_SELECT_AICC, npts, -1);
    if (bi < 0 && (o->select == MC_SELECT_AUTO || o->select == MC_SELECT_CV)) {
        for (int fam = MC_FAMILY_LINEAR; fam < MC_FAMILY_COUNT && bi < 0; fam++)
            if (fits[fam].ok && npts >= (size_t)fits[fam].nparams)
                bi = fam;
        sel = MC_SELECT_EXACT;
        for (int fam = 0; fam < MC_FAMILY_COUNT; fam++)
            fits[fam].candidate = fam == bi;
    }
    if (bi < 0) {
        size_t dx = mcm_distinct(x, npts), dx2 = x2 ? mcm_distinct(x2, npts) : 2;
        if (dx < 2 || dx2 < 2)
            return mc_error_set(err, MC_ERR_FORMAT,
                                "no model can be fitted to %zu point%s: need at least 2 distinct "
                                "values of each parameter", npts, npts == 1 ? "" : "s");
        return mc_error_set(err, MC_ERR_FORMAT,
                            "no model can be fitted to these %zu points (values out of range for "
                            "least squares, or too few points for --select %s)",
                            npts, mc_select_name(sel));
    }
    *best = fits[bi];
    if (all)
        memcpy(all, fits, sizeof fits);
    if (used)
        *used = sel;
    return MC_OK;
}

/* ------------------------------------------------------------ formulas */

static void term_text(mc_term t, const char *x, char *buf, size_t len)
{
    char pw[64] = "", lg[64] = "";
    if (t.num != 0) {
        if (t.den == 1 && t.num == 1)
            snprintf(pw, sizeof pw, "%s", x);
        else if (t.den == 1 && t.num > 0)
            snprintf(pw, sizeof pw, "%s^%d", x, t.num);
        else if (t.den == 1)
            snprintf(pw, sizeof pw, "%s^(%d)", x, t.num);
        else
            snprintf(pw, sizeof pw, "%s^(%d/%d)", x, t.num, t.den);
    }
    if (t.j == 1)
        snprintf(lg, sizeof lg, "log2(%s)", x);
    else if (t.j > 1)
        snprintf(lg, sizeof lg, "log2(%s)^%d", x, t.j);
    snprintf(buf, len, "%s%s%s", pw, pw[0] && lg[0] ? "*" : "", lg);
}

/* Appends " + c*what" (or the first term) to buf. */
static void add_term(char *buf, size_t len, double c, const char *what)
{
    size_t n = strlen(buf);
    if (n >= len || (c == 0 && (what[0] || n > 0)))
        return; /* a zero term is left out */
    const char *sign = n == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
    if (what[0])
        snprintf(buf + n, len - n, "%s%.6g*%s", sign, fabs(c), what);
    else
        snprintf(buf + n, len - n, "%s%.6g", sign, fabs(c));
}

void mc_fit_formula(const mc_fit *f, const char *x, char *buf, size_t len)
{
    char t1[96], t2[96], t3[200];
    if (!len)
        return;
    buf[0] = '\0';
    if (!f->ok) {
        snprintf(buf, len, "(none)");
        return;
    }
    switch (f->family) {
    case MC_FAMILY_CONSTANT: add_term(buf, len, f->c[0], ""); return;
    case MC_FAMILY_LINEAR: snprintf(t1, sizeof t1, "%s", x); break;
    case MC_FAMILY_LOG: snprintf(t1, sizeof t1, "log10(%s)", x); break;
    case MC_FAMILY_INVERSE: snprintf(t1, sizeof t1, "(1/%s)", x); break;
    case MC_FAMILY_SATURATION: snprintf(t1, sizeof t1, "min(%s, %.6g)", x, f->xbreak); break;
    case MC_FAMILY_GRID: snprintf(t1, sizeof t1, "split%d(%s)", f->gdim, x); break;
    case MC_FAMILY_NORMAL: term_text(f->tp, x, t1, sizeof t1); break;
    case MC_FAMILY_SHELL:
        add_term(buf, len, f->c[0], "");
        for (int j = 1; j < f->gdim; j++) {
            snprintf(t1, sizeof t1, "%s^(-%d/%d)", x, j, f->gdim);
            add_term(buf, len, f->c[j], t1);
        }
        return;
    default: {
        term_text(f->tp, "p", t1, sizeof t1);
        term_text(f->tn, "n", t2, sizeof t2);
        add_term(buf, len, f->c[0], "");
        const char *cols[3];
        int k = 0;
        if (f->family == MC_FAMILY_PN_PRODUCT) {
            snprintf(t3, sizeof t3, "%s%s%s", t1, t1[0] && t2[0] ? "*" : "", t2);
            if (t3[0])
                cols[k++] = t3;
        } else {
            if (t1[0])
                cols[k++] = t1;
            if (t2[0])
                cols[k++] = t2;
            if (f->family == MC_FAMILY_PN_FULL && t1[0] && t2[0]) {
                snprintf(t3, sizeof t3, "%s*%s", t1, t2);
                cols[k++] = t3;
            }
        }
        for (int i = 0; i < k; i++)
            add_term(buf, len, f->c[i + 1], cols[i]);
        return;
    }
    }
    add_term(buf, len, f->c[1], t1);
    add_term(buf, len, f->c[0], "");
}
