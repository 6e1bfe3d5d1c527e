/* cpu.comm_setup: communicator management calls cost a local cost and
 * their collective on the modelled network (model, the default), their
 * recorded duration as MPI work (recorded) or nothing (free). Times
 * computed by hand to the nanosecond on platform G1 of test_sim_p2p_golden.c
 * (L = 1 us, o = 100 ns, g = 150 ns, 1 GB/s: an 8 B message costs the
 * receiver o + 7 ns).
 *
 * r0: compute 100, Comm_dup (recorded 5000 ns), Send 101 B on the new
 *     communicator to r1;
 * r1: Comm_dup (recorded 2000 ns), Recv from r0 on it, Comm_free (300 ns).
 * model, cpu.comm_setup_local = 1 us (default): the dup is the local 1 us,
 *   then an allreduce of 8 B over world (2 ranks: one exchange). r0: local
 *   100-1100, sends 1100-1200 (arrives at r1 2200); r1: local
 *   0-1000, sends 1000-1100, arrives at r0 2100, processed 2100-2207: r0's
 *   dup ends 2207, it sends 2207-2307 (arrival 3307). r1 processes r0's
 *   8 B 2200-2307, posts the Recv at 2307, processes 3307-3507, frees
 *   3507-4507 (local). comm: r0 1000 + 100 + 107 + 100, r1 1000 + 100 + 107
 *   + 200 + 1000.
 * model, local 0: r0 sends 100-200 (arrival 1200), r1 0-100 (arrival 1100);
 *   r0 processes 1100-1207, sends 1207-1307 (arrival 2307); r1 processes
 *   1200-1307, receives 2307-2507; the free costs nothing.
 * Comm_split instead of Comm_dup: an allgather of (colour, key), 8 B per
 *   rank: at 2 ranks the same exchange, the same times.
 * Comm_dup of MPI_COMM_SELF: the local cost alone.
 * recorded: r0 dups 100-5100, sends 5100-5200, arrival 6200; r1 dups
 *   0-2000, processes 6200-6400 (o + 100), frees 6400-6700.
 * free: r0 sends at 100, arrival 1200, r1 processes 1200-1400.
 * recorded with cpu.speed = 2: bursts and recorded durations halve: r0
 *   dups 50-2550, sends 2550-2650, arrival 3650; r1 dups 0-1000, processes
 *   3650-3850, frees 3850-4000. */
#include <string.h>
#include "check.h"
#include "mem_source.h"

#define G1_KEYS "network.latency=1us", "network.overhead=100ns", "network.gap=150ns", \
                "network.bandwidth=1GB/s", "network.eager_limit=1000"
#define NS 1000
#define DUP_COMM ((1ull << 32) | 1u)

static mem_source *build(int op)
{
    mem_source *m = mem_source_create(2);
    const int64_t dur[2] = {5000, 2000};
    ms_compute(m, 0, 100);
    for (int r = 0; r < 2; r++) {
        mc_event *e = ms_add(m, r, op, dur[r]);
        e->newcomm = DUP_COMM;
        e->peer2 = 2;
        ms_vals(m, e, 2, (int64_t)0, (int64_t)1);
    }
    mc_event *e = ms_p2p(m, 0, MC_OP_SEND, 1, 3, 101, 0);
    e->comm = DUP_COMM;
    e = ms_p2p(m, 1, MC_OP_RECV, 0, 3, 101, 0);
    e->comm = DUP_COMM;
    e = ms_add(m, 1, MC_OP_COMM_FREE, 300);
    e->comm = DUP_COMM;
    return m;
}

static void replay(mem_source *m, const char *const *sets, int64_t end0, int64_t end1,
                   int64_t comm0, int64_t comm1)
{
    mc_sim_result res = {0};
    mc_error err = {0};
    mc_err rc = mem_run(m, sets, NULL, &res, &err);
    if (rc)
        fprintf(stderr, "replay failed: %s\n", err.msg);
    CHECK(rc == MC_OK);
    CHECK_EQ_INT(res.ranks[0].end, end0 * NS);
    CHECK_EQ_INT(res.ranks[1].end, end1 * NS);
    CHECK_EQ_INT(res.ranks[0].comm, comm0 * NS);
    CHECK_EQ_INT(res.ranks[1].comm, comm1 * NS);
    CHECK_EQ_INT(res.ranks[0].compute + res.ranks[0].comm + res.ranks[0].wait, end0 * NS);
    mc_sim_result_free(&res);
}

int main(void)
{
    mem_source *m = build(MC_OP_COMM_DUP);
    const char *dflt[] = {G1_KEYS, NULL};
    replay(m, dflt, 2307, 4507, 1000 + 100 + 107 + 100, 1000 + 100 + 107 + 200 + 1000);
    const char *model[] = {G1_KEYS, "cpu.comm_setup=model", "cpu.comm_setup_local=1us",
                           "collectives.allreduce=recursive_doubling", NULL};
    replay(m, model, 2307, 4507, 1000 + 100 + 107 + 100, 1000 + 100 + 107 + 200 + 1000);
    const char *nolocal[] = {G1_KEYS, "cpu.comm_setup_local=0", NULL};
    replay(m, nolocal, 1307, 2507, 100 + 107 + 100, 100 + 107 + 200);
    const char *rec[] = {G1_KEYS, "cpu.comm_setup=recorded", NULL};
    replay(m, rec, 5200, 6700, 5000 + 100, 2000 + 200 + 300);
    const char *fr[] = {G1_KEYS, "cpu.comm_setup=free", NULL};
    replay(m, fr, 200, 1400, 100, 200);
    const char *fast[] = {G1_KEYS, "cpu.speed=2", "cpu.comm_setup=recorded", NULL};
    replay(m, fast, 2650, 4000, 2500 + 100, 1000 + 200 + 150);
    mem_source_destroy(m);

    m = build(MC_OP_COMM_SPLIT);
    replay(m, dflt, 2307, 4507, 1000 + 100 + 107 + 100, 1000 + 100 + 107 + 200 + 1000);
    const char *split[] = {G1_KEYS, "collectives.allgather=ring", NULL};
    replay(m, split, 2307, 4507, 1000 + 100 + 107 + 100, 1000 + 100 + 107 + 200 + 1000);
    replay(m, rec, 5200, 6700, 5000 + 100, 2000 + 200 + 300);
    mem_source_destroy(m);

    /* a dup of MPI_COMM_SELF: no one to agree with, the local cost alone
     * (r0: compute 100, then 1000; r1: 1000) */
    m = mem_source_create(2);
    ms_compute(m, 0, 100);
    for (int r = 0; r < 2; r++) {
        mc_event *e = ms_add(m, r, MC_OP_COMM_DUP, 3000);
        e->comm = MC_COMM_SELF_BASE | (uint64_t)r;
        e->newcomm = ((uint64_t)(2 + r) << 32) | (uint64_t)r;
        e->peer2 = 1;
        ms_vals(m, e, 1, (int64_t)r);
    }
    mc_sim_result sr = {0};
    mem_run_ok(m, dflt, &sr);
    mem_check_ends(&sr, 2, (int64_t[]){1100, 1000});
    CHECK_EQ_INT(sr.ranks[0].comm, 1000 * NS);
    mc_sim_result_free(&sr);
    mem_source_destroy(m);

    m = build(MC_OP_COMM_DUP);
    mc_sim_result res = {0};
    mc_error err = {0};
    const char *bad[] = {"cpu.comm_setup=scaled", NULL};
    CHECK(mem_run(m, bad, NULL, &res, &err) != MC_OK);
    CHECK(strstr(err.msg, "cpu.comm_setup") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
