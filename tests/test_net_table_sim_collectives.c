/* With the table model and a measured collective table for the operation
 * and communicator size, the simulator does not expand the collective: each
 * member is held from its entry until the last member has entered plus the
 * measured time (blocking and nonblocking). Without a table for that size
 * the collective is expanded as usual. Times to the ps. */
#include <stdio.h>

#include "check.h"
#include "mem_source.h"
#include "mpicast/sim.h"

static const char *const sets[] = {
    "network.model=table", "table.pingpong.0=1us", "table.pingpong.1MiB=101us",
    "table.allreduce.4.0=3us", "table.allreduce.4.1KiB=5us", "table.barrier.4.0=1.5us", NULL};

/* rank r computes r us, allreduce of 512 B, rank 0 computes 0.1 us, barrier */
static mem_source *blocking(void)
{
    mem_source *m = mem_source_create(4);
    for (int r = 0; r < 4; r++) {
        ms_compute(m, r, 1000 * r);
        ms_add(m, r, MC_OP_ALLREDUCE, 0)->bytes = 512;
        if (r == 0)
            ms_compute(m, r, 100);
        ms_add(m, r, MC_OP_BARRIER, 0);
    }
    return m;
}

int main(void)
{
    mc_sim_result res = {0};
    mc_error err = {0};
    mem_source *m = blocking();
    if (mem_run(m, sets, NULL, &res, &err) != MC_OK)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(err.code, MC_OK);
    /* allreduce: last entry 3 us + 4 us (512 B between 3 us at 0 B and 5 us
     * at 1 KiB) = 7 us; barrier: last entry 7.1 us + 1.5 us */
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(res.ranks[r].end, 8600000);
    CHECK_EQ_INT(res.end, 8600000);
    CHECK_EQ_INT(res.coll_messages, 0);
    mc_sim_result_free(&res);

    /* a table at another size: expanded into messages */
    const char *const sets8[] = {"network.model=table", "table.pingpong.0=1us",
                                 "table.allreduce.8.0=3us", NULL};
    if (mem_run(m, sets8, NULL, &res, &err) != MC_OK)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(err.code, MC_OK);
    CHECK(res.coll_messages > 0);
    CHECK(res.end != 8600000);
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* nonblocking: Iallreduce, 10 us of compute, Wait. Rank 3 enters at 3 us,
     * so the collective ends at 7 us; every rank's wait returns at
     * max(its entry + 10 us, 7 us) */
    m = mem_source_create(4);
    for (int r = 0; r < 4; r++) {
        ms_compute(m, r, 1000 * r);
        mc_event *e = ms_add(m, r, MC_OP_IALLREDUCE, 0);
        e->bytes = 512;
        e->req = 5;
        ms_compute(m, r, r == 0 ? 2000 : 10000);
        ms_wait(m, r, MC_OP_WAIT, 1, 5u);
    }
    if (mem_run(m, sets, NULL, &res, &err) != MC_OK)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(err.code, MC_OK);
    CHECK_EQ_INT(res.ranks[0].end, 7000000);  /* computes till 2 us, waits till 7 */
    CHECK_EQ_INT(res.ranks[1].end, 11000000); /* the collective was done at 7 us */
    CHECK_EQ_INT(res.ranks[3].end, 13000000);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
