/* The synthetic two-rank trace of the blocks tests, with its exact blocks.
 *
 * Sites: 0x10 Init, 0x20 and 0x30 two Pcontrol calls, 0x40 Finalize.
 * rank 0: Init | 1000 | 0x20 | 3000 | 0x30 | 500 | 0x20 | 5000 | 0x30 | 100 | Finalize
 * rank 1: Init | 2000 | 0x20 | 700 | Finalize          (bursts in ns; calls last 100 ns)
 * Blocks (prev -> site): 10->20 {1000, 2000}, 20->30 {3000, 5000}, 30->20 {500},
 * 30->40 {100}, 20->40 {700}. */
#ifndef MPICAST_TEST_BLOCKS_SYNTH_H
#define MPICAST_TEST_BLOCKS_SYNTH_H
#include "rankfile_util.h"

static inline void synth_rank(const char *dir, int rank, const int32_t *sites,
                              const int64_t *bursts, int n)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, rank, 0, 0, &err);
    CHECK(w != NULL);
    int64_t t = 0;
    for (int i = 0; i < n; i++) {
        int op = i == 0 ? MC_OP_INIT : i == n - 1 ? MC_OP_FINALIZE : MC_OP_PCONTROL;
        int64_t start = i == 0 ? -100 : t + bursts[i];
        mc_event e = ev_make(op, start, i == 0 ? 0 : start + 100);
        e.site = sites[i];
        if (op == MC_OP_PCONTROL)
            e.tag = 1;
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        t = e.t_end;
    }
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static inline void synth_trace(const char *dir)
{
    static const int32_t s0[] = {0x10, 0x20, 0x30, 0x20, 0x30, 0x40};
    static const int64_t b0[] = {0, 1000, 3000, 500, 5000, 100};
    static const int32_t s1[] = {0x10, 0x20, 0x40};
    static const int64_t b1[] = {0, 2000, 700};
    synth_rank(dir, 0, s0, b0, 6);
    synth_rank(dir, 1, s1, b1, 3);
}
#endif
