/* Collectives as point-to-point schedules: the algorithm table, the "auto"
 * rules, argument checks and the schedule buffer (see coll.h). The
 * algorithms themselves live in coll_<family>.c. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"
#include "mpicast/format.h"

/* ------------------------------------------------------------ the table */

/* Every algorithm, grouped by operation; a name may serve several
 * operations. Rows of one operation are listed in this order in "unknown
 * algorithm" messages; "auto" names its choice through the rules below. */
static const mc_coll_alg algs[] = {
    {MC_OP_BARRIER, "dissemination", coll_barrier_dissemination, NULL, NULL},
    {MC_OP_BARRIER, "tree", coll_barrier_tree, NULL, NULL},
    {MC_OP_BARRIER, "linear", coll_barrier_linear, NULL, NULL},

    {MC_OP_BCAST, "binomial", coll_bcast_binomial_fn, NULL, NULL},
    {MC_OP_BCAST, "scatter_allgather", coll_bcast_scatter_allgather, NULL, NULL},
    {MC_OP_BCAST, "linear", coll_bcast_linear, NULL, NULL},

    {MC_OP_REDUCE, "binomial", coll_reduce_binomial_fn, NULL, NULL},
    {MC_OP_REDUCE, "linear", coll_reduce_linear, NULL, NULL},

    {MC_OP_ALLREDUCE, "recursive_doubling", coll_allreduce_recursive_doubling, NULL, NULL},
    {MC_OP_ALLREDUCE, "ring", NULL, coll_allreduce_ring_step, coll_steps_ring2},
    {MC_OP_ALLREDUCE, "rabenseifner", coll_allreduce_rabenseifner, NULL, NULL},
    {MC_OP_ALLREDUCE, "nonoverlapping", coll_allreduce_nonoverlapping, NULL, NULL},

    {MC_OP_GATHER, "binomial", coll_gather_binomial, NULL, NULL},
    {MC_OP_GATHER, "linear", coll_gather_linear, NULL, NULL},
    {MC_OP_GATHERV, "linear", coll_gatherv_linear, NULL, NULL},

    {MC_OP_SCATTER, "binomial", coll_scatter_binomial, NULL, NULL},
    {MC_OP_SCATTER, "linear", coll_scatter_linear, NULL, NULL},
    {MC_OP_SCATTERV, "linear", coll_scatterv_linear_fn, NULL, NULL},

    {MC_OP_ALLGATHER, "ring", NULL, coll_allgather_ring_step, coll_steps_ring},
    {MC_OP_ALLGATHER, "recursive_doubling", coll_allgather_recursive_doubling, NULL, NULL},
    {MC_OP_ALLGATHER, "bruck", coll_allgather_bruck, NULL, NULL},
    {MC_OP_ALLGATHERV, "ring", NULL, coll_allgather_ring_step, coll_steps_ring},

    {MC_OP_ALLTOALL, "pairwise", NULL, coll_alltoall_pairwise_step, coll_steps_ring},
    {MC_OP_ALLTOALL, "bruck", coll_alltoall_bruck, NULL, NULL},
    {MC_OP_ALLTOALL, "linear", coll_alltoall_linear, NULL, NULL},
    {MC_OP_ALLTOALLV, "pairwise", NULL, coll_alltoall_pairwise_step, coll_steps_ring},
    {MC_OP_ALLTOALLV, "linear", coll_alltoallv_linear, NULL, NULL},
    {MC_OP_ALLTOALLW, "pairwise", NULL, coll_alltoall_pairwise_step, coll_steps_ring},
    {MC_OP_ALLTOALLW, "linear", coll_alltoallv_linear, NULL, NULL},

    {MC_OP_REDUCE_SCATTER, "recursive_halving", coll_reduce_scatter_recursive_halving, NULL, NULL},
    {MC_OP_REDUCE_SCATTER, "ring", NULL, coll_reduce_scatter_ring_step, coll_steps_ring},
    {MC_OP_REDUCE_SCATTER, "nonoverlapping", coll_reduce_scatter_nonoverlapping, NULL, NULL},
    {MC_OP_REDUCE_SCATTER_BLOCK, "recursive_halving", coll_reduce_scatter_recursive_halving, NULL, NULL},
    {MC_OP_REDUCE_SCATTER_BLOCK, "ring", NULL, coll_reduce_scatter_ring_step, coll_steps_ring},
    {MC_OP_REDUCE_SCATTER_BLOCK, "nonoverlapping", coll_reduce_scatter_nonoverlapping, NULL, NULL},

    {MC_OP_SCAN, "linear", coll_scan_linear, NULL, NULL},
    {MC_OP_SCAN, "recursive_doubling", coll_scan_recursive_doubling, NULL, NULL},
    {MC_OP_EXSCAN, "linear", coll_scan_linear, NULL, NULL},
    {MC_OP_EXSCAN, "recursive_doubling", coll_scan_recursive_doubling, NULL, NULL},
};
#define NALGS ((int)(sizeof algs / sizeof algs[0]))

const mc_coll_alg *mc_coll_alg_at(int i)
{
    return i >= 0 && i < NALGS ? &algs[i] : NULL;
}

int mc_coll_blocking_op(int op)
{
    return mc_op_blocking_form(op);
}

static const mc_coll_alg *find_alg(int op, const char *name)
{
    for (int i = 0; i < NALGS; i++)
        if (algs[i].op == op && strcmp(algs[i].name, name) == 0)
            return &algs[i];
    return NULL;
}

/* ------------------------------------------------------------ auto rules */

/* Open MPI 4.1's tuned component (coll_tuned_decision_fixed.c, the
 * commutative-operation branches, since a trace does not say whether the
 * operator commutes) approximated with the algorithms above. A row applies
 * when P < pmax and s < smax; the first applying row wins. `s` is Open MPI's
 * total_dsize: the vector for bcast/reduce/allreduce, the per-peer block for
 * gather/scatter/allgather/alltoall and reduce_scatter_block, the sum of the
 * receive counts for reduce_scatter (mc_coll_decision_bytes computes it).
 *
 * Mapping of Open MPI's algorithms onto ours (segsize is 0 in the fixed rules,
 * so chain/pipeline/binary trees are unsegmented trees; we price them as the
 * binomial tree):
 *   barrier    linear→linear, double_ring/recursive_doubling/bruck→dissemination,
 *              two_proc→dissemination, tree→tree
 *   bcast      basic_linear→linear, scatter_allgather(_ring)→scatter_allgather,
 *              chain/pipeline/split_binary/binary/binomial/knomial→binomial
 *   reduce     linear→linear, all trees and rabenseifner→binomial
 *   allreduce  nonoverlapping→nonoverlapping, recursive_doubling→recursive_doubling,
 *              ring/segmented_ring→ring, rabenseifner→rabenseifner
 *   allgather  recursive_doubling/two_proc→recursive_doubling when P is a power
 *              of two, else bruck (what Open MPI itself falls back to; a
 *              forced recursive_doubling on such P builds the ring);
 *              bruck→bruck; ring/neighbor→ring
 *   alltoall   linear/linear_sync→linear, pairwise/two_proc→pairwise,
 *              modified_bruck→bruck
 *   alltoallv  basic_linear→linear, pairwise→pairwise; alltoallw: linear
 *              (Open MPI's basic module)
 *   gather     basic_linear/linear_sync→linear, binomial→binomial
 *   scatter    basic_linear/linear_nb→linear, binomial→binomial
 *   reduce_scatter(_block)  non-overlapping/basic_linear→nonoverlapping,
 *              recursive_halving/recursive_doubling/butterfly→recursive_halving,
 *              ring→ring
 *   scan, exscan, gatherv, scatterv, allgatherv: one rule (below). */
typedef struct coll_rule {
    int pmax;
    int64_t smax;
    const char *alg;
} coll_rule;

#define ANY INT64_MAX
#define ALLP 0x7fffffff

static const coll_rule barrier_rules[] = {
    {4, ANY, "dissemination"}, {8, ANY, "linear"},    {256, ANY, "dissemination"},
    {512, ANY, "tree"},        {1024, ANY, "dissemination"}, {4096, ANY, "tree"},
    {ALLP, ANY, "dissemination"},
};

static const coll_rule bcast_rules[] = {
    {4, 1024, "binomial"},   {4, 32768, "linear"},     {4, 262144, "binomial"},
    {4, 524288, "linear"},   {4, ANY, "binomial"},
    {8, 8192, "binomial"},   {8, 1048576, "linear"},   {8, ANY, "binomial"},
    {16, 32768, "binomial"}, {16, ANY, "linear"},
    {32, 1048576, "binomial"}, {32, ANY, "scatter_allgather"},
    {128, ANY, "binomial"},
    {256, 16384, "binomial"}, {256, 32768, "linear"},  {256, ANY, "binomial"},
    {1024, ANY, "binomial"},
    {2048, 524288, "binomial"}, {2048, ANY, "scatter_allgather"},
    {ALLP, 262144, "binomial"}, {ALLP, ANY, "scatter_allgather"},
};

static const coll_rule reduce_rules[] = {
    {4, 32, "binomial"},      {4, 262144, "linear"},    {4, ANY, "binomial"},
    {8, 262144, "binomial"},  {8, 524288, "linear"},    {8, 1048576, "binomial"},
    {8, ANY, "linear"},
    {ALLP, ANY, "binomial"},
};

static const coll_rule allreduce_rules[] = {
    {4, 8, "ring"},    {4, 4096, "recursive_doubling"}, {4, 8192, "ring"},
    {4, 16384, "recursive_doubling"}, {4, 262144, "ring"}, {4, ANY, "rabenseifner"},
    {8, 16, "ring"},   {8, 8192, "recursive_doubling"},   {8, ANY, "rabenseifner"},
    {16, 8192, "recursive_doubling"}, {16, ANY, "rabenseifner"},
    {32, 64, "ring"},  {32, 4096, "recursive_doubling"},  {32, ANY, "rabenseifner"},
    {64, 128, "ring"}, {64, ANY, "rabenseifner"},
    {128, 262144, "recursive_doubling"}, {128, ANY, "rabenseifner"},
    {256, 131072, "nonoverlapping"}, {256, 262144, "recursive_doubling"},
    {256, ANY, "rabenseifner"},
    {512, 4096, "nonoverlapping"}, {512, ANY, "rabenseifner"},
    {2048, 2048, "nonoverlapping"}, {2048, 16384, "recursive_doubling"},
    {2048, ANY, "rabenseifner"},
    {4096, 2048, "nonoverlapping"}, {4096, 4096, "ring"},
    {4096, 16384, "recursive_doubling"}, {4096, ANY, "rabenseifner"},
    {ALLP, 2048, "nonoverlapping"}, {ALLP, 16384, "ring"},
    {ALLP, 32768, "recursive_doubling"}, {ALLP, ANY, "rabenseifner"},
};

/* "rd" = recursive_doubling if P is a power of two, else bruck. */
static const coll_rule allgather_rules[] = {
    {32, ANY, "rd"},
    {64, 1024, "rd"},   {64, ANY, "ring"},
    {256, 512, "rd"},   {256, ANY, "ring"},
    {512, 32, "rd"},    {512, 128, "bruck"}, {512, 1024, "rd"}, {512, ANY, "ring"},
    {1024, 64, "rd"},   {1024, 256, "bruck"}, {1024, 2048, "rd"}, {1024, ANY, "ring"},
    {2048, 4, "rd"},    {2048, 8, "bruck"},  {2048, 16, "rd"},  {2048, 32, "bruck"},
    {2048, 256, "rd"},  {2048, 512, "bruck"}, {2048, 4096, "rd"}, {2048, ANY, "ring"},
    {4096, 32, "bruck"}, {4096, 128, "rd"}, {4096, 512, "bruck"}, {4096, 4096, "rd"},
    {4096, ANY, "ring"},
    {ALLP, 2, "rd"},    {ALLP, 8, "bruck"},  {ALLP, 16, "rd"},  {ALLP, 512, "bruck"},
    {ALLP, 4096, "rd"}, {ALLP, ANY, "ring"},
};

static const coll_rule alltoall_rules[] = {
    {3, 32768, "pairwise"}, {3, 262144, "linear"}, {3, ANY, "pairwise"},
    {8, 524288, "linear"},  {8, 1048576, "pairwise"}, {8, ANY, "linear"},
    {16, ANY, "linear"},
    {32, 4, "linear"},      {32, 512, "bruck"},    {32, ANY, "linear"},
    {64, 512, "bruck"},     {64, ANY, "linear"},
    {256, 1024, "bruck"},   {256, 262144, "linear"}, {256, ANY, "pairwise"},
    {512, 1024, "bruck"},   {512, 32768, "linear"}, {512, ANY, "pairwise"},
    {1024, 512, "bruck"},   {1024, 262144, "linear"}, {1024, ANY, "pairwise"},
    {2048, 512, "bruck"},   {2048, ANY, "linear"},
    {4096, 1024, "bruck"},  {4096, ANY, "linear"},
    {ALLP, 2048, "bruck"},  {ALLP, ANY, "linear"},
};

static const coll_rule alltoallv_rules[] = {
    {4, ANY, "pairwise"}, {64, ANY, "linear"},   {128, ANY, "pairwise"},
    {256, ANY, "linear"}, {1024, ANY, "pairwise"}, {ALLP, ANY, "linear"},
};

static const coll_rule gather_rules[] = {
    {4, 4, "linear"},       {4, 32768, "binomial"}, {4, 65536, "linear"},
    {4, 131072, "binomial"}, {4, ANY, "linear"},
    {8, 1024, "binomial"},  {8, 8192, "linear"},   {8, 32768, "binomial"},
    {8, ANY, "linear"},
    {256, ANY, "binomial"},
    {512, 2048, "binomial"}, {512, 8192, "linear"}, {512, ANY, "binomial"},
    {ALLP, ANY, "binomial"},
};

static const coll_rule scatter_rules[] = {
    {4, ANY, "linear"},
    {8, 2048, "binomial"},  {8, 4096, "linear"},   {8, 8192, "binomial"},
    {8, ANY, "linear"},
    {32, 16384, "binomial"}, {32, ANY, "linear"},
    {64, 512, "binomial"},  {64, 8192, "linear"},  {64, 16384, "binomial"},
    {64, ANY, "linear"},
    {ALLP, 512, "binomial"}, {ALLP, ANY, "linear"},
};

static const coll_rule reduce_scatter_rules[] = {
    {4, 65536, "ring"},     {4, 131072, "recursive_halving"}, {4, ANY, "ring"},
    {8, 8, "nonoverlapping"}, {8, 262144, "recursive_halving"}, {8, ANY, "ring"},
    {32, 262144, "recursive_halving"}, {32, ANY, "ring"},
    {64, 64, "nonoverlapping"}, {64, 524288, "recursive_halving"}, {64, ANY, "ring"},
    {512, 256, "nonoverlapping"}, {512, ANY, "recursive_halving"},
    {4096, 512, "nonoverlapping"}, {4096, ANY, "recursive_halving"},
    {ALLP, 1024, "nonoverlapping"}, {ALLP, ANY, "recursive_halving"},
};

static const coll_rule reduce_scatter_block_rules[] = {
    {4, 131072, "recursive_halving"}, {4, ANY, "nonoverlapping"},
    {8, 1048576, "recursive_halving"}, {8, ANY, "nonoverlapping"},
    {16, 4, "nonoverlapping"}, {16, 524288, "recursive_halving"},
    {16, 4194304, "nonoverlapping"}, {16, ANY, "recursive_halving"},
    {32, 32, "nonoverlapping"}, {32, 524288, "recursive_halving"},
    {32, 2097152, "nonoverlapping"}, {32, ANY, "recursive_halving"},
    {ALLP, 4, "recursive_halving"}, {ALLP, 16, "nonoverlapping"},
    {ALLP, 65536, "recursive_halving"}, {ALLP, 262144, "nonoverlapping"},
    {ALLP, ANY, "recursive_halving"},
};

/* Open MPI 4.1 runs these with its basic module (linear) or has one choice. */
static const coll_rule linear_rules[] = {{ALLP, ANY, "linear"}};
static const coll_rule ring_rules[] = {{ALLP, ANY, "ring"}};

typedef struct coll_ruleset {
    int op;
    const coll_rule *rules;
    int n;
} coll_ruleset;

#define RULES(op, r) {op, r, (int)(sizeof r / sizeof r[0])}
static const coll_ruleset rulesets[] = {
    RULES(MC_OP_BARRIER, barrier_rules),
    RULES(MC_OP_BCAST, bcast_rules),
    RULES(MC_OP_REDUCE, reduce_rules),
    RULES(MC_OP_ALLREDUCE, allreduce_rules),
    RULES(MC_OP_GATHER, gather_rules),
    RULES(MC_OP_GATHERV, linear_rules),
    RULES(MC_OP_SCATTER, scatter_rules),
    RULES(MC_OP_SCATTERV, linear_rules),
    RULES(MC_OP_ALLGATHER, allgather_rules),
    RULES(MC_OP_ALLGATHERV, ring_rules),
    RULES(MC_OP_ALLTOALL, alltoall_rules),
    RULES(MC_OP_ALLTOALLV, alltoallv_rules),
    RULES(MC_OP_ALLTOALLW, linear_rules),
    RULES(MC_OP_REDUCE_SCATTER, reduce_scatter_rules),
    RULES(MC_OP_REDUCE_SCATTER_BLOCK, reduce_scatter_block_rules),
    RULES(MC_OP_SCAN, linear_rules),
    RULES(MC_OP_EXSCAN, linear_rules),
};

static int is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }

static const char *auto_name(int op, int size, int64_t bytes)
{
    for (size_t k = 0; k < sizeof rulesets / sizeof rulesets[0]; k++) {
        if (rulesets[k].op != op)
            continue;
        for (int i = 0; i < rulesets[k].n; i++) {
            const coll_rule *r = &rulesets[k].rules[i];
            if (size < r->pmax && bytes < r->smax) {
                if (strcmp(r->alg, "rd") == 0)
                    return is_pof2(size) ? "recursive_doubling" : "bruck";
                return r->alg;
            }
        }
    }
    return NULL;
}

/* "Reduce_scatter_block" -> "reduce_scatter_block", the platform key's spelling. */
static void key_name(int op, char *buf, size_t len)
{
    snprintf(buf, len, "%s", mc_op_name(op));
    for (char *p = buf; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

const mc_coll_alg *mc_coll_select(int op, const char *name, int size, int64_t bytes,
                                  mc_error *err)
{
    int bop = mc_coll_blocking_op(op);
    if (bop < 0) {
        mc_error_set(err, MC_ERR_INTERNAL, "coll: %s is not a collective operation",
                     mc_op_name(op));
        return NULL;
    }
    if (!name || strcmp(name, "auto") == 0) {
        const char *an = auto_name(bop, size, bytes < 0 ? 0 : bytes);
        const mc_coll_alg *a = an ? find_alg(bop, an) : NULL;
        if (!a)
            mc_error_set(err, MC_ERR_INTERNAL, "coll: no auto rule for %s", mc_op_name(bop));
        return a;
    }
    const mc_coll_alg *a = find_alg(bop, name);
    if (a)
        return a;
    char key[64], known[512];
    size_t used = 0;
    known[0] = '\0';
    for (int i = 0; i < NALGS; i++) {
        if (algs[i].op != bop)
            continue;
        int w = snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "",
                         algs[i].name);
        if (w > 0 && (size_t)w < sizeof known - used)
            used += (size_t)w;
    }
    key_name(bop, key, sizeof key);
    mc_error_set(err, MC_ERR_PLATFORM, "collectives.%s: unknown algorithm '%s' (known: %s)",
                 key, name, known);
    return NULL;
}

int64_t mc_coll_decision_bytes(const mc_coll_args *a)
{
    int op = mc_coll_blocking_op(a->op);
    if (op == MC_OP_REDUCE_SCATTER && a->recvcounts) {
        int64_t total = 0;
        for (int i = 0; i < a->size; i++)
            total += a->recvcounts[i];
        return total;
    }
    return coll_unit(a);
}

/* ------------------------------------------------------------ schedules */

void mc_coll_sched_reset(mc_coll_sched *s)
{
    s->nrounds = 0;
    s->nops = 0;
    if (s->round_start)
        s->round_start[0] = 0;
}

void mc_coll_sched_free(mc_coll_sched *s)
{
    free(s->round_start);
    free(s->ops);
    memset(s, 0, sizeof *s);
}

/* Small first capacities: with 10^6 ranks inside one collective there are
 * 10^6 live schedules, most of a few operations (a binomial tree's leaves
 * have two); executors are recycled with their arrays, so growth by
 * doubling is paid once per executor, not per collective. */
static int grow_rounds(mc_coll_sched *s, int need)
{
    if (need <= s->cap_rounds)
        return 0;
    int cap = s->cap_rounds ? s->cap_rounds * 2 : 4;
    while (cap < need)
        cap *= 2;
    int *p = realloc(s->round_start, (size_t)cap * sizeof *p);
    if (!p)
        return MC_ERR_NOMEM;
    if (!s->round_start)
        p[0] = 0;
    s->round_start = p;
    s->cap_rounds = cap;
    return 0;
}

int mc_coll_add(mc_coll_sched *s, int kind, int peer, int64_t bytes)
{
    if (s->nops == s->cap_ops) {
        int cap = s->cap_ops ? s->cap_ops * 2 : 4;
        mc_coll_op *p = realloc(s->ops, (size_t)cap * sizeof *p);
        if (!p)
            return MC_ERR_NOMEM;
        s->ops = p;
        s->cap_ops = cap;
    }
    s->ops[s->nops].kind = (int8_t)kind;
    s->ops[s->nops].peer = peer;
    s->ops[s->nops].bytes = bytes;
    s->nops++;
    return 0;
}

/* The open round is ops[round_start[nrounds] .. nops); closing it stores
 * nrounds + 1 boundaries, which is what coll.h promises. */
int mc_coll_next(mc_coll_sched *s)
{
    if (s->nops == s->round_start[s->nrounds])
        return 0;
    COLL_TRY(grow_rounds(s, s->nrounds + 2));
    s->nrounds++;
    s->round_start[s->nrounds] = s->nops;
    return 0;
}

/* ------------------------------------------------------------ building */

static int is_rooted(int op)
{
    return op == MC_OP_BCAST || op == MC_OP_REDUCE || op == MC_OP_GATHER ||
           op == MC_OP_GATHERV || op == MC_OP_SCATTER || op == MC_OP_SCATTERV;
}

/* Which per-rank arrays this rank's algorithm reads. */
static void needed_counts(int op, int rank, int root, int *send, int *recv)
{
    *send = *recv = 0;
    switch (op) {
    case MC_OP_GATHERV: *recv = rank == root; break;
    case MC_OP_SCATTERV: *send = rank == root; break;
    case MC_OP_ALLGATHERV: *recv = 1; break;
    case MC_OP_ALLTOALLV:
    case MC_OP_ALLTOALLW: *send = *recv = 1; break;
    case MC_OP_REDUCE_SCATTER: *recv = 1; break;
    default: break;
    }
}

static mc_err check_args(const mc_coll_args *a, int op, mc_error *err)
{
    const char *name = mc_op_name(op);
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return mc_error_set(err, MC_ERR_FORMAT, "coll:%s: rank %d outside communicator of size %d",
                            name, a->rank, a->size);
    if (is_rooted(op) && (a->root < 0 || a->root >= a->size))
        return mc_error_set(err, MC_ERR_FORMAT, "coll:%s: root %d outside communicator of size %d",
                            name, a->root, a->size);
    if (a->bytes < 0 || a->bytes2 < 0)
        return mc_error_set(err, MC_ERR_FORMAT, "coll:%s: negative byte count", name);
    int send, recv;
    needed_counts(op, a->rank, a->root, &send, &recv);
    const int64_t *arrs[2] = {send ? a->sendcounts : NULL, recv ? a->recvcounts : NULL};
    const int need[2] = {send, recv};
    for (int k = 0; k < 2; k++) {
        if (!need[k])
            continue;
        if (!arrs[k])
            return mc_error_set(err, MC_ERR_FORMAT, "coll:%s: rank %d has no %s counts",
                                name, a->rank, k ? "receive" : "send");
        for (int i = 0; i < a->size; i++)
            if (arrs[k][i] < 0)
                return mc_error_set(err, MC_ERR_FORMAT, "coll:%s: negative count for rank %d",
                                    name, i);
    }
    return MC_OK;
}

int coll_run_steps(const mc_coll_args *a, mc_coll_sched *s, mc_coll_step_fn step, int first,
                   int end)
{
    for (int k = first; k < end; k++) {
        COLL_TRY(step(a, k, s));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* Rounds [first, first + count) of the schedule (all of them: 0, INT_MAX). */
static mc_err build(const mc_coll_alg *alg, const mc_coll_args *a, int first, int count,
                    mc_coll_sched *out, mc_error *err)
{
    int op = mc_coll_blocking_op(a->op);
    if (!alg || op != alg->op)
        return mc_error_set(err, MC_ERR_INTERNAL, "coll: algorithm '%s' does not implement %s",
                            alg ? alg->name : "(none)", mc_op_name(a->op));
    mc_err rc = check_args(a, op, err);
    if (rc)
        return rc;
    if (grow_rounds(out, 1))
        return mc_error_set(err, MC_ERR_NOMEM, "coll: out of memory");
    mc_coll_sched_reset(out);
    mc_coll_args b = *a;
    b.op = op;
    int end = alg->step ? alg->nsteps(b.size) : 0;
    int brc = alg->step ? coll_run_steps(&b, out, alg->step, first,
                                         count < end - first ? first + count : end)
                        : alg->build(&b, out);
    if (!brc)
        brc = mc_coll_next(out);
    if (brc)
        return mc_error_set(err, brc == MC_ERR_NOMEM ? MC_ERR_NOMEM : MC_ERR_INTERNAL,
                            "coll:%s/%s: cannot build the schedule", mc_op_name(op), alg->name);
    return MC_OK;
}

mc_err mc_coll_build(const mc_coll_alg *alg, const mc_coll_args *a, mc_coll_sched *out,
                     mc_error *err)
{
    return build(alg, a, 0, INT_MAX, out, err);
}

mc_err mc_coll_build_rounds(const mc_coll_alg *alg, const mc_coll_args *a, int first, int count,
                            mc_coll_sched *out, mc_error *err)
{
    if (!alg || !alg->step || first < 0 || count < 1 || first >= alg->nsteps(a->size))
        return mc_error_set(err, MC_ERR_INTERNAL, "coll:%s: no rounds %d+%d to build",
                            alg ? alg->name : "(none)", first, count);
    return build(alg, a, first, count, out, err);
}

int mc_coll_nrounds(const mc_coll_alg *alg, int size)
{
    return alg && alg->step ? alg->nsteps(size) : -1;
}

/* ------------------------------------------------------------ arithmetic */

int coll_pof2_floor(int p)
{
    int v = 1;
    while (v <= p / 2)
        v *= 2;
    return v;
}

int64_t coll_split_bytes(int64_t n, int k, int lo, int hi)
{
    if (hi <= lo)
        return 0;
    int64_t q = n / k, r = n % k;
    int64_t big = (hi < r ? hi : r) - lo; /* blocks in [lo, hi) below r */
    if (big < 0)
        big = 0;
    return (int64_t)(hi - lo) * q + big;
}

int64_t coll_count_range(const coll_counts *c, int lo, int hi)
{
    if (hi <= lo)
        return 0;
    if (!c->counts)
        return (int64_t)(hi - lo) * c->blk;
    int64_t t = 0;
    for (int i = lo; i < hi; i++)
        t += c->counts[i];
    return t;
}
