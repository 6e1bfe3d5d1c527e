/* mpicast — compute data: per-block burst statistics and compute tables.
 *
 * A *block* is the compute burst between two MPI calls, named by the pair of
 * call sites that bound it: (site of the previous call, site of this call)
 * — the compute blocks of the MPIETE method (docs/compute-data.md). The
 * first event of a rank (MPI_Init) has no previous call and no block.
 *
 * mc_blocks_collect reads every rank of a source once and keeps, per
 * (block, rank), the count and the sum/min/max of the burst. A compute table
 * (a text file written by mc_ctable_write and `mpicast blocks --table`) maps
 * a block — for one rank or for all ranks — to a time per execution on some
 * processor; `mpicast predict --compute FILE` replaces each burst by it
 * through the simulator's compute hook (mc_ctable_hook).
 *
 * Ownership: objects returned by collect/load are freed by the matching
 * destroy (NULL is a no-op); pointers returned by *_at borrow from them.
 */
#ifndef MPICAST_BLOCKS_H
#define MPICAST_BLOCKS_H

#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Statistics of one block on one rank (rank = -1: all ranks together). */
typedef struct mc_block_stat {
    int32_t prev_site;  /* site of the call before the burst */
    int32_t site;       /* site of the call after it */
    int32_t rank;       /* world rank; -1 for the all-ranks row */
    uint64_t count;     /* bursts */
    int64_t sum_ns, min_ns, max_ns;
} mc_block_stat;

typedef struct mc_blocks mc_blocks;

/* Which time of a burst to use. */
typedef enum mc_block_time {
    MC_BLOCK_WALL = 0,  /* the wall-clock burst (every mode; token mode's
                           uncontended time) */
    MC_BLOCK_CPU = 1    /* the thread CPU time (--mode cpu traces); events
                           without one count as an error */
} mc_block_time;

/* Reads every event of every rank of src (src is consumed: its streams are
 * at their ends afterwards). Fails on a read error (a truncated stream is
 * not one: see mc_blocks_truncated) or, with MC_BLOCK_CPU, on a burst
 * without a CPU time. */
mc_blocks *mc_blocks_collect(mc_source *src, mc_block_time which, mc_error *err);
void mc_blocks_destroy(mc_blocks *b);
/* Per-rank rows, sorted by (prev_site, site, rank). */
size_t mc_blocks_count(const mc_blocks *b);
const mc_block_stat *mc_blocks_at(const mc_blocks *b, size_t i);
/* The all-ranks rows (rank -1), one per block, sorted by (prev_site, site). */
size_t mc_blocks_total_count(const mc_blocks *b);
const mc_block_stat *mc_blocks_total_at(const mc_blocks *b, size_t i);
int mc_blocks_nranks(const mc_blocks *b);
/* 1 when a rank's stream was truncated (a crashed run): its readable prefix
 * was used. */
int mc_blocks_truncated(const mc_blocks *b);
static inline double mc_block_mean_ns(const mc_block_stat *s)
{
    return s->count ? (double)s->sum_ns / (double)s->count : 0.0;
}

/* ---------------------------------------------------------------- table */

/* A compute table names blocks by *site keys* that survive a rebuild of the
 * program: "file:line" of the call (file without its directory) when
 * meta.json resolved the site, else the site id as "0x<hex>". A program
 * rebuilt with other flags or for another processor has other site ids but
 * the same keys, so its trace can be predicted with the table of the other
 * build (the MPIETE split of program data and compute data). */
typedef struct mc_ctable mc_ctable;

/* Room for a site key with its NUL: a longer one is cut there, by every
 * writer and reader alike, so that the keys still match. */
#define MC_SITE_KEY_MAX 256

/* Writes the key of a site into buf (meta may be NULL). Returns buf. */
char *mc_site_key(const mc_meta *m, int32_t site, char *buf, size_t len);

/* The keys of a table of blocks (a compute table, a CPU profile's times) as
 * numbers: the distinct key strings sorted, and a trace's call sites bound
 * to them, so that looking up a burst's block costs binary searches over
 * integers. The strings are borrowed: they must outlive the object. */
typedef struct mc_block_keys mc_block_keys;
/* The distinct strings among keys[0..n); NULL when out of memory. */
mc_block_keys *mc_block_keys_create(const char *const *keys, size_t n);
void mc_block_keys_destroy(mc_block_keys *k);
/* The index of a key string, or -1. */
long mc_block_keys_find(const mc_block_keys *k, const char *key);
/* The key string of index i (0 <= i < the number of distinct keys). */
const char *mc_block_keys_at(const mc_block_keys *k, long i);
/* Binds the sites of meta (NULL: none) to their keys, replacing an earlier
 * binding. MC_ERR_NOMEM with err filled. */
mc_err mc_block_keys_bind(mc_block_keys *k, const mc_meta *meta, mc_error *err);
/* The key index of a site: its bound file:line key, else its "0x" form; -1
 * when the table has neither. */
long mc_block_keys_of_site(const mc_block_keys *k, int32_t site);

/* Writes the compute table of b to out (format: docs/compute-data.md): the
 * all-ranks row of every block, and with per_rank also one row per (block,
 * rank). Sites are named by their keys (meta may be NULL); blocks whose keys
 * coincide are merged. `source` is written in the header comment. */
mc_err mc_ctable_write(const mc_blocks *b, FILE *out, int per_rank, const char *source,
                       const mc_meta *meta, mc_error *err);
/* Reads a compute table; errors name the file and the line. */
mc_ctable *mc_ctable_load(const char *path, mc_error *err);
void mc_ctable_destroy(mc_ctable *t);
size_t mc_ctable_size(const mc_ctable *t);
/* Tells the table the sites of the trace about to be looked up (their
 * file:line keys); NULL: sites are known by id only. Replaces an earlier
 * binding; the table keeps no pointer to meta. */
mc_err mc_ctable_bind(mc_ctable *t, const mc_meta *meta, mc_error *err);
/* Time per execution (ns) of block (prev_site, site) on rank: that rank's
 * row if the table has one, else the all-ranks row; -1 if neither. */
double mc_ctable_lookup(const mc_ctable *t, int rank, int32_t prev_site, int32_t site);

/* The simulator's compute hook (mc_sim_compute_fn) with ctx = the table:
 * returns the table's time of the block in ps, or -1 (keep the recorded
 * burst / cpu.speed) for an unknown block. Counts both kinds. The first
 * event of a rank (prev_site 0 and no burst) is not a block and not counted. */
int64_t mc_ctable_hook(void *ctx, int rank, int32_t prev_site, int32_t site, int64_t scaled_ps);
typedef struct mc_ctable_counts {
    uint64_t from_table;  /* bursts replaced by the table's time */
    uint64_t fell_back;   /* bursts of blocks the table does not have */
} mc_ctable_counts;
mc_ctable_counts mc_ctable_get_counts(const mc_ctable *t);
void mc_ctable_reset_counts(mc_ctable *t);

#ifdef __cplusplus
}
#endif
#endif
