/* cpu.polling = wait: a run of failed Test/Iprobe calls ending in success
 * replays as a wait priced by the network (engine.c, "Polling"). Times by
 * hand to the ns on platform G1 (L = 1 us, o = 100 ns, g = 150 ns,
 * 1 GB/s: a 101 B message costs the receiver o + 100 ns).
 *
 * r1 computes 1000 and sends 101 B to r0: issue 1000, arrival 1000 + o + L
 * = 2100, r1 ends at 1100.
 * r0 (polling): Irecv, compute 50, then Test that fails (recorded 1000 ns),
 *   compute 50, Test fails (1000 ns), compute 50, Test completes the Irecv.
 * r0 (waiting): Irecv, compute 50, Wait.
 *  wait:     both: idle from 50, processes the arrival 2100-2300, ends 2300.
 *  recorded: tests 50-1050 and 1100-2100, the arrival processed 2100-2300,
 *            compute 2300-2350 (150 in all), the last test at 2350: ends 2350.
 *  wait, network.bandwidth = 10 MB/s (100 B cost 10 us): ends 2100 + o +
 *            10000 = 12200.
 *  wait, cpu.poll_gap = 10 ns: the 50 ns bursts are work: compute 150, the
 *            end stays 2300.
 * Long burst: compute 50, failed Test, compute 5000 (> cpu.poll_gap), failed
 *   Test, compute 50, Test completes: busy 50-5050 (work during the wait),
 *   the arrival processed 5050-5250: ends 5250 = the Wait trace with 5050 of
 *   compute.
 * Iprobe: compute 50, two failed Iprobes (recorded 1000 ns each,
 *   50 between), a successful one, Recv: the probe waits for the message
 *   (processed 2100-2300), the Recv matches it: ends 2300.
 * A run that does not end in its success (failed Iprobes, then Recv without
 *   a probe) is charged as recorded: compute 50, then the held 50 with the
 *   Recv's 50 (150 in all), polls 150-2150, the
 *   arrival processed 2150-2350 during the Recv: ends 2350 (recorded: the
 *   same, with the message processed at 2100 and the Recv at 2350). */
#include <string.h>
#include "check.h"
#include "mem_source.h"

#define G1_KEYS "network.latency=1us", "network.overhead=100ns", "network.gap=150ns", \
                "network.bandwidth=1GB/s", "network.eager_limit=1000"
#define NS 1000
#define TAG 3

enum { POLL_TEST, POLL_WAIT, POLL_LONG, WAIT_LONG, POLL_IPROBE, POLL_BROKEN };

static void failed(mem_source *m, int op)
{
    mc_event *e = ms_add(m, 0, op, 1000);
    if (op == MC_OP_IPROBE) {
        e->peer = 1;
        e->tag = TAG;
        e->bytes2 = 0; /* found nothing */
    }
}

static mem_source *build(int kind)
{
    mem_source *m = mem_source_create(2);
    if (kind != POLL_IPROBE && kind != POLL_BROKEN)
        ms_p2p(m, 0, MC_OP_IRECV, 1, TAG, 101, 1);
    ms_compute(m, 0, kind == WAIT_LONG ? 5050 : 50);
    switch (kind) {
    case POLL_WAIT:
    case WAIT_LONG:
        ms_wait(m, 0, MC_OP_WAIT, 1, 1u);
        break;
    case POLL_TEST:
    case POLL_LONG:
        failed(m, MC_OP_TESTANY);
        ms_compute(m, 0, kind == POLL_LONG ? 5000 : 50);
        failed(m, MC_OP_TEST);
        ms_compute(m, 0, 50);
        ms_wait(m, 0, MC_OP_TEST, 1, 1u);
        break;
    default: {
        failed(m, MC_OP_IPROBE);
        ms_compute(m, 0, 50);
        failed(m, MC_OP_IPROBE);
        ms_compute(m, 0, 50);
        if (kind == POLL_IPROBE) {
            mc_event *e = ms_add(m, 0, MC_OP_IPROBE, 1000);
            e->peer = e->peer2 = 1;
            e->tag = e->tag2 = TAG;
            e->bytes2 = 1;
        }
        ms_p2p(m, 0, MC_OP_RECV, 1, TAG, 101, 0);
    }
    }
    ms_compute(m, 1, 1000);
    ms_p2p(m, 1, MC_OP_SEND, 0, TAG, 101, 0);
    return m;
}

/* Replays `kind` with the G1 keys and `extra`; checks both ends (ns) and
 * r0's compute. */
static void expect(int kind, const char *extra, const char *extra2, int64_t end0,
                   int64_t compute0)
{
    mem_source *m = build(kind);
    const char *sets[] = {G1_KEYS, extra, extra2, NULL};
    mc_sim_result res = {0};
    mem_run_ok(m, sets, &res);
    mem_check_ends(&res, 2, (int64_t[]){end0, 1100});
    CHECK_EQ_INT(res.ranks[0].compute, compute0 * NS);
    CHECK_EQ_INT(res.ranks[0].compute + res.ranks[0].comm + res.ranks[0].wait, end0 * NS);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
}

int main(void)
{
    /* polling replays like Wait (default and explicit) */
    expect(POLL_WAIT, NULL, NULL, 2300, 50);
    expect(POLL_TEST, NULL, NULL, 2300, 50);
    expect(POLL_TEST, "cpu.polling=wait", NULL, 2300, 50);
    /* the recorded behaviour is kept */
    expect(POLL_TEST, "cpu.polling=recorded", NULL, 2350, 150);
    /* the network moves the polling trace's prediction */
    expect(POLL_TEST, "network.bandwidth=10MB/s", NULL, 12200, 50);
    expect(POLL_WAIT, "network.bandwidth=10MB/s", NULL, 12200, 50);
    /* bursts above cpu.poll_gap are work */
    expect(POLL_TEST, "cpu.poll_gap=10ns", NULL, 2300, 150);
    expect(POLL_LONG, NULL, NULL, 5250, 5050);
    expect(WAIT_LONG, NULL, NULL, 5250, 5050);
    /* Iprobe until found = Probe */
    expect(POLL_IPROBE, NULL, NULL, 2300, 50);
    expect(POLL_IPROBE, "network.bandwidth=10MB/s", NULL, 12200, 50);
    /* a run that does not end in its success costs what was recorded */
    expect(POLL_BROKEN, NULL, NULL, 2350, 150);
    expect(POLL_BROKEN, "cpu.polling=recorded", NULL, 2350, 150);

    mc_sim_result res = {0};
    mc_error err = {0};
    const char *bad[] = {"cpu.polling=spin", NULL};
    mem_source *m = build(POLL_TEST);
    CHECK(mem_run(m, bad, NULL, &res, &err) != MC_OK);
    CHECK(strstr(err.msg, "cpu.polling") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
