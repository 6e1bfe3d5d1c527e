/* With a free network (zero latency, overhead and gap, infinite bandwidth)
 * the predicted time is the largest per-rank sum of compute bursts when the
 * rank with the most compute never waits: here a ring where rank 3 computes
 * most and sends last, and a bulk-synchronous exchange. Also checks the
 * "free" model equals loggp with every parameter set to zero. */
#include "check.h"
#include "mem_source.h"

static const char *const ZERO[] = {MS_ZERO_COST_SETS, NULL};

int main(void)
{
    mem_source *m = mem_source_create(4);
    int64_t sum[4] = {0};
    for (int r = 0; r < 4; r++) {
        ms_p2p(m, r, MC_OP_IRECV, (r + 3) % 4, 0, 1 << 20, 1);
        ms_compute(m, r, 1000 * r + 17);
        sum[r] += 1000 * r + 17;
        ms_p2p(m, r, MC_OP_ISEND, (r + 1) % 4, 0, 1 << 20, 2);
        ms_wait(m, r, MC_OP_WAITALL, 2, 1u, 2u);
        /* bulk-synchronous phase: everyone computes the same, then exchanges */
        ms_compute(m, r, 5000);
        sum[r] += 5000;
        mc_event *e = ms_p2p(m, r, MC_OP_SENDRECV, r ^ 1, 9, 4096, 0);
        e->peer2 = r ^ 1, e->tag2 = 9, e->bytes2 = 4096;
    }
    int64_t mx = 0;
    for (int r = 0; r < 4; r++)
        mx = sum[r] > mx ? sum[r] : mx;

    mc_sim_result res, res0;
    mc_error err = {0};
    CHECK(mem_run(m, NULL, "free", &res, &err) == MC_OK);
    CHECK_EQ_INT(res.end, mx * 1000);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(res.ranks[r].compute, sum[r] * 1000);
        CHECK_EQ_INT(res.ranks[r].comm, 0);
    }
    CHECK(mem_run(m, ZERO, NULL, &res0, &err) == MC_OK);
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(res0.ranks[r].end, res.ranks[r].end);
    mc_sim_result_free(&res);
    mc_sim_result_free(&res0);
    mem_source_destroy(m);
    return 0;
}
