/* Barrier algorithms: zero-byte messages only. */
#include "coll_impl.h"

/* Dissemination (Hensgen, Finkel, Manber): in round k every rank signals
 * (r + 2^k) mod P and waits for (r - 2^k) mod P; after ceil(log2 P) rounds
 * each rank has heard, directly or not, from every other. */
int coll_barrier_dissemination(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    for (int d = 1; d < P; d *= 2) {
        COLL_TRY(coll_send(s, (r + d) % P, 0));
        COLL_TRY(coll_recv(s, coll_mod(r - d, P), 0));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* Binomial fan-in to rank 0 (a zero-byte reduce), then fan-out (a zero-byte
 * bcast): 2 ceil(log2 P) steps on the critical path. */
int coll_barrier_tree(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    for (int mask = 1; mask < P; mask *= 2) {
        if (r & mask) {
            COLL_TRY(coll_send(s, r - mask, 0));
            COLL_TRY(mc_coll_next(s));
            break;
        }
        if (r + mask < P) {
            COLL_TRY(coll_recv(s, r + mask, 0));
            COLL_TRY(mc_coll_next(s));
        }
    }
    return coll_bcast_binomial(s, P, r, 0, 0);
}

/* Open MPI's basic linear barrier: everyone signals rank 0, which answers
 * everyone once all have arrived. */
int coll_barrier_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    if (r != 0) {
        COLL_TRY(coll_send(s, 0, 0));
        COLL_TRY(mc_coll_next(s));
        COLL_TRY(coll_recv(s, 0, 0));
        return mc_coll_next(s);
    }
    for (int i = 1; i < P; i++)
        COLL_TRY(coll_recv(s, i, 0));
    COLL_TRY(mc_coll_next(s));
    for (int i = 1; i < P; i++)
        COLL_TRY(coll_send(s, i, 0));
    return mc_coll_next(s);
}
