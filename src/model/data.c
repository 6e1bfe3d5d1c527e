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
    double iters;   /* NAN: unknown */
    int fn, metric; /* indexes into names */
    int where;      /* index into wheres */
    int run;        /* stats file it came from (index into sruns), -1: other */
    int has_loop;   /* stats: `loop` is known */
    double loop;    /* the part of value inside the main loop (all iterations) */
} obs;

/* A stats file: a run whose function list is complete (absent = 0 calls). */
typedef struct srun {
    double p, n, iters;
    int where;
    int ranks;             /* stats: the trace's ranks (0: not a stats file) */
    int grid_nd, grid_split; /* its process grid's dimensions, and those split
                              * over more than one process (0: no grid) */
    int loop_ok;           /* iters are its main loop's, whose calls stats counted */
} srun;

typedef struct run {
    double p, n, elapsed;
} run;

/* A polling function's failed polls in one stats run: their share of its
 * calls (docs/json.md, polls). */
typedef struct pshare {
    int fn, where;
    double share;
} pshare;

struct mc_mdata {
    pshare *polls;
    size_t npolls, polls_cap;
    obs *obs;
    size_t nobs, obs_cap;
    char **names;
    size_t nnames, names_cap;
    char **wheres;
    size_t nwheres, wheres_cap;
    run *runs;
    size_t nruns, runs_cap;
    srun *sruns;
    size_t nsruns, sruns_cap;
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
    free(d->sruns);
    free(d->polls);
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

static mc_err add_obs(mc_mdata *d, double p, double n, double iters, int run,
                      const char *function, const char *metric, double value, const char *where,
                      mc_error *err)
{
    int fn = intern(d, function), me = intern(d, metric), wh = add_where(d, where ? where : "?");
    if (fn < 0 || me < 0 || wh < 0 || grow((void **)&d->obs, &d->obs_cap, d->nobs, sizeof *d->obs))
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", where ? where : "model");
    d->obs[d->nobs++] = (obs){p, n, value, iters, fn, me, wh, run, 0, NAN};
    return MC_OK;
}

mc_err mcm_mdata_add_obs(mc_mdata *d, double p, double n, double iters, int run,
                        const char *function, const char *metric, double value,
                        const char *where, mc_error *err)
{
    return add_obs(d, p, n, iters, run, function, metric, value, where, err);
}

int mcm_mdata_add_srun(mc_mdata *d, double p, double n, double iters, const char *where)
{
    int wh = add_where(d, where);
    if (wh < 0 || grow((void **)&d->sruns, &d->sruns_cap, d->nsruns, sizeof *d->sruns))
        return -1;
    d->sruns[d->nsruns] = (srun){p, n, iters, wh, 0, 0, 0, 0};
    return (int)d->nsruns++;
}

mc_err mc_mdata_add(mc_mdata *d, double p, double n, const char *function, const char *metric,
                    double value, const char *where, mc_error *err)
{
    return add_obs(d, p, n, NAN, -1, function, metric, value, where, err);
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
        double v;
        if (eq && eq - tok == 5 && strncmp(tok, "iters", 5) == 0) {
            if (parse_number(eq + 1, &v) || !(v > 0))
                return mc_error_set(err, MC_ERR_USAGE, "bad label '%s': iters must be > 0", tok);
            out->have_iters = 1, out->iters = v;
            continue;
        }
        if (!eq || eq - tok != 1 || (tok[0] != 'p' && tok[0] != 'n'))
            return mc_error_set(err, MC_ERR_USAGE,
                                "bad label '%s': expected p=NUMBER, n=SIZE and/or iters=K", tok);
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

/* "process_grid": {"dims": [...], ...} or null/absent (no grid): its
 * dimensions and how many have more than one process. */
static mc_err read_grid(json_t *g, const char *path, int *nd, int *split, mc_error *err)
{
    *nd = *split = 0;
    if (!g || json_is_null(g))
        return MC_OK;
    json_t *dims = json_object_get(g, "dims");
    size_t n = json_array_size(dims);
    if (!json_is_array(dims) || n < 1 || n > 64)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: process_grid.dims must be an array of 1 "
                            "to 64 process counts", path);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(dims, i);
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return mc_error_set(err, MC_ERR_FORMAT, "%s: process_grid.dims[%zu] is not a "
                                "positive integer", path, i);
        *split += json_integer_value(v) > 1;
    }
    *nd = (int)n;
    return MC_OK;
}

int mc_mdata_grid(const mc_mdata *d, char *why, size_t len)
{
    int nd = 0;
    if (len)
        why[0] = '\0';
    for (size_t i = 0; i < d->nsruns; i++) {
        const srun *r = &d->sruns[i];
        const char *w = d->wheres[r->where];
        if (!r->ranks || !r->grid_nd) {
            snprintf(why, len, "%s: no process grid (MPI_Cart_create of MPI_COMM_WORLD)", w);
            return 0;
        }
        if (nd && r->grid_nd != nd) {
            snprintf(why, len, "%s: a grid of %d dimensions, another run's has %d", w,
                     r->grid_nd, nd);
            return 0;
        }
        nd = r->grid_nd;
        int want = mc_grid_split(r->ranks, nd);
        if (r->grid_split != want) {
            snprintf(why, len, "%s: its %d-dimensional grid of %d processes splits %d "
                     "dimension%s, MPI_Dims_create's would split %d", w, nd, r->ranks,
                     r->grid_split, r->grid_split == 1 ? "" : "s", want);
            return 0;
        }
        if (r->p != r->ranks) {
            snprintf(why, len, "%s: p = %g is not its %d ranks", w, r->p, r->ranks);
            return 0;
        }
    }
    for (size_t i = 0; nd && i < d->nobs; i++)
        if (d->obs[i].run < 0) {
            snprintf(why, len, "%s: not a `stats --json` run: no process grid",
                     d->wheres[d->obs[i].where]);
            return 0;
        }
    if (!nd)
        snprintf(why, len, "no stats inputs");
    return nd;
}

/* Records a polling function's share of failed polls in this run. */
static mc_err add_polls(mc_mdata *d, const char *function, json_t *fo, const char *where,
                        mc_error *err)
{
    json_t *jp = json_object_get(fo, "polls"), *jc = json_object_get(fo, "calls");
    if (!jp)
        return MC_OK;
    if (!json_is_number(jp) || json_number_value(jp) < 0)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: functions.%s.polls is not a count", where,
                            function);
    double calls = json_is_number(jc) ? json_number_value(jc) : 0;
    if (!(calls > 0))
        return MC_OK;
    int fn = intern(d, function), wh = add_where(d, where);
    if (fn < 0 || wh < 0 || grow((void **)&d->polls, &d->polls_cap, d->npolls, sizeof *d->polls))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    d->polls[d->npolls++] = (pshare){fn, wh, json_number_value(jp) / calls};
    return MC_OK;
}

double mc_mdata_poll_share(const mc_mdata *d, const char *function, const char **where)
{
    double best = 0;
    for (size_t i = 0; i < d->npolls; i++)
        if (strcmp(d->names[d->polls[i].fn], function) == 0 && d->polls[i].share > best) {
            best = d->polls[i].share;
            if (where)
                *where = d->wheres[d->polls[i].where];
        }
    return best;
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
    /* iterations: the label's, a top-level "iters", else the MPI_Pcontrol
     * marks (one opening and one closing per iteration), else the main loop */
    double iters = NAN;
    json_t *ji = json_object_get(doc, "iters");
    if (json_is_number(ji) && json_number_value(ji) > 0)
        iters = json_number_value(ji);
    json_t *pc = json_is_object(fns) ? json_object_get(json_object_get(fns, "MPI_Pcontrol"), "calls")
                                     : NULL;
    if (isnan(iters) && json_is_number(pc) && nranks >= 1 && json_number_value(pc) / nranks >= 2)
        iters = floor(json_number_value(pc) / nranks / 2);
    /* last, the main loop stats found (the same count on every rank) */
    json_t *ml = json_object_get(json_object_get(doc, "main_loop"), "iterations");
    if (isnan(iters) && json_is_integer(ml) && json_integer_value(ml) > 0)
        iters = (double)json_integer_value(ml);
    if (label && label->have_iters)
        iters = label->iters;
    int gnd = 0, gsplit = 0;
    if (rc == MC_OK)
        rc = read_grid(json_object_get(doc, "process_grid"), path, &gnd, &gsplit, err);
    int runid = (int)d->nsruns;
    if (rc == MC_OK) {
        int wh = add_where(d, where);
        if (wh < 0 || grow((void **)&d->sruns, &d->sruns_cap, d->nsruns, sizeof *d->sruns))
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        else
            d->sruns[d->nsruns++] = (srun){p, n, iters, wh, (int)nranks, gnd, gsplit,
                                           json_is_integer(ml) &&
                                               iters == (double)json_integer_value(ml)};
    }
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
                rc = add_obs(d, p, n, iters, runid, name, metrics[m],
                             json_number_value(v) / nranks, where, err);
                /* the part inside the main loop, when its iterations are the run's */
                json_t *lv = m < 2 ? json_object_get(fo, m ? "main_loop_bytes" : "main_loop_calls")
                                   : NULL;
                if (rc == MC_OK && d->sruns[runid].loop_ok && json_is_number(lv)) {
                    d->obs[d->nobs - 1].has_loop = 1;
                    d->obs[d->nobs - 1].loop = json_number_value(lv) / nranks;
                }
            }
            if (rc == MC_OK)
                rc = add_polls(d, name, fo, where, err);
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

/* NAN-aware order: unknown coordinates last, equal to each other. */
static int cmp_coord(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

static int want_obs(const mc_mdata *d, const obs *o, const char *metric)
{
    const char *m = d->names[o->metric];
    return metric ? strcmp(m, metric) == 0 : strcmp(m, "elapsed") != 0;
}

/* (p, n, iters, value) tuples keyed by (fn, metric, fixed coordinate);
 * idx is the input order (repeats are averaged in it, series listed in it). */
typedef struct tuple {
    double p, n, iters, value, fixed;
    int fn, metric, where;
    size_t idx;
    int filled;
    int has_loop;
    double loop;
} tuple;

static int tuple_cmp(const void *a, const void *b)
{
    const tuple *x = a, *y = b;
    int c;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if ((c = cmp_coord(x->fixed, y->fixed)) || (c = cmp_coord(x->p, y->p)) ||
        (c = cmp_coord(x->n, y->n)) || (c = cmp_coord(x->iters, y->iters)))
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int same_key(const tuple *x, const tuple *y)
{
    return x->fn == y->fn && x->metric == y->metric && same(x->fixed, y->fixed);
}

static int same_point(const tuple *x, const tuple *y)
{
    return same(x->p, y->p) && same(x->n, y->n) && same(x->iters, y->iters);
}

typedef struct ser_order {
    size_t first, k;
} ser_order;

static int order_cmp(const void *a, const void *b)
{
    const ser_order *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Groups the tuples into series by sorting: O(n log n) (issue 26). Points
 * are sorted by p, n, iters; repeats merged (Welford) in input order. */
static mc_err group(const mc_mdata *d, tuple *t, size_t nt, mc_model_var by,
                    const char *fn_override, mc_series **out, size_t *count, mc_error *err)
{
    for (size_t i = 0; i < nt; i++)
        t[i].fixed = by == MC_VAR_P ? t[i].n : by == MC_VAR_N ? t[i].p : NAN;
    qsort(t, nt, sizeof *t, tuple_cmp);
    size_t nser = 0;
    for (size_t i = 0; i < nt; i++)
        nser += i == 0 || !same_key(&t[i], &t[i - 1]);
    mc_series *ser = calloc(nser ? nser : 1, sizeof *ser);
    ser_order *ord = malloc((nser ? nser : 1) * sizeof *ord);
    mc_point *pts = NULL;
    if (!ser || !ord) {
        free(ser);
        free(ord);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < nt;) {
        size_t j = i, first = t[i].idx, npts = 0;
        for (; j < nt && same_key(&t[j], &t[i]); j++) {
            first = t[j].idx < first ? t[j].idx : first;
            npts += j == i || !same_point(&t[j], &t[j - 1]);
        }
        mc_series *s = &ser[k];
        s->function = fn_override ? fn_override : d->names[t[i].fn];
        s->metric = fn_override ? "elapsed" : d->names[t[i].metric];
        s->fixed = t[i].fixed;
        s->pts = pts = malloc(npts * sizeof *pts);
        if (!pts) {
            mc_series_free(ser, nser);
            free(ord);
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        }
        size_t wmin = i;
        for (size_t q = i; q < j; q++) {
            if (t[q].idx < t[wmin].idx)
                wmin = q;
            if (q == i || !same_point(&t[q], &t[q - 1])) {
                pts[s->npts++] = (mc_point){t[q].p, t[q].n, t[q].iters, t[q].filled,
                                            t[q].value, 0, t[q].value, t[q].value, 1,
                                            t[q].has_loop, t[q].has_loop ? t[q].loop : NAN};
                continue;
            }
            mc_point *p = &pts[s->npts - 1];
            p->filled &= t[q].filled;
            p->has_loop &= t[q].has_loop; /* the mean of the repeats' */
            p->loop = p->has_loop ? p->loop + (t[q].loop - p->loop) / (p->repeats + 1) : NAN;
            double v = t[q].value, delta = v - p->value;
            p->repeats++;
            p->value += delta / p->repeats;
            p->sd += delta * (v - p->value); /* M2 until finalised */
            p->min = fmin(p->min, v);
            p->max = fmax(p->max, v);
        }
        for (size_t q = 0; q < s->npts; q++)
            pts[q].sd = pts[q].repeats > 1 ? sqrt(pts[q].sd / (pts[q].repeats - 1)) : 0;
        snprintf(s->where, sizeof s->where, "%s",
                 t[wmin].where >= 0 ? d->wheres[t[wmin].where] : "runs");
        ord[k] = (ser_order){first, k};
        k++;
        i = j;
    }
    /* series in the order their first measurement came */
    qsort(ord, nser, sizeof *ord, order_cmp);
    mc_series *sorted = malloc((nser ? nser : 1) * sizeof *sorted);
    if (!sorted) {
        mc_series_free(ser, nser);
        free(ord);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    for (size_t q = 0; q < nser; q++)
        sorted[q] = ser[ord[q].k];
    free(ser);
    free(ord);
    *out = sorted;
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

/* Zero is a value (issue 27): a stats file lists every function its run
 * called, so a function that other stats files have and this one lacks was
 * called 0 times there, with 0 bytes. Times stay missing: a time of a
 * function never called is not 0 s of something measured. Appends the
 * zeros to t (room for nsruns × pairs more must be there). */
static size_t zero_fill(const mc_mdata *d, const char *metric, tuple *t, size_t nt)
{
    if (d->nsruns < 2)
        return nt;
    int mcalls = -1, mbytes = -1;
    for (size_t i = 0; i < d->nnames; i++) {
        if (strcmp(d->names[i], "calls") == 0)
            mcalls = (int)i;
        if (strcmp(d->names[i], "bytes") == 0)
            mbytes = (int)i;
    }
    size_t npairs = 2 * d->nnames;
    unsigned char *have = calloc(npairs * d->nsruns, 1), *any = calloc(npairs, 1);
    size_t out = nt;
    if (have && any) {
        for (size_t i = 0; i < d->nobs; i++) {
            const obs *o = &d->obs[i];
            if (o->run < 0 || (o->metric != mcalls && o->metric != mbytes))
                continue;
            size_t pair = 2 * (size_t)o->fn + (o->metric == mbytes);
            have[pair * d->nsruns + (size_t)o->run] = 1;
            any[pair] = 1;
        }
        for (size_t pair = 0; pair < npairs; pair++) {
            int me = pair % 2 ? mbytes : mcalls;
            if (!any[pair] || (metric && strcmp(metric, d->names[me]) != 0))
                continue;
            for (size_t r = 0; r < d->nsruns; r++)
                if (!have[pair * d->nsruns + r]) {
                    const srun *sr = &d->sruns[r];
                    t[out] = (tuple){sr->p, sr->n, sr->iters, 0, NAN, (int)(pair / 2), me,
                                     sr->where, out, 1, sr->loop_ok, 0};
                    out++;
                }
        }
    }
    free(have);
    free(any);
    return out;
}

mc_err mc_mdata_series(const mc_mdata *d, mc_model_var by, const char *metric,
                       mc_series **out, size_t *count, mc_error *err)
{
    /* room for the zeros: at most (functions × 2 metrics) per stats run */
    size_t room = d->nobs + (d->nsruns >= 2 ? 2 * d->nnames * d->nsruns : 0);
    tuple *t = malloc((room ? room : 1) * sizeof *t);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    size_t nt = 0;
    for (size_t i = 0; i < d->nobs; i++)
        if (want_obs(d, &d->obs[i], metric)) {
            const obs *o = &d->obs[i];
            t[nt] = (tuple){o->p,    o->n,      o->iters, o->value,    NAN, o->fn,
                            o->metric, o->where, nt,       0, o->has_loop, o->loop};
            nt++;
        }
    nt = zero_fill(d, metric, t, nt);
    mc_err rc = check_coords(d, t, nt, by, err);
    if (rc == MC_OK)
        rc = group(d, t, nt, by, NULL, out, count, err);
    free(t);
    return rc;
}

mc_err mc_mdata_per_iteration(const mc_mdata *d, mc_error *err)
{
    for (size_t i = 0; i < d->nobs; i++)
        if (!(d->obs[i].iters > 0))
            return mc_error_set(err, MC_ERR_FORMAT,
                                "%s: no iteration count for --per-iteration (stats found no main loop of the same length on every rank; label the run "
                                "iters=K, or mark each iteration with MPI_Pcontrol(1) ... "
                                "MPI_Pcontrol(0))", d->wheres[d->obs[i].where]);
    return MC_OK;
}

int mc_mdata_calls_below_iters(const mc_mdata *d, const char *function)
{
    int fn = -1, mcalls = -1;
    for (size_t i = 0; i < d->nnames; i++) {
        if (strcmp(d->names[i], function) == 0)
            fn = (int)i;
        if (strcmp(d->names[i], "calls") == 0)
            mcalls = (int)i;
    }
    for (size_t i = 0; fn >= 0 && mcalls >= 0 && i < d->nobs; i++) {
        const obs *o = &d->obs[i];
        if (o->fn == fn && o->metric == mcalls && o->iters > 0 && o->value < o->iters)
            return 1;
    }
    return 0;
}

mc_err mc_series_per_iteration(const mc_series *in, mc_series *out, mc_error *err)
{
    *out = *in;
    out->pts = malloc((in->npts ? in->npts : 1) * sizeof *out->pts);
    if (!out->pts)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < in->npts; i++) {
        mc_point q = in->pts[i];
        if (!(q.iters > 0)) {
            free(out->pts);
            out->pts = NULL;
            return mc_error_set(err, MC_ERR_FORMAT, "%s: no iteration count for --per-iteration",
                                in->where);
        }
        /* repeats share their iters (a point is one (p, n, iters)), so the
         * mean and spread of the quotients are the quotients */
        q.value /= q.iters, q.sd /= q.iters, q.min /= q.iters, q.max /= q.iters;
        q.loop /= q.iters;
        out->pts[i] = q;
    }
    return MC_OK;
}

mc_err mc_mdata_run_series(const mc_mdata *d, mc_model_var by, mc_series **out, size_t *count,
                           mc_error *err)
{
    tuple *t = malloc((d->nruns ? d->nruns : 1) * sizeof *t);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    size_t nt = 0;
    for (size_t i = 0; i < d->nruns; i++)
        if (!(by != MC_VAR_N && isnan(d->runs[i].p)) && !(by != MC_VAR_P && isnan(d->runs[i].n))) {
            t[nt] = (tuple){d->runs[i].p, d->runs[i].n, NAN, d->runs[i].elapsed, NAN, -1, -1, -1, nt, 0, 0, NAN};
            nt++;
        }
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
