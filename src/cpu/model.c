/* The processor model: the EXCIT rule (standard cycles + cache-miss
 * penalties) with a memory-bandwidth bound, on the platform's [cpu] keys
 * (docs/platform.md "The processor model"). */
#include "cpu_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void mc_cpu_model_from_platform(const mc_platform *p, mc_cpu_model *m)
{
    m->frequency = mc_platform_num(p, "cpu.frequency");
    m->cpi = mc_platform_num(p, "cpu.cpi");
    m->mlp = mc_platform_num(p, "cpu.mlp");
    for (int l = 0; l < MC_CPU_NLEVELS; l++) {
        char key[64];
        const char *name = mc_cpu_level_name(l);
        snprintf(key, sizeof key, "cpu.%s.size", name);
        m->level[l].size = mc_platform_num(p, key);
        snprintf(key, sizeof key, "cpu.%s.line", name);
        m->level[l].line = mc_platform_num(p, key);
        snprintf(key, sizeof key, "cpu.%s.assoc", name);
        m->level[l].assoc = (int)mc_platform_num(p, key);
        snprintf(key, sizeof key, "cpu.%s.latency", name);
        m->level[l].latency = mc_platform_num(p, key);
    }
    m->mem_latency = mc_platform_num(p, "cpu.mem.latency");
    m->mem_bandwidth = mc_platform_num(p, "cpu.mem.bandwidth");
}

/* Misses of level l from `stream`; a line size the profile lacks is refused
 * with the reason (reuse distances are counted in lines of one size). */
static mc_err level_misses(const mc_cpu_model *m, const mc_cpu_profile *p, size_t i, int l,
                           mc_cpu_stream stream, double *out, cpu_memos *ms, mc_error *err)
{
    const mc_cpu_cache *c = &m->level[l];
    *out = cpu_misses_memo(p, i, stream, c->size, c->line, c->assoc, ms ? ms->m[l][stream] : NULL);
    if (*out >= 0)
        return MC_OK;
    static const char *const sname[] = {"instruction", "data"};
    double lines[16];
    int n = mc_cpu_profile_lines(p, i, stream, lines, 16);
    char have[256] = "";
    for (int k = 0; k < n && k < 16; k++) {
        size_t len = strlen(have);
        snprintf(have + len, sizeof have - len, "%s%.0f B", k ? ", " : "", lines[k]);
    }
    const mc_cpu_block *b = mc_cpu_profile_at(p, i);
    return mc_error_set(err, MC_ERR_PLATFORM,
                        "cpu.%s.line = %.0f B: %s has %s reuse distances for lines of %s only "
                        "(block %s -> %s); another line size cannot be derived from distances "
                        "counted in lines: profile with it (docs/cpu-profile.md)",
                        mc_cpu_level_name(l), c->line, mc_cpu_profile_path(p), sname[stream],
                        have, b->from, b->to);
}

/* Does block i have a histogram of `stream` at any line size? */
static int has_stream(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream)
{
    double line;
    return mc_cpu_profile_lines(p, i, stream, &line, 1) > 0;
}

/* Latency of the next present level below l (L2, L3, memory). */
static double next_latency(const mc_cpu_model *m, int l)
{
    for (int k = (l < MC_CPU_L2 ? MC_CPU_L2 : l + 1); k < MC_CPU_NLEVELS; k++)
        if (m->level[k].size > 0)
            return m->level[k].latency;
    return m->mem_latency;
}

/* What a miss at level l costs beyond a hit there (never below 0: a
 * platform whose next level is faster gains nothing from missing). An L1d
 * of size 0 is no cache: its accesses pay the next level's whole latency. */
static double penalty(const mc_cpu_model *m, int l)
{
    double own = m->level[l].size > 0 ? m->level[l].latency : 0;
    return fmax(next_latency(m, l) - own, 0.0);
}

void cpu_memos_init(cpu_memos *ms)
{
    for (int l = 0; l < MC_CPU_NLEVELS; l++)
        for (int k = 0; k < MC_CPU_NSTREAMS; k++)
            ms->m[l][k] = cpu_memo_create();
}

void cpu_memos_free(cpu_memos *ms)
{
    for (int l = 0; l < MC_CPU_NLEVELS; l++)
        for (int k = 0; k < MC_CPU_NSTREAMS; k++)
            cpu_memo_destroy(ms->m[l][k]);
}

mc_err mc_cpu_eval_block(const mc_cpu_model *m, const mc_cpu_profile *p, size_t i,
                         mc_cpu_eval *out, mc_error *err)
{
    return cpu_eval_block(m, p, i, out, NULL, err);
}

mc_err cpu_eval_block(const mc_cpu_model *m, const mc_cpu_profile *p, size_t i,
                      mc_cpu_eval *out, cpu_memos *ms, mc_error *err)
{
    memset(out, 0, sizeof *out);
    const mc_cpu_block *b = mc_cpu_profile_at(p, i);
    out->instructions = b->instructions;
    /* the block's own cycles per instruction when the profile has them
     * (measured on this core design), else the platform's one constant */
    out->core_time = b->instructions * (b->cpi > 0 ? b->cpi : m->cpi) / m->frequency;
    /* L1: instruction fetches (when modelled and recorded) and data */
    double above = 0; /* misses of the level above, bounding the next one's */
    int last = -1;    /* the lowest level present */
    if (m->level[MC_CPU_L1I].size > 0 && has_stream(p, i, MC_CPU_STREAM_I)) {
        if (level_misses(m, p, i, MC_CPU_L1I, MC_CPU_STREAM_I, &out->misses[MC_CPU_L1I], ms, err))
            return err->code;
        above += out->misses[MC_CPU_L1I];
    }
    if (has_stream(p, i, MC_CPU_STREAM_D)) {
        if (level_misses(m, p, i, MC_CPU_L1D, MC_CPU_STREAM_D, &out->misses[MC_CPU_L1D], ms, err))
            return err->code;
        above += out->misses[MC_CPU_L1D];
        last = MC_CPU_L1D;
    }
    /* L2, L3 are unified: each stream's misses at the level's size, as if
     * it had the cache to itself (the profile has no interleaved stream;
     * optimistic when both working sets compete for the level). An
     * inclusive LRU hierarchy never misses more below than above; the
     * bound keeps the set-associative estimate so. */
    int with_i = m->level[MC_CPU_L1I].size > 0 && has_stream(p, i, MC_CPU_STREAM_I);
    /* (no data stream: no unified level is reached; a loop condition on
     * `last` made cppcheck 2.10 believe the index could be -1) */
    int levels = last >= 0 ? MC_CPU_NLEVELS : MC_CPU_L2;
    for (int l = MC_CPU_L2; l < levels; l++) {
        if (m->level[l].size <= 0)
            continue;
        double md, mi = 0;
        if (level_misses(m, p, i, l, MC_CPU_STREAM_D, &md, ms, err) ||
            (with_i && level_misses(m, p, i, l, MC_CPU_STREAM_I, &mi, ms, err)))
            return err->code;
        out->misses[l] = fmin(md + mi, above);
        above = out->misses[l];
        last = l;
    }
    for (int l = 0; l < MC_CPU_NLEVELS; l++)
        out->miss_time += out->misses[l] * penalty(m, l);
    out->miss_time /= m->mlp;
    if (last >= 0)
        out->mem_bytes = out->misses[last] * m->level[last].line;
    if (last == MC_CPU_L1D) /* no L2 or L3: instruction misses go to memory too */
        out->mem_bytes += out->misses[MC_CPU_L1I] * m->level[MC_CPU_L1I].line;
    out->bw_time = isinf(m->mem_bandwidth) ? 0 : out->mem_bytes / m->mem_bandwidth;
    double lat = out->core_time + out->miss_time;
    out->bandwidth_bound = out->bw_time > lat;
    out->time = out->bandwidth_bound ? out->bw_time : lat;
    return MC_OK;
}

mc_err mc_cpu_eval_sum(const mc_cpu_model *m, const mc_cpu_profile *p, const char *from,
                       const char *to, mc_cpu_eval *out, double *bursts, mc_error *err)
{
    memset(out, 0, sizeof *out);
    *bursts = 0;
    int rows = 0, bw_rows = 0;
    cpu_memos ms;
    cpu_memos_init(&ms);
    mc_err rc = MC_OK;
    for (size_t i = 0; i < mc_cpu_profile_count(p) && rc == MC_OK; i++) {
        const mc_cpu_block *b = mc_cpu_profile_at(p, i);
        if (strcmp(b->from, from) != 0 || strcmp(b->to, to) != 0)
            continue;
        mc_cpu_eval e;
        if ((rc = cpu_eval_block(m, p, i, &e, &ms, err)) != MC_OK)
            break;
        out->instructions += e.instructions;
        for (int l = 0; l < MC_CPU_NLEVELS; l++)
            out->misses[l] += e.misses[l];
        out->core_time += e.core_time;
        out->miss_time += e.miss_time;
        out->mem_bytes += e.mem_bytes;
        out->bw_time += e.bw_time;
        out->time += e.time;
        *bursts += b->bursts;
        rows++;
        bw_rows += e.bandwidth_bound;
    }
    cpu_memos_free(&ms);
    out->bandwidth_bound = rows > 0 && bw_rows == rows;
    return rc;
}
