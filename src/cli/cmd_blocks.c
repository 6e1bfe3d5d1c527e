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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_output.h"
#include "mpicast/blocks.h"
#include "mpicast/format.h"
#include "mpicast/input.h"

static const char blocks_usage[] =
    "usage: mpicast blocks DIR [--json] [--cpu] [--top N] [--table FILE [--per-rank]]\n"
    "\n"
    "Compute blocks of the trace in DIR: a block is the compute burst between\n"
    "two MPI calls, named by their call sites (previous call -> this call).\n"
    "Per block: count and total/mean/min/max burst time over all ranks, then per\n"
    "rank, with each site's function and file:line from meta.json; the blocks\n"
    "with the largest total time first.\n"
    "\n"
    "  --json         one JSON document on stdout (keys: docs/json.md)\n"
    "  --cpu          use the bursts' thread CPU time (traces taken with --mode cpu)\n"
    "                 instead of the wall time (which in --mode token is the\n"
    "                 uncontended time)\n"
    "  --top N        only the N blocks with the largest total time\n"
    "  --table FILE   write the compute table for 'mpicast predict --compute'\n"
    "                 (mean time per execution of each block, all ranks together)\n"
    "                 instead of the listing (with --json: the JSON as well)\n"
    "  --per-rank     with --table: add one row per (block, rank)\n"
    "\n"
    "Example:\n"
    "  mpicast blocks run9/ --table c.txt && mpicast predict run9/ --compute c.txt\n"
    "Exit status: 0 ok; 1 unreadable trace or table not writable; 2 usage error.\n";

typedef struct blocks_args {
    const char *dir, *table;
    int json, cpu, per_rank;
    size_t top; /* 0: every block */
} blocks_args;

static int parse_args(int argc, char **argv, blocks_args *a, int *rc)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (cli_is_help(s)) {
            fputs(blocks_usage, stdout);
            *rc = CLI_OK;
            return -1;
        }
        if (strcmp(s, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(s, "--cpu") == 0) {
            a->cpu = 1;
        } else if (strcmp(s, "--per-rank") == 0) {
            a->per_rank = 1;
        } else if (strcmp(s, "--table") == 0 && i + 1 < argc) {
            a->table = argv[++i];
        } else if (strcmp(s, "--top") == 0 && i + 1 < argc) {
            char *end;
            const char *v = argv[++i];
            unsigned long long n = strtoull(v, &end, 10);
            if (!*v || *end || v[0] == '-' || n == 0) {
                *rc = cli_usage_error("blocks: --top needs a whole number >= 1, got '%s'", v);
                return -1;
            }
            a->top = (size_t)n;
        } else if (s[0] == '-' && s[1]) {
            *rc = cli_usage_error("blocks: unknown option or missing value: %s "
                                  "(see 'mpicast blocks --help')", s);
            return -1;
        } else if (!a->dir) {
            a->dir = s;
        } else {
            *rc = cli_usage_error("blocks: more than one DIR given: %s", s);
            return -1;
        }
    }
    if (!a->dir) {
        *rc = cli_usage_error("blocks: no DIR given (see 'mpicast blocks --help')");
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
        json_array_append_new(arr, o);
    }
    json_t *doc = json_pack("{s:s,s:i,s:s,s:b,s:o,s:I}", "trace", a->dir, "ranks",
                            mc_blocks_nranks(b), "time", a->cpu ? "cpu" : "wall", "truncated",
                            mc_blocks_truncated(b), "blocks", arr, "total_blocks",
                            (json_int_t)mc_blocks_total_count(b));
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

int cmd_blocks(int argc, char **argv)
{
    blocks_args a;
    int rc = CLI_OK;
    if (parse_args(argc, argv, &a, &rc))
        return rc;
    mc_error err = {0};
    mc_source *src = mc_input_open(a.dir, &err);
    if (!src)
        return cli_fail(&err);
    mc_blocks *b = mc_blocks_collect(src, a.cpu ? MC_BLOCK_CPU : MC_BLOCK_WALL, &err);
    if (!b) {
        mc_source_close(src);
        return cli_fail(&err);
    }
    const mc_meta *m = mc_trace_meta(src);
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
    return rc;
}
