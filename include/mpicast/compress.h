/* mpicast — loop-compressed traces (docs/trace-format.md, "Loop records").
 *
 * A regular code repeats one iteration thousands of times; its trace need
 * not. mc_compress_trace rewrites a trace so that each rank's main loop
 * (mc_loop_finder, stats.h) is stored once, in a loop record followed by one
 * iteration's events, and readers expand it as they read: every command
 * sees the same events, and nothing is expanded on disk or in memory.
 *
 * Each iteration is checked against the stored one, event by event (every
 * field but times; request ids moved on by the requests an iteration
 * creates), so the expansion is exact: the loop ends at the first
 * iteration that differs, and that iteration and the rest are stored as
 * they are. Times: `exact` keeps every event's burst and duration (and
 * CPU time) per iteration, so the expanded trace is the input to the
 * nanosecond; otherwise each body event keeps its mean over the
 * iterations (the stored iteration keeps its own), so the size follows the
 * program's structure and the times their average.
 */
#ifndef MPICAST_COMPRESS_H
#define MPICAST_COMPRESS_H

#include <stdint.h>

#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_compress_info {
    uint64_t events;       /* events read (and delivered by the output) */
    uint64_t stored;       /* events the output stores */
    uint64_t records;      /* loop records written */
    int ranks;             /* ranks */
    int ranks_looped;      /* ranks with a loop stored once */
    uint64_t iterations;   /* rank 0's: iterations its loop records stand for */
    uint32_t period;       /* rank 0's: events per iteration */
    /* The rank just compressed (valid when on_rank is called): its loop
     * records and the first one's body: where it starts in the delivered
     * stream, its iterations, events per iteration and the request ids one
     * iteration creates (extrapolate folds a rank's main loop with them). */
    uint64_t rank_records, rank_first, rank_iterations;
    uint32_t rank_period, rank_req_first, rank_req_count;
} mc_compress_info;

/* Flags of mc_compress_trace. */
enum {
    MC_COMPRESS_EXACT = 1, /* per-iteration times (else means) */
    /* Every rank's loop starts at one shared event: an (operation, site)
     * each looped rank's iteration has once, at the same occurrence in every
     * rank (else each rank's loop starts where the finder saw it first, and
     * ranks whose iterations differ may have it rotated). */
    MC_COMPRESS_ALIGN = 2,
    /* Point-to-point sizes (mc_event_p2p_size) are left aside when
     * iterations are compared, and each body event's are their mean over the
     * loop's iterations, the stored one's included (rounded; a message's two
     * ends get the same mean). Not exact: extrapolate's rule sizes data folds
     * a particle code's loop so, whose messages follow its atoms. */
    MC_COMPRESS_SIZES_MEAN = 4,
};

/* Writes trace (any input kind) compressed into the directory outdir (which
 * must exist; rank files and meta.json are created there). flags:
 * MC_COMPRESS_*. on_rank (optional) is called after each rank. */
mc_err mc_compress_trace(const char *trace, const char *outdir, int flags,
                         mc_compress_info *info, void (*on_rank)(void *ctx, int rank),
                         void *ctx, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
