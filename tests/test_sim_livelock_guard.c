/* The livelock guard of the simulator (issue 9): a replay that processes
 * stall_events engine events with neither simulated time passing nor a
 * trace event read stops with MC_ERR_DEADLOCK, a "no progress" message and
 * the report of the ranks' states; the default limit lets the same replay
 * finish. A 16-rank all-to-all on a network where nothing costs time
 * happens entirely at time 0 with no trace event read while its messages
 * fly (240 of them), so a limit of 50 engine events stands in for a
 * livelock. (loggp with every parameter zero, not the "free" model: on that
 * one the simulator completes an all-to-all without its messages.) */
#include <string.h>

#include "check.h"
#include "mem_source.h"
#include "mpicast/platform.h"

#define P 16

static mem_source *alltoall_trace(void)
{
    mem_source *m = mem_source_create(P);
    for (int r = 0; r < P; r++) {
        mc_event *e = ms_add(m, r, MC_OP_ALLTOALL, 0);
        e->peer2 = P;
        e->bytes = e->bytes2 = 1024;
        ms_add(m, r, MC_OP_FINALIZE, 0);
    }
    return m;
}

static mc_err replay(mem_source *m, uint64_t stall, mc_sim_result *res, mc_error *err)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    static const char *const zero[] = {MS_ZERO_COST_SETS};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
        CHECK_EQ_INT(mc_platform_set(p, zero[i], err), MC_OK);
    mem_source_rewind(m);
    mc_sim_options opt = {0};
    opt.stall_events = stall;
    mc_err rc = mc_sim_run(mem_source_base(m), p, &opt, res, err);
    mc_platform_destroy(p);
    return rc;
}

int main(void)
{
    mem_source *m = alltoall_trace();
    mc_sim_result res;
    mc_error err = {0};

    CHECK_EQ_INT(replay(m, 0, &res, &err), MC_OK);
    CHECK_EQ_INT(res.end, 0); /* nothing takes time */
    CHECK(res.sim_events > 50);
    CHECK_EQ_INT(res.events, 2 * P);
    mc_sim_result_free(&res);

    CHECK_EQ_INT(replay(m, 50, &res, &err), MC_ERR_DEADLOCK);
    CHECK(strstr(err.msg, "no progress: 50 engine events at simulated time 0.000000000 s") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(res.report != NULL);
    CHECK(strstr(res.report, "rank 0: ") != NULL);
    CHECK(res.events < 2 * P); /* stopped before the Finalize events */
    mc_sim_result_free(&res);

    mem_source_destroy(m);
    return 0;
}
