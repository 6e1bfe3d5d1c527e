/* mpicast export otf2|tit|chrome DIR -o OUT: a trace directory in another
 * tool's format (docs/formats.md has the mappings and what each loses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/export.h"

static const char export_head[] =
    "usage: mpicast export otf2|tit|chrome|dumpi TRACE -o OUT [--flops RATE] [--quiet]\n"
    "       mpicast export chrome TRACE -o OUT [--ranks LIST] [--window START:END]\n"
    "\n"
    "Writes TRACE (any input kind: a trace directory, an OTF2 archive, a\n"
    "time-independent text trace) in another tool's format:\n"
    "  otf2    OUT is a directory: an OTF2 archive OUT/traces.otf2 (Vampir,\n"
    "          otf2-print, Score-P tools); one location per rank\n"
    "  tit     OUT is a directory: SimGrid time-independent traces, one file per\n"
    "          rank and the list OUT/traces.txt for `smpirun -replay` (and for\n"
    "          `mpicast predict OUT/traces.txt`); compute bursts become\n"
    "          `compute F` flops at RATE flop/s (--flops, default 1e9: replay\n"
    "          with cpu.flops equal to RATE to get the original times)\n"
    "  chrome  OUT is a JSON file (- for stdout): Chrome trace-event format for\n"
    "          Perfetto (ui.perfetto.dev) or chrome://tracing; one track per\n"
    "          rank, compute / MPI call / known waiting, arrows for messages\n"
    "  dumpi   OUT is a directory: a DUMPI trace (format 13.0.0) for SST/macro,\n"
    "          CODES and dumpi2ascii: OUT/dumpi-mpicast.meta and one\n"
    "          OUT/dumpi-mpicast-NNNN.bin per rank, written rank by rank (an\n"
    "          extrapolated pseudo-trace of any size streams through); sizes are\n"
    "          counts of MPI_BYTE"

    "\n";

static const char export_tail[] =
    "\n"
    "Example:\n"
    "  mpicast export tit run16/ -o run16.tit && mpicast predict run16.tit/traces.txt\n"
    "Operations a format cannot express are dropped and counted on stderr.\n"
    "Exit status: 0 ok; 1 unreadable trace or unwritable output; 2 usage error.\n";

/* The values of export's options (the handlers' target). */
typedef struct export_args {
    double flops;           /* --flops */
    int filtered;           /* --ranks or --window given */
    unsigned char *rank_flags; /* --ranks, one flag per rank; freed by the command */
    mc_chrome_filter flt;
} export_args;

/* "0-3,8" into a flag per rank (0..max listed); 0, or a usage error. */
static int parse_ranks(const char *arg, unsigned char **flags, int *n)
{
    *flags = NULL;
    *n = 0;
    for (const char *p = arg; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0 || a > 1 << 24)
            return -1;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > 1 << 24)
                return -1;
        }
        if (*end != ',' && *end)
            return -1;
        if (b >= *n) {
            unsigned char *f = realloc(*flags, (size_t)b + 1);
            if (!f)
                return -1;
            memset(f + *n, 0, (size_t)(b + 1 - *n));
            *flags = f;
            *n = (int)b + 1;
        }
        memset(*flags + a, 1, (size_t)(b - a + 1));
        p = *end ? end + 1 : end;
    }
    return *n ? 0 : -1;
}

/* --window START:END in seconds into ns; 0, or -1. */
static int parse_window(const char *arg, mc_chrome_filter *flt)
{
    char *end;
    double a = strtod(arg, &end), b;
    if (end == arg || *end != ':')
        return -1;
    const char *p = end + 1;
    b = strtod(p, &end);
    if (end == p || *end || !(a >= 0) || !(b > a) || b > 9e9)
        return -1;
    flt->t0 = (int64_t)(a * 1e9);
    flt->t1 = (int64_t)(b * 1e9);
    return 0;
}

static int set_flops(void *args, const char *opt, const char *value, mc_error *err)
{
    export_args *x = args;
    char *end;
    x->flops = strtod(value, &end);
    if (end == value || *end || !(x->flops > 0)) {
        mc_error_set(err, MC_ERR_USAGE, "%s: expected a positive number, got '%s'", opt, value);
        return -1;
    }
    return 0;
}

static int set_ranks(void *args, const char *opt, const char *value, mc_error *err)
{
    export_args *x = args;
    free(x->rank_flags);
    if (parse_ranks(value, &x->rank_flags, &x->flt.nranks) != 0) {
        mc_error_set(err, MC_ERR_USAGE, "%s: expected a list like 0-3,8, got '%s'", opt, value);
        return -1;
    }
    x->flt.ranks = x->rank_flags;
    x->filtered = 1;
    return 0;
}

static int set_window(void *args, const char *opt, const char *value, mc_error *err)
{
    export_args *x = args;
    if (parse_window(value, &x->flt) != 0) {
        mc_error_set(err, MC_ERR_USAGE, "%s: expected START:END in seconds, 0 <= START < END, "
                     "got '%s'", opt, value);
        return -1;
    }
    x->filtered = 1;
    return 0;
}

int cmd_export(int argc, char **argv)
{
    const char *fmt = NULL, *dir = NULL, *out = NULL;
    int quiet = 0;
    export_args x = {.flops = 1e9, .flt = {.t0 = 0, .t1 = -1}};
    cli_list args = {0};
    const cli_opt opts[] = {
        {"-o", NULL, "OUT", CLI_VALUE, "output directory or file", &out, NULL},
        {"--flops", NULL, "RATE", CLI_VALUE, "flop/s for the tit export (default 1e9)", &x,
         set_flops},
        {"--ranks", NULL, "LIST", CLI_VALUE, "chrome: these ranks only (e.g. 0-3,8; default all)",
         &x, set_ranks},
        {"--window", NULL, "START:END", CLI_VALUE,
         "chrome: the calls and bursts overlapping this window, in\n"
         "seconds from the trace's first event (default: whole run)", &x, set_window},
        {"--quiet", "-q", NULL, CLI_FLAG, "no progress line on stderr", &quiet, NULL},
    };
    const cli_spec spec = {"export", export_head, export_tail, 16, opts, CLI_NOPTS(opts),
                           cli_collect, &args, 0, 0};
    int status;
    int stop = cli_parse(&spec, argc, argv, &status);
    fmt = args.n > 0 ? args.v[0] : NULL;
    dir = args.n > 1 ? args.v[1] : NULL;
    const char *extra = args.n > 2 ? args.v[2] : NULL;
    cli_list_free(&args);
    if (!stop && extra)
        status = cli_usage_error("export: unexpected argument: %s", extra);
    if (stop || extra) {
        free(x.rank_flags);
        return status;
    }
    unsigned char *rank_flags = x.rank_flags;
    double flops = x.flops;
    int filtered = x.filtered;
    mc_chrome_filter flt = x.flt;
    int rc_usage = CLI_OK;
    if (!fmt || !dir || !out)
        rc_usage = cli_usage_error("export: usage: mpicast export otf2|tit|chrome|dumpi TRACE -o OUT (see --help)");
    else if (filtered && strcmp(fmt, "chrome") != 0) /* not silently ignored */
        rc_usage = cli_usage_error("export: --ranks and --window apply to chrome only");
    if (rc_usage != CLI_OK) {
        free(rank_flags);
        return rc_usage;
    }
    const char *inputs[] = {dir};
    if (cli_output_clear(out, inputs, 1) != CLI_OK) {
        free(rank_flags);
        return CLI_BAD_INPUT;
    }
    mc_error err = {0};
    mc_export_info info = {0};
    mc_progress prog = {.out = !quiet && isatty(2) ? stderr : NULL, .what = "export"};
    mc_err rc;
    if (strcmp(fmt, "tit") == 0) {
        rc = mc_export_tit(dir, out, flops, &info, &prog, &err);
    } else if (strcmp(fmt, "otf2") == 0) {
        rc = mc_export_otf2(dir, out, &info, &prog, &err);
    } else if (strcmp(fmt, "dumpi") == 0) {
        rc = mc_export_dumpi(dir, out, NULL, &info, &prog, &err);
    } else if (strcmp(fmt, "chrome") == 0) {
        mc_out o;
        FILE *f = cli_output_open(&o, out, &err);
        if (!f) {
            free(rank_flags);
            return cli_fail(&err);
        }
        rc = cli_output_finish(&o, f, mc_export_chrome(dir, f, &flt, &info, &prog, &err), &err);
    } else {
        free(rank_flags);
        return cli_usage_error("export: unknown format '%s' (otf2, tit, chrome or dumpi)", fmt);
    }
    free(rank_flags);
    if (rc)
        return cli_fail(&err);
    cli_warn_dropped("export", fmt, &info);
    return CLI_OK;
}

void cli_warn_dropped(const char *cmd, const char *fmt, const mc_export_info *info)
{
    if (info->folded_runs) /* a loss of data: said even with --quiet */
        fprintf(stderr, "mpicast: %s %s: %llu runs of failed polls folded by the tracer (%llu "
                "calls) are written as one call each: the format has no call count (see "
                "docs/trace-format.md, \"Folded polls\")\n", cmd, fmt,
                (unsigned long long)info->folded_runs, (unsigned long long)info->folded_calls);
    if (!info->dropped) /* a loss of data: said even with --quiet */
        return;
    if (info->dropped_ops[0])
        fprintf(stderr, "mpicast: %s %s: %llu events the format cannot express were left out "
                        "(%s; see docs/formats.md)\n",
                cmd, fmt, (unsigned long long)info->dropped, info->dropped_ops);
    else
        fprintf(stderr, "mpicast: %s %s: %llu events the format cannot express were left out "
                        "(first: %s; see docs/formats.md)\n",
                cmd, fmt, (unsigned long long)info->dropped, info->first_dropped);
}
