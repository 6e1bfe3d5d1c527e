/* A collective priced by a measured table (network.model = table with a
 * table.<op>.<ranks>.<size> curve) holds every member until the last one
 * has entered plus the measured time. Two ranks, two barriers measured at
 * 3 us: rank 0 computes 1000 ns then 1007 ns, rank 1 2000 ns then 2007 ns.
 * First barrier: both leave at 2000 + 3000 = 5000 ns; second: entries at
 * 6007 and 7007, both leave at 7007 + 3000 = 10007 ns. (The last member
 * to enter used to go on computing past the wake-up of the others, which
 * then started late: rank 0 entered the second barrier at 8014 and both
 * ended at 11014 ns.) */
#include "check.h"
#include "mem_source.h"

int main(void)
{
    mem_source *m = mem_source_create(2);
    for (int r = 0; r < 2; r++)
        for (int it = 0; it < 2; it++) {
            ms_compute(m, r, 1000 * (r + 1) + 7 * it);
            mc_event *e = ms_add(m, r, MC_OP_BARRIER, 0);
            e->peer2 = 2;
        }
    const char *const sets[] = {"network.model=table", "table.pingpong.0=1us",
                                "table.pingpong.1024=2us", "table.barrier.2.0=3us", NULL};
    mc_sim_result res;
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 2, (int64_t[]){10007, 10007});
    CHECK_EQ_INT(res.ranks[0].compute, 2007 * 1000);
    CHECK_EQ_INT(res.ranks[1].compute, 4007 * 1000);
    CHECK_EQ_INT(res.coll_messages, 0); /* measured: no schedule ran */
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
