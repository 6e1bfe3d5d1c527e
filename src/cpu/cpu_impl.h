/* Internal to src/cpu: the profile's storage. */
#ifndef MPICAST_CPU_IMPL_H
#define MPICAST_CPU_IMPL_H

#include <stddef.h>

#include "mpicast/cpu.h"

/* Accesses at stack distance d, lo <= d < hi (lines). */
typedef struct cpu_bucket {
    double lo, hi, count;
} cpu_bucket;

/* One stream at one line size of one block: cold accesses and buckets
 * [first, first + nbuckets) of the profile's bucket array, increasing. */
typedef struct cpu_hist {
    size_t block;       /* index of its block (after loading) */
    char *from, *to;    /* its rd record's block, as written */
    int32_t rank;
    int stream;
    int line_no;        /* of the rd record, for errors */
    double line, cold;
    size_t first, nbuckets;
} cpu_hist;

typedef struct cpu_pblock {
    mc_cpu_block pub;
    int line;                  /* of the block record, for errors */
    size_t first_hist, nhists; /* in the profile's histogram array */
} cpu_pblock;

/* A `cpi FROM TO VALUE` record, applied to every rank's row at the end. */
typedef struct cpu_cpi {
    char *from, *to;
    double cpi;
    int line_no;
} cpu_cpi;

struct mc_cpu_profile {
    char *path;
    cpu_cpi *cpis;
    size_t ncpis, capcpis;
    cpu_pblock *blocks;
    size_t nblocks, capblocks;
    cpu_hist *hists;
    size_t nhists, caphists;
    cpu_bucket *buckets;
    size_t nbuckets, capbuckets;
};

/* Memo of bucket miss probabilities for one cache geometry (profile.c). */
typedef struct cpu_memo cpu_memo;
cpu_memo *cpu_memo_create(void);
void cpu_memo_destroy(cpu_memo *m);
/* mc_cpu_misses through a memo (NULL: none). */
double cpu_misses_memo(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double size,
                       double line, int assoc, cpu_memo *memo);

/* One memo per (level, stream) for evaluating many blocks on one model. */
typedef struct cpu_memos {
    cpu_memo *m[MC_CPU_NLEVELS][MC_CPU_NSTREAMS];
} cpu_memos;
void cpu_memos_init(cpu_memos *ms);   /* out of memory: NULL memos (no memo) */
void cpu_memos_free(cpu_memos *ms);
/* mc_cpu_eval_block with the memos (NULL: none). */
mc_err cpu_eval_block(const mc_cpu_model *m, const mc_cpu_profile *p, size_t i,
                      mc_cpu_eval *out, cpu_memos *ms, mc_error *err);

#endif
