/* mpicast — the replay simulator.
 *
 * mc_sim_run replays every rank of an event source on a modelled machine
 * (a platform and a network model) and returns, per rank, when it ended and
 * how its time splits into computation, communication and waiting.
 *
 * Time unit: integer picoseconds (int64_t) everywhere inside the simulator
 * and in mc_sim_result; trace times (ns) convert exactly, and per-byte rates
 * are rounded once per transfer, so results agree with hand-computed LogGP
 * times to well under 1 ns and never drift.
 *
 * Per rank, end = compute + comm + wait exactly:
 *   compute  compute bursts (recorded wall ns / cpu.speed, or the compute
 *            hook's value) and `compute` events (flops / cpu.flops);
 *   comm     CPU time the rank spends working for MPI: send overheads,
 *            processing received messages (o + (s-1)G with loggp), reductions
 *            inside collectives (bytes × cpu.reduce_cost), and the recorded
 *            cost of tests that completed nothing and of Iprobe;
 *   wait     the rest of the time inside MPI calls: blocked on a peer (a
 *            message not yet arrived, a rendezvous partner, a collective
 *            member) or on a busy NIC.
 *
 * Ownership: mc_sim_result arrays are freed by mc_sim_result_free. The
 * source, the platform and the options are borrowed for the call only.
 */
#ifndef MPICAST_SIM_H
#define MPICAST_SIM_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"
#include "mpicast/format.h"
#include "mpicast/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A communicator known before the replay (from meta.json): world ranks of its
 * members in comm-rank order. Communicators created by comm-management events
 * are learnt from those events' vals as they are replayed. */
typedef struct mc_sim_comm {
    uint64_t id;
    int32_t size;
    const int32_t *members;
} mc_sim_comm;

/* Hook for per-block compute tables (calibration issue): returns the
 * simulated duration (ps) of the compute burst of `rank` before the call at
 * `site`, after the call at `prev_site`; `scaled_ps` is the default (recorded
 * burst / cpu.speed). Return a negative value to keep the default. */
typedef int64_t (*mc_sim_compute_fn)(void *ctx, int rank, int32_t prev_site, int32_t site,
                                     int64_t scaled_ps);

/* A timeline sink: one slice of rank `rank` from t0_ps to t1_ps (exact),
 * named after the MPI call or "compute", "wait", ..., in category "compute",
 * "mpi" (a whole MPI call), "comm" (CPU work for MPI) or "wait" (the parts
 * of a call not covered by comm slices). Slices come in the order the
 * simulator makes them: not sorted by time, across ranks or within one. */
typedef void (*mc_sim_slice_fn)(void *ctx, int rank, const char *name, const char *cat,
                                int64_t t0_ps, int64_t t1_ps);

typedef struct mc_sim_options {
    const char *net_model;      /* NULL: the platform's network.model; "free" for
                                   the zero-cost reference network */
    const mc_sim_comm *comms;   /* known communicators, or NULL */
    size_t ncomms;
    FILE *timeline;             /* Chrome trace-event JSON written here, or NULL */
    mc_sim_slice_fn slice;      /* every timeline slice to this sink, or NULL */
    void *slice_ctx;
    mc_sim_compute_fn compute;  /* NULL: bursts / cpu.speed */
    void *compute_ctx;
    struct mc_net *net;         /* borrowed network model (mc_net_create with this
                                   run's ranks; one replay only) used instead of
                                   net_model, so that the caller can read its
                                   link statistics afterwards, or NULL */
    uint64_t stall_events;      /* livelock guard: the replay stops (MC_ERR_DEADLOCK,
                                   with the stuck ranks' report) after this many
                                   engine events without simulated time passing
                                   nor a trace event read; 0: 10^8 + 4*ranks^2 */
    const volatile sig_atomic_t *interrupt; /* or NULL: when *interrupt becomes
                                   non-zero (a SIGINT handler sets it) the replay
                                   stops within a few thousand engine events and
                                   returns MC_ERR_INTERRUPTED with the partial
                                   result (sim_time: how far it got) */
    int prefetch;               /* speed only, never the results: 0 auto (fetch
                                   records ahead from 4096 ranks up, where the
                                   replay's state leaves the caches), 1 always,
                                   -1 never */
} mc_sim_options;

typedef struct mc_sim_rank {
    int64_t end;     /* ps: when the rank finished its last event */
    int64_t compute; /* ps */
    int64_t comm;    /* ps */
    int64_t wait;    /* ps */
    uint64_t events; /* events replayed */
} mc_sim_rank;

typedef struct mc_sim_result {
    int nranks;
    mc_sim_rank *ranks;     /* nranks entries */
    int64_t end;            /* ps: the latest rank's end (the predicted time) */
    uint64_t events;        /* trace events replayed */
    uint64_t sim_events;    /* engine events processed (queue pops + inline steps) */
    uint64_t messages;      /* point-to-point transfers simulated (all) */
    uint64_t bytes;
    uint64_t coll_messages; /* of which inside collectives */
    uint64_t coll_bytes;
    uint64_t peak_messages; /* most messages held at once (in flight, unexpected
                               or queued): what the replay's memory follows */
    double wall_seconds;    /* wall time of the replay */
    int64_t sim_time;       /* ps: simulated time reached (= end when complete) */
    int interrupted;        /* 1: stopped by options.interrupt; ranks hold what
                               was simulated up to sim_time */
    char *report;           /* on MC_ERR_DEADLOCK: one line per stuck rank /
                               unmatched message (malloc'd), else NULL */
} mc_sim_result;

/* Replays `src` on platform `p`. On failure returns the code, fills err
 * (for a deadlock: a summary naming the first stuck ranks; the full list is
 * in out->report) and leaves out with what was computed. */
mc_err mc_sim_run(mc_source *src, const mc_platform *p, const mc_sim_options *opt,
                  mc_sim_result *out, mc_error *err);
/* Frees the arrays of a result; NULL and zeroed results are fine. */
void mc_sim_result_free(mc_sim_result *r);

static inline double mc_sim_seconds(int64_t ps) { return (double)ps * 1e-12; }

#ifdef __cplusplus
}
#endif
#endif
