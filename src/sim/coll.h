/* Internal to sim: collectives as point-to-point schedules.
 *
 * A collective algorithm is a pure function that gives one rank its own
 * schedule: a sequence of rounds; in each round the rank posts all its sends
 * and receives at once (nonblocking) and the round completes when they all
 * have; then the round's local reductions run (CPU time bytes × the
 * platform's reduction cost); then the next round starts. Peers are ranks
 * within the communicator. The engine executes schedules; algorithms never
 * see time.
 *
 * Algorithms are rows of a static table (name → function), so adding one is
 * one function and one row.
 */
#ifndef MPICAST_SIM_COLL_H
#define MPICAST_SIM_COLL_H

#include <stdint.h>
#include "mpicast/error.h"

typedef enum mc_coll_kind { MC_COLL_SEND, MC_COLL_RECV, MC_COLL_REDUCE } mc_coll_kind;

typedef struct mc_coll_op {
    int8_t kind;    /* mc_coll_kind */
    int32_t peer;   /* comm rank (unused for REDUCE) */
    int64_t bytes;
} mc_coll_op;

typedef struct mc_coll_sched {
    int nrounds;
    int *round_start;  /* ops of round r: ops[round_start[r] .. round_start[r+1]) ;
                          nrounds + 1 entries */
    int nops;
    mc_coll_op *ops;
    int cap_ops, cap_rounds; /* allocation bookkeeping */
} mc_coll_sched;

/* What one rank knows about the collective it is in. Byte counts follow the
 * trace's convention (docs/trace-format.md): for non-v collectives
 * `bytes`/`bytes2` are the send/receive counts × type size as passed to MPI
 * (per-peer block for gather/scatter/allgather/alltoall; the vector length
 * for bcast/reduce/allreduce/scan); v-collectives give per-rank counts. */
typedef struct mc_coll_args {
    int op;              /* mc_op of the blocking form (Ibcast → MC_OP_BCAST) */
    int size;            /* communicator size */
    int rank;            /* this rank in the communicator */
    int root;            /* comm rank of the root, or -1 */
    int64_t bytes;       /* send count × type size */
    int64_t bytes2;      /* receive count × type size */
    const int64_t *sendcounts; /* v-collectives: bytes per comm rank, or NULL */
    const int64_t *recvcounts; /* v-collectives: bytes per comm rank, or NULL */
} mc_coll_args;

typedef int (*mc_coll_fn)(const mc_coll_args *a, mc_coll_sched *out);
/* Appends round k (0-based) of this rank's schedule to out, for algorithms
 * whose every round is a function of its index (ring, pairwise): P - 1 or
 * more rounds of two operations. Built a few rounds at a time
 * (mc_coll_build_rounds), a P-rank all-to-all holds a handful of
 * operations per rank instead of 2(P - 1): 32 B x P^2 in all otherwise,
 * 0.5 GB at 4096 ranks, 8.6 GB at 16384. */
typedef int (*mc_coll_step_fn)(const mc_coll_args *a, int k, mc_coll_sched *out);

typedef struct mc_coll_alg {
    int op;            /* mc_op (blocking form) it implements */
    const char *name;  /* "binomial", "recursive_doubling", ... */
    mc_coll_fn build;  /* appends this rank's rounds to out; 0 or MC_ERR_NOMEM
                          (NULL when step is given) */
    mc_coll_step_fn step;     /* or NULL */
    int (*nsteps)(int size);  /* step's rounds, each non-empty */
} mc_coll_alg;

/* Finds the algorithm for op: `name` is the platform's collectives.<op>
 * value; "auto" (or NULL) picks by size and process count, as Open MPI's
 * tuned component does. NULL with err filled if the name is unknown. */
const mc_coll_alg *mc_coll_select(int op, const char *name, int size, int64_t bytes,
                                  mc_error *err);
/* Names of the algorithms for op, for messages and docs: alg i or NULL. */
const mc_coll_alg *mc_coll_alg_at(int i);

/* Builds this rank's schedule into `out` (reset first). */
mc_err mc_coll_build(const mc_coll_alg *alg, const mc_coll_args *a, mc_coll_sched *out,
                     mc_error *err);
/* Rounds [first, first + count) of a stepped algorithm (alg->step) into
 * `out` (reset first, its round 0 is round `first`); count is cut at the
 * last round. Its arguments (a's count arrays included) are only read
 * during the call. */
mc_err mc_coll_build_rounds(const mc_coll_alg *alg, const mc_coll_args *a, int first, int count,
                            mc_coll_sched *out, mc_error *err);
/* Rounds of a stepped algorithm on a communicator of `size`, else -1. */
int mc_coll_nrounds(const mc_coll_alg *alg, int size);
void mc_coll_sched_reset(mc_coll_sched *s);
void mc_coll_sched_free(mc_coll_sched *s);

/* The blocking form of a collective op (MC_OP_IBCAST -> MC_OP_BCAST; a
 * blocking collective maps to itself); -1 for anything else. */
int mc_coll_blocking_op(int op);
/* The `bytes` to pass to mc_coll_select for this collective, equal on every
 * member of a well-formed call so that all pick the same algorithm: the
 * vector (bcast, reduce, allreduce, scan) or per-peer block (gather, scatter,
 * allgather, alltoall, reduce_scatter_block) as max(bytes, bytes2), since
 * MPI ignores one side on some ranks (recorded as 0); for reduce_scatter the
 * sum of recvcounts (Open MPI's total_dsize). */
int64_t mc_coll_decision_bytes(const mc_coll_args *a);

#endif
