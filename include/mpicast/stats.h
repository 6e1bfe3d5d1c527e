/* mpicast — the statistics of a trace: per MPI function and per rank the
 * calls, bytes, time inside MPI and polls; per rank the application window
 * (from the end of MPI_Init to the start of MPI_Finalize, as mpiP) and the
 * point-to-point messages it sends; the call sites by MPI time. One
 * computation for `stats`, `report` and anything else that summarises a
 * trace, so the same figure is the same everywhere (docs/json.md, "stats").
 *
 * Collection reads every event of every rank once, in bounded memory (per
 * rank and per function counters, one entry per (call site, function)).
 * Totals are exact: a total that passes 2^63 - 1 is an error, never printed
 * wrapped. A truncated rank stream counts its readable prefix, sets
 * mc_stats_truncated and adds a warning.
 *
 * Ownership: mc_stats_collect returns an object freed by mc_stats_destroy
 * (NULL is a no-op); warning strings belong to it.
 */
#ifndef MPICAST_STATS_H
#define MPICAST_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_stats mc_stats;

typedef struct mc_stats_counts {
    int64_t calls, bytes, time_ns;
    int64_t polls; /* calls that completed or found nothing (Test*, Iprobe) */
} mc_stats_counts;

typedef struct mc_stats_rank {
    int64_t app_ns;  /* the application window */
    int64_t mpi_ns;  /* inside MPI calls in it (Init and Finalize excluded) */
    int64_t calls, bytes, sends, send_bytes, polls;
    int finalized;   /* the rank's stream holds MPI_Finalize */
} mc_stats_rank;

typedef struct mc_stats_totals {
    int64_t app_max_ns, app_sum_ns, mpi_ns, calls, bytes, polls;
    int64_t sends, send_bytes;  /* point-to-point messages (to a real peer) */
    int overflow;               /* never set for a collected trace */
} mc_stats_totals;

typedef struct mc_stats_site {
    int32_t site, op;
    mc_stats_counts c;
} mc_stats_site;

/* The main loop of a rank (docs/stats.md, "Main loop"): the longest run of
 * identical iterations, an iteration being the events from one occurrence
 * of an event shape (operation, site, communicator, peers, tags, sizes,
 * values; not times or request ids) to the next. */
typedef struct mc_loop {
    uint64_t iterations; /* 0: no run of 3 or more identical iterations */
    uint64_t period;     /* events per iteration */
    uint64_t first;      /* index in the rank's stream of the first one's first event */
    int32_t op, site;    /* that event's operation and call site */
    int partial;         /* the rank had more distinct shapes than are tracked
                            (65536): shapes first seen later were not candidates */
} mc_loop;

/* The finder behind mc_stats_main_loop, for other passes over a stream
 * (mpicast compress): fed one rank's events in order, in memory bounded by
 * the distinct shapes (at most 65536 tracked). */
typedef struct mc_loop_finder mc_loop_finder;
mc_loop_finder *mc_loop_finder_create(void);
void mc_loop_finder_destroy(mc_loop_finder *f);
/* Leaves point-to-point sizes (mc_event_p2p_size) out of the shapes, so
 * iterations that differ only in them are alike (extrapolate's rule sizes
 * data: a particle code's messages follow its atoms). Off by default. */
void mc_loop_finder_sizes_aside(mc_loop_finder *f, int on);
/* Forgets every event: ready for the next rank (keeps its memory). */
void mc_loop_finder_reset(mc_loop_finder *f);
/* 0, or -1 out of memory. */
int mc_loop_finder_add(mc_loop_finder *f, const mc_event *e);
/* The main loop of the events added (iterations 0: none); positions count
 * every event added. */
mc_loop mc_loop_finder_result(const mc_loop_finder *f);

/* A rank's application window, as mpiP has it: from the end of MPI_Init to
 * the start of MPI_Finalize, the first / last MPI event's when one is
 * missing (compute records and unknown operations are not MPI events).
 * One computation for stats' app_time and the processing-time model's tau. */
typedef struct mc_app_window {
    int64_t first_start, last_end, init_end, fin_start;
    int have_events, have_init, have_fin;
} mc_app_window;
void mc_app_window_add(mc_app_window *w, const mc_event *e);
/* Start and end of the window (0, 0 without events); its length, >= 0. */
int64_t mc_app_window_start(const mc_app_window *w);
int64_t mc_app_window_end(const mc_app_window *w);
int64_t mc_app_window_ns(const mc_app_window *w);

/* Reads every rank of src. NULL with err filled ("NAME: ...") on a corrupt
 * stream, out of memory or a total past 2^63 - 1. */
mc_stats *mc_stats_collect(mc_source *src, mc_error *err);
void mc_stats_destroy(mc_stats *s);

int mc_stats_nranks(const mc_stats *s);
int mc_stats_truncated(const mc_stats *s);
size_t mc_stats_nwarnings(const mc_stats *s);
const char *mc_stats_warning(const mc_stats *s, size_t i);

/* Whether function op occurred; its counts on rank (or over all: rank -1). */
int mc_stats_op_seen(const mc_stats *s, int op);
mc_stats_counts mc_stats_op(const mc_stats *s, int op, int rank);
mc_stats_rank mc_stats_rank_at(const mc_stats *s, int rank);
mc_stats_totals mc_stats_total(const mc_stats *s);
/* Up to max call sites by MPI time (ties: calls, then ids), into out. */
size_t mc_stats_top_sites(const mc_stats *s, mc_stats_site *out, size_t max);

/* The main loop of rank r. */
mc_loop mc_stats_main_loop(const mc_stats *s, int rank);
/* The run's main-loop iteration count: the ranks' when every rank that has
 * a loop has the same count (1), else 0 with *ranks_with set to the number
 * of ranks with a loop (none, or counts that differ). */
int mc_stats_loop_iterations(const mc_stats *s, uint64_t *iterations, int *ranks_with);
/* Calls and bytes of operation op inside the main loop, all its iterations:
 * of one rank, or over all ranks (rank -1; a rank without a loop adds 0).
 * 1 when known; 0 when not: the ranks that have a loop differ in its
 * iterations, a rank's loop ended more than 65,536 calls before its stream
 * did (only the last ones are kept to count it), op polls (Test*, Iprobe:
 * how often depends on timing), a rank's product passes its own count of
 * op (the finder's extra iteration was not there), or a total passes
 * 2^63 - 1. */
int mc_stats_loop_op(const mc_stats *s, int op, int rank, int64_t *calls, int64_t *bytes);

/* The run's process grid: the first MPI_Cart_create of MPI_COMM_WORLD
 * (ndims 0: none, or more than MC_STATS_MAXDIMS dimensions). */
#define MC_STATS_MAXDIMS 8
typedef struct mc_stats_grid {
    int ndims;
    int dims[MC_STATS_MAXDIMS];
    int periods[MC_STATS_MAXDIMS];
} mc_stats_grid;
mc_stats_grid mc_stats_process_grid(const mc_stats *s);

/* Test, Testall, Testany, Testsome and Iprobe: the calls a polling loop makes. */
int mc_stats_is_poll_op(int op);

#ifdef __cplusplus
}
#endif
#endif
