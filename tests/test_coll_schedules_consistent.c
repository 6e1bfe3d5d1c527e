/* Every collective algorithm, for many communicator sizes, roots and sizes:
 * all ranks' schedules match pairwise (same bytes), run to completion
 * round by round without deadlock under synchronous semantics, and deliver
 * the collective's data flow (tracked as sets of contributing ranks) and
 * byte volumes. */
#include "test_coll_model.h"

static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 64};
static const int64_t units[] = {0, 1, 5, 1000, (1 << 20) + 3};

/* Per-rank counts for the v-collectives; some are zero. */
static int64_t cnt(int i, int root, int64_t n) { return ((i * 5 + root) % 4) * n; }
static int64_t cnt2(int i, int j, int64_t n) { return ((i * 3 + j * 7) % 5) * n; }

typedef struct setup {
    mc_coll_args a[MODEL_MAXP];
    int64_t sc[MODEL_MAXP][MODEL_MAXP], rc[MODEL_MAXP][MODEL_MAXP];
} setup;

/* Fills every rank's arguments the way the tracer records them: zero where
 * MPI ignores a side (scatter's send side on non-roots, gather's receive
 * side, rank 0 of allgather/alltoall using MPI_IN_PLACE). */
static void make_args(setup *st, int op, int P, int root, int64_t n)
{
    for (int r = 0; r < P; r++) {
        mc_coll_args *a = &st->a[r];
        memset(a, 0, sizeof *a);
        a->op = op;
        a->size = P;
        a->rank = r;
        a->root = -1;
        for (int j = 0; j < P; j++) {
            st->sc[r][j] = st->rc[r][j] = 0;
        }
        switch (op) {
        case MC_OP_BARRIER: break;
        case MC_OP_BCAST: a->root = root; a->bytes = n; break;
        case MC_OP_REDUCE: a->root = root; a->bytes = n; a->bytes2 = r == root ? n : 0; break;
        case MC_OP_GATHER: a->root = root; a->bytes = n; a->bytes2 = r == root ? n : 0; break;
        case MC_OP_SCATTER: a->root = root; a->bytes = r == root ? n : 0; a->bytes2 = n; break;
        case MC_OP_ALLGATHER:
        case MC_OP_ALLTOALL: a->bytes = r == 0 ? 0 : n; a->bytes2 = n; break;
        case MC_OP_GATHERV:
            a->root = root;
            a->bytes = cnt(r, root, n);
            for (int j = 0; j < P; j++)
                st->rc[r][j] = cnt(j, root, n);
            if (r == root)
                a->recvcounts = st->rc[r];
            break;
        case MC_OP_SCATTERV:
            a->root = root;
            a->bytes2 = cnt(r, root, n);
            for (int j = 0; j < P; j++)
                st->sc[r][j] = cnt(j, root, n);
            if (r == root)
                a->sendcounts = st->sc[r];
            break;
        case MC_OP_ALLGATHERV:
        case MC_OP_REDUCE_SCATTER:
            a->bytes = op == MC_OP_ALLGATHERV ? cnt(r, root, n) : 0;
            for (int j = 0; j < P; j++)
                st->rc[r][j] = cnt(j, root, n);
            a->recvcounts = st->rc[r];
            break;
        case MC_OP_ALLTOALLV:
        case MC_OP_ALLTOALLW:
            for (int j = 0; j < P; j++) {
                st->sc[r][j] = cnt2(r, j, n);
                st->rc[r][j] = cnt2(j, r, n);
            }
            a->sendcounts = st->sc[r];
            a->recvcounts = st->rc[r];
            break;
        default: a->bytes = a->bytes2 = n; break; /* allreduce, rsb, scan, exscan */
        }
    }
}

static int64_t vcount(int op, int i, int root, int64_t n)
{
    return (op == MC_OP_GATHERV || op == MC_OP_SCATTERV || op == MC_OP_ALLGATHERV ||
            op == MC_OP_REDUCE_SCATTER)
               ? cnt(i, root, n)
               : n;
}

/* The data-flow and volume conditions of each collective. */
static void check_semantics(const model *m, const mc_coll_alg *alg, int P, int root, int64_t n)
{
    int op = alg->op;
    uint64_t full = model_full(P);
    int64_t others = 0; /* sum of the blocks of ranks other than root */
    for (int i = 0; i < P; i++)
        if (i != root)
            others += vcount(op, i, root, n);
    for (int r = 0; r < P; r++) {
        uint64_t mk = m->mask[r], me = (uint64_t)1 << r, rootbit = (uint64_t)1 << root;
        int64_t own = vcount(op, r, root, n);
        int64_t all_but_me = 0;
        for (int i = 0; i < P; i++)
            if (i != r)
                all_but_me += vcount(op, i, root, n);
        switch (op) {
        case MC_OP_BARRIER:
        case MC_OP_ALLREDUCE:
        case MC_OP_ALLGATHER:
        case MC_OP_ALLTOALL:
            CHECK(mk == full);
            break;
        case MC_OP_ALLTOALLV:
        case MC_OP_ALLTOALLW: {
            CHECK(mk == full);
            int64_t in = 0, out = 0;
            for (int j = 0; j < P; j++)
                if (j != r) {
                    in += cnt2(j, r, n);
                    out += cnt2(r, j, n);
                }
            CHECK_EQ_INT(m->recvd[r], in);
            CHECK_EQ_INT(m->sent[r], out);
            break;
        }
        case MC_OP_REDUCE_SCATTER:
        case MC_OP_REDUCE_SCATTER_BLOCK:
            /* a rank with an empty block may be left out by scatterv */
            CHECK(mk == full || (own == 0 && strcmp(alg->name, "nonoverlapping") == 0));
            break;
        case MC_OP_ALLGATHERV:
            CHECK(mk == full);
            CHECK_EQ_INT(m->recvd[r], all_but_me);
            break;
        case MC_OP_BCAST:
            CHECK(mk & rootbit);
            if (r != root)
                CHECK(m->recvd[r] >= n);
            if (r != root && strcmp(alg->name, "scatter_allgather") != 0)
                CHECK_EQ_INT(m->recvd[r], n);
            break;
        case MC_OP_REDUCE:
        case MC_OP_GATHER:
            if (r == root)
                CHECK(mk == full);
            if (r == root && op == MC_OP_GATHER)
                CHECK_EQ_INT(m->recvd[r], others);
            break;
        case MC_OP_GATHERV:
            if (r == root) {
                for (int i = 0; i < P; i++)
                    if (vcount(op, i, root, n) > 0)
                        CHECK(mk & ((uint64_t)1 << i));
                CHECK_EQ_INT(m->recvd[r], others);
            }
            break;
        case MC_OP_SCATTER:
        case MC_OP_SCATTERV:
            if (r == root)
                CHECK_EQ_INT(m->sent[r], others);
            else if (own > 0)
                CHECK(mk & rootbit);
            if (r != root)
                CHECK(m->recvd[r] >= own);
            break;
        case MC_OP_SCAN:
        case MC_OP_EXSCAN: {
            uint64_t need = op == MC_OP_SCAN ? (me << 1) - 1 : me - 1;
            CHECK((mk & need) == need);
            if (strcmp(alg->name, "linear") == 0)
                CHECK(mk == ((me << 1) - 1));
            break;
        }
        default: CHECK(!"unhandled op");
        }
        if (op == MC_OP_ALLGATHER)
            CHECK_EQ_INT(m->recvd[r], (int64_t)(P - 1) * n);
        if (op == MC_OP_ALLTOALL && strcmp(alg->name, "bruck") != 0)
            CHECK_EQ_INT(m->recvd[r], (int64_t)(P - 1) * n);
        if (op == MC_OP_ALLTOALL)
            CHECK(m->recvd[r] >= (int64_t)(P - 1) * n);
    }
}

/* Closed forms of the total volume of the allreduce algorithms. */
static void check_allreduce_volume(const model *m, const char *name, int P, int64_t n)
{
    int pof2 = 1, lg = 0;
    while (pof2 * 2 <= P) {
        pof2 *= 2;
        lg++;
    }
    int rem = P - pof2;
    int64_t want;
    if (strcmp(name, "ring") == 0 || strcmp(name, "nonoverlapping") == 0)
        want = 2 * (int64_t)(P - 1) * n;
    else if (strcmp(name, "rabenseifner") == 0)
        want = 2 * (int64_t)(pof2 - 1) * n + 2 * (int64_t)rem * n;
    else
        want = (int64_t)pof2 * lg * n + 2 * (int64_t)rem * n;
    CHECK_EQ_INT(m->total_sent, want);
}

/* The case under test, printed if a CHECK exits. */
static char current[128];
static int done;
static void print_case(void)
{
    if (!done)
        fprintf(stderr, "failing case: %s\n", current);
}

int main(void)
{
    atexit(print_case);
    static setup st;
    static model m;
    int cases = 0;
    for (int i = 0; mc_coll_alg_at(i); i++) {
        const mc_coll_alg *alg = mc_coll_alg_at(i);
        for (size_t pi = 0; pi < sizeof sizes / sizeof sizes[0]; pi++) {
            int P = sizes[pi];
            int roots[4] = {0, 1 % P, P - 1, P / 2};
            for (int ri = 0; ri < 4; ri++) {
                for (size_t ui = 0; ui < sizeof units / sizeof units[0]; ui++) {
                    int64_t n = units[ui];
                    make_args(&st, alg->op, P, roots[ri], n);
                    int root = st.a[0].root >= 0 ? st.a[0].root : roots[ri];
                    snprintf(current, sizeof current, "%s/%s P=%d root=%d n=%lld",
                             mc_op_name(alg->op), alg->name, P, root, (long long)n);
                    if (model_exec(&m, alg, st.a, P) != 0) {
                        fprintf(stderr, "%s/%s P=%d root=%d n=%lld: %s\n",
                                mc_op_name(alg->op), alg->name, P, root, (long long)n, m.why);
                        return 1;
                    }
                    if (P == 1)
                        CHECK_EQ_INT(m.nrounds_max, 0);
                    check_semantics(&m, alg, P, root, n);
                    if (alg->op == MC_OP_ALLREDUCE)
                        check_allreduce_volume(&m, alg->name, P, n);
                    model_free(&m);
                    cases++;
                }
            }
        }
    }
    done = 1;
    CHECK(cases > 1000);
    printf("%d cases\n", cases);
    return 0;
}
