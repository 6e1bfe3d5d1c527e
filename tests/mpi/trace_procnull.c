/* Requests on MPI_PROC_NULL: Open MPI returns one shared static handle for
 * all of them; every request must still get its own id and its completion. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int x[4] = {0}, y[4];
    MPI_Request r[4];
    MPI_Irecv(&y[0], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&y[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&x[0], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&x[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Isend(&x[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&x[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
