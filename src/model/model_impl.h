/* Internal to src/model: shared numeric helpers. Not a public header. */
#ifndef MPICAST_MODEL_IMPL_H
#define MPICAST_MODEL_IMPL_H
#ifndef MPICAST_MODEL_INTERNAL
#error "model_impl.h is internal to src/model"
#endif

#include "mpicast/model.h"

/* For the readers outside data.c (tau.c). A complete run (absent functions
 * count 0 calls there): its index for mcm_mdata_add_obs, -1 when out of
 * memory. */
int mcm_mdata_add_srun(mc_mdata *d, double p, double n, double iters, const char *where);
/* One measurement of run `run` (-1: none) with its iterations (NAN: unknown). */
mc_err mcm_mdata_add_obs(mc_mdata *d, double p, double n, double iters, int run,
                        const char *function, const char *metric, double value,
                        const char *where, mc_error *err);

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
/* The distinct values of x, ascending, into out (room for N); their count. */
size_t mcm_distinct_sorted(const double *x, size_t N, double *out);

/* Leverages h_i (diagonal of the hat matrix) of X (row-major, N × k,
 * k ≤ MCM_MAX_COLS): thin QR by modified Gram–Schmidt, twice, on columns
 * scaled to unit maximum. -1 when X has a dependent column. */
int mcm_leverage(const double *X, size_t N, size_t k, double *h);

/* Leave-one-out of y ≈ b + a·z (N ≥ 3) from one fit: pred[i] is the fold
 * without point i's prediction of y[i], fold_rss[i] (may be NULL) that
 * fold's RSS; NAN for a fold whose z are all equal. -1 when the full fit has
 * no slope. O(N). */
int mcm_loo_column(const double *z, const double *y, size_t N, double *pred, double *fold_rss);

/* Saturation b + a·min(x, x′) over prefix sums of the points grouped by x. */
typedef struct mcm_sat mcm_sat;
mcm_sat *mcm_sat_create(const double *x, const double *y, size_t N);
void mcm_sat_free(mcm_sat *s);
/* The breakpoint of the full data (docs/models.md's search). -1: none. */
int mcm_sat_fit(const mcm_sat *s, double *xbreak);
/* Leave-one-out predictions, each fold searching its own breakpoint
 * (near the full fit's `xbreak` when there are more than 64 distinct x).
 * -1 when a fold has fewer than 3 distinct x. */
int mcm_sat_loo(const mcm_sat *s, const double *x, const double *y, double xbreak, double *pred);

/* --per-iteration's set-up + per iteration normalisation (setup.c): the
 * totals y of runs at x with iterations it fitted as s + it·f(x), f one of
 * the laws linear in their coefficients, selected by leave-one-out over the
 * folds that can be fitted (unscored points fitted, not scored). */
typedef struct mcm_setup {
    mc_fit fit;          /* f per iteration; rss, mape and cv on the totals */
    double setup;        /* s */
    mc_fit runner;       /* runner.ok 0: none */
    double runner_setup;
} mcm_setup;
/* 1: fitted (*out), 0: does not apply (--by pn, fewer than 3 points or 2
 * distinct iterations, no law could be judged), -1: out of memory. */
int mcm_setup_fit(const mc_series_opts *o, const double *x, const double *it, const double *y,
                  const unsigned char *unscored, size_t n, mcm_setup *out);

#endif
