/* mpicast predict — placeholder until its issue lands: refuses honestly. */
#include <stdio.h>
#include "cli.h"

int cmd_predict(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("mpicast: predict: not implemented yet\n", stderr);
    return CLI_USAGE;
}
