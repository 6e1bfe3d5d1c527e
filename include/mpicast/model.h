/* mpicast — empirical scaling models from a few small runs (docs/models.md).
 *
 * Two methods live here:
 *  - per-function models of a metric (call count, time, bytes per process)
 *    over the process count p, the problem size n, or both: the four families
 *    of the call-count study (linear, logarithmic, inverse, linear-saturation),
 *    Extra-P's performance-model normal form c0 + c1·x^i·log2(x)^j, and
 *    two-parameter sums/products of such terms; selection by MAPE,
 *    leave-one-out cross-validation or adjusted R²;
 *  - the processing-time model of the parallel-performance study,
 *    p·τ(p,n) = a(n) + p·χ(p,n), fitted through the efficiency metric ε′p and
 *    extended over n, for strong and weak scaling.
 *
 * Least squares use GSL (gsl_multifit_linear). Errors follow error.h: a
 * function returns mc_err and fills "FILE:LINE: what is wrong".
 *
 * Ownership: objects from *_create / *_read are freed by the matching
 * *_destroy / *_free (NULL is a no-op). Strings inside a series belong to the
 * mc_mdata it came from.
 */
#ifndef MPICAST_MODEL_H
#define MPICAST_MODEL_H

#include <stddef.h>
#include <stdio.h>
#include "mpicast/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ input */

/* Which parameter(s) a model is a function of. */
typedef enum mc_model_var { MC_VAR_P, MC_VAR_N, MC_VAR_PN } mc_model_var;

/* Parses a problem size: a positive number or an NPB class letter
 * (S=1/16, W=1/4, A=1, B=4, C=16, D=256, E=4096: the study's B=4A, C=4B,
 * D=16C, extended). Returns 0, or -1 when `text` is neither. */
int mc_parse_size(const char *text, double *out);

/* A run's coordinates given on the command line: "p=64,n=B,iters=20" (any
 * part). iters is the run's main-loop iteration count (a second variable:
 * runs with the same p and n but other iters are distinct points). */
typedef struct mc_run_label {
    int have_p, have_n;
    double p, n;
    int have_iters;
    double iters;
} mc_run_label;

/* Parses "p=64", "n=B", "p=64,n=2.5e6,iters=20" into `out`. */
mc_err mc_parse_label(const char *text, mc_run_label *out, mc_error *err);

/* A set of measurements (p, n, function, metric, value) from any input. */
typedef struct mc_mdata mc_mdata;

mc_mdata *mc_mdata_create(void);
void mc_mdata_destroy(mc_mdata *d);

/* Adds one measurement; `where` ("file:line") names it in later messages.
 * p or n may be NAN when unknown. */
mc_err mc_mdata_add(mc_mdata *d, double p, double n, const char *function,
                    const char *metric, double value, const char *where, mc_error *err);
/* Records a profiling run's wall time (for the cost accounting). */
mc_err mc_mdata_add_run(mc_mdata *d, double p, double n, double elapsed, mc_error *err);

/* CSV with header p,n,function,metric,value (any column order; extra columns
 * ignored); '#' lines and blank lines skipped; repeats allowed. A row whose
 * metric is "elapsed" is a run's wall time (cost accounting). */
mc_err mc_mdata_read_csv(mc_mdata *d, const char *path, mc_error *err);
/* Extra-P's text input (PARAMETER / POINTS / METRIC / REGION / DATA). A
 * parameter named p, procs, processes, ranks or np is p; n, size, problem or
 * problem_size is n; with one unnamed parameter it is `by`; with two unnamed
 * ones the first is p and the second n. */
mc_err mc_mdata_read_extrap(mc_mdata *d, const char *path, mc_model_var by, mc_error *err);
/* `mpicast stats --json` output: every function's calls, bytes and time,
 * divided by the rank count (per process). p and n come from `label`, else
 * from top-level "p"/"n" keys, else p from "ranks". */
mc_err mc_mdata_read_stats(mc_mdata *d, const char *path, const mc_run_label *label,
                           mc_error *err);

/* TAU profiles: a directory of profile.N.C.T files (one run) or one such
 * file. Per function "calls" and "time" (inclusive, seconds) summed over
 * the files and divided by the node count N (per process); MPI names
 * normalised ("MPI_Send()" -> MPI_Send); call-path entries ("a => b")
 * skipped; the largest inclusive time is the run's wall time. p is the
 * node count (1 for one file) unless `label` gives it; iterations as for
 * stats files. A malformed line is an error naming FILE:LINE. */
mc_err mc_mdata_read_tau(mc_mdata *d, const char *path, const mc_run_label *label,
                         mc_error *err);
/* 1 when path is a directory or a file whose first line is TAU's
 * "COUNT templated_functions..." (the reader reports what is wrong). */
int mc_tau_is_profile(const char *path);

/* The dimensions d of the runs' process grid when every run came from
 * `stats --json` with a "process_grid" of d dimensions whose dimensions
 * split over more than one process are as many as MPI_Dims_create(p, d)
 * splits (mc_grid_split), and p is the run's rank count: the grid-split
 * family then applies (mc_fit_opts.grid_dims). Else 0, with the first run
 * that rules it out named in why. */
int mc_mdata_grid(const mc_mdata *d, char *why, size_t len);

/* The largest share (0..1) of failed polls among a polling function's
 * calls (MPI_Test*, MPI_Iprobe) over the stats runs, *where (may be NULL)
 * the run's file; 0 when no run reports polls for it. */
double mc_mdata_poll_share(const mc_mdata *d, const char *function, const char **where);

/* --per-iteration: checks that every measurement has an iteration count
 * (the label's iters, else the run's MPI_Pcontrol calls per process / 2,
 * else the main loop stats found); an error naming the file of the first
 * without one. The values are not changed: each series is fitted both per
 * run and per iteration (mc_series_per_iteration) and the normalisation
 * that explains the runs better is kept (docs/models.md). */
mc_err mc_mdata_per_iteration(const mc_mdata *d, mc_error *err);
/* 1 when the function is called fewer times per process than the
 * iterations in some run (the tie-break where the runs cannot tell per run
 * from per iteration: all of one iteration count). */
int mc_mdata_calls_below_iters(const mc_mdata *d, const char *function);

/* One measured point of a series: the mean of its repeats. */
typedef struct mc_point {
    double p, n;
    double iters;         /* main-loop iterations (NAN: unknown) */
    int filled;           /* 1: a 0 for a function absent from that run */
    double value;         /* mean of the repeats */
    double sd, min, max;  /* spread of the repeats (sd 0 for one) */
    int repeats;
    int has_loop;         /* stats --json: `loop` is known */
    double loop;          /* the part of value inside the main loop, all its
                             iterations (main_loop_calls / bytes per process) */
} mc_point;

/* The points of one function and metric (and, for a one-parameter model,
 * one value of the other parameter). */
typedef struct mc_series {
    const char *function, *metric; /* owned by the mc_mdata */
    double fixed;                  /* n for --by p, p for --by n, NAN for pn */
    mc_point *pts;                 /* sorted by p then n */
    size_t npts;
    char where[256];               /* first measurement's "file:line" */
} mc_series;

/* Writes the series as Extra-P's text input (PARAMETER p and/or n, one
 * POINTS line, then REGION/METRIC/DATA per series, the mean at each point
 * in POINTS order). A series without a value at every point of the file
 * cannot be expressed there: it is left out, counted in the return value,
 * and the first one's function name put in *skipped (may be NULL).
 * Returns (size_t)-1 when out of memory. */
size_t mc_series_write_extrap(FILE *out, const mc_series *const *ser, size_t nser,
                              const char **skipped);
/* The series as Extra-P's JSON input (jansson object, caller decrefs):
 * {"parameters": ["p"(, "n")], "measurements": {FUNCTION: {METRIC:
 * [{"point": [p(, n)], "values": [mean]}]}}}; p and n are parameters when
 * every point has them and they vary (p alone when neither varies). Each
 * function and metric
 * keeps its own points (nothing is left out); series of one function and
 * metric (--by p, one per n) are merged, a point given once. NULL when out
 * of memory. */
struct json_t;
struct json_t *mc_series_extrap_json(const mc_series *const *ser, size_t nser);

/* Groups the measurements of `metric` (NULL: every metric but "elapsed") into
 * series. A function that a stats file lacks while others have it gets 0
 * calls and 0 bytes in that run (zero is a value; time stays missing). *out gets a malloc'ed array freed by mc_series_free. */
mc_err mc_mdata_series(const mc_mdata *d, mc_model_var by, const char *metric,
                       mc_series **out, size_t *count, mc_error *err);
void mc_series_free(mc_series *s, size_t count);
/* *out = the series per iteration: each point's value, sd, min and max
 * divided by its iters (an error naming the series when a point has none).
 * out->pts is malloc'ed (free it, or mc_series_free(out, 1)). */
mc_err mc_series_per_iteration(const mc_series *in, mc_series *out, mc_error *err);

/* Core-seconds (p × wall time) of the recorded runs; *nruns gets their count.
 * Runs at p = skip_p and n = skip_n are left out (skip_p NAN: keep all;
 * skip_n NAN: any n). */
double mc_mdata_cost(const mc_mdata *d, double skip_p, double skip_n, size_t *nruns);
/* Wall time of a recorded run at (p, n) (NAN: none; mean of repeats; n NAN
 * matches any n). */
double mc_mdata_run_elapsed(const mc_mdata *d, double p, double n);
/* All recorded runs as a series of wall times (function "(run)", metric
 * "elapsed"), for modelling the cost of a run not measured. */
mc_err mc_mdata_run_series(const mc_mdata *d, mc_model_var by, mc_series **out,
                           size_t *count, mc_error *err);

/* "p" or "n" (the name of a single parameter in formulas and messages). */
const char *mc_model_var_name(mc_model_var by);

/* ----------------------------------------------------------------- models */

typedef enum mc_family {
    MC_FAMILY_CONSTANT,   /* b: one coefficient, so two points can judge it */
    MC_FAMILY_LINEAR,     /* a·x + b */
    MC_FAMILY_LOG,        /* a·log10(x) + b */
    MC_FAMILY_INVERSE,    /* a/x + b */
    MC_FAMILY_SATURATION, /* a·min(x, x′) + b */
    MC_FAMILY_GRID,       /* a·split_d(p) + b: split_d(p) is the number of dimensions of
                             MPI_Dims_create(p, d) with more than one process, d the
                             runs' own Cartesian grid's (mc_fit_opts.grid_dims) */
    MC_FAMILY_SHELL,      /* c0 + c1·x^(-1/d) [+ c2·x^(-2/d)]: a face of a d-dimensional
                             subdomain with a ghost shell of fixed thickness, d = 2 or 3
                             (mc_fit_opts.shell_dims; extrapolate's data sizes only) */
    MC_FAMILY_NORMAL,     /* c0 + c1·x^i·log2(x)^j (Extra-P normal form) */
    MC_FAMILY_PN_PRODUCT, /* c0 + c1·f(p)·g(n) (f or g may be 1) */
    MC_FAMILY_PN_SUM,     /* c0 + c1·f(p) + c2·g(n) */
    MC_FAMILY_PN_FULL,    /* c0 + c1·f(p) + c2·g(n) + c3·f(p)·g(n) */
    MC_FAMILY_COUNT
} mc_family;

/* "linear", "logarithmic", "inverse", "linear-saturation", "grid-split", "normal-form",
 * "pn-sum", "pn-product", "pn-full". */
const char *mc_family_name(mc_family f);

typedef enum mc_select {
    MC_SELECT_AUTO, /* cv, AICc where no candidate has a leave-one-out error */
    MC_SELECT_MAPE, /* the study's: error on the fitted points (can overfit) */
    MC_SELECT_CV,   /* leave-one-out (as auto) */
    MC_SELECT_AR2,
    MC_SELECT_AICC, /* small-sample Akaike criterion */
    MC_SELECT_EXACT /* (result only) too few points to judge any family: the
                       simplest one that fits was taken */
} mc_select;

/* "auto", "mape", "cv", "ar2", "aicc", "exact". */
const char *mc_select_name(mc_select s);

/* Parses a family name (as mc_family_name gives); -1 when unknown. */
int mc_family_parse(const char *name);

/* One term x^i·log2(x)^j with i = num/den. */
typedef struct mc_term {
    int num, den, j;
} mc_term;
double mc_term_eval(mc_term t, double x);

/* A fitted model. */
typedef struct mc_fit {
    mc_family family;
    int ok;          /* 0: the family could not be fitted to these points */
    double c[4];     /* constant: c[0]=b, c[1]=0;
                        linear/log/inverse/saturation: c[0]=b, c[1]=a;
                        normal: c0, c1; pn: c0..c3 as in the family comment */
    double xbreak;   /* saturation: the breakpoint x′ */
    int gdim;        /* grid-split: the grid's dimensions d */
    mc_term tp, tn;  /* normal: tp is the term in x; pn: terms in p and n */
    int nparams;     /* coefficients fitted (breakpoint counted) */
    int ncoef;       /* nparams + 1 for a chosen exponent pair or pn terms:
                        a candidate needs more points than this */
    int candidate;   /* set by mc_model_select: judged by its criterion */
    double rss, mape, cv, ar2; /* cv, ar2 NAN when not defined */
    double aicc;     /* NAN when not defined (points <= ncoef + 1) */
} mc_fit;

typedef struct mc_fit_opts {
    mc_select select;
    int negative_p;   /* allow negative exponents for p (strong scaling); default 1 */
    int have_families; /* 0: every family that applies */
    int families[MC_FAMILY_COUNT]; /* when have_families: 1 to consider */
    const unsigned char *unscored; /* NULL, or per point 1: fitted but not
                                      scored by leave-one-out (filled zeros) */
    int grid_dims;    /* > 0: the runs made a Cartesian grid of this many dimensions
                         whose split dimensions are MPI_Dims_create's
                         (mc_mdata_grid): the grid-split family is a candidate for
                         --by p, and wins ties with the other two-coefficient laws */
    int shell_dims;   /* 2 or 3: the ghost-shell family of a grid of this many
                         dimensions is a candidate for p; 0 (default): not fitted */
} mc_fit_opts;

/* The dimensions of MPI_Dims_create(p, d) with more than one process:
 * min(d, the prime factors of p counted with multiplicity); -1 when p is
 * not a positive integer or d < 1. */
int mc_grid_split(double p, int d);

/* Default options: auto selection, negative exponents for p allowed. */
mc_fit_opts mc_fit_opts_default(void);

/* Fits one family to points (x[k], y[k]) — x2 is n for the pn families
 * (else NULL); var says which parameter x is (for negative exponents).
 * Fills fit->rss, mape, ar2 and, when `with_cv`, cv. */
mc_err mc_fit_family(mc_family fam, mc_model_var var, const double *x, const double *x2,
                     const double *y, size_t npts, const mc_fit_opts *opts, int with_cv,
                     mc_fit *fit);

/* Fits every applicable family and selects one. `all` (may be NULL) gets
 * every family's fit, indexed by mc_family. *used gets the criterion applied. */
mc_err mc_model_select(mc_model_var var, const double *x, const double *x2, const double *y,
                       size_t npts, const mc_fit_opts *opts, mc_fit *best,
                       mc_fit all[MC_FAMILY_COUNT], mc_select *used, mc_error *err);

/* The small-scale regime rule. When the selection over every point predicts
 * its held-out points poorly (full_cv, the chosen fit's held-out error, above
 * MC_REGIME_MIN_CV %), the smallest values of x are left out, one at a time
 * and at most half of the distinct values: the first cut whose selection
 * (leave-one-out) predicts every kept point within MC_REGIME_MAX_CV % and
 * MC_REGIME_GAIN times better than full_cv is taken. *from gets the smallest
 * x kept, and *best, all and *used that selection; *from is NAN (and the
 * rest untouched) when there is no such cut, for the pn families, or under
 * a criterion other than leave-one-out. opts->unscored, if set, is per point
 * of x. */
#define MC_REGIME_MIN_CV 10.0
#define MC_REGIME_MAX_CV 5.0
#define MC_REGIME_GAIN 4.0
mc_err mc_model_regime(mc_model_var var, const double *x, const double *y, size_t npts,
                       const mc_fit_opts *opts, double full_cv, double *from, mc_fit *best,
                       mc_fit all[MC_FAMILY_COUNT], mc_select *used, mc_error *err);

/* The runner-up of a selection: the best other candidate of `all` under
 * `used` (as mc_model_select filled them); -1 when there is none. */
int mc_model_runner_up(const mc_fit all[MC_FAMILY_COUNT], mc_family best, mc_select used);

/* The best candidate of `all` under `used` among the families whose skip[]
 * is 0 (runner-up: skip the chosen one); -1 when there is none. */
int mc_model_best_except(const mc_fit all[MC_FAMILY_COUNT], mc_select used,
                         const unsigned char skip[MC_FAMILY_COUNT]);

/* Whether f is below -tol at one of 65 points spread over [a, b]
 * (log-spaced when a > 0, else evenly): along x with x2 = other, or, with
 * along_x2, along x2 with x = other (the pn families' n). The first such
 * point and its value go to *at and *val (either may be NULL). */
int mc_fit_negative_on(const mc_fit *f, double a, double b, int along_x2, double other,
                       double tol, double *at, double *val);

/* The model's value at x (and x2 = n for the pn families). */
double mc_fit_eval(const mc_fit *f, double x, double x2);

/* Human-readable formula, e.g. "3 + 2*p^(1/2)*log2(p)". */
void mc_fit_formula(const mc_fit *f, const char *xname, char *buf, size_t len);

/* ------------------------------------------------------ one series' model */

/* What mc_series_model_fit is asked: the parameter, the selection options,
 * the prediction point (target) and --per-iteration. */
typedef struct mc_series_opts {
    mc_model_var by;
    mc_fit_opts fit;
    int have_target;
    mc_run_label target;
    int per_iteration;
} mc_series_opts;

/* One series' chosen model, its runner-up, prediction and warnings. */
typedef struct mc_series_model {
    const mc_series *s;
    mc_fit fit;
    mc_fit runner; /* runner.ok 0: none */
    mc_select used;
    double prediction, measured; /* NAN when none; --per-iteration: totals
                                    when the target's iters is known */
    double pred_iter, meas_iter;  /* --per-iteration: per iteration */
    int per_run;                  /* --per-iteration: the series was kept per run */
    int with_setup;               /* --per-iteration: kept as set-up + per iteration:
                                     totals = setup + iters * fit (fit per iteration) */
    mc_fit setup, runner_setup;   /* with_setup: the part outside the loop, a law of x
                                     (constant when fitted from the totals) */
    int setup_measured;           /* with_setup: from the calls stats counted inside the
                                     main loop (main_loop_calls), not fitted from totals */
    double norm_err[3];           /* --per-iteration: the error compared, per
                                     iteration [0], per run [1] and set-up + per
                                     iteration [2] (NAN: no fit) */
    int norm_cv;                  /* 1: norm_err are held-out errors, 0: fit errors */
    int npoints, repeats;
    double from;   /* the regime rule left out the points below it (NAN: none) */
    double spread; /* largest relative sd of a point's repeats, % */
    double polls;  /* calls: the largest share of failed polls in a run, % (0: none) */
    struct json_t *warnings; /* strings; the caller owns (json_decref) */
} mc_series_model;

/* Fits series `total` and, with opts->per_iteration, the same divided by
 * its runs' iterations (`iter`), keeping the better (docs/models.md). The
 * point at the target coordinates is held out and compared. 1: fitted
 * (*out filled, its warnings to publish); 0: skipped (the reason appended to
 * `skipped`, a JSON array); -1: error (*err, out of memory). d answers
 * which functions are called fewer times than the iterations. */
int mc_series_model_fit(const mc_series_opts *opts, const mc_mdata *d, const mc_series *total,
                        const mc_series *iter, struct json_t *skipped, mc_series_model *out,
                        mc_error *err);

/* Whether point q is at the prediction coordinates of opts. */
int mc_series_at_target(const mc_series_opts *opts, const mc_point *q);

/* ---------------------------------------------------- processing-time model */

/* One run: p processes, problem size n, elapsed τ and Σγ over processes. */
typedef struct mc_scaling_obs {
    double p, n, tau, gamma;
} mc_scaling_obs;

/* CSV with header p,n,tau,gamma (seconds; n may be a class letter). Repeats
 * at the same (p, n) are averaged. *out is malloc'ed (free()). */
mc_err mc_scaling_read_csv(const char *path, mc_scaling_obs **out, size_t *count,
                           mc_error *err);

/* One run read from a trace directory in which MPI_Pcontrol markers delimit
 * the parallel part (docs/models.md, "Traces"): on each rank a Pcontrol of
 * positive level opens the parallel part, one of level 0 closes it (markers
 * that do not change the state are ignored; the rank's end closes an open
 * part). tau is the longest rank's application time as `mpicast stats`
 * defines it (end of Init to start of Finalize; first / last event when
 * missing); gamma the sum over ranks of the time inside the parallel part,
 * each interval from the opening marker's exit to the closing one's entry. */
typedef struct mc_pcontrol_run {
    mc_scaling_obs obs;     /* p (label, else ranks), n (label), tau, gamma */
    int nranks;
    long intervals;         /* parallel-part intervals over all ranks */
    int unmarked_ranks;     /* ranks without any interval */
    int open_ranks;         /* ranks whose last interval was closed by their end */
    int no_finalize_ranks;  /* ranks without Finalize: their time ends at their last event */
} mc_pcontrol_run;

/* Reads the trace directory `dir`. n must come from `label` (MC_ERR_FORMAT
 * otherwise); p is the label's when given, else the rank count. A trace
 * without any parallel-part interval, or a truncated one, is an error. */
mc_err mc_scaling_read_trace(const char *dir, const mc_run_label *label, mc_pcontrol_run *out,
                             mc_error *err);

/* Averages the runs at the same (p, n) in place (order of first appearance
 * kept); *count gets the number left. */
mc_err mc_scaling_merge_repeats(mc_scaling_obs *obs, size_t *count, mc_error *err);

/* A law in n: a polynomial Σ c[k]·n^k (degree 0..3), or c[0] + c[1]/n. */
typedef struct mc_law {
    int inverse; /* 1: c0 + c1/n */
    int degree;  /* polynomial degree (inverse: 1) */
    double c[4];
    double r;    /* correlation coefficient of the fit (1 for an exact fit) */
} mc_law;
double mc_law_eval(const mc_law *l, double n);

/* The fit at one problem size. */
typedef struct mc_scaling_n {
    double n, p1, gamma1;     /* reference count p1 and Σγ(p1, n) */
    double c0, c1, c2, r;     /* (1−ε′)/ε′ = c0 + |c1|·p + c2·p² */
    double a, c1n, c2n;       /* a = Σγ1·(1+c0), c′1 = c1/(1+c0), c′2 = c2/(1+c0) */
    size_t used, excluded;    /* points inside / outside the window */
    int skipped;              /* 1: fewer than 2 points in the window; not used across n */
} mc_scaling_n;

/* A point left out of the fit: ε′ outside (eps_min, 1]. */
typedef struct mc_scaling_excl {
    double p, n, eps;
} mc_scaling_excl;

typedef struct mc_scaling_model {
    mc_scaling_n *per_n;
    size_t nn;
    mc_law a, c1, c2;         /* a(n), c′1(n), c′2(n) */
    mc_scaling_excl *excluded;
    size_t nexcluded;
    const mc_scaling_obs *obs; /* the (averaged) measurements, borrowed */
    size_t nobs;
} mc_scaling_model;

typedef struct mc_scaling_opts {
    double eps_min;  /* ε_pc, default 0.1 */
    double p1;       /* reference p; 0: the smallest measured p of each n */
    int a_degree;    /* highest degree for a(n), default 2 */
    int c_degree;    /* highest polynomial degree for c′1, c′2, default 1 */
} mc_scaling_opts;
mc_scaling_opts mc_scaling_opts_default(void);

/* Fits the model; `obs` must outlive it. */
mc_err mc_scaling_fit(const mc_scaling_obs *obs, size_t nobs, const mc_scaling_opts *opts,
                      mc_scaling_model *model, mc_error *err);
void mc_scaling_model_free(mc_scaling_model *m);

/* τ(p,n) and its decomposition: τ = a/p + χ0 + χ1. */
typedef struct mc_scaling_row {
    double p, n, tau, parallel, chi0, chi1, efficiency;
} mc_scaling_row;
mc_scaling_row mc_scaling_eval(const mc_scaling_model *m, double p, double n);

/* The p at which efficiency falls to `level` (0.5) at fixed n (weak = 0) or
 * at fixed k = n/p (weak = 1); NAN when it stays above up to p_limit. */
double mc_scaling_p_at_efficiency(const mc_scaling_model *m, double n_or_k, int weak,
                                  double level, double p_limit);

/* Human-readable law, e.g. "155.9 + 0.2889*n + 3.148e-06*n^2". */
void mc_law_formula(const mc_law *l, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
