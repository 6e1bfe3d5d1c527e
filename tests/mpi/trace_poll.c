/* A polling loop, as HPCC's: rank 0 tests an Irecv until it completes, then
 * probes for a second message until it arrives; rank 1 sends each after
 * 30 ms. Rank 0 prints how many Test and Iprobe calls it made, the counts
 * the trace's statistics must give however the tracer folds them. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[8] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        usleep(30000);
        MPI_Send(buf, 8, MPI_INT, 0, 3, MPI_COMM_WORLD);
        usleep(30000);
        MPI_Send(buf, 8, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Request req;
        long tests = 0, probes = 0;
        int flag = 0;
        MPI_Irecv(buf, 8, MPI_INT, 1, 3, MPI_COMM_WORLD, &req);
        while (!flag) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            tests++;
        }
        flag = 0;
        while (!flag) {
            MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            probes++;
        }
        MPI_Recv(buf, 8, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("tests=%ld iprobes=%ld\n", tests, probes);
    }
    MPI_Finalize();
    return 0;
}
