/* An MPI program for token mode (test_token_examples.py): every blocking
 * call the token protocol rewrites, and the patterns that would deadlock a
 * naive token — a rank spinning on MPI_Test and on MPI_Iprobe while its
 * partner still has to compute, synchronous sends, ANY_SOURCE receives,
 * collectives on a sub-communicator. Prints one checksum line on rank 0,
 * the same in every mode and at every run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A few microseconds of deterministic work, so that a partner is late. */
static double work(int n, double x)
{
    for (int i = 0; i < n; i++)
        x = x * 0.999 + 1.0 / (i + 1.0);
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double sum = 0.0, v = rank + 1.0, got = 0.0;
    MPI_Status st;

    /* synchronous sends around the ring: even ranks send first */
    for (int round = 0; round < 3; round++) {
        if (rank % 2 == 0) {
            MPI_Ssend(&v, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(&got, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &st);
            MPI_Ssend(&v, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        }
        sum += got;
    }
    /* Sendrecv_replace around the ring */
    double r = v;
    MPI_Sendrecv_replace(&r, 1, MPI_DOUBLE, right, 2, left, 2, MPI_COMM_WORLD, &st);
    sum += 10 * r;
    /* spinning on MPI_Test while the left neighbour computes first */
    MPI_Request req;
    MPI_Irecv(&got, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req);
    double w = work(20000 * (rank + 1), v);
    MPI_Send(&v, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    for (int flag = 0; !flag;)
        MPI_Test(&req, &flag, &st);
    sum += 100 * got + (w > 0 ? 0 : 1);
    /* spinning on MPI_Iprobe, then ANY_SOURCE receives; rank 0 collects */
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            int flag = 0;
            while (!flag)
                MPI_Iprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &flag, &st);
            MPI_Recv(&got, 1, MPI_DOUBLE, st.MPI_SOURCE, 4, MPI_COMM_WORLD, &st);
            sum += 1000 * got;
        }
    } else {
        work(5000 * rank, v);
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    }
    /* Probe, Waitany, Waitsome, Bsend */
    MPI_Request rs[2];
    double a = 0, b = 0;
    MPI_Irecv(&a, 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &rs[0]);
    MPI_Irecv(&b, 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &rs[1]);
    int bufsize = 2 * (MPI_BSEND_OVERHEAD + (int)sizeof(double));
    void *bbuf = malloc((size_t)bufsize);
    MPI_Buffer_attach(bbuf, bufsize);
    MPI_Bsend(&v, 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD);
    MPI_Send(&v, 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD);
    int idx, out, idxs[2];
    MPI_Status sts[2];
    MPI_Waitany(2, rs, &idx, &st);
    MPI_Waitsome(2, rs, &out, idxs, sts);
    sum += 1e4 * (a + b);
    MPI_Send(&v, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    MPI_Probe(left, 7, MPI_COMM_WORLD, &st);
    MPI_Recv(&got, 1, MPI_DOUBLE, st.MPI_SOURCE, 7, MPI_COMM_WORLD, &st);
    sum += 1e5 * got;
    /* collectives on a sub-communicator and on the world */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    double hs = 0;
    MPI_Allreduce(&v, &hs, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Comm_free(&half);
    sum += 1e6 * hs;
    MPI_Barrier(MPI_COMM_WORLD);
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* no MPI_Buffer_detach: token mode refuses it (it may block while
     * holding the token); MPI_Finalize detaches the buffer */
    if (rank == 0)
        printf("token_calls ranks=%d checksum=%.6f\n", size, total);
    MPI_Finalize();
    free(bbuf);
    return 0;
}
