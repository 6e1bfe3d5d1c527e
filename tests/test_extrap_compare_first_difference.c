/* mc_extrap_compare, the comparison of the leave-one-out check (issue 20):
 * on tiny in-memory streams, equal streams (times aside) are equal, and a
 * changed peer, size, tag, operation, an extra or a missing event is
 * reported at the right rank and event index, with the trace's operation
 * and call site there. */
#include "check.h"
#include "mem_source.h"
#include "mpicast/extrap.h"

enum { V_SAME, V_TIMES, V_PEER, V_SIZE, V_TAG, V_OP, V_EXTRA, V_SHORT, V_RANKS };

/* Rank 0 sends 64 bytes to rank 1 (Isend + Wait), rank 1 receives them
 * (Irecv + Wait); then both Allreduce 8 bytes. `v` changes one thing. */
static mem_source *make(int v)
{
    mem_source *m = mem_source_create(v == V_RANKS ? 3 : 2);
    for (int r = 0; r < 2; r++) {
        if (v == V_TIMES)
            ms_compute(m, r, 1000 * (r + 1));
        mc_event *e = ms_add(m, r, MC_OP_INIT, v == V_TIMES ? 55 : 10);
        e->site = 0x100;
        int peer = r == 0 ? 1 : 0;
        if (v == V_PEER && r == 1)
            peer = 5;
        int64_t bytes = v == V_SIZE && r == 1 ? 72 : 64;
        int tag = v == V_TAG && r == 0 ? 4 : 3;
        e = ms_p2p(m, r, r == 0 ? MC_OP_ISEND : MC_OP_IRECV, peer, tag, bytes, 1);
        e->site = 0x200 + r;
        e = ms_wait(m, r, MC_OP_WAIT, 1, 1u);
        e->site = 0x300;
        e = ms_add(m, r, v == V_OP && r == 1 ? MC_OP_BCAST : MC_OP_ALLREDUCE, 5);
        e->bytes = 8;
        e->site = 0x400;
        if (!(v == V_SHORT && r == 0)) {
            e = ms_add(m, r, MC_OP_FINALIZE, 1);
            e->site = 0x500;
        }
        if (v == V_EXTRA && r == 0) {
            e = ms_add(m, r, MC_OP_BARRIER, 1);
            e->site = 0x600;
        }
    }
    return m;
}

/* Compares the reference stream (model) with variant v (trace). */
static int cmp(int v, mc_extrap_diff *d, uint64_t *n)
{
    mem_source *a = make(V_SAME), *b = make(v);
    mc_error err = {0};
    int rc = mc_extrap_compare(mem_source_base(a), mem_source_base(b), d, n, NULL, NULL, &err);
    mem_source_destroy(a);
    mem_source_destroy(b);
    return rc;
}

static void ticks(void *ctx)
{
    ++*(int *)ctx;
}

int main(void)
{
    mc_extrap_diff d;
    uint64_t n = 0;
    CHECK_EQ_INT(cmp(V_SAME, &d, &n), 0);
    CHECK_EQ_INT(n, 10);
    CHECK_EQ_INT(cmp(V_TIMES, &d, &n), 0); /* times are not compared */

    CHECK_EQ_INT(cmp(V_PEER, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 1);
    CHECK_EQ_INT(d.index, 1);
    CHECK_EQ_INT(d.op, MC_OP_IRECV);
    CHECK_EQ_INT(d.site, 0x201);
    CHECK_EQ_STR(d.what, "peer 0 in the model, 5 in the trace");
    CHECK_EQ_INT(n, 6); /* rank 0 (5 events) and rank 1's first */

    CHECK_EQ_INT(cmp(V_SIZE, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 1);
    CHECK_EQ_INT(d.index, 1);
    CHECK_EQ_STR(d.what, "bytes 64 in the model, 72 in the trace");

    CHECK_EQ_INT(cmp(V_TAG, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 0);
    CHECK_EQ_INT(d.index, 1);
    CHECK_EQ_INT(d.op, MC_OP_ISEND);
    CHECK_EQ_STR(d.what, "tag 3 in the model, 4 in the trace");

    CHECK_EQ_INT(cmp(V_OP, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 1);
    CHECK_EQ_INT(d.index, 3);
    CHECK_EQ_INT(d.op, MC_OP_BCAST);
    CHECK_EQ_STR(d.what, "Allreduce in the model, Bcast in the trace");

    /* an extra event in the trace: the model's rank ends first */
    CHECK_EQ_INT(cmp(V_EXTRA, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 0);
    CHECK_EQ_INT(d.index, 5);
    CHECK_EQ_INT(d.op, MC_OP_BARRIER);
    CHECK_EQ_INT(d.site, 0x600);
    CHECK_EQ_STR(d.what, "the model's rank ends after 5 events, the trace has Barrier "
                         "(site 600) there");

    /* a missing event in the trace: the trace's rank ends first */
    CHECK_EQ_INT(cmp(V_SHORT, &d, &n), 1);
    CHECK_EQ_INT(d.rank, 0);
    CHECK_EQ_INT(d.index, 4);
    CHECK_EQ_INT(d.op, -1);
    CHECK_EQ_INT(d.site, 0x500);
    CHECK_EQ_STR(d.what, "the trace's rank ends after 4 events, the model has Finalize "
                         "(site 500) there");

    CHECK_EQ_INT(cmp(V_RANKS, &d, &n), 1);
    CHECK_EQ_INT(d.rank, -1);
    CHECK_EQ_STR(d.what, "2 ranks in the model, 3 in the trace");

    /* one tick per rank compared */
    mem_source *a = make(V_SAME), *b = make(V_SAME);
    mc_error err = {0};
    int t = 0;
    CHECK_EQ_INT(mc_extrap_compare(mem_source_base(a), mem_source_base(b), &d, NULL, ticks, &t,
                                   &err), 0);
    CHECK_EQ_INT(t, 2);
    mem_source_destroy(a);
    mem_source_destroy(b);
    printf("test_extrap_compare_first_difference: ok\n");
    return 0;
}
