/* Internal to the mpicast CLI: the subcommand table and shared helpers. */
#ifndef MPICAST_CLI_H
#define MPICAST_CLI_H

#include "mpicast/error.h"

/* Exit codes of every subcommand (DESIGN.md). */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_USAGE = 2 };

typedef struct cli_command {
    const char *name;
    /* argv[0] is the subcommand name; each parses its options by its table
     * (opts.h: one grammar, --opt=value and --opt value everywhere) */
    int (*run)(int argc, char **argv);
    const char *summary; /* NULL: internal, not listed (its caller is mpicast itself) */
} cli_command;

/* Prints "mpicast: MSG" on stderr and returns CLI_BAD_INPUT. */
int cli_fail(const mc_error *err);
/* Prints "mpicast: <printf>" on stderr and returns CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True when a --plot path names a format the plotter writes (.svg, .png). */
int cli_plot_kind_ok(const char *path);
/* Option handler (opts.h) of --plot: *(const char **)plot = a .svg or .png path. */
int cli_set_plot(void *plot, const char *opt, const char *value, mc_error *err);
/* Creates the temporary data file of a --plot from `path_template`
 * ("/tmp/...-XXXXXX", rewritten to the name); NULL after printing the
 * error that names `plot`. */
FILE *cli_plot_data_file(char *path_template, const char *plot);
/* "INPUT:p=64,n=B" (model, scaling) when INPUT:... itself does not exist:
 * cuts the label off `arg` into *label. 1 when split, 0 when there is none,
 * -1 when the label is malformed. */
struct mc_run_label;
int cli_split_label(char *arg, struct mc_run_label *label);

int cmd_trace(int argc, char **argv);
int cmd_profile_rank(int argc, char **argv); /* internal: trace --mode profile */
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_scaling(int argc, char **argv);
int cmd_blocks(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_extrapolate(int argc, char **argv);
int cmd_compress(int argc, char **argv);

/* extrapolate --format dumpi (extrap_dumpi.c): the P-rank pseudo-trace of x
 * streamed from its event source straight into the DUMPI files of dir (one
 * rank at a time, never a mpicast trace in between); the losses are named
 * in one warning. MC_OK or an error in err. */
struct mc_extrap;
struct mc_error;
int cli_extrapolate_dumpi(const struct mc_extrap *x, int nranks, const char *dir, int quiet,
                          struct mc_error *err);
/* The one-line warning of what an export left out (cmd_export.c): the count
 * and the operations' names; nothing when nothing was. */
struct mc_export_info;
void cli_warn_dropped(const char *cmd, const char *fmt, const struct mc_export_info *info);

#endif
