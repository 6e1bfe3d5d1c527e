/* mpicast blocks DIR [--json] [--cpu] [--top N] [--table FILE [--per-rank]]
 *
 * Compute data of a trace: per block (the pair of call sites bounding a
 * compute burst) its count and total/mean/min/max burst per rank and over
 * all ranks, with the sites' function and file:line from meta.json, the
 * blocks that take the most time first; or writes the compute table
 * `predict --compute` reads (docs/compute-data.md). JSON keys: docs/json.md
 * (blocks).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/blocks.h"
#include "mpicast/cpu.h"
#include "mpicast/platform.h"
#include "mpicast/format.h"
#include "mpicast/input.h"

static const char blocks_head[] =
    "usage: mpicast blocks DIR [--json] [--cpu] [--top N] [--table FILE [--per-rank]]\n"
    "                      [--profile FILE [--platform FILE] [--set KEY=VALUE]...\n"
    "                      [--fit-cpi [--cpi-records]]]\n"
    "\n"
    "Compute blocks of the trace in DIR: a block is the compute burst between\n"
    "two MPI calls, named by their call sites (previous call -> this call).\n"
    "Per block: count and total/mean/min/max burst time over all ranks, then per\n"
    "rank, with each site's function and file:line from meta.json; the blocks\n"
    "with the largest total time first.\n"
    "\n";

static const char blocks_tail[] =
    "\n"
    "Example:\n"
    "  mpicast blocks run9/ --table c.txt && mpicast predict run9/ --compute c.txt\n"
    "Exit status: 0 ok; 1 unreadable trace or table not writable; 2 usage error.\n";

typedef struct blocks_args {
    const char *dir, *table;
    int json, cpu, per_rank;
    size_t top; /* 0: every block */
    const char *profile_file, *platform; /* --profile, --platform */
    cli_list sets;                       /* --set, in order */
    int fit_cpi, cpi_records;
    /* with --profile: the profile, the model and the blocks' binding */
    mc_cpu_profile *profile;
    mc_cpu_model model;
    mc_cpu_times *times;
} blocks_args;

/* --top N: a whole number >= 1 */
static int set_top(void *top, const char *opt, const char *v, mc_error *err)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || v[0] == '-' || n == 0) {
        mc_error_set(err, MC_ERR_USAGE, "%s needs a whole number >= 1, got '%s'", opt, v);
        return -1;
    }
    *(size_t *)top = (size_t)n;
    return 0;
}

static int parse_args(int argc, char **argv, blocks_args *a, int *rc)
{
    memset(a, 0, sizeof *a);
    cli_one dir = {NULL, "DIR"};
    const cli_opt opts[] = {
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (keys: docs/json.md)",
         &a->json, NULL},
        {"--cpu", NULL, NULL, CLI_FLAG,
         "use the bursts' thread CPU time (traces taken with --mode cpu)\n"
         "instead of the wall time (which in --mode token is the\n"
         "uncontended time)", &a->cpu, NULL},
        {"--top", NULL, "N", CLI_VALUE, "only the N blocks with the largest total time", &a->top,
         set_top},
        {"--table", NULL, "FILE", CLI_VALUE,
         "write the compute table for 'mpicast predict --compute'\n"
         "(mean time per execution of each block, all ranks together)\n"
         "instead of the listing (with --json: the JSON as well)", &a->table, NULL},
        {"--per-rank", NULL, NULL, CLI_FLAG, "with --table: add one row per (block, rank)",
         &a->per_rank, NULL},
        {"--profile", NULL, "FILE", CLI_VALUE,
         "CPU profile (docs/compute-data.md): per block also the\n"
         "instructions, the misses at each cache level and the time per\n"
         "burst of the processor model of the platform's [cpu] keys", &a->profile_file, NULL},
        CLI_PLATFORM_OPTS(&a->platform, &a->sets),
        {"--fit-cpi", NULL, NULL, CLI_FLAG,
         "with --profile: the cpu.cpi that fits the measured mean bursts\n"
         "best (least squares weighted by executions; the model's miss\n"
         "time held), printed as a platform line", &a->fit_cpi, NULL},
        {"--cpi-records", NULL, NULL, CLI_FLAG,
         "with --fit-cpi: also each block's own cpi, as 'cpi' records\n"
         "to append to the profile (this core's cycles per\n"
         "instruction block by block: docs/compute-data.md)", &a->cpi_records, NULL},
    };
    const cli_spec spec = {"blocks", blocks_head, blocks_tail, 17, opts, CLI_NOPTS(opts),
                           cli_take_one, &dir, 0, 0};
    if (cli_parse(&spec, argc, argv, rc))
        return -1;
    a->dir = dir.value;
    if (a->cpi_records && (!a->fit_cpi || a->json)) {
        *rc = cli_usage_error("blocks: --cpi-records goes with --fit-cpi (text output)");
        return -1;
    }
    if ((a->platform || a->sets.n || a->fit_cpi) && !a->profile_file) {
        *rc = cli_usage_error("blocks: --platform, --set and --fit-cpi need --profile FILE");
        return -1;
    }
    if (a->per_rank && !a->table) {
        *rc = cli_usage_error("blocks: --per-rank needs --table FILE");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- sites */

typedef struct site_names {
    const mc_meta *meta;
    char buf[2][1024]; /* two labels may be live at once (prev -> site) */
    int next;
} site_names;

/* "function file:line", with "?" for unknown parts; "-" for site 0. */
static const char *site_label(void *ctx, int32_t site)
{
    site_names *n = ctx;
    char *b = n->buf[n->next];
    n->next ^= 1;
    const mc_meta_site *s = n->meta ? mc_meta_site_find(n->meta, site) : NULL;
    if (site == 0 || !s) {
        snprintf(b, sizeof n->buf[0], site == 0 ? "-" : "site %x", (unsigned)site);
        return b;
    }
    const char *file = s->file && s->file[0] ? strrchr(s->file, '/') : NULL;
    file = file ? file + 1 : (s->file && s->file[0] ? s->file : "?");
    snprintf(b, sizeof n->buf[0], "%s %s:%d", s->function && s->function[0] ? s->function : "?",
             file, s->line);
    return b;
}

static json_t *site_json(const mc_meta *m, int32_t site)
{
    const mc_meta_site *s = m ? mc_meta_site_find(m, site) : NULL;
    return json_pack("{s:i,s:s,s:s,s:i}", "id", (int)site, "function",
                     s && s->function ? s->function : "", "file", s && s->file ? s->file : "",
                     "line", s ? s->line : 0);
}

/* ---------------------------------------------------------------- order */

/* A block to list: its all-ranks row and where its per-rank rows start. */
typedef struct block_ref {
    const mc_block_stat *total;
    size_t first, nranks; /* in mc_blocks_at */
} block_ref;

/* Largest total time first; ties by (from, to), the library's order. */
static int by_total(const void *x, const void *y)
{
    const mc_block_stat *a = ((const block_ref *)x)->total, *b = ((const block_ref *)y)->total;
    if (a->sum_ns != b->sum_ns)
        return a->sum_ns > b->sum_ns ? -1 : 1;
    if (a->prev_site != b->prev_site)
        return a->prev_site < b->prev_site ? -1 : 1;
    return (a->site > b->site) - (a->site < b->site);
}

/* The blocks to list, in order (--top: the first N); NULL out of memory. */
static block_ref *listed_blocks(const blocks_args *a, const mc_blocks *b, size_t *n)
{
    size_t nt = mc_blocks_total_count(b);
    block_ref *v = malloc((nt ? nt : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t j = 0; /* per-rank rows are sorted like the totals */
    for (size_t i = 0; i < nt; i++) {
        const mc_block_stat *t = mc_blocks_total_at(b, i);
        v[i] = (block_ref){t, j, 0};
        for (; j < mc_blocks_count(b); j++, v[i].nranks++) {
            const mc_block_stat *r = mc_blocks_at(b, j);
            if (r->prev_site != t->prev_site || r->site != t->site)
                break;
        }
    }
    qsort(v, nt, sizeof *v, by_total);
    *n = a->top && a->top < nt ? a->top : nt;
    return v;
}

/* ---------------------------------------------------------------- output */

static json_t *stat_json(const mc_block_stat *s)
{
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "count", (json_int_t)s->count, "total",
                     (double)s->sum_ns * 1e-9, "mean", mc_block_mean_ns(s) * 1e-9, "min",
                     (double)s->min_ns * 1e-9, "max", (double)s->max_ns * 1e-9);
}

/* ---------------------------------------------------------------- model */

/* The model's figures of a listed block over all the ranks the profile has
 * (sum of its rows; *bursts their bursts); 0, or -1 when the profile lacks
 * the block. */
static int model_of(const blocks_args *a, const mc_block_stat *t, mc_cpu_eval *e, double *bursts)
{
    long k = a->times ? mc_cpu_times_block(a->times, -1, t->prev_site, t->site) : -1;
    if (k < 0)
        return -1;
    const mc_cpu_block *b = mc_cpu_profile_at(a->profile, (size_t)k);
    mc_error ignored = {0}; /* every row was evaluated when the times were made */
    return mc_cpu_eval_sum(&a->model, a->profile, b->from, b->to, e, bursts, &ignored) == MC_OK
               ? 0 : -1;
}

/* The L1 data level is always modelled (size 0: every access misses);
 * the others only when present. */
static int level_shown(const blocks_args *a, int l)
{
    return l == MC_CPU_L1D || a->model.level[l].size > 0;
}

static json_t *model_json(const blocks_args *a, const mc_block_stat *t)
{
    mc_cpu_eval e;
    double n;
    if (model_of(a, t, &e, &n) < 0)
        return json_null();
    json_t *miss = json_object();
    for (int l = 0; l < MC_CPU_NLEVELS; l++)
        json_object_set_new(miss, mc_cpu_level_name(l),
                            level_shown(a, l) ? json_real(e.misses[l]) : json_null());
    return json_pack("{s:f,s:f,s:o,s:f,s:f,s:f,s:f,s:f,s:s,s:f}", "bursts", n, "instructions",
                     e.instructions, "misses", miss, "mem_bytes", e.mem_bytes, "core_time",
                     e.core_time, "miss_time", e.miss_time, "bandwidth_time", e.bw_time,
                     "time", e.time, "bound", e.bandwidth_bound ? "bandwidth" : "latency",
                     "time_per_burst", e.time / n);
}

/* Least-squares cpu.cpi: the measured mean burst m_i of each block the
 * profile has, weighted by its executions n_i, against per burst
 * cpi * k_i + r_i (k_i = instructions / frequency, r_i = the miss time):
 * cpi = sum n k (m - r) / sum n k^2. NAN without a block with instructions. */
static double fit_cpi(const blocks_args *a, const mc_blocks *b, int *used)
{
    double num = 0, den = 0;
    *used = 0;
    for (size_t i = 0; i < mc_blocks_total_count(b); i++) {
        const mc_block_stat *t = mc_blocks_total_at(b, i);
        mc_cpu_eval e;
        double bursts;
        if (model_of(a, t, &e, &bursts) < 0 || !(e.instructions > 0))
            continue;
        double kk = e.instructions / bursts / a->model.frequency;
        double r = e.miss_time / bursts, m = mc_block_mean_ns(t) * 1e-9;
        num += (double)t->count * kk * (m - r);
        den += (double)t->count * kk * kk;
        (*used)++;
    }
    return den > 0 ? num / den : NAN;
}

/* Each block's own cpi, as `cpi` records of the profile's format: the
 * cycles per instruction that make the model give the block's measured
 * mean burst with the model's miss time held, (m - r) f / k per burst.
 * EXCIT's standard cycles are per basic block; one cpu.cpi for every
 * block misses by 2-5x where blocks differ in instruction mix (a sqrt
 * stream, a recurrence, a streaming loop: docs/compute-data.md). */
static void print_cpi_records(const blocks_args *a, const mc_blocks *b)
{
    printf("\n# each block's own cycles per instruction on this machine: append these "
           "lines to %s\n", a->profile_file);
    for (size_t i = 0; i < mc_blocks_total_count(b); i++) {
        const mc_block_stat *t = mc_blocks_total_at(b, i);
        long k = mc_cpu_times_block(a->times, -1, t->prev_site, t->site);
        mc_cpu_eval e;
        double n;
        if (k < 0 || model_of(a, t, &e, &n) < 0 || !(e.instructions > 0))
            continue;
        const mc_cpu_block *pb = mc_cpu_profile_at(a->profile, (size_t)k);
        double m = mc_block_mean_ns(t) * 1e-9, r = e.miss_time / n;
        double cpi = (m - r) * a->model.frequency / (e.instructions / n);
        if (cpi > 0)
            printf("cpi\t%s\t%s\t%.6g\n", pb->from, pb->to, cpi);
        else
            printf("# %s -> %s: none: its modelled misses (%.3f us a burst) exceed its "
                   "measured mean (%.3f us); raise cpu.mlp\n", pb->from, pb->to, r * 1e6,
                   m * 1e6);
    }
}

static int print_json(const blocks_args *a, const mc_blocks *b, const mc_meta *m,
                      const block_ref *v, size_t nv)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < nv; i++) {
        const mc_block_stat *t = v[i].total;
        json_t *ranks = json_array();
        for (size_t j = v[i].first; j < v[i].first + v[i].nranks; j++) {
            const mc_block_stat *r = mc_blocks_at(b, j);
            json_t *o = stat_json(r);
            json_object_set_new(o, "rank", json_integer(r->rank));
            json_array_append_new(ranks, o);
        }
        json_t *o = stat_json(t);
        json_object_set_new(o, "from", site_json(m, t->prev_site));
        json_object_set_new(o, "to", site_json(m, t->site));
        json_object_set_new(o, "per_rank", ranks);
        if (a->profile)
            json_object_set_new(o, "model", model_json(a, t));
        json_array_append_new(arr, o);
    }
    json_t *doc = json_pack("{s:s,s:i,s:s,s:b,s:o,s:I}", "trace", a->dir, "ranks",
                            mc_blocks_nranks(b), "time", a->cpu ? "cpu" : "wall", "truncated",
                            mc_blocks_truncated(b), "blocks", arr, "total_blocks",
                            (json_int_t)mc_blocks_total_count(b));
    if (doc && a->profile) {
        size_t matched = 0;
        for (size_t i = 0; i < mc_blocks_total_count(b); i++) {
            const mc_block_stat *t = mc_blocks_total_at(b, i);
            matched += mc_cpu_times_block(a->times, -1, t->prev_site, t->site) >= 0;
        }
        json_t *cp = json_pack("{s:s,s:I,s:I}", "file", a->profile_file, "blocks",
                               (json_int_t)mc_cpu_profile_count(a->profile), "matched",
                               (json_int_t)matched);
        if (a->fit_cpi) {
            int used;
            double cpi = fit_cpi(a, b, &used);
            json_object_set_new(cp, "fitted_cpi", isnan(cpi) ? json_null() : json_real(cpi));
            json_object_set_new(cp, "fitted_blocks", json_integer(used));
        }
        json_object_set_new(doc, "cpu_profile", cp);
    }
    if (!doc) {
        fputs("mpicast: blocks: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

static void print_row(const char *who, const mc_block_stat *s)
{
    printf("  %-6s %10" PRIu64 " %14.3f %14.3f %14.3f %14.3f\n", who, s->count,
           (double)s->sum_ns * 1e-3, mc_block_mean_ns(s) * 1e-3, (double)s->min_ns * 1e-3,
           (double)s->max_ns * 1e-3);
}

/* The model's lines under a block of the listing (times in us). */
static void print_model(const blocks_args *a, const mc_block_stat *t)
{
    mc_cpu_eval e;
    double n;
    if (model_of(a, t, &e, &n) < 0) {
        printf("  model  not in the profile (predict keeps its recorded time / cpu.speed)\n");
        return;
    }
    printf("  model  %.0f bursts profiled, %.0f instructions, misses", n, e.instructions);
    for (int l = 0; l < MC_CPU_NLEVELS; l++)
        if (level_shown(a, l))
            printf(" %s %.0f", mc_cpu_level_name(l), e.misses[l]);
    printf("\n         per burst %.3f (core %.3f + misses %.3f; memory bandwidth %.3f), %s "
           "bound\n", e.time / n * 1e6, e.core_time / n * 1e6, e.miss_time / n * 1e6,
           e.bw_time / n * 1e6, e.bandwidth_bound ? "bandwidth" : "latency");
}

static void print_text(const blocks_args *a, const mc_blocks *b, const mc_meta *m,
                       const block_ref *v, size_t nv)
{
    site_names n = {.meta = m};
    size_t nt = mc_blocks_total_count(b);
    printf("%zu blocks in %s (%d ranks, %s time; times in us)", nt, a->dir,
           mc_blocks_nranks(b), a->cpu ? "cpu" : "wall");
    if (nv < nt)
        printf("; the %zu with the largest total", nv);
    printf("\n");
    for (size_t i = 0; i < nv; i++) {
        const mc_block_stat *t = v[i].total;
        printf("\nblock %x -> %x   %s", (unsigned)t->prev_site, (unsigned)t->site,
               site_label(&n, t->prev_site));
        printf("  ->  %s\n", site_label(&n, t->site));
        printf("  %-6s %10s %14s %14s %14s %14s\n", "rank", "count", "total", "mean", "min",
               "max");
        print_row("all", t);
        char who[16];
        for (size_t j = v[i].first; j < v[i].first + v[i].nranks; j++) {
            const mc_block_stat *r = mc_blocks_at(b, j);
            snprintf(who, sizeof who, "%d", (int)r->rank);
            print_row(who, r);
        }
        if (a->profile)
            print_model(a, t);
    }
    if (a->fit_cpi) {
        int used;
        double cpi = fit_cpi(a, b, &used);
        if (isnan(cpi))
            printf("\nfit: no block of the trace has instructions in the profile\n");
        else if (cpi <= 0)
            printf("\nfit: cpi would be %.6g: the model's miss time alone exceeds the measured "
                   "bursts (cache or memory latencies, or cpu.mlp, do not match the traced "
                   "machine)\n", cpi);
        else
            printf("\n[cpu]\ncpi = %.6g   ; fitted on %d blocks (measured mean bursts)\n", cpi,
                   used);
        if (a->cpi_records)
            print_cpi_records(a, b);
    }
}

static int write_table(const blocks_args *a, const mc_blocks *b, const mc_meta *m)
{
    mc_error err = {0};
    const char *inputs[] = {a->dir};
    if (cli_output_clear(a->table, inputs, 1) != CLI_OK)
        return CLI_BAD_INPUT;
    mc_out o; /* a file, even when named "-" (as before) */
    if (mc_out_open(&o, a->table, 0, &err) != MC_OK)
        return cli_fail(&err);
    FILE *out = o.f;
    char source[4200];
    const char *mode = m ? mc_meta_get(m, "mode") : NULL;
    snprintf(source, sizeof source, "%s, mode %s, %s time", a->dir, mode ? mode : "?",
             a->cpu ? "cpu" : "wall");
    mc_err rc = mc_ctable_write(b, out, a->per_rank, source, m, &err);
    if (rc != MC_OK)
        mc_error_prefix(&err, "%s", a->table);
    if (cli_output_finish(&o, out, rc, &err) != MC_OK)
        return cli_fail(&err);
    return CLI_OK;
}

/* --profile: the profile, the platform's model, every block evaluated. */
static int open_profile(blocks_args *a, const mc_meta *m)
{
    mc_error err = {0};
    if (!(a->profile = mc_cpu_profile_load(a->profile_file, &err)))
        return cli_fail(&err);
    char note[600];
    if (mc_cpu_profile_cpi_note(a->profile, note, sizeof note))
        fprintf(stderr, "mpicast: warning: %s\n", note);
    mc_platform *p = mc_platform_open(a->platform, a->sets.v, a->sets.n, &err);
    if (!p)
        return cli_fail(&err);
    mc_cpu_model_from_platform(p, &a->model);
    mc_platform_destroy(p);
    if (!(a->times = mc_cpu_times_create(&a->model, a->profile, m, 1.0, 1, &err)))
        return cli_fail(&err);
    return CLI_OK;
}

static void close_args(blocks_args *a)
{
    mc_cpu_times_destroy(a->times);
    mc_cpu_profile_destroy(a->profile);
    cli_list_free(&a->sets);
}

int cmd_blocks(int argc, char **argv)
{
    blocks_args a;
    int rc = CLI_OK;
    if (parse_args(argc, argv, &a, &rc)) {
        close_args(&a);
        return rc;
    }
    mc_error err = {0};
    mc_source *src = mc_input_open(a.dir, &err);
    if (!src) {
        close_args(&a);
        return cli_fail(&err);
    }
    mc_blocks *b = mc_blocks_collect(src, a.cpu ? MC_BLOCK_CPU : MC_BLOCK_WALL, &err);
    if (!b) {
        mc_source_close(src);
        close_args(&a);
        return cli_fail(&err);
    }
    const mc_meta *m = mc_trace_meta(src);
    if (a.profile_file && (rc = open_profile(&a, m)) != CLI_OK) {
        mc_blocks_destroy(b);
        mc_source_close(src);
        close_args(&a);
        return rc;
    }
    if (mc_blocks_truncated(b))
        fprintf(stderr, "mpicast: warning: %s: a rank's stream is truncated (crashed run?); "
                        "blocks from its readable prefix\n", a.dir);
    if (a.table)
        rc = write_table(&a, b, m);
    if (rc == CLI_OK && (a.json || !a.table)) {
        size_t nv = 0;
        block_ref *v = listed_blocks(&a, b, &nv);
        if (!v) {
            fputs("mpicast: blocks: out of memory\n", stderr);
            rc = CLI_BAD_INPUT;
        } else if (a.json) {
            rc = print_json(&a, b, m, v, nv);
        } else {
            print_text(&a, b, m, v, nv);
        }
        free(v);
    }
    mc_blocks_destroy(b);
    mc_source_close(src);
    close_args(&a);
    return rc;
}
