/* Gather and scatter (and their v forms): per-peer blocks of blk bytes,
 * relative ranks (rank - root) mod P for the trees. */
#include "coll_impl.h"

/* Blocks in the binomial subtree of relative rank v whose top bit is mask. */
static int64_t subtree(int size, int v, int mask)
{
    return size - v < mask ? size - v : mask;
}

/* Binomial gather (Open MPI's): receive each child's subtree in turn, then
 * send the own subtree (own block included) to the parent in one message. */
int coll_gather_binomial(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, root = a->root, v = coll_rel(a->rank, root, P);
    int64_t blk = coll_unit(a);
    for (int mask = 1; mask < P; mask *= 2) {
        if (v & mask) {
            COLL_TRY(coll_send(s, coll_abs(v - mask, root, P), subtree(P, v, mask) * blk));
            return mc_coll_next(s);
        }
        if (v + mask < P) {
            COLL_TRY(coll_recv(s, coll_abs(v + mask, root, P),
                               subtree(P, v + mask, mask) * blk));
            COLL_TRY(mc_coll_next(s));
        }
    }
    return 0;
}

/* Linear gather: the root posts every receive at once. */
int coll_gather_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t blk = coll_unit(a);
    if (r != a->root) {
        COLL_TRY(coll_send(s, a->root, blk));
        return mc_coll_next(s);
    }
    for (int i = 1; i < P; i++)
        COLL_TRY(coll_recv(s, (r + i) % P, blk));
    return mc_coll_next(s);
}

/* Linear gatherv: as Open MPI's, empty contributions are not sent. */
int coll_gatherv_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    if (r != a->root) {
        if (a->bytes > 0)
            COLL_TRY(coll_send(s, a->root, a->bytes));
        return mc_coll_next(s);
    }
    for (int i = 1; i < P; i++) {
        int src = (r + i) % P;
        if (a->recvcounts[src] > 0)
            COLL_TRY(coll_recv(s, src, a->recvcounts[src]));
    }
    return mc_coll_next(s);
}

/* Binomial scatter (Open MPI's): receive the own subtree from the parent,
 * then send each child its subtree, largest first, one send at a time. */
int coll_scatter_binomial(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, root = a->root, v = coll_rel(a->rank, root, P);
    int64_t blk = coll_unit(a);
    int mask = 1;
    while (mask < P) {
        if (v & mask) {
            COLL_TRY(coll_recv(s, coll_abs(v - mask, root, P), subtree(P, v, mask) * blk));
            COLL_TRY(mc_coll_next(s));
            break;
        }
        mask *= 2;
    }
    for (mask /= 2; mask > 0; mask /= 2) {
        if (v + mask < P) {
            COLL_TRY(coll_send(s, coll_abs(v + mask, root, P),
                               subtree(P, v + mask, mask) * blk));
            COLL_TRY(mc_coll_next(s));
        }
    }
    return 0;
}

/* Linear scatter: the root posts every send at once. */
int coll_scatter_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    coll_counts c = {NULL, coll_unit(a)};
    return coll_scatterv_linear(s, a->size, a->rank, a->root, &c);
}

/* Linear scatterv: the root sends rank i its count (the root's view of c),
 * a non-root receives its own count; empty blocks are not sent. */
int coll_scatterv_linear(mc_coll_sched *s, int size, int rank, int root,
                         const coll_counts *c)
{
    if (rank != root) {
        int64_t n = coll_count(c, rank);
        if (n > 0)
            COLL_TRY(coll_recv(s, root, n));
        return mc_coll_next(s);
    }
    for (int i = 1; i < size; i++) {
        int dst = (root + i) % size;
        int64_t n = coll_count(c, dst);
        if (n > 0)
            COLL_TRY(coll_send(s, dst, n));
    }
    return mc_coll_next(s);
}

int coll_scatterv_linear_fn(const mc_coll_args *a, mc_coll_sched *s)
{
    coll_counts c = {a->rank == a->root ? a->sendcounts : NULL, a->bytes2};
    return coll_scatterv_linear(s, a->size, a->rank, a->root, &c);
}
