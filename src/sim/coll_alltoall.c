/* All-to-all (and the v and w forms, whose per-peer byte counts the trace
 * records). */
#include "coll_impl.h"

/* Pairwise exchange (Open MPI's): in step k = 1 .. P-1 send to (r + k) mod P
 * and receive from (r - k) mod P. Shifts rather than XOR partners, so any P
 * works and every step is a permutation. Round k - 1 is step k; counts per
 * peer for the v and w forms, else one block each. */
int coll_alltoall_pairwise_step(const mc_coll_args *a, int k, mc_coll_sched *s)
{
    int P = a->size, r = a->rank, to = (r + k + 1) % P, from = coll_mod(r - k - 1, P);
    coll_counts snd = {a->sendcounts, coll_unit(a)}, rcv = {a->recvcounts, coll_unit(a)};
    COLL_TRY(coll_send(s, to, coll_count(&snd, to)));
    return coll_recv(s, from, coll_count(&rcv, from));
}

/* Linear (Open MPI's basic linear): all receives and sends posted at once,
 * peers in order r+1, r+2, ... to spread the load. */
static int linear(mc_coll_sched *s, int P, int r, const coll_counts *snd,
                  const coll_counts *rcv)
{
    for (int k = 1; k < P; k++)
        COLL_TRY(coll_recv(s, coll_mod(r - k, P), coll_count(rcv, coll_mod(r - k, P))));
    for (int k = 1; k < P; k++)
        COLL_TRY(coll_send(s, (r + k) % P, coll_count(snd, (r + k) % P)));
    return mc_coll_next(s);
}

int coll_alltoall_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    coll_counts c = {NULL, coll_unit(a)};
    return linear(s, a->size, a->rank, &c, &c);
}

int coll_alltoallv_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    coll_counts snd = {a->sendcounts, 0}, rcv = {a->recvcounts, 0};
    return linear(s, a->size, a->rank, &snd, &rcv);
}

/* Number of i in [0, P) with bit k set: the blocks Bruck moves in round k. */
static int64_t bit_count(int P, int k)
{
    int64_t period = (int64_t)2 << k, half = (int64_t)1 << k;
    int64_t full = P / period * half, part = P % period - half;
    return full + (part > 0 ? part : 0);
}

/* Bruck (Open MPI's modified bruck): in round k send to (r + 2^k) mod P
 * and receive from (r - 2^k) mod P the blocks whose index has bit k set,
 * about half the data; ceil(log2 P) rounds. */
int coll_alltoall_bruck(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t blk = coll_unit(a);
    for (int k = 0; (1 << k) < P; k++) {
        int d = 1 << k;
        int64_t nb = bit_count(P, k) * blk;
        COLL_TRY(coll_send(s, (r + d) % P, nb));
        COLL_TRY(coll_recv(s, coll_mod(r - d, P), nb));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}
