/* mpicast scaling INPUT...: the processing-time model p·τ(p,n) = a(n) + p·χ(p,n)
 * of the parallel-performance study, with strong- and weak-scaling tables and
 * their decomposition into parallel work, serial overhead χ0 and
 * p-dependent (communication) overhead χ1. Method: docs/models.md; JSON
 * keys: docs/json.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "mpicast/export.h"
#include "mpicast/model.h"

static const char scaling_head[] =
    "usage: mpicast scaling INPUT... [--strong n=N]... [--weak k=K]... [--p-max P]\n"
    "                       [--p1 P] [--eps-min E] [--a-degree D] [--c-degree D]\n"
    "                       [--json | --csv] [--plot FILE.svg|FILE.png]\n"
    "\n"
    "Fits tau(p,n) = a(n)*(1/p + c'1(n) + c'2(n)*p) to measured runs and prints\n"
    "strong scaling at fixed n and weak scaling at fixed k = n/p.\n"
    "\n"
    "Each INPUT is either\n"
    "  a CSV with header p,n,tau,gamma: per run the process count, the problem\n"
    "    size (a number or a class S,W,A..E), the elapsed time tau and the sum\n"
    "    over processes of the parallel part's time gamma, in seconds; or\n"
    "  a trace directory (mpicast trace) of one run in which MPI_Pcontrol(1)\n"
    "    opens and MPI_Pcontrol(0) closes the parallel part, labelled with its\n"
    "    problem size: DIR:n=N or DIR --label n=N (p: the trace's ranks unless\n"
    "    the label gives p=P). tau is the run's elapsed time as `mpicast stats`\n"
    "    counts it, gamma the ranks' summed time inside the parallel part.\n"
    "Runs at the same p and n are averaged.\n"
    "\n";

static const char scaling_tail[] =
    "\n"
    "Example:\n"
    "  mpicast scaling timings.csv --strong n=80000 --weak k=2500\n"
    "Exit status: 0 ok; 1 bad input (one line naming FILE:LINE); 2 usage error.\n";

enum { MAX_CASES = 16, MAX_INPUTS = 1024 };

typedef struct scaling_opts {
    const char *file; /* the first input, named in messages about the fit */
    const char *inputs[MAX_INPUTS];
    mc_run_label labels[MAX_INPUTS];
    int have_label[MAX_INPUTS];
    int ninputs;
    const char *plot;
    double strong[MAX_CASES], weak[MAX_CASES];
    int nstrong, nweak;
    double p_max;
    mc_scaling_opts fit;
    int json, csv;
} scaling_opts;

static int parse_pos(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* "n=80000" (or a class) for --strong, "k=2500" for --weak. */
static int parse_case(const char *v, char var, double *out)
{
    if (!v || v[0] != var || v[1] != '=')
        return -1;
    return var == 'n' ? mc_parse_size(v + 2, out) : parse_pos(v + 2, out);
}

static int usage(mc_error *err, const char *msg)
{
    mc_error_set(err, MC_ERR_USAGE, "%s", msg);
    return -1;
}

static int add_strong(void *opts, const char *opt, const char *v, mc_error *err)
{
    scaling_opts *o = opts;
    (void)opt;
    if (o->nstrong == MAX_CASES || parse_case(v, 'n', &o->strong[o->nstrong]))
        return usage(err, "--strong takes n=N (N > 0 or a class S,W,A..E)");
    o->nstrong++;
    return 0;
}

static int add_weak(void *opts, const char *opt, const char *v, mc_error *err)
{
    scaling_opts *o = opts;
    (void)opt;
    if (o->nweak == MAX_CASES || parse_case(v, 'k', &o->weak[o->nweak]))
        return usage(err, "--weak takes k=K (K > 0, the problem size per process)");
    o->nweak++;
    return 0;
}

static int set_p_max(void *p_max, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    return parse_pos(v, p_max) ? usage(err, "--p-max takes a number > 0") : 0;
}

static int set_p1(void *p1, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    return parse_pos(v, p1) ? usage(err, "--p1 takes a process count > 0") : 0;
}

static int set_eps_min(void *eps, const char *opt, const char *v, mc_error *err)
{
    double d;
    (void)opt;
    if (parse_pos(v, &d) || d >= 1)
        return usage(err, "--eps-min takes a number in (0, 1)");
    *(double *)eps = d;
    return 0;
}

/* --a-degree, --c-degree: 1, 2 or 3 */
static int set_degree(void *degree, const char *opt, const char *v, mc_error *err)
{
    double d;
    if (parse_pos(v, &d) || d != floor(d) || d > 3) {
        mc_error_set(err, MC_ERR_USAGE, "%s takes 1, 2 or 3", opt);
        return -1;
    }
    *(int *)degree = (int)d;
    return 0;
}

/* --label p=P,n=N: the coordinates of the input just before it */
static int set_label(void *opts, const char *opt, const char *v, mc_error *err)
{
    scaling_opts *o = opts;
    mc_error e = {0};
    (void)opt;
    if (o->ninputs == 0)
        return usage(err, "--label must follow the trace directory it labels");
    if (mc_parse_label(v, &o->labels[o->ninputs - 1], &e)) {
        mc_error_set(err, MC_ERR_USAGE, "--label: %s", e.msg);
        return -1;
    }
    o->have_label[o->ninputs - 1] = 1;
    return 0;
}

/* INPUT or INPUT:p=P,n=N */
static int add_input(void *opts, char *arg, mc_error *err)
{
    scaling_opts *o = opts;
    if (o->ninputs == MAX_INPUTS) {
        mc_error_set(err, MC_ERR_USAGE, "too many inputs (at most %d)", MAX_INPUTS);
        return -1;
    }
    int k = cli_split_label(arg, &o->labels[o->ninputs]);
    if (k < 0) {
        mc_error_set(err, MC_ERR_USAGE, "bad label in '%s': expected DIR:n=N or DIR:p=P,n=N",
                     arg);
        return -1;
    }
    o->have_label[o->ninputs] = k;
    o->inputs[o->ninputs++] = arg;
    return 0;
}

static int parse_args(int argc, char **argv, scaling_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fit = mc_scaling_opts_default();
    const cli_opt opts[] = {
        {"--strong", NULL, "n=N", CLI_LIST, "strong-scaling table at problem size N (repeatable)",
         o, add_strong},
        {"--weak", NULL, "k=K", CLI_LIST,
         "weak-scaling table at K = n/p per process (repeatable)", o, add_weak},
        {"--p-max", NULL, "P", CLI_VALUE,
         "largest p in the tables (default 4 x the largest measured)", &o->p_max, set_p_max},
        {"--p1", NULL, "P", CLI_VALUE,
         "reference count for gamma (default: smallest p of each n)", &o->fit.p1, set_p1},
        {"--eps-min", NULL, "E", CLI_VALUE,
         "efficiency window: runs with E < eps'p <= 1 are fitted\n"
         "(default 0.1)", &o->fit.eps_min, set_eps_min},
        {"--a-degree", NULL, "D", CLI_VALUE,
         "highest polynomial degree of a(n) (the algorithm's order;\n"
         "default 2)", &o->fit.a_degree, set_degree},
        {"--c-degree", NULL, "D", CLI_VALUE,
         "highest polynomial degree of c'1(n), c'2(n) (default 1;\n"
         "c0 + c1/n is always a candidate)", &o->fit.c_degree, set_degree},
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (docs/json.md)", &o->json,
         NULL},
        {"--csv", NULL, NULL, CLI_FLAG, "the strong and weak tables as CSV", &o->csv, NULL},
        {"--label", NULL, "p=P,n=N", CLI_LIST, "coordinates of the trace directory just before it",
         o, set_label},
        {"--plot", NULL, "FILE", CLI_VALUE,
         "draw the strong and weak curves and their decomposition\n"
         "(tau, a/p, chi0, chi1; measured tau as points) with\n"
         "gnuplot to FILE.svg or FILE.png; without --strong/--weak,\n"
         "strong scaling at every fitted n", &o->plot, cli_set_plot},
    };
    const cli_spec spec = {"scaling", scaling_head, scaling_tail, 19, opts, CLI_NOPTS(opts),
                           add_input, o, 1, 0};
    int rc;
    if (cli_parse(&spec, argc, argv, &rc))
        return rc;
    if (o->ninputs == 0)
        return cli_usage_error("scaling: no input file; see 'mpicast scaling --help'");
    o->file = o->inputs[0];
    if (o->json && o->csv)
        return cli_usage_error("--json and --csv are exclusive");
    return -1;
}

/* ---------------------------------------------------------------- tables */

typedef struct tables {
    mc_scaling_row *rows;
    double *k; /* weak rows: k; strong rows: NAN */
    int *weak;
    size_t n, cap;
} tables;

static int add_row(tables *t, mc_scaling_row r, double k, int weak)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        mc_scaling_row *a = realloc(t->rows, nc * sizeof *a);
        if (a)
            t->rows = a;
        double *b = realloc(t->k, nc * sizeof *b);
        if (b)
            t->k = b;
        int *c = realloc(t->weak, nc * sizeof *c);
        if (c)
            t->weak = c;
        if (!a || !b || !c)
            return -1;
        t->cap = nc;
    }
    t->rows[t->n] = r;
    t->k[t->n] = k;
    t->weak[t->n] = weak;
    t->n++;
    return 0;
}

/* Powers of two from 1 to p_max, and p_max itself. */
static size_t p_list(double p_max, double *out, size_t max)
{
    size_t n = 0;
    for (double p = 1; p <= p_max && n < max; p *= 2)
        out[n++] = p;
    if (n < max && (n == 0 || out[n - 1] != p_max))
        out[n++] = p_max;
    return n;
}

static void warn(json_t *list, int json, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(json_t *list, int json, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(list, json_string(buf));
    if (!json)
        fprintf(stderr, "mpicast: warning: %s\n", buf);
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *law_json(const mc_law *l)
{
    char f[256];
    mc_law_formula(l, f, sizeof f);
    json_t *c = json_array();
    for (int k = 0; k <= (l->inverse ? 1 : l->degree); k++)
        json_array_append_new(c, json_real(l->c[k]));
    return json_pack("{sssisosssf}", "kind", l->inverse ? "inverse" : "polynomial", "degree",
                     l->inverse ? -1 : l->degree, "coefficients", c, "formula", f, "r", l->r);
}

static json_t *row_json(const mc_scaling_row *r, double k)
{
    json_t *j = json_pack("{sfsf}", "p", r->p, "n", r->n);
    if (!isnan(k))
        json_object_set_new(j, "k", json_real(k));
    json_object_set_new(j, "tau", num_or_null(r->tau));
    json_object_set_new(j, "parallel", num_or_null(r->parallel));
    json_object_set_new(j, "chi0", num_or_null(r->chi0));
    json_object_set_new(j, "chi1", num_or_null(r->chi1));
    json_object_set_new(j, "efficiency", num_or_null(r->efficiency));
    return j;
}

static void closed_form(const mc_scaling_model *m, char *buf, size_t len)
{
    char a[256], c1[256], c2[256];
    mc_law_formula(&m->a, a, sizeof a);
    mc_law_formula(&m->c1, c1, sizeof c1);
    mc_law_formula(&m->c2, c2, sizeof c2);
    snprintf(buf, len, "tau(p,n) = (%s) * (1/p + (%s) + (%s)*p)", a, c1, c2);
}

/* Hidden overhead at n: measured Σγ(p,n) − Σγ(p1,n) for every measured p. */
static json_t *hidden_json(const mc_scaling_model *m, double n, int print)
{
    json_t *arr = json_array();
    const mc_scaling_n *pn = NULL;
    for (size_t i = 0; i < m->nn; i++)
        if (m->per_n[i].n == n)
            pn = &m->per_n[i];
    if (!pn)
        return arr;
    if (print)
        printf("  hidden overhead (measured gamma(p) - gamma(p1=%g) = %.6g):\n", pn->p1, pn->gamma1);
    for (size_t i = 0; i < m->nobs; i++) {
        const mc_scaling_obs *o = &m->obs[i];
        if (o->n != n)
            continue;
        json_array_append_new(arr, json_pack("{sfsfsfsf}", "p", o->p, "gamma", o->gamma,
                                             "hidden", o->gamma - pn->gamma1, "measured_tau", o->tau));
        if (print)
            printf("    p=%-8g gamma=%-12.6g hidden=%-12.6g measured tau=%.6g\n", o->p, o->gamma,
                   o->gamma - pn->gamma1, o->tau);
    }
    return arr;
}

static void print_rows_text(const tables *t, int weak, double v)
{
    printf("  %10s %12s %12s %12s %12s %12s %10s\n", "p", "n", "tau", "a/p", "chi0", "chi1",
           "efficiency");
    for (size_t i = 0; i < t->n; i++) {
        if (t->weak[i] != weak || (weak ? t->k[i] != v : t->rows[i].n != v))
            continue;
        const mc_scaling_row *r = &t->rows[i];
        printf("  %10g %12g %12.6g %12.6g %12.6g %12.6g %10.4f\n", r->p, r->n, r->tau,
               r->parallel, r->chi0, r->chi1, r->efficiency);
    }
}

static void print_traces_text(json_t *traces)
{
    if (json_array_size(traces) == 0)
        return;
    printf("Runs from traces (parallel part between MPI_Pcontrol(1) and MPI_Pcontrol(0)):\n");
    printf("  %8s %12s %14s %14s %10s  %s\n", "p", "n", "tau (s)", "gamma (s)", "intervals",
           "trace");
    size_t i;
    json_t *t;
    json_array_foreach(traces, i, t) {
        printf("  %8g %12g %14.9g %14.9g %10lld  %s\n",
               json_number_value(json_object_get(t, "p")),
               json_number_value(json_object_get(t, "n")),
               json_number_value(json_object_get(t, "tau")),
               json_number_value(json_object_get(t, "gamma")),
               (long long)json_integer_value(json_object_get(t, "intervals")),
               json_string_value(json_object_get(t, "trace")));
    }
    putchar('\n');
}

static void print_model_text(const scaling_opts *o, const mc_scaling_model *m)
{
    printf("Processing-time model p*tau(p,n) = a(n) + p*chi(p,n)   (efficiency window %g < "
           "eps'p <= 1)\n\n", o->fit.eps_min);
    printf("Per problem size: (1-eps'p)/eps'p = c0 + |c1|*p + c2*p^2\n");
    printf("  %12s %8s %12s %12s %11s %11s %11s %8s %5s %5s\n", "n", "p1", "gamma(p1)", "a",
           "c0", "c1", "c2", "R", "used", "excl");
    for (size_t i = 0; i < m->nn; i++) {
        const mc_scaling_n *r = &m->per_n[i];
        if (r->skipped)
            printf("  %12g %8g %12.6g %12s %11s %11s %11s %8s %5zu %5zu  (skipped)\n", r->n,
                   r->p1, r->gamma1, "-", "-", "-", "-", "-", r->used, r->excluded);
        else
            printf("  %12g %8g %12.6g %12.6g %11.5g %11.5g %11.5g %8.5f %5zu %5zu\n", r->n, r->p1,
                   r->gamma1, r->a, r->c0, r->c1, r->c2, r->r, r->used, r->excluded);
    }
    for (size_t i = 0; i < m->nexcluded; i++)
        printf("  excluded: p=%g n=%g eps'p=%.4f\n", m->excluded[i].p, m->excluded[i].n,
               m->excluded[i].eps);
    char a[256], c1[256], c2[256], cf[900];
    mc_law_formula(&m->a, a, sizeof a);
    mc_law_formula(&m->c1, c1, sizeof c1);
    mc_law_formula(&m->c2, c2, sizeof c2);
    printf("\nLaws in n:\n  a(n)   = %-50s R = %.5f\n  c'1(n) = %-50s R = %.5f\n"
           "  c'2(n) = %-50s R = %.5f\n",
           a, m->a.r, c1, m->c1.r, c2, m->c2.r);
    closed_form(m, cf, sizeof cf);
    printf("\n%s\n", cf);
}

/* ---------------------------------------------------------------- plot */

enum { PLOT_POINTS = 65, PLOT_MAX_CASES = 6 };

static const char *const plot_colors[PLOT_MAX_CASES] = {"#1f77b4", "#d62728", "#2ca02c",
                                                        "#9467bd", "#ff7f0e", "#17becf"};

/* One curve of the plot: strong at n or weak at k, and where its blocks are
 * in the data file. */
typedef struct plot_case {
    int weak;
    double v;          /* n (strong) or k (weak) */
    int index;         /* data block of the model curve */
    int measured;      /* data block of the measured tau, -1 none */
    int positive[4];   /* tau, a/p, chi0, chi1: some value > 0 (log axes) */
} plot_case;

/* The model curve of one case at log-spaced p in [1, p_max]. */
static void plot_curve(FILE *d, const mc_scaling_model *m, plot_case *c, double p_max)
{
    for (int i = 0; i < PLOT_POINTS; i++) {
        double p = pow(p_max, (double)i / (PLOT_POINTS - 1));
        mc_scaling_row r = mc_scaling_eval(m, p, c->weak ? c->v * p : c->v);
        double col[4] = {r.tau, r.parallel, r.chi0, r.chi1};
        fprintf(d, "%.10g", p);
        for (int k = 0; k < 4; k++) {
            fprintf(d, " %.10g", col[k] > 0 && isfinite(col[k]) ? col[k] : NAN);
            c->positive[k] |= col[k] > 0 && isfinite(col[k]);
        }
        fputc('\n', d);
    }
}

/* Measured tau at a strong case's n (when that n was measured). */
static int plot_measured(FILE *d, const mc_scaling_model *m, double n)
{
    int any = 0;
    for (size_t i = 0; i < m->nobs; i++)
        if (m->obs[i].n == n && m->obs[i].tau > 0) {
            fprintf(d, "%.10g %.10g\n", m->obs[i].p, m->obs[i].tau);
            any = 1;
        }
    return any;
}

/* The plot command of one panel (strong or weak): per case tau (solid),
 * and with at most two cases its decomposition a/p (dashed), chi0 (dotted),
 * chi1 (dash-dot); measured tau as points. */
static void plot_panel(FILE *s, const plot_case *c, int nc, int weak)
{
    static const char *const what[4] = {"tau", "a/p", "chi0", "chi1"};
    static const int dash[4] = {1, 2, 3, 4};
    int shown = 0;
    for (int i = 0; i < nc; i++)
        shown += c[i].weak == weak;
    fprintf(s, "set title '%s'\nplot ", weak ? "Weak scaling: n = k*p" : "Strong scaling: fixed n");
    int first = 1, color = 0;
    for (int i = 0; i < nc; i++) {
        if (c[i].weak != weak)
            continue;
        const char *col = plot_colors[color++ % PLOT_MAX_CASES];
        for (int k = 0; k < (shown <= 2 ? 4 : 1); k++) {
            if (!c[i].positive[k])
                continue;
            fprintf(s, "%sdata index %d using 1:%d with lines lw %d dt %d lc rgb '%s' title '%s=%g: %s'",
                    first ? "" : ", \\\n     ", c[i].index, k + 2, k ? 1 : 2, dash[k], col,
                    weak ? "k" : "n", c[i].v, what[k]);
            first = 0;
        }
        if (c[i].measured >= 0) {
            fprintf(s, "%sdata index %d using 1:2 with points pt 7 ps 0.8 lc rgb '%s' "
                       "title '%s=%g: measured tau'",
                    first ? "" : ", \\\n     ", c[i].measured, col, "n", c[i].v);
            first = 0;
        }
    }
    if (first) /* nothing positive to draw on log axes */
        fputs("NaN notitle", s);
    fputc('\n', s);
}

/* --plot FILE: the strong and weak curves and their decomposition through
 * the gnuplot driver of src/export (mc_gnuplot). Without --strong/--weak:
 * strong scaling at every fitted n (at most PLOT_MAX_CASES). */
static int plot_scaling(const scaling_opts *o, const mc_scaling_model *m, double p_max)
{
    plot_case c[2 * MAX_CASES];
    int nc = 0;
    for (int i = 0; i < o->nstrong && nc < PLOT_MAX_CASES; i++)
        c[nc++] = (plot_case){0, o->strong[i], 0, -1, {0}};
    for (int i = 0; i < o->nweak && nc < 2 * PLOT_MAX_CASES; i++)
        c[nc++] = (plot_case){1, o->weak[i], 0, -1, {0}};
    int defaults = nc == 0;
    for (size_t i = 0; defaults && i < m->nn && nc < PLOT_MAX_CASES; i++)
        if (!m->per_n[i].skipped)
            c[nc++] = (plot_case){0, m->per_n[i].n, 0, -1, {0}};
    char data[] = "/tmp/mpicast-scaling-XXXXXX";
    FILE *d = cli_plot_data_file(data, o->plot);
    mc_error err = {0};
    if (!d)
        return CLI_BAD_INPUT;
    int block = 0;
    for (int i = 0; i < nc; i++) {
        if (block)
            fputs("\n\n", d);
        c[i].index = block++;
        plot_curve(d, m, &c[i], p_max);
        if (!c[i].weak) {
            fputs("\n\n", d);
            if (plot_measured(d, m, c[i].v))
                c[i].measured = block;
            else
                fputs("NaN NaN\n", d); /* keeps the block numbering */
            block++;
        }
    }
    int nweak = 0;
    for (int i = 0; i < nc; i++)
        nweak += c[i].weak;
    char *script = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&script, &len);
    int rc = CLI_OK;
    if (fclose(d) != 0 || !s) {
        mc_error_set(&err, MC_ERR_IO, "%s: cannot write the plot's data file", o->plot);
        rc = cli_fail(&err);
    } else {
        fputs("set logscale xy\nset xlabel 'processes p'\nset ylabel 'time (s)'\n"
              "set key left bottom font ',8' samplen 2\n", s);
        if (nweak && nweak < nc)
            fputs("set multiplot layout 1,2\n", s);
        if (nweak < nc)
            plot_panel(s, c, nc, 0);
        if (nweak)
            plot_panel(s, c, nc, 1);
        if (nweak && nweak < nc)
            fputs("unset multiplot\n", s);
        fclose(s);
        if (mc_gnuplot(script, data, o->plot, &err) != MC_OK)
            rc = cli_fail(&err);
    }
    free(script);
    unlink(data);
    return rc;
}

/* The tables as CSV (docs/models.md). */
static void print_csv(const tables *t)
{
    printf("scaling,p,n,k,tau,parallel,chi0,chi1,efficiency\n");
    for (size_t i = 0; i < t->n; i++) {
        const mc_scaling_row *r = &t->rows[i];
        printf("%s,%.10g,%.10g,", t->weak[i] ? "weak" : "strong", r->p, r->n);
        if (t->weak[i])
            printf("%.10g", t->k[i]);
        printf(",%.10g,%.10g,%.10g,%.10g,%.10g\n", r->tau, r->parallel, r->chi0, r->chi1,
               r->efficiency);
    }
}

/* The model, the tables and their summaries as one JSON document. */
static void print_json(const scaling_opts *o, const mc_scaling_model *m, const tables *t,
                       json_t *warnings, json_t *traces)
{
    json_t *per_n = json_array(), *excl = json_array(), *strong = json_array(),
           *weak = json_array(), *ss = json_array(), *ws = json_array();
    for (size_t i = 0; i < m->nn; i++) {
        const mc_scaling_n *r = &m->per_n[i];
        json_array_append_new(
            per_n, json_pack("{sfsfsfsosososososososisisb}", "n", r->n, "p1", r->p1, "gamma1",
                             r->gamma1, "c0", num_or_null(r->skipped ? NAN : r->c0), "c1",
                             num_or_null(r->skipped ? NAN : r->c1), "c2",
                             num_or_null(r->skipped ? NAN : r->c2), "r",
                             num_or_null(r->skipped ? NAN : r->r), "a",
                             num_or_null(r->skipped ? NAN : r->a), "c1_prime",
                             num_or_null(r->skipped ? NAN : r->c1n), "c2_prime",
                             num_or_null(r->skipped ? NAN : r->c2n), "used", (int)r->used,
                             "excluded", (int)r->excluded, "skipped", r->skipped));
    }
    for (size_t i = 0; i < m->nexcluded; i++)
        json_array_append_new(excl, json_pack("{sfsfsf}", "p", m->excluded[i].p, "n",
                                              m->excluded[i].n, "efficiency", m->excluded[i].eps));
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(t->weak[i] ? weak : strong,
                              row_json(&t->rows[i], t->weak[i] ? t->k[i] : NAN));
    for (int s = 0; s < o->nstrong; s++)
        json_array_append_new(
            ss, json_pack("{sfsoso}", "n", o->strong[s], "p_half_efficiency",
                          num_or_null(mc_scaling_p_at_efficiency(m, o->strong[s], 0, 0.5, 1e9)),
                          "hidden_overhead", hidden_json(m, o->strong[s], 0)));
    for (int w = 0; w < o->nweak; w++)
        json_array_append_new(
            ws, json_pack("{sfso}", "k", o->weak[w], "p_half_efficiency",
                          num_or_null(mc_scaling_p_at_efficiency(m, o->weak[w], 1, 0.5, 1e9))));
    char cf[900];
    closed_form(m, cf, sizeof cf);
    json_t *model = json_pack("{sosososssfsoso}", "a", law_json(&m->a), "c1_prime",
                              law_json(&m->c1), "c2_prime", law_json(&m->c2), "closed_form", cf,
                              "eps_min", o->fit.eps_min, "per_n", per_n, "excluded", excl);
    json_t *doc = json_pack("{sosososososOsO}", "model", model, "strong", strong, "weak", weak,
                            "strong_summary", ss, "weak_summary", ws, "traces", traces,
                            "warnings", warnings);
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
}

/* The model and the tables as text. */
static void print_text(const scaling_opts *o, const mc_scaling_model *m, const tables *t)
{
    print_model_text(o, m);
    for (int s = 0; s < o->nstrong; s++) {
        double ph = mc_scaling_p_at_efficiency(m, o->strong[s], 0, 0.5, 1e9);
        printf("\nStrong scaling at n = %g (efficiency 50%% at p = %s%.4g)\n", o->strong[s],
               isnan(ph) ? "none below 1e9" : "", isnan(ph) ? 0.0 : ph);
        print_rows_text(t, 0, o->strong[s]);
        json_decref(hidden_json(m, o->strong[s], 1));
    }
    for (int w = 0; w < o->nweak; w++) {
        double ph = mc_scaling_p_at_efficiency(m, o->weak[w], 1, 0.5, 1e9);
        printf("\nWeak scaling at k = n/p = %g (efficiency 50%% at p = %s%.4g)\n", o->weak[w],
               isnan(ph) ? "none below 1e9" : "", isnan(ph) ? 0.0 : ph);
        print_rows_text(t, 1, o->weak[w]);
    }
}

static int run_scaling(const scaling_opts *o, const mc_scaling_obs *obs, size_t nobs,
                       json_t *warnings, json_t *traces)
{
    mc_scaling_model m;
    mc_error err = {0};
    if (mc_scaling_fit(obs, nobs, &o->fit, &m, &err)) {
        mc_error_prefix(&err, "%s", o->file);
        return cli_fail(&err);
    }
    double pmax_meas = 0, nmin = INFINITY, nmax = 0;
    for (size_t i = 0; i < nobs; i++)
        pmax_meas = fmax(pmax_meas, obs[i].p);
    size_t used_n = 0;
    for (size_t i = 0; i < m.nn; i++) {
        if (m.per_n[i].skipped) {
            warn(warnings, o->json, "%s: n=%g skipped: only %zu run%s inside the efficiency window",
                 o->file, m.per_n[i].n, m.per_n[i].used, m.per_n[i].used == 1 ? "" : "s");
            continue;
        }
        used_n++;
        nmin = fmin(nmin, m.per_n[i].n), nmax = fmax(nmax, m.per_n[i].n);
        if (m.per_n[i].used < 3)
            warn(warnings, o->json, "%s: n=%g: only 2 runs in the window; c2 set to 0", o->file,
                 m.per_n[i].n);
    }
    if (used_n < 3)
        warn(warnings, o->json, "%s: only %zu problem size%s: the laws in n are %s", o->file,
             used_n, used_n == 1 ? "" : "s", used_n == 1 ? "constants" : "at most linear");
    double p_max = o->p_max > 0 ? o->p_max : 4 * pmax_meas;
    double ps[64];
    size_t np = p_list(p_max, ps, 64);
    tables t = {0};
    int rc = CLI_OK;
    for (int s = 0; s < o->nstrong; s++) {
        if (o->strong[s] > 4 * nmax || o->strong[s] < nmin / 4)
            warn(warnings, o->json, "strong scaling at n=%g is far outside the measured n range "
                 "[%g, %g]", o->strong[s], nmin, nmax);
        for (size_t i = 0; i < np; i++)
            if (add_row(&t, mc_scaling_eval(&m, ps[i], o->strong[s]), NAN, 0))
                rc = CLI_BAD_INPUT;
    }
    for (int w = 0; w < o->nweak; w++) {
        if (used_n < 2)
            warn(warnings, o->json, "weak scaling at k=%g uses laws fitted to one problem size",
                 o->weak[w]);
        if (o->weak[w] * p_max > 4 * nmax)
            warn(warnings, o->json, "weak scaling at k=%g reaches n=%g, beyond 4x the largest "
                 "measured n (%g)", o->weak[w], o->weak[w] * p_max, nmax);
        for (size_t i = 0; i < np; i++)
            if (add_row(&t, mc_scaling_eval(&m, ps[i], o->weak[w] * ps[i]), o->weak[w], 1))
                rc = CLI_BAD_INPUT;
    }
    for (size_t i = 0; i < t.n; i++)
        if (t.rows[i].tau <= 0 || !isfinite(t.rows[i].tau)) {
            warn(warnings, o->json, "the model gives tau=%g <= 0 at p=%g n=%g (extrapolated "
                 "laws in n)", t.rows[i].tau, t.rows[i].p, t.rows[i].n);
            break;
        }
    if (rc) {
        fputs("mpicast: out of memory\n", stderr);
    } else if (o->csv) {
        print_csv(&t);
    } else if (o->json) {
        print_json(o, &m, &t, warnings, traces);
    } else {
        print_text(o, &m, &t);
    }
    if (rc == CLI_OK && o->plot)
        rc = plot_scaling(o, &m, p_max);
    free(t.rows);
    free(t.k);
    free(t.weak);
    mc_scaling_model_free(&m);
    return rc;
}

/* ---------------------------------------------------------------- input */

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static mc_err append_obs(mc_scaling_obs **all, size_t *n, const mc_scaling_obs *add, size_t k,
                         mc_error *err)
{
    mc_scaling_obs *a = realloc(*all, (*n + k + 1) * sizeof *a);
    if (!a)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    memcpy(a + *n, add, k * sizeof *a);
    *all = a;
    *n += k;
    return MC_OK;
}

/* One trace directory: its run, a row of `traces`, and warnings about
 * what the markers or the tracer left unclear. */
static mc_err load_trace(const scaling_opts *o, int i, mc_scaling_obs **all, size_t *n,
                         json_t *warnings, json_t *traces, mc_error *err)
{
    const char *dir = o->inputs[i];
    mc_pcontrol_run run;
    mc_err rc = mc_scaling_read_trace(dir, o->have_label[i] ? &o->labels[i] : NULL, &run, err);
    if (rc)
        return rc;
    if (run.no_finalize_ranks)
        warn(warnings, o->json,
             "%s: %d rank%s without MPI_Finalize in the trace (mpicast's tracer records "
             "nothing after MPI_Pcontrol(0)): tau ends at the last recorded event; call "
             "MPI_Pcontrol(1) before MPI_Finalize to keep the run's end",
             dir, run.no_finalize_ranks, run.no_finalize_ranks == 1 ? "" : "s");
    if (run.unmarked_ranks)
        warn(warnings, o->json, "%s: %d rank%s never entered the parallel part", dir,
             run.unmarked_ranks, run.unmarked_ranks == 1 ? "" : "s");
    json_array_append_new(traces,
                          json_pack("{sssfsfsfsfsisIsisi}", "trace", dir, "p", run.obs.p, "n",
                                    run.obs.n, "tau", run.obs.tau, "gamma", run.obs.gamma,
                                    "ranks", run.nranks, "intervals", (json_int_t)run.intervals,
                                    "open_at_end", run.open_ranks, "no_finalize",
                                    run.no_finalize_ranks));
    return append_obs(all, n, &run.obs, 1, err);
}

/* Every input: CSV files and trace directories; repeats averaged. */
static mc_err load_inputs(const scaling_opts *o, mc_scaling_obs **all, size_t *n,
                          json_t *warnings, json_t *traces, mc_error *err)
{
    for (int i = 0; i < o->ninputs; i++) {
        mc_err rc;
        if (is_dir(o->inputs[i])) {
            rc = load_trace(o, i, all, n, warnings, traces, err);
        } else if (o->have_label[i] && access(o->inputs[i], F_OK) != 0) {
            rc = mc_error_set(err, MC_ERR_IO, "%s: no such trace directory", o->inputs[i]);
        } else if (o->have_label[i]) {
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s: a label applies to a trace directory; "
                              "a CSV carries p and n in its rows", o->inputs[i]);
        } else {
            mc_scaling_obs *obs = NULL;
            size_t k = 0;
            rc = mc_scaling_read_csv(o->inputs[i], &obs, &k, err);
            if (rc == MC_OK)
                rc = append_obs(all, n, obs, k, err);
            free(obs);
        }
        if (rc)
            return rc;
    }
    return mc_scaling_merge_repeats(*all, n, err);
}

int cmd_scaling(int argc, char **argv)
{
    scaling_opts *o = malloc(sizeof *o);
    if (!o) {
        fputs("mpicast: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    int rc = parse_args(argc, argv, o);
    if (rc >= 0) {
        free(o);
        return rc;
    }
    mc_scaling_obs *obs = NULL;
    size_t nobs = 0;
    mc_error err = {0};
    json_t *warnings = json_array(), *traces = json_array();
    if (load_inputs(o, &obs, &nobs, warnings, traces, &err)) {
        rc = cli_fail(&err);
    } else {
        if (!o->json && !o->csv) /* what was read, also when the fit fails */
            print_traces_text(traces);
        rc = run_scaling(o, obs, nobs, warnings, traces);
    }
    json_decref(warnings);
    json_decref(traces);
    free(obs);
    free(o);
    return rc;
}
