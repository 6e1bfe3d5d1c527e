/* TAU profiles as model input: a directory of profile.N.C.T text files (one
 * per node N, context C, thread T) or one such file is one run. Per function
 * the calls and the inclusive time, summed over the files and divided by the
 * node count: per process, as the stats JSON values are. The layout read
 * (TAU's documented profile format):
 *   line 1  "<count> templated_functions[_MULTI_<metric>]"
 *   line 2  "# Name Calls Subrs Excl Incl ProfileCalls ..."
 *   then <count> lines "\"NAME\" calls subrs excl incl profcalls GROUP=\"G\""
 *   (times in microseconds), then aggregates and user events (not read). */
#define MPICAST_MODEL_INTERNAL
#include "mpicast/model.h"
#include "mpicast/outfile.h"
#include "model_impl.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct tau_fn {
    char *name;
    double calls, time_us;
} tau_fn;

typedef struct tau_run {
    tau_fn *fns;
    size_t nfns, cap;
    double max_incl_us; /* the top-level timer's: the run's wall time */
} tau_run;

/* "MPI_Send()" -> "MPI_Send", as the stats JSON names MPI functions; other
 * names (user timers) are kept, trimmed. */
static void normalise_name(char *name)
{
    size_t n = strlen(name);
    while (n && isspace((unsigned char)name[n - 1]))
        name[--n] = '\0';
    if (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0) {
        char *paren = strchr(name, '(');
        if (paren) {
            *paren = '\0';
            for (n = strlen(name); n && isspace((unsigned char)name[n - 1]);)
                name[--n] = '\0';
        }
    }
}

static mc_err tau_accumulate(tau_run *r, const char *name, double calls, double incl_us,
                             mc_error *err)
{
    for (size_t i = 0; i < r->nfns; i++)
        if (strcmp(r->fns[i].name, name) == 0) {
            r->fns[i].calls += calls;
            r->fns[i].time_us += incl_us;
            return MC_OK;
        }
    if (r->nfns == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 32;
        tau_fn *f = realloc(r->fns, nc * sizeof *f);
        if (!f)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        r->fns = f, r->cap = nc;
    }
    char *c = strdup(name);
    if (!c)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    r->fns[r->nfns++] = (tau_fn){c, calls, incl_us};
    return MC_OK;
}

/* A number field at *s (moves past it); -1 when there is none. */
static int take_number(char **s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*s, &end);
    if (end == *s || (*end && !isspace((unsigned char)*end)) || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    *s = end;
    return 0;
}

/* One function line: "\"NAME\" calls subrs excl incl profcalls GROUP=..."
 * The name ends at the quote followed by a blank (names hold quotes and
 * spaces: "int main(int, char **) C"). */
static mc_err tau_function_line(tau_run *r, char *line, const char *path, long lineno,
                                mc_error *err)
{
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    char *name = s + 1, *close = NULL;
    if (*s == '"')
        for (char *q = name; *q; q++)
            if (*q == '"' && isspace((unsigned char)q[1])) {
                close = q;
                break;
            }
    double v[5];
    int ok = close != NULL;
    if (ok) {
        *close = '\0';
        s = close + 1;
        for (int k = 0; k < 5 && ok; k++)
            ok = take_number(&s, &v[k]) == 0;
    }
    if (!ok)
        return mc_error_set(err, MC_ERR_FORMAT,
                            "%s:%ld: not a TAU function line (expected \"NAME\" calls subrs excl "
                            "incl profilecalls)", path, lineno);
    if (v[3] > r->max_incl_us)
        r->max_incl_us = v[3];
    if (strstr(name, " => ")) /* a call path: its calls are in the flat entry */
        return MC_OK;
    normalise_name(name);
    return tau_accumulate(r, name, v[0], v[3], err);
}

/* The first line's function count: "<count> templated_functions...". */
static int tau_header(const char *line, long *count)
{
    char *end;
    long n = strtol(line, &end, 10);
    if (end == line || n < 0 || !isspace((unsigned char)*end))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (strncmp(end, "templated_functions", 19) != 0)
        return -1;
    *count = n;
    return 0;
}

int mc_tau_is_profile(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    FILE *fp = mc_in_fopen(path, NULL);
    if (!fp)
        return 0;
    char line[256];
    long count;
    int yes = fgets(line, sizeof line, fp) && tau_header(line, &count) == 0;
    fclose(fp);
    return yes;
}

static mc_err tau_read_file(tau_run *r, const char *path, mc_error *err)
{
    FILE *fp = mc_in_fopen(path, err);
    if (!fp)
        return err && err->code ? err->code : MC_ERR_IO;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, count = 0;
    mc_err rc = MC_OK;
    /* the header's count bounds the lines read (line 1, the column line,
     * then count functions), compared without adding to a count from the file */
    while (rc == MC_OK && (lineno < 2 || lineno - 2 < count) && getline(&line, &cap, fp) >= 0) {
        lineno++;
        if (lineno == 1) {
            if (tau_header(line, &count))
                rc = mc_error_set(err, MC_ERR_FORMAT, "%s:1: not a TAU profile (expected "
                                  "'COUNT templated_functions...')", path);
        } else if (lineno == 2) {
            if (strncmp(line, "# Name Calls Subrs Excl Incl", 28) != 0)
                rc = mc_error_set(err, MC_ERR_FORMAT, "%s:2: expected the column line '# Name "
                                  "Calls Subrs Excl Incl ProfileCalls'", path);
        } else {
            rc = tau_function_line(r, line, path, lineno, err);
        }
    }
    if (rc == MC_OK && ferror(fp))
        rc = mc_error_set(err, MC_ERR_IO, "%s: read error", path);
    else if (rc == MC_OK && (lineno < 2 || lineno - 2 < count))
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: %ld functions announced on line 1, the "
                          "file ends after %ld", path, lineno, count, lineno > 2 ? lineno - 2 : 0);
    free(line);
    fclose(fp);
    return rc;
}

/* "profile.N.C.T" with decimal N, C, T; *node = N. */
static int profile_name(const char *name, long *node, long *ctx, long *thr)
{
    char tail;
    return sscanf(name, "profile.%ld.%ld.%ld%c", node, ctx, thr, &tail) == 3 && *node >= 0;
}

typedef struct tau_entry {
    long node, ctx, thr;
    char *name;
} tau_entry;

static int entry_cmp(const void *a, const void *b)
{
    const tau_entry *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->thr > y->thr) - (x->thr < y->thr);
}

/* Reads every profile.N.C.T of dir, in node order; *nodes = distinct N. */
static mc_err tau_read_dir(tau_run *r, const char *dir, size_t *nodes, mc_error *err)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return mc_error_set(err, MC_ERR_IO, "%s: %s", dir, strerror(errno));
    tau_entry *e = NULL;
    size_t n = 0, cap = 0;
    mc_err rc = MC_OK;
    for (struct dirent *de; rc == MC_OK && (de = readdir(dp));) {
        tau_entry t;
        if (!profile_name(de->d_name, &t.node, &t.ctx, &t.thr))
            continue;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            tau_entry *g = realloc(e, nc * sizeof *g);
            if (!g) {
                rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
                break;
            }
            e = g, cap = nc;
        }
        if (!(t.name = strdup(de->d_name)))
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        else
            e[n++] = t;
    }
    closedir(dp);
    if (rc == MC_OK && n == 0)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: no TAU profile files (profile.N.C.T) in this "
                          "directory", dir);
    if (n)
        qsort(e, n, sizeof *e, entry_cmp);
    *nodes = 0;
    for (size_t i = 0; i < n; i++) {
        *nodes += i == 0 || e[i].node != e[i - 1].node;
        char path[4096];
        if (rc == MC_OK && snprintf(path, sizeof path, "%s/%s", dir, e[i].name) >= (int)sizeof path)
            rc = mc_error_set(err, MC_ERR_FORMAT, "%s: path too long", dir);
        if (rc == MC_OK)
            rc = tau_read_file(r, path, err);
        free(e[i].name);
    }
    free(e);
    return rc;
}

/* The run's measurements: per process = sum over the files / nodes. */
static mc_err tau_add_run(mc_mdata *d, const tau_run *r, const char *path, size_t nodes,
                          const mc_run_label *label, mc_error *err)
{
    double p = label && label->have_p ? label->p : (double)nodes;
    double n = label && label->have_n ? label->n : NAN, iters = NAN;
    /* iterations from the MPI_Pcontrol marks, as for stats files */
    for (size_t i = 0; i < r->nfns; i++)
        if (strcmp(r->fns[i].name, "MPI_Pcontrol") == 0 && r->fns[i].calls / (double)nodes >= 2)
            iters = floor(r->fns[i].calls / (double)nodes / 2);
    if (label && label->have_iters)
        iters = label->iters;
    int run = mcm_mdata_add_srun(d, p, n, iters, path);
    if (run < 0)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    mc_err rc = MC_OK;
    for (size_t i = 0; rc == MC_OK && i < r->nfns; i++) {
        const tau_fn *f = &r->fns[i];
        rc = mcm_mdata_add_obs(d, p, n, iters, run, f->name, "calls", f->calls / (double)nodes,
                               path, err);
        if (rc == MC_OK)
            rc = mcm_mdata_add_obs(d, p, n, iters, run, f->name, "time",
                                   f->time_us * 1e-6 / (double)nodes, path, err);
    }
    if (rc == MC_OK && r->max_incl_us > 0)
        rc = mc_mdata_add_run(d, p, n, r->max_incl_us * 1e-6, err);
    return rc;
}

mc_err mc_mdata_read_tau(mc_mdata *d, const char *path, const mc_run_label *label,
                         mc_error *err)
{
    tau_run r = {0};
    size_t nodes = 1;
    struct stat st;
    mc_err rc;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        rc = tau_read_dir(&r, path, &nodes, err);
    else
        rc = tau_read_file(&r, path, err);
    if (rc == MC_OK)
        rc = tau_add_run(d, &r, path, nodes, label, err);
    for (size_t i = 0; i < r.nfns; i++)
        free(r.fns[i].name);
    free(r.fns);
    return rc;
}
