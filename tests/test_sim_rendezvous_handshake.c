/* Golden replays of network.rendezvous = handshake, computed by hand to the
 * nanosecond (results are ps); the protocol is described in
 * src/sim/engine.c ("handshake") and docs/platform.md.
 *
 * Platform H: G1 of test_sim_p2p_golden.c (L = 1 us, o = 100 ns, g = 150 ns,
 * G = 1 ns/B, eager limit 1000 B) with the handshake. A rendezvous message
 * of s bytes: request (empty: sender CPU o, NIC g, arrival o + L = 1100),
 * reply from the receiver once matched (CPU o, arrival 1100), data once the
 * sender handles the reply (CPU o, NIC g + (s-1)G, arrival 1100), processed
 * by the receiver in o + (s-1)G; the send completes when the data has left
 * (its issue + max(o, g + (s-1)G)). */
#include <string.h>
#include "check.h"
#include "mem_source.h"

#define G1_KEYS "network.latency=1us", "network.overhead=100ns", "network.gap=150ns", \
                "network.bandwidth=1GB/s", "network.eager_limit=1000"
static const char *const H[] = {G1_KEYS, "network.rendezvous=handshake", NULL};

#define NS 1000 /* ps per ns */

/* Receive posted first. r0 computes 300 and sends 2001 B; r1 Recv at 0.
 * Request at 300 (CPU to 400, NIC to 450), arrives 1400; r1 replies at 1400
 * (CPU to 1500), the reply arrives 2500; r0 sends the data at 2500 (CPU to
 * 2600, NIC to 2500 + 150 + 2000 = 4650): r0's Send ends at 4650; the data
 * arrives 3600, r1 processes it 3600-5700. (loggops: 1400 and 3500.) */
static void posted_first(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 300);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 2001, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){4650, 5700});
    CHECK_EQ_INT(res.ranks[0].compute, 300 * NS);
    CHECK_EQ_INT(res.ranks[0].comm, 200 * NS);  /* request + data overheads */
    CHECK_EQ_INT(res.ranks[1].comm, 2200 * NS); /* reply 100 + data 2100 */
    CHECK_EQ_INT(res.messages, 1);
    CHECK_EQ_INT(res.bytes, 2001);
    mc_sim_result_free(&res);
    /* the default protocol on the same trace: LogGOPSim's times */
    const char *lg[] = {G1_KEYS, NULL};
    mem_run_ok(m, lg, &res);
    mem_check_ends(&res, 2, (int64_t[]){1400, 3500});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Late receive. r0 sends 1001 B at 0; r1 computes 5000, then Recv. The
 * request arrives at 1100 and waits; r1 posts at 5000 and replies (CPU to
 * 5100); the reply arrives 6100, r0 sends the data (NIC to 6100 + 150 +
 * 1000 = 7250: r0 ends 7250), arrival 7200, r1 processes 7200-8300. */
static void late_receive(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 1001, 0);
    ms_compute(m, 1, 5000);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1001, 0);
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){7250, 8300});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* No asynchronous progress: r0 Isends 2001 B at 0, computes 5000 (from 100,
 * after the request's overhead, to 5100) and waits; r1's reply (r1 Recv
 * posted at 0, request handled at 1100) arrives at 2200 but r0 handles it
 * only at 5100: data NIC to 5100 + 2150 = 7250, arrival 6200, r1 processes
 * 6200-8300. */
static void sender_computing(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_ISEND, 1, 0, 2001, 1);
    ms_compute(m, 0, 5000);
    ms_wait(m, 0, MC_OP_WAIT, 1, 1u);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){7250, 8300});
    CHECK_EQ_INT(res.ranks[0].compute, 5000 * NS);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Eager messages (<= the limit) are not affected: 1000 B as in
 * test_sim_p2p_golden's eager_vs_rendezvous. */
static void eager_unchanged(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 1000, 0);
    ms_compute(m, 1, 5000);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1000, 0);
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){100, 5000 + 100 + 999});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Probe sees the request: r0 computes 1000 and sends 2001 B (tag 5); r1
 * Probes then Recvs. Request arrives 2100, handled then (no cost): the probe
 * returns at 2100, the Recv matches it and replies (CPU to 2200); the reply
 * arrives 3200; data NIC to 3200 + 2150 = 5350, arrival 4300, r1 processes
 * 4300-6400. */
static void probe(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 1000);
    ms_p2p(m, 0, MC_OP_SEND, 1, 5, 2001, 0);
    mc_event *e = ms_p2p(m, 1, MC_OP_PROBE, 0, 5, 0, 0);
    e->bytes2 = 2001;
    ms_p2p(m, 1, MC_OP_RECV, 0, 5, 2001, 0);
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){5350, 6400});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* ranks_per_node = 2 and rendezvous overheads: r0 -> r1 inside node 0
 * (L 100, o 50, g 0, 10 GB/s = 0.1 ns/B, overhead 30), r2 -> r4 from node 1
 * to node 2 (G1, overhead 500), 2001 B, receives posted at 0.
 * Intra: request 0-50, arrives 150; reply 150-200, arrives 300; data at 300
 * (NIC 200: r0 ends 300 + max(50, 200) = 500), arrives 450, processed
 * 450 + 50 + 200 + 30 = 730.
 * Inter: request arrives 1100, reply arrives 2200, data NIC to 2200 + 2150 =
 * 4350 (r2's end), arrives 3300, processed 3300 + 100 + 2000 + 500 = 5900
 * (r4's end). */
static void intranode(void)
{
    mem_source *m = mem_source_create(6);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 2001, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    ms_p2p(m, 2, MC_OP_SEND, 4, 0, 2001, 0);
    ms_p2p(m, 4, MC_OP_RECV, 2, 0, 2001, 0);
    const char *sets[] = {G1_KEYS, "network.rendezvous=handshake", "network.ranks_per_node=2",
                          "intranode.latency=100ns", "intranode.overhead=50ns",
                          "intranode.gap=0", "intranode.bandwidth=10GB/s",
                          "intranode.rendezvous_overhead=30ns",
                          "network.rendezvous_overhead=500ns", NULL};
    mc_sim_result res;
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 6, (int64_t[]){500, 730, 4350, 0, 5900, 0});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* network.rendezvous_overhead with the default (loggops) protocol: the
 * receiver of test_sim_p2p_golden's rendezvous_posted processes 500 longer
 * (3500 -> 4000); the sender is released at the match as before (1400). */
static void overhead_loggops(void)
{
    mem_source *m = mem_source_create(2);
    ms_compute(m, 0, 300);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 2001, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    const char *sets[] = {G1_KEYS, "network.rendezvous_overhead=500ns", NULL};
    mc_sim_result res;
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 2, (int64_t[]){1400, 4000});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* A collective's messages use the protocol too: Bcast of 2001 B at 2 ranks
 * (one message root -> rank 1, both enter at 0): as posted_first from 0:
 * root ends 2200 + 2150 = 4350, rank 1 at 3300 + 2100 = 5400. */
static void bcast(void)
{
    mem_source *m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        mc_event *e = ms_add(m, r, MC_OP_BCAST, 0);
        e->peer = 0;
        e->bytes = 2001;
    }
    mc_sim_result res;
    mem_run_ok(m, H, &res);
    mem_check_ends(&res, 2, (int64_t[]){4350, 5400});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* The table model with the handshake reproduces the measured one-way time.
 * T1(s) = (pingpong + send) / 2: T1(0) = (200 + 40) / 2 = 120, S(0) = 40, so
 * each empty leg arrives a0 = 80 after its issue; T1(5000) = (1200 + 1020) /
 * 2 = 1110, the data leg gets D = 1110 - 160 = 950: arrival 80, receiver CPU
 * 870; NICs busy T1(5000) - T1(0) = 990. Ping-pong of 5000 B:
 * r0: request 0, reply arrives 160, data at 160 (NIC to 1150), arrival 240,
 * r1 done 1110 = T1. r1's request at 1110 (CPU to 1150) arrives 1190; r0
 * (Recv posted at 1150) replies 1190-1230, reply arrives 1270; r1 data at
 * 1270 (NIC to 2260: r1 ends 2260), arrival 1350, r0 done 1350 + 870 = 2220
 * = 2 T1. */
static void table_model(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 5000, 0);
    ms_p2p(m, 0, MC_OP_RECV, 1, 0, 5000, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 5000, 0);
    ms_p2p(m, 1, MC_OP_SEND, 0, 0, 5000, 0);
    const char *sets[] = {"network.model=table", "network.eager_limit=1000",
                          "network.rendezvous=handshake", "table.pingpong.0=200ns",
                          "table.pingpong.10000=2200ns", "table.send.0=40ns",
                          "table.send.10000=2000ns", NULL};
    mc_sim_result res;
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 2, (int64_t[]){2220, 2260});
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

/* Flow models carry every leg as a flow. topo on a crossbar with infinite
 * bandwidth gives loggp's times (docs/platform.md), handshake included. With
 * 1 GB/s, three 100000 B messages to rank 0 share its ejection link: the
 * last receive ends after at least 3 x 100 us. */
static void topo_model(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_ISEND, 1, 0, 2001, 1);
    ms_compute(m, 0, 5000);
    ms_wait(m, 0, MC_OP_WAIT, 1, 1u);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 2001, 0);
    const char *inf[] = {G1_KEYS, "network.rendezvous=handshake", "network.bandwidth=inf", NULL};
    const char *tinf[] = {G1_KEYS, "network.rendezvous=handshake", "network.bandwidth=inf",
                          "network.model=topo", NULL};
    mc_sim_result a, b;
    mem_run_ok(m, inf, &a);
    mem_run_ok(m, tinf, &b);
    /* as sender_computing with G = 0: data at 5100, NIC to 5100 + g = 5250,
     * arrives 6200, processed in o */
    mem_check_ends(&a, 2, (int64_t[]){5250, 6300});
    CHECK_EQ_INT(b.ranks[0].end, a.ranks[0].end);
    CHECK_EQ_INT(b.ranks[1].end, a.ranks[1].end);
    mc_sim_result_free(&a);
    mc_sim_result_free(&b);
    mem_source_destroy(m);

    m = mem_source_create(4);
    for (int r = 1; r < 4; r++) {
        ms_p2p(m, r, MC_OP_SEND, 0, 0, 100000, 0);
        ms_p2p(m, 0, MC_OP_IRECV, r, 0, 100000, (uint32_t)r);
    }
    ms_wait(m, 0, MC_OP_WAITALL, 3, 1u, 2u, 3u);
    const char *topo[] = {G1_KEYS, "network.rendezvous=handshake", "network.model=topo", NULL};
    mem_run_ok(m, topo, &a);
    CHECK(a.ranks[0].end >= 300000 * NS);
    CHECK(a.ranks[0].end < 400000 * NS);
    CHECK_EQ_INT(a.messages, 3);
    mc_sim_result_free(&a);
    mem_source_destroy(m);
}

/* Unknown protocol names are refused by the platform. */
static void bad_value(void)
{
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 1, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 1, 0);
    const char *sets[] = {"network.rendezvous=rdma", NULL};
    mc_sim_result res = {0};
    mc_error err = {0};
    CHECK(mem_run(m, sets, NULL, &res, &err) != MC_OK);
    CHECK(strstr(err.msg, "network.rendezvous") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

int main(void)
{
    posted_first();
    late_receive();
    sender_computing();
    eager_unchanged();
    probe();
    intranode();
    overhead_loggops();
    bcast();
    table_model();
    topo_model();
    bad_value();
    return 0;
}
