/* Calls every MPI function the tracer wraps at least once (an even number of
 * ranks), so that the tests can check the whole trace for consistency:
 * request ids, communicator ids across members, per-rank vectors. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define N 4

static int rank, size, partner;

static void p2p_blocking(void)
{
    int a[N] = {0}, b[N] = {0};
    int even = rank % 2 == 0;
    MPI_Status st;
    if (even)
        MPI_Ssend(a, 2, MPI_INT, partner, 1, MPI_COMM_WORLD);
    else
        MPI_Recv(b, N, MPI_INT, partner, 1, MPI_COMM_WORLD, &st);

    static char bsend_buf[4096];
    MPI_Buffer_attach(bsend_buf, sizeof bsend_buf);
    if (even)
        MPI_Bsend(a, 3, MPI_INT, partner, 2, MPI_COMM_WORLD);
    else
        MPI_Recv(b, N, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    void *p;
    int psize;
    MPI_Buffer_detach(&p, &psize);

    MPI_Request r = MPI_REQUEST_NULL;
    if (!even)
        MPI_Irecv(b, N, MPI_INT, partner, 3, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted before the ready send */
    if (even)
        MPI_Rsend(a, 1, MPI_INT, partner, 3, MPI_COMM_WORLD);
    else
        MPI_Wait(&r, &st);

    MPI_Sendrecv_replace(a, N, MPI_INT, partner, 4, partner, 4, MPI_COMM_WORLD, &st);

    if (even) {
        MPI_Send(a, 4, MPI_INT, partner, 5, MPI_COMM_WORLD);
        MPI_Send(a, 2, MPI_INT, partner, 6, MPI_COMM_WORLD);
    } else {
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Recv(b, N, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        int flag = 0;
        while (!flag)
            MPI_Iprobe(partner, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(b, N, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Send(a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Sendrecv(a, 2, MPI_INT, partner, 7, b, N, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                 &st);
}

static void p2p_nonblocking(void)
{
    int s[8] = {0}, r[8] = {0};
    MPI_Request q[8];
    MPI_Status st[8];
    int idx, flag, out, ids[8];
    /* Issend + Irecv, Waitany twice */
    MPI_Irecv(&r[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[0]);
    MPI_Issend(&s[0], 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &q[1]);
    MPI_Waitany(2, q, &idx, &st[0]);
    MPI_Waitany(2, q, &idx, &st[0]);
    /* Ibsend via an attached buffer, Waitsome until done */
    static char buf[4096];
    MPI_Buffer_attach(buf, sizeof buf);
    MPI_Irecv(&r[1], 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &q[0]);
    MPI_Ibsend(&s[1], 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &q[1]);
    int left = 2;
    while (left > 0) {
        MPI_Waitsome(2, q, &out, ids, st);
        left -= out;
    }
    void *p;
    int psize;
    MPI_Buffer_detach(&p, &psize);
    /* Irsend after a barrier, Test / Testall / Testany / Testsome */
    MPI_Irecv(&r[2], 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &q[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend(&s[2], 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &q[1]);
    do
        MPI_Test(&q[0], &flag, &st[0]);
    while (!flag);
    do
        MPI_Testall(1, &q[1], &flag, MPI_STATUSES_IGNORE);
    while (!flag);
    MPI_Irecv(&r[3], 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(&s[3], 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &q[1]);
    do
        MPI_Testany(2, q, &idx, &flag, MPI_STATUS_IGNORE);
    while (!flag || idx == MPI_UNDEFINED);
    left = 1;
    while (left > 0) {
        MPI_Testsome(2, q, &out, ids, MPI_STATUSES_IGNORE);
        if (out != MPI_UNDEFINED)
            left -= out;
    }
    /* persistent: Ssend_init, Bsend_init, Rsend_init, Start, Request_free */
    MPI_Request ps[3], pr;
    MPI_Ssend_init(&s[4], 1, MPI_INT, partner, 14, MPI_COMM_WORLD, &ps[0]);
    MPI_Bsend_init(&s[5], 1, MPI_INT, partner, 14, MPI_COMM_WORLD, &ps[1]);
    MPI_Rsend_init(&s[6], 1, MPI_INT, partner, 15, MPI_COMM_WORLD, &ps[2]);
    MPI_Recv_init(&r[4], 1, MPI_INT, partner, 14, MPI_COMM_WORLD, &pr);
    MPI_Start(&pr);
    MPI_Start(&ps[0]);
    MPI_Wait(&ps[0], MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&ps[i]);
    MPI_Request_free(&pr);
    /* Send_init + Recv_init, Startall + Waitall twice */
    MPI_Send_init(&s[7], 1, MPI_INT, partner, 16, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init(&r[7], 1, MPI_INT, partner, 16, MPI_COMM_WORLD, &q[1]);
    for (int it = 0; it < 2; it++) {
        MPI_Startall(2, q);
        MPI_Waitall(2, q, st);
    }
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
}

static void collectives(MPI_Comm c)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    int s[64], r[64], cnt[N], dis[N], mine[N];
    MPI_Datatype ty[N];
    for (int i = 0; i < 64; i++)
        s[i] = i;
    for (int i = 0; i < n; i++) {
        cnt[i] = i + 1;    /* what rank i contributes */
        mine[i] = me + 1;  /* what this rank sends to each (all-to-all) */
        dis[i] = 8 * i;
        ty[i] = MPI_INT;
    }
    MPI_Request q;
    MPI_Barrier(c);
    MPI_Bcast(s, 3, MPI_INT, 0, c);
    MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, n - 1, c);
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_INT, MPI_SUM, c);
    MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, 0, c);
    MPI_Gatherv(s, me + 1, MPI_INT, r, cnt, dis, MPI_INT, 0, c);
    MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, 0, c);
    MPI_Scatterv(s, cnt, dis, MPI_INT, r, me + 1, MPI_INT, 0, c);
    MPI_Allgather(s, 1, MPI_INT, r, 1, MPI_INT, c);
    MPI_Allgatherv(s, me + 1, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, c);
    MPI_Alltoallv(s, mine, dis, MPI_INT, r, cnt, dis, MPI_INT, c);
    int bdis[N];
    for (int i = 0; i < n; i++)
        bdis[i] = dis[i] * (int)sizeof(int);
    MPI_Alltoallw(s, mine, bdis, ty, r, cnt, bdis, ty, c);
    MPI_Reduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c);
    MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, c);
    MPI_Scan(s, r, 2, MPI_INT, MPI_SUM, c);
    MPI_Exscan(s, r, 2, MPI_INT, MPI_SUM, c);

    MPI_Ibarrier(c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ibcast(s, 3, MPI_INT, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ireduce(s, r, 2, MPI_INT, MPI_SUM, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iallreduce(s, r, 2, MPI_INT, MPI_SUM, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Igather(s, 2, MPI_INT, r, 2, MPI_INT, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Igatherv(s, me + 1, MPI_INT, r, cnt, dis, MPI_INT, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iscatter(s, 2, MPI_INT, r, 2, MPI_INT, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iscatterv(s, cnt, dis, MPI_INT, r, me + 1, MPI_INT, 0, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iallgather(s, 1, MPI_INT, r, 1, MPI_INT, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iallgatherv(s, me + 1, MPI_INT, r, cnt, dis, MPI_INT, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ialltoall(s, 2, MPI_INT, r, 2, MPI_INT, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ialltoallv(s, mine, dis, MPI_INT, r, cnt, dis, MPI_INT, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ialltoallw(s, mine, bdis, ty, r, cnt, bdis, ty, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iscan(s, r, 2, MPI_INT, MPI_SUM, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iexscan(s, r, 2, MPI_INT, MPI_SUM, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
}

static void communicators(void)
{
    MPI_Comm dup, half, cart, row, graph, dist, inter, merged, even_only, shared;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int evens[N / 2 + 1], ne = 0;
    for (int i = 0; i < size; i += 2)
        evens[ne++] = i;
    MPI_Group_incl(wg, ne, evens, &eg);
    MPI_Comm_create(MPI_COMM_WORLD, eg, &even_only); /* MPI_COMM_NULL on odd ranks */
    int dims[2] = {0, 0}, periods[2] = {1, 0}, remain[2] = {0, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &row);
    int index[N], edges[N];
    for (int i = 0; i < size; i++) {
        index[i] = i + 1;
        edges[i] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    int src = (rank + size - 1) % size, dst = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
    /* the two halves, joined: local leader 0 of each half, world leaders 0 and 1 */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
    int x = 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter); /* a collective on it */
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    collectives(half);
    MPI_Comm *all[] = {&dup, &half, &cart, &row, &graph, &dist, &inter, &merged, &shared,
                       &even_only};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i] != MPI_COMM_NULL)
            MPI_Comm_free(all[i]);
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 != 0 || size > N)
        MPI_Abort(MPI_COMM_WORLD, 2);
    partner = rank ^ 1;
    p2p_blocking();
    p2p_nonblocking();
    collectives(MPI_COMM_WORLD);
    communicators();
    MPI_Pcontrol(3, "phase");
    MPI_Finalize();
    return 0;
}
