/* Internal to the collective algorithms (src/sim/coll*.c): schedule
 * emitters, block arithmetic, and the building blocks the table's build
 * functions are made of. Not for the engine: it uses coll.h only.
 *
 * Emitting: ops go into the *open* round; mc_coll_next() closes it (if it
 * holds anything) so the following ops start a new round. Empty rounds are
 * never stored, so a builder may call mc_coll_next() freely. mc_coll_build
 * closes the last round.
 *
 * Every building block takes explicit parameters (size, rank, root, bytes)
 * rather than mc_coll_args, so algorithms compose (bcast = scatter +
 * allgather, allreduce = reduce + bcast, ...). All return 0 or MC_ERR_NOMEM.
 */
#ifndef MPICAST_SIM_COLL_IMPL_H
#define MPICAST_SIM_COLL_IMPL_H

#include "coll.h"

#define COLL_TRY(x)              \
    do {                         \
        int rc_ = (x);           \
        if (rc_)                 \
            return rc_;          \
    } while (0)

int mc_coll_add(mc_coll_sched *s, int kind, int peer, int64_t bytes);
int mc_coll_next(mc_coll_sched *s);
/* Rounds [first, end) of a stepped algorithm (coll.h), each closed. */
int coll_run_steps(const mc_coll_args *a, mc_coll_sched *s, mc_coll_step_fn step, int first,
                   int end);

static inline int coll_send(mc_coll_sched *s, int peer, int64_t bytes)
{
    return mc_coll_add(s, MC_COLL_SEND, peer, bytes);
}
static inline int coll_recv(mc_coll_sched *s, int peer, int64_t bytes)
{
    return mc_coll_add(s, MC_COLL_RECV, peer, bytes);
}
static inline int coll_reduce(mc_coll_sched *s, int64_t bytes)
{
    return mc_coll_add(s, MC_COLL_REDUCE, -1, bytes);
}

/* Comm rank of relative rank v in a tree rooted at root, and back. */
static inline int coll_abs(int v, int root, int size) { return (v + root) % size; }
static inline int coll_rel(int r, int root, int size) { return (r - root + size) % size; }
static inline int coll_mod(int v, int size) { return ((v % size) + size) % size; }

/* Largest power of two <= p (p >= 1). */
int coll_pof2_floor(int p);
/* Bytes of blocks [lo, hi) when n bytes are cut into k near-equal blocks,
 * the first n % k blocks one byte larger (MPICH's and Open MPI's split). */
int64_t coll_split_bytes(int64_t n, int k, int lo, int hi);

/* Per-rank byte counts: counts[i] if counts is given, else blk for all. */
typedef struct coll_counts {
    const int64_t *counts;
    int64_t blk;
} coll_counts;
static inline int64_t coll_count(const coll_counts *c, int i)
{
    return c->counts ? c->counts[i] : c->blk;
}
/* Sum of counts over comm ranks [lo, hi). O(hi - lo) with counts, O(1) without. */
int64_t coll_count_range(const coll_counts *c, int lo, int hi);

/* ---- building blocks (coll_*.c) ---- */
int coll_bcast_binomial(mc_coll_sched *s, int size, int rank, int root, int64_t n);
int coll_reduce_binomial(mc_coll_sched *s, int size, int rank, int root, int64_t n);
int coll_scatterv_linear(mc_coll_sched *s, int size, int rank, int root,
                         const coll_counts *c);

/* ---- table entries ---- */
/* Rounds of the stepped ones (coll.h, mc_coll_step_fn): P - 1 (rings,
 * pairwise), 2(P - 1) (allreduce ring: reduce-scatter, then allgather). */
static inline int coll_steps_ring(int P) { return P - 1; }
static inline int coll_steps_ring2(int P) { return 2 * (P - 1); }

int coll_barrier_dissemination(const mc_coll_args *a, mc_coll_sched *s);
int coll_barrier_tree(const mc_coll_args *a, mc_coll_sched *s);
int coll_barrier_linear(const mc_coll_args *a, mc_coll_sched *s);

int coll_bcast_binomial_fn(const mc_coll_args *a, mc_coll_sched *s);
int coll_bcast_scatter_allgather(const mc_coll_args *a, mc_coll_sched *s);
int coll_bcast_linear(const mc_coll_args *a, mc_coll_sched *s);

int coll_reduce_binomial_fn(const mc_coll_args *a, mc_coll_sched *s);
int coll_reduce_linear(const mc_coll_args *a, mc_coll_sched *s);

int coll_allreduce_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s);
int coll_allreduce_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s);
int coll_allreduce_rabenseifner(const mc_coll_args *a, mc_coll_sched *s);
int coll_allreduce_nonoverlapping(const mc_coll_args *a, mc_coll_sched *s);

int coll_reduce_scatter_recursive_halving(const mc_coll_args *a, mc_coll_sched *s);
int coll_reduce_scatter_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s);
int coll_reduce_scatter_nonoverlapping(const mc_coll_args *a, mc_coll_sched *s);

int coll_scan_linear(const mc_coll_args *a, mc_coll_sched *s);
int coll_scan_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s);

int coll_gather_binomial(const mc_coll_args *a, mc_coll_sched *s);
int coll_gather_linear(const mc_coll_args *a, mc_coll_sched *s);
int coll_gatherv_linear(const mc_coll_args *a, mc_coll_sched *s);
int coll_scatter_binomial(const mc_coll_args *a, mc_coll_sched *s);
int coll_scatter_linear(const mc_coll_args *a, mc_coll_sched *s);
int coll_scatterv_linear_fn(const mc_coll_args *a, mc_coll_sched *s);

int coll_allgather_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s);
int coll_allgather_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s);
int coll_allgather_bruck(const mc_coll_args *a, mc_coll_sched *s);

int coll_alltoall_pairwise_step(const mc_coll_args *a, int k, mc_coll_sched *s);
int coll_alltoall_bruck(const mc_coll_args *a, mc_coll_sched *s);
int coll_alltoall_linear(const mc_coll_args *a, mc_coll_sched *s);
int coll_alltoallv_linear(const mc_coll_args *a, mc_coll_sched *s);

/* The size of one unit of a non-v collective on this rank: the vector for
 * bcast/reduce/allreduce/scan, the per-peer block otherwise. max(bytes,
 * bytes2) because MPI ignores one side on some ranks (recorded as 0: the
 * send side of scatter on non-roots, the receive side of gather on non-roots,
 * MPI_IN_PLACE), and both sides are equal where both are significant. */
static inline int64_t coll_unit(const mc_coll_args *a)
{
    return a->bytes > a->bytes2 ? a->bytes : a->bytes2;
}

#endif
