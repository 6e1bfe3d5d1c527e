/* The command line of mpicast sweep and mpicast-sweep-mpi: the option table
 * (opts.h), the values' checks and the --help. */
#include "sweep_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

static const char sweep_head[] =
    "usage: mpicast %s TRACE [--platform FILE] [--set KEY=VALUE]...\n"
    "              [--vary KEY=V1,V2,...]... [--ranks P1,P2,...] [--jobs N]\n"
    "              [--target-efficiency E --solve KEY] [--json | --csv] [--quiet]\n"
    "\n"
    "Predicts TRACE once per point of the cross product of the --vary values\n"
    "and the process counts, and prints one row per point: predicted time,\n"
    "computation (mean over ranks), communication (the rest) and parallel\n"
    "efficiency: with one process count, mean computation c / predicted time T;\n"
    "with several, relative to the smallest count P0: T(P0)P0/(T(P)P) under\n"
    "--scaling strong, else (weak scaling) for the work done,\n"
    "(c(P)/T(P)) / (c(P0)/T(P0)), which is T(P0)/T(P) when c stays the same.\n"
    "\n";

static const char sweep_tail[] =
    "\n"
    "Example:\n"
    "  mpicast sweep run16/ --vary network.bandwidth=1GB/s,10GB/s --ranks 16,64,256\n"
    "Exit status: 0 ok; 1 bad input or a point that cannot be predicted; 2 usage.\n";

static int usage(mc_error *err, const char *fmt, const char *opt, const char *arg)
{
    mc_error_set(err, MC_ERR_USAGE, fmt, opt, arg);
    return -1;
}

static int nomem(mc_error *err)
{
    mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    return -1;
}

/* "a,b,c" as newly allocated strings; the count, -1 when out of memory. */
static int split_list(const char *s, char ***out)
{
    int n = 1;
    for (const char *c = s; *c; c++)
        n += *c == ',';
    char **v = calloc((size_t)n, sizeof *v);
    if (!v)
        return -1;
    const char *start = s;
    for (int k = 0; k < n; k++) {
        size_t len = strcspn(start, ",");
        v[k] = strndup(start, len);
        start += len + 1;
    }
    *out = v;
    return n;
}

/* --vary KEY=V1,V2,...: one more key of the cross product. */
static int add_vary(void *cfg, const char *opt, const char *arg, mc_error *err)
{
    sweep_cfg *c = cfg;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return usage(err, "%s %s: expected KEY=V1,V2,...", opt, arg);
    /* a second --vary of one key would silently override the first's values */
    size_t klen = (size_t)(eq - arg);
    for (int k = 0; k < c->nvary; k++)
        if (strlen(c->vary[k].key) == klen && !strncmp(c->vary[k].key, arg, klen))
            return usage(err, "%s %s: the key is given twice (list all its values in one "
                         "--vary)", opt, c->vary[k].key);
    sweep_vary *v = realloc(c->vary, (size_t)(c->nvary + 1) * sizeof *v);
    if (!v)
        return nomem(err);
    c->vary = v;
    sweep_vary *x = &c->vary[c->nvary++];
    x->key = strndup(arg, klen);
    x->nvals = split_list(eq + 1, &x->vals);
    if (x->nvals < 0) {
        x->nvals = 0;
        return nomem(err);
    }
    for (int i = 0; i < x->nvals; i++)
        if (!x->vals[i] || !x->vals[i][0])
            return usage(err, "%s %s: empty value", opt, arg);
    return 0;
}

static int by_count(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* --ranks P1,P2,...: ascending, so the first is the reference count. */
static int set_ranks(void *cfg, const char *opt, const char *arg, mc_error *err)
{
    sweep_cfg *c = cfg;
    char **v;
    int n = split_list(arg, &v);
    if (n < 0)
        return nomem(err);
    free(c->ranks);
    c->ranks = calloc((size_t)n, sizeof *c->ranks);
    c->nranks = c->ranks ? n : 0;
    int bad = !c->ranks;
    for (int i = 0; i < n; i++) {
        char *end;
        long p = v[i] ? strtol(v[i], &end, 10) : 0;
        if (!v[i] || !*v[i] || *end || p < 1 || p > (1L << 30))
            bad = 1;
        else if (c->ranks)
            c->ranks[i] = (int)p;
        free(v[i]);
    }
    free(v);
    if (!c->ranks)
        return nomem(err);
    if (bad)
        return usage(err, "%s %s: expected process counts like 16,64", opt, arg);
    qsort(c->ranks, (size_t)n, sizeof *c->ranks, by_count);
    return 0;
}

static int set_jobs(void *cfg, const char *opt, const char *arg, mc_error *err)
{
    char *end;
    long j = strtol(arg, &end, 10);
    if (end == arg || *end || j < 1 || j > 1024)
        return usage(err, "%s %s: expected a number of jobs >= 1", opt, arg);
    ((sweep_cfg *)cfg)->jobs = (int)j;
    return 0;
}

static int set_target(void *cfg, const char *opt, const char *arg, mc_error *err)
{
    char *end;
    double e = strtod(arg, &end);
    if (end == arg || *end || !(e > 0 && e <= 1))
        return usage(err, "%s %s: expected a number in (0, 1]", opt, arg);
    ((sweep_cfg *)cfg)->target = e;
    return 0;
}

/* The checks between options: NULL, or the usage error's message (in buf
 * when it names a key). */
static const char *conflict(const sweep_cfg *c, char *buf, size_t len)
{
    if (c->json && c->csv)
        return "--json and --csv exclude each other";
    if (!c->solve != !(c->target > 0))
        return "--solve KEY and --target-efficiency E go together";
    if (c->compute_file && c->profile_file)
        return "--compute and --profile both give the blocks' times: give one";
    for (int k = 0; c->solve && k < c->nvary; k++)
        if (!strcmp(c->vary[k].key, c->solve)) {
            snprintf(buf, len, "--solve %s: the key is also in --vary (the search sets it)",
                     c->solve);
            return buf;
        }
    return NULL;
}

int sweep_parse(int argc, char **argv, sweep_cfg *c, int *stop, const char *prog)
{
    sweep_cfg_init(c, prog);
    *stop = 0;
    cli_list sets = {0};
    cli_one trace = {NULL, "TRACE"};
    const cli_opt opts[] = {
        CLI_PLATFORM_OPTS(&c->platform, &sets),
        {"--vary", NULL, "KEY=V1,V2,...", CLI_LIST,
         "values of one platform key (repeatable: cross product)", c, add_vary},
        {"--ranks", NULL, "P1,P2,...", CLI_VALUE,
         "process counts; others than the trace's are\n"
         "extrapolated from the trace (docs/extrapolation.md)\n"
         "with the rules of 'mpicast extrapolate': --scaling\n"
         "weak|strong, --rules FILE, --rule KEY=VALUE, --grid DxD,\n"
         "--periodic 0,1, --replicate [R]", c, set_ranks},
        CLI_EXTRAP_RULE_OPTS(&c->rules),
        {"--compute", NULL, "FILE", CLI_VALUE,
         "compute table (mpicast blocks --table): each burst takes\n"
         "its block's time, scaled like the bursts by the\n"
         "compute law at other process counts", &c->compute_file, NULL},
        {"--profile", NULL, "FILE", CLI_VALUE,
         "CPU profile: each burst takes its block's time on the\n"
         "processor model of the point's [cpu] keys (vary\n"
         "cpu.l1d.size, cpu.frequency, ...); not with --compute", &c->profile_file, NULL},
        {"--jobs", NULL, "N", CLI_VALUE, "points predicted in parallel (default: 1)", c,
         set_jobs},
        {"--target-efficiency", NULL, "E", CLI_VALUE,
         "with --solve KEY: also find, for each process\n"
         "count (and --vary combination), the value of KEY\n"
         "(network.overhead, network.bandwidth, network.latency,\n"
         "cpu.speed, ...) at which efficiency crosses E (Brent's\n"
         "method, from the platform's own value of KEY)", c, set_target},
        {"--solve", NULL, "KEY", CLI_VALUE, "the platform key of --target-efficiency",
         &c->solve, NULL},
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (keys: docs/json.md)",
         &c->json, NULL},
        {"--csv", NULL, NULL, CLI_FLAG, "one CSV table on stdout (keys: docs/json.md)", &c->csv,
         NULL},
        {"--quiet", NULL, NULL, CLI_FLAG,
         "no progress line on stderr (points done / total,\n"
         "shown only when stderr is a terminal)", &c->quiet, NULL},
    };
    char head[sizeof sweep_head + 64];
    snprintf(head, sizeof head, sweep_head, prog);
    const cli_spec spec = {prog, head, sweep_tail, 24, opts, CLI_NOPTS(opts), cli_take_one,
                           &trace, 0, 0};
    int rc;
    int stopped = cli_parse(&spec, argc, argv, &rc);
    c->sets = sets.v; /* sweep_cfg_free frees them */
    c->nsets = sets.n;
    c->trace = trace.value;
    if (stopped) {
        *stop = rc == 0;
        return rc;
    }
    char buf[300];
    const char *why = conflict(c, buf, sizeof buf);
    if (why) {
        fprintf(stderr, "mpicast: %s: %s\n", prog, why);
        return SWEEP_USAGE;
    }
    return sweep_prepare(c);
}
