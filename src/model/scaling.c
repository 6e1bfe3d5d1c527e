/* The processing-time model of the parallel-performance study (seed 004):
 *
 *   p·τ(p,n) = a(n) + p·χ(p,n)
 *
 * fitted per problem size through ε′p = Σγ(p1,n) / (p·τ(p,n)) — the parallel
 * part's time held at a reference count p1, so that overhead hiding inside the
 * measured parallel part shows up as overhead instead of as work:
 *
 *   (1−ε′p)/ε′p = p·τ/Σγ(p1) − 1 = c0 + |c1|·p + c2·p²
 *   a = Σγ(p1)·(1+c0),  χ = Σγ(p1)·(|c1| + c2·p)
 *
 * then a(n), c′1 = |c1|/(1+c0) and c′2 = c2/(1+c0) as laws in n, giving
 * τ(p,n) = a(n)·(1/p + c′1(n) + c′2(n)·p). docs/models.md has the details.
 */
#define MPICAST_MODEL_INTERNAL
#include "mpicast/model.h"
#include "mpicast/outfile.h"
#include "model_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mc_scaling_opts mc_scaling_opts_default(void)
{
    return (mc_scaling_opts){0.1, 0, 2, 1};
}

/* ------------------------------------------------------------ CSV */

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r')
        end++;
    /* ERANGE on underflow (1e-320) still gives a usable number */
    if (end == s || *end || (errno && fabs(v) >= 1) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Splits on commas in place, trimming spaces; returns the field count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *s = line;; s++) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (n < max)
            f[n] = s;
        n++;
        char *c = strchr(s, ',');
        char *e = c ? c : s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            e--;
        if (!c) {
            *e = '\0';
            break;
        }
        *e = '\0';
        s = c;
    }
    return n < max ? n : max;
}

static mc_err add_obs(mc_scaling_obs **arr, size_t *n, size_t *cap, mc_scaling_obs o)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        mc_scaling_obs *p = realloc(*arr, nc * sizeof *p);
        if (!p)
            return MC_ERR_NOMEM;
        *arr = p;
        *cap = nc;
    }
    (*arr)[(*n)++] = o;
    return MC_OK;
}

mc_err mc_scaling_read_csv(const char *path, mc_scaling_obs **out, size_t *count, mc_error *err)
{
    static const char *const want[] = {"p", "n", "tau", "gamma"};
    FILE *fp = mc_in_fopen(path, err); /* a FIFO or device is refused */
    if (!fp)
        return err && err->code ? err->code : MC_ERR_IO;
    char *line = NULL;
    size_t cap = 0, n = 0, ocap = 0;
    mc_scaling_obs *obs = NULL;
    long lineno = 0;
    int col[4], header = 0;
    mc_err rc = MC_OK;
    while (rc == MC_OK && getline(&line, &cap, fp) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#')
            continue;
        char *f[32];
        int nf = split(s, f, 32);
        if (!header) {
            for (int w = 0; w < 4 && rc == MC_OK; w++) {
                col[w] = -1;
                for (int i = 0; i < nf; i++)
                    if (strcasecmp(f[i], want[w]) == 0)
                        col[w] = i;
                if (col[w] < 0)
                    rc = mc_error_set(err, MC_ERR_FORMAT,
                                      "%s:%ld: missing column '%s' in the header (p,n,tau,gamma)",
                                      path, lineno, want[w]);
            }
            header = 1;
            continue;
        }
        double v[4];
        for (int w = 0; w < 4 && rc == MC_OK; w++) {
            if (col[w] >= nf)
                rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: missing value for column '%s'",
                                  path, lineno, want[w]);
            else if (w == 1 ? mc_parse_size(f[col[w]], &v[w]) : parse_number(f[col[w]], &v[w]))
                rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: %s '%s' is not a number", path,
                                  lineno, want[w], f[col[w]]);
            else if (w < 3 ? !(v[w] > 0) : v[w] < 0)
                rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: %s must be %s", path, lineno,
                                  want[w], w < 3 ? "> 0" : ">= 0");
        }
        if (rc)
            break;
        mc_scaling_obs o = {v[0], v[1], v[2], v[3]};
        if (add_obs(&obs, &n, &ocap, o) != MC_OK) {
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
            break;
        }
    }
    /* repeats averaged after reading, by sorting: O(n log n) (issue 26) */
    if (rc == MC_OK)
        rc = mc_scaling_merge_repeats(obs, &n, err);
    if (rc == MC_OK && !header)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: no header line (p,n,tau,gamma)%s", path,
                          lineno == 0 ? ": the file is empty" : "");
    if (rc == MC_OK && n < 2)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: fewer than 2 measurements", path, lineno);
    free(line);
    fclose(fp);
    if (rc) {
        free(obs);
        return rc;
    }
    *out = obs;
    *count = n;
    return MC_OK;
}

/* ------------------------------------------------------------ laws in n */

double mc_law_eval(const mc_law *l, double n)
{
    if (l->inverse)
        return l->c[0] + l->c[1] / n;
    double v = 0, x = 1;
    for (int k = 0; k <= l->degree; k++, x *= n)
        v += l->c[k] * x;
    return v;
}

static int law_fit(mc_law *l, const double *n, const double *y, size_t N)
{
    size_t k = l->inverse ? 2 : (size_t)l->degree + 1;
    double *X = malloc(N * k * sizeof *X);
    if (!X)
        return -1;
    for (size_t i = 0; i < N; i++) {
        if (l->inverse) {
            X[i * 2] = 1;
            X[i * 2 + 1] = 1 / n[i];
        } else {
            double x = 1;
            for (size_t j = 0; j < k; j++, x *= n[i])
                X[i * k + j] = x;
        }
    }
    double rss;
    memset(l->c, 0, sizeof l->c);
    int rc = mcm_lsq(X, y, N, k, l->c, &rss);
    free(X);
    if (rc)
        return rc;
    double sst = mcm_sst(y, N);
    l->r = sst > 0 ? sqrt(fmax(0, 1 - rss / sst)) : 1;
    return 0;
}

/* Leave-one-out sum of squared prediction errors (PRESS) from one fit:
 * Σ (e_i / (1 − h_i))², h the leverages (O(N), issue 26; was N refits). */
static double law_press(mc_law shape, const double *n, const double *y, size_t N)
{
    mc_law l = shape;
    size_t k = l.inverse ? 2 : (size_t)l.degree + 1;
    if (N <= k || law_fit(&l, n, y, N))
        return NAN;
    double *X = malloc(N * k * sizeof *X), *h = malloc(N * sizeof *h), s = NAN;
    if (X && h) {
        for (size_t i = 0; i < N; i++) {
            double x = 1;
            for (size_t j = 0; j < k; j++, x *= n[i])
                X[i * k + j] = l.inverse ? (j ? 1 / n[i] : 1) : x;
        }
        if (mcm_leverage(X, N, k, h) == 0) {
            s = 0;
            for (size_t i = 0; i < N && isfinite(s); i++) {
                double d = 1 - h[i], e = y[i] - mc_law_eval(&l, n[i]);
                s = d > 1e-10 ? s + (e / d) * (e / d) : NAN;
            }
        }
    }
    free(X);
    free(h);
    return s;
}

/* Chooses among polynomials of degree 0..maxdeg and (if allowed) c0 + c1/n:
 * by PRESS with 4 or more problem sizes, else by adjusted R²; ties (to 1e-9
 * of Σy²) go to the simpler law. */
static int law_choose(mc_law *best, const double *n, const double *y, size_t N, int maxdeg,
                      int inverse)
{
    double sy2 = 0;
    for (size_t i = 0; i < N; i++)
        sy2 += y[i] * y[i];
    double tol = 1e-9 * sy2 + 1e-300, best_score = INFINITY;
    int have = 0;
    mc_law cands[6];
    int nc = 0;
    for (int d = 0; d <= maxdeg && d <= 3 && (size_t)d < N; d++)
        cands[nc++] = (mc_law){0, d, {0}, 0};
    if (inverse && N >= 2)
        cands[nc++] = (mc_law){1, 1, {0}, 0};
    for (int i = 0; i < nc; i++) {
        mc_law l = cands[i];
        if (law_fit(&l, n, y, N))
            continue;
        double score;
        if (N >= 4) {
            score = law_press(cands[i], n, y, N);
        } else {
            double rss = 0;
            for (size_t k = 0; k < N; k++)
                rss += pow(y[k] - mc_law_eval(&l, n[k]), 2);
            int nregs = l.inverse ? 1 : l.degree;
            double ar2 = mcm_adj_r2(rss, mcm_sst(y, N), N, nregs);
            score = isnan(ar2) ? NAN : -ar2 * sy2; /* scaled so the tolerance applies */
            if (N == 1)
                score = 0;
        }
        if (!isfinite(score))
            continue;
        if (!have || score < best_score - tol) {
            *best = l;
            best_score = score;
            have = 1;
        }
    }
    return have ? 0 : -1;
}

/* ------------------------------------------------------------ per n */

static int cmp_obs(const void *a, const void *b)
{
    const mc_scaling_obs *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* Fits (1−ε′)/ε′ = c0 + |c1|·p + c2·p² to the window's points of one n
 * (obs[0..m) sorted by p). The model with |c1| is the unconstrained fit when
 * that gives c1 ≥ 0, else its optimum lies on c1 = 0. */
static mc_err fit_one_n(const mc_scaling_obs *o, size_t m, const mc_scaling_opts *opts,
                        mc_scaling_n *r, mc_scaling_model *model, mc_error *err)
{
    memset(r, 0, sizeof *r);
    r->n = o[0].n;
    r->p1 = opts->p1 > 0 ? opts->p1 : o[0].p;
    size_t i1;
    for (i1 = 0; i1 < m && o[i1].p != r->p1; i1++)
        ;
    if (i1 == m)
        return mc_error_set(err, MC_ERR_FORMAT, "n=%g: no measurement at the reference p1=%g",
                            r->n, r->p1);
    r->gamma1 = o[i1].gamma;
    if (!(r->gamma1 > 0))
        return mc_error_set(err, MC_ERR_FORMAT, "n=%g: gamma at p1=%g must be > 0", r->n, r->p1);
    double *X = malloc(3 * m * sizeof *X), *Xs = malloc(3 * m * sizeof *Xs),
           *y = malloc(m * sizeof *y), c[3], rss;
    mc_err rc = MC_OK;
    size_t k = 0;
    if (!X || !Xs || !y) {
        rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m; i++) {
        double eps = r->gamma1 / (o[i].p * o[i].tau);
        if (!(eps > opts->eps_min && eps <= 1)) {
            r->excluded++;
            size_t ne = model->nexcluded;
            mc_scaling_excl *e = model->excluded;
            if ((ne & (ne - 1)) == 0) /* at 0, 1, 2, 4, ...: capacity doubles */
                e = realloc(e, (ne ? 2 * ne : 1) * sizeof *e);
            if (!e) {
                rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                goto out;
            }
            model->excluded = e;
            e[model->nexcluded++] = (mc_scaling_excl){o[i].p, o[i].n, eps};
            continue;
        }
        X[3 * k] = 1, X[3 * k + 1] = o[i].p, X[3 * k + 2] = o[i].p * o[i].p;
        y[k++] = (1 - eps) / eps;
    }
    r->used = k;
    if (k < 2) {
        r->skipped = 1;
        goto out;
    }
    /* with two points only the line c0 + |c1|·p is determined */
    size_t cols = k >= 3 ? 3 : 2;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < cols; j++)
            Xs[i * cols + j] = X[3 * i + j];
    c[2] = 0;
    if (mcm_lsq(Xs, y, k, cols, c, &rss)) {
        rc = mc_error_set(err, MC_ERR_FORMAT, "n=%g: the efficiency fit failed", r->n);
        goto out;
    }
    if (c[1] < 0) { /* |c1| ≥ 0: refit on the boundary c1 = 0 */
        double c2[2];
        for (size_t i = 0; i < k; i++)
            Xs[2 * i] = 1, Xs[2 * i + 1] = cols == 3 ? X[3 * i + 2] : 0;
        if (cols == 3 && mcm_lsq(Xs, y, k, 2, c2, &rss) == 0) {
            c[0] = c2[0], c[1] = 0, c[2] = c2[1];
        } else {
            double mean = 0;
            for (size_t i = 0; i < k; i++)
                mean += y[i];
            c[0] = mean / (double)k, c[1] = 0, c[2] = 0;
            rss = mcm_sst(y, k);
        }
    }
    double sst = mcm_sst(y, k);
    r->c0 = c[0], r->c1 = c[1], r->c2 = c[2];
    r->r = sst > 0 ? sqrt(fmax(0, 1 - rss / sst)) : 1;
    if (!(1 + r->c0 > 0)) {
        rc = mc_error_set(err, MC_ERR_FORMAT,
                          "n=%g: fitted c0=%g makes 1+c0 <= 0 (no parallel work); check tau "
                          "and gamma", r->n, r->c0);
        goto out;
    }
    r->a = r->gamma1 * (1 + r->c0);
    r->c1n = r->c1 / (1 + r->c0);
    r->c2n = r->c2 / (1 + r->c0);
out:
    free(X);
    free(Xs);
    free(y);
    return rc;
}

mc_err mc_scaling_fit(const mc_scaling_obs *obs, size_t nobs, const mc_scaling_opts *opts,
                      mc_scaling_model *m, mc_error *err)
{
    mc_scaling_opts def = mc_scaling_opts_default();
    if (!opts)
        opts = &def;
    memset(m, 0, sizeof *m);
    mc_scaling_obs *s = malloc((nobs ? nobs : 1) * sizeof *s);
    m->per_n = calloc(nobs ? nobs : 1, sizeof *m->per_n);
    if (!s || !m->per_n) {
        free(s);
        mc_scaling_model_free(m);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    memcpy(s, obs, nobs * sizeof *s);
    qsort(s, nobs, sizeof *s, cmp_obs);
    mc_err rc = MC_OK;
    for (size_t i = 0; i < nobs && rc == MC_OK;) {
        size_t j = i;
        while (j < nobs && s[j].n == s[i].n)
            j++;
        rc = fit_one_n(s + i, j - i, opts, &m->per_n[m->nn], m, err);
        m->nn++;
        i = j;
    }
    free(s);
    double *nv = malloc(4 * (m->nn ? m->nn : 1) * sizeof *nv);
    double *av = nv + m->nn, *c1v = av + m->nn, *c2v = c1v + m->nn;
    size_t k = 0;
    if (rc == MC_OK && !nv)
        rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == MC_OK && i < m->nn; i++)
        if (!m->per_n[i].skipped) {
            nv[k] = m->per_n[i].n, av[k] = m->per_n[i].a;
            c1v[k] = m->per_n[i].c1n, c2v[k] = m->per_n[i].c2n;
            k++;
        }
    if (rc == MC_OK && k == 0)
        rc = mc_error_set(err, MC_ERR_FORMAT,
                          "no problem size has 2 or more runs with efficiency in (%g, 1]",
                          opts->eps_min);
    if (rc == MC_OK && (law_choose(&m->a, nv, av, k, opts->a_degree, 0) ||
                        law_choose(&m->c1, nv, c1v, k, opts->c_degree, 1) ||
                        law_choose(&m->c2, nv, c2v, k, opts->c_degree, 1)))
        rc = mc_error_set(err, MC_ERR_FORMAT, "the laws in n could not be fitted");
    free(nv);
    if (rc) {
        mc_scaling_model_free(m);
        return rc;
    }
    m->obs = obs;
    m->nobs = nobs;
    return MC_OK;
}

void mc_scaling_model_free(mc_scaling_model *m)
{
    if (!m)
        return;
    free(m->per_n);
    free(m->excluded);
    m->per_n = NULL;
    m->excluded = NULL;
    m->nn = m->nexcluded = 0;
}

mc_scaling_row mc_scaling_eval(const mc_scaling_model *m, double p, double n)
{
    mc_scaling_row r;
    double a = mc_law_eval(&m->a, n);
    r.p = p, r.n = n;
    r.parallel = a / p;
    r.chi0 = a * mc_law_eval(&m->c1, n);
    r.chi1 = a * mc_law_eval(&m->c2, n) * p;
    r.tau = r.parallel + r.chi0 + r.chi1;
    r.efficiency = r.parallel / r.tau;
    return r;
}

static double eff(const mc_scaling_model *m, double v, int weak, double p)
{
    return mc_scaling_eval(m, p, weak ? v * p : v).efficiency;
}

double mc_scaling_p_at_efficiency(const mc_scaling_model *m, double v, int weak, double level,
                                  double p_limit)
{
    double lo = 1;
    if (!(eff(m, v, weak, lo) > level))
        return 1;
    double hi = 2;
    while (eff(m, v, weak, hi) > level) {
        lo = hi;
        hi *= 2;
        if (hi > p_limit)
            return NAN;
    }
    for (int it = 0; it < 100 && hi - lo > 1e-9 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (eff(m, v, weak, mid) > level)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void mc_law_formula(const mc_law *l, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = '\0';
    if (l->inverse) {
        snprintf(buf, len, "%.6g %s %.6g/n", l->c[0], l->c[1] < 0 ? "-" : "+", fabs(l->c[1]));
        return;
    }
    for (int k = 0; k <= l->degree && o < len; k++) {
        double c = l->c[k];
        const char *sign = k == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        if (k == 0)
            o += (size_t)snprintf(buf + o, len - o, "%s%.6g", sign, fabs(c));
        else if (k == 1)
            o += (size_t)snprintf(buf + o, len - o, "%s%.6g*n", sign, fabs(c));
        else
            o += (size_t)snprintf(buf + o, len - o, "%s%.6g*n^%d", sign, fabs(c), k);
    }
}
