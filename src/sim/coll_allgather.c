/* Allgather and allgatherv: every rank ends with every rank's block. */
#include "coll_impl.h"

/* Ring: in step k rank r passes block (r - k) to the right and receives
 * block (r - k - 1) from the left; P - 1 steps. Blocks of recvcounts for
 * allgatherv, else one size. */
int coll_allgather_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    coll_counts c = {a->recvcounts, coll_unit(a)};
    COLL_TRY(coll_send(s, (r + 1) % P, coll_count(&c, coll_mod(r - k, P))));
    return coll_recv(s, coll_mod(r - 1, P), coll_count(&c, coll_mod(r - k - 1, P)));
}

/* Recursive doubling: exchange everything gathered so far with r ^ 1,
 * r ^ 2, ... (mask blocks each way). Needs P a power of two; otherwise this
 * builds the ring (a forced choice still gives a valid schedule; "auto"
 * picks bruck there, as Open MPI does). */
int coll_allgather_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t blk = coll_unit(a);
    if (P & (P - 1))
        return coll_run_steps(a, s, coll_allgather_ring_step, 0, coll_steps_ring(P));
    for (int mask = 1; mask < P; mask *= 2) {
        COLL_TRY(coll_send(s, r ^ mask, mask * blk));
        COLL_TRY(coll_recv(s, r ^ mask, mask * blk));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* Bruck: in round k (distance d = 2^k) send the min(d, P - d) blocks held so
 * far to r - d and receive as many from r + d; ceil(log2 P) rounds. */
int coll_allgather_bruck(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t blk = coll_unit(a);
    for (int d = 1; d < P; d *= 2) {
        int64_t nb = (d < P - d ? d : P - d) * blk;
        COLL_TRY(coll_send(s, coll_mod(r - d, P), nb));
        COLL_TRY(coll_recv(s, (r + d) % P, nb));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}
