/* Broadcast algorithms. Ranks are handled as relative ranks (rank - root)
 * mod P so that every tree is rooted at relative rank 0. */
#include "coll_impl.h"

/* Binomial tree: relative rank v receives from v minus its lowest set bit,
 * then sends to v + mask for every mask below that bit, largest subtree first.
 * The sends of one rank share a round, as Open MPI posts them (isend to all
 * children, then waitall). Over 8 ranks from 0: 0 sends to 4, 2, 1. */
int coll_bcast_binomial(mc_coll_sched *s, int size, int rank, int root, int64_t n)
{
    int v = coll_rel(rank, root, size);
    int mask = 1;
    while (mask < size) {
        if (v & mask) {
            COLL_TRY(coll_recv(s, coll_abs(v - mask, root, size), n));
            COLL_TRY(mc_coll_next(s));
            break;
        }
        mask *= 2;
    }
    for (mask /= 2; mask > 0; mask /= 2)
        if (v + mask < size)
            COLL_TRY(coll_send(s, coll_abs(v + mask, root, size), n));
    return mc_coll_next(s);
}

int coll_bcast_binomial_fn(const mc_coll_args *a, mc_coll_sched *s)
{
    return coll_bcast_binomial(s, a->size, a->rank, a->root, coll_unit(a));
}

/* Bytes of the scattered range that relative rank v (> 0) receives in the
 * binomial scatter of van de Geijn's broadcast: its subtree's blocks
 * [v, v + lowbit(v)) of ss bytes each, cut at n. */
static int64_t sag_range(int64_t n, int64_t ss, int v, int lowbit)
{
    int64_t lo = (int64_t)v * ss, hi = (int64_t)(v + lowbit) * ss;
    if (hi > n)
        hi = n;
    return hi > lo ? hi - lo : 0;
}

/* Bytes of ring block j (ss bytes, the last ones short or empty). */
static int64_t sag_block(int64_t n, int64_t ss, int j)
{
    int64_t left = n - (int64_t)j * ss;
    return left <= 0 ? 0 : left < ss ? left : ss;
}

/* Van de Geijn (MPICH's scatter + ring allgather): the root's n bytes are
 * cut into P blocks of ceil(n/P); a binomial scatter gives relative rank v
 * block v (and its subtree's blocks, to pass on; empty ranges are not sent),
 * then P - 1 ring steps give everyone every block (zero-byte blocks are
 * still exchanged, as MPICH's sendrecv does). */
int coll_bcast_scatter_allgather(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, root = a->root, v = coll_rel(a->rank, root, P);
    int64_t n = coll_unit(a);
    if (P == 1)
        return 0;
    int64_t ss = (n + P - 1) / P;
    int mask = 1;
    while (mask < P) {
        if (v & mask) {
            int64_t got = sag_range(n, ss, v, mask);
            if (got > 0) {
                COLL_TRY(coll_recv(s, coll_abs(v - mask, root, P), got));
                COLL_TRY(mc_coll_next(s));
            }
            break;
        }
        mask *= 2;
    }
    for (mask /= 2; mask > 0; mask /= 2) {
        if (v + mask >= P)
            continue;
        int64_t give = sag_range(n, ss, v + mask, mask);
        if (give > 0) {
            COLL_TRY(coll_send(s, coll_abs(v + mask, root, P), give));
            COLL_TRY(mc_coll_next(s));
        }
    }
    int right = coll_abs(v + 1, root, P), left = coll_abs(v - 1 + P, root, P);
    int j = v, jnext = (v - 1 + P) % P;
    for (int i = 1; i < P; i++) {
        COLL_TRY(coll_send(s, right, sag_block(n, ss, j)));
        COLL_TRY(coll_recv(s, left, sag_block(n, ss, jnext)));
        COLL_TRY(mc_coll_next(s));
        j = jnext;
        jnext = (jnext - 1 + P) % P;
    }
    return 0;
}

/* Open MPI's basic linear broadcast: the root sends to everyone at once. */
int coll_bcast_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t n = coll_unit(a);
    if (r != a->root) {
        COLL_TRY(coll_recv(s, a->root, n));
        return mc_coll_next(s);
    }
    for (int i = 1; i < P; i++)
        COLL_TRY(coll_send(s, (r + i) % P, n));
    return mc_coll_next(s);
}
