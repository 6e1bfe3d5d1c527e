/* mpicast: the command table and dispatch (one file per subcommand). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mpicast/env.h"
#include "mpicast/export.h"
#include "mpicast/model.h"
#include "mpicast/outfile.h"

static const cli_command commands[] = {
    {"trace", cmd_trace, "run an MPI program with the tracer preloaded"},
    {"dump", cmd_dump, "print a trace as text, one line per event"},
    {"stats", cmd_stats, "calls, bytes, MPI time and message statistics"},
    {"predict", cmd_predict, "replay a trace on a modelled platform"},
    {"validate", cmd_validate, "measured vs predicted on the measured platform: the error split"},
    {"sweep", cmd_sweep, "what-if sweeps over platform keys and process counts, balance points"},
    {"model", cmd_model, "models of calls, times, bytes per function from small runs"},
    {"scaling", cmd_scaling, "processing-time model: strong and weak scaling"},
    {"blocks", cmd_blocks, "compute blocks: burst time per pair of call sites; compute tables"},
    {"export", cmd_export, "write a trace as OTF2, SimGrid time-independent text or Chrome JSON"},
    {"import", cmd_import, "read an OTF2 archive (Score-P) into a trace directory"},
    {"report", cmd_report, "one self-contained HTML page: stats, prediction, timeline, plots"},
    {"extrapolate", cmd_extrapolate, "pseudo-trace of a larger run from small traces"},
    {"compress", cmd_compress, "store each rank's main loop once: every reader expands it"},
    /* one rank of `trace --mode profile` (trace_profile.c starts it under
     * mpirun); its argv is the program's command line, passed on untouched */
    {"_profile-rank", cmd_profile_rank, NULL},
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

int cli_fail(const mc_error *err)
{
    fprintf(stderr, "mpicast: %s\n", err && err->msg[0] ? err->msg : "failed");
    return CLI_BAD_INPUT;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpicast: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_USAGE;
}

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && strcmp(s + a - b, suf) == 0;
}

int cli_plot_kind_ok(const char *path)
{
    return ends_with(path, ".svg") || ends_with(path, ".png");
}

int cli_set_plot(void *plot, const char *opt, const char *value, mc_error *err)
{
    if (!cli_plot_kind_ok(value)) {
        mc_error_set(err, MC_ERR_USAGE, "%s takes FILE.svg or FILE.png", opt);
        return -1;
    }
    *(const char **)plot = value;
    return 0;
}

FILE *cli_plot_data_file(char *path_template, const char *plot)
{
    int fd = mkstemp(path_template);
    FILE *d = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd), unlink(path_template);
        mc_error err = {0};
        mc_error_set(&err, MC_ERR_IO, "%s: cannot write the plot's data file", plot);
        cli_fail(&err);
    }
    return d;
}

int cli_split_label(char *arg, struct mc_run_label *label)
{
    char *colon = strrchr(arg, ':');
    if (!colon || access(arg, F_OK) == 0)
        return 0;
    int coord = (colon[1] == 'p' || colon[1] == 'n') && colon[2] == '=';
    if (!coord && strncmp(colon + 1, "iters=", 6) != 0)
        return 0;
    mc_error e = {0};
    if (mc_parse_label(colon + 1, label, &e))
        return -1;
    *colon = '\0';
    return 1;
}

static void usage(FILE *out)
{
    fputs("usage: mpicast COMMAND [ARGS...]   (mpicast COMMAND --help for details)\n\n"
          "commands:\n", out);
    for (size_t i = 0; i < ncommands; i++)
        if (commands[i].summary)
            fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

/* Like git's run_builtin: a command that succeeded but whose output could not
 * be written (full disk, closed pipe) has not succeeded. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mpicast: <stdout>: write failed: %s\n", strerror(errno));
        return rc == CLI_OK ? CLI_BAD_INPUT : rc;
    }
    return rc;
}

static void warn_env(const char *msg)
{
    fprintf(stderr, "mpicast: warning: %s\n", msg);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (is_help(argv[1])) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts("mpicast " MPICAST_VERSION);
        return CLI_OK;
    }
    mc_error env_err = {0};
    if (mc_env_check(&env_err, warn_env) != MC_OK)
        return cli_fail(&env_err); /* a setting mpicast would otherwise ignore */
    mc_out_cleanup_on_signals(); /* an interrupted command leaves no temporary output */
    mc_import_register_inputs();
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish_stdout(commands[i].run(argc - 1, argv + 1));
    return cli_usage_error("'%s' is not a command; see 'mpicast --help'", argv[1]);
}
