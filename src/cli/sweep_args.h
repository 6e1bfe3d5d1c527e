/* The command line of mpicast sweep and mpicast-sweep-mpi (sweep_args.c):
 * one option table, built into both programs. */
#ifndef MPICAST_CLI_SWEEP_ARGS_H
#define MPICAST_CLI_SWEEP_ARGS_H

#include "sweep.h"

/* Parses argv (argv[0] is the subcommand) into c, then sweep_prepare. Returns
 * SWEEP_OK, or an exit code after printing help (SWEEP_OK with *stop = 1) or
 * an error on stderr. c is to be freed with sweep_cfg_free in every case. */
int sweep_parse(int argc, char **argv, sweep_cfg *c, int *stop, const char *prog);

#endif
