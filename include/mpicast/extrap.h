/* mpicast — trace extrapolation: from a small run to a large one.
 *
 * A model is built from one or more traces of the same program at small
 * process counts (mc_extrap_build). It places the ranks on a Cartesian
 * process grid (from MPI_Cart_create, from the Comm_split pattern, a 1-D
 * ring, or the rules), sorts them into classes by their position along each
 * dimension (lower border, interior, upper border), and keeps one
 * representative event sequence per class, in which every peer is a grid
 * offset or a fixed rank, every communicator a sub-grid, and every size a
 * law of P. The model then yields, for any P, the events each rank of a
 * P-rank run would produce (mc_extrap_source), so the simulator reads a
 * million ranks without anything being written.
 *
 * Nothing is guessed silently: the model must regenerate every rank of every
 * input trace exactly (operation, peer, tag, sizes, communicator, values);
 * otherwise mc_extrap_build fails naming the class and the event it cannot
 * explain. Rules: docs/extrapolation.md.
 *
 * Ownership: mc_extrap_build returns a model freed by mc_extrap_destroy. A
 * source from mc_extrap_source borrows the model (keep the model alive until
 * the source is closed); mc_extrap_open_source owns its model.
 */
#ifndef MPICAST_EXTRAP_H
#define MPICAST_EXTRAP_H

#include <stdio.h>
#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_EXTRAP_MAXDIMS 4

/* Laws of a size or a compute burst as a function of the target run:
 * value(P) = value(P0) * f(P, c) / f(P0, c0), c the size of the event's
 * communicator, d the grid dimensions. */
typedef enum mc_extrap_law {
    MC_LAW_AUTO = 0,   /* rules: default of the scaling; inference: fit */
    MC_LAW_CONST,      /* f = 1 (weak scaling) */
    MC_LAW_VOLUME,     /* f = 1/P (strong scaling: work per rank) */
    MC_LAW_SURFACE,    /* f = (1/P)^((d-1)/d) (strong scaling: a face) */
    MC_LAW_INV_COMM,   /* f = 1/c (a fixed total split among c peers) */
    MC_LAW_COMM,       /* f = c */
    MC_LAW_P_PER_COMM, /* f = P/c (per-peer block of data that grows with P) */
    MC_LAW_VOLUME_PER_COMM, /* f = 1/(P c) (strong scaling, all-to-all block) */
    MC_LAW_P,          /* f = P */
    MC_LAW_INV_P,      /* f = 1/P */
    MC_LAW_LOG2P,      /* f = log2 P */
    MC_LAW_LOG2COLS,   /* f = ceil(log2(P) / 2): log2 of the columns of NPB's process grid
                        * (2^ceil(log2 P / 2) columns; a row's reduction steps, NPB CG) */
    MC_LAW_FIT,        /* compute only: f = the model family mpicast model selects for the
                        * class's compute per rank over the traces (three or more) */
    MC_LAW_COUNT
} mc_extrap_law;

/* Name of a law ("const", "surface", ...), and back (-1 if unknown). */
const char *mc_extrap_law_name(int law);
int mc_extrap_law_from_name(const char *name);

/* Operation classes a size law applies to. */
typedef enum mc_extrap_sizeclass {
    MC_SC_P2P = 0,   /* point-to-point sizes and received bytes in completions */
    MC_SC_REDUCE,    /* Bcast, Reduce, Allreduce, Scan, Exscan, Reduce_scatter* */
    MC_SC_BLOCK,     /* per-peer blocks: Alltoall*, Allgather*, Gather*, Scatter* */
    MC_SC_COMPUTE,   /* compute bursts */
    MC_SC_COUNT
} mc_extrap_sizeclass;

typedef struct mc_extrap_rules {
    int replicate;     /* 1: every rank behaves like rank `rep` (EP-like) */
    int rep;           /* representative rank for replicate */
    int ndims;         /* grid dimensions; 0: from the trace */
    int dims[MC_EXTRAP_MAXDIMS];    /* target grid; all 0: MPI_Dims_create(P, ndims) */
    int periods[MC_EXTRAP_MAXDIMS]; /* -1: from the trace (Cart_create; else wrap) */
    int strong;        /* 0 weak scaling (default), 1 strong scaling */
    int law[MC_SC_COUNT]; /* MC_LAW_AUTO: the scaling's default or the fit */
    int infer;         /* 1 (default): fit laws when two or more traces are given */
    int data_sizes;    /* 1 (sizes data): point-to-point sizes that differ between the
                        * ranks of a class follow the data (particles, cells): each target
                        * rank takes those of the traced rank at its place in a tiling of
                        * the traced grid; 0 (sizes exact, default): refused */
    int blocks;        /* how per-rank counts deal items out (blocks first|last|ceil):
                        * 0 any that fits the traces (default), 1 first N mod c ranks one
                        * more, 2 the last, 3 ceil(N/c) blocks (FFTW-MPI) */
    int nrepeat;       /* stated repetitions: the block starting at the first call */
    struct {           /* from `site` (LEN events, 0: its period) repeats a*f(P) times */
        int32_t site;
        uint32_t len;
        int law;
    } repeat[8];
} mc_extrap_rules;

/* Defaults: auto grid, weak scaling, laws inferred from several traces. */
void mc_extrap_rules_init(mc_extrap_rules *r);
/* One rule, KEY VALUE (docs/extrapolation.md): grid 8x8, periodic 1,0,
 * replicate [RANK], scaling weak|strong, size.p2p LAW, size.reduce LAW,
 * size.block LAW, compute LAW, infer yes|no, ndims N, repeat SITE[/LEN]:LAW,
 * sizes exact|data, blocks first|last|ceil|any. */
mc_err mc_extrap_rules_set(mc_extrap_rules *r, const char *key, const char *value,
                           mc_error *err);
/* A rules file: one "KEY VALUE" per line, '#' comments. */
mc_err mc_extrap_rules_load(mc_extrap_rules *r, const char *path, mc_error *err);

/* MPI_Dims_create(P, nd) into dims (balanced, non-increasing). */
void mc_extrap_dims_create(int nranks, int nd, int *dims);

typedef struct mc_extrap mc_extrap;

/* Reads the traces (directories), builds and verifies the model. */
mc_extrap *mc_extrap_build(const char *const *traces, int ntraces, const mc_extrap_rules *rules,
                           mc_error *err);
/* Progress of a build, for a progress line: phase(ctx, what, total) as a
 * long phase starts ("fold: ranks": large inputs folded, docs/extrapolation.md;
 * "check: ranks": the leave-one-out check), then step(ctx) after each of
 * its items. Either may be NULL. */
typedef struct mc_extrap_progress {
    void (*phase)(void *ctx, const char *what, uint64_t total);
    void (*step)(void *ctx);
    void *ctx;
} mc_extrap_progress;
/* As mc_extrap_build, reporting progress (prog may be NULL). */
mc_extrap *mc_extrap_build_progress(const char *const *traces, int ntraces,
                                    const mc_extrap_rules *rules,
                                    const mc_extrap_progress *prog, mc_error *err);
void mc_extrap_destroy(mc_extrap *x);
/* Writes the rules applied per event class (what --explain prints). If
 * nranks > 0 also the target grid of that run. */
void mc_extrap_explain(const mc_extrap *x, int nranks, FILE *out);
/* The event source of a P-rank run (P = nranks). Fails if the grid cannot
 * take P ranks or a class the run needs is missing from the traces. */
mc_source *mc_extrap_source(const mc_extrap *x, int nranks, mc_error *err);
/* Builds a model from one trace and returns its P-rank source (owning it). */
mc_source *mc_extrap_open_source(const char *trace, int nranks, const mc_extrap_rules *rules,
                                 mc_error *err);
/* The factor by which the source (made by mc_extrap_source or
 * mc_extrap_open_source) scales every compute burst of the traced run: the
 * compute law at its P over the law at the traced P (1 under weak scaling,
 * P0/P under strong). A per-block compute table measured on the traced run
 * is scaled by it too. Fails (MC_ERR_USAGE, a reason) when bursts do not
 * scale by one factor: a law of the communicator size, or classes taken
 * from traces at different P. */
mc_err mc_extrap_source_burst_factor(const mc_source *s, double *f, mc_error *err);
/* Writes the P-rank pseudo-trace as a trace directory (meta.json included). */
mc_err mc_extrap_write(const mc_extrap *x, int nranks, const char *dir, mc_error *err);
/* As mc_extrap_write, calling rank_done(ctx) after each rank's file is
 * written (a progress line; rank_done may be NULL). */
mc_err mc_extrap_write_progress(const mc_extrap *x, int nranks, const char *dir,
                                void (*rank_done)(void *ctx), void *ctx, mc_error *err);

/* The first event where two event streams differ (mc_extrap_compare). */
typedef struct mc_extrap_diff {
    int rank;          /* the rank; -1: the streams have different rank counts */
    uint64_t index;    /* index of the event within the rank (0-based, as `dump` counts) */
    int op;            /* the trace's operation there (MC_OP_*), -1 past its end */
    int32_t site;      /* the trace's call site there (the model's past its end) */
    char what[256];    /* what differs, e.g. "peer 3 in the model, 5 in the trace" */
} mc_extrap_diff;

/* Compares a generated stream (model) with a trace (real), rank by rank
 * and event by event, on everything a pseudo-trace reproduces: operation,
 * call site, peers, tags, sizes, communicators, request ids, values, and
 * the number of events per rank; never times (bursts follow the compute
 * rule, not a fit). Streams: one event of each is held at a time. Returns
 * 0 when equal, 1 when not (*d: the first difference), -1 on a read error
 * (err). *nevents (may be NULL): events compared. tick(ctx) after each rank
 * (may be NULL). */
int mc_extrap_compare(mc_source *model, mc_source *real, mc_extrap_diff *d,
                      uint64_t *nevents, void (*tick)(void *ctx), void *ctx, mc_error *err);

/* Leave-one-out check (docs/extrapolation.md): with two or more traces,
 * mc_extrap_build rebuilds each trace's P from the others with the same
 * rules (stated, and inferred from all traces) and compares the streams;
 * a difference fails the build naming the first differing event. Returns
 * the number of traces rebuilt and found equal (0: the model is unchecked). */
int mc_extrap_checked(const mc_extrap *x);
/* Inputs whose main loops were folded (docs/extrapolation.md, "Large inputs"):
 * iterations after the first then take their mean times. */
int mc_extrap_folded(const mc_extrap *x);
/* The same for an extrapolated source (mc_extrap_source, mc_extrap_open_source);
 * 0 for any other source. */
int mc_extrap_source_folded(const mc_source *s);
/* The warning every command prints after a folded extrapolation with rules
 * (one line, no prefix, no newline). */
const char *mc_extrap_folded_warning(const mc_extrap_rules *rules);
/* compute=fit or size.p2p=fit: 1 and one line in buf (no prefix, no
 * newline) when a class's fitted compute per rank, or else a fitted data size,
 * has a held-out error above MC_EXTRAP_FIT_WARN_CV % (its values at another P
 * are then uncertain); 0 otherwise. */
#define MC_EXTRAP_FIT_WARN_CV 10.0
int mc_extrap_fit_warning(const mc_extrap *x, char *buf, size_t len);
/* One line saying why the model is unchecked and naming its stated rules
 * ("" when checked). */
const char *mc_extrap_unchecked(const mc_extrap *x);
/* The stated rules, those that differ from mc_extrap_rules_init (e.g.
 * "repeat 378b9d1b:log2p, scaling strong"); "" if none. */
void mc_extrap_rules_describe(const mc_extrap_rules *r, char *buf, size_t len);
/* What predict --ranks, sweep --ranks and sweep-mpi (one trace each) say on
 * stderr: "one trace: RULES not checked against another process count".
 * Returns 1 with the line in buf when rules are stated, else 0 (buf ""). */
int mc_extrap_rules_unchecked(const mc_extrap_rules *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
