/* Golden LogGP replays computed by hand, to the nanosecond (results are ps).
 *
 * Platform G1: L = 1 us, o = 100 ns, g = 150 ns, G = 1 ns/B (1 GB/s),
 * eager limit 1000 B. For s bytes: sender CPU o, sender NIC g + (s-1)G,
 * arrival o + L = 1100 ns after the send starts, receiver CPU o + (s-1)G. */
#include "check.h"
#include "mem_source.h"

static const char *const G1[] = {"network.latency=1us", "network.overhead=100ns",
                                 "network.gap=150ns", "network.bandwidth=1GB/s",
                                 "network.eager_limit=1000", NULL};

#define NS 1000 /* ps per ns */

/* r0: compute 500, Send 101 B, Recv; r1: Recv, compute 200, Send.
 * r0 sends at 500 (CPU to 600), arrives 1600, r1 processes 1600-1800
 * (o + 100 ns); r1 computes to 2000, sends (CPU to 2100), arrives 3100,
 * r0 processes to 3300. */
static void pingpong(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 500);
    ms_p2p(m, 0, MC_OP_SEND, 1, 7, 101, 0);
    ms_p2p(m, 0, MC_OP_RECV, 1, 7, 101, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 7, 101, 0);
    ms_compute(m, 1, 200);
    ms_p2p(m, 1, MC_OP_SEND, 0, 7, 101, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){3300, 2100});
    CHECK_EQ_INT(res.messages, 2);
    CHECK_EQ_INT(res.bytes, 202);
    CHECK_EQ_INT(res.events, 4);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* r0: Send s bytes; r1: compute 5000, Recv. Message arrives at 1100 while
 * r1 computes; r1 posts the receive at 5000 and processes the message then.
 * s = 1000 (= limit, eager): r0 done at o = 100; r1 at 5000 + 100 + 999.
 * s = 1001 (rendezvous): r0's send completes at the match (5000);
 * r1 at 5000 + 100 + 1000. */
static void eager_vs_rendezvous(int64_t s, int64_t end0, int64_t end1)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, s, 0);
    ms_compute(m, 1, 5000);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, s, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){end0, end1});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Rendezvous where the receive is posted first: r1 Recv at 0; r0 computes
 * 300 then sends 2001 B: arrival 1400, r1 processes 1400-3500 and the match
 * (processing start, 1400) releases r0. */
static void rendezvous_posted(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 300);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 2001, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){1400, 1400 + 100 + 2000});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Ring of 4: rank r: Irecv from r-1 (req 1), compute 1000 r, Isend to r+1
 * (req 2), Waitall. r sends at 1000r (CPU to 1000r+100), arrival 1000r+1100
 * at r+1, which is free then (its own Isend ends at 1000(r+1)+100) and
 * processes to 1000r+1300. Rank 0 gets rank 3's message at 4100: 4300. */
static void ring(void)
{
    mem_source *m = mem_source_create(4);
    for (int r = 0; r < 4; r++) {
        ms_p2p(m, r, MC_OP_IRECV, (r + 3) % 4, 3, 101, 1);
        ms_compute(m, r, 1000 * r);
        ms_p2p(m, r, MC_OP_ISEND, (r + 1) % 4, 3, 101, 2);
        ms_wait(m, r, MC_OP_WAITALL, 2, 1u, 2u);
    }
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 4, (int64_t[]){4300, 1300, 2300, 3300});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Back-to-back 1-byte sends: the gap (150 > o) spaces them: starts 0 and
 * 150, arrivals 1100 and 1250; r1's receive NIC is busy g = 150 after the
 * first, so it processes at 1100-1200 and 1250-1350. */
static void gap(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 1, 0);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 1, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){250, 1350});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Sendrecv: r0 at 0, r1 after 400 of compute, 101 B each way. r0's message
 * arrives at r1 at 1100 (r1 free since 500): done 1300. r1's arrives at
 * 1500: r0 done 1700. */
static void sendrecv(void)
{
    mem_source *m = mem_source_create(2);
    mc_event *e = ms_p2p(m, 0, MC_OP_SENDRECV, 1, 1, 101, 0);
    e->peer2 = 1, e->tag2 = 2, e->bytes2 = 101;
    ms_compute(m, 1, 400);
    e = ms_p2p(m, 1, MC_OP_SENDRECV, 0, 2, 101, 0);
    e->peer2 = 0, e->tag2 = 1, e->bytes2 = 101;
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){1700, 1300});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Irecv, compute 100, a Test that completed nothing (recorded 50 ns), then
 * Wait. r1 computes 2000 and sends: arrival 3100, r0 done 3300.
 * cpu.polling = recorded: the test costs its 50 ns; with cpu.speed = 2
 * every burst and the test take half: r1 sends at 1000, r0 done 2300.
 * cpu.polling = wait (default): the failed test and the Wait that ends its
 * run are one wait, the test costs nothing (comm = the receive's 200). */
static void test_then_wait(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_IRECV, 1, 0, 101, 1);
    ms_compute(m, 0, 100);
    ms_add(m, 0, MC_OP_TEST, 50);
    ms_wait(m, 0, MC_OP_WAIT, 1, 1u);
    ms_compute(m, 1, 2000);
    ms_p2p(m, 1, MC_OP_SEND, 0, 0, 101, 0);
    mc_sim_result res;
    const char *rec[] = {"network.latency=1us", "network.overhead=100ns", "network.gap=150ns",
                         "network.bandwidth=1GB/s", "network.eager_limit=1000",
                         "cpu.polling=recorded", NULL};
    mem_run_ok(m, rec, &res);
    mem_check_ends(&res, 2, (int64_t[]){3300, 2100});
    /* r0: compute 100, comm = test 50 + receive 200, wait the rest */
    CHECK_EQ_INT(res.ranks[0].compute, 100 * NS);
    CHECK_EQ_INT(res.ranks[0].comm, 250 * NS);
    CHECK_EQ_INT(res.ranks[0].wait, (3300 - 350) * NS);
    mc_sim_result_free(&res);
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){3300, 2100});
    CHECK_EQ_INT(res.ranks[0].compute, 100 * NS);
    CHECK_EQ_INT(res.ranks[0].comm, 200 * NS);
    CHECK_EQ_INT(res.ranks[0].wait, (3300 - 300) * NS);
    mc_sim_result_free(&res);
    const char *fast[] = {"network.latency=1us", "network.overhead=100ns", "network.gap=150ns",
                          "network.bandwidth=1GB/s", "network.eager_limit=1000",
                          "cpu.speed=2", "cpu.polling=recorded", NULL};
    mem_run_ok(m, fast, &res);
    mem_check_ends(&res, 2, (int64_t[]){2300, 1100});
    CHECK_EQ_INT(res.ranks[0].comm, 225 * NS);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Persistent requests started twice: both ranks Recv_init (1), Send_init (2),
 * then twice Startall + Waitall. Each exchange: sends at t (CPU to t+100),
 * arrival t+1100, processed to t+1300; the second starts at 1300. */
static void persistent(void)
{
    mem_source *m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        ms_p2p(m, r, MC_OP_RECV_INIT, 1 - r, 0, 101, 1);
        ms_p2p(m, r, MC_OP_SEND_INIT, 1 - r, 0, 101, 2);
        for (int k = 0; k < 2; k++) {
            mc_event *e = ms_add(m, r, MC_OP_STARTALL, 0);
            ms_vals(m, e, 2, (int64_t)1, (int64_t)2);
            ms_wait(m, r, MC_OP_WAITALL, 2, 1u, 2u);
        }
        mc_event *e = ms_add(m, r, MC_OP_REQUEST_FREE, 0);
        ms_vals(m, e, 2, (int64_t)1, (int64_t)2);
    }
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){2600, 2600});
    CHECK_EQ_INT(res.messages, 4);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Ssend of 1 B completes only when matched: r1 posts its receive at 3000
 * (after computing), the message (arrived 1100) is matched then: r0 ends
 * 3000, r1 processes it 3000-3100. */
static void ssend(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SSEND, 1, 0, 1, 0);
    ms_compute(m, 1, 3000);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){3000, 3100});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Probe blocks until the message has been processed (2100-2300), then the
 * Recv matches it at once. */
static void probe(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 1000);
    ms_p2p(m, 0, MC_OP_SEND, 1, 5, 101, 0);
    mc_event *e = ms_p2p(m, 1, MC_OP_PROBE, 0, 5, 0, 0);
    e->bytes2 = 101;
    ms_p2p(m, 1, MC_OP_RECV, 0, 5, 101, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){1100, 2300});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Non-overtaking: two messages with the same tag match the receives in
 * order; the first (2001 B, rendezvous) is received into the first Recv. */
static void non_overtaking(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_ISEND, 1, 4, 2001, 1);
    ms_p2p(m, 0, MC_OP_ISEND, 1, 4, 11, 2);
    ms_wait(m, 0, MC_OP_WAITALL, 2, 1u, 2u);
    ms_p2p(m, 1, MC_OP_RECV, 0, 4, 2001, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 4, 11, 0);
    /* send 1 at 0: CPU 100, NIC 150 + 2000 = 2150; send 2 at 2150: CPU 2250.
     * arrivals 1100 and 3250. r1 processes the first 1100-3200 (rendezvous
     * match at 1100), the second 3250-3360. r0: Waitall ends at 2250. */
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 2, (int64_t[]){2250, 3360});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* ranks_per_node = 2: r0 -> r1 intra-node (L 100, o 50, 10 GB/s), r2 -> r1
 * inter-node. 501 B: intra arrival 150, processed 150-250 (o + 50);
 * inter arrival 1100, processed 1100-1700 (o + 500). */
static void intranode(void)
{
    mem_source *m = mem_source_create(4);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 501, 0);
    ms_p2p(m, 2, MC_OP_SEND, 1, 0, 501, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 501, 0);
    ms_p2p(m, 1, MC_OP_RECV, 2, 0, 501, 0);
    const char *sets[] = {"network.latency=1us", "network.overhead=100ns", "network.gap=150ns",
                          "network.bandwidth=1GB/s", "network.eager_limit=1000",
                          "network.ranks_per_node=2", "intranode.latency=100ns",
                          "intranode.overhead=50ns", "intranode.gap=0",
                          "intranode.bandwidth=10GB/s", NULL};
    mc_sim_result res;
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 4, (int64_t[]){50, 1700, 100, 0});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* LogGOPSim's receive side: a message is processed as soon as the receiver's
 * CPU is free, even when no receive is posted for it. r1 blocks in Recv from
 * r0; r2's message arrives at 1100 and is processed 1100-1300 meanwhile;
 * r0's (sent at 2000) is processed 3100-3300. The later Recv from r2 then
 * completes at once: r1 ends at 3300 (not 3500). */
static void unexpected_while_blocked(void)
{
    mem_source *m = mem_source_create(3);
    ms_compute(m, 0, 2000);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 101, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 101, 0);
    ms_p2p(m, 1, MC_OP_RECV, 2, 0, 101, 0);
    ms_p2p(m, 2, MC_OP_SEND, 1, 0, 101, 0);
    mc_sim_result res;
    mem_run_ok(m, G1, &res);
    mem_check_ends(&res, 3, (int64_t[]){2100, 3300, 100});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

int main(void)
{
    pingpong();
    eager_vs_rendezvous(1000, 100, 5000 + 100 + 999);
    eager_vs_rendezvous(1001, 5000, 5000 + 100 + 1000);
    rendezvous_posted();
    ring();
    gap();
    sendrecv();
    test_then_wait();
    persistent();
    ssend();
    probe();
    non_overtaking();
    intranode();
    unexpected_while_blocked();
    return 0;
}
