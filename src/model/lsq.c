/* Least squares and fit-quality measures shared by every model. */
#define MPICAST_MODEL_INTERNAL
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

int mcm_lsq(const double *X, const double *y, size_t N, size_t k, double *c, double *rss)
{
    if (k == 0 || k > MCM_MAX_COLS || N < k)
        return -1;
    /* GSL's default handler aborts the process; library code must return. */
    gsl_set_error_handler_off();
    /* Columns are scaled to unit maximum so that n² ~ 1e10 next to a column of
     * ones does not fall under the SVD's singular-value tolerance. */
    double scale[MCM_MAX_COLS];
    for (size_t j = 0; j < k; j++) {
        scale[j] = 0;
        for (size_t i = 0; i < N; i++)
            if (fabs(X[i * k + j]) > scale[j])
                scale[j] = fabs(X[i * k + j]);
        if (!(scale[j] > 0) || !isfinite(scale[j]))
            scale[j] = 1;
    }
    gsl_matrix *A = gsl_matrix_alloc(N, k), *cov = gsl_matrix_alloc(k, k);
    gsl_vector *Y = gsl_vector_alloc(N), *C = gsl_vector_alloc(k);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(N, k);
    int rc = -1;
    if (A && cov && Y && C && w) {
        for (size_t i = 0; i < N; i++) {
            gsl_vector_set(Y, i, y[i]);
            for (size_t j = 0; j < k; j++)
                gsl_matrix_set(A, i, j, X[i * k + j] / scale[j]);
        }
        double chisq;
        if (gsl_multifit_linear(A, Y, C, cov, &chisq, w) == GSL_SUCCESS) {
            rc = 0;
            for (size_t j = 0; j < k; j++) {
                c[j] = gsl_vector_get(C, j) / scale[j];
                if (!isfinite(c[j]))
                    rc = -1;
            }
        }
    }
    if (rc == 0) {
        /* a coefficient whose whole contribution is rounding (a constant count
         * fitted by a line gives slope 3e-17) is zero: cleaner formulas */
        double ymax = 0;
        for (size_t i = 0; i < N; i++)
            ymax = fmax(ymax, fabs(y[i]));
        for (size_t j = 0; j < k; j++)
            if (fabs(c[j]) * scale[j] <= 1e-13 * ymax)
                c[j] = 0;
        double s = 0;
        for (size_t i = 0; i < N; i++) {
            double f = 0;
            for (size_t j = 0; j < k; j++)
                f += X[i * k + j] * c[j];
            s += (y[i] - f) * (y[i] - f);
        }
        *rss = s;
        if (!isfinite(s))
            rc = -1;
    }
    gsl_multifit_linear_free(w);
    gsl_vector_free(C);
    gsl_vector_free(Y);
    gsl_matrix_free(cov);
    gsl_matrix_free(A);
    return rc;
}

double mcm_mape(const double *A, const double *F, size_t N)
{
    if (N == 0)
        return NAN;
    double scale = 0;
    for (size_t i = 0; i < N; i++)
        if (fabs(A[i]) > scale)
            scale = fabs(A[i]);
    if (scale == 0)
        scale = 1;
    double s = 0;
    for (size_t i = 0; i < N; i++) {
        if (A[i] != 0)
            s += fabs((A[i] - F[i]) / A[i]);
        else
            s += fabs(F[i]) <= 1e-9 * scale ? 0 : 1;
    }
    return 100.0 * s / (double)N;
}

double mcm_sst(const double *y, size_t N)
{
    if (N == 0)
        return 0;
    double m = 0;
    for (size_t i = 0; i < N; i++)
        m += y[i];
    m /= (double)N;
    double s = 0;
    for (size_t i = 0; i < N; i++)
        s += (y[i] - m) * (y[i] - m);
    return s;
}

double mcm_adj_r2(double rss, double sst, size_t N, int nregs)
{
    if ((double)N - nregs - 1 <= 0 || N < 2)
        return NAN;
    double r2;
    if (sst <= 0)
        r2 = rss <= 0 ? 1 : 0; /* constant data: exact or no better than its mean */
    else
        r2 = 1 - rss / sst;
    return 1 - (1 - r2) * ((double)N - 1) / ((double)N - nregs - 1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

size_t mcm_distinct_sorted(const double *x, size_t N, double *out)
{
    memcpy(out, x, N * sizeof *out);
    qsort(out, N, sizeof *out, cmp_double);
    size_t d = 0;
    for (size_t i = 0; i < N; i++)
        if (d == 0 || out[i] != out[d - 1])
            out[d++] = out[i];
    return d;
}

size_t mcm_distinct(const double *x, size_t N)
{
    if (N == 0)
        return 0;
    double *s = malloc(N * sizeof *s);
    if (!s)
        return 0;
    size_t d = mcm_distinct_sorted(x, N, s);
    free(s);
    return d;
}

int mcm_leverage(const double *X, size_t N, size_t k, double *h)
{
    if (k == 0 || k > MCM_MAX_COLS || N < k)
        return -1;
    double *Q = malloc(N * k * sizeof *Q);
    if (!Q)
        return -1;
    int rc = 0;
    for (size_t j = 0; j < k && rc == 0; j++) {
        double scale = 0;
        for (size_t i = 0; i < N; i++)
            scale = fmax(scale, fabs(X[i * k + j]));
        if (!(scale > 0) || !isfinite(scale)) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < N; i++)
            Q[i * k + j] = X[i * k + j] / scale;
        double before = 0, norm = 0;
        for (size_t i = 0; i < N; i++)
            before += Q[i * k + j] * Q[i * k + j];
        for (int pass = 0; pass < 2; pass++) /* twice is enough (Kahan–Parlett) */
            for (size_t q = 0; q < j; q++) {
                double dot = 0;
                for (size_t i = 0; i < N; i++)
                    dot += Q[i * k + q] * Q[i * k + j];
                for (size_t i = 0; i < N; i++)
                    Q[i * k + j] -= dot * Q[i * k + q];
            }
        for (size_t i = 0; i < N; i++)
            norm += Q[i * k + j] * Q[i * k + j];
        if (!(norm > 1e-24 * before)) {
            rc = -1; /* the column lies in the span of the others */
            break;
        }
        norm = sqrt(norm);
        for (size_t i = 0; i < N; i++)
            Q[i * k + j] /= norm;
    }
    for (size_t i = 0; rc == 0 && i < N; i++) {
        h[i] = 0;
        for (size_t j = 0; j < k; j++)
            h[i] += Q[i * k + j] * Q[i * k + j];
    }
    free(Q);
    return rc;
}
