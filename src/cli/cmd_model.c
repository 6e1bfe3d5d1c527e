/* mpicast model FILES... --by p|n|pn: per-function models of call counts,
 * times or bytes per process from several small runs, a prediction at a
 * larger scale, and the cost accounting of the call-count study.
 * Families, selection and formulas: docs/models.md; JSON keys: docs/json.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/export.h"
#include "mpicast/model.h"
#include "mpicast/outfile.h"

static const char model_head[] =
    "usage: mpicast model FILE[:p=P,n=N,iters=K] [--label p=P,n=N,iters=K]... --by p|n|pn\n"
    "                     [--metric calls|time|bytes|NAME] [--predict p=P[,n=N][,iters=K]]\n"
    "                     [--select auto|cv|aicc|mape|ar2] [--families LIST]\n"
    "                     [--per-iteration] [--function NAME] [--no-negative] [--json]\n"
    "                     [--plot FILE.svg|FILE.png] [--extrap-out FILE]\n"
    "                     [--extrap-json FILE]\n"
    "\n"
    "Fits, per MPI function, a model of a metric per process over the process\n"
    "count p, the problem size n, or both, and predicts it at --predict.\n"
    "\n"
    "Inputs (format detected from the content):\n"
    "  `mpicast stats --json` output   values divided by \"ranks\" (per process);\n"
    "                                  label each file: FILE:p=64,n=B or a\n"
    "                                  --label p=64,n=B right after it (p defaults\n"
    "                                  to \"ranks\"); problem classes S,W,A,B,C,D,E\n"
    "                                  are 1/16,1/4,1,4,16,256,4096\n"
    "  CSV with header p,n,function,metric,value (repeats averaged; metric\n"
    "                                  \"elapsed\" = a run's wall time, for the cost)\n"
    "  Extra-P text input (PARAMETER/POINTS/METRIC/REGION/DATA lines)\n"
    "  TAU profiles: a directory of profile.N.C.T files (one run; p = the\n"
    "                                  number of nodes N unless labelled\n"
    "                                  DIR:p=..,n=..) or one profile file (p = 1);\n"
    "                                  calls and inclusive time per process\n"
    "                                  (sum over the files / nodes), MPI names\n"
    "                                  as in stats (\"MPI_Send()\" is MPI_Send)\n"
    "\n";

static const char model_tail[] =
    "\n"
    "A function missing from a stats file that other runs have counts 0\n"
    "calls and 0 bytes there (its time stays unknown); inputs that differ\n"
    "only by iters=K are distinct points\n"
    "Families: constant b (under leave-one-out, for counts that do not change),\n"
    "linear a*x+b, logarithmic a*log10(x)+b, inverse a/x+b,\n"
    "linear-saturation a*min(x,x')+b, normal-form c0+c1*x^i*log2(x)^j, and for\n"
    "--by pn sums/products of p and n terms (docs/models.md). Where no law of\n"
    "all the points predicts them (held-out error > 10 %), the smallest values of\n"
    "p or n are left out while a law of the rest predicts it within 5 %, with a\n"
    "warning (a serial path at p = 1: JSON fitted_from).\n"
    "\n"
    "Example:\n"
    "  mpicast model r2.json:p=2 r4.json:p=4 r8.json:p=8 --by p --predict p=64\n"
    "Exit status: 0 ok; 1 bad input (one line naming FILE:LINE); 2 usage error.\n";

enum { MAX_INPUTS = 1024, MAX_FUNCS = 64 };

typedef struct model_opts {
    const char *files[MAX_INPUTS];
    mc_run_label labels[MAX_INPUTS];
    int nfiles;
    mc_model_var by;
    const char *metric; /* NULL: calls when present, else every metric */
    int have_target;
    mc_run_label target;
    mc_fit_opts fit;
    const char *functions[MAX_FUNCS];
    int nfunctions;
    int json;
    int per_iteration; /* --per-iteration */
    const char *plot; /* --plot FILE.svg|png, or NULL */
    const char *extrap_out; /* --extrap-out FILE, or NULL */
    const char *extrap_json; /* --extrap-json FILE, or NULL */
} model_opts;

/* ---------------------------------------------------------------- args */

static int parse_by(const char *s, mc_model_var *by)
{
    if (strcmp(s, "p") == 0)
        *by = MC_VAR_P;
    else if (strcmp(s, "n") == 0)
        *by = MC_VAR_N;
    else if (strcmp(s, "pn") == 0 || strcmp(s, "np") == 0)
        *by = MC_VAR_PN;
    else
        return -1;
    return 0;
}

static int parse_select(const char *s, mc_select *sel)
{
    if (strcmp(s, "cv") == 0)
        *sel = MC_SELECT_CV;
    else if (strcmp(s, "mape") == 0)
        *sel = MC_SELECT_MAPE;
    else if (strcmp(s, "ar2") == 0)
        *sel = MC_SELECT_AR2;
    else if (strcmp(s, "auto") == 0)
        *sel = MC_SELECT_AUTO;
    else if (strcmp(s, "aicc") == 0)
        *sel = MC_SELECT_AICC;
    else
        return -1;
    return 0;
}

/* "linear,inverse" or "study" (the call-count study's four families). */
static int parse_families(const char *s, mc_fit_opts *o)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    memset(o->families, 0, sizeof o->families);
    o->have_families = 1;
    char *save = NULL;
    int any = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "study") == 0) {
            for (int f = MC_FAMILY_LINEAR; f <= MC_FAMILY_SATURATION; f++)
                o->families[f] = 1;
        } else {
            int f = mc_family_parse(t);
            if (f < 0 || f == MC_FAMILY_SHELL) /* extrapolate's data sizes only */
                return -1;
            o->families[f] = 1;
        }
        any = 1;
    }
    return any ? 0 : -1;
}

static int usage(mc_error *err, const char *msg)
{
    mc_error_set(err, MC_ERR_USAGE, "%s", msg);
    return -1;
}

static int set_by(void *by, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    return parse_by(v, by) ? usage(err, "--by takes p, n or pn") : 0;
}

static int set_metric(void *metric, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    if (!*v)
        return usage(err, "--metric takes a metric name (calls, time, bytes)");
    *(const char **)metric = v;
    return 0;
}

static int set_select(void *select, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    return parse_select(v, select) ? usage(err, "--select takes auto, cv, aicc, mape or ar2") : 0;
}

static int set_families(void *fit, const char *opt, const char *v, mc_error *err)
{
    (void)opt;
    if (parse_families(v, fit))
        return usage(err, "--families takes a comma-separated list of linear, logarithmic, "
                     "inverse, linear-saturation, normal-form, pn-product, pn-sum, pn-full, "
                     "or study");
    return 0;
}

static int add_function(void *opts, const char *opt, const char *v, mc_error *err)
{
    model_opts *o = opts;
    (void)opt;
    if (o->nfunctions == MAX_FUNCS)
        return usage(err, "--function takes a function name");
    o->functions[o->nfunctions++] = v;
    return 0;
}

static int set_predict(void *opts, const char *opt, const char *v, mc_error *err)
{
    model_opts *o = opts;
    mc_error e = {0};
    (void)opt;
    if (mc_parse_label(v, &o->target, &e)) {
        mc_error_set(err, MC_ERR_USAGE, "--predict: %s", e.msg);
        return -1;
    }
    o->have_target = 1;
    return 0;
}

/* --label p=P,n=N: the coordinates of the file just before it */
static int set_label(void *opts, const char *opt, const char *v, mc_error *err)
{
    model_opts *o = opts;
    mc_error e = {0};
    (void)opt;
    if (o->nfiles == 0)
        return usage(err, "--label must follow the file it labels");
    if (mc_parse_label(v, &o->labels[o->nfiles - 1], &e)) {
        mc_error_set(err, MC_ERR_USAGE, "--label: %s", e.msg);
        return -1;
    }
    return 0;
}

/* --extrap-out, --extrap-json: a file name */
static int set_file(void *file, const char *opt, const char *v, mc_error *err)
{
    if (!*v) {
        mc_error_set(err, MC_ERR_USAGE, "%s takes a file name", opt);
        return -1;
    }
    *(const char **)file = v;
    return 0;
}

/* FILE or FILE:p=P,n=N */
static int add_file(void *opts, char *arg, mc_error *err)
{
    model_opts *o = opts;
    if (o->nfiles == MAX_INPUTS) {
        mc_error_set(err, MC_ERR_USAGE, "too many input files (at most %d)", MAX_INPUTS);
        return -1;
    }
    if (cli_split_label(arg, &o->labels[o->nfiles]) < 0) {
        mc_error_set(err, MC_ERR_USAGE, "bad label in '%s': expected FILE:p=P,n=N", arg);
        return -1;
    }
    o->files[o->nfiles++] = arg;
    return 0;
}

static int parse_args(int argc, char **argv, model_opts *o)
{
    memset(o, 0, sizeof *o);
    o->by = MC_VAR_P;
    o->fit = mc_fit_opts_default();
    int no_negative = 0;
    const cli_opt opts[] = {
        {"--by", NULL, "p|n|pn", CLI_VALUE,
         "the model's parameter(s) (default p); with p (n), one\n"
         "model per value of the other parameter", &o->by, set_by},
        {"--metric", NULL, "M", CLI_VALUE,
         "calls (default when present), time, bytes, or any CSV or\n"
         "Extra-P metric name", &o->metric, set_metric},
        {"--predict", NULL, "V=X", CLI_VALUE,
         "where to predict; a measurement there is held out of the\n"
         "fit and compared with the prediction", o, set_predict},
        {"--select", NULL, "C", CLI_VALUE,
         "auto (default): leave-one-out, AICc where no family\n"
         "has a leave-one-out error; a family is a candidate\n"
         "only with more points than coefficients; cv (same),\n"
         "aicc, ar2 (adjusted R^2), mape (the study's: error on\n"
         "the fitted points, every family that fits)", &o->fit.select, set_select},
        {"--families", NULL, "LIST", CLI_VALUE,
         "candidates, comma-separated family names; 'study' is\n"
         "linear,logarithmic,inverse,linear-saturation (the\n"
         "study's procedure: --select mape --families study);\n"
         "grid-split applies with --by p to stats --json runs\n"
         "that made an MPI_Dims_create-shaped Cartesian grid", &o->fit, set_families},
        {"--per-iteration", NULL, NULL, CLI_FLAG,
         "model counts per main-loop iteration: each run's\n"
         "values divided by its iters (label iters=K, else\n"
         "MPI_Pcontrol calls per process / 2, else the main\n"
         "loop's iterations from stats --json); each series is\n"
         "fitted per iteration and per run and the one with the\n"
         "smaller held-out error kept, or set-up + per iteration\n"
         "(s + iters*f): split as stats counted the main loop's\n"
         "calls, or fitted where the runs' iterations differ and\n"
         "better by 10 %; per-iteration predictions are per\n"
         "iteration x the --predict iters=K", &o->per_iteration, NULL},
        {"--function", NULL, "NAME", CLI_LIST, "only this function (repeatable)", o,
         add_function},
        {"--no-negative", NULL, NULL, CLI_FLAG,
         "no negative exponents of p in the normal form", &no_negative, NULL},
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (docs/json.md)", &o->json,
         NULL},
        {"--label", NULL, "p=P,n=N", CLI_LIST, "coordinates of the file just before it", o,
         set_label},
        {"--plot", NULL, "FILE", CLI_VALUE,
         "draw measured points and the chosen model per series\n"
         "(the 6 with the largest values; --function selects)\n"
         "with gnuplot to FILE.svg or FILE.png", &o->plot, cli_set_plot},
        {"--extrap-out", NULL, "FILE", CLI_VALUE,
         "write the series fitted (mean per point) as Extra-P\n"
         "text input, which Extra-P and `mpicast model` read", &o->extrap_out, set_file},
        {"--extrap-json", NULL, "FILE", CLI_VALUE,
         "write the series fitted (mean per point) as Extra-P's\n"
         "JSON input (parameters, measurements), every series\n"
         "kept, with the chosen models under \"mpicast\" (Extra-P\n"
         "ignores that key): load it in Extra-P and compare", &o->extrap_json, set_file},
    };
    const cli_spec spec = {"model", model_head, model_tail, 20, opts, CLI_NOPTS(opts), add_file,
                           o, 1, 0};
    int rc;
    if (cli_parse(&spec, argc, argv, &rc))
        return rc;
    if (no_negative)
        o->fit.negative_p = 0;
    if (o->nfiles == 0)
        return cli_usage_error("model: no input files; see 'mpicast model --help'");
    if (o->have_target) {
        if (o->by != MC_VAR_N && !o->target.have_p)
            return cli_usage_error("--predict needs p=... for --by %s", o->by == MC_VAR_P ? "p" : "pn");
        if (o->by != MC_VAR_P && !o->target.have_n)
            return cli_usage_error("--predict needs n=... for --by %s", o->by == MC_VAR_N ? "n" : "pn");
    }
    return -1;
}

/* ---------------------------------------------------------------- input */

typedef enum { IN_CSV, IN_STATS, IN_EXTRAP, IN_TAU } input_kind;

/* The format from the first meaningful line: '{' is stats JSON, an Extra-P
 * keyword is Extra-P text, anything else CSV. */
static input_kind sniff(const char *path)
{
    if (mc_tau_is_profile(path)) /* a directory, or TAU's first line */
        return IN_TAU;
    FILE *fp = mc_in_fopen(path, NULL); /* never blocks on a FIFO */
    if (!fp)
        return IN_CSV; /* the reader reports the open error */
    char line[256];
    input_kind k = IN_CSV;
    while (fgets(line, sizeof line, fp)) {
        const char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (!*s || *s == '#')
            continue;
        static const char *const kw[] = {"PARAMETER", "POINTS", "METRIC", "REGION", "DATA"};
        if (*s == '{')
            k = IN_STATS;
        for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
            if (strncmp(s, kw[i], strlen(kw[i])) == 0)
                k = IN_EXTRAP;
        break;
    }
    fclose(fp);
    return k;
}

static mc_err load_inputs(const model_opts *o, mc_mdata *d, mc_error *err)
{
    for (int i = 0; i < o->nfiles; i++) {
        mc_err rc;
        switch (sniff(o->files[i])) {
        case IN_STATS: rc = mc_mdata_read_stats(d, o->files[i], &o->labels[i], err); break;
        case IN_TAU: rc = mc_mdata_read_tau(d, o->files[i], &o->labels[i], err); break;
        case IN_EXTRAP: rc = mc_mdata_read_extrap(d, o->files[i], o->by, err); break;
        default: rc = mc_mdata_read_csv(d, o->files[i], err); break;
        }
        if (rc)
            return rc;
    }
    return MC_OK;
}

/* ---------------------------------------------------------------- results */

typedef mc_series_model result;

typedef struct run_state {
    const model_opts *o;
    json_t *warnings; /* global */
    json_t *skipped;
    mc_series_opts so; /* what the model library is asked */
} run_state;

/* The chosen fit's warnings go to the document's list and, without
 * --json, to stderr. */
static void publish_warnings(run_state *st, const result *r)
{
    for (size_t i = 0; i < json_array_size(r->warnings); i++) {
        json_t *w = json_array_get(r->warnings, i);
        json_array_append(st->warnings, w);
        if (!st->o->json)
            fprintf(stderr, "mpicast: warning: %s\n", json_string_value(w));
    }
}


/* The model library's view of the options. */
static mc_series_opts series_opts(const model_opts *o)
{
    mc_series_opts so = {o->by, o->fit, o->have_target, o->target, o->per_iteration};
    return so;
}

/* Whether the series is asked for (a --predict at n=B with --by p selects
 * the series measured at n=B). */
static int series_wanted(const model_opts *o, const mc_series *s)
{
    if (o->have_target && o->by == MC_VAR_P && o->target.have_n && s->fixed != o->target.n)
        return 0;
    if (o->have_target && o->by == MC_VAR_N && o->target.have_p && s->fixed != o->target.p)
        return 0;
    if (o->nfunctions == 0)
        return 1;
    for (int i = 0; i < o->nfunctions; i++)
        if (strcmp(o->functions[i], s->function) == 0)
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- output */

static double error_percent(const result *r)
{
    if (isnan(r->measured) || isnan(r->prediction))
        return NAN;
    if (r->measured == 0)
        return r->prediction == 0 ? 0 : NAN;
    return 100 * fabs(r->prediction - r->measured) / fabs(r->measured);
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *coefficients_json(const mc_fit *f)
{
    json_t *c = json_object();
    char frac[32];
    switch (f->family) {
    case MC_FAMILY_CONSTANT: json_object_set_new(c, "b", json_real(f->c[0])); break;
    case MC_FAMILY_LINEAR:
    case MC_FAMILY_LOG:
    case MC_FAMILY_INVERSE:
        json_object_set_new(c, "a", json_real(f->c[1]));
        json_object_set_new(c, "b", json_real(f->c[0]));
        break;
    case MC_FAMILY_SATURATION:
        json_object_set_new(c, "a", json_real(f->c[1]));
        json_object_set_new(c, "b", json_real(f->c[0]));
        json_object_set_new(c, "x_break", json_real(f->xbreak));
        break;
    case MC_FAMILY_GRID:
        json_object_set_new(c, "a", json_real(f->c[1]));
        json_object_set_new(c, "b", json_real(f->c[0]));
        json_object_set_new(c, "grid_dims", json_integer(f->gdim));
        break;
    case MC_FAMILY_NORMAL:
        json_object_set_new(c, "c0", json_real(f->c[0]));
        json_object_set_new(c, "c1", json_real(f->c[1]));
        json_object_set_new(c, "i", json_real((double)f->tp.num / f->tp.den));
        snprintf(frac, sizeof frac, "%d/%d", f->tp.num, f->tp.den);
        json_object_set_new(c, "i_fraction", json_string(frac));
        json_object_set_new(c, "j", json_integer(f->tp.j));
        break;
    default:
        for (int k = 0; k < f->nparams && k < 4; k++) {
            char key[8];
            snprintf(key, sizeof key, "c%d", k);
            json_object_set_new(c, key, json_real(f->c[k]));
        }
        json_object_set_new(c, "p_i", json_real((double)f->tp.num / f->tp.den));
        json_object_set_new(c, "p_j", json_integer(f->tp.j));
        json_object_set_new(c, "n_i", json_real((double)f->tn.num / f->tn.den));
        json_object_set_new(c, "n_j", json_integer(f->tn.j));
        break;
    }
    return c;
}

static const char *select_name(mc_select s)
{
    return mc_select_name(s);
}

/* The error on points the model was not fitted on: leave-one-out. */
static double held_out(const mc_fit *f)
{
    return f->cv;
}

/* The formula of fit f; set-up + per iteration: "s + iters*(f)". */
static void series_formula(const model_opts *o, const mc_fit *f, int with_setup,
                           const mc_fit *setup, char *buf, size_t len)
{
    char per[240], s0[240];
    mc_fit_formula(f, mc_model_var_name(o->by), per, sizeof per);
    if (!with_setup) {
        snprintf(buf, len, "%s", per);
        return;
    }
    mc_fit_formula(setup, mc_model_var_name(o->by), s0, sizeof s0);
    snprintf(buf, len, setup->family == MC_FAMILY_CONSTANT ? "%s + iters*(%s)" : "(%s) + iters*(%s)",
             s0, per);
}

/* The model's prediction at x (x2) as a total: set-up + iters × f there. */
static double total_at(const mc_fit *f, int with_setup, const mc_fit *setup, double iters,
                       double x, double x2)
{
    double v = mc_fit_eval(f, x, x2);
    return with_setup ? mc_fit_eval(setup, x, 0) + iters * v : v;
}

static const char *normalised_name(const result *r)
{
    return r->per_run ? "per-run" : r->with_setup ? "set-up+per-iteration" : "per-iteration";
}

/* The part outside the main loop of a set-up + per-iteration model. */
static json_t *setup_json(const model_opts *o, const result *r)
{
    char f[256];
    mc_fit_formula(&r->setup, mc_model_var_name(o->by), f, sizeof f);
    double tx = o->by == MC_VAR_N ? o->target.n : o->target.p;
    return json_pack("{s:s,s:s,s:o,s:b,s:o}", "family", mc_family_name(r->setup.family),
                     "formula", f, "coefficients", coefficients_json(&r->setup), "measured",
                     r->setup_measured, "prediction",
                     num_or_null(o->have_target ? mc_fit_eval(&r->setup, tx, 0) : NAN));
}

static json_t *result_json(const model_opts *o, const result *r)
{
    char formula[512];
    series_formula(o, &r->fit, r->with_setup, &r->setup, formula, sizeof formula);
    json_t *j = json_pack("{ssss}", "function", r->s->function, "metric", r->s->metric);
    if (o->by == MC_VAR_P)
        json_object_set_new(j, "n", num_or_null(r->s->fixed));
    else if (o->by == MC_VAR_N)
        json_object_set_new(j, "p", num_or_null(r->s->fixed));
    json_object_set_new(j, "family", json_string(mc_family_name(r->fit.family)));
    json_object_set_new(j, "formula", json_string(formula));
    json_object_set_new(j, "coefficients", coefficients_json(&r->fit));
    json_object_set_new(j, "fit_error", num_or_null(r->fit.mape));
    json_object_set_new(j, "cv_error", num_or_null(r->fit.cv));
    json_object_set_new(j, "adjusted_r2", num_or_null(r->fit.ar2));
    json_object_set_new(j, "aicc", num_or_null(r->fit.aicc));
    json_object_set_new(j, "selected_by", json_string(select_name(r->used)));
    json_object_set_new(j, "held_out_error", num_or_null(held_out(&r->fit)));
    if (r->runner.ok) {
        char rf[512];
        series_formula(o, &r->runner, r->with_setup, &r->runner_setup, rf, sizeof rf);
        json_t *ru = json_object();
        json_object_set_new(ru, "family", json_string(mc_family_name(r->runner.family)));
        json_object_set_new(ru, "formula", json_string(rf));
        json_object_set_new(ru, "held_out_error", num_or_null(held_out(&r->runner)));
        json_object_set_new(ru, "fit_error", num_or_null(r->runner.mape));
        json_object_set_new(ru, "aicc", num_or_null(r->runner.aicc));
        double tx = o->by == MC_VAR_N ? o->target.n : o->target.p;
        double rp = total_at(&r->runner, r->with_setup, &r->runner_setup, o->target.iters, tx,
                             o->target.n);
        if (o->per_iteration && o->target.have_iters && !r->per_run && !r->with_setup)
            rp *= o->target.iters;
        json_object_set_new(ru, "prediction", o->have_target ? num_or_null(rp) : json_null());
        json_object_set_new(j, "runner_up", ru);
    } else {
        json_object_set_new(j, "runner_up", json_null());
    }
    json_object_set_new(j, "points", json_integer(r->npoints));
    json_object_set_new(j, "fitted_from", num_or_null(r->from));
    json_object_set_new(j, "repeats", json_integer(r->repeats));
    json_object_set_new(j, "spread_percent", json_real(r->spread));
    json_object_set_new(j, "failed_polls_percent", r->polls > 0 ? json_real(r->polls) : json_null());
    json_object_set_new(j, "prediction", num_or_null(r->prediction));
    if (o->per_iteration) {
        json_object_set_new(j, "prediction_per_iteration", num_or_null(r->pred_iter));
        json_object_set_new(j, "measured_per_iteration", num_or_null(r->meas_iter));
        json_object_set_new(j, "per_run", json_boolean(r->per_run));
        json_object_set_new(j, "normalised", json_string(normalised_name(r)));
        json_object_set_new(j, "setup", r->with_setup ? setup_json(o, r) : json_null());
        json_object_set_new(j, "normalised_errors",
                            json_pack("{s:o,s:o,s:o,s:s}", "per-iteration",
                                      num_or_null(r->norm_err[0]), "per-run",
                                      num_or_null(r->norm_err[1]), "set-up+per-iteration",
                                      num_or_null(r->norm_err[2]), "compared",
                                      r->norm_cv ? "held_out_error" : "fit_error"));
    }
    if (!isnan(r->measured)) {
        json_object_set_new(j, "measured", json_real(r->measured));
        json_object_set_new(j, "error_percent", num_or_null(error_percent(r)));
    }
    json_object_set(j, "warnings", r->warnings);
    return j;
}

typedef struct summary {
    int count[MC_FAMILY_COUNT];
    double mape_min[MC_FAMILY_COUNT], mape_max[MC_FAMILY_COUNT];
    int total;
    double err_sum;
    int err_n;
} summary;

static summary summarise(const result *r, size_t n)
{
    summary s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < n; i++) {
        int f = r[i].fit.family;
        double m = r[i].fit.mape;
        if (s.count[f] == 0 || m < s.mape_min[f])
            s.mape_min[f] = m;
        if (s.count[f] == 0 || m > s.mape_max[f])
            s.mape_max[f] = m;
        s.count[f]++;
        s.total++;
        double e = error_percent(&r[i]);
        if (!isnan(e))
            s.err_sum += e, s.err_n++;
    }
    return s;
}

typedef struct cost {
    int have;
    size_t runs;
    double profiling, predicted;
    const char *source; /* "measured" or "model" */
} cost;

/* The study's cost: core-seconds (p × wall time) of the profiling runs used
 * against those of the predicted run, measured when that run is in the
 * inputs, else from a model of the runs' wall times. */
static cost compute_cost(const model_opts *o, const mc_mdata *d)
{
    cost c = {0, 0, 0, 0, NULL};
    if (!o->have_target || (o->by == MC_VAR_N && !o->target.have_p))
        return c;
    double tp = o->target.p, tn = o->target.have_n ? o->target.n : NAN;
    c.profiling = mc_mdata_cost(d, tp, tn, &c.runs);
    if (c.runs == 0)
        return c;
    double el = mc_mdata_run_elapsed(d, tp, tn);
    if (!isnan(el)) {
        c.predicted = tp * el;
        c.source = "measured";
    } else {
        mc_series *s = NULL;
        size_t ns = 0;
        mc_error e = {0};
        if (mc_mdata_run_series(d, o->by, &s, &ns, &e))
            return c;
        for (size_t i = 0; i < ns; i++) {
            if (o->by == MC_VAR_P && ns > 1 && s[i].fixed != tn)
                continue;
            double x[256], x2[256], y[256];
            size_t m = 0;
            for (size_t k = 0; k < s[i].npts && m < 256; k++, m++) {
                x[m] = o->by == MC_VAR_N ? s[i].pts[k].n : s[i].pts[k].p;
                x2[m] = s[i].pts[k].n;
                y[m] = s[i].pts[k].value;
            }
            mc_fit f;
            if (mc_model_select(o->by, x, o->by == MC_VAR_PN ? x2 : NULL, y, m, &o->fit, &f,
                                NULL, NULL, &e) == MC_OK) {
                double v = mc_fit_eval(&f, o->by == MC_VAR_N ? tn : tp, tn);
                if (v > 0) {
                    c.predicted = tp * v;
                    c.source = "model";
                }
            }
            break;
        }
        mc_series_free(s, ns);
        if (!c.source)
            return c;
    }
    c.have = c.predicted > 0;
    return c;
}

static int print_json(const model_opts *o, const result *r, size_t n, const cost *c,
                      run_state *st)
{
    summary s = summarise(r, n);
    json_t *fns = json_array(), *sum = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(fns, result_json(o, &r[i]));
    for (int f = 0; f < MC_FAMILY_COUNT; f++)
        if (s.count[f])
            json_array_append_new(
                sum, json_pack("{sssisfsfsf}", "family", mc_family_name((mc_family)f), "count",
                               s.count[f], "share_percent", 100.0 * s.count[f] / s.total,
                               "mape_min", s.mape_min[f], "mape_max", s.mape_max[f]));
    json_t *doc = json_object();
    const char *by = o->by == MC_VAR_PN ? "pn" : mc_model_var_name(o->by);
    json_object_set_new(doc, "by", json_string(by));
    /* the metric modelled: the one asked for, else calls, else several */
    const char *metric = o->metric;
    for (size_t i = 0; !o->metric && i < n; i++)
        metric = i == 0 || (metric && strcmp(metric, r[i].s->metric) == 0) ? r[i].s->metric : NULL;
    json_object_set_new(doc, "metric", metric ? json_string(metric) : json_null());
    json_object_set_new(doc, "select", json_string(o->fit.select == MC_SELECT_AUTO
                                                       ? "auto"
                                                       : select_name(o->fit.select)));
    json_t *pred = json_null();
    if (o->have_target) {
        pred = json_object();
        json_object_set_new(pred, "p", o->target.have_p ? json_real(o->target.p) : json_null());
        json_object_set_new(pred, "n", o->target.have_n ? json_real(o->target.n) : json_null());
        json_object_set_new(pred, "iters",
                            o->target.have_iters ? json_real(o->target.iters) : json_null());
    }
    json_object_set_new(doc, "predict", pred);
    json_object_set_new(doc, "per_iteration", json_boolean(o->per_iteration));
    json_object_set_new(doc, "functions", fns);
    json_object_set_new(doc, "summary", sum);
    json_object_set_new(doc, "mean_error_percent",
                        s.err_n ? json_real(s.err_sum / s.err_n) : json_null());
    json_object_set_new(doc, "cost",
                        c->have ? json_pack("{sisfsfsfss}", "runs", (int)c->runs,
                                            "profiling_core_seconds", c->profiling,
                                            "predicted_core_seconds", c->predicted,
                                            "relative_percent", 100 * c->profiling / c->predicted,
                                            "predicted_from", c->source)
                                : json_null());
    json_object_set(doc, "skipped", st->skipped);
    json_object_set(doc, "warnings", st->warnings);
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

static void print_text(const model_opts *o, const result *r, size_t n, const cost *c)
{
    const char *x = o->by == MC_VAR_PN ? "p,n" : mc_model_var_name(o->by);
    printf("Models per process%s by %s (%zu series)\n\n",
           o->per_iteration ? " and main-loop iteration" : "", x, n);
    if (o->per_iteration)
        printf("(per: each series fitted per iteration and per run, the smaller held-out error\n"
               " (fit error where there is none) decides; set-up + per iteration (iter+setup:\n"
               " s + iters*f) where stats split the calls at the main loop, or fitted where the\n"
               " runs' iterations differ (taken when its held-out error is lower by 10 %%);\n"
               " per-iteration series are predicted and measured %s)\n\n",
               o->have_target && o->target.have_iters ? "per iteration x iters" : "per iteration");
    printf("%-22s %-8s %-10s %s%-18s %9s %10s %14s %14s %8s  %-28s %s\n", "function", "metric",
           o->by == MC_VAR_P ? "n" : o->by == MC_VAR_N ? "p" : "",
           o->per_iteration ? "per         " : "", "family", "MAPE %", "held-out %", "predicted",
           "measured", "error %", "runner-up (held-out %)", "formula");
    for (size_t i = 0; i < n; i++) {
        char formula[512], fixed[32] = "", cv[32] = "-", pr[32] = "-", me[32] = "-", er[32] = "-";
        series_formula(o, &r[i].fit, r[i].with_setup, &r[i].setup, formula, sizeof formula);
        if (o->by != MC_VAR_PN && !isnan(r[i].s->fixed))
            snprintf(fixed, sizeof fixed, "%g", r[i].s->fixed);
        if (!isnan(held_out(&r[i].fit)))
            snprintf(cv, sizeof cv, "%.3f", held_out(&r[i].fit));
        char ru[64] = "-";
        if (r[i].runner.ok && !isnan(held_out(&r[i].runner)))
            snprintf(ru, sizeof ru, "%s (%.3f)", mc_family_name(r[i].runner.family),
                     held_out(&r[i].runner));
        else if (r[i].runner.ok)
            snprintf(ru, sizeof ru, "%s", mc_family_name(r[i].runner.family));
        if (!isnan(r[i].prediction))
            snprintf(pr, sizeof pr, "%.6g", r[i].prediction);
        if (!isnan(r[i].measured))
            snprintf(me, sizeof me, "%.6g", r[i].measured);
        if (!isnan(error_percent(&r[i])))
            snprintf(er, sizeof er, "%.2f", error_percent(&r[i]));
        const char *per = !o->per_iteration ? ""
                          : r[i].per_run    ? "run         "
                          : r[i].with_setup ? "iter+setup  "
                                            : "iteration   ";
        printf("%-22s %-8s %-10s %s%-18s %9.3f %10s %14s %14s %8s  %-28s %s\n", r[i].s->function,
               r[i].s->metric, fixed, per, mc_family_name(r[i].fit.family), r[i].fit.mape, cv, pr,
               me, er, ru, formula);
    }
    summary s = summarise(r, n);
    printf("\nSelected families          share %%   count   MAPE min %%   MAPE max %%\n");
    for (int f = 0; f < MC_FAMILY_COUNT; f++)
        if (s.count[f])
            printf("  %-24s %7.1f %7d %12.3f %12.3f\n", mc_family_name((mc_family)f),
                   100.0 * s.count[f] / s.total, s.count[f], s.mape_min[f], s.mape_max[f]);
    if (s.err_n)
        printf("\nMean absolute percentage error of the predictions over %d series: %.2f %%\n",
               s.err_n, s.err_sum / s.err_n);
    if (c->have)
        printf("\nCost: %zu profiling run%s, %.6g core-s; predicted run %.6g core-s (%s); "
               "relative cost %.2f %%\n",
               c->runs, c->runs == 1 ? "" : "s", c->profiling, c->predicted, c->source,
               100 * c->profiling / c->predicted);
}

/* ---------------------------------------------------------------- plot */

enum { PLOT_SERIES = 6, PLOT_CURVES = 8, PLOT_POINTS = 65 };

static const char *const plot_colors[PLOT_CURVES] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                                     "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

static double series_max(const mc_series *s)
{
    double m = -INFINITY;
    for (size_t i = 0; i < s->npts; i++)
        m = fmax(m, fabs(s->pts[i].value));
    return m;
}

/* Indices of the (at most PLOT_SERIES) results with the largest measured
 * values: the functions that matter most. */
static size_t plot_pick(const result *r, size_t n, size_t *pick)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double v = series_max(r[i].s);
        size_t j = k; /* insertion point, largest first */
        while (j > 0 && series_max(r[pick[j - 1]].s) < v)
            j--;
        if (j >= PLOT_SERIES)
            continue;
        if (k < PLOT_SERIES)
            k++;
        for (size_t m = k - 1; m > j; m--)
            pick[m] = pick[m - 1];
        pick[j] = i;
    }
    return k;
}

/* The iterations a set-up + per-iteration curve is drawn at: the
 * prediction's, else the largest run's. */
static double plot_iters(const model_opts *o, const result *r)
{
    if (o->have_target && o->target.have_iters)
        return o->target.iters;
    double k = NAN;
    for (size_t i = 0; i < r->s->npts; i++)
        if (isnan(k) || r->s->pts[i].iters > k)
            k = r->s->pts[i].iters;
    return k;
}

/* One curve: the points of result r at the other parameter's value `other`
 * (pn: n; else unused), written as three data blocks — model curve, fitted
 * points, held-out measurement and prediction. Returns 1 when the y values
 * are all > 0 (log axis possible). */
static int plot_curve_data(FILE *d, const model_opts *o, const result *r, double other)
{
    const mc_series *s = r->s;
    double lo = INFINITY, hi = -INFINITY;
    int positive = 1;
    for (size_t i = 0; i < s->npts; i++) {
        if (o->by == MC_VAR_PN && s->pts[i].n != other)
            continue;
        double x = o->by == MC_VAR_N ? s->pts[i].n : s->pts[i].p;
        lo = fmin(lo, x), hi = fmax(hi, x);
    }
    double target = !o->have_target ? NAN : o->by == MC_VAR_N ? o->target.n : o->target.p;
    if (isfinite(target) && target > 0)
        lo = fmin(lo, target), hi = fmax(hi, target);
    for (int i = 0; i < PLOT_POINTS && lo > 0; i++) {
        double x = lo * pow(hi / lo, (double)i / (PLOT_POINTS - 1));
        double y = total_at(&r->fit, r->with_setup, &r->setup, plot_iters(o, r), x,
                            o->by == MC_VAR_PN ? other : 0);
        fprintf(d, "%.10g %.10g\n", x, isfinite(y) ? y : NAN);
        positive &= y > 0;
    }
    fputs("NaN NaN\n\n\n", d);
    mc_series_opts so = series_opts(o);
    for (size_t i = 0; i < s->npts; i++) {
        const mc_point *q = &s->pts[i];
        if ((o->by == MC_VAR_PN && q->n != other) || mc_series_at_target(&so, q))
            continue;
        fprintf(d, "%.10g %.10g\n", o->by == MC_VAR_N ? q->n : q->p, q->value);
        positive &= q->value > 0;
    }
    fputs("NaN NaN\n\n\n", d);
    /* the prediction point, and the held-out measurement there */
    if (o->have_target && isfinite(r->prediction) &&
        (o->by != MC_VAR_PN || other == o->target.n)) {
        fprintf(d, "%.10g %.10g %.10g\n", target, r->prediction,
                isnan(r->measured) ? NAN : r->measured);
        positive &= r->prediction > 0;
    }
    fputs("NaN NaN NaN\n", d);
    return positive;
}

/* The script's plot command for curve `c` (blocks 3c, 3c+1, 3c+2). */
static void plot_curve_cmd(FILE *sc, int c, const char *title, int first)
{
    const char *col = plot_colors[c % PLOT_CURVES];
    fprintf(sc, "%sdata index %d using 1:2 with lines lw 2 lc rgb '%s' title ", first ? "" : ", \\\n     ",
            3 * c, col);
    mc_gnuplot_quoted(sc, title);
    fprintf(sc, ", \\\n     data index %d using 1:2 with points pt 7 ps 0.8 lc rgb '%s' notitle", 3 * c + 1,
            col);
    fprintf(sc, ", \\\n     data index %d using 1:2 with points pt 3 ps 1.6 lc rgb '%s' notitle", 3 * c + 2,
            col);
    fprintf(sc, ", \\\n     data index %d using 1:3 with points pt 6 ps 1.4 lc rgb '%s' notitle", 3 * c + 2,
            col);
}

/* --plot FILE: per series, the measured points (filled circles), the chosen
 * model (line; up to the prediction point), the prediction (star) and a
 * held-out measurement there (open circle), through src/export's gnuplot
 * driver. --by pn draws one curve over p per measured n. */
static int plot_models(const model_opts *o, const result *r, size_t n)
{
    size_t pick[PLOT_SERIES];
    size_t np = plot_pick(r, n, pick);
    char data[] = "/tmp/mpicast-model-XXXXXX";
    FILE *d = cli_plot_data_file(data, o->plot);
    mc_error err = {0};
    if (!d)
        return CLI_BAD_INPUT;
    char *script = NULL;
    size_t len = 0;
    FILE *sc = open_memstream(&script, &len);
    int curves = 0, positive = 1;
    const char *metric = np ? r[pick[0]].s->metric : "";
    for (size_t i = 0; sc && i < np && curves < PLOT_CURVES; i++) {
        const result *ri = &r[pick[i]];
        double others[PLOT_CURVES];
        size_t nother = 0;
        for (size_t k = 0; k < ri->s->npts && nother < PLOT_CURVES; k++) {
            double v = o->by == MC_VAR_PN ? ri->s->pts[k].n : NAN;
            size_t j = 0;
            while (j < nother && !(others[j] == v || (isnan(v) && isnan(others[j]))))
                j++;
            if (j == nother)
                others[nother++] = v;
        }
        for (size_t k = 0; k < nother && curves < PLOT_CURVES; k++) {
            char formula[512], title[800];
            series_formula(o, &ri->fit, ri->with_setup, &ri->setup, formula, sizeof formula);
            if (ri->with_setup) {
                size_t fl = strlen(formula);
                snprintf(formula + fl, sizeof formula - fl, " at iters=%g", plot_iters(o, ri));
            }
            if (curves)
                fputs("\n\n", d);
            positive &= plot_curve_data(d, o, ri, others[k]);
            if (o->by == MC_VAR_PN)
                snprintf(title, sizeof title, "%s (n=%g): %s", ri->s->function, others[k], formula);
            else if (!isnan(ri->s->fixed))
                snprintf(title, sizeof title, "%s (%s=%g): %s", ri->s->function,
                         o->by == MC_VAR_P ? "n" : "p", ri->s->fixed, formula);
            else
                snprintf(title, sizeof title, "%s: %s", ri->s->function, formula);
            plot_curve_cmd(sc, curves, title, curves == 0);
            curves++;
        }
    }
    int rc = CLI_OK;
    if (fclose(d) != 0 || !sc) {
        mc_error_set(&err, MC_ERR_IO, "%s: cannot write the plot's data file", o->plot);
        rc = cli_fail(&err);
        if (sc)
            fclose(sc);
    } else {
        fputc('\n', sc);
        fclose(sc);
        /* the header goes first: the plot command was built above */
        char *full = NULL;
        size_t flen = 0;
        FILE *f = open_memstream(&full, &flen);
        if (f) {
            fprintf(f, "set logscale x 2\n%sset xlabel '%s'\nset ylabel ", positive ? "set logscale y\n" : "",
                    o->by == MC_VAR_N ? "problem size n" : "processes p");
            char ylabel[300];
            snprintf(ylabel, sizeof ylabel, "%s per process", metric);
            mc_gnuplot_quoted(f, ylabel);
            fputs("\nset title 'Models per function: measured (dots), model (line), prediction "
                  "(star), held-out measurement (circle)' font ',9'\n"
                  "set key outside right top Left reverse font ',8' samplen 2\nplot ", f);
            fputs(curves ? script : "NaN notitle\n", f);
            fclose(f);
        }
        if (!full) {
            mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
            rc = cli_fail(&err);
        } else if (mc_gnuplot(full, data, o->plot, &err) != MC_OK) {
            rc = cli_fail(&err);
        }
        free(full);
    }
    free(script);
    unlink(data);
    return rc;
}

/* ---------------------------------------------------------------- Extra-P out */

/* --extrap-out FILE: the series of the fitted models as Extra-P text; a
 * series Extra-P's one POINTS list cannot hold is named in a warning. */
static int write_extrap(const model_opts *o, const result *r, size_t n, int json)
{
    mc_error err = {0};
    const mc_series **s = malloc((n ? n : 1) * sizeof *s);
    mc_out out;
    FILE *f = s ? cli_output_open(&out, o->extrap_out, &err) : NULL;
    if (!s)
        mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
    if (!f) {
        free(s);
        return cli_fail(&err);
    }
    for (size_t i = 0; i < n; i++)
        s[i] = r[i].s;
    const char *skipped = NULL;
    size_t left = mc_series_write_extrap(f, s, n, &skipped);
    free(s);
    mc_err rc = MC_OK;
    if (left == (size_t)-1)
        rc = mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
    else if (left && !json)
        fprintf(stderr, "mpicast: warning: %s: %zu series (first: %s) not written: Extra-P "
                "needs a value at every point of the file\n", o->extrap_out, left, skipped);
    if (rc == MC_OK && ferror(f))
        rc = mc_error_set(&err, MC_ERR_IO, "%s: write error", o->extrap_out);
    if (cli_output_finish(&out, f, rc, &err) != MC_OK)
        return cli_fail(&err);
    return CLI_OK;
}

/* --extrap-json FILE: Extra-P's JSON input of the fitted series, and under
 * "mpicast" the models chosen (as --json gives them), for comparison. */
static int write_extrap_json(const model_opts *o, const result *r, size_t n)
{
    mc_error err = {0};
    const mc_series **s = malloc((n ? n : 1) * sizeof *s);
    json_t *doc = NULL, *models = json_array();
    for (size_t i = 0; s && i < n; i++)
        s[i] = r[i].s;
    if (s && models)
        doc = mc_series_extrap_json(s, n);
    free(s);
    for (size_t i = 0; doc && i < n; i++)
        json_array_append_new(models, result_json(o, &r[i]));
    if (doc)
        json_object_set_new(doc, "mpicast", json_pack("{s:s,s:o}", "by", mc_model_var_name(o->by),
                                                      "models", models));
    else
        json_decref(models);
    if (!doc) {
        mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
        return cli_fail(&err);
    }
    mc_out out;
    FILE *f = cli_output_open(&out, o->extrap_json, &err);
    if (!f) {
        json_decref(doc);
        return cli_fail(&err);
    }
    mc_err rc = MC_OK;
    if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', f) == EOF)
        rc = mc_error_set(&err, MC_ERR_IO, "%s: write error", o->extrap_json);
    json_decref(doc);
    if (cli_output_finish(&out, f, rc, &err) != MC_OK)
        return cli_fail(&err);
    return CLI_OK;
}

/* ---------------------------------------------------------------- main */

/* The grid-split family applies (--by p) when every run traced the same
 * kind of Cartesian grid as MPI_Dims_create makes; asked for by
 * --families where it cannot apply, a warning says why. */
static void grid_family(run_state *st, const mc_mdata *d)
{
    const model_opts *o = st->o;
    char why[600];
    int nd = mc_mdata_grid(d, why, sizeof why);
    if (o->by != MC_VAR_P)
        snprintf(why, sizeof why, "it is a law in p alone (--by p)");
    st->so.fit.grid_dims = o->by == MC_VAR_P ? nd : 0;
    if (!st->so.fit.grid_dims && o->fit.have_families && o->fit.families[MC_FAMILY_GRID]) {
        json_t *w = json_sprintf("--families grid-split not applied: %s", why);
        if (!o->json)
            fprintf(stderr, "mpicast: warning: %s\n", json_string_value(w));
        json_array_append_new(st->warnings, w);
    }
}

static int run_model(const model_opts *o, mc_mdata *d)
{
    mc_error err = {0};
    mc_series *ser = NULL;
    size_t nser = 0;
    const char *metric = o->metric ? o->metric : "calls";
    if (mc_mdata_series(d, o->by, metric, &ser, &nser, &err))
        return cli_fail(&err);
    if (nser == 0 && !o->metric) { /* no call counts (Extra-P, CSV): every metric */
        mc_series_free(ser, 0);
        if (mc_mdata_series(d, o->by, NULL, &ser, &nser, &err))
            return cli_fail(&err);
    }
    if (nser == 0) {
        mc_series_free(ser, nser);
        mc_error_set(&err, MC_ERR_FORMAT, "%s: no measurements of metric '%s'", o->files[0], metric);
        return cli_fail(&err);
    }
    run_state st = {o, json_array(), json_array(), series_opts(o)};
    grid_family(&st, d);
    result *res = calloc(nser, sizeof *res);
    /* --per-iteration: each series also divided by its runs' iterations */
    mc_series *iser = o->per_iteration ? calloc(nser, sizeof *iser) : NULL;
    size_t nres = 0;
    int rc = CLI_OK;
    const char *first_where = ser[0].where;
    if (o->per_iteration && !iser)
        free(res), res = NULL;
    for (size_t i = 0; res && i < nser; i++) {
        if (!series_wanted(o, &ser[i]))
            continue;
        if (iser && mc_series_per_iteration(&ser[i], &iser[i], &err)) {
            rc = cli_fail(&err);
            break;
        }
        int f = mc_series_model_fit(&st.so, d, &ser[i], iser ? &iser[i] : NULL, st.skipped,
                                    &res[nres], &err);
        if (f == 1)
            publish_warnings(&st, &res[nres]);
        if (f < 0) {
            rc = cli_fail(&err);
            break;
        }
        if (f == 1)
            nres++;
        else
            json_decref(res[nres].warnings);
    }
    if (!res) {
        mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
        rc = cli_fail(&err);
    } else if (rc == CLI_OK && nres == 0) {
        if (json_array_size(st.skipped))
            mc_error_set(&err, MC_ERR_FORMAT, "%s", json_string_value(json_array_get(st.skipped, 0)));
        else
            mc_error_set(&err, MC_ERR_FORMAT, "%s: no series matches the selection", first_where);
        rc = cli_fail(&err);
    } else if (rc == CLI_OK) {
        for (size_t i = 0; !o->json && i < json_array_size(st.skipped); i++)
            fprintf(stderr, "mpicast: warning: skipped %s\n",
                    json_string_value(json_array_get(st.skipped, i)));
        cost c = compute_cost(o, d);
        if (o->json)
            rc = print_json(o, res, nres, &c, &st);
        else
            print_text(o, res, nres, &c);
        if (rc == CLI_OK && o->plot)
            rc = plot_models(o, res, nres);
        if (rc == CLI_OK && o->extrap_out)
            rc = write_extrap(o, res, nres, o->json);
        if (rc == CLI_OK && o->extrap_json)
            rc = write_extrap_json(o, res, nres);
    }
    for (size_t i = 0; res && i < nres; i++)
        json_decref(res[i].warnings);
    free(res);
    json_decref(st.warnings);
    json_decref(st.skipped);
    if (iser)
        mc_series_free(iser, nser);
    mc_series_free(ser, nser);
    return rc;
}

int cmd_model(int argc, char **argv)
{
    model_opts *o = malloc(sizeof *o);
    if (!o) {
        fputs("mpicast: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    int rc = parse_args(argc, argv, o);
    if (rc < 0 && o->extrap_out)
        if (cli_output_clear(o->extrap_out, o->files, (size_t)o->nfiles) != CLI_OK)
            rc = CLI_USAGE; /* the output would overwrite an input */
    if (rc < 0 && o->extrap_json)
        if (cli_output_clear(o->extrap_json, o->files, (size_t)o->nfiles) != CLI_OK)
            rc = CLI_USAGE;
    if (rc >= 0) {
        free(o);
        return rc;
    }
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    if (!d) {
        mc_error_set(&err, MC_ERR_NOMEM, "out of memory");
        rc = cli_fail(&err);
    } else if (load_inputs(o, d, &err) || (o->per_iteration && mc_mdata_per_iteration(d, &err))) {
        rc = cli_fail(&err);
    } else {
        rc = run_model(o, d);
    }
    mc_mdata_destroy(d);
    free(o);
    return rc;
}
