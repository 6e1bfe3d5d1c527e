/* mpicast extrapolate TRACE... --ranks P [-o DIR] [--explain] [rules...]
 *
 * Builds the extrapolation model from one or more small traces of the same
 * program (docs/extrapolation.md), and writes the P-rank pseudo-trace as a
 * trace directory (-o) and/or prints the rules applied per event class
 * (--explain). A pattern the model cannot explain fails with exit 1 naming
 * the class and the event. On a terminal, writing shows "ranks written / P"
 * on stderr unless --quiet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_output.h"
#include "opts.h"
#include "mpicast/extrap.h"
#include "mpicast/input.h"
#include "progress_source.h"

static const char extrapolate_head[] =
    "usage: mpicast extrapolate TRACE... --ranks P [-o DIR] [--format mpicast|dumpi]\n"
    "                           [--explain]\n"
    "                           [--rules FILE] [--rule KEY=VALUE]... [--grid DxD...]\n"
    "                           [--periodic 0,1,...] [--replicate [RANK]]\n"
    "                           [--scaling weak|strong] [--quiet]\n"
    "\n"
    "Rewrites small traces of a program into the trace of a P-rank run (the\n"
    "SCAMP pseudo-trace): ranks are placed on the process grid (MPI_Cart_create,\n"
    "the Comm_split rows/columns, or a ring), each rank follows the traced rank\n"
    "of its position class (corner, edge, interior), peers move by their grid\n"
    "offset, communicators are regenerated, and sizes follow a law of P: fitted\n"
    "when two or more traces are given, else the stated scaling; sizes that\n"
    "differ between ranks as blocks of a fixed global grid follow each rank's\n"
    "blocks at P.\n"
    "Every traced rank must be regenerated exactly, or the command fails\n"
    "naming the class, rank, event and call site it cannot explain. With two\n"
    "or more traces, each\n"
    "is also rebuilt from the others with the same rules and compared event by\n"
    "event (leave-one-out check): the first difference fails the command; with\n"
    "one trace, stated rules are unchecked (a warning, and meta.json 'checked').\n"
    "\n";

static const char extrapolate_tail[] =
    "\n"
    "Example:\n"
    "  mpicast extrapolate run16/ run64/ --ranks 4096 -o run4096/\n"
    "Exit status: 0 ok; 1 bad input or a pattern that is not explained; 2 usage.\n";

static void rank_written(void *ticker)
{
    progress_ticker_add(ticker);
}

/* The build's progress line: one ticker per phase (fold, check). */
typedef struct build_line {
    int quiet;
    progress_ticker *t;
    char what[96];
} build_line;

static void build_phase(void *ctx, const char *what, uint64_t total)
{
    build_line *b = ctx;
    progress_ticker_stop(b->t);
    snprintf(b->what, sizeof b->what, "extrapolate: %s", what);
    b->t = b->quiet ? NULL : progress_ticker_start(stderr, b->what, total);
}

static void build_step(void *ctx)
{
    progress_ticker_add(((build_line *)ctx)->t);
}

static void release(mc_source **hold, int n)
{
    for (int k = 0; hold && k < n; k++)
        mc_source_close(hold[k]);
    free(hold);
}

/* --format mpicast|dumpi */
static int set_format(void *dumpi, const char *opt, const char *value, mc_error *err)
{
    *(int *)dumpi = strcmp(value, "dumpi") == 0;
    if (!*(int *)dumpi && strcmp(value, "mpicast") != 0) {
        mc_error_set(err, MC_ERR_USAGE, "%s %s: expected mpicast or dumpi", opt, value);
        return -1;
    }
    return 0;
}

int cmd_extrapolate(int argc, char **argv)
{
    mc_extrap_rules rules;
    mc_extrap_rules_init(&rules);
    cli_list inputs = {0};
    int nranks = 0, explain = 0, quiet = 0, dumpi = 0, rc = CLI_OK;
    const char *out = NULL;
    const cli_opt opts[] = {
        {"--ranks", NULL, "P", CLI_VALUE, "process count of the run to generate", &nranks,
         cli_set_count},
        {"-o", NULL, "DIR", CLI_VALUE, "write the pseudo-trace there (a normal trace directory)",
         &out, NULL},
        {"--format", NULL, "F", CLI_VALUE,
         "mpicast (default) or dumpi: DIR gets a DUMPI trace\n"
         "(DIR/dumpi-mpicast.meta and -NNNN.bin, for SST/macro and\n"
         "CODES) streamed from the extrapolation, rank by rank", &dumpi, set_format},
        {"--explain", NULL, NULL, CLI_FLAG, "print the grid, the classes and the rule of each event",
         &explain, NULL},
        CLI_EXTRAP_RULE_OPTS(&rules),
        {"--quiet", NULL, NULL, CLI_FLAG,
         "no progress line on stderr (ranks folded, ranks checked,\n"
         "then ranks written / P; only when stderr is a terminal)", &quiet, NULL},
    };
    const cli_spec spec = {"extrapolate", extrapolate_head, extrapolate_tail, 21, opts,
                           CLI_NOPTS(opts), cli_collect, &inputs, 0, 0};
    if (cli_parse(&spec, argc, argv, &rc)) {
        cli_list_free(&inputs);
        return rc;
    }
    const char **traces = inputs.v;
    int ntraces = inputs.n;
    if (!ntraces || !nranks || (!out && !explain)) {
        cli_list_free(&inputs);
        return cli_usage_error("extrapolate: need TRACE..., --ranks P and -o DIR or --explain "
                               "(see 'mpicast extrapolate --help')");
    }
    mc_error err = {0};
    if (out && cli_output_clear(out, traces, (size_t)ntraces) != CLI_OK) {
        free(traces);
        return CLI_BAD_INPUT;
    }
    if (out && mc_out_dir_fresh(out, &err) != MC_OK) {
        free(traces);
        return cli_fail(&err);
    }
    /* Every input is held open to the end: the build, the leave-one-out
     * check and the writing open them again, and an imported input (OTF2,
     * DUMPI) is then imported once, here, before the progress thread (an
     * import forks; a fork beside a thread can deadlock). The check
     * compares every rank of every input trace. */
    mc_source **hold = calloc((size_t)ntraces, sizeof *hold);
    for (int k = 0; hold && k < ntraces; k++) {
        mc_error ignored = {0}; /* a bad trace is reported by the build */
        hold[k] = mc_input_open(traces[k], &ignored);
    }
    build_line line = {.quiet = quiet};
    mc_extrap_progress prog = {build_phase, build_step, &line};
    mc_extrap *x = mc_extrap_build_progress(traces, ntraces, &rules, &prog, &err);
    progress_ticker_stop(line.t);
    if (!x) {
        release(hold, ntraces);
        free(traces);
        return cli_fail(&err);
    }
    char stated[256];
    mc_extrap_rules_describe(&rules, stated, sizeof stated);
    if (!mc_extrap_checked(x) && (*stated || ntraces > 1))
        fprintf(stderr, "mpicast: warning: extrapolate: unchecked: %s (docs/extrapolation.md, "
                "\"Leave-one-out check\")\n", mc_extrap_unchecked(x));
    if (explain)
        mc_extrap_explain(x, nranks, stdout);
    if (out) {
        progress_ticker *t = quiet || dumpi ? NULL : progress_ticker_start(
                                 stderr, "extrapolate: ranks", (uint64_t)nranks);
        /* written aside and renamed into place: a failure leaves no partial DIR */
        char tmp[MC_OUT_PATH_MAX + 32];
        mc_err e = mc_out_dir_open(tmp, sizeof tmp, out, &err);
        if (!e && dumpi) /* output-format hook: DUMPI from the event stream */
            e = cli_extrapolate_dumpi(x, nranks, tmp, quiet, &err);
        else if (!e)
            e = mc_extrap_write_progress(x, nranks, tmp, rank_written, t, &err);
        progress_ticker_stop(t); /* the line is cleared before any error is printed */
        if (e) {
            mc_out_dir_abort(tmp);
            mc_error_replace(&err, tmp, out); /* the directory the user named */
            rc = cli_fail(&err);
        } else if (mc_out_dir_commit(tmp, out, &err) != MC_OK) {
            rc = cli_fail(&err);
        }
    } else {
        mc_source *s = mc_extrap_source(x, nranks, &err); /* can P ranks be generated? */
        if (!s)
            rc = cli_fail(&err);
        mc_source_close(s);
    }
    if (rc == CLI_OK && mc_extrap_folded(x)) /* a shortcut not asked for: say so */
        fprintf(stderr, "mpicast: warning: extrapolate: %s\n", mc_extrap_folded_warning(&rules));
    char why[256];
    if (rc == CLI_OK && mc_extrap_fit_warning(x, why, sizeof why))
        fprintf(stderr, "mpicast: warning: extrapolate: %s\n", why);
    mc_extrap_destroy(x);
    release(hold, ntraces);
    free(traces);
    return rc;
}
