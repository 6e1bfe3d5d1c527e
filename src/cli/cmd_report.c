/* mpicast report INPUT... -o FILE.html: one self-contained HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_output.h"
#include "mpicast/export.h"

static const char report_usage[] =
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
    "\n"
    "  -o FILE.html          output file (- for stdout)\n"
    "  --platform FILE       platform for the predictions (default: built-in)\n"
    "  --set KEY=VALUE       override a platform key\n"
    "  --window START:END    timeline window in seconds (default: whole run)\n"
    "  --no-predict          statistics only\n"
    "  --plots DIR           also write every plot as DIR/NAME.png and DIR/NAME.svg\n"
    "  --quiet               no progress line on stderr\n"
    "\n"
    "Plots need gnuplot (Debian gnuplot-nox); without it the page says so.\n"
    "Example:\n"
    "  mpicast report run4/ run16/ p64.json -o report.html --window 0:0.01\n"
    "Exit status: 0 ok; 1 unwritable output or bad platform; 2 usage error.\n";

int cmd_report(int argc, char **argv)
{
    mc_report_opts o;
    memset(&o, 0, sizeof o);
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    const char **sets = calloc((size_t)argc, sizeof *sets);
    const char *out = NULL;
    int quiet = 0, rc = CLI_OK;
    if (!inputs || !sets) {
        free(inputs);
        free(sets);
        return cli_usage_error("report: out of memory");
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int next = i + 1 < argc;
        if (cli_is_help(s)) {
            fputs(report_usage, stdout);
            goto done;
        }
        if (strcmp(s, "-o") == 0 && next) {
            out = argv[++i];
        } else if (strcmp(s, "--platform") == 0 && next) {
            o.platform = argv[++i];
        } else if (strcmp(s, "--set") == 0 && next) {
            sets[o.nsets++] = argv[++i];
        } else if (strcmp(s, "--plots") == 0 && next) {
            o.plots_dir = argv[++i];
        } else if (strcmp(s, "--window") == 0 && next) {
            char *end;
            o.window_start = strtod(argv[++i], &end);
            if (*end != ':' || (o.window_end = strtod(end + 1, &end), *end) ||
                !(o.window_end > o.window_start)) {
                rc = cli_usage_error("report: --window: expected START:END in seconds, START < END, got '%s'",
                                     argv[i]);
                goto done;
            }
        } else if (strcmp(s, "--no-predict") == 0) {
            o.no_predict = 1;
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            quiet = 1;
        } else if (s[0] == '-' && s[1]) {
            rc = cli_usage_error("report: unknown option or missing value: %s (see 'mpicast report --help')", s);
            goto done;
        } else {
            inputs[o.ninputs++] = s;
        }
    }
    if (!o.ninputs || !out) {
        rc = cli_usage_error("report: usage: mpicast report INPUT... -o FILE.html (see --help)");
        goto done;
    }
    o.inputs = inputs;
    o.sets = sets;
    inputs[o.ninputs] = o.platform; /* an input too; room: argc > ninputs */
    if ((rc = cli_output_clear(out, inputs, (size_t)o.ninputs + 1)) != CLI_OK)
        goto done;
    mc_error err = {0};
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
    free(inputs);
    free(sets);
    return rc;
}
