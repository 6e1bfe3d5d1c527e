/* Internal to src/model: shared numeric helpers. Not a public header. */
#ifndef MPICAST_MODEL_IMPL_H
#define MPICAST_MODEL_IMPL_H
#ifndef MPICAST_MODEL_INTERNAL
#error "model_impl.h is internal to src/model"
#endif

#include <stddef.h>

enum { MCM_MAX_COLS = 8 };

/* Least squares y ≈ X·c (X row-major, N rows, k ≤ MCM_MAX_COLS columns) with
 * gsl_multifit_linear. Fills c and the residual sum of squares. Returns 0, or
 * -1 when N < k, allocation fails or the result is not finite. */
int mcm_lsq(const double *X, const double *y, size_t N, size_t k, double *c, double *rss);

/* Mean absolute percentage error of F against A (the study's eq. 5), in %.
 * A zero measurement counts 0 when F is zero to 1e-9 of the series' scale,
 * else 100. */
double mcm_mape(const double *A, const double *F, size_t N);

/* Sum of squared deviations from the mean. */
double mcm_sst(const double *y, size_t N);

/* Adjusted R² for `nregs` regressors besides the intercept; NAN when N is too
 * small. */
double mcm_adj_r2(double rss, double sst, size_t N, int nregs);

/* Number of distinct values in x (exact comparison). */
size_t mcm_distinct(const double *x, size_t N);

#endif
