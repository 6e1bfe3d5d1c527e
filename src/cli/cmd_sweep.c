/* mpicast sweep TRACE ... : what-if sweeps and balance points. The work is
 * in src/sweep (shared with mpicast-sweep-mpi); this is the table row. */
#include "cli.h"
#include "sweep.h"

int cmd_sweep(int argc, char **argv)
{
    return sweep_main(argc, argv);
}
