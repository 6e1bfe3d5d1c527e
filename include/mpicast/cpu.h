/* mpicast — the processor model: per-block CPU profiles (instructions and
 * reuse-distance histograms) and the EXCIT rule that turns them into a
 * burst time on any processor of the platform's [cpu] keys
 * (docs/compute-data.md "CPU profiles and the processor model").
 *
 * A CPU profile (text, "# mpicast cpu profile 1", tab-separated; written by
 * `mpicast trace --mode profile`, docs/cpu-profile.md) gives, per (block,
 * rank) — the block named by the site keys of the compute tables (blocks.h)
 * — the bursts profiled, the instructions, loads and stores they executed,
 * and for each access kind (d: data, i: instruction fetches) and line size
 * the histogram of LRU stack distances (distinct other lines touched
 * between two accesses to one line) plus the cold accesses. A fully
 * associative LRU cache of C lines misses exactly the accesses at distance
 * >= C, so one histogram gives the misses of every cache size.
 *
 * The model (mc_cpu_model, from the platform): a burst of block b takes
 *   T = max(instr * cpi / f + sum_k misses_k * penalty_k / mlp,
 *           misses_last * line_last / mem_bandwidth)
 * with penalty_k = latency(next level, or memory) - latency(level k); cpi is
 * the block's own when the profile has a `cpi` record for it (one core
 * design's cycles, measured), else the platform's cpu.cpi.
 *
 * Ownership: objects returned by *_load / *_create are freed by the matching
 * destroy (NULL is a no-op); pointers returned by *_at borrow from them.
 */
#ifndef MPICAST_CPU_H
#define MPICAST_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "mpicast/error.h"
#include "mpicast/format.h"
#include "mpicast/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Access streams of a profile. */
typedef enum mc_cpu_stream {
    MC_CPU_STREAM_I = 0, /* instruction fetches: KIND i */
    MC_CPU_STREAM_D = 1, /* data loads and stores: KIND d */
    MC_CPU_NSTREAMS = 2
} mc_cpu_stream;

/* Cache levels of the model, in the order of the platform keys. */
typedef enum mc_cpu_level {
    MC_CPU_L1I = 0,
    MC_CPU_L1D = 1,
    MC_CPU_L2 = 2,
    MC_CPU_L3 = 3,
    MC_CPU_NLEVELS = 4
} mc_cpu_level;

/* "l1i", "l1d", "l2", "l3" (the key infix: cpu.<name>.size). */
const char *mc_cpu_level_name(int level);

/* ---------------------------------------------------------------- profile */

typedef struct mc_cpu_profile mc_cpu_profile;

/* One block of a profile (borrowed from the profile). */
typedef struct mc_cpu_block {
    const char *from, *to; /* site keys: "file:line" or "0x<hex>" */
    int32_t rank;          /* world rank */
    double bursts;         /* executions profiled on that rank */
    double instructions, loads, stores; /* over all of them */
    double cpi;            /* the block's own core cycles per instruction (a `cpi`
                              record: measured on one core design, blocks
                              --fit-cpi --per-block); 0: cpu.cpi */
} mc_cpu_block;

/* Reads a profile; every error names "FILE:LINE: what is wrong". */
mc_cpu_profile *mc_cpu_profile_load(const char *path, mc_error *err);
void mc_cpu_profile_destroy(mc_cpu_profile *p);
const char *mc_cpu_profile_path(const mc_cpu_profile *p);
size_t mc_cpu_profile_count(const mc_cpu_profile *p);
/* When some blocks of p have a `cpi` record and others none (blocks
 * --cpi-records leaves out a block whose modelled misses exceed its
 * measured time), a one-line note naming how many rows take cpu.cpi
 * instead, in buf; returns 1 then, 0 when there is nothing to say. */
int mc_cpu_profile_cpi_note(const mc_cpu_profile *p, char *buf, size_t cap);
const mc_cpu_block *mc_cpu_profile_at(const mc_cpu_profile *p, size_t i);
/* The line sizes (B) for which block i has a histogram of `stream`, into
 * lines[0..cap); returns how many there are. */
int mc_cpu_profile_lines(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double *lines,
                         int cap);
/* Accesses of block i's stream at that line size (the histogram's sum with
 * its cold accesses); -1 if the profile has no such histogram. */
double mc_cpu_accesses(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double line);
/* Misses of block i's stream in an LRU cache of `size` bytes with lines of
 * `line` bytes and `assoc` ways (0: fully associative). Fully associative:
 * the cold accesses plus the accesses at stack distance >= size/line
 * (exact for the width-1 buckets; a wider bucket is taken as uniform).
 * Set-associative with S sets: an access at distance d misses with the
 * probability that at least assoc of the d lines fall in its set,
 * P(Binomial(d, 1/S) >= assoc) (random placement). -1 if the profile has no
 * histogram of that stream and line size. */
double mc_cpu_misses(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double size,
                     double line, int assoc);

/* ---------------------------------------------------------------- model */

typedef struct mc_cpu_cache {
    double size, line; /* B; size 0: no such level */
    int assoc;         /* ways; 0: fully associative */
    double latency;    /* s: load-to-use latency of a hit */
} mc_cpu_cache;

typedef struct mc_cpu_model {
    double frequency;  /* Hz */
    double cpi;        /* cycles per instruction when every access hits in L1 */
    double mlp;        /* misses overlapped (1: EXCIT's sum, no overlap) */
    mc_cpu_cache level[MC_CPU_NLEVELS];
    double mem_latency;   /* s */
    double mem_bandwidth; /* B/s (inf: no bound) */
} mc_cpu_model;

/* The model of the platform's [cpu] keys (NULL: the defaults). */
void mc_cpu_model_from_platform(const mc_platform *p, mc_cpu_model *m);

/* What the model says of one block (totals over the block's bursts). */
typedef struct mc_cpu_eval {
    double instructions;
    double misses[MC_CPU_NLEVELS]; /* 0 for an absent level */
    double core_time;     /* s: instructions * cpi / frequency */
    double miss_time;     /* s: sum of misses * penalty / mlp */
    double mem_bytes;     /* B fetched from memory: last level's misses * line */
    double bw_time;       /* s: mem_bytes / mem_bandwidth */
    double time;          /* s: max(core + miss, bw) */
    int bandwidth_bound;  /* 1 when bw_time won */
} mc_cpu_eval;

/* The sum of mc_cpu_eval_block over the rows (all ranks) of block from ->
 * to: misses, times and bursts (*bursts) added; bandwidth_bound is 1 when
 * every row is bandwidth bound. */
mc_err mc_cpu_eval_sum(const mc_cpu_model *m, const mc_cpu_profile *p, const char *from,
                       const char *to, mc_cpu_eval *out, double *bursts, mc_error *err);

/* Evaluates block i of the profile on the model. Refuses (MC_ERR_PLATFORM,
 * naming the key and the profile) a level whose line size the profile has
 * no histogram for: the misses at another line size cannot be derived from
 * reuse distances counted in lines (which neighbouring lines are used
 * together is lost). */
mc_err mc_cpu_eval_block(const mc_cpu_model *m, const mc_cpu_profile *p, size_t i,
                         mc_cpu_eval *out, mc_error *err);

/* ---------------------------------------------------------------- hook */

/* The per-replay binding of a profile to a model and a trace's sites: each
 * block's modelled time per burst, looked up by (rank, prev_site, site) as
 * compute tables are. */
typedef struct mc_cpu_times mc_cpu_times;

typedef struct mc_cpu_counts {
    uint64_t from_profile; /* bursts given the model's time */
    uint64_t fell_back;    /* bursts of blocks the profile lacks */
} mc_cpu_counts;

/* Evaluates every block of p on m and binds the sites of meta (NULL: sites
 * by id only, "0x<hex>" keys). factor scales every time (extrapolation's
 * compute law; 1 otherwise). A burst of a rank the profile has a row for
 * takes that row's time per burst; any other rank (and every rank when
 * per_rank is 0, under extrapolation) the block's all-ranks time per burst:
 * the sum of its rows' modelled times over the sum of their bursts. */
mc_cpu_times *mc_cpu_times_create(const mc_cpu_model *m, const mc_cpu_profile *p,
                                  const mc_meta *meta, double factor, int per_rank,
                                  mc_error *err);
void mc_cpu_times_destroy(mc_cpu_times *t);
/* The profile's index of the row of block (prev_site, site) on rank, else
 * of one row of the block (the all-ranks time then applies), or -1 when
 * the profile lacks the block; rank -1: any row of the block. */
long mc_cpu_times_block(const mc_cpu_times *t, int rank, int32_t prev_site, int32_t site);
/* Time per burst (s) of block (prev_site, site) on rank; -1 if absent. */
double mc_cpu_times_lookup(const mc_cpu_times *t, int rank, int32_t prev_site, int32_t site);
/* The simulator's compute hook (mc_sim_compute_fn), ctx = the times: the
 * block's modelled time in ps, or -1 (keep recorded / cpu.speed), counted. */
int64_t mc_cpu_hook(void *ctx, int rank, int32_t prev_site, int32_t site, int64_t scaled_ps);
mc_cpu_counts mc_cpu_get_counts(const mc_cpu_times *t);

#ifdef __cplusplus
}
#endif
#endif
