/* Exact schedules of a few algorithms, worked out by hand, and argument
 * checking in mc_coll_build. */
#include <string.h>

#include "check.h"
#include "mpicast/format.h"
#include "sim/coll.h"

static mc_coll_sched sched;

/* Builds rank `rank`'s schedule of op/name. */
static const mc_coll_sched *build(int op, const char *name, int P, int rank, int root,
                                  int64_t bytes)
{
    mc_error err = {0};
    const mc_coll_alg *alg = mc_coll_select(op, name, P, bytes, &err);
    CHECK(alg != NULL);
    mc_coll_args a = {op, P, rank, root, bytes, bytes, NULL, NULL};
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_OK);
    return &sched;
}

/* Op i of round k is (kind, peer, bytes). */
static void expect_op(const mc_coll_sched *s, int k, int i, int kind, int peer, int64_t bytes)
{
    CHECK(k < s->nrounds);
    CHECK(s->round_start[k] + i < s->round_start[k + 1]);
    const mc_coll_op *o = &s->ops[s->round_start[k] + i];
    CHECK_EQ_INT(o->kind, kind);
    if (kind != MC_COLL_REDUCE)
        CHECK_EQ_INT(o->peer, peer);
    CHECK_EQ_INT(o->bytes, bytes);
}

static int round_len(const mc_coll_sched *s, int k)
{
    return s->round_start[k + 1] - s->round_start[k];
}

enum { S = MC_COLL_SEND, R = MC_COLL_RECV, X = MC_COLL_REDUCE };

static void binomial_bcast(void)
{
    /* over 8 from 0: rank 0 sends to 4, 2, 1 in one round */
    const mc_coll_sched *s = build(MC_OP_BCAST, "binomial", 8, 0, 0, 100);
    CHECK_EQ_INT(s->nrounds, 1);
    CHECK_EQ_INT(round_len(s, 0), 3);
    expect_op(s, 0, 0, S, 4, 100);
    expect_op(s, 0, 1, S, 2, 100);
    expect_op(s, 0, 2, S, 1, 100);
    s = build(MC_OP_BCAST, "binomial", 8, 4, 0, 100);
    CHECK_EQ_INT(s->nrounds, 2);
    expect_op(s, 0, 0, R, 0, 100);
    expect_op(s, 1, 0, S, 6, 100);
    expect_op(s, 1, 1, S, 5, 100);
    s = build(MC_OP_BCAST, "binomial", 8, 7, 0, 100);
    CHECK_EQ_INT(s->nrounds, 1);
    expect_op(s, 0, 0, R, 6, 100);
    /* rooted at 3: relative ranks 4, 2, 1 are comm ranks 7, 5, 4 */
    s = build(MC_OP_BCAST, "binomial", 8, 3, 3, 100);
    expect_op(s, 0, 0, S, 7, 100);
    expect_op(s, 0, 1, S, 5, 100);
    expect_op(s, 0, 2, S, 4, 100);
    /* Ibcast uses the same algorithms */
    s = build(MC_OP_IBCAST, "binomial", 8, 2, 0, 100);
    expect_op(s, 0, 0, R, 0, 100);
    expect_op(s, 1, 0, S, 3, 100);
}

static void dissemination_barrier(void)
{
    for (int r = 0; r < 6; r++) {
        const mc_coll_sched *s = build(MC_OP_BARRIER, "dissemination", 6, r, -1, 0);
        CHECK_EQ_INT(s->nrounds, 3);
        for (int k = 0, d = 1; k < 3; k++, d *= 2) {
            expect_op(s, k, 0, S, (r + d) % 6, 0);
            expect_op(s, k, 1, R, (r - d + 6) % 6, 0);
        }
    }
}

static void recursive_doubling_allreduce_6(void)
{
    /* pof2 4, rem 2: 0 and 2 fold into 1 and 3; new ranks 0..3 = 1,3,4,5 */
    const mc_coll_sched *s = build(MC_OP_ALLREDUCE, "recursive_doubling", 6, 0, -1, 64);
    CHECK_EQ_INT(s->nrounds, 2);
    expect_op(s, 0, 0, S, 1, 64);
    expect_op(s, 1, 0, R, 1, 64);
    s = build(MC_OP_ALLREDUCE, "recursive_doubling", 6, 1, -1, 64);
    CHECK_EQ_INT(s->nrounds, 4);
    expect_op(s, 0, 0, R, 0, 64);
    expect_op(s, 0, 1, X, 0, 64);
    expect_op(s, 1, 0, S, 3, 64);
    expect_op(s, 1, 1, R, 3, 64);
    expect_op(s, 1, 2, X, 0, 64);
    expect_op(s, 2, 0, S, 4, 64);
    expect_op(s, 3, 0, S, 0, 64);
    s = build(MC_OP_ALLREDUCE, "recursive_doubling", 6, 5, -1, 64);
    CHECK_EQ_INT(s->nrounds, 2);
    expect_op(s, 0, 0, S, 4, 64);
    expect_op(s, 1, 0, S, 3, 64);
    /* over 8: three exchanges with 1, 2, 4 away */
    s = build(MC_OP_ALLREDUCE, "recursive_doubling", 8, 5, -1, 64);
    CHECK_EQ_INT(s->nrounds, 3);
    expect_op(s, 0, 0, S, 4, 64);
    expect_op(s, 1, 0, S, 7, 64);
    expect_op(s, 2, 0, S, 1, 64);
}

static void ring_allreduce_3(void)
{
    /* 10 bytes in blocks 4, 3, 3; rank 0 passes blocks 0, 2 then 1, 0 */
    const mc_coll_sched *s = build(MC_OP_ALLREDUCE, "ring", 3, 0, -1, 10);
    CHECK_EQ_INT(s->nrounds, 4);
    expect_op(s, 0, 0, S, 1, 4);
    expect_op(s, 0, 1, R, 2, 3);
    expect_op(s, 0, 2, X, 0, 3);
    expect_op(s, 1, 0, S, 1, 3);
    expect_op(s, 1, 1, R, 2, 3);
    expect_op(s, 2, 0, S, 1, 3);
    expect_op(s, 2, 1, R, 2, 4);
    expect_op(s, 3, 0, S, 1, 4);
    expect_op(s, 3, 1, R, 2, 3);
}

static void rabenseifner_8(void)
{
    const mc_coll_sched *s = build(MC_OP_ALLREDUCE, "rabenseifner", 8, 0, -1, 800);
    CHECK_EQ_INT(s->nrounds, 6);
    static const int peers[6] = {4, 2, 1, 1, 2, 4};
    static const int64_t bytes[6] = {400, 200, 100, 100, 200, 400};
    for (int k = 0; k < 6; k++) {
        expect_op(s, k, 0, S, peers[k], bytes[k]);
        expect_op(s, k, 1, R, peers[k], bytes[k]);
        CHECK_EQ_INT(round_len(s, k), k < 3 ? 3 : 2);
    }
}

static void bruck(void)
{
    /* alltoall over 5: blocks with bit k set: {1,3}, {2,3}, {4} */
    static const int64_t a2a[3] = {20, 20, 10};
    const mc_coll_sched *s = build(MC_OP_ALLTOALL, "bruck", 5, 1, -1, 10);
    CHECK_EQ_INT(s->nrounds, 3);
    for (int k = 0; k < 3; k++) {
        expect_op(s, k, 0, S, (1 + (1 << k)) % 5, a2a[k]);
        expect_op(s, k, 1, R, (1 - (1 << k) + 5) % 5, a2a[k]);
    }
    /* allgather over 5: 1, 2, 1 blocks to r - 2^k */
    static const int64_t ag[3] = {10, 20, 10};
    s = build(MC_OP_ALLGATHER, "bruck", 5, 1, -1, 10);
    CHECK_EQ_INT(s->nrounds, 3);
    for (int k = 0; k < 3; k++) {
        expect_op(s, k, 0, S, (1 - (1 << k) + 5) % 5, ag[k]);
        expect_op(s, k, 1, R, (1 + (1 << k)) % 5, ag[k]);
    }
}

static void scatter_allgather_bcast(void)
{
    /* 10 bytes over 4 in blocks of 3: rank 0 scatters [6,10) to 2, [3,6) to 1;
     * 2 passes [9,10) to 3; then 3 ring steps */
    const mc_coll_sched *s = build(MC_OP_BCAST, "scatter_allgather", 4, 0, 0, 10);
    CHECK_EQ_INT(s->nrounds, 5);
    expect_op(s, 0, 0, S, 2, 4);
    expect_op(s, 1, 0, S, 1, 3);
    expect_op(s, 2, 0, S, 1, 3); /* ring: own block 0 */
    expect_op(s, 2, 1, R, 3, 1); /* block 3 is 1 byte */
    s = build(MC_OP_BCAST, "scatter_allgather", 4, 2, 0, 10);
    expect_op(s, 0, 0, R, 0, 4);
    expect_op(s, 1, 0, S, 3, 1);
    s = build(MC_OP_BCAST, "scatter_allgather", 4, 3, 0, 10);
    expect_op(s, 0, 0, R, 2, 1);
    CHECK_EQ_INT(s->nrounds, 4);
}

static void reduce_scatter_halving_6(void)
{
    /* recvcounts 1..6 (sum 21); rem 2: rank 0 folds 21 bytes into 1, and at
     * the end receives its 1 byte from 1; new rank 0 (rank 1) stands for
     * ranks 0,1 (3 bytes), new rank 1 (rank 3) for 2,3 (7), 4 -> 5, 5 -> 6 */
    static const int64_t counts[6] = {1, 2, 3, 4, 5, 6};
    mc_error err = {0};
    const mc_coll_alg *alg = mc_coll_select(MC_OP_REDUCE_SCATTER, "recursive_halving", 6, 21, &err);
    CHECK(alg);
    mc_coll_args a = {MC_OP_REDUCE_SCATTER, 6, 0, -1, 0, 0, NULL, counts};
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_OK);
    CHECK_EQ_INT(sched.nrounds, 2);
    expect_op(&sched, 0, 0, S, 1, 21);
    expect_op(&sched, 1, 0, R, 1, 1);
    a.rank = 1;
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_OK);
    CHECK_EQ_INT(sched.nrounds, 4);
    expect_op(&sched, 0, 0, R, 0, 21);
    expect_op(&sched, 1, 0, S, 4, 11); /* new rank 2 keeps blocks of 4, 5 */
    expect_op(&sched, 1, 1, R, 4, 10); /* we keep blocks of 0..3 */
    expect_op(&sched, 2, 0, S, 3, 7);
    expect_op(&sched, 2, 1, R, 3, 3);
    expect_op(&sched, 3, 0, S, 0, 1);
}

static void bad_arguments(void)
{
    mc_error err = {0};
    const mc_coll_alg *alg = mc_coll_select(MC_OP_BCAST, "binomial", 4, 8, &err);
    mc_coll_args a = {MC_OP_BCAST, 4, 4, 0, 8, 8, NULL, NULL};
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "rank 4 outside communicator of size 4"));
    a.rank = 1;
    a.root = 7;
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "root 7"));
    a.root = 0;
    a.bytes = -1;
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_ERR_FORMAT);
    a.bytes = 8;
    a.op = MC_OP_REDUCE;
    CHECK_EQ_INT(mc_coll_build(alg, &a, &sched, &err), MC_ERR_INTERNAL);
    CHECK_EQ_INT(mc_coll_build(NULL, &a, &sched, &err), MC_ERR_INTERNAL);
    /* v-collectives need the counts they read */
    alg = mc_coll_select(MC_OP_ALLTOALLV, "pairwise", 4, 8, &err);
    mc_coll_args v = {MC_OP_ALLTOALLV, 4, 1, -1, 0, 0, NULL, NULL};
    CHECK_EQ_INT(mc_coll_build(alg, &v, &sched, &err), MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "Alltoallv") && strstr(err.msg, "no send counts"));
    alg = mc_coll_select(MC_OP_GATHERV, "linear", 4, 8, &err);
    mc_coll_args g = {MC_OP_GATHERV, 4, 1, 0, 8, 0, NULL, NULL};
    CHECK_EQ_INT(mc_coll_build(alg, &g, &sched, &err), MC_OK); /* non-root: no counts needed */
    g.rank = 0;
    CHECK_EQ_INT(mc_coll_build(alg, &g, &sched, &err), MC_ERR_FORMAT);
    int64_t neg[4] = {1, -2, 3, 4};
    g.recvcounts = neg;
    CHECK_EQ_INT(mc_coll_build(alg, &g, &sched, &err), MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "negative count for rank 1"));
}

/* A schedule object is reused across builds; reset keeps it consistent. */
static void reuse(void)
{
    const mc_coll_sched *s = build(MC_OP_ALLTOALL, "pairwise", 40, 3, -1, 1);
    CHECK_EQ_INT(s->nrounds, 39);
    CHECK_EQ_INT(s->nops, 78);
    s = build(MC_OP_BARRIER, "dissemination", 1, 0, -1, 0);
    CHECK_EQ_INT(s->nrounds, 0);
    CHECK_EQ_INT(s->nops, 0);
    CHECK_EQ_INT(s->round_start[0], 0);
    mc_coll_sched_reset(&sched);
    CHECK_EQ_INT(sched.nrounds, 0);
}

int main(void)
{
    binomial_bcast();
    dissemination_barrier();
    recursive_doubling_allreduce_6();
    ring_allreduce_3();
    rabenseifner_8();
    bruck();
    scatter_allgather_bcast();
    reduce_scatter_halving_6();
    bad_arguments();
    reuse();
    mc_coll_sched_free(&sched);
    mc_coll_sched_free(&sched); /* free twice is safe: the struct is zeroed */
    return 0;
}
