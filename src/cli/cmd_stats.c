/* mpicast stats — placeholder until its issue lands: refuses honestly. */
#include <stdio.h>
#include "cli.h"

int cmd_stats(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("mpicast: stats: not implemented yet\n", stderr);
    return CLI_USAGE;
}
