/* Polling loops folded at the source (mc_writer_set_fold, issue 24): the
 * same event stream written folded and unfolded gives fewer records, the
 * same calls per operation, and the same replay to the picosecond.
 *
 * Rank 1 computes 20 us and sends 64 B to rank 0. Rank 0 posts an Irecv and
 * polls: 200 failed Testany calls 100 ns long with 300 ns of loop code
 * between them (one run: folded into one record), 5 us of work (longer
 * than the gap: a new run), 100 more failed Testany, then the Testany that
 * completes the Irecv; then 50 failed Iprobes for tag 7 (1 us apart: the
 * gap is 2 us) and the Iprobe that finds the message, and its Recv. One
 * failed Test from another site between two Testany runs breaks the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mem_source.h"
#include "mpicast/format.h"
#include "mpicast/stats.h"

#define GAP 2000 /* ns */

static void poll_run(mem_source *m, int op, int site, int n, int64_t between)
{
    for (int i = 0; i < n; i++) {
        ms_compute(m, 0, between);
        mc_event *e = ms_add(m, 0, op, 100);
        e->site = site;
        if (op == MC_OP_IPROBE) {
            e->peer = 1;
            e->tag = 7;
        }
    }
}

static mem_source *build(void)
{
    mem_source *m = mem_source_create(2);
    ms_add(m, 0, MC_OP_INIT, 10);
    ms_add(m, 1, MC_OP_INIT, 10);
    ms_p2p(m, 0, MC_OP_IRECV, 1, 3, 64, 1);
    poll_run(m, MC_OP_TESTANY, 11, 200, 300);
    ms_compute(m, 0, 5000);
    poll_run(m, MC_OP_TESTANY, 11, 50, 300);
    poll_run(m, MC_OP_TEST, 12, 1, 300);
    poll_run(m, MC_OP_TESTANY, 11, 50, 300);
    ms_compute(m, 0, 300);
    ms_wait(m, 0, MC_OP_TESTANY, 1, 1u);
    poll_run(m, MC_OP_IPROBE, 13, 50, 1000);
    ms_compute(m, 0, 500);
    mc_event *e = ms_add(m, 0, MC_OP_IPROBE, 100);
    e->peer = e->peer2 = 1;
    e->tag = e->tag2 = 7;
    e->bytes2 = 1;
    ms_p2p(m, 0, MC_OP_RECV, 1, 7, 8, 0);
    ms_add(m, 0, MC_OP_FINALIZE, 10);
    ms_compute(m, 1, 20000);
    ms_p2p(m, 1, MC_OP_SEND, 0, 3, 64, 0);
    ms_compute(m, 1, 100000);
    ms_p2p(m, 1, MC_OP_SEND, 0, 7, 8, 0);
    ms_add(m, 1, MC_OP_FINALIZE, 10);
    return m;
}

/* Writes m's events into dir, folding with `gap` (0: not). */
static void write_trace(mem_source *m, const char *dir, int64_t gap)
{
    mc_source *s = mem_source_base(m);
    mem_source_rewind(m);
    mc_error err = {0};
    for (int r = 0; r < 2; r++) {
        mc_writer *w = mc_writer_open(dir, r, 0, 64, &err); /* small chunks: folds span them */
        CHECK(w != NULL);
        mc_writer_set_fold(w, gap);
        mc_event e;
        while (mc_source_next(s, r, &e, &err) == 1)
            CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
}

static uint64_t records(const char *dir, int rank)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_event e;
    uint64_t n = 0;
    while (mc_source_next(s, rank, &e, &err) == 1)
        n++;
    mc_source_close(s);
    return n;
}

static mc_stats *stats_of(const char *dir)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_stats *st = mc_stats_collect(s, &err);
    CHECK(st != NULL);
    mc_source_close(s);
    return st;
}

static void replay(const char *dir, const char *polling, mc_sim_result *res)
{
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    CHECK(mc_platform_set(p, "network.latency=1us", &err) == MC_OK);
    CHECK(mc_platform_set(p, "network.bandwidth=1GB/s", &err) == MC_OK);
    CHECK(mc_platform_set(p, polling, &err) == MC_OK);
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_sim_options opt = {0};
    mc_err rc = mc_sim_run(s, p, &opt, res, &err);
    if (rc)
        fprintf(stderr, "replay of %s failed: %s\n", dir, err.msg);
    CHECK(rc == MC_OK);
    mc_source_close(s);
    mc_platform_destroy(p);
}

int main(void)
{
    char root[] = "/tmp/mc_pollfold_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char plain[300], folded[300];
    snprintf(plain, sizeof plain, "%s/plain", root);
    snprintf(folded, sizeof folded, "%s/folded", root);
    mem_source *m = build();
    write_trace(m, plain, 0);
    write_trace(m, folded, GAP);

    /* rank 0: Init, Irecv, 4 Testany/Test runs (200 | 50, Test, 50), the
     * completing Testany, one Iprobe run, Iprobe, Recv, Finalize */
    CHECK_EQ_INT(records(plain, 0), 2 + 200 + 50 + 1 + 50 + 1 + 50 + 3);
    CHECK_EQ_INT(records(folded, 0), 2 + 4 + 1 + 1 + 3);
    CHECK_EQ_INT(records(folded, 1), records(plain, 1));

    /* the calls are all counted */
    mc_stats *a = stats_of(plain), *b = stats_of(folded);
    const int ops[] = {MC_OP_TESTANY, MC_OP_TEST, MC_OP_IPROBE, MC_OP_RECV};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        mc_stats_counts x = mc_stats_op(a, ops[i], 0), y = mc_stats_op(b, ops[i], 0);
        CHECK_EQ_INT(y.calls, x.calls);
        CHECK_EQ_INT(y.polls, x.polls);
    }
    CHECK_EQ_INT(mc_stats_op(b, MC_OP_TESTANY, 0).calls, 301);
    CHECK_EQ_INT(mc_stats_op(b, MC_OP_TESTANY, 0).polls, 300);
    CHECK_EQ_INT(mc_stats_op(b, MC_OP_IPROBE, 0).polls, 50);
    mc_stats_destroy(a);
    mc_stats_destroy(b);

    /* a folded record spans its run */
    mc_error err = {0};
    mc_source *s = mc_trace_open(folded, &err);
    CHECK(s != NULL);
    mc_event e;
    for (int i = 0; i < 3; i++)
        CHECK(mc_source_next(s, 0, &e, &err) == 1);
    CHECK_EQ_INT(e.op, MC_OP_TESTANY);
    CHECK_EQ_INT(mc_event_calls(&e), 200);
    CHECK_EQ_INT(e.t_end - e.t_start, 200 * 100 + 199 * 300);
    mc_source_close(s);

    /* the default replay (polling = wait) is the same to the picosecond */
    mc_sim_result x = {0}, y = {0};
    replay(plain, "cpu.polling=wait", &x);
    replay(folded, "cpu.polling=wait", &y);
    CHECK_EQ_INT(y.end, x.end);
    for (int r = 0; r < 2; r++) {
        CHECK_EQ_INT(y.ranks[r].end, x.ranks[r].end);
        CHECK_EQ_INT(y.ranks[r].compute, x.ranks[r].compute);
        CHECK_EQ_INT(y.ranks[r].comm, x.ranks[r].comm);
        CHECK_EQ_INT(y.ranks[r].wait, x.ranks[r].wait);
    }
    mc_sim_result_free(&x);
    mc_sim_result_free(&y);

    /* a record claiming folded calls that is not a failed poll is corrupt:
     * made by hand (the writer folds failed polls only) */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/bad", root);
    mc_writer *w = mc_writer_open(bad, 0, 0, 0, &err);
    CHECK(w != NULL);
    mc_event send = {.op = MC_OP_SEND, .peer = 1, .tag = 0, .bytes = 8, .peer2 = MC_NONE,
                     .tag2 = MC_NONE, .cpu = -1, .t_start = 10, .t_end = 20, .folded = 3};
    CHECK(mc_writer_add(w, &send, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
    s = mc_trace_open(bad, &err);
    CHECK(s != NULL);
    CHECK(mc_source_next(s, 0, &e, &err) == -1);
    CHECK(strstr(err.msg, "rank-000000.mct") != NULL);
    mc_source_close(s);

    mem_source_destroy(m);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return 0;
}
