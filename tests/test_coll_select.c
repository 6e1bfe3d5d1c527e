/* Algorithm selection: the "auto" rules (Open MPI 4.1 tuned, approximated),
 * forced names, unknown names, nonblocking ops and the decision size. */
#include <strings.h>

#include "check.h"
#include "mpicast/format.h"
#include "sim/coll.h"

static const char *pick(int op, int P, int64_t bytes)
{
    mc_error err = {0};
    const mc_coll_alg *a = mc_coll_select(op, "auto", P, bytes, &err);
    CHECK(a != NULL);
    CHECK_EQ_INT(a->op, mc_coll_blocking_op(op));
    return a->name;
}

static void auto_rules(void)
{
    CHECK_EQ_STR(pick(MC_OP_ALLREDUCE, 2, 4), "ring");
    CHECK_EQ_STR(pick(MC_OP_ALLREDUCE, 8, 1024), "recursive_doubling");
    CHECK_EQ_STR(pick(MC_OP_ALLREDUCE, 8, 1 << 20), "rabenseifner");
    CHECK_EQ_STR(pick(MC_OP_ALLREDUCE, 300, 100), "nonoverlapping");
    CHECK_EQ_STR(pick(MC_OP_IALLREDUCE, 6, 8), "ring");
    CHECK_EQ_STR(pick(MC_OP_IALLREDUCE, 6, 64), "recursive_doubling");
    CHECK_EQ_STR(pick(MC_OP_BCAST, 16, 100), "binomial");
    CHECK_EQ_STR(pick(MC_OP_BCAST, 20, 2 << 20), "scatter_allgather");
    CHECK_EQ_STR(pick(MC_OP_BCAST, 2, 4096), "linear");
    CHECK_EQ_STR(pick(MC_OP_BARRIER, 2, 0), "dissemination");
    CHECK_EQ_STR(pick(MC_OP_BARRIER, 5, 0), "linear");
    CHECK_EQ_STR(pick(MC_OP_BARRIER, 300, 0), "tree");
    CHECK_EQ_STR(pick(MC_OP_REDUCE, 2, 1000), "linear");
    CHECK_EQ_STR(pick(MC_OP_REDUCE, 64, 1000), "binomial");
    /* allgather: recursive doubling needs a power of two, else bruck */
    CHECK_EQ_STR(pick(MC_OP_ALLGATHER, 8, 100), "recursive_doubling");
    CHECK_EQ_STR(pick(MC_OP_ALLGATHER, 6, 100), "bruck");
    CHECK_EQ_STR(pick(MC_OP_ALLGATHER, 40, 1 << 20), "ring");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALL, 20, 100), "bruck");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALL, 6, 100), "linear");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALL, 100, 1 << 20), "pairwise");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALL, 2, 100), "pairwise");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALLV, 2, 100), "pairwise");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALLV, 16, 100), "linear");
    CHECK_EQ_STR(pick(MC_OP_ALLTOALLW, 16, 100), "linear");
    CHECK_EQ_STR(pick(MC_OP_GATHER, 16, 100), "binomial");
    CHECK_EQ_STR(pick(MC_OP_GATHER, 2, 1 << 20), "linear");
    CHECK_EQ_STR(pick(MC_OP_SCATTER, 2, 100), "linear");
    CHECK_EQ_STR(pick(MC_OP_SCATTER, 16, 100), "binomial");
    CHECK_EQ_STR(pick(MC_OP_REDUCE_SCATTER, 16, 1000), "recursive_halving");
    CHECK_EQ_STR(pick(MC_OP_REDUCE_SCATTER, 16, 1 << 20), "ring");
    CHECK_EQ_STR(pick(MC_OP_REDUCE_SCATTER, 200, 100), "nonoverlapping");
    CHECK_EQ_STR(pick(MC_OP_REDUCE_SCATTER_BLOCK, 2, 1 << 20), "nonoverlapping");
    CHECK_EQ_STR(pick(MC_OP_SCAN, 16, 8), "linear");
    CHECK_EQ_STR(pick(MC_OP_IEXSCAN, 16, 8), "linear");
    CHECK_EQ_STR(pick(MC_OP_ALLGATHERV, 16, 8), "ring");
    CHECK_EQ_STR(pick(MC_OP_GATHERV, 16, 8), "linear");
    CHECK_EQ_STR(pick(MC_OP_SCATTERV, 16, 8), "linear");
}

/* Every rule names an algorithm that exists: sweep sizes and counts. */
static void auto_total(void)
{
    for (int op = MC_OP_BARRIER; op <= MC_OP_IEXSCAN; op++)
        for (int P = 1; P < 10000; P = P < 20 ? P + 1 : P * 3 / 2)
            for (int64_t b = 0; b < ((int64_t)1 << 34); b = b ? b * 2 : 1) {
                pick(op, P, b);
                pick(op, P, b + b / 2);
            }
    /* NULL name means auto */
    mc_error err = {0};
    CHECK(mc_coll_select(MC_OP_BCAST, NULL, 8, 8, &err) ==
          mc_coll_select(MC_OP_BCAST, "auto", 8, 8, &err));
}

static void forced_and_unknown(void)
{
    mc_error err = {0};
    const mc_coll_alg *a = mc_coll_select(MC_OP_IALLREDUCE, "ring", 8, 8, &err);
    CHECK(a && a->op == MC_OP_ALLREDUCE);
    CHECK_EQ_STR(a->name, "ring");
    CHECK(mc_coll_select(MC_OP_ALLREDUCE, "foo", 8, 8, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
    CHECK_EQ_STR(err.msg, "collectives.allreduce: unknown algorithm 'foo' (known: "
                          "recursive_doubling, ring, rabenseifner, nonoverlapping)");
    CHECK(mc_coll_select(MC_OP_IREDUCE_SCATTER_BLOCK, "x", 8, 8, &err) == NULL);
    CHECK_EQ_STR(err.msg, "collectives.reduce_scatter_block: unknown algorithm 'x' (known: "
                          "recursive_halving, ring, nonoverlapping)");
    CHECK(mc_coll_select(MC_OP_BARRIER, "binomial", 8, 0, &err) == NULL);
    CHECK_EQ_STR(err.msg, "collectives.barrier: unknown algorithm 'binomial' (known: "
                          "dissemination, tree, linear)");
    /* not a collective */
    CHECK(mc_coll_select(MC_OP_SEND, "auto", 8, 8, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_INTERNAL);
}

static void blocking_op(void)
{
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_IBARRIER), MC_OP_BARRIER);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_IBCAST), MC_OP_BCAST);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_IALLTOALLW), MC_OP_ALLTOALLW);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_IEXSCAN), MC_OP_EXSCAN);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_GATHERV), MC_OP_GATHERV);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_SEND), -1);
    CHECK_EQ_INT(mc_coll_blocking_op(MC_OP_COMM_DUP), -1);
    for (int op = MC_OP_IBARRIER; op <= MC_OP_IEXSCAN; op++) {
        const char *nb = mc_op_name(op), *b = mc_op_name(mc_coll_blocking_op(op));
        CHECK(nb[0] == 'I');
        CHECK(strcasecmp(nb + 1, b) == 0);
    }
}

static void table(void)
{
    int n = 0, per_op[MC_OP_COUNT] = {0};
    for (const mc_coll_alg *a; (a = mc_coll_alg_at(n)); n++) {
        CHECK((a->build != NULL) != (a->step != NULL && a->nsteps != NULL) && a->name[0]);
        CHECK_EQ_INT(mc_coll_blocking_op(a->op), a->op);
        per_op[a->op]++;
        for (int j = 0; j < n; j++)
            CHECK(mc_coll_alg_at(j)->op != a->op || strcmp(mc_coll_alg_at(j)->name, a->name));
    }
    CHECK(n >= 30);
    CHECK(mc_coll_alg_at(-1) == NULL);
    for (int op = MC_OP_BARRIER; op <= MC_OP_EXSCAN; op++)
        CHECK(per_op[op] >= 1);
    CHECK_EQ_INT(per_op[MC_OP_ALLREDUCE], 4);
}

static void decision_bytes(void)
{
    int64_t rc[4] = {1, 2, 3, 4};
    mc_coll_args rs = {MC_OP_IREDUCE_SCATTER, 4, 2, -1, 0, 0, NULL, rc};
    CHECK_EQ_INT(mc_coll_decision_bytes(&rs), 10);
    /* gather: non-roots record no receive side, the root both */
    mc_coll_args g = {MC_OP_GATHER, 4, 1, 0, 64, 0, NULL, NULL};
    CHECK_EQ_INT(mc_coll_decision_bytes(&g), 64);
    g.rank = 0;
    g.bytes2 = 64;
    CHECK_EQ_INT(mc_coll_decision_bytes(&g), 64);
    /* scatter: non-roots record no send side */
    mc_coll_args s = {MC_OP_SCATTER, 4, 3, 0, 0, 32, NULL, NULL};
    CHECK_EQ_INT(mc_coll_decision_bytes(&s), 32);
}

int main(void)
{
    auto_rules();
    auto_total();
    forced_and_unknown();
    blocking_op();
    table();
    decision_bytes();
    return 0;
}
