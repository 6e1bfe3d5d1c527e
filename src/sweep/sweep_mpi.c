/* mpirun -np K mpicast-sweep-mpi TRACE [same arguments as mpicast sweep]
 *
 * Spreads the sweep's tasks (points, then balance-point searches) over the K
 * ranks round-robin (task i on rank i mod K, each rank using --jobs threads
 * for its share), gathers the results on rank 0, which prints the same
 * table (or --csv / --json) as `mpicast sweep`. Every rank parses the
 * arguments itself (they are the same everywhere), so nothing but results
 * travels. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_args.h"
#include "mpicast/export.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mc_import_register_inputs(); /* every input kind, as mpicast sweep */
    sweep_cfg c;
    int stop = 0;
    /* only rank 0 talks: the others parse with stdout/stderr as they are but
     * their messages would repeat rank 0's, so they stay quiet on success */
    int rc = sweep_parse(argc, argv, &c, &stop, "sweep-mpi");
    if (rc || stop) {
        sweep_cfg_free(&c);
        MPI_Finalize();
        return rc;
    }
    if (rank == 0)
        sweep_warn_unchecked(&c, stderr);
    int n = sweep_ntasks(&c);
    sweep_result *res = calloc((size_t)n, sizeof *res);
    sweep_result *all = rank == 0 ? calloc((size_t)n * (size_t)size, sizeof *all) : NULL;
    int ok = res && (rank != 0 || all);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fputs("mpicast: sweep-mpi: out of memory\n", stderr);
        free(res);
        free(all);
        sweep_cfg_free(&c);
        MPI_Finalize();
        return 1;
    }
    sweep_run_tasks(&c, res, c.jobs, size, rank);
    /* results as bytes: every rank sends its whole array, rank 0 keeps task
     * i from rank i mod K */
    int bytes = (int)((size_t)n * sizeof *res);
    MPI_Gather(res, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < n; i++)
            res[i] = all[(size_t)(i % size) * (size_t)n + (size_t)i];
        rc = sweep_print(&c, res, stdout);
        if (fflush(stdout) != 0 && rc == SWEEP_OK)
            rc = SWEEP_BAD_INPUT;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(res);
    free(all);
    sweep_cfg_free(&c);
    MPI_Finalize();
    return rc;
}
