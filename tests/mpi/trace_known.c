/* A tiny MPI program with a known call sequence, traced by the tests
 * (test_trace_known checks the events exactly). Exactly 2 ranks.
 * usage: trace_known [EXIT_CODE]   (exits with EXIT_CODE after Finalize) */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int other = 1 - rank;

    /* 1. blocking, wildcard receive: 16 bytes sent into a 32-byte buffer */
    int ibuf[8] = {0};
    if (rank == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else
        MPI_Recv(ibuf, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

    /* 2. nonblocking with MPI_ANY_TAG, completed by Waitall */
    double dr[3], ds[2] = {1, 2};
    MPI_Request req[2];
    MPI_Irecv(dr, 3, MPI_DOUBLE, other, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(ds, 2, MPI_DOUBLE, other, 10 + rank, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

    /* 3. a collective */
    int x = rank, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* 4. a new communicator with reversed order, used by a wildcard Sendrecv */
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &split);
    int srank;
    MPI_Comm_rank(split, &srank);
    int s1 = rank, r1 = -1;
    MPI_Status st;
    MPI_Sendrecv(&s1, 1, MPI_INT, 1 - srank, 5, &r1, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 split, &st);

    /* 5. persistent requests, started twice */
    int ps = rank, pr = -1;
    MPI_Request preq[2];
    MPI_Send_init(&ps, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &preq[1]);
    MPI_Recv_init(&pr, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &preq[0]);
    for (int it = 0; it < 2; it++) {
        MPI_Startall(2, preq);
        MPI_Waitall(2, preq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&preq[0]);
    MPI_Request_free(&preq[1]);
    MPI_Comm_free(&split);

    /* 6. Pcontrol: the barrier between 0 and 1 is not recorded */
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    MPI_Pcontrol(2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
