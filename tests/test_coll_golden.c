/* Collectives replayed end to end (mc_sim_run) on LogGP, against times
 * worked out by hand, to the nanosecond (results are in ps).
 *
 * Platform: L = 5 us, o = 1 us, g = 0, G = 1 ns/B (1 GB/s), reductions
 * 2 ns/B, everything eager. Messages are s = 101 B, so a transfer started at
 * t keeps the sender's CPU to t + o (its NIC only to t + 100 ns, never the
 * bottleneck), arrives at t + o + L = t + 6000 ns, and costs the receiver
 * o + (s-1)G = 1100 ns of CPU. One hop from a send to the end of its
 * receive: H = 7100 ns. A reduction of 101 B: 202 ns. */
#include "check.h"
#include "mem_source.h"

#define NS 1000 /* ps per ns */

static const char *const plat[] = {
    "network.latency=5us",  "network.overhead=1us",       "network.gap=0",
    "network.bandwidth=1GB/s", "cpu.reduce_cost=2ns",     "collectives.bcast=binomial",
    "collectives.allreduce=recursive_doubling",           NULL};

/* Binomial bcast of 101 B over 8 ranks from 0. Rank 0 posts its sends to
 * 4, 2, 1 at 0, 1000, 2000 (one o apart) and is done when its CPU is free,
 * at 3000. Rank 4 receives at 0 + H = 7100, sends to 6 at 7100 and to 5 at
 * 8100, done 9100; rank 2 receives at 1000 + H = 8100, sends to 3, done
 * 9100; rank 1 receives at 2000 + H = 9100. Rank 6 receives at 7100 + H =
 * 14200, sends to 7, done 15200; 5 and 3 receive at 8100 + H = 15200; rank 7
 * at 14200 + H = 21300 = 3 H, the tree's depth. */
static void binomial_bcast_8(void)
{
    mem_source *m = mem_source_create(8);
    for (int r = 0; r < 8; r++) {
        mc_event *e = ms_add(m, r, MC_OP_BCAST, 0);
        e->peer = 0;
        e->peer2 = 8;
        e->bytes = 101;
        e->bytes2 = 101;
    }
    mc_sim_result res;
    mem_run_ok(m, plat, &res);
    mem_check_ends(&res, 8, (int64_t[]){3000, 9100, 9100, 15200, 9100, 15200, 15200, 21300});
    CHECK_EQ_INT(res.coll_messages, 7);
    CHECK_EQ_INT(res.coll_bytes, 7 * 101);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

static void allreduce_events(mem_source *m, int P)
{
    for (int r = 0; r < P; r++) {
        mc_event *e = ms_add(m, r, MC_OP_ALLREDUCE, 0);
        e->peer2 = P;
        e->bytes = 101;
        e->bytes2 = 101;
    }
}

/* Recursive doubling over 8: three lockstep rounds; in each, every rank
 * sends at T (CPU to T + o), its partner's message arrives at T + 6000 and
 * is processed to T + 7100, then the reduction to T + 7302. End: 3 x 7302. */
static void recursive_doubling_8(void)
{
    mem_source *m = mem_source_create(8);
    allreduce_events(m, 8);
    mc_sim_result res;
    mem_run_ok(m, plat, &res);
    int64_t ends[8];
    for (int r = 0; r < 8; r++)
        ends[r] = 3 * 7302;
    mem_check_ends(&res, 8, ends);
    CHECK_EQ_INT(res.coll_messages, 24);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Recursive doubling over 6 (pof2 4, rem 2): 0 and 2 send to 1 and 3 at 0;
 * 1 and 3 hold the sum at 7100 + 202 = 7302. Ranks 4 and 5 (new ranks 2 and
 * 3) first compute 7302 ns so that everyone exchanges in lockstep: new
 * ranks 0-1 (1, 3) and 2-3 (4, 5) at 7302, done 14604; 0-2 (1, 4) and 1-3
 * (3, 5) at 14604, done 21906 (ranks 4, 5 end there). Then 1 and 3 send the
 * result to 0 and 2: CPU to 22906, received at 21906 + H = 29006. */
static void recursive_doubling_6(void)
{
    mem_source *m = mem_source_create(6);
    ms_compute(m, 4, 7302);
    ms_compute(m, 5, 7302);
    allreduce_events(m, 6);
    mc_sim_result res;
    mem_run_ok(m, plat, &res);
    mem_check_ends(&res, 6, (int64_t[]){29006, 22906, 29006, 22906, 21906, 21906});
    CHECK_EQ_INT(res.coll_messages, 2 + 8 + 2);
    CHECK_EQ_INT(res.ranks[4].compute, 7302 * NS);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* The same without the compute: 4 and 5 exchange at 0 (done 7302) and
 * send to 1 and 3 at 7302; those messages arrive at 13302 while 1 and 3 are
 * still in their first exchange (done 14604), so they wait unexpected. At
 * 14604 rank 1 posts its send to 4 (CPU to 15604) and then the receive,
 * which processes the waiting message from 15604 to 16704; reduction to
 * 16906; the result goes to 0 at 16906 (1 ends at 17906, 0 at 16906 + H =
 * 24006). Rank 4 gets 1's message, sent at 14604, at 20604 + 1100, and
 * reduces to 21906. */
static void recursive_doubling_6_unexpected(void)
{
    mem_source *m = mem_source_create(6);
    allreduce_events(m, 6);
    mc_sim_result res;
    mem_run_ok(m, plat, &res);
    mem_check_ends(&res, 6, (int64_t[]){24006, 17906, 24006, 17906, 21906, 21906});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

int main(void)
{
    binomial_bcast_8();
    recursive_doubling_8();
    recursive_doubling_6();
    recursive_doubling_6_unexpected();
    return 0;
}
