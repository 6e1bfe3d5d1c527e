/* One series' model as `mpicast model` reports it (issues 7, 27): the
 * selection (mc_model_select) and the rules around it — zero is a value,
 * the small-scale regime, never negative, per run or per iteration — and
 * the warnings about the points and the prediction. The CLI parses, calls
 * mc_series_model_fit per series and renders (src/cli/cmd_model.c). */
#define MPICAST_MODEL_INTERNAL
#include "model_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct fit_state {
    const mc_series_opts *o;
    const mc_mdata *d;
    json_t *skipped; /* why series were not fitted */
} fit_state;

static void warn(mc_series_model *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records a warning of the series; the caller publishes it once the
 * series' fit is chosen (--per-iteration fits every series twice). */
static void warn(mc_series_model *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(r->warnings, json_string(buf));
}

/* The series' x (and x2) of point i. */
static double px(const mc_series *s, size_t i, mc_model_var by)
{
    return by == MC_VAR_N ? s->pts[i].n : s->pts[i].p;
}

int mc_series_at_target(const mc_series_opts *o, const mc_point *q)
{
    if (!o->have_target)
        return 0;
    if (o->by != MC_VAR_N && q->p != o->target.p)
        return 0;
    if (o->by != MC_VAR_P && q->n != o->target.n)
        return 0;
    if (o->by == MC_VAR_P && o->target.have_n && q->n != o->target.n)
        return 0;
    if (o->by == MC_VAR_N && o->target.have_p && q->p != o->target.p)
        return 0;
    if (o->target.have_iters && q->iters != o->target.iters)
        return 0;
    return 1;
}

/* Warnings about the points and the prediction (issue 7): few points per
 * parameter, extrapolation far outside the measured range (beyond a factor
 * 4), a model going negative between the data and the prediction. */
static void check_model(fit_state *st, mc_series_model *r, const double *x, const double *x2,
                        size_t m)
{
    const mc_series_opts *o = st->o;
    const char *fn = r->s->function;
    double scale = 0;
    for (size_t i = 0; i < r->s->npts; i++)
        scale = fmax(scale, fabs(r->s->pts[i].value));
    for (int v = 0; v < (o->by == MC_VAR_PN ? 2 : 1); v++) {
        const double *xs = v ? x2 : x;
        const char *name = o->by == MC_VAR_PN ? (v ? "n" : "p") : mc_model_var_name(o->by);
        double lo = INFINITY, hi = -INFINITY;
        size_t distinct = 0;
        for (size_t i = 0; i < m; i++) {
            int seen = 0;
            for (size_t j = 0; j < i; j++)
                seen |= xs[j] == xs[i];
            distinct += !seen;
            lo = fmin(lo, xs[i]), hi = fmax(hi, xs[i]);
        }
        if (distinct < 3)
            warn(r,
                 "%s %s: only %zu distinct value%s of %s; the study needs at least 3 to tell "
                 "the families apart", fn, r->s->metric, distinct, distinct == 1 ? "" : "s", name);
        if (!o->have_target)
            continue;
        double t = (o->by == MC_VAR_N || (o->by == MC_VAR_PN && v)) ? o->target.n : o->target.p;
        if (t > 4 * hi || t < lo / 4)
            warn(r,
                 "%s %s: prediction at %s=%g is far outside the measured range [%g, %g]", fn,
                 r->s->metric, name, t, lo, hi);
        /* negative anywhere between the data and the target? (not
         * rounding of an exact zero) */
        double other = o->by != MC_VAR_PN ? 0 : v ? o->target.p : o->target.n, xv, val;
        if (mc_fit_negative_on(&r->fit, fmin(lo, t), fmax(hi, t), v, other, 1e-9 * scale, &xv,
                               &val))
            warn(r,
                 "%s %s: the model is negative (%g) at %s=%g, inside the range asked for",
                 fn, r->s->metric, val, name, xv);
    }
}

/* The runner-up explains the runs exactly as well (the same held-out
 * error) and predicts the target otherwise: the runs cannot tell the two
 * laws apart, and the tie rule chose (LAMMPS's sends: grid-split and
 * logarithmic are the same law up to p = 8). */
static void tie_warning(const mc_series_opts *o, mc_series_model *r)
{
    if (!o->have_target || !r->runner.ok || r->used != MC_SELECT_CV)
        return;
    double a = r->fit.cv, b = r->runner.cv;
    if (!isfinite(a) || !isfinite(b) || fabs(a - b) > 1e-6 + 1e-6 * fabs(a))
        return;
    double tx = o->by == MC_VAR_N ? o->target.n : o->target.p;
    double v = mc_fit_eval(&r->fit, tx, o->target.n), w = mc_fit_eval(&r->runner, tx, o->target.n);
    if (!isfinite(v) || !isfinite(w) || fabs(v - w) <= 0.01 * fmax(fabs(v), fabs(w)))
        return;
    const char *fn = r->s->function, *x = o->by == MC_VAR_N ? "n" : "p";
    warn(r,
         "%s %s: %s explains the runs as well (held-out error %.3g %%) and predicts %.6g at "
         "%s=%g%s, where %s predicts %.6g: the runs do not tell them apart; a run nearer "
         "%s=%g would", fn, r->s->metric, mc_family_name(r->runner.family), b, w, x, tx,
         o->per_iteration && !r->per_run ? " per iteration" : "", mc_family_name(r->fit.family),
         v, x, tx);
}

/* Whether model f goes negative anywhere between the fitted x (x2) and the
 * target, as check_model tests it (--by pn: along p at the target's n and
 * along n at its p); where and how much go to *name, *at, *val. */
static int negative_to_target(const mc_series_opts *o, const mc_fit *f, const double *x,
                              const double *x2, size_t m, double tol, const char **name,
                              double *at, double *val)
{
    for (int v = 0; v < (o->by == MC_VAR_PN ? 2 : 1); v++) {
        const double *xs = v ? x2 : x;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < m; i++)
            lo = fmin(lo, xs[i]), hi = fmax(hi, xs[i]);
        double t = (o->by == MC_VAR_N || (o->by == MC_VAR_PN && v)) ? o->target.n : o->target.p;
        double other = o->by != MC_VAR_PN ? 0 : v ? o->target.p : o->target.n;
        if (mc_fit_negative_on(f, fmin(lo, t), fmax(hi, t), v, other, tol, at, val)) {
            *name = o->by == MC_VAR_PN ? (v ? "n" : "p") : mc_model_var_name(o->by);
            return 1;
        }
    }
    return 0;
}

/* Counts, bytes and times are never negative. When no measured value is
 * negative and the chosen model goes negative between the data and the
 * target, the best other candidate under the same criterion that does not
 * is taken, with a warning: a law that predicts -685 calls is wrong however
 * well it fits (hpcc's Sendrecv, docs/models.md). When every candidate goes
 * negative the choice stands (check_model warns). Not under --select mape:
 * the study's procedure stays the study's. */
static void nonnegative_choice(fit_state *st, mc_series_model *r, const double *x, const double *x2,
                               const double *y, size_t m, const mc_fit all[MC_FAMILY_COUNT])
{
    const mc_series_opts *o = st->o;
    if (!o->have_target || r->used == MC_SELECT_MAPE || r->used == MC_SELECT_EXACT)
        return;
    double scale = 0;
    for (size_t i = 0; i < m; i++) {
        if (y[i] < 0)
            return;
        scale = fmax(scale, y[i]);
    }
    const char *name;
    double at, val, a2, v2;
    if (!negative_to_target(o, &r->fit, x, x2, m, 1e-9 * scale, &name, &at, &val))
        return;
    unsigned char skip[MC_FAMILY_COUNT] = {0};
    skip[r->fit.family] = 1;
    for (int k; (k = mc_model_best_except(all, r->used, skip)) >= 0; skip[k] = 1) {
        if (negative_to_target(o, &all[k], x, x2, m, 1e-9 * scale, &name, &a2, &v2))
            continue;
        warn(r,
             "%s %s: %s goes negative (%g at %s=%g) before the prediction point; %s taken "
             "instead (held-out error %.3g %%, was %.3g %%)",
             r->s->function, r->s->metric, mc_family_name(r->fit.family), val, name, at,
             mc_family_name(all[k].family), all[k].cv, r->fit.cv);
        r->fit = all[k];
        return;
    }
}

/* Zero is a value, but a function absent from a run may follow another
 * law there (master_worker at p = 1 sends nothing: no worker). The series
 * is also fitted without its filled zeros; when that model's held-out error
 * on the measured points is lower than the one with the zeros (which were
 * fitted but not scored), the zeros are left out, with a warning. On a tie
 * they stay. Compacts x, x2, y and *m when they go. */
static mc_err without_filled(fit_state *st, mc_series_model *r, double *x, double *x2, double *y,
                             size_t *m, const unsigned char *unscored, size_t nfilled,
                             mc_fit all[MC_FAMILY_COUNT], mc_error *e)
{
    const mc_series_opts *o = st->o;
    size_t k = 0, n = *m;
    double *bx = malloc(3 * (n + 1) * sizeof *bx);
    if (!bx)
        return mc_error_set(e, MC_ERR_NOMEM, "out of memory");
    double *bx2 = bx + n + 1, *by = bx2 + n + 1;
    for (size_t i = 0; i < n; i++)
        if (!unscored[i])
            bx[k] = x[i], bx2[k] = x2[i], by[k] = y[i], k++;
    mc_fit best, ball[MC_FAMILY_COUNT];
    mc_select used;
    mc_error e2 = {0};
    double with = r->fit.cv;
    if (mc_model_select(o->by, bx, o->by == MC_VAR_PN ? bx2 : NULL, by, k, &o->fit, &best, ball,
                        &used, &e2) == MC_OK &&
        isfinite(best.cv) && (!isfinite(with) || best.cv < with - 1e-6 - 1e-6 * with)) {
        warn(r,
             "%s %s: the %zu zero%s where the function is absent fit%s no law of the other "
             "runs (held-out error %.3g %% with, %.3g %% without): left out",
             r->s->function, r->s->metric, nfilled, nfilled == 1 ? "" : "s",
             nfilled == 1 ? "s" : "", with, best.cv);
        r->fit = best, r->used = used;
        memcpy(all, ball, sizeof ball);
        memcpy(x, bx, k * sizeof *x), memcpy(x2, bx2, k * sizeof *x2), memcpy(y, by, k * sizeof *y);
        *m = k;
    }
    free(bx);
    return e2.code == MC_ERR_NOMEM ? (*e = e2, MC_ERR_NOMEM) : MC_OK;
}

/* The regime rule (mc_model_regime): the smallest values of x left out
 * when a law of the rest predicts it far better, with a warning; not when
 * the prediction point lies among them. Compacts x, x2, y and *m. */
static mc_err later_regime(fit_state *st, mc_series_model *r, double *x, double *x2, double *y,
                           size_t *m, const unsigned char *unscored,
                           mc_fit all[MC_FAMILY_COUNT], mc_error *e)
{
    const mc_series_opts *o = st->o;
    if (o->by == MC_VAR_PN)
        return MC_OK;
    mc_fit_opts fo = o->fit;
    fo.unscored = unscored;
    double from;
    mc_fit best, ball[MC_FAMILY_COUNT];
    mc_select used;
    mc_err rc = mc_model_regime(o->by, x, y, *m, &fo, r->fit.cv, &from, &best, ball, &used, e);
    double target = o->by == MC_VAR_N ? o->target.n : o->target.p;
    if (rc || isnan(from) || (o->have_target && target < from))
        return rc;
    char below[256] = "";
    size_t out = 0, len = 0;
    for (size_t i = 0; i < *m; i++) { /* the values left out, each once */
        if (x[i] >= from)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= x[j] == x[i];
        if (!seen && len < sizeof below)
            len += (size_t)snprintf(below + len, sizeof below - len, "%s%g", out ? ", " : "", x[i]);
        out++;
    }
    size_t k = 0;
    for (size_t i = 0; i < *m; i++)
        if (x[i] >= from)
            x[k] = x[i], x2[k] = x2[i], y[k] = y[i], k++;
    warn(r,
         "%s %s: the %zu point%s at %s=%s follow%s no law of the others (held-out error %.3g %% "
         "with them, %.3g %% without): fitted on %s >= %g",
         r->s->function, r->s->metric, out, out == 1 ? "" : "s", mc_model_var_name(o->by), below,
         out == 1 ? "s" : "", r->fit.cv, best.cv, mc_model_var_name(o->by), from);
    r->fit = best, r->used = used, r->from = from;
    memcpy(all, ball, sizeof ball);
    *m = k;
    return MC_OK;
}

/* Fits one series; 1 when fitted, 0 when skipped (too few points; why is
 * appended to `skipped`). With --per-iteration the series' values are per
 * run (`per_run`) or per iteration. */
static int fit_series(fit_state *st, const mc_series *s, int per_run, json_t *skipped,
                      mc_series_model *r, mc_error *err)
{
    const mc_series_opts *o = st->o;
    memset(r, 0, sizeof *r);
    r->s = s;
    r->prediction = r->measured = r->pred_iter = r->meas_iter = r->from = NAN;
    r->norm_err[0] = r->norm_err[1] = r->norm_err[2] = NAN;
    r->setup.ok = r->runner_setup.ok = 0;
    r->per_run = o->per_iteration && per_run;
    r->warnings = json_array();
    size_t m = 0, nfilled = 0;
    double *x = malloc((s->npts + 1) * sizeof *x), *x2 = malloc((s->npts + 1) * sizeof *x2),
           *y = malloc((s->npts + 1) * sizeof *y);
    unsigned char *unscored = calloc(s->npts + 1, 1);
    int ok = 0;
    if (!x || !x2 || !y || !unscored) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        ok = -1;
        goto out;
    }
    for (size_t i = 0; i < s->npts; i++) {
        const mc_point *q = &s->pts[i];
        if (mc_series_at_target(o, q)) {
            r->measured = q->value;
            if (o->per_iteration && !r->per_run)
                r->meas_iter = q->value, r->measured = q->value * q->iters;
            else if (o->per_iteration)
                r->meas_iter = q->value / q->iters;
            continue;
        }
        x[m] = o->by == MC_VAR_PN ? q->p : px(s, i, o->by);
        x2[m] = q->n;
        y[m] = q->value;
        unscored[m] = (unsigned char)q->filled;
        nfilled += q->filled != 0;
        if (q->repeats > r->repeats)
            r->repeats = q->repeats;
        if (q->repeats > 1 && q->value != 0)
            r->spread = fmax(r->spread, 100 * q->sd / fabs(q->value));
        m++;
    }
    mc_error e = {0};
    mc_fit all[MC_FAMILY_COUNT];
    mc_fit_opts fo = o->fit;
    fo.unscored = nfilled ? unscored : NULL;
    mc_err rc = mc_model_select(o->by, x, o->by == MC_VAR_PN ? x2 : NULL, y, m, &fo, &r->fit,
                                all, &r->used, &e);
    size_t m_all = m;
    if (rc == MC_OK && nfilled)
        rc = without_filled(st, r, x, x2, y, &m, unscored, nfilled, all, &e);
    if (rc == MC_OK)
        rc = later_regime(st, r, x, x2, y, &m, nfilled && m == m_all ? unscored : NULL, all, &e);
    if (rc == MC_OK)
        nonnegative_choice(st, r, x, x2, y, m, all);
    r->npoints = (int)m;
    if (rc) {
        if (e.code == MC_ERR_NOMEM) {
            *err = e;
            ok = -1;
        } else {
            char msg[2400];
            snprintf(msg, sizeof msg, "%s: %s %s: %s", s->where, s->function, s->metric, e.msg);
            json_array_append_new(skipped, json_string(msg)); /* printed by run_model */
        }
        goto out;
    }
    ok = 1;
    int ru = mc_model_runner_up(all, r->fit.family, r->used);
    if (ru >= 0)
        r->runner = all[ru];
    if (r->used == MC_SELECT_EXACT)
        warn(r,
             "%s %s: %zu points fit every family exactly; %s taken without a held-out check",
             s->function, s->metric, m, mc_family_name(r->fit.family));
    if (o->have_target) {
        double tx = o->by == MC_VAR_N ? o->target.n : o->target.p;
        r->prediction = mc_fit_eval(&r->fit, tx, o->target.n);
        if (o->per_iteration) {
            /* per iteration × the iterations asked for; without them the
             * prediction stays per iteration, compared with the measured
             * value per iteration */
            int per_run = r->per_run;
            r->pred_iter = per_run && o->target.have_iters ? r->prediction / o->target.iters
                                                           : r->prediction;
            if (o->target.have_iters && !per_run)
                r->prediction *= o->target.iters;
            else if (!o->target.have_iters && !per_run)
                r->measured = r->meas_iter;
        }
    }
    tie_warning(o, r);
    check_model(st, r, x, x2, m);
out:
    free(x);
    free(x2);
    free(y);
    free(unscored);
    return ok;
}

/* Kendall's S of the series' totals against its iterations over the
 * fitted points: > 0 when the counts grow with the iterations; *varied
 * gets whether the iterations differ at all. */
static int grows_with_iters(const mc_series_opts *o, const mc_series *s, int *varied)
{
    long sum = 0;
    *varied = 0;
    for (size_t i = 0; i < s->npts; i++)
        for (size_t j = i + 1; j < s->npts; j++) {
            const mc_point *a = &s->pts[i], *b = &s->pts[j];
            if (mc_series_at_target(o, a) || mc_series_at_target(o, b))
                continue;
            *varied |= a->iters != b->iters;
            int di = (b->iters > a->iters) - (b->iters < a->iters);
            int dv = (b->value > a->value) - (b->value < a->value);
            sum += di * dv;
        }
    return sum > 0;
}

/* The error the normalisations are compared by: the held-out error when
 * both chosen models have one, else the error on the fitted points (both
 * relative, so a count per iteration and per run compare). NAN: +inf. */
static double norm_error(const mc_series_model *r, int cv)
{
    double e = cv ? r->fit.cv : r->fit.mape;
    return isnan(e) ? INFINITY : e;
}

/* --per-iteration: whether the series is better explained per iteration
 * (`it`, the values divided by each run's iterations) or per run (`run`,
 * the totals). The smaller error wins; on a tie (1e-6 relative, as both fit
 * exactly or neither can be judged) per iteration when the totals grow with
 * the iterations, per run when they do not, and where every fitted run has
 * the same iterations (nothing tells them apart) per run only for a
 * function called fewer times than the iterations in some run. 1: per
 * iteration. */
static int choose_per_iteration(fit_state *st, const mc_series *total, mc_series_model *it,
                                mc_series_model *run)
{
    int cv = isfinite(it->fit.cv) && isfinite(run->fit.cv);
    double ei = norm_error(it, cv), er = norm_error(run, cv);
    for (int k = 0; k < 2; k++) {
        mc_series_model *r = k ? run : it;
        r->norm_cv = cv;
        r->norm_err[0] = isfinite(ei) ? ei : NAN;
        r->norm_err[1] = isfinite(er) ? er : NAN;
    }
    double hi = fmax(isfinite(ei) ? ei : 0, isfinite(er) ? er : 0);
    int tie = (ei == er) || fabs(ei - er) <= 1e-6 + 1e-6 * hi;
    if (!tie)
        return ei < er;
    int varied;
    if (grows_with_iters(st->o, total, &varied))
        return 1;
    return !varied && !mc_mdata_calls_below_iters(st->d, total->function);
}

/* A constant law s (the set-up part fitted from the totals). */
static mc_fit constant_law(double v)
{
    mc_fit f;
    memset(&f, 0, sizeof f);
    f.family = MC_FAMILY_CONSTANT, f.ok = 1, f.c[0] = v, f.nparams = f.ncoef = 1;
    f.cv = f.mape = f.ar2 = f.aicc = NAN;
    return f;
}

/* The split stats measured (main_loop_calls): the set-up part y - loop and
 * the part per iteration loop / iters, each its own law of x by the usual
 * selection, over points 0..m except `skip` (SIZE_MAX: none). 0 when both
 * could be fitted. */
static int split_laws(const mc_series_opts *o, const double *x, const double *it,
                      const double *y, const double *lp, size_t m, size_t skip, double *bx,
                      double *bs, double *bf, mc_fit *sfit, mc_fit *ffit)
{
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (i != skip)
            bx[k] = x[i], bs[k] = y[i] - lp[i], bf[k] = lp[i] / it[i], k++;
    mc_error e = {0};
    mc_select used;
    return mc_model_select(o->by, bx, NULL, bs, k, &o->fit, sfit, NULL, &used, &e) ||
           mc_model_select(o->by, bx, NULL, bf, k, &o->fit, ffit, NULL, &used, &e);
}

/* The measured split as a model of the totals, judged by leave-one-out on
 * them (the folds that can be fitted, as setup.c's); *mape is its error on
 * the fitted totals. 1: fitted; 0: not (fewer than 3 points, or a fit
 * failed); -1: out of memory. */
static int split_fit(const mc_series_opts *o, const double *x, const double *it, const double *y,
                     const double *lp, const unsigned char *unscored, size_t m, mc_fit *sfit,
                     mc_fit *ffit, double *cv, double *mape)
{
    *cv = *mape = NAN;
    if (m < 3 || o->by == MC_VAR_PN)
        return 0;
    double *buf = malloc(5 * m * sizeof *buf);
    if (!buf)
        return -1;
    double *bx = buf, *bs = bx + m, *bf = bs + m, *A = bf + m, *F = A + m;
    int ok = split_laws(o, x, it, y, lp, m, SIZE_MAX, bx, bs, bf, sfit, ffit) == 0;
    for (size_t j = 0; ok && j < m; j++)
        F[j] = mc_fit_eval(sfit, x[j], 0) + it[j] * mc_fit_eval(ffit, x[j], 0);
    if (ok)
        *mape = mcm_mape(y, F, m);
    size_t scorable = 0, scored = 0;
    for (size_t j = 0; ok && j < m; j++) {
        mc_fit fs, ff;
        if (unscored && unscored[j])
            continue;
        scorable++;
        if (split_laws(o, x, it, y, lp, m, j, bx, bs, bf, &fs, &ff))
            continue;
        A[scored] = y[j];
        F[scored++] = mc_fit_eval(&fs, x[j], 0) + it[j] * mc_fit_eval(&ff, x[j], 0);
    }
    if (ok && scored >= 2 && 2 * scored >= scorable)
        *cv = mcm_mape(A, F, scored);
    free(buf);
    return ok && isfinite(*cv);
}

/* --per-iteration's third normalisation, set-up + per iteration: totals =
 * s(x) + iters·f(x). Two ways to it: fitted from the totals where the runs'
 * iterations differ (setup.c; s constant), and from the split stats
 * measured (main_loop_calls: s and f each a law, which runs of one
 * iteration count give too); the one with the lower held-out error (the
 * measured one on a tie) replaces the kept normalisation: fitted from the
 * totals when its error is lower by more than the parsimony margin (it has
 * a coefficient more than the same law per iteration), measured unless its
 * error is higher by more than that margin. Not when the prediction point
 * has no iteration count (nothing to multiply f by) or the predicted total
 * is negative. The new model gets check_model's warnings about its points
 * and the prediction (the kept one's go with it). 1: *r replaced; 0: kept;
 * -1: out of memory. */
#define SETUP_MARGIN 0.10
static int setup_choice(fit_state *st, const mc_series *total, mc_series_model *r,
                        mc_error *err)
{
    const mc_series_opts *o = st->o;
    if (!r->norm_cv || (o->have_target && !o->target.have_iters))
        return 0;
    size_t m = 0, n = total->npts;
    double *x = malloc(4 * (n + 1) * sizeof *x), *it = x ? x + n + 1 : NULL,
           *y = x ? it + n + 1 : NULL, *lp = x ? y + n + 1 : NULL;
    unsigned char *unscored = calloc(n + 1, 1);
    int rc = 0, rs = 0, measured = 1;
    mcm_setup fit;
    mc_fit sfit, ffit;
    double scv = NAN, smape = NAN;
    if (!x || !unscored) {
        rc = -1;
        goto out;
    }
    const mc_point *at = NULL;
    int repeats = 0;
    double spread = 0;
    for (size_t i = 0; i < n; i++) {
        const mc_point *q = &total->pts[i];
        if (mc_series_at_target(o, q)) {
            at = q;
            continue;
        }
        x[m] = px(total, i, o->by), it[m] = q->iters, y[m] = q->value, lp[m] = q->loop;
        measured &= q->has_loop && q->iters > 0 && isfinite(q->loop);
        unscored[m++] = (unsigned char)q->filled;
        repeats = q->repeats > repeats ? q->repeats : repeats;
        if (q->repeats > 1 && q->value != 0)
            spread = fmax(spread, 100 * q->sd / fabs(q->value));
    }
    rc = mcm_setup_fit(o, x, it, y, unscored, m, &fit);
    if (rc >= 0 && measured)
        rs = split_fit(o, x, it, y, lp, unscored, m, &sfit, &ffit, &scv, &smape);
    if (rc < 0 || rs < 0) {
        rc = -1;
        goto out;
    }
    double fcv = rc == 1 ? fit.fit.cv : NAN;
    int use_split = rs == 1 && (!isfinite(fcv) || scv <= fcv + 1e-6 + 1e-6 * fcv);
    double cv = use_split ? scv : fcv, kept = r->norm_err[r->per_run ? 1 : 0];
    r->norm_err[2] = isfinite(cv) ? cv : NAN;
    rc = 0;
    /* fitted from the totals, s + iters·f must earn its coefficient; the
     * measured split is what the trace shows, and wins within the margin
     * (runs of one iteration count cannot tell s from iters·f: the loop can) */
    double tol = 1e-6 + 1e-6 * kept;
    if (!isfinite(cv) || !isfinite(kept) ||
        !(use_split ? cv <= kept / (1 - SETUP_MARGIN) + tol : cv < kept * (1 - SETUP_MARGIN) - tol))
        goto out;
    mc_series_model s;
    memset(&s, 0, sizeof s);
    s.s = total, s.used = MC_SELECT_CV, s.with_setup = 1, s.setup_measured = use_split;
    if (use_split) {
        /* a function wholly inside the loop is per iteration, wholly outside
         * it per run: the split says which, where runs of one iteration
         * count cannot (a call every 5th iteration) */
        int outside = 0, inside = 0;
        for (size_t i = 0; i < m; i++)
            outside |= y[i] - lp[i] != 0, inside |= lp[i] != 0;
        s.fit = inside ? ffit : sfit, s.setup = inside ? sfit : constant_law(0);
        s.fit.cv = scv, s.fit.mape = smape; /* the model's errors are of the totals */
        s.with_setup = inside && outside, s.per_run = !inside;
        if (!s.with_setup && s.per_run == r->per_run)
            goto out; /* the kept model already is that normalisation */
        if (!s.with_setup)
            s.setup = constant_law(0);
    } else {
        s.fit = fit.fit, s.runner = fit.runner;
        s.setup = constant_law(fit.setup), s.runner_setup = constant_law(fit.runner_setup);
    }
    double pred = NAN;
    if (o->have_target) {
        double tx = o->by == MC_VAR_N ? o->target.n : o->target.p;
        double sv = mc_fit_eval(&s.setup, tx, 0), fv = mc_fit_eval(&s.fit, tx, o->target.n);
        pred = s.per_run ? fv : sv + o->target.iters * fv;
        if (!(pred >= -1e-9 * fmax(1, fabs(sv))))
            goto out;
    }
    s.prediction = pred, s.pred_iter = pred / o->target.iters;
    s.measured = s.meas_iter = s.from = NAN;
    if (at)
        s.measured = at->value, s.meas_iter = at->value / at->iters;
    memcpy(s.norm_err, r->norm_err, sizeof s.norm_err);
    s.norm_cv = 1, s.npoints = (int)m, s.repeats = repeats, s.spread = spread;
    s.warnings = json_array();
    check_model(st, &s, x, x, m); /* --by p or n only: x2 unused */
    json_decref(r->warnings);
    *r = s;
    rc = 1;
out:
    free(x);
    free(unscored);
    if (rc < 0)
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    return rc;
}

/* Failed polls (MPI_Test*, MPI_Iprobe finding nothing) are as many as the
 * waits they fill allow: a count that is mostly such polls depends on the
 * run's timing as well as on p and n (hpcc: MPI_Iprobe 1521 and 1264
 * calls in two runs of one configuration), so its prediction is flagged. */
#define POLL_SHARE_WARN 0.5
static void poll_warning(const mc_mdata *d, mc_series_model *r)
{
    const char *where = NULL;
    double share = mc_mdata_poll_share(d, r->s->function, &where);
    if (strcmp(r->s->metric, "calls") != 0 || share < POLL_SHARE_WARN)
        return;
    r->polls = 100 * share;
    warn(r,
         "%s calls: %.1f %% of them were failed polls in %s: their number depends on the "
         "run's timing too, so two runs of one configuration differ and the held-out error "
         "understates the prediction's", r->s->function, r->polls, where);
}

int mc_series_model_fit(const mc_series_opts *opts, const mc_mdata *d, const mc_series *total,
                        const mc_series *iter, json_t *skipped, mc_series_model *r,
                        mc_error *err)
{
    fit_state state = {opts, d, skipped}, *st = &state;
    if (!st->o->per_iteration) {
        int f = fit_series(st, total, 0, st->skipped, r, err);
        if (f == 1)
            poll_warning(d, r);
        return f;
    }
    mc_series_model run = {0};
    json_t *skip_it = json_array(), *skip_run = json_array();
    int fi = fit_series(st, iter, 0, skip_it, r, err), fr = -1;
    if (fi >= 0)
        fr = fit_series(st, total, 1, skip_run, &run, err);
    int keep_iter = 1, f = fi;
    if (fi < 0 || fr < 0) {
        f = -1;
    } else if (fi == 1 && fr == 1) {
        keep_iter = choose_per_iteration(st, total, r, &run);
    } else if (fr == 1) { /* only one could be fitted: nothing compared */
        keep_iter = 0, f = 1;
        run.norm_cv = isfinite(run.fit.cv);
        run.norm_err[1] = run.norm_cv ? run.fit.cv : run.fit.mape;
    } else if (fi == 1) {
        r->norm_cv = isfinite(r->fit.cv);
        r->norm_err[0] = r->norm_cv ? r->fit.cv : r->fit.mape;
    }
    if (fi >= 0 && f >= 0) {
        json_t *why = keep_iter ? skip_it : skip_run;
        json_array_extend(st->skipped, why);
    }
    if (keep_iter) {
        json_decref(run.warnings); /* NULL when not fitted */
    } else {
        json_decref(r->warnings);
        *r = run;
    }
    json_decref(skip_it);
    json_decref(skip_run);
    if (f == 1 && setup_choice(st, total, r, err) < 0)
        f = -1;
    if (f == 1)
        poll_warning(d, r);
    return f;
}
