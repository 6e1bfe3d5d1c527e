/* mpicast trace — placeholder until its issue lands: refuses honestly. */
#include <stdio.h>
#include "cli.h"

int cmd_trace(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("mpicast: trace: not implemented yet\n", stderr);
    return CLI_USAGE;
}
