/* Where calls take no time (the free network of the breakdown, a trace
 * without compute), a rank that never blocks must not run its whole stream
 * at one instant while every message it sends waits unreceived: the replay's
 * memory would follow the trace's length (a 64-rank broadcast trace of 9 M
 * events held 180 MB). Rank 0 sends 200,000 eager messages, rank 1
 * receives them, no compute: on the free network and on loggp with every
 * cost zero, all 200,000 are replayed at t = 0 with at most a few thousand
 * held at once (the engine lets ranks due at an instant go first after
 * 4096 events of one rank there). */
#include "check.h"
#include "mem_source.h"

static const char *const ZERO[] = {MS_ZERO_COST_SETS, NULL};
enum { N = 200000, HELD = 2 * 4096 + 64 };

int main(void)
{
    mem_source *m = mem_source_create(2);
    for (int i = 0; i < N; i++) {
        ms_p2p(m, 0, MC_OP_SEND, 1, 3, 8, 0);
        ms_p2p(m, 1, MC_OP_RECV, 0, 3, 8, 0);
    }
    mc_sim_result res;
    mc_error err = {0};
    CHECK(mem_run(m, NULL, "free", &res, &err) == MC_OK);
    CHECK_EQ_INT(res.end, 0);
    CHECK_EQ_INT(res.messages, N);
    CHECK(res.peak_messages > 0 && res.peak_messages <= HELD);
    mc_sim_result_free(&res);

    CHECK(mem_run(m, ZERO, NULL, &res, &err) == MC_OK);
    CHECK_EQ_INT(res.end, 0);
    CHECK(res.peak_messages > 0 && res.peak_messages <= HELD);
    mc_sim_result_free(&res);

    mem_source_destroy(m);
    return 0;
}
