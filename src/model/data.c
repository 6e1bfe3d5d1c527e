/* Measurements for the models: storage, grouping into series, and the three
 * inputs (CSV, Extra-P text, `mpicast stats --json`). */
#define MPICAST_MODEL_INTERNAL
#include "mpicast/model.h"
#include "mpicast/outfile.h"
#include "model_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct obs {
    double p, n, value;
    int fn, metric; /* indexes into names */
    int where;      /* index into wheres */
} obs;

typedef struct run {
    double p, n, elapsed;
} run;

struct mc_mdata {
    obs *obs;
    size_t nobs, obs_cap;
    char **names;
    size_t nnames, names_cap;
    char **wheres;
    size_t nwheres, wheres_cap;
    run *runs;
    size_t nruns, runs_cap;
};

mc_mdata *mc_mdata_create(void)
{
    return calloc(1, sizeof(mc_mdata));
}

void mc_mdata_destroy(mc_mdata *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i]);
    for (size_t i = 0; i < d->nwheres; i++)
        free(d->wheres[i]);
    free(d->names);
    free(d->wheres);
    free(d->obs);
    free(d->runs);
    free(d);
}

/* Grows *arr (of elem-size items) so that one more fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* Index of `s` in names, adding it. -1 when out of memory. */
static int intern(mc_mdata *d, const char *s)
{
    for (size_t i = 0; i < d->nnames; i++)
        if (strcmp(d->names[i], s) == 0)
            return (int)i;
    if (grow((void **)&d->names, &d->names_cap, d->nnames, sizeof *d->names))
        return -1;
    char *c = strdup(s);
    if (!c)
        return -1;
    d->names[d->nnames] = c;
    return (int)d->nnames++;
}

/* Same for the "file:line" places; the last one is reused (rows of one
 * file come in order, but each line differs, so no search). */
static int add_where(mc_mdata *d, const char *w)
{
    if (d->nwheres && strcmp(d->wheres[d->nwheres - 1], w) == 0)
        return (int)d->nwheres - 1;
    if (grow((void **)&d->wheres, &d->wheres_cap, d->nwheres, sizeof *d->wheres))
        return -1;
    char *c = strdup(w);
    if (!c)
        return -1;
    d->wheres[d->nwheres] = c;
    return (int)d->nwheres++;
}

mc_err mc_mdata_add(mc_mdata *d, double p, double n, const char *function, const char *metric,
                    double value, const char *where, mc_error *err)
{
    int fn = intern(d, function), me = intern(d, metric), wh = add_where(d, where ? where : "?");
    if (fn < 0 || me < 0 || wh < 0 || grow((void **)&d->obs, &d->obs_cap, d->nobs, sizeof *d->obs))
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", where ? where : "model");
    d->obs[d->nobs++] = (obs){p, n, value, fn, me, wh};
    return MC_OK;
}

mc_err mc_mdata_add_run(mc_mdata *d, double p, double n, double elapsed, mc_error *err)
{
    if (grow((void **)&d->runs, &d->runs_cap, d->nruns, sizeof *d->runs))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    d->runs[d->nruns++] = (run){p, n, elapsed};
    return MC_OK;
}

/* ------------------------------------------------------------ small parsers */

/* NAN-aware equality: two unknown coordinates are the same. */
static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* A whole string as a finite number. */
static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* ERANGE on underflow (1e-320) still gives a usable number */
    if (end == s || *end || (errno && fabs(v) >= 1) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int mc_parse_size(const char *text, double *out)
{
    static const struct {
        char c;
        double v;
    } classes[] = {{'S', 1.0 / 16}, {'W', 0.25}, {'A', 1}, {'B', 4},
                   {'C', 16},       {'D', 256},  {'E', 4096}};
    if (text[0] && !text[1])
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (toupper((unsigned char)text[0]) == classes[i].c) {
                *out = classes[i].v;
                return 0;
            }
    double v;
    if (parse_number(text, &v) || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

mc_err mc_parse_label(const char *text, mc_run_label *out, mc_error *err)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return mc_error_set(err, MC_ERR_USAGE, "label too long: '%.40s...'", text);
    strcpy(buf, text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq - tok != 1 || (tok[0] != 'p' && tok[0] != 'n'))
            return mc_error_set(err, MC_ERR_USAGE,
                                "bad label '%s': expected p=NUMBER and/or n=SIZE", tok);
        double v;
        if (tok[0] == 'p') {
            if (parse_number(eq + 1, &v) || !(v > 0))
                return mc_error_set(err, MC_ERR_USAGE, "bad label '%s': p must be > 0", tok);
            out->have_p = 1, out->p = v;
        } else {
            if (mc_parse_size(eq + 1, &v))
                return mc_error_set(err, MC_ERR_USAGE,
                                    "bad label '%s': n must be > 0 or a class S,W,A..E", tok);
            out->have_n = 1, out->n = v;
        }
    }
    return MC_OK;
}

/* ------------------------------------------------------------ CSV */

/* Splits a CSV line in place (commas; double quotes group; spaces around
 * fields trimmed). Returns the field count, at most max. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        char *start = s, *w = s;
        if (*s == '"') {
            s++;
            start = w = s;
            while (*s && !(*s == '"' && s[1] != '"')) {
                if (*s == '"')
                    s++;
                *w++ = *s++;
            }
            if (*s == '"')
                s++;
            while (*s && *s != ',')
                s++;
        } else {
            while (*s && *s != ',')
                s++;
            w = s;
            while (w > start && (w[-1] == ' ' || w[-1] == '\t'))
                w--;
        }
        char sep = *s;
        *w = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (sep != ',')
            break;
        s++;
    }
    return n < max ? n : max;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int blank_or_comment(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#';
}

enum { MAX_FIELDS = 64 };

/* Reads a header line naming `want` columns; fills col[] with their indexes.
 * Returns MC_OK or an error "path:line: missing column 'x'". */
static mc_err csv_header(char *line, const char *path, long lineno, const char *const *want,
                         int nwant, int *col, mc_error *err)
{
    char *f[MAX_FIELDS];
    int nf = split_csv(line, f, MAX_FIELDS);
    for (int w = 0; w < nwant; w++) {
        col[w] = -1;
        for (int i = 0; i < nf; i++)
            if (strcasecmp(f[i], want[w]) == 0)
                col[w] = i;
        if (col[w] < 0)
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: missing column '%s' in the header",
                                path, lineno, want[w]);
    }
    return MC_OK;
}

/* A CSV line's field `i`, or an error naming the column. */
static mc_err csv_field(char **f, int nf, int i, const char *name, const char *path,
                        long lineno, const char **out, mc_error *err)
{
    if (i >= nf)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: missing value for column '%s'", path,
                            lineno, name);
    *out = f[i];
    return MC_OK;
}

mc_err mc_mdata_read_csv(mc_mdata *d, const char *path, mc_error *err)
{
    static const char *const want[] = {"p", "n", "function", "metric", "value"};
    FILE *fp = mc_in_fopen(path, err); /* a FIFO or device is refused */
    if (!fp)
        return err && err->code ? err->code : MC_ERR_IO;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int col[5], have_header = 0;
    mc_err rc = MC_OK;
    while (rc == MC_OK && getline(&line, &cap, fp) >= 0) {
        lineno++;
        chomp(line);
        if (blank_or_comment(line))
            continue;
        if (!have_header) {
            rc = csv_header(line, path, lineno, want, 5, col, err);
            have_header = 1;
            continue;
        }
        char *f[MAX_FIELDS];
        int nf = split_csv(line, f, MAX_FIELDS);
        const char *v[5];
        for (int k = 0; k < 5 && rc == MC_OK; k++)
            rc = csv_field(f, nf, col[k], want[k], path, lineno, &v[k], err);
        if (rc)
            break;
        double p = NAN, n = NAN, value;
        if (v[0][0] && (parse_number(v[0], &p) || !(p > 0)))
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: p '%s' is not a positive number",
                              path, lineno, v[0]);
        else if (v[1][0] && mc_parse_size(v[1], &n))
            rc = mc_error_set(err, MC_ERR_FORMAT,
                              "%s:%ld: n '%s' is neither a positive number nor a class S,W,A..E",
                              path, lineno, v[1]);
        else if (parse_number(v[4], &value))
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: value '%s' is not a number", path,
                              lineno, v[4]);
        else if (!v[3][0])
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: empty metric", path, lineno);
        else if (strcmp(v[3], "elapsed") == 0)
            rc = mc_mdata_add_run(d, p, n, value, err);
        else if (!v[2][0])
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: empty function", path, lineno);
        else {
            char where[512];
            snprintf(where, sizeof where, "%s:%ld", path, lineno);
            rc = mc_mdata_add(d, p, n, v[2], v[3], value, where, err);
        }
    }
    if (rc == MC_OK && ferror(fp))
        rc = mc_error_set(err, MC_ERR_IO, "%s: read error", path);
    if (rc == MC_OK && !have_header)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: no header line (p,n,function,metric,value)%s",
                          path, lineno == 0 ? ": the file is empty" : "");
    free(line);
    fclose(fp);
    return rc;
}

/* ------------------------------------------------------------ Extra-P text */

enum { XP_MAX_PARAMS = 4 };

typedef struct xp_state {
    const char *path;
    mc_model_var by;
    int nparams;
    char pname[XP_MAX_PARAMS][64];
    int role[XP_MAX_PARAMS]; /* 0: p, 1: n, -1 ignored */
    double *coords;          /* npoints × nparams */
    size_t npoints, cap;
    char metric[256], region[256];
    size_t next; /* next point for a DATA line */
} xp_state;

static int role_of(const char *name)
{
    static const char *const p_names[] = {"p", "procs", "processes", "ranks", "np"};
    static const char *const n_names[] = {"n", "size", "problem", "problem_size"};
    for (size_t i = 0; i < sizeof p_names / sizeof *p_names; i++)
        if (strcasecmp(name, p_names[i]) == 0)
            return 0;
    for (size_t i = 0; i < sizeof n_names / sizeof *n_names; i++)
        if (strcasecmp(name, n_names[i]) == 0)
            return 1;
    return -1;
}

/* Decides which parameter is p and which n, once the first POINTS line
 * comes (all PARAMETER lines precede it). */
static mc_err xp_roles(xp_state *s, long lineno, mc_error *err)
{
    int named = 0;
    for (int i = 0; i < s->nparams; i++) {
        s->role[i] = role_of(s->pname[i]);
        named += s->role[i] >= 0;
    }
    if (named == s->nparams)
        return MC_OK;
    if (s->nparams == 1)
        s->role[0] = s->by == MC_VAR_N ? 1 : 0;
    else if (s->nparams == 2 && named == 0)
        s->role[0] = 0, s->role[1] = 1;
    else if (s->nparams == 2) /* one named: the other takes the other role */
        s->role[s->role[0] >= 0 ? 1 : 0] = 1 - s->role[s->role[0] >= 0 ? 0 : 1];
    else
        return mc_error_set(err, MC_ERR_FORMAT,
                            "%s:%ld: %d parameters; name them p and n (others are not modelled)",
                            s->path, lineno, s->nparams);
    return MC_OK;
}

/* One POINTS line: "( 20 1 ) ( 30 2 )" or, for one parameter, "4 8 16". */
static mc_err xp_points(xp_state *s, char *v, long lineno, mc_error *err)
{
    if (s->nparams == 0)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: POINTS before any PARAMETER", s->path,
                            lineno);
    if (s->npoints == 0) {
        mc_err rc = xp_roles(s, lineno, err);
        if (rc)
            return rc;
    }
    for (char *c = v; *c; c++)
        if (*c == '(' || *c == ')')
            *c = ' ';
    char *save = NULL;
    int k = 0;
    double pt[XP_MAX_PARAMS];
    for (char *tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (parse_number(tok, &pt[k]) || !(pt[k] > 0))
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: coordinate '%s' is not a positive number",
                                s->path, lineno, tok);
        if (++k == s->nparams) {
            size_t need = (s->npoints + 1) * (size_t)s->nparams;
            if (need > s->cap) {
                size_t nc = need * 2;
                double *c = realloc(s->coords, nc * sizeof *c);
                if (!c)
                    return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                s->coords = c;
                s->cap = nc;
            }
            memcpy(s->coords + s->npoints * s->nparams, pt, sizeof(double) * s->nparams);
            s->npoints++;
            k = 0;
        }
    }
    if (k != 0)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: a point needs %d coordinates", s->path,
                            lineno, s->nparams);
    return MC_OK;
}

static mc_err xp_data(mc_mdata *d, xp_state *s, char *v, long lineno, mc_error *err)
{
    if (s->npoints == 0)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: DATA before any POINTS", s->path, lineno);
    if (s->next >= s->npoints)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: more DATA lines than the %zu POINTS",
                            s->path, lineno, s->npoints);
    const double *pt = s->coords + s->next * s->nparams;
    double p = NAN, n = NAN;
    for (int i = 0; i < s->nparams; i++) {
        if (s->role[i] == 0)
            p = pt[i];
        else if (s->role[i] == 1)
            n = pt[i];
    }
    char where[512];
    snprintf(where, sizeof where, "%s:%ld", s->path, lineno);
    char *save = NULL;
    int any = 0;
    for (char *tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        double x;
        if (parse_number(tok, &x))
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: value '%s' is not a number", s->path,
                                lineno, tok);
        mc_err rc = mc_mdata_add(d, p, n, s->region[0] ? s->region : "(region)",
                                 s->metric[0] ? s->metric : "time", x, where, err);
        if (rc)
            return rc;
        any = 1;
    }
    if (!any)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: DATA without values", s->path, lineno);
    s->next++;
    return MC_OK;
}

static mc_err xp_line(mc_mdata *d, xp_state *s, char *line, long lineno, mc_error *err)
{
    char *key = line;
    while (isspace((unsigned char)*key))
        key++;
    char *v = key;
    while (*v && !isspace((unsigned char)*v))
        v++;
    if (*v)
        *v++ = '\0';
    while (isspace((unsigned char)*v))
        v++;
    size_t vl = strlen(v);
    while (vl && isspace((unsigned char)v[vl - 1]))
        v[--vl] = '\0';
    if (strcmp(key, "PARAMETER") == 0) {
        if (s->npoints)
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: PARAMETER after POINTS", s->path, lineno);
        char *save = NULL;
        for (char *t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
            if (s->nparams == XP_MAX_PARAMS)
                return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: more than %d parameters",
                                    s->path, lineno, XP_MAX_PARAMS);
            snprintf(s->pname[s->nparams++], sizeof s->pname[0], "%s", t);
        }
        return MC_OK;
    }
    if (strcmp(key, "POINTS") == 0)
        return xp_points(s, v, lineno, err);
    if (strcmp(key, "METRIC") == 0 || strcmp(key, "REGION") == 0) {
        if (!*v)
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: %s without a name", s->path, lineno, key);
        snprintf(key[0] == 'M' ? s->metric : s->region, sizeof s->metric, "%s", v);
        s->next = 0; /* DATA lines restart at the first point */
        return MC_OK;
    }
    if (strcmp(key, "DATA") == 0)
        return xp_data(d, s, v, lineno, err);
    return mc_error_set(err, MC_ERR_FORMAT,
                        "%s:%ld: unknown field '%.40s' (PARAMETER, POINTS, METRIC, REGION, DATA)",
                        s->path, lineno, key);
}

mc_err mc_mdata_read_extrap(mc_mdata *d, const char *path, mc_model_var by, mc_error *err)
{
    FILE *fp = mc_in_fopen(path, err);
    if (!fp)
        return err && err->code ? err->code : MC_ERR_IO;
    xp_state s;
    memset(&s, 0, sizeof s);
    s.path = path;
    s.by = by;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    mc_err rc = MC_OK;
    size_t before = d->nobs;
    while (rc == MC_OK && getline(&line, &cap, fp) >= 0) {
        lineno++;
        chomp(line);
        if (!blank_or_comment(line))
            rc = xp_line(d, &s, line, lineno, err);
    }
    if (rc == MC_OK && d->nobs == before)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: no DATA lines", path);
    free(line);
    free(s.coords);
    fclose(fp);
    return rc;
}

/* ------------------------------------------------------------ stats --json */

/* A JSON number or a class string (for n). */
static int json_size(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return *out > 0 ? 0 : -1;
    }
    return json_is_string(v) ? mc_parse_size(json_string_value(v), out) : -1;
}

mc_err mc_mdata_read_stats(mc_mdata *d, const char *path, const mc_run_label *label,
                           mc_error *err)
{
    json_error_t je;
    FILE *fp = mc_in_fopen(path, err);
    if (!fp)
        return err && err->code ? err->code : MC_ERR_IO;
    json_t *doc = json_loadf(fp, 0, &je);
    fclose(fp);
    if (!doc)
        return mc_error_set(err, MC_ERR_FORMAT, "%s:%d: %s", path, je.line, je.text);
    mc_err rc = MC_OK;
    json_t *ranks = json_object_get(doc, "ranks"), *fns = json_object_get(doc, "functions");
    double nranks = json_is_integer(ranks) ? (double)json_integer_value(ranks) : NAN;
    double p = nranks, n = NAN;
    json_t *jp = json_object_get(doc, "p"), *jn = json_object_get(doc, "n");
    if (jp && json_size(jp, &p))
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: \"p\" must be a positive number", path);
    if (jn && json_size(jn, &n))
        rc = mc_error_set(err, MC_ERR_FORMAT,
                          "%s: \"n\" must be a positive number or a class S,W,A..E", path);
    if (label && label->have_p)
        p = label->p;
    if (label && label->have_n)
        n = label->n;
    if (rc == MC_OK && !(nranks >= 1))
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: \"ranks\" missing or not a positive integer "
                          "(is this `mpicast stats --json` output?)", path);
    if (rc == MC_OK && !json_is_object(fns))
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: \"functions\" missing or not an object", path);
    const char *name;
    json_t *fo;
    char where[512];
    snprintf(where, sizeof where, "%s", path);
    if (rc == MC_OK)
        json_object_foreach(fns, name, fo) {
            static const char *const metrics[] = {"calls", "bytes", "time"};
            for (int m = 0; m < 3 && rc == MC_OK; m++) {
                json_t *v = json_object_get(fo, metrics[m]);
                if (!v)
                    continue;
                if (!json_is_number(v)) {
                    rc = mc_error_set(err, MC_ERR_FORMAT, "%s: functions.%s.%s is not a number",
                                      path, name, metrics[m]);
                    break;
                }
                rc = mc_mdata_add(d, p, n, name, metrics[m], json_number_value(v) / nranks,
                                  where, err);
            }
            if (rc)
                break;
        }
    json_t *app = json_object_get(doc, "app_time");
    if (rc == MC_OK && json_is_number(app))
        rc = mc_mdata_add_run(d, p, n, json_number_value(app), err);
    json_decref(doc);
    return rc;
}

/* ------------------------------------------------------------ series */

static int point_cmp(const void *a, const void *b)
{
    const mc_point *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* Adds obs value v at (p, n) to the series, merging repeats (Welford). */
static int series_add(mc_series *s, size_t *cap, double p, double n, double v)
{
    for (size_t i = 0; i < s->npts; i++) {
        mc_point *q = &s->pts[i];
        if (same(q->p, p) && same(q->n, n)) {
            q->repeats++;
            double delta = v - q->value;
            q->value += delta / q->repeats;
            q->sd += delta * (v - q->value); /* M2 until finalised */
            q->min = fmin(q->min, v);
            q->max = fmax(q->max, v);
            return 0;
        }
    }
    if (grow((void **)&s->pts, cap, s->npts, sizeof *s->pts))
        return -1;
    s->pts[s->npts++] = (mc_point){p, n, v, 0, v, v, 1};
    return 0;
}

static int want_obs(const mc_mdata *d, const obs *o, const char *metric)
{
    const char *m = d->names[o->metric];
    return metric ? strcmp(m, metric) == 0 : strcmp(m, "elapsed") != 0;
}

/* Groups (p, n, key, value) tuples into series; the key is (fn, metric,
 * fixed coordinate). `get` yields tuple i. */
typedef struct tuple {
    double p, n, value;
    int fn, metric, where;
} tuple;

static mc_err group(const mc_mdata *d, const tuple *t, size_t nt, mc_model_var by,
                    const char *fn_override, mc_series **out, size_t *count, mc_error *err)
{
    mc_series *ser = NULL;
    size_t nser = 0, cap = 0, *pcap = NULL;
    mc_err rc = MC_OK;
    for (size_t i = 0; i < nt && rc == MC_OK; i++) {
        double fixed = by == MC_VAR_P ? t[i].n : by == MC_VAR_N ? t[i].p : NAN;
        const char *fn = fn_override ? fn_override : d->names[t[i].fn];
        const char *me = fn_override ? "elapsed" : d->names[t[i].metric];
        size_t k;
        for (k = 0; k < nser; k++)
            if (ser[k].function == fn && ser[k].metric == me && same(ser[k].fixed, fixed))
                break;
        if (k == nser) {
            size_t old = cap;
            if (grow((void **)&ser, &cap, nser, sizeof *ser)) {
                rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                break;
            }
            if (cap != old) {
                size_t *np = realloc(pcap, cap * sizeof *pcap);
                if (!np) {
                    rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                    break;
                }
                pcap = np;
            }
            memset(&ser[k], 0, sizeof ser[k]);
            ser[k].function = fn, ser[k].metric = me, ser[k].fixed = fixed;
            snprintf(ser[k].where, sizeof ser[k].where, "%s",
                     t[i].where >= 0 ? d->wheres[t[i].where] : "runs");
            pcap[k] = 0;
            nser++;
        }
        if (series_add(&ser[k], &pcap[k], t[i].p, t[i].n, t[i].value))
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    free(pcap);
    if (rc) {
        mc_series_free(ser, nser);
        return rc;
    }
    for (size_t k = 0; k < nser; k++) {
        for (size_t i = 0; i < ser[k].npts; i++) {
            mc_point *q = &ser[k].pts[i];
            q->sd = q->repeats > 1 ? sqrt(q->sd / (q->repeats - 1)) : 0;
        }
        qsort(ser[k].pts, ser[k].npts, sizeof *ser[k].pts, point_cmp);
    }
    *out = ser;
    *count = nser;
    return MC_OK;
}

/* The coordinate(s) `by` needs must be known for every tuple. */
static mc_err check_coords(const mc_mdata *d, const tuple *t, size_t nt, mc_model_var by,
                           mc_error *err)
{
    for (size_t i = 0; i < nt; i++) {
        const char *w = t[i].where >= 0 ? d->wheres[t[i].where] : "runs";
        if (by != MC_VAR_N && isnan(t[i].p))
            return mc_error_set(err, MC_ERR_FORMAT, "%s: no process count p for this measurement", w);
        if (by != MC_VAR_P && isnan(t[i].n))
            return mc_error_set(err, MC_ERR_FORMAT,
                                "%s: no problem size n for this measurement (label the run: "
                                "--label n=SIZE or FILE:n=SIZE)", w);
    }
    return MC_OK;
}

mc_err mc_mdata_series(const mc_mdata *d, mc_model_var by, const char *metric,
                       mc_series **out, size_t *count, mc_error *err)
{
    tuple *t = malloc((d->nobs ? d->nobs : 1) * sizeof *t);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    size_t nt = 0;
    for (size_t i = 0; i < d->nobs; i++)
        if (want_obs(d, &d->obs[i], metric))
            t[nt++] = (tuple){d->obs[i].p, d->obs[i].n, d->obs[i].value, d->obs[i].fn,
                              d->obs[i].metric, d->obs[i].where};
    mc_err rc = check_coords(d, t, nt, by, err);
    if (rc == MC_OK)
        rc = group(d, t, nt, by, NULL, out, count, err);
    free(t);
    return rc;
}

mc_err mc_mdata_run_series(const mc_mdata *d, mc_model_var by, mc_series **out, size_t *count,
                           mc_error *err)
{
    tuple *t = malloc((d->nruns ? d->nruns : 1) * sizeof *t);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    size_t nt = 0;
    for (size_t i = 0; i < d->nruns; i++)
        if (!(by != MC_VAR_N && isnan(d->runs[i].p)) && !(by != MC_VAR_P && isnan(d->runs[i].n)))
            t[nt++] = (tuple){d->runs[i].p, d->runs[i].n, d->runs[i].elapsed, -1, -1, -1};
    mc_err rc = group(d, t, nt, by, "(run)", out, count, err);
    free(t);
    return rc;
}

void mc_series_free(mc_series *s, size_t count)
{
    if (!s)
        return;
    for (size_t i = 0; i < count; i++)
        free(s[i].pts);
    free(s);
}

double mc_mdata_cost(const mc_mdata *d, double skip_p, double skip_n, size_t *nruns)
{
    double c = 0;
    size_t k = 0;
    for (size_t i = 0; i < d->nruns; i++) {
        const run *r = &d->runs[i];
        if (r->p == skip_p && (isnan(skip_n) || r->n == skip_n))
            continue;
        if (isnan(r->p) || isnan(r->elapsed))
            continue;
        c += r->p * r->elapsed;
        k++;
    }
    if (nruns)
        *nruns = k;
    return c;
}

double mc_mdata_run_elapsed(const mc_mdata *d, double p, double n)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < d->nruns; i++)
        if (d->runs[i].p == p && (isnan(n) || d->runs[i].n == n))
            s += d->runs[i].elapsed, k++;
    return k ? s / (double)k : NAN;
}
