/* Runs until killed: small Sendrecv/Allreduce rounds, so that a SIGKILL
 * lands mid-run. Rank 0 creates READY_FILE (argv[1]) after 2000 rounds. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (long it = 0;; it++) {
        int a = rank, b = 0;
        MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % size, 1, &b, 1, MPI_INT,
                     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (it == 2000 && rank == 0 && argc > 1) {
            FILE *fp = fopen(argv[1], "w");
            if (fp)
                fclose(fp);
        }
    }
    MPI_Finalize();
    return 0;
}
