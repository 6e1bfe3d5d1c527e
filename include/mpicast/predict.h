/* mpicast — the prediction session: one input, one platform, options in;
 * one result out. `predict`, `sweep`, `mpicast-sweep-mpi` and `report` all
 * predict through mc_predict_run, so they open, extrapolate, bind compute
 * tables and replay the same way.
 *
 * A session replays the input (any kind the input registry reads, input.h;
 * extrapolated to `ranks` when that differs from the input's count) on the
 * platform, and, for the EXCIT/INSPIRE breakdown, a second time on a free
 * network (zero latency, overhead and gap, infinite bandwidth): the
 * communication time is the difference of the two predicted times.
 *
 * Ownership: the request's pointers are borrowed for the call; the result's
 * arrays are freed by mc_predict_result_free (safe on a zeroed result).
 */
#ifndef MPICAST_PREDICT_H
#define MPICAST_PREDICT_H

#include <signal.h>
#include <stdio.h>

#include "mpicast/blocks.h"
#include "mpicast/cpu.h"
#include "mpicast/error.h"
#include "mpicast/extrap.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_predict_request {
    const char *trace;             /* path of any input kind (input.h) */
    const mc_platform *platform;   /* see mc_platform_open */
    int ranks;                     /* 0: the input as it is; else its pseudo-trace
                                      at this count (extrap.h) */
    const mc_extrap_rules *rules;  /* extrapolation rules; NULL: the defaults */
    mc_ctable *compute;            /* per-block compute table, or NULL */
    const mc_cpu_profile *profile; /* per-block CPU profile, or NULL: each burst of a
                                      block it has takes the processor model's time
                                      on the platform's [cpu] keys (not with compute) */
    int breakdown;                 /* 1: also replay on the free network */
    int jobs;                      /* 2: both replays at once (not with a compute
                                      table, whose counts are per replay) */
    int links;                     /* 1: per-link statistics (flow models) */
    uint64_t iterations;           /* > 0: sample a loop-compressed trace (mpicast
                                      compress): replay it with every loop record
                                      cut to K and to 2K iterations, and extend
                                      each figure linearly to the iterations left
                                      out (see mc_predict_run) */
    FILE *timeline;                /* Chrome JSON of the platform replay, or NULL */
    mc_sim_slice_fn slice;         /* the platform replay's timeline slices, or NULL */
    void *slice_ctx;
    const volatile sig_atomic_t *interrupt; /* see mc_sim_options.interrupt */
    /* Optional progress display: wrap(ctx, src, what) returns a source that
     * passes src's events through (or src itself); unwrap ends it. Called
     * for every replay except the free one when it runs concurrently. */
    mc_source *(*wrap)(void *ctx, mc_source *src, const char *what);
    void (*unwrap)(void *ctx, mc_source *wrapped, mc_source *src);
    void *wrap_ctx;
} mc_predict_request;

typedef struct mc_predict_links {
    mc_net_link_stat *v; /* every link that carried traffic, busiest first */
    size_t n;
} mc_predict_links;

typedef struct mc_predict_result {
    mc_sim_result run;           /* on the platform */
    mc_sim_result free_run;      /* on the free network (breakdown only) */
    mc_err run_rc, free_rc;      /* each replay's outcome (free: MC_OK if not run) */
    int has_breakdown;           /* the free replay ran to its end */
    mc_predict_links links;      /* request.links on a flow model */
    mc_ctable_counts compute_counts; /* bursts from the table / fallen back */
    mc_cpu_counts profile_counts;    /* bursts from the profile / fallen back */
    uint64_t sampled_skipped;    /* request.iterations: loop iterations rank 0's
                                    K-replay left out (and extended to) */
    uint64_t sampled_records;    /* loop records rank 0 read */
    int folded;                  /* request.ranks: the input's main loops were folded
                                    (mc_extrap_source_folded): say so */
} mc_predict_result;

/* Runs the session. With request.iterations = K, the input must be a
 * loop-compressed trace directory: the session runs twice, with loop records
 * cut to K and to 2K iterations, and every figure x of the result (each
 * rank's end, compute, comm, wait, events; the predicted time; message
 * counts) is x_K + s_K (x_2K - x_K) / (s_K - s_2K), s being the iterations
 * left out (per rank for per-rank figures): each iteration left out costs
 * what one of the K more cost. Link statistics are not sampled (refused).
 * Returns MC_OK when every replay asked for completed;
 * else the first failing replay's code with err filled (MC_ERR_INTERRUPTED
 * after an interrupt: the result holds what was simulated; MC_ERR_DEADLOCK:
 * the failing replay's `report` lists the stuck ranks). */
mc_err mc_predict_run(const mc_predict_request *rq, mc_predict_result *res, mc_error *err);
void mc_predict_result_free(mc_predict_result *res);

/* The platform of a prediction: mc_platform_open (the file, or the defaults,
 * with the --set overrides), then mc_net_check, so a model or topology name
 * that no network model knows is refused with its FILE:LINE before anything
 * is read. NULL with err filled. */
mc_platform *mc_predict_platform(const char *file, const char *const *sets, int nsets,
                                 mc_error *err);

/* Communicators of the source's meta data as the simulator takes them
 * (intercommunicators left out: learnt from their events); *n entries,
 * borrowing the meta's member arrays. NULL with *n = 0 when there are none. */
mc_sim_comm *mc_predict_comms(const mc_source *src, size_t *n);

/* ------------------------------------------------------------ validate */

/* Times of one run or rank, s: the whole (the measured window from the end
 * of MPI_Init to the start of MPI_Finalize; the predicted end), the
 * computation in it and the communication (time inside MPI calls; predicted:
 * comm + wait). */
typedef struct mc_validate_times {
    double time, computation, communication;
} mc_validate_times;

typedef struct mc_validate_rank {
    mc_validate_times measured, predicted;
    mc_validate_times error;    /* % as MPIETE's Eq. 8: (predicted - measured) /
                                   measured; NAN where measured is 0 */
} mc_validate_rank;

typedef struct mc_validate_result {
    int nranks;
    mc_validate_rank *ranks;
    mc_validate_times measured, predicted, error; /* run time: the latest rank's;
                                                     the others: means over ranks */
    int unfinished;             /* ranks without MPI_Finalize (a crashed run) */
} mc_validate_result;

/* Replays the trace on the platform it was measured on and compares, per
 * rank and in total, the measured times with the predicted ones. Refuses a
 * trace without measured times. Free with mc_validate_result_free. */
mc_err mc_validate_run(const char *trace, const mc_platform *platform, mc_validate_result *v,
                       mc_error *err);
void mc_validate_result_free(mc_validate_result *v);

#ifdef __cplusplus
}
#endif
#endif
