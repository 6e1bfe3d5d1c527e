/* The stats module (include/mpicast/stats.h) counts exactly or refuses:
 *  - a small trace's figures computed by hand (calls, bytes, messages, the
 *    Init..Finalize window, MPI time);
 *  - byte counts whose sum passes 2^63 - 1 (a rank sending two messages of
 *    2^62 + 2^61 bytes, or two ranks each summing below the limit but not
 *    together) are an error naming the trace, never a wrapped total (issue
 *    26: `stats` printed -9223372036854775792 bytes). */
#include <string.h>
#include "check.h"
#include "mem_source.h"
#include "mpicast/stats.h"

static mem_source *pingpong(int64_t bytes0, int64_t bytes1)
{
    mem_source *m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        ms_add(m, r, MC_OP_INIT, 100);
        ms_compute(m, r, 1000);
        ms_p2p(m, r, MC_OP_SEND, 1 - r, 0, r == 0 ? bytes0 : bytes1, 0);
        ms_p2p(m, r, MC_OP_RECV, 1 - r, 0, r == 0 ? bytes1 : bytes0, 0);
        ms_compute(m, r, 500);
        ms_add(m, r, MC_OP_FINALIZE, 100);
    }
    return m;
}

int main(void)
{
    mem_source *m = pingpong(1000, 24);
    mc_error err = {0};
    mc_stats *s = mc_stats_collect(mem_source_base(m), &err);
    CHECK(s != NULL);
    CHECK_EQ_INT(mc_stats_nranks(s), 2);
    mc_stats_totals t = mc_stats_total(s);
    CHECK_EQ_INT(t.calls, 8);
    CHECK_EQ_INT(t.sends, 2);
    CHECK_EQ_INT(t.send_bytes, 1024);
    CHECK_EQ_INT(mc_stats_op(s, MC_OP_SEND, -1).bytes, 1024);
    CHECK_EQ_INT(mc_stats_op(s, MC_OP_RECV, 0).bytes, 24);
    mc_stats_rank r0 = mc_stats_rank_at(s, 0);
    CHECK_EQ_INT(r0.sends, 1);
    CHECK_EQ_INT(r0.send_bytes, 1000);
    /* the window: from Init's end to Finalize's start = the bursts and the
     * two calls between them */
    mc_stats_counts snd = mc_stats_op(s, MC_OP_SEND, 0), rcv = mc_stats_op(s, MC_OP_RECV, 0);
    CHECK_EQ_INT(r0.mpi_ns, snd.time_ns + rcv.time_ns);
    CHECK_EQ_INT(r0.app_ns, 1000 + 500 + snd.time_ns + rcv.time_ns);
    mc_stats_destroy(s);
    mem_source_destroy(m);

    /* one rank's bytes pass 2^63 - 1: two sends of 2^62 + 2^61 */
    const int64_t big = (INT64_C(1) << 62) + (INT64_C(1) << 61);
    m = mem_source_create(2);
    for (int r = 0; r < 2; r++) {
        ms_add(m, r, MC_OP_INIT, 100);
        for (int k = 0; k < 2; k++)
            ms_p2p(m, r, r == 0 ? MC_OP_SEND : MC_OP_RECV, 1 - r, 0, big, 0);
        ms_add(m, r, MC_OP_FINALIZE, 100);
    }
    memset(&err, 0, sizeof err);
    CHECK(mc_stats_collect(mem_source_base(m), &err) == NULL);
    CHECK(err.code == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "rank 0") != NULL && strstr(err.msg, "passes 2^63 - 1") != NULL);
    mem_source_destroy(m);

    /* each rank below the limit, their sum above it */
    m = pingpong(big, 8);
    memset(&err, 0, sizeof err);
    CHECK(mc_stats_collect(mem_source_base(m), &err) == NULL);
    CHECK(strstr(err.msg, "passes 2^63 - 1") != NULL);
    mem_source_destroy(m);
    return 0;
}
