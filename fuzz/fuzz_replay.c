/* libFuzzer target: the simulator's event intake (src/sim) on fuzzed
 * traces. Byte 0: bit 0 selects the input, bit 1 the network (the
 * platform's loggp, or the free network `predict` also runs).
 *  - bit 0 clear: the rest is a time-independent text trace;
 *  - bit 0 set: a two-rank trace directory; bytes 1 and 2 are the event
 *    counts of rank 0's and rank 1's chunk, byte 3 the length of rank 0's
 *    payload; the rest the two payloads (rank_build.h).
 * A replay must return (result or one-line error), never crash or hang;
 * libFuzzer's -timeout catches a hang. */
#include "mpicast/sim.h"
#include "mpicast/tit.h"
#include "rank_build.h"

static mc_source *open_binary(const uint8_t *data, size_t size)
{
    if (size < 4)
        return NULL;
    size_t len0 = data[3] < size - 4 ? data[3] : size - 4;
    fz_rank_file("rank-000000.mct", 0, data[1], data + 4, len0);
    fz_rank_file("rank-000001.mct", 0, data[2], data + 4 + len0, size - 4 - len0);
    mc_error err = {0};
    mc_source *s = mc_trace_open(fz_tmpdir(), &err);
    if (!s)
        fz_check_message(err.msg);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mc_platform *plat;
    if (!plat && !(plat = mc_platform_create()))
        abort();
    if (size < 1 || memchr(data, '/', size))
        return 0;
    mc_source *s;
    if (data[0] & 1) {
        s = open_binary(data, size);
    } else {
        mc_error err = {0};
        s = mc_tit_open(fz_write("trace.txt", data + 1, size - 1), &err);
        if (!s)
            fz_check_message(err.msg);
    }
    if (!s)
        return 0;
    mc_sim_options opt = {0};
    opt.net_model = data[0] & 2 ? "free" : NULL;
    mc_sim_result res;
    memset(&res, 0, sizeof res);
    mc_error err = {0};
    if (mc_sim_run(s, plat, &opt, &res, &err) != MC_OK)
        fz_check_message(err.msg);
    mc_sim_result_free(&res);
    mc_source_close(s);
    return 0;
}
