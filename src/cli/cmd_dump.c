/* mpicast dump — placeholder until its issue lands: refuses honestly. */
#include <stdio.h>
#include "cli.h"

int cmd_dump(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("mpicast: dump: not implemented yet\n", stderr);
    return CLI_USAGE;
}
