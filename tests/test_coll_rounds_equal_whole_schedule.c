/* A stepped algorithm (ring, pairwise) built a window of rounds at a time,
 * as the executor does, gives exactly the schedule built whole: the same
 * operations in the same rounds, and as many rounds as mc_coll_nrounds
 * says. Also: windows are refused for algorithms built whole and outside
 * the rounds. */
#include <string.h>

#include "check.h"
#include "mpicast/format.h"
#include "sim/coll.h"

static mc_coll_sched whole, part;

/* Window by window (of w rounds) against the whole schedule. */
static void compare(const mc_coll_alg *alg, const mc_coll_args *a, int w)
{
    mc_error err = {0};
    CHECK_EQ_INT(mc_coll_build(alg, a, &whole, &err), MC_OK);
    int n = mc_coll_nrounds(alg, a->size);
    CHECK_EQ_INT(n, whole.nrounds);
    for (int first = 0; first < n; first += w) {
        CHECK_EQ_INT(mc_coll_build_rounds(alg, a, first, w, &part, &err), MC_OK);
        int expect = n - first < w ? n - first : w;
        CHECK_EQ_INT(part.nrounds, expect);
        for (int k = 0; k < part.nrounds; k++) {
            int lo = whole.round_start[first + k], hi = whole.round_start[first + k + 1];
            CHECK_EQ_INT(part.round_start[k + 1] - part.round_start[k], hi - lo);
            for (int i = 0; i < hi - lo; i++) {
                const mc_coll_op *x = &whole.ops[lo + i], *y = &part.ops[part.round_start[k] + i];
                CHECK_EQ_INT(x->kind, y->kind);
                CHECK_EQ_INT(x->peer, y->peer);
                CHECK_EQ_INT(x->bytes, y->bytes);
            }
        }
    }
}

static int is_v(int op)
{
    return op == MC_OP_ALLGATHERV || op == MC_OP_ALLTOALLV || op == MC_OP_ALLTOALLW ||
           op == MC_OP_REDUCE_SCATTER;
}

static void every_stepped_algorithm(void)
{
    int64_t counts[2][40];
    for (int i = 0; i < 40; i++) {
        counts[0][i] = 100 + 7 * i; /* uneven, so a wrong block shows */
        counts[1][i] = 3000 - 11 * i;
    }
    int nstepped = 0;
    for (int i = 0; mc_coll_alg_at(i); i++) {
        const mc_coll_alg *alg = mc_coll_alg_at(i);
        if (!alg->step)
            continue;
        nstepped++;
        for (int P = 2; P <= 21; P += P < 6 ? 1 : 5)
            for (int r = 0; r < P; r++) {
                /* 1001 B over P blocks: uneven splits for the ring allreduce */
                mc_coll_args a = {alg->op, P, r, -1, 1001, 1001, NULL, NULL};
                if (is_v(alg->op)) {
                    a.sendcounts = counts[0];
                    a.recvcounts = counts[1];
                }
                compare(alg, &a, 1);
                compare(alg, &a, 3);
                compare(alg, &a, 8);
            }
    }
    /* pairwise (all-to-all, v, w), ring (allreduce, allgather, v,
     * reduce-scatter, block) */
    CHECK_EQ_INT(nstepped, 8);
}

static void windows_refused_where_meaningless(void)
{
    mc_error err = {0};
    const mc_coll_alg *bin = mc_coll_select(MC_OP_BCAST, "binomial", 8, 100, &err);
    const mc_coll_alg *pw = mc_coll_select(MC_OP_ALLTOALL, "pairwise", 8, 100, &err);
    CHECK(bin && pw);
    mc_coll_args a = {MC_OP_ALLTOALL, 8, 3, -1, 64, 64, NULL, NULL};
    CHECK_EQ_INT(mc_coll_nrounds(bin, 8), -1);
    CHECK_EQ_INT(mc_coll_nrounds(pw, 8), 7);
    CHECK(mc_coll_build_rounds(bin, &a, 0, 4, &part, &err) != MC_OK);
    CHECK(mc_coll_build_rounds(pw, &a, 7, 4, &part, &err) != MC_OK);
    CHECK(mc_coll_build_rounds(pw, &a, -1, 4, &part, &err) != MC_OK);
    CHECK(mc_coll_build_rounds(pw, &a, 0, 0, &part, &err) != MC_OK);
    /* the last round alone: step 7 sends to r + 7 = 2 and receives from 4 */
    CHECK_EQ_INT(mc_coll_build_rounds(pw, &a, 6, 4, &part, &err), MC_OK);
    CHECK_EQ_INT(part.nrounds, 1);
    CHECK_EQ_INT(part.ops[0].kind, MC_COLL_SEND);
    CHECK_EQ_INT(part.ops[0].peer, 2);
    CHECK_EQ_INT(part.ops[1].kind, MC_COLL_RECV);
    CHECK_EQ_INT(part.ops[1].peer, 4);
}

int main(void)
{
    every_stepped_algorithm();
    windows_refused_where_meaningless();
    mc_coll_sched_free(&whole);
    mc_coll_sched_free(&part);
    return 0;
}
