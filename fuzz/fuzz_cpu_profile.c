/* libFuzzer target: CPU profiles (src/cpu/profile.c, docs/cpu-profile.md)
 * and what `predict|blocks --profile` do with them: every block evaluated
 * on the default processor model and on one with set-associative levels of
 * other sizes, and the miss curve read at a few sizes, so garbage counts
 * (huge, zero, decimals, unordered buckets) reach the evaluation too.
 * A refusal must be one line; a loaded profile must never give a negative
 * or NaN miss count. */
#include <math.h>

#include "fuzz_common.h"
#include "mpicast/cpu.h"

static void evaluate(const mc_cpu_profile *p, const mc_cpu_model *m)
{
    for (size_t i = 0; i < mc_cpu_profile_count(p) && i < 64; i++) {
        mc_cpu_eval ev;
        mc_error err = {0};
        if (mc_cpu_eval_block(m, p, i, &ev, &err) != MC_OK) {
            fz_check_message(err.msg);
            continue;
        }
        if (isnan(ev.time) || ev.time < 0)
            abort(); /* a time the model could not have meant */
        for (int s = 0; s < 2; s++)
            for (double size = 64; size <= 1 << 22; size *= 8) {
                double miss = mc_cpu_misses(p, i, (mc_cpu_stream)s, size, 64, s ? 0 : 8);
                if (isnan(miss) || (miss < 0 && miss != -1))
                    abort();
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("cpu-profile.txt", data, size);
    mc_error err = {0};
    mc_cpu_profile *p = mc_cpu_profile_load(path, &err);
    if (!p) {
        fz_check_message(err.msg);
        return 0;
    }
    mc_cpu_model m;
    mc_cpu_model_from_platform(NULL, &m);
    evaluate(p, &m);
    m.level[MC_CPU_L1D].size = 16384;
    m.level[MC_CPU_L1D].assoc = 4;
    m.level[MC_CPU_L2].size = 262144;
    m.level[MC_CPU_L2].assoc = 0;
    m.mem_bandwidth = 1e9;
    evaluate(p, &m);
    mc_cpu_profile_destroy(p);
    return 0;
}
