/* mpicast import otf2|dumpi INPUT -o DIR: an OTF2 archive (Score-P) or a
 * DUMPI trace (SST) becomes a trace directory that stats, predict and the
 * rest read. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/export.h"

static const char import_head[] =
    "usage: mpicast import otf2 ARCHIVE -o DIR [--quiet]\n"
    "       mpicast import dumpi DIR_OR_META -o DIR [--quiet]\n"
    "\n"
    "Reads an OTF2 archive as Score-P writes it (ARCHIVE: its traces.otf2 anchor\n"
    "file or the directory holding it) and writes the trace directory DIR: one\n"
    "rank per MPI process, one event per MPI call (the Enter/Leave of MPI_\n"
    "regions with the point-to-point and collective records inside them),\n"
    "compute bursts from the gaps between MPI calls, communicators from the\n"
    "definitions. `mpicast predict` also accepts ARCHIVE directly.\n"
    "\n"
    "dumpi reads a DUMPI trace as SST's libdumpi writes it (format 13.0.0):\n"
    "DIR_OR_META is its dumpi-*.meta file or the directory holding it, beside\n"
    "one dumpi-*-NNNN.bin per rank. Every call mpicast records becomes an\n"
    "event (local queries such as Comm_rank fall into the compute bursts),\n"
    "communicators are mapped to world ranks, wall and CPU times kept to the\n"
    "nanosecond. Every command also reads DIR_OR_META directly.\n"
    "\n";

static const char import_tail[] =
    "\n"
    "Example:\n"
    "  mpicast import otf2 scorep-run/traces.otf2 -o run/ && mpicast stats run/\n"
    "  mpicast import dumpi sst-traces/ -o run/ && mpicast predict run/\n"
    "What OTF2 cannot tell (v-collective counts, buffer sizes): docs/formats.md.\n"
    "Exit status: 0 ok; 1 unreadable archive; 2 usage error.\n";

int cmd_import(int argc, char **argv)
{
    const char *fmt = NULL, *archive = NULL, *out = NULL;
    int quiet = 0, status;
    cli_list args = {0};
    const cli_opt opts[] = {
        {"-o", NULL, "DIR", CLI_VALUE, "trace directory to write", &out, NULL},
        {"--quiet", "-q", NULL, CLI_FLAG, "no progress line on stderr", &quiet, NULL},
    };
    const cli_spec spec = {"import", import_head, import_tail, 15, opts, CLI_NOPTS(opts),
                           cli_collect, &args, 0, 0};
    int stop = cli_parse(&spec, argc, argv, &status);
    fmt = args.n > 0 ? args.v[0] : NULL;
    archive = args.n > 1 ? args.v[1] : NULL;
    const char *extra = args.n > 2 ? args.v[2] : NULL;
    cli_list_free(&args);
    if (stop)
        return status;
    if (extra)
        return cli_usage_error("import: unexpected argument: %s", extra);
    if (!fmt || !archive || !out)
        return cli_usage_error("import: usage: mpicast import otf2|dumpi INPUT -o DIR (see --help)");
    int dumpi = strcmp(fmt, "dumpi") == 0;
    if (strcmp(fmt, "otf2") != 0 && !dumpi)
        return cli_usage_error("import: unknown format '%s' (otf2 or dumpi; time-independent "
                               "traces are read directly by predict)", fmt);
    const char *inputs[] = {archive};
    if (cli_output_clear(out, inputs, 1) != CLI_OK)
        return CLI_BAD_INPUT;
    mc_error err = {0};
    if (mc_out_dir_fresh(out, &err) != MC_OK)
        return cli_fail(&err);
    mc_progress prog = {.out = !quiet && isatty(2) ? stderr : NULL, .what = "import"};
    mc_err rc = dumpi ? mc_import_dumpi(archive, out, NULL, &prog, &err)
                      : mc_import_otf2(archive, out, NULL, &prog, &err);
    if (rc)
        return cli_fail(&err);
    return CLI_OK;
}
