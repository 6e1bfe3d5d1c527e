/* mpicast — CPU profiles: per-block instructions and LRU stack distances.
 *
 * A CPU profile (docs/compute-data.md, "CPU profiles") records for every
 * (block, rank) the instructions, loads and stores of its compute bursts and
 * the reuse-distance histograms of its data and instruction accesses for line
 * sizes 32, 64 and 128 bytes: the misses of a fully-associative LRU cache of
 * any size follow from one run.
 *
 * Pieces:
 *  - mc_prof_stack: LRU stack distances of a stream of line addresses, a
 *    Fenwick tree over last-access times (O(log n) per access);
 *  - the histogram buckets (exact below 16, then 8 per power of two);
 *  - mc_prof: a profile in memory (read, merge, write the text file);
 *  - mc_prof_analyse: reads Valgrind lackey's access stream with the
 *    tracer's markers and builds one rank's profile.
 *
 * Ownership: objects returned by *_create / *_read / mc_prof_analyse are
 * freed by the matching destroy (NULL is a no-op); *_at borrows.
 */
#ifndef MPICAST_PROFILE_H
#define MPICAST_PROFILE_H

#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_PROF_MAGIC "# mpicast cpu profile 1"

/* Line sizes recorded, in bytes, and the two kinds of access. */
#define MC_PROF_NLINES 3
extern const int mc_prof_line_sizes[MC_PROF_NLINES]; /* 32, 64, 128 */
enum { MC_PROF_DATA = 0, MC_PROF_INSTR = 1, MC_PROF_NKINDS = 2 };

/* ------------------------------------------------------------ buckets */

/* Bucket i holds distances d with upper(i-1) <= d < upper(i): uppers
 * 1..16, then ceil(2^(k/8)) for k = 33, 34, ... (strictly increasing). */
#define MC_PROF_NBUCKETS 500
uint64_t mc_prof_bucket_upper(int i);
/* The bucket of distance d >= 0. */
int mc_prof_bucket_of(double d);
/* The bucket whose upper is exactly `upper`; -1 if none. */
int mc_prof_bucket_with_upper(uint64_t upper);

/* ------------------------------------------------------------ stack distances */

typedef struct mc_prof_stack mc_prof_stack;
mc_prof_stack *mc_prof_stack_create(void);
void mc_prof_stack_destroy(mc_prof_stack *s);
/* Accesses `line`: returns its stack distance (distinct other lines
 * accessed since its previous access; 0 for a repeat), or -1 for a first
 * access (cold), or -2 when out of memory. */
int64_t mc_prof_stack_access(mc_prof_stack *s, uint64_t line);
/* Distinct lines seen. */
uint64_t mc_prof_stack_lines(const mc_prof_stack *s);

/* SHARDS spatial sampling: 1 when `line` is in the sample of rate
 * (0,1] (a hash of the line below rate x 2^24). */
int mc_prof_sampled(uint64_t line, double rate);

/* ------------------------------------------------------------ profiles */

typedef struct mc_prof_rd {
    double cold;
    double hist[MC_PROF_NBUCKETS]; /* count per bucket (scaled) */
} mc_prof_rd;

typedef struct mc_prof_block {
    char *from, *to; /* site keys */
    int rank;
    uint64_t bursts, instr, loads, stores;
    mc_prof_rd rd[MC_PROF_NKINDS][MC_PROF_NLINES];
} mc_prof_block;

typedef struct mc_prof mc_prof;
mc_prof *mc_prof_create(void);
void mc_prof_destroy(mc_prof *p);
/* Sets a meta key (replaces an earlier value); values must hold no tab
 * or newline (they are replaced by blanks). */
mc_err mc_prof_set_meta(mc_prof *p, const char *key, const char *value, mc_error *err);
const char *mc_prof_get_meta(const mc_prof *p, const char *key);
/* The block (from, to, rank), added zeroed if new; NULL when out of memory. */
mc_prof_block *mc_prof_block_get(mc_prof *p, const char *from, const char *to, int rank);
size_t mc_prof_nblocks(const mc_prof *p);
const mc_prof_block *mc_prof_block_at(const mc_prof *p, size_t i);
/* Adds b's figures into the block (b->from, b->to, b->rank) of p (a
 * new key pair may be given: from/to NULL keep b's). */
mc_err mc_prof_add(mc_prof *p, const mc_prof_block *b, const char *from, const char *to,
                   mc_error *err);

/* Misses of a fully-associative LRU cache of `lines` lines for the block:
 * cold + the accesses at distance >= lines (linear within a bucket). */
double mc_prof_misses(const mc_prof_rd *rd, double lines);
/* Index of a line size in mc_prof_line_sizes; -1 if not recorded. */
int mc_prof_line_index(int bytes);

/* The text file (format in docs/compute-data.md): blocks sorted by (from,
 * to, rank). */
mc_err mc_prof_write(const mc_prof *p, FILE *out, mc_error *err);
/* Reads a profile; errors name the file and the line. */
mc_prof *mc_prof_read(const char *path, mc_error *err);
mc_prof *mc_prof_read_stream(FILE *in, const char *name, mc_error *err);

/* ------------------------------------------------------------ the analyser */

typedef struct mc_prof_opts {
    double sample_rate; /* (0,1]; 1 = every line */
} mc_prof_opts;

typedef struct mc_prof_result {
    int rank;            /* from the tracer's "R" marker; -1 if none seen */
    int finalized;       /* the stream reached MPI_Finalize's entry */
    uint64_t lines_read; /* lines of the stream */
} mc_prof_result;

/* Reads lackey's --trace-mem=yes output from `in` (a pipe) to its end, with
 * the tracer's markers ("**PID** mpicast R rank", "... mpicast E" at each MPI
 * call's entry, "... mpicast X site" at its exit), and returns one rank's
 * profile whose block keys are the decimal site ids. Every access enters the
 * LRU stacks (also those inside MPI calls and before MPI_Init); only those
 * in compute bursts are counted. */
mc_prof *mc_prof_analyse(FILE *in, const mc_prof_opts *opts, mc_prof_result *res,
                         mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
