/* Internal to the mpicast CLI: the files a subcommand writes, through the
 * safe outputs of include/mpicast/outfile.h. */
#ifndef MPICAST_CLI_OUTPUT_H
#define MPICAST_CLI_OUTPUT_H

#include <stdio.h>

#include "mpicast/outfile.h"

/* 0 when `out` is neither one of the n inputs nor inside one; else prints
 * "mpicast: OUT: is the input IN; ..." and returns CLI_BAD_INPUT (nothing
 * has been written). NULL inputs are skipped. */
int cli_output_clear(const char *out, const char *const *inputs, size_t n);

/* The stream to write `out` to: stdout for "-", else an mc_out temporary
 * (o->f). NULL with err filled. */
FILE *cli_output_open(mc_out *o, const char *out, mc_error *err);

/* Ends an output opened by cli_output_open: with rc == MC_OK renames it into
 * place (a failure is returned in err), otherwise removes the temporary and
 * returns rc, so a failed command leaves nothing under the final name. */
mc_err cli_output_finish(mc_out *o, FILE *f, mc_err rc, mc_error *err);

#endif
