/* Leave-one-out without refitting N times (issue 26: model selection took
 * 64 s for 200 distinct p because every fold refitted every family, and the
 * saturation breakpoint scan refitted by SVD at every candidate).
 *
 *  - A model b + a·z with a fixed column z: the fold without point i
 *    predicts y_i − e_i/(1 − h_i) and has residual sum of squares
 *    RSS − e_i²/(1 − h_i) (e the full fit's residuals, h its leverages), so
 *    all N folds cost O(N) (the normal form: O(N) per exponent pair).
 *  - Saturation b + a·min(x, x′): the points are grouped by x and summed in
 *    prefix sums, so the fit at one candidate breakpoint costs O(1), with or
 *    without one point removed; a fold reruns the whole breakpoint search of
 *    the full fit in O(m) (m distinct x), or in O(1) windows of ±8 intervals
 *    around the full fit's breakpoint when m > 64.
 */
#define MPICAST_MODEL_INTERNAL
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mcm_loo_column(const double *z, const double *y, size_t N, double *pred, double *fold_rss)
{
    if (N < 3)
        return -1;
    double zb = 0, yb = 0;
    for (size_t i = 0; i < N; i++)
        zb += z[i], yb += y[i];
    zb /= (double)N, yb /= (double)N;
    double szz = 0, szy = 0;
    for (size_t i = 0; i < N; i++)
        szz += (z[i] - zb) * (z[i] - zb), szy += (z[i] - zb) * (y[i] - yb);
    if (!(szz > 0) || !isfinite(szz))
        return -1;
    double a = szy / szz, b = yb - a * zb, rss = 0;
    for (size_t i = 0; i < N; i++) {
        double e = y[i] - b - a * z[i];
        rss += e * e;
    }
    for (size_t i = 0; i < N; i++) {
        double e = y[i] - b - a * z[i];
        double d = 1 - (1.0 / (double)N + (z[i] - zb) * (z[i] - zb) / szz);
        /* d ≈ 0: the other points share one z, the fold has no slope */
        int ok = d > 1e-10;
        pred[i] = ok ? y[i] - e / d : NAN;
        if (fold_rss)
            fold_rss[i] = ok ? fmax(0, rss - e * e / d) : NAN;
    }
    return isfinite(rss) ? 0 : -1;
}

/* ------------------------------------------------------------ saturation */

struct mcm_sat {
    size_t m, N;
    double *u;                       /* distinct x, ascending */
    double *pc, *px, *pxx, *py, *pxy; /* prefix sums over groups < k (k = 0..m) */
    double syy, shift;               /* Σy'² of the shifted y' = y − shift */
    size_t *grp;                     /* point → group */
};

/* The fold: one point (group g, shifted value ry) left out, or none. */
typedef struct fold {
    long g;
    double ry;
} fold;

typedef struct sums {
    double n, sx, sxx, sy, sxy;
} sums;

static const double *sort_x;
static int by_x(const void *a, const void *b)
{
    double u = sort_x[*(const size_t *)a], v = sort_x[*(const size_t *)b];
    return u < v ? -1 : u > v;
}

void mcm_sat_free(mcm_sat *s)
{
    if (!s)
        return;
    free(s->u);
    free(s->pc);
    free(s->grp);
    free(s);
}

mcm_sat *mcm_sat_create(const double *x, const double *y, size_t N)
{
    mcm_sat *s = calloc(1, sizeof *s);
    size_t *idx = malloc((N ? N : 1) * sizeof *idx);
    if (!s || !idx)
        goto fail;
    s->N = N;
    s->u = malloc((N ? N : 1) * sizeof *s->u);
    s->pc = malloc(5 * (N + 1) * sizeof *s->pc);
    s->grp = malloc((N ? N : 1) * sizeof *s->grp);
    if (!s->u || !s->pc || !s->grp)
        goto fail;
    s->px = s->pc + (N + 1), s->pxx = s->px + (N + 1), s->py = s->pxx + (N + 1);
    s->pxy = s->py + (N + 1);
    double mean = 0;
    for (size_t i = 0; i < N; i++)
        mean += y[i];
    s->shift = N ? mean / (double)N : 0;
    for (size_t i = 0; i < N; i++)
        idx[i] = i;
    sort_x = x; /* single-threaded library: a static comparator argument */
    qsort(idx, N, sizeof *idx, by_x);
    size_t m = 0;
    s->pc[0] = s->px[0] = s->pxx[0] = s->py[0] = s->pxy[0] = 0;
    for (size_t r = 0; r < N; r++) {
        size_t i = idx[r];
        if (m == 0 || x[i] != s->u[m - 1]) {
            s->u[m] = x[i];
            s->pc[m + 1] = s->pc[m], s->px[m + 1] = s->px[m], s->pxx[m + 1] = s->pxx[m];
            s->py[m + 1] = s->py[m], s->pxy[m + 1] = s->pxy[m];
            m++;
        }
        double yy = y[i] - s->shift;
        s->pc[m] += 1, s->px[m] += x[i], s->pxx[m] += x[i] * x[i];
        s->py[m] += yy, s->pxy[m] += x[i] * yy;
        s->syy += yy * yy;
        s->grp[i] = m - 1;
    }
    s->m = m;
    free(idx);
    return s;
fail:
    free(idx);
    mcm_sat_free(s);
    return NULL;
}

static double gcount(const mcm_sat *s, size_t g, const fold *f)
{
    return s->pc[g + 1] - s->pc[g] - ((long)g == f->g);
}

/* Sums over the fold's points in groups 0..g. */
static sums left(const mcm_sat *s, size_t g, const fold *f)
{
    sums r = {s->pc[g + 1], s->px[g + 1], s->pxx[g + 1], s->py[g + 1], s->pxy[g + 1]};
    if (f->g >= 0 && (size_t)f->g <= g) {
        double u = s->u[f->g];
        r.n -= 1, r.sx -= u, r.sxx -= u * u, r.sy -= f->ry, r.sxy -= u * f->ry;
    }
    return r;
}

/* The fit b + a·min(x, xb) of the fold with xb in [u[g], next group];
 * returns its RSS (INFINITY when it has no slope). */
static double eval(const mcm_sat *s, const fold *f, size_t g, double xb, double *a, double *b)
{
    sums L = left(s, g, f), T = left(s, s->m - 1, f);
    double syy = s->syy - (f->g >= 0 ? f->ry * f->ry : 0);
    double nr = T.n - L.n, syr = T.sy - L.sy, n = T.n;
    double sz = L.sx + nr * xb, szz = L.sxx + nr * xb * xb, szy = L.sxy + xb * syr;
    double czz = szz - sz * sz / n, czy = szy - sz * T.sy / n, cyy = syy - T.sy * T.sy / n;
    if (!(czz > 1e-13 * szz))
        return INFINITY;
    *a = czy / czz;
    *b = (T.sy - *a * sz) / n;
    return fmax(0, cyy - *a * czy);
}

/* Next group with points in the fold after g (m when none). */
static size_t next_group(const mcm_sat *s, size_t g, const fold *f)
{
    for (g++; g < s->m && gcount(s, g, f) <= 0; g++)
        ;
    return g;
}

enum { SAT_WINDOW = 8, SAT_FULL_SCAN = 64 };

/* The breakpoint search of docs/models.md on the fold: per interval between
 * consecutive distinct x (two or more distinct x below, one above) the
 * point where the left line and the right constant meet, a 16-point grid,
 * then golden section around the best. Lower groups are limited to
 * [glo, ghi]. Returns 0 with *xb, *g, *a, *b; -1 when nothing fits. */
static int scan(const mcm_sat *s, const fold *f, size_t glo, size_t ghi, double *xb, size_t *gb,
                double *ab, double *bb)
{
    sums T = left(s, s->m - 1, f);
    double syy = s->syy - (f->g >= 0 ? f->ry * f->ry : 0);
    /* Σy² of the unshifted values, for the tie tolerance */
    double tol = 1e-10 * (syy + 2 * s->shift * T.sy + T.n * s->shift * s->shift) + 1e-300;
    size_t first = next_group(s, (size_t)-1, f);
    double best = INFINITY;
    int have = 0;
#define TRY(G, X)                                                              \
    do {                                                                       \
        double a_, b_, r_ = eval(s, f, (G), (X), &a_, &b_);                    \
        if (isfinite(r_) && (!have || r_ < best - tol)) {                      \
            best = r_, *xb = (X), *gb = (G), *ab = a_, *bb = b_, have = 1;     \
        }                                                                      \
    } while (0)
    for (size_t g = glo; g <= ghi && g < s->m; g++) {
        if (g <= first || gcount(s, g, f) <= 0)
            continue; /* the lowest x alone gives no slope */
        size_t nx = next_group(s, g, f);
        if (nx >= s->m)
            break;
        double lo = s->u[g], hi = s->u[nx];
        sums L = left(s, g, f);
        double nr = T.n - L.n, den = L.n * L.sxx - L.sx * L.sx;
        if (den != 0 && nr > 0) {
            double a = (L.n * L.sxy - L.sx * L.sy) / den, b = (L.sy - a * L.sx) / L.n;
            double c = (T.sy - L.sy) / nr;
            if (a != 0) {
                double xs = (c - b) / a;
                TRY(g, xs < lo ? lo : xs > hi ? hi : xs);
            }
        }
        for (int k = 0; k < 16; k++)
            TRY(g, lo + (hi - lo) * k / 16.0);
    }
    if (!have)
        return -1;
    /* golden section in the interval holding the best breakpoint (its upper
     * end belongs to the next interval when that one is searched too) */
    size_t g = *gb, nx = next_group(s, g, f);
    if (*xb >= s->u[nx] && next_group(s, nx, f) < s->m)
        g = nx, nx = next_group(s, g, f);
    double lo = s->u[g], hi = s->u[nx], step = (hi - lo) / 16.0;
    double a = fmax(lo, *xb - step), b = fmin(hi, *xb + step);
    const double gr = 0.6180339887498949;
    for (int it = 0; it < 60 && b - a > 1e-12 * fabs(b); it++) {
        double c1 = b - gr * (b - a), c2 = a + gr * (b - a), t, u;
        double r1 = eval(s, f, g, c1, &t, &u), r2 = eval(s, f, g, c2, &t, &u);
        if (!isfinite(r1) || !isfinite(r2))
            break;
        if (r1 < r2)
            b = c2;
        else
            a = c1;
    }
    TRY(g, 0.5 * (a + b));
#undef TRY
    return 0;
}

static size_t distinct_in(const mcm_sat *s, const fold *f)
{
    return s->m - (f->g >= 0 && gcount(s, (size_t)f->g, f) <= 0);
}

int mcm_sat_fit(const mcm_sat *s, double *xbreak)
{
    fold f = {-1, 0};
    size_t g;
    double a, b;
    if (s->m < 3)
        return -1;
    return scan(s, &f, 0, s->m - 1, xbreak, &g, &a, &b);
}

int mcm_sat_loo(const mcm_sat *s, const double *x, const double *y, double xbreak, double *pred)
{
    if (s->m < 4 && !(s->m == 3 && s->N > 3))
        return -1; /* folds need 3 distinct x */
    /* the full fit's interval, for the windowed search of large series */
    size_t wg = 0;
    while (wg + 1 < s->m && s->u[wg + 1] <= xbreak)
        wg++;
    for (size_t i = 0; i < s->N; i++) {
        fold f = {(long)s->grp[i], y[i] - s->shift};
        if (distinct_in(s, &f) < 3)
            return -1;
        size_t glo = 0, ghi = s->m - 1, g;
        if (s->m > SAT_FULL_SCAN) {
            glo = wg > SAT_WINDOW ? wg - SAT_WINDOW : 0;
            ghi = wg + SAT_WINDOW;
        }
        double xb, a, b;
        if (scan(s, &f, glo, ghi, &xb, &g, &a, &b) && (glo == 0 || scan(s, &f, 0, s->m - 1, &xb, &g, &a, &b)))
            return -1;
        pred[i] = b + a * (x[i] < xb ? x[i] : xb) + s->shift;
    }
    return 0;
}
