/* The what-if sweep (mpicast sweep, mpicast-sweep-mpi): one prediction per
 * point of the cross product of --vary values and --ranks, and balance
 * points (docs/json.md, "mpicast sweep --json", for the output contract).
 *
 * Efficiency: with one process count, the ranks' mean computation time c
 * over the predicted time T. With several, relative to the smallest count
 * P0 (same --vary values):
 *  - under --scaling strong (a fixed problem), the textbook strong-scaling
 *    efficiency T(P0) P0 / (T(P) P);
 *  - otherwise (weak scaling, the extrapolation's default) normalised by
 *    the work done: (c(P)/T(P)) / (c(P0)/T(P0)), which is T(P0) / T(P) when
 *    the work per rank stays the same.
 */
#include "sweep.h"

#include <jansson.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/extrap.h"
#include "mpicast/blocks.h"
#include "mpicast/cpu.h"
#include "mpicast/format.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"
#include "mpicast/input.h"
#include "mpicast/predict.h"

/* ------------------------------------------------------------ setup */

static int usage_error(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "mpicast: %s: ", prog);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return SWEEP_USAGE;
}

/* Loads the platform with --set and one value per --vary key (combo), and
 * an optional extra KEY=value; NULL with err filled. */
static mc_platform *point_platform(const sweep_cfg *c, int combo, const char *xkey, double xval,
                                   mc_error *err)
{
    mc_platform *p = mc_platform_open(c->platform, c->sets, c->nsets, err);
    if (!p)
        return NULL;
    for (int k = c->nvary - 1; k >= 0; k--) {
        const sweep_vary *v = &c->vary[k];
        const char *val = v->vals[combo % v->nvals];
        combo /= v->nvals;
        if (mc_platform_set_from(p, v->key, val, "--vary", err)) {
            mc_error_prefix(err, "--vary %s=%s", v->key, val);
            mc_platform_destroy(p);
            return NULL;
        }
    }
    if (xkey) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", xval);
        if (mc_platform_set_from(p, xkey, buf, "--solve", err)) {
            mc_error_prefix(err, "--solve %s", xkey);
            mc_platform_destroy(p);
            return NULL;
        }
    }
    if (mc_net_check(p, err) != MC_OK) {
        mc_platform_destroy(p);
        return NULL;
    }
    return p;
}

static int check_inputs(sweep_cfg *c)
{
    mc_error err = {0};
    char warned[1024] = "";
    for (int combo = 0; combo < c->ncombos; combo++) {
        mc_platform *p = point_platform(c, combo, NULL, 0, &err);
        if (!p) {
            fprintf(stderr, "mpicast: %s\n", err.msg);
            return SWEEP_BAD_INPUT;
        }
        mc_net_warn_ignored(p, stderr, warned, sizeof warned);
        mc_platform_destroy(p);
    }
    if (c->solve) {
        mc_unit unit;
        const char *name;
        int found = 0;
        for (int i = 0; (name = mc_platform_key_at(i, &unit, NULL)); i++)
            if (strcmp(name, c->solve) == 0)
                found = unit != MC_UNIT_STRING;
        if (!found)
            return usage_error(c->prog, "--solve %s: not a numeric platform key (e.g. "
                               "network.overhead, network.bandwidth, network.latency, "
                               "cpu.speed)", c->solve);
    }
    mc_source *src = mc_input_open(c->trace, &err);
    if (!src) {
        fprintf(stderr, "mpicast: %s\n", err.msg);
        return SWEEP_BAD_INPUT;
    }
    c->trace_ranks = src->nranks;
    c->hold = src;
    if (c->nranks == 0) {
        c->ranks = malloc(sizeof *c->ranks);
        if (!c->ranks)
            return usage_error(c->prog, "%s", "out of memory");
        c->ranks[0] = c->trace_ranks;
        c->nranks = 1;
    }
    return SWEEP_OK;
}

void sweep_cfg_init(sweep_cfg *c, const char *prog)
{
    memset(c, 0, sizeof *c);
    mc_extrap_rules_init(&c->rules);
    c->prog = prog;
    c->jobs = 1;
}

int sweep_prepare(sweep_cfg *c)
{
    c->ncombos = 1;
    for (int k = 0; k < c->nvary; k++) {
        if (c->ncombos > 1000000 / c->vary[k].nvals)
            return usage_error(c->prog, "%s", "--vary: more than 10^6 combinations");
        c->ncombos *= c->vary[k].nvals;
    }
    int rc = check_inputs(c);
    if (rc)
        return rc;
    mc_error err = {0};
    if (c->profile_file && !(c->profile = mc_cpu_profile_load(c->profile_file, &err))) {
        fprintf(stderr, "mpicast: %s\n", err.msg);
        return SWEEP_BAD_INPUT;
    }
    c->npoints = c->ncombos * c->nranks;
    c->nsolves = c->solve ? c->ncombos * c->nranks : 0;
    return SWEEP_OK;
}

void sweep_warn_unchecked(const sweep_cfg *c, FILE *out)
{
    char note[600];
    if (mc_cpu_profile_cpi_note(c->profile, note, sizeof note))
        fprintf(out, "mpicast: warning: %s\n", note);
    int extrapolates = 0;
    for (int k = 0; k < c->nranks; k++)
        extrapolates |= c->ranks[k] != c->trace_ranks;
    char line[600];
    if (extrapolates && mc_extrap_rules_unchecked(&c->rules, line, sizeof line))
        fprintf(out, "mpicast: warning: %s: unchecked: %s (docs/extrapolation.md, "
                "\"Leave-one-out check\")\n", c->prog, line);
}

void sweep_cfg_free(sweep_cfg *c)
{
    for (int k = 0; k < c->nvary; k++) {
        free(c->vary[k].key);
        for (int i = 0; i < c->vary[k].nvals; i++)
            free(c->vary[k].vals[i]);
        free(c->vary[k].vals);
    }
    free(c->vary);
    mc_cpu_profile_destroy(c->profile);
    mc_source_close(c->hold);
    free(c->ranks);
    free(c->sets);
    memset(c, 0, sizeof *c);
}

/* What efficiency compares across process counts (see the top of this
 * file): 1/(T P) under strong scaling (the work is fixed), the work done per
 * unit of time c/T otherwise. */
static double work_rate(const sweep_cfg *c, double T, double comp, int P)
{
    if (!(T > 0))
        return NAN;
    return c->rules.strong && c->nranks > 1 ? 1.0 / (T * (double)P) : comp / T;
}

/* Efficiency of a run (T predicted, comp mean compute, P ranks) against the
 * reference run at P0; with one process count, comp / T. */
static double efficiency(const sweep_cfg *c, double T, double comp, int P, double T0,
                         double comp0, int P0)
{
    double e = work_rate(c, T, comp, P);
    if (c->nranks == 1)
        return isnan(e) ? 1.0 : e;
    double e0 = work_rate(c, T0, comp0, P0);
    return isnan(e) || !(e0 > 0) ? 1.0 : e / e0;
}

/* ------------------------------------------------------------ one replay */

typedef struct point_time {
    double T, compute;
    int folded; /* the pseudo-trace came from folded inputs */
} point_time;

static mc_err predict_one(const sweep_cfg *c, int combo, int P, const char *xkey, double xval,
                          point_time *out, mc_error *err)
{
    mc_platform *p = point_platform(c, combo, xkey, xval, err);
    if (!p)
        return err->code ? err->code : MC_ERR_PLATFORM;
    /* a task's own table: a table counts its lookups, and tasks run at once */
    mc_ctable *table = NULL;
    if (c->compute_file && !(table = mc_ctable_load(c->compute_file, err))) {
        mc_platform_destroy(p);
        return err->code ? err->code : MC_ERR_IO;
    }
    /* the trace's own count replays the trace, others its pseudo-trace */
    mc_predict_request rq = {.trace = c->trace, .platform = p, .rules = &c->rules,
                             .compute = table, .profile = c->profile, .ranks = P != c->trace_ranks ? P : 0};
    mc_predict_result r;
    mc_err rc = mc_predict_run(&rq, &r, err);
    mc_ctable_destroy(table);
    if (rc == MC_OK) {
        out->T = mc_sim_seconds(r.run.end);
        double sum = 0;
        for (int i = 0; i < r.run.nranks; i++)
            sum += mc_sim_seconds(r.run.ranks[i].compute);
        out->compute = r.run.nranks ? sum / r.run.nranks : 0;
        out->folded = r.folded;
    }
    mc_predict_result_free(&r);
    mc_platform_destroy(p);
    return rc;
}

/* ------------------------------------------------------------ balance point */

/* Most evaluations one balance point may take (Brent's 12, then 80
 * bisections, and the bracket's three). */
#define SOLVE_MAX 100

/* The search. Each evaluation is one or two replays (at P, and at the
 * reference count P0), seconds each at a thousand ranks, so the solver
 * saves evaluations:
 *  - it starts from the value the platform already has (v0), and looks
 *    past the end of the range on v0's other side only when E is not
 *    between v0 and this end: the range's ends are extreme machines (1 ps
 *    of overhead: every message of a phase in flight at once), the
 *    slowest replays of all;
 *  - it finds the root of h = 1/e(P0) - E/e(P) (e = compute / predicted
 *    time, h > 0 exactly where the efficiency e(P)/e(P0) is above E) by
 *    Brent's method (GSL) in u = the key's value, or its inverse for a
 *    bandwidth: predicted time is close to affine in the overhead, the
 *    latency, the time per byte, and time over compute in the CPU speed,
 *    so h is close to affine in u and the secant steps land near the root
 *    at once;
 *  - when h is not finite (no computation) or Brent stalls, it bisects the
 *    logarithm of the value, keeping the bracket. */

typedef struct solver {
    const sweep_cfg *c;
    int combo, P;
    int evals;          /* replays */
    int folded;         /* some replay's input was folded */
    int recip;          /* u = 1 / value */
    double best, beste; /* the value whose efficiency is closest to E so far */
    int nlog;           /* evaluations so far: u, efficiency, h */
    double lu[SOLVE_MAX], le[SOLVE_MAX], lh[SOLVE_MAX];
    mc_error err;
} solver;

static double u_of(const solver *s, double v) { return s->recip ? 1 / v : v; }
static double v_of(const solver *s, double u) { return s->recip ? 1 / u : u; }

/* The evaluation at u already made, or -1. */
static int logged(const solver *s, double u)
{
    for (int k = s->nlog - 1; k >= 0; k--)
        if (s->lu[k] == u)
            return k;
    return -1;
}

/* Replays at KEY = v_of(u) (once per u): the evaluation's index in the
 * log, or -1 (err filled, or too many). */
static int eval_at(solver *s, double u)
{
    int k = logged(s, u);
    if (k >= 0)
        return k;
    if (s->nlog == SOLVE_MAX) {
        mc_error_set(&s->err, MC_ERR_INTERNAL, "--solve: no balance point after %d replays",
                     s->evals);
        return -1;
    }
    const double v = v_of(s, u), E = s->c->target;
    point_time t, t0 = {1, 1, 0};
    s->evals++;
    if (predict_one(s->c, s->combo, s->P, s->c->solve, v, &t, &s->err))
        return -1;
    if (s->c->nranks > 1) {
        s->evals++;
        if (predict_one(s->c, s->combo, s->c->ranks[0], s->c->solve, v, &t0, &s->err))
            return -1;
    }
    s->folded |= t.folded | t0.folded;
    double ep = work_rate(s->c, t.T, t.compute, s->P);
    double e0 = s->c->nranks > 1 ? work_rate(s->c, t0.T, t0.compute, s->c->ranks[0]) : 1.0;
    double eff = efficiency(s->c, t.T, t.compute, s->P, t0.T, t0.compute, s->c->ranks[0]);
    if (isnan(s->beste) || fabs(eff - E) < fabs(s->beste - E)) {
        s->best = v;
        s->beste = eff;
    }
    k = s->nlog++;
    s->lu[k] = u;
    s->le[k] = eff;
    s->lh[k] = ep > 0 && e0 > 0 ? 1 / e0 - E / ep : NAN;
    return k;
}

static int close_enough(const solver *s)
{
    return fabs(s->beste - s->c->target) <= 0.002 * s->c->target;
}

/* Is E between the efficiencies of evaluations i and j? */
static int brackets(const solver *s, int i, int j)
{
    return (s->c->target - s->le[i]) * (s->c->target - s->le[j]) <= 0;
}

/* h at u, for GSL; NAN (a failed replay, no computation) stops it. */
static double h_of_u(double u, void *arg)
{
    solver *s = arg;
    int k = eval_at(s, u);
    return k < 0 ? NAN : s->lh[k];
}

/* Narrows the bracket [*a, *b] (u, evaluated) by Brent's method on h:
 * 0 when the efficiency is close enough to E, 1 when Brent cannot go on
 * (the bracket reached is left in *a, *b), -1 when a replay failed. */
static int brent(solver *s, double *a, double *b)
{
    int ka = eval_at(s, *a), kb = eval_at(s, *b); /* logged: no replay */
    if (ka < 0 || kb < 0)
        return -1;
    if (!isfinite(s->lh[ka]) || !isfinite(s->lh[kb]))
        return 1;
    gsl_root_fsolver *fs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!fs)
        return 1;
    gsl_function F = {h_of_u, s};
    int rc = gsl_root_fsolver_set(fs, &F, *a, *b);
    for (int it = 0; rc == GSL_SUCCESS && it < 12 && !close_enough(s) && !s->err.code; it++) {
        rc = gsl_root_fsolver_iterate(fs);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(fs), gsl_root_fsolver_x_upper(fs), 0,
                                   1e-12) == GSL_SUCCESS)
            break;
    }
    *a = gsl_root_fsolver_x_lower(fs);
    *b = gsl_root_fsolver_x_upper(fs);
    gsl_root_fsolver_free(fs);
    return s->err.code ? -1 : !close_enough(s);
}

/* Search range by the key's unit; *recip: search in 1/value. */
static void bracket(const char *key, double *lo, double *hi, int *recip)
{
    mc_unit unit = MC_UNIT_NONE;
    const char *name;
    for (int i = 0; (name = mc_platform_key_at(i, &unit, NULL)); i++)
        if (strcmp(name, key) == 0)
            break;
    /* a rate: time goes as its inverse (bandwidth, the CPU frequency) */
    *recip = unit == MC_UNIT_BANDWIDTH || unit == MC_UNIT_FREQUENCY;
    if (unit == MC_UNIT_TIME) {
        *lo = 1e-12, *hi = 10;
    } else if (unit == MC_UNIT_FREQUENCY) {
        *lo = 1e6, *hi = 1e12;
    } else if (unit == MC_UNIT_BANDWIDTH) {
        *lo = 1e3, *hi = 1e15;
    } else if (unit == MC_UNIT_BYTES) {
        *lo = 1, *hi = 1e12;
    } else {
        *lo = 1e-4, *hi = 1e4;
    }
}

/* The value the point's platform gives KEY, or NAN. */
static double start_value(const sweep_cfg *c, int combo)
{
    mc_error err = {0};
    mc_platform *p = point_platform(c, combo, NULL, 0, &err);
    double v = p ? mc_platform_num(p, c->solve) : NAN;
    mc_platform_destroy(p);
    return v;
}

/* Finds evaluations i, j whose efficiencies E lies between: [v0, hi],
 * else [lo, v0], else [lo, hi]. 1 found, 0 not (the target cannot be
 * reached), -1 a replay failed. */
static int find_bracket(solver *s, double v0, double lo, double hi, int *i, int *j)
{
    int k0 = -1, kh, kl;
    if (isfinite(v0) && v0 > lo && v0 < hi && (k0 = eval_at(s, u_of(s, v0))) < 0)
        return -1;
    if ((kh = eval_at(s, u_of(s, hi))) < 0)
        return -1;
    if (k0 >= 0 && brackets(s, k0, kh)) {
        *i = k0, *j = kh;
        return 1;
    }
    if ((kl = eval_at(s, u_of(s, lo))) < 0)
        return -1;
    *i = kl, *j = k0 >= 0 ? k0 : kh;
    return brackets(s, *i, *j);
}

/* The balance point of s's combination and process count into out. */
static void solve(solver *s, sweep_result *out)
{
    const sweep_cfg *c = s->c;
    const double E = c->target;
    double lo, hi;
    bracket(c->solve, &lo, &hi, &s->recip);
    int i, j, rc = find_bracket(s, start_value(c, s->combo), lo, hi, &i, &j);
    if (rc == 0) {
        double emin = INFINITY, emax = -INFINITY;
        for (int k = 0; k < s->nlog; k++)
            emin = fmin(emin, s->le[k]), emax = fmax(emax, s->le[k]);
        out->done = 1;
        if (emin == emax) /* not a limit of the machine: a key the prediction ignores */
            snprintf(out->note, sizeof out->note,
                     "%s does not change the prediction (efficiency %.4g from %g to %g): the "
                     "network model ignores it or another key set overrides it "
                     "(docs/platform.md)", c->solve, emin, lo, hi);
        else
            snprintf(out->note, sizeof out->note,
                     "efficiency stays between %.4g and %.4g for %s from %g to %g: the target "
                     "%.4g cannot be reached", emin, emax, c->solve, lo, hi, E);
        return;
    }
    double a = rc > 0 ? fmin(s->lu[i], s->lu[j]) : 0, b = rc > 0 ? fmax(s->lu[i], s->lu[j]) : 0;
    if (rc > 0 && !close_enough(s))
        rc = brent(s, &a, &b) < 0 ? -1 : 1;
    /* Brent could not finish: bisect log(u), keeping E between a and b */
    for (int it = 0; rc > 0 && it < 80 && !close_enough(s) && b / a >= 1 + 1e-12; it++) {
        int ka = eval_at(s, a), km = ka < 0 ? -1 : eval_at(s, sqrt(a * b));
        if (km < 0)
            rc = -1;
        else if (brackets(s, ka, km))
            b = s->lu[km];
        else
            a = s->lu[km];
    }
    if (rc < 0) {
        snprintf(out->note, sizeof out->note, "%.230s", s->err.msg);
        return;
    }
    out->done = 1;
    out->eff = s->beste;
    if (fabs(s->beste - E) <= 0.01 * E) {
        out->value = s->best;
        snprintf(out->note, sizeof out->note, "efficiency %.4f at %s = %.6g", s->beste, c->solve,
                 s->best);
    } else {
        snprintf(out->note, sizeof out->note,
                 "efficiency jumps across the target near %s = %.6g (%.4f there)", c->solve,
                 s->best, s->beste);
    }
}

static void solve_task(const sweep_cfg *c, int combo, int P, sweep_result *out)
{
    out->ranks = P;
    out->value = NAN;
    out->eff = NAN;
    if (c->nranks > 1 && P == c->ranks[0]) {
        out->done = 1;
        snprintf(out->note, sizeof out->note,
                 "reference process count: efficiency is 1 by definition");
        return;
    }
    solver *s = malloc(sizeof *s); /* its log is a few KiB: not on a thread's stack */
    if (!s) {
        snprintf(out->note, sizeof out->note, "out of memory");
        return;
    }
    *s = (solver){.c = c, .combo = combo, .P = P, .best = NAN, .beste = NAN};
    solve(s, out);
    out->evals = s->evals;
    out->folded = s->folded;
    free(s);
}

/* ------------------------------------------------------------ tasks */

void sweep_run_task(const sweep_cfg *c, int i, sweep_result *out)
{
    memset(out, 0, sizeof *out);
    if (i < c->npoints) {
        int combo = i / c->nranks, P = c->ranks[i % c->nranks];
        point_time t;
        mc_error err = {0};
        out->ranks = P;
        out->value = NAN;
        out->eff = NAN;
        if (predict_one(c, combo, P, NULL, 0, &t, &err)) {
            snprintf(out->note, sizeof out->note, "%.230s", err.msg);
            return;
        }
        out->done = 1;
        out->predicted = t.T;
        out->compute = t.compute;
        out->comm = t.T - t.compute;
        out->folded = t.folded;
        return;
    }
    i -= c->npoints;
    solve_task(c, i / c->nranks, c->ranks[i % c->nranks], out);
}

typedef struct pool {
    const sweep_cfg *c;
    sweep_result *res;
    atomic_int next;
    atomic_int done;    /* tasks finished, for c->on_task_done */
    int stride, offset, n;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        int k = atomic_fetch_add(&p->next, 1);
        int i = p->offset + k * p->stride;
        if (i >= p->n)
            break;
        sweep_run_task(p->c, i, &p->res[i]);
        int done = atomic_fetch_add(&p->done, 1) + 1;
        if (p->c->on_task_done)
            p->c->on_task_done(p->c->on_task_ctx, done);
    }
    return NULL;
}

void sweep_run_tasks(const sweep_cfg *c, sweep_result *res, int jobs, int stride, int offset)
{
    pool p = {c, res, 0, 0, stride, offset, sweep_ntasks(c)};
    gsl_set_error_handler_off(); /* the solver's GSL errors come back as codes, once,
                                    before the threads */
    int n = jobs > 1 ? jobs : 1;
    pthread_t *th = n > 1 ? calloc((size_t)n, sizeof *th) : NULL;
    int started = 0;
    for (int k = 0; th && k < n; k++)
        if (pthread_create(&th[k], NULL, worker, &p) == 0)
            started++;
        else
            break;
    if (!started)
        worker(&p);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);
}

/* ------------------------------------------------------------ output */

static const char *vary_val(const sweep_cfg *c, int combo, int k)
{
    for (int j = c->nvary - 1; j > k; j--)
        combo /= c->vary[j].nvals;
    return c->vary[k].vals[combo % c->vary[k].nvals];
}

static double point_eff(const sweep_cfg *c, const sweep_result *res, int i)
{
    const sweep_result *r = &res[i], *r0 = &res[i - i % c->nranks];
    return efficiency(c, r->predicted, r->compute, r->ranks, r0->predicted, r0->compute,
                      r0->ranks);
}

static int print_json(const sweep_cfg *c, const sweep_result *res, FILE *out)
{
    json_t *pts = json_array(), *keys = json_array();
    for (int k = 0; k < c->nvary; k++)
        json_array_append_new(keys, json_string(c->vary[k].key));
    for (int i = 0; i < c->npoints; i++) {
        json_t *o = json_object();
        for (int k = 0; k < c->nvary; k++)
            json_object_set_new(o, c->vary[k].key, json_string(vary_val(c, i / c->nranks, k)));
        json_object_set_new(o, "ranks", json_integer(res[i].ranks));
        json_object_set_new(o, "predicted_time", json_real(res[i].predicted));
        json_object_set_new(o, "compute_time", json_real(res[i].compute));
        /* T - mean compute: not predict's comm_time (CPU time in MPI) nor its
         * breakdown (T - free-network T); "comm_time" stays one release as an
         * alias (docs/json.md) */
        json_object_set_new(o, "non_compute_time", json_real(res[i].comm));
        json_object_set_new(o, "comm_time", json_real(res[i].comm));
        json_object_set_new(o, "efficiency", json_real(point_eff(c, res, i)));
        json_array_append_new(pts, o);
    }
    json_t *doc = json_pack("{s:s,s:o,s:o}", "trace", c->trace, "vary", keys, "points", pts);
    if (c->solve) {
        json_t *sol = json_array();
        for (int j = 0; j < c->nsolves; j++) {
            const sweep_result *r = &res[c->npoints + j];
            json_t *o = json_object();
            for (int k = 0; k < c->nvary; k++)
                json_object_set_new(o, c->vary[k].key, json_string(vary_val(c, j / c->nranks, k)));
            json_object_set_new(o, "ranks", json_integer(r->ranks));
            json_object_set_new(o, "key", json_string(c->solve));
            json_object_set_new(o, "value", isnan(r->value) ? json_null() : json_real(r->value));
            json_object_set_new(o, "efficiency", isnan(r->eff) ? json_null() : json_real(r->eff));
            json_object_set_new(o, "note", json_string(r->note));
            json_array_append_new(sol, o);
        }
        json_object_set_new(doc, "target_efficiency", json_real(c->target));
        json_object_set_new(doc, "solutions", sol);
    }
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', out);
    json_decref(doc);
    return SWEEP_OK;
}

static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
}

static void print_csv(const sweep_cfg *c, const sweep_result *res, FILE *out)
{
    for (int k = 0; k < c->nvary; k++) {
        csv_field(out, c->vary[k].key);
        fputc(',', out);
    }
    fputs("ranks,predicted_time,compute_time,comm_time,efficiency\n", out);
    for (int i = 0; i < c->npoints; i++) {
        for (int k = 0; k < c->nvary; k++) {
            csv_field(out, vary_val(c, i / c->nranks, k));
            fputc(',', out);
        }
        fprintf(out, "%d,%.12g,%.12g,%.12g,%.12g\n", res[i].ranks, res[i].predicted,
                res[i].compute, res[i].comm, point_eff(c, res, i));
    }
}

static void print_table(const sweep_cfg *c, const sweep_result *res, FILE *out)
{
    int w[16];
    for (int k = 0; k < c->nvary && k < 16; k++) {
        w[k] = (int)strlen(c->vary[k].key);
        for (int v = 0; v < c->vary[k].nvals; v++)
            if ((int)strlen(c->vary[k].vals[v]) > w[k])
                w[k] = (int)strlen(c->vary[k].vals[v]);
    }
    for (int k = 0; k < c->nvary; k++)
        fprintf(out, "%-*s  ", k < 16 ? w[k] : 12, c->vary[k].key);
    fprintf(out, "%8s %16s %16s %16s %10s\n", "ranks", "predicted (s)", "compute (s)",
            "comm (s)", "efficiency");
    for (int i = 0; i < c->npoints; i++) {
        for (int k = 0; k < c->nvary; k++)
            fprintf(out, "%-*s  ", k < 16 ? w[k] : 12, vary_val(c, i / c->nranks, k));
        fprintf(out, "%8d %16.9f %16.9f %16.9f %10.4f\n", res[i].ranks, res[i].predicted,
                res[i].compute, res[i].comm, point_eff(c, res, i));
    }
    if (!c->solve)
        return;
    fprintf(out, "\nbalance points: %s for parallel efficiency %.4g\n", c->solve, c->target);
    for (int j = 0; j < c->nsolves; j++) {
        const sweep_result *r = &res[c->npoints + j];
        fprintf(out, "  ");
        for (int k = 0; k < c->nvary; k++)
            fprintf(out, "%s=%s ", c->vary[k].key, vary_val(c, j / c->nranks, k));
        if (isnan(r->value))
            fprintf(out, "ranks %d: none (%s)\n", r->ranks, r->note);
        else
            fprintf(out, "ranks %d: %s = %.6g  (efficiency %.4f, %d replays)\n", r->ranks,
                    c->solve, r->value, r->eff, r->evals);
    }
}

int sweep_print(const sweep_cfg *c, const sweep_result *res, FILE *out)
{
    for (int i = 0; i < sweep_ntasks(c); i++)
        if (!res[i].done) {
            fprintf(stderr, "mpicast: %s\n", res[i].note[0] ? res[i].note : "a point failed");
            return SWEEP_BAD_INPUT;
        }
    for (int i = 0; i < sweep_ntasks(c); i++)
        if (res[i].folded) { /* a shortcut not asked for: once */
            fprintf(stderr, "mpicast: warning: %s: %s\n", c->prog, mc_extrap_folded_warning(&c->rules));
            break;
        }
    if (c->json)
        return print_json(c, res, out);
    if (c->csv)
        print_csv(c, res, out);
    else
        print_table(c, res, out);
    return SWEEP_OK;
}
