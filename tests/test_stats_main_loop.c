/* The main loop of a rank (src/stats/loops.c): the longest run of identical
 * iterations, on synthetic streams whose loops are known.
 * - prologue, 50 iterations of (Irecv, Send, Wait, Allreduce), epilogue:
 *   50 x 4 from call 2, request ids and times changing every iteration;
 * - nested: 7 outer iterations of (Bcast, 5 x (Send, Recv), Allreduce): the
 *   outer loop (7 x 12) covers more than any inner run;
 * - a first iteration that differs (a Barrier more after its Send): the run
 *   is found from that iteration's Recv on (a rotation: all 10 iterations);
 * - two loops, 10 x 3 then 40 x 2: the second covers more;
 * - sizes that change every iteration, and 2 iterations only: no loop;
 * - stats: the same iteration count on every rank, or none when they differ;
 * - stats: the calls and bytes inside the main loop per function (set-up
 *   calls outside it, polls not known, a loop ended 70,000 calls before the
 *   stream not counted). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/stats.h"
#include "mem_source.h"
#include "mpicast/stats.h"

static mc_loop_finder *F;
static int64_t now;
static uint32_t next_req;

static void add(int op, int site, int32_t peer, int64_t bytes)
{
    mc_event e = {.op = op, .site = site, .peer = peer, .tag = 1, .bytes = bytes,
                  .peer2 = MC_NONE, .tag2 = MC_NONE, .cpu = -1};
    int64_t vals[4];
    e.t_start = now += 100 + (now % 7); /* times never repeat */
    e.t_end = now += 50;
    if (op == MC_OP_IRECV)
        e.req = ++next_req;
    if (op == MC_OP_WAIT) {
        vals[0] = next_req; /* the id changes, the match does not */
        vals[1] = peer;
        vals[2] = 1;
        vals[3] = bytes;
        e.vals = vals;
        e.nvals = 4;
        e.peer = MC_NONE;
    }
    CHECK(mc_loop_finder_add(F, &e) == 0);
}

static mc_loop result(void)
{
    mc_loop l = mc_loop_finder_result(F);
    mc_loop_finder_reset(F);
    next_req = 0;
    return l;
}

static void expect(mc_loop l, uint64_t iterations, uint64_t period, uint64_t first, int op)
{
    if (l.iterations != iterations || l.period != period || l.first != first)
        fprintf(stderr, "loop %llu x %llu from %llu, expected %llu x %llu from %llu\n",
                (unsigned long long)l.iterations, (unsigned long long)l.period,
                (unsigned long long)l.first, (unsigned long long)iterations,
                (unsigned long long)period, (unsigned long long)first);
    CHECK_EQ_INT(l.iterations, iterations);
    CHECK_EQ_INT(l.period, period);
    CHECK_EQ_INT(l.first, first);
    if (iterations)
        CHECK_EQ_INT(l.op, op);
}

static void cg_like(int iters)
{
    add(MC_OP_INIT, 1, MC_NONE, 0);
    add(MC_OP_ALLREDUCE, 2, MC_NONE, 8);
    for (int i = 0; i < iters; i++) {
        add(MC_OP_IRECV, 10, 1, 800);
        add(MC_OP_SEND, 11, 1, 800);
        add(MC_OP_WAIT, 12, 1, 800);
        add(MC_OP_ALLREDUCE, 13, MC_NONE, 8);
    }
    add(MC_OP_ALLREDUCE, 2, MC_NONE, 8);
    add(MC_OP_FINALIZE, 3, MC_NONE, 0);
}

int main(void)
{
    F = mc_loop_finder_create();
    CHECK(F != NULL);

    cg_like(50);
    expect(result(), 50, 4, 2, MC_OP_IRECV);

    /* nested */
    add(MC_OP_INIT, 1, MC_NONE, 0);
    for (int o = 0; o < 7; o++) {
        add(MC_OP_BCAST, 20, MC_NONE, 64);
        for (int i = 0; i < 5; i++) {
            add(MC_OP_SEND, 21, 1, 8);
            add(MC_OP_RECV, 22, 1, 8);
        }
        add(MC_OP_ALLREDUCE, 23, MC_NONE, 8);
    }
    add(MC_OP_FINALIZE, 3, MC_NONE, 0);
    expect(result(), 7, 12, 1, MC_OP_BCAST);

    /* a first iteration with a Barrier more: from its Recv, 10 iterations */
    add(MC_OP_INIT, 1, MC_NONE, 0);
    for (int i = 0; i < 10; i++) {
        add(MC_OP_SEND, 30, 1, 8);
        if (i == 0)
            add(MC_OP_BARRIER, 31, MC_NONE, 0);
        add(MC_OP_RECV, 32, 1, 8);
    }
    expect(result(), 10, 2, 3, MC_OP_RECV);

    /* two loops: the one covering more calls */
    for (int i = 0; i < 10; i++) {
        add(MC_OP_SEND, 40, 1, 8);
        add(MC_OP_RECV, 41, 1, 8);
        add(MC_OP_BARRIER, 42, MC_NONE, 0);
    }
    for (int i = 0; i < 40; i++) {
        add(MC_OP_SEND, 43, 1, 8);
        add(MC_OP_RECV, 44, 1, 8);
    }
    expect(result(), 40, 2, 30, MC_OP_SEND);

    /* sizes that change every iteration: no loop */
    for (int i = 0; i < 30; i++) {
        add(MC_OP_SEND, 50, 1, 8 * (i + 1));
        add(MC_OP_RECV, 51, 1, 8 * (i + 1));
    }
    expect(result(), 0, 0, 0, 0);
    /* two iterations are no loop */
    cg_like(2);
    expect(result(), 0, 0, 0, 0);
    mc_loop_finder_destroy(F);

    /* through stats: every rank's count, and the run's when they agree */
    mem_source *m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        ms_add(m, r, MC_OP_INIT, 10);
        for (int i = 0; i < (r ? 12 : 8); i++) {
            ms_compute(m, r, 1000 + i);
            ms_add(m, r, MC_OP_BARRIER, 10)->site = 60;
            ms_add(m, r, MC_OP_ALLREDUCE, 10)->bytes2 = 8;
        }
        ms_add(m, r, MC_OP_FINALIZE, 10);
    }
    mc_error err = {0};
    mc_stats *st = mc_stats_collect(mem_source_base(m), &err);
    CHECK(st != NULL);
    CHECK_EQ_INT(mc_stats_main_loop(st, 0).iterations, 8);
    CHECK_EQ_INT(mc_stats_main_loop(st, 1).iterations, 12);
    uint64_t it = 99;
    int with = 0;
    CHECK(!mc_stats_loop_iterations(st, &it, &with));
    CHECK_EQ_INT(it, 0);
    CHECK_EQ_INT(with, 2);
    mc_stats_destroy(st);
    mem_source_destroy(m);

    /* what the loop calls: 10 iterations of (Barrier, 2 Allreduce, Test)
     * after a set-up Allreduce, and rank 1 a set-up Send */
    m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        ms_add(m, r, MC_OP_INIT, 10);
        ms_add(m, r, MC_OP_ALLREDUCE, 10)->bytes2 = 8;
        if (r)
            ms_add(m, r, MC_OP_SEND, 10)->bytes = 100;
        for (int i = 0; i < 10; i++) {
            ms_add(m, r, MC_OP_BARRIER, 10)->site = 60;
            for (int k = 0; k < 2; k++) {
                mc_event *e = ms_add(m, r, MC_OP_ALLREDUCE, 10);
                e->site = 61, e->bytes = 16, e->bytes2 = 16;
            }
            ms_add(m, r, MC_OP_TEST, 10)->site = 62;
        }
        ms_add(m, r, MC_OP_FINALIZE, 10);
    }
    st = mc_stats_collect(mem_source_base(m), &err);
    CHECK(st != NULL);
    int64_t calls, bytes;
    CHECK(mc_stats_loop_op(st, MC_OP_ALLREDUCE, -1, &calls, &bytes));
    CHECK_EQ_INT(calls, 40); /* of 42: one per rank at set-up */
    CHECK_EQ_INT(bytes, 40 * 16);
    CHECK(mc_stats_loop_op(st, MC_OP_BARRIER, 1, &calls, &bytes));
    CHECK_EQ_INT(calls, 10);
    CHECK(mc_stats_loop_op(st, MC_OP_SEND, -1, &calls, &bytes)); /* outside only */
    CHECK_EQ_INT(calls, 0);
    CHECK(mc_stats_loop_op(st, MC_OP_INIT, -1, &calls, &bytes));
    CHECK_EQ_INT(calls, 0);
    CHECK(!mc_stats_loop_op(st, MC_OP_TEST, -1, &calls, &bytes)); /* polls: not known */
    mc_stats_destroy(st);
    mem_source_destroy(m);

    /* 10 x (Bcast, Barrier, Reduce), then Bcast, Barrier, Scan: the finder
     * counts 11 iterations from the 10 equal segments between Bcasts (the
     * 11th from the last Bcast on); the calls are counted on an equal one,
     * and a count above the function's own (11 Reduce of 10) is not known */
    m = mem_source_create(1);
    for (int i = 0; i < 11; i++) {
        ms_add(m, 0, MC_OP_BCAST, 10)->site = 80;
        ms_add(m, 0, MC_OP_BARRIER, 10)->site = 81;
        ms_add(m, 0, i < 10 ? MC_OP_REDUCE : MC_OP_SCAN, 10)->site = 82;
    }
    ms_add(m, 0, MC_OP_FINALIZE, 10);
    st = mc_stats_collect(mem_source_base(m), &err);
    CHECK(st != NULL);
    CHECK_EQ_INT(mc_stats_main_loop(st, 0).iterations, 11);
    CHECK(mc_stats_loop_op(st, MC_OP_BCAST, -1, &calls, &bytes));
    CHECK_EQ_INT(calls, 11);
    CHECK(mc_stats_loop_op(st, MC_OP_SCAN, -1, &calls, &bytes));
    CHECK_EQ_INT(calls, 0); /* not in an equal iteration */
    CHECK(!mc_stats_loop_op(st, MC_OP_REDUCE, -1, &calls, &bytes));
    mc_stats_destroy(st);
    mem_source_destroy(m);

    /* a loop that ended more than 65,536 calls before the stream: not counted */
    m = mem_source_create(1);
    for (int i = 0; i < 10; i++)
        ms_add(m, 0, MC_OP_BARRIER, 10)->site = 70;
    for (int i = 0; i < 70000; i++)
        ms_add(m, 0, MC_OP_SEND, 10)->bytes = i + 1; /* no loop: sizes change */
    st = mc_stats_collect(mem_source_base(m), &err);
    CHECK(st != NULL);
    CHECK_EQ_INT(mc_stats_main_loop(st, 0).iterations, 10);
    CHECK(!mc_stats_loop_op(st, MC_OP_BARRIER, -1, &calls, &bytes));
    mc_stats_destroy(st);
    mem_source_destroy(m);
    return 0;
}
