/* mpicast stats DIR [--json]: calls, bytes and time per MPI function and per
 * rank, the message statistics of the EXCIT/INSPIRE study, and the top call
 * sites by MPI time (like mpiP's report). The definitions are in docs/json.md;
 * they are summarised where each value is computed.
 *
 * One pass over each rank's events; memory is O(ranks × functions seen +
 * call sites + live persistent send requests of one rank).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "mpicast/format.h"
#include "mpicast/stats.h"
#include "mpicast/input.h"

enum { TOP_SITES = 20 };

static const char stats_head[] =
    "usage: mpicast stats TRACE [--json]\n"
    "\n"
    "Statistics of TRACE (any input kind: a trace directory, an OTF2 archive,\n"
    "a time-independent text trace): per MPI function and per rank the calls,\n"
    "bytes and time inside MPI; per rank the application time, MPI time and\n"
    "MPI %; point-to-point message statistics (messages sent per rank, average\n"
    "length, total volume); the top call sites by MPI time.\n"
    "\n";

static const char stats_tail[] =
    "\n"
    "A truncated trace (a run that crashed) is summarised from its readable\n"
    "prefix, with a warning on stderr and \"truncated\": true; exit status 0.\n"
    "\n"
    "Example:\n"
    "  mpicast stats run9/ --json > run9.json\n"
    "Exit status: 0 ok; 1 unreadable or corrupt trace; 2 usage error.\n";

/* Rendering only: the figures come from the stats module (stats.h). */
typedef struct view {
    const char *dir;
    const mc_stats *st;
    const mc_meta *meta;
} view;

static double seconds(int64_t ns) { return (double)ns / 1e9; }

static double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

typedef mc_stats_totals totals;

static double sends_per_rank(const view *v)
{
    int n = mc_stats_nranks(v->st);
    return n ? (double)mc_stats_total(v->st).sends / n : 0;
}

static double avg_bytes(const view *v)
{
    totals t = mc_stats_total(v->st);
    return t.sends ? (double)t.send_bytes / (double)t.sends : 0;
}

/* Management ops by range, not by kind letter (see print.c). */
static const char *kind_name(int op)
{
    if (mc_op_has(op, MC_OPF_COMM_MGMT))
        return "communicator";
    switch (mc_op_kind_of(op)) {
    case MC_KIND_P: return "p2p";
    case MC_KIND_C: return "collective";
    case MC_KIND_W: return "completion";
    default: return "other";
    }
}

/* "MPI_Send": the name users know from their code. */
static void mpi_name(char *buf, size_t len, int op)
{
    snprintf(buf, len, "MPI_%s", mc_op_name(op));
}

static const mc_meta_site *site_info(const view *v, int32_t id)
{
    return v->meta && id != 0 ? mc_meta_site_find(v->meta, id) : NULL;
}

/* "function (file:line)" of a site, or what is known of it. */
static void site_where(const view *v, int32_t id, char *where, size_t len)
{
    const mc_meta_site *info = site_info(v, id);
    snprintf(where, len, "%s", id == 0 ? "(unknown site)" : "?");
    if (info && info->file[0])
        snprintf(where, len, "%s (%s:%d)", info->function[0] ? info->function : "?", info->file,
                 info->line);
    else if (info)
        snprintf(where, len, "%s (%s+0x%" PRIx64 ")", info->function[0] ? info->function : "?",
                 info->module, info->offset);
}

/* ---------------------------------------------------------------- JSON */

static json_t *function_json(const view *v, int op)
{
    mc_stats_counts t = mc_stats_op(v->st, op, -1);
    json_t *per_rank = json_array();
    for (int r = 0; per_rank && r < mc_stats_nranks(v->st); r++) {
        mc_stats_counts c = mc_stats_op(v->st, op, r);
        json_t *o = json_pack("{sisIsIsf}", "rank", r, "calls", (json_int_t)c.calls, "bytes",
                              (json_int_t)c.bytes, "time", seconds(c.time_ns));
        if (o && mc_stats_is_poll_op(op))
            json_object_set_new(o, "polls", json_integer((json_int_t)c.polls));
        if (json_array_append_new(per_rank, o)) {
            json_decref(per_rank);
            return NULL;
        }
    }
    json_t *o = json_pack("{sssIsIsfso}", "kind", kind_name(op), "calls", (json_int_t)t.calls,
                          "bytes", (json_int_t)t.bytes, "time", seconds(t.time_ns), "per_rank",
                          per_rank);
    if (o && mc_stats_is_poll_op(op))
        json_object_set_new(o, "polls", json_integer((json_int_t)t.polls));
    int64_t lc, lb;
    int known = mc_stats_loop_op(v->st, op, -1, &lc, &lb);
    if (o) {
        json_object_set_new(o, "main_loop_calls", known ? json_integer((json_int_t)lc) : json_null());
        json_object_set_new(o, "main_loop_bytes", known ? json_integer((json_int_t)lb) : json_null());
    }
    return o;
}

static json_t *functions_json(const view *v)
{
    json_t *fns = json_object();
    for (int op = 0; fns && op < MC_OP_COUNT; op++) {
        if (!mc_stats_op_seen(v->st, op))
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        if (json_object_set_new(fns, name, function_json(v, op))) {
            json_decref(fns);
            return NULL;
        }
    }
    return fns;
}

static json_t *per_rank_json(const view *v)
{
    json_t *arr = json_array();
    for (int r = 0; arr && r < mc_stats_nranks(v->st); r++) {
        mc_stats_rank x = mc_stats_rank_at(v->st, r);
        json_t *o = json_pack("{sisfsfsfsIsIsIsI}", "rank", r, "app_time", seconds(x.app_ns),
                              "mpi_time", seconds(x.mpi_ns), "mpi_percent",
                              percent((double)x.mpi_ns, (double)x.app_ns), "calls",
                              (json_int_t)x.calls, "bytes", (json_int_t)x.bytes, "sends",
                              (json_int_t)x.sends, "send_bytes", (json_int_t)x.send_bytes);
        if (o)
            json_object_set_new(o, "polls", json_integer((json_int_t)x.polls));
        if (json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *site_json(const view *v, const mc_stats_site *x, const totals *t)
{
    const mc_meta_site *info = site_info(v, x->site);
    char name[64];
    mpi_name(name, sizeof name, x->op);
    return json_pack("{sisssIsIsfsfsfsssssiss}", "id", (int)x->site, "mpi", name, "calls",
                     (json_int_t)x->c.calls, "bytes", (json_int_t)x->c.bytes, "time",
                     seconds(x->c.time_ns), "app_percent",
                     percent((double)x->c.time_ns, (double)t->app_sum_ns), "mpi_percent",
                     percent((double)x->c.time_ns, (double)t->mpi_ns), "caller",
                     info ? info->function : "", "file", info ? info->file : "", "line",
                     info ? info->line : 0, "module", info ? info->module : "");
}

static json_t *sites_json(const view *v, const totals *t)
{
    mc_stats_site top[TOP_SITES];
    size_t n = mc_stats_top_sites(v->st, top, TOP_SITES);
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, site_json(v, &top[i], t))) {
            json_decref(arr);
            arr = NULL;
        }
    return arr;
}

static json_t *warnings_json(const view *v)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < mc_stats_nwarnings(v->st); i++)
        json_array_append_new(arr, json_string(mc_stats_warning(v->st, i)));
    return arr;
}

/* "process_grid": {"dims": [...], "periods": [...]} or null. */
static json_t *grid_json(const view *v)
{
    mc_stats_grid g = mc_stats_process_grid(v->st);
    if (!g.ndims)
        return json_null();
    json_t *dims = json_array(), *per = json_array();
    for (int d = 0; d < g.ndims && dims && per; d++) {
        json_array_append_new(dims, json_integer(g.dims[d]));
        json_array_append_new(per, json_boolean(g.periods[d]));
    }
    return json_pack("{soso}", "dims", dims ? dims : json_null(), "periods",
                     per ? per : json_null());
}

/* "main_loop": the run's iteration count (null when the ranks differ or
 * none has a loop) and each rank's loop. */
static json_t *main_loop_json(const view *v)
{
    uint64_t it;
    int with;
    int same = mc_stats_loop_iterations(v->st, &it, &with);
    json_t *per = json_array();
    for (int r = 0; per && r < mc_stats_nranks(v->st); r++) {
        mc_loop l = mc_stats_main_loop(v->st, r);
        if (!l.iterations)
            continue;
        char name[64], where[512], site[16];
        mpi_name(name, sizeof name, l.op);
        site_where(v, l.site, where, sizeof where);
        snprintf(site, sizeof site, "%" PRIx32, (uint32_t)l.site);
        json_array_append_new(per, json_pack("{sisIsIsIssssss}", "rank", r, "iterations",
                                             (json_int_t)l.iterations, "calls_per_iteration",
                                             (json_int_t)l.period, "first_call",
                                             (json_int_t)l.first, "call", name, "site", site,
                                             "location", where));
    }
    return json_pack("{sosiso}", "iterations",
                     same ? json_integer((json_int_t)it) : json_null(), "ranks_with_loop", with,
                     "per_rank", per ? per : json_null());
}

static int print_json(const view *v)
{
    totals t = mc_stats_total(v->st);
    json_t *doc = json_pack(
        "{sssisbsosfsfsfsIsIsos{sIsfsfsI}soso}", "trace", v->dir, "ranks", mc_stats_nranks(v->st),
        "truncated", mc_stats_truncated(v->st), "warnings", warnings_json(v), "app_time", seconds(t.app_max_ns),
        "mpi_time", seconds(t.mpi_ns), "mpi_percent",
        percent((double)t.mpi_ns, (double)t.app_sum_ns), "calls", (json_int_t)t.calls, "bytes",
        (json_int_t)t.bytes, "functions", functions_json(v), "messages", "sends",
        (json_int_t)t.sends, "sends_per_rank", sends_per_rank(v), "avg_bytes", avg_bytes(v),
        "total_bytes", (json_int_t)t.send_bytes, "per_rank", per_rank_json(v), "sites",
        sites_json(v, &t));
    if (doc) { /* after "bytes", where the keys of the document are listed */
        json_object_set_new(doc, "polls", json_integer((json_int_t)t.polls));
        json_t *ml = main_loop_json(v);
        if (!ml) {
            json_decref(doc);
            doc = NULL;
        } else {
            json_object_set_new(doc, "main_loop", ml);
        }
        json_t *grid = doc ? grid_json(v) : NULL;
        if (doc && !grid) {
            json_decref(doc);
            doc = NULL;
        } else if (doc) {
            json_object_set_new(doc, "process_grid", grid);
        }
    }
    if (!doc) {
        /* jansson refuses strings that are not UTF-8, e.g. such a DIR name */
        fprintf(stderr, "mpicast: %s: cannot build the JSON document (out of memory, or a "
                        "name that is not UTF-8)\n", v->dir);
        return CLI_BAD_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

/* ---------------------------------------------------------------- text */

static void print_ranks_text(const view *v, const totals *t)
{
    printf("Per rank        %14s %14s %7s %12s %16s %10s\n", "app time (s)", "MPI time (s)",
           "MPI %", "calls", "bytes", "sends");
    for (int r = 0; r < mc_stats_nranks(v->st); r++) {
        mc_stats_rank x = mc_stats_rank_at(v->st, r);
        printf("%-15d %14.6f %14.6f %7.2f %12" PRId64 " %16" PRId64 " %10" PRId64 "\n", r,
               seconds(x.app_ns), seconds(x.mpi_ns), percent((double)x.mpi_ns, (double)x.app_ns),
               x.calls, x.bytes, x.sends);
    }
    printf("%-15s %14.6f %14.6f %7.2f %12" PRId64 " %16" PRId64 " %10" PRId64 "\n",
           "all (max/sum)", seconds(t->app_max_ns), seconds(t->mpi_ns),
           percent((double)t->mpi_ns, (double)t->app_sum_ns), t->calls, t->bytes, t->sends);
}

static void print_functions_text(const view *v, const totals *t)
{
    printf("\nFunctions (all ranks)   %12s %16s %14s %7s\n", "calls", "bytes", "time (s)",
           "MPI %");
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!mc_stats_op_seen(v->st, op))
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        mc_stats_counts c = mc_stats_op(v->st, op, -1);
        printf("%-23s %12" PRId64 " %16" PRId64 " %14.6f ", name, c.calls, c.bytes,
               seconds(c.time_ns));
        /* Init and Finalize lie outside the MPI time (see docs/json.md). */
        if (op == MC_OP_INIT || op == MC_OP_FINALIZE)
            printf("%7s\n", "-");
        else
            printf("%7.2f\n", percent((double)c.time_ns, (double)t->mpi_ns));
    }
    printf("\nFunctions per rank      %6s %12s %16s %14s\n", "rank", "calls", "bytes",
           "time (s)");
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!mc_stats_op_seen(v->st, op))
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        for (int r = 0; r < mc_stats_nranks(v->st); r++) {
            mc_stats_counts c = mc_stats_op(v->st, op, r);
            if (c.calls)
                printf("%-23s %6d %12" PRId64 " %16" PRId64 " %14.6f\n", name, r, c.calls,
                       c.bytes, seconds(c.time_ns));
        }
    }
}

static void print_messages_text(const view *v)
{
    totals t = mc_stats_total(v->st);
    printf("\nPoint-to-point messages sent\n");
    printf("  messages          %" PRId64 "\n", t.sends);
    printf("  per rank          %.2f\n", sends_per_rank(v));
    printf("  average length    %.2f bytes\n", avg_bytes(v));
    printf("  total volume      %" PRId64 " bytes\n", t.send_bytes);
}

/* Polls: Test* and Iprobe calls that found nothing (a polling loop's). */
static void print_polls_text(const view *v, const totals *t)
{
    printf("\nPolls (Test*/Iprobe calls that completed or found nothing)\n");
    printf("  polls             %" PRId64 "\n", t->polls);
    for (int op = 0; op < MC_OP_COUNT; op++)
        if (mc_stats_op_seen(v->st, op) && mc_stats_is_poll_op(op)) {
            char name[64];
            mc_stats_counts c = mc_stats_op(v->st, op, -1);
            mpi_name(name, sizeof name, op);
            printf("  %-17s %" PRId64 " of %" PRId64 " calls\n", name, c.polls, c.calls);
        }
}

/* The main loop: its iterations and where each rank's starts. */
static void print_loop_text(const view *v)
{
    uint64_t it;
    int with;
    int same = mc_stats_loop_iterations(v->st, &it, &with);
    printf("\nMain loop (the longest run of identical iterations)\n");
    if (!with) {
        printf("  none: no rank repeats an iteration 3 times or more\n");
        return;
    }
    if (same)
        printf("  iterations        %" PRIu64 " (%d of %d ranks)\n", it, with,
               mc_stats_nranks(v->st));
    else
        printf("  iterations        differ between ranks (see below)\n");
    int shown = 0;
    for (int r = 0; r < mc_stats_nranks(v->st) && shown < 4; r++) {
        mc_loop l = mc_stats_main_loop(v->st, r);
        if (!l.iterations)
            continue;
        char name[64], where[512];
        mpi_name(name, sizeof name, l.op);
        site_where(v, l.site, where, sizeof where);
        printf("  rank %-12d %" PRIu64 " x %" PRIu64 " calls from call %" PRIu64
               ", starting with %s at %s%s\n", r, l.iterations, l.period, l.first, name, where,
               l.partial ? " (more than 65536 call shapes: partial)" : "");
        shown++;
    }
    if (with > shown)
        printf("  (%d more ranks with a loop: --json lists them)\n", with - shown);
}

/* The process grid, when the run made one of MPI_COMM_WORLD. */
static void print_grid_text(const view *v)
{
    mc_stats_grid g = mc_stats_process_grid(v->st);
    if (!g.ndims)
        return;
    printf("\nProcess grid (MPI_Cart_create of MPI_COMM_WORLD)\n  dims             ");
    for (int d = 0; d < g.ndims; d++)
        printf("%s%d", d ? " x " : " ", g.dims[d]);
    printf("\n  periodic         ");
    for (int d = 0; d < g.ndims; d++)
        printf("%s%s", d ? ", " : " ", g.periods[d] ? "yes" : "no");
    printf("\n");
}

static void print_sites_text(const view *v, const totals *t)
{
    mc_stats_site top[TOP_SITES];
    size_t n = mc_stats_top_sites(v->st, top, TOP_SITES);
    printf("\nTop call sites by MPI time\n  %-8s %-22s %10s %14s %7s %7s  %s\n", "site", "call",
           "calls", "time (s)", "App %", "MPI %", "location");
    for (size_t i = 0; i < n; i++) {
        const mc_stats_site *x = &top[i];
        char name[64], where[512];
        mpi_name(name, sizeof name, x->op);
        site_where(v, x->site, where, sizeof where);
        printf("  %-8" PRIx32 " %-22s %10" PRId64 " %14.6f %7.2f %7.2f  %s\n", (uint32_t)x->site,
               name, x->c.calls, seconds(x->c.time_ns),
               percent((double)x->c.time_ns, (double)t->app_sum_ns),
               percent((double)x->c.time_ns, (double)t->mpi_ns), where);
    }
}

static int print_text(const view *v)
{
    totals t = mc_stats_total(v->st);
    printf("Trace %s: %d ranks%s\n\n", v->dir, mc_stats_nranks(v->st),
           mc_stats_truncated(v->st) ? " (truncated: readable prefix only)" : "");
    print_ranks_text(v, &t);
    print_functions_text(v, &t);
    print_messages_text(v);
    print_polls_text(v, &t);
    print_loop_text(v);
    print_grid_text(v);
    print_sites_text(v, &t);
    return CLI_OK;
}

/* ---------------------------------------------------------------- command */

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, const char **dir, int *json)
{
    *json = 0;
    *dir = NULL;
    cli_one trace = {NULL, "TRACE"};
    const cli_opt opts[] = {
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (keys: docs/json.md)",
         json, NULL},
    };
    const cli_spec spec = {"stats", stats_head, stats_tail, 11, opts, CLI_NOPTS(opts),
                           cli_take_one, &trace, 0, 0};
    int rc;
    if (cli_parse(&spec, argc, argv, &rc))
        return rc;
    *dir = trace.value;
    return -1;
}

int cmd_stats(int argc, char **argv)
{
    const char *dir;
    int json;
    int rc = parse_args(argc, argv, &dir, &json);
    if (rc >= 0)
        return rc;
    mc_error err = {0};
    mc_source *src = mc_input_open(dir, &err);
    if (!src)
        return cli_fail(&err);
    mc_stats *st = mc_stats_collect(src, &err);
    if (!st) {
        mc_source_close(src);
        return cli_fail(&err);
    }
    for (size_t i = 0; i < mc_stats_nwarnings(st); i++) /* e.g. a truncated rank stream */
        fprintf(stderr, "mpicast: warning: %s%s\n", mc_stats_warning(st, i),
                mc_stats_truncated(st) ? " (statistics cover the readable prefix)" : "");
    view v = {dir, st, mc_source_meta(src)};
    rc = json ? print_json(&v) : print_text(&v);
    mc_stats_destroy(st);
    mc_source_close(src); /* after printing: the meta data belongs to the source */
    return rc;
}
