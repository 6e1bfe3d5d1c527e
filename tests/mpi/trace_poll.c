/* A polling loop, as HPCC's: rank 0 tests an Irecv until it completes, then
 * probes for a second message until it arrives, then polls pairs of Irecvs
 * with Testany (whose array changes when the first completes), Testall and
 * Testsome; rank 1 sends each message after 20-30 ms. Rank 0 prints how many
 * calls of each it made, the counts the trace's statistics must give however
 * the tracer folds them (and whether its fast path takes them). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Computes for us microseconds without an MPI call. */
static void spin(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

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
        for (int tag = 11; tag <= 16; tag++) {
            usleep(20000);
            MPI_Send(buf, 4, MPI_INT, 0, tag, MPI_COMM_WORLD);
        }
        usleep(30000);
        MPI_Send(buf, 8, MPI_INT, 0, 20, MPI_COMM_WORLD);
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
        MPI_Request rs[2];
        long anys = 0, alls = 0, somes = 0;
        MPI_Irecv(buf, 4, MPI_INT, 1, 11, MPI_COMM_WORLD, &rs[0]);
        MPI_Irecv(buf + 4, 4, MPI_INT, 1, 12, MPI_COMM_WORLD, &rs[1]);
        for (int done = 0; done < 2;) {
            int idx;
            flag = 0;
            MPI_Testany(2, rs, &idx, &flag, MPI_STATUS_IGNORE);
            anys++;
            done += flag && idx != MPI_UNDEFINED;
        }
        MPI_Irecv(buf, 4, MPI_INT, 1, 13, MPI_COMM_WORLD, &rs[0]);
        MPI_Irecv(buf + 4, 4, MPI_INT, 1, 14, MPI_COMM_WORLD, &rs[1]);
        for (flag = 0; !flag; alls++)
            MPI_Testall(2, rs, &flag, MPI_STATUSES_IGNORE);
        MPI_Irecv(buf, 4, MPI_INT, 1, 15, MPI_COMM_WORLD, &rs[0]);
        MPI_Irecv(buf + 4, 4, MPI_INT, 1, 16, MPI_COMM_WORLD, &rs[1]);
        for (int done = 0; done < 2; somes++) {
            int out, idx[2];
            MPI_Testsome(2, rs, &out, idx, MPI_STATUSES_IGNORE);
            done += out == MPI_UNDEFINED ? 0 : out;
        }
        long spins = 0;
        MPI_Irecv(buf, 8, MPI_INT, 1, 20, MPI_COMM_WORLD, &req);
        for (flag = 0; !flag;) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (++tests % 20000 == 0 && !flag) {
                spin(200);
                spins++;
            }
        }
        printf("tests=%ld iprobes=%ld testanys=%ld testalls=%ld testsomes=%ld spins=%ld\n", tests,
               probes, anys, alls, somes, spins);
    }
    MPI_Finalize();
    return 0;
}
