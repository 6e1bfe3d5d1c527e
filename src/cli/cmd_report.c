/* mpicast report INPUT... -o FILE.html: one self-contained HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/export.h"

static const char report_head[] =
    "usage: mpicast report INPUT... -o FILE.html [--platform FILE] [--set KEY=VALUE]...\n"
    "                      [--window START:END] [--no-predict] [--plots DIR] [--quiet]\n"
    "\n"
    "Writes one self-contained HTML page (inline CSS and SVG: no network, no\n"
    "script) readable in any browser. INPUT is a JSON file (named *.json) or a\n"
    "trace of any input kind (a trace directory, an OTF2 archive, a SimGrid\n"
    "time-independent text trace):\n"
    "  trace             summary, MPI statistics per function, the prediction on\n"
    "                    the platform with its breakdown (free-network replay),\n"
    "                    per-rank stacked bars of compute/comm/wait, the simulated\n"
    "                    timeline\n"
    "  predict --json    a point of the time-versus-process-count plot (with the\n"
    "                    predictions of the trace inputs)\n"
    "  scaling --json    strong and weak scaling curves\n"
    "  sweep --json      the predicted time of each point\n"
    "\n";

static const char report_tail[] =
    "\n"
    "Plots need gnuplot (Debian gnuplot-nox); without it the page says so.\n"
    "Example:\n"
    "  mpicast report run4/ run16/ p64.json -o report.html --window 0:0.01\n"
    "Exit status: 0 ok; 1 unwritable output or bad platform; 2 usage error.\n";

/* --window START:END, in seconds, START < END */
static int set_window(void *opts, const char *opt, const char *value, mc_error *err)
{
    mc_report_opts *o = opts;
    char *end;
    o->window_start = strtod(value, &end);
    if (*end != ':' || (o->window_end = strtod(end + 1, &end), *end) ||
        !(o->window_end > o->window_start)) {
        mc_error_set(err, MC_ERR_USAGE, "%s: expected START:END in seconds, START < END, got "
                     "'%s'", opt, value);
        return -1;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    mc_report_opts o;
    memset(&o, 0, sizeof o);
    cli_list inputs = {0}, sets = {0};
    const char *out = NULL;
    int quiet = 0, rc = CLI_OK;
    const cli_opt opts[] = {
        {"-o", NULL, "FILE.html", CLI_VALUE, "output file (- for stdout)", &out, NULL},
        CLI_PLATFORM_OPTS(&o.platform, &sets),
        {"--window", NULL, "START:END", CLI_VALUE,
         "timeline window in seconds (default: whole run)", &o, set_window},
        {"--no-predict", NULL, NULL, CLI_FLAG, "statistics only", &o.no_predict, NULL},
        {"--plots", NULL, "DIR", CLI_VALUE,
         "also write every plot as DIR/NAME.png and DIR/NAME.svg", &o.plots_dir, NULL},
        {"--quiet", "-q", NULL, CLI_FLAG, "no progress line on stderr", &quiet, NULL},
    };
    const cli_spec spec = {"report", report_head, report_tail, 24, opts, CLI_NOPTS(opts),
                           cli_collect, &inputs, 0, 0};
    if (cli_parse(&spec, argc, argv, &rc))
        goto done;
    if (!inputs.n || !out) {
        rc = cli_usage_error("report: usage: mpicast report INPUT... -o FILE.html (see --help)");
        goto done;
    }
    mc_error err = {0};
    o.ninputs = inputs.n;
    o.nsets = sets.n;
    /* the platform is an input too (never to be overwritten by -o) */
    if (cli_list_add(&inputs, o.platform, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    o.inputs = inputs.v;
    o.sets = sets.v;
    if ((rc = cli_output_clear(out, inputs.v, (size_t)inputs.n)) != CLI_OK)
        goto done;
    mc_out of;
    FILE *f = cli_output_open(&of, out, &err);
    if (!f) {
        rc = cli_fail(&err);
        goto done;
    }
    mc_progress prog = {.out = !quiet && isatty(2) ? stderr : NULL, .what = "report"};
    mc_err e = cli_output_finish(&of, f, mc_report_html(&o, f, &prog, &err), &err);
    if (e)
        rc = cli_fail(&err);
done:
    cli_list_free(&inputs);
    cli_list_free(&sets);
    return rc;
}
