/* mc_sim_options.interrupt: when the flag becomes non-zero mid-replay the
 * simulator stops within 4096 engine events and returns MC_ERR_INTERRUPTED
 * with the partial result: the simulated time reached, the events replayed
 * so far, and per rank what was simulated (never past the time reached).
 * The flag is raised from the compute hook at a known burst, as a SIGINT
 * handler would raise it. */
#include "check.h"
#include "mem_source.h"

enum { ITERS = 50000, STOP_AT = 1000 };

static volatile sig_atomic_t flag, never;
static int bursts;

static int64_t raise_at(void *ctx, int rank, int32_t prev, int32_t site, int64_t scaled)
{
    (void)ctx, (void)rank, (void)prev, (void)site;
    if (++bursts == STOP_AT)
        flag = 1;
    return scaled;
}

static mc_err replay(mem_source *m, const volatile sig_atomic_t *stop, mc_sim_result *res,
                     mc_error *err)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    mem_source_rewind(m);
    mc_sim_options opt = {0};
    opt.compute = raise_at;
    opt.interrupt = stop;
    mc_err rc = mc_sim_run(mem_source_base(m), p, &opt, res, err);
    mc_platform_destroy(p);
    return rc;
}

int main(void)
{
    /* ping-pong with 1 us of compute before every send */
    mem_source *m = mem_source_create(2);
    for (int i = 0; i < ITERS; i++) {
        ms_compute(m, 0, 1000);
        ms_p2p(m, 0, MC_OP_SEND, 1, 0, 8, 0);
        ms_p2p(m, 0, MC_OP_RECV, 1, 0, 8, 0);
        ms_p2p(m, 1, MC_OP_RECV, 0, 0, 8, 0);
        ms_compute(m, 1, 1000);
        ms_p2p(m, 1, MC_OP_SEND, 0, 0, 8, 0);
    }
    mc_sim_result full, part;
    mc_error err = {0};
    /* with a flag that is never raised the replay runs to its end */
    CHECK(replay(m, &never, &full, &err) == MC_OK);
    CHECK_EQ_INT(full.interrupted, 0);
    CHECK_EQ_INT(full.sim_time, full.end);
    CHECK_EQ_INT(full.events, 4 * ITERS);

    flag = 0;
    bursts = 0;
    memset(&err, 0, sizeof err);
    CHECK(replay(m, &flag, &part, &err) == MC_ERR_INTERRUPTED);
    CHECK(strstr(err.msg, "interrupted at simulated time") != NULL);
    CHECK_EQ_INT(part.interrupted, 1);
    /* the 1000th burst starts its rank's 500th iteration; the loop stops at
     * the next multiple of 4096 engine events, long before the 50,000th */
    CHECK(part.events > 4 * (STOP_AT / 2 - 1));
    CHECK(part.events < 4 * (STOP_AT / 2) + 4096);
    CHECK(part.events < full.events);
    CHECK(part.sim_time > 0 && part.sim_time < full.end);
    CHECK_EQ_INT(part.nranks, 2);
    for (int r = 0; r < 2; r++) {
        CHECK(part.ranks[r].end <= part.end);
        CHECK(part.ranks[r].compute <= part.ranks[r].end);
        CHECK(part.ranks[r].compute >= (int64_t)(STOP_AT / 2 - 1) * 1000 * 1000);
    }
    /* the time reached is where the ranks are: not past the partial end */
    CHECK(part.sim_time <= part.end);
    mc_sim_result_free(&full);
    mc_sim_result_free(&part);
    mem_source_destroy(m);
    return 0;
}
