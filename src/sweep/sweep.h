/* Internal to mpicast sweep and mpicast-sweep-mpi: the what-if sweep core
 * (src/sweep/sweep.c). A sweep is a list of independent tasks: first one
 * prediction per point of the cross product of --vary values and --ranks,
 * then (with --solve) one balance-point search per combination of --vary
 * values and process count. Tasks run anywhere (threads, MPI ranks): their
 * results are plain structs, gathered and printed by one process.
 */
#ifndef MPICAST_SWEEP_H
#define MPICAST_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "mpicast/error.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"

enum { SWEEP_OK = 0, SWEEP_BAD_INPUT = 1, SWEEP_USAGE = 2 };

typedef struct sweep_vary {
    char *key;
    char **vals;
    int nvals;
} sweep_vary;

typedef struct sweep_cfg {
    const char *trace, *platform, *solve;
    const char **sets;
    int nsets;
    sweep_vary *vary;
    int nvary;
    int *ranks;         /* process counts (the trace's when none given) */
    int nranks;
    int trace_ranks;
    /* The input, open from parsing to sweep_cfg_free: every point opens it
     * again, and an imported input (OTF2, DUMPI) is then imported once,
     * before any thread (an import forks; a fork beside a thread can deadlock). */
    mc_source *hold;
    int jobs, json, csv;
    int quiet;          /* --quiet: no progress line (the caller shows it) */
    double target;      /* --target-efficiency, or 0 */
    int ncombos;        /* product of the vary value counts (1 without --vary) */
    int npoints, nsolves;
    const char *prog;   /* "sweep" or "sweep-mpi", for messages */
    mc_extrap_rules rules;    /* --scaling, --rule(s), --grid, ...: for --ranks */
    const char *compute_file; /* --compute: per-block compute table, or NULL */
    const char *profile_file; /* --profile: per-block CPU profile, or NULL */
    struct mc_cpu_profile *profile; /* loaded by sweep_prepare; read-only, shared by tasks */
    /* Called after each task, from the thread that ran it (so it must be
     * thread-safe), with the number of tasks finished so far by this call's
     * sweep_run_tasks; NULL for none. Set after sweep_prepare. */
    void (*on_task_done)(void *ctx, int done);
    void *on_task_ctx;
} sweep_cfg;

/* Result of one task: POD, so that it can travel as bytes. */
typedef struct sweep_result {
    int32_t done;       /* 1 computed, 0 failed (note says why) */
    int32_t ranks;
    double predicted, compute, comm; /* s; compute: mean over ranks */
    double value;       /* solve: the balance value (NAN: none) */
    double eff;         /* solve: the efficiency predicted at value */
    int32_t evals;      /* solve: replays used */
    int32_t folded;     /* its pseudo-traces came from folded inputs (extrap.h) */
    char note[240];
} sweep_result;

/* An empty configuration (jobs 1, default rules) for command prog ("sweep"
 * or "sweep-mpi", in messages); the command line fills it (src/cli/sweep_args.c). */
void sweep_cfg_init(sweep_cfg *c, const char *prog);
/* After the command line: checks the platforms of every --vary combination
 * and --solve's key, opens the trace (held), loads --profile and counts the
 * tasks. SWEEP_OK, or an exit code after printing the error. */
int sweep_prepare(sweep_cfg *c);
/* One warning line on `out` when --ranks extrapolates with stated rules
 * (from one trace they cannot be checked: docs/extrapolation.md), and one
 * when the profile gives only some blocks their own cpi. */
void sweep_warn_unchecked(const sweep_cfg *c, FILE *out);
void sweep_cfg_free(sweep_cfg *c);
static inline int sweep_ntasks(const sweep_cfg *c) { return c->npoints + c->nsolves; }
/* Runs task i into *out. */
void sweep_run_task(const sweep_cfg *c, int i, sweep_result *out);
/* Runs tasks i with i % stride == offset, on `jobs` threads. */
void sweep_run_tasks(const sweep_cfg *c, sweep_result *res, int jobs, int stride, int offset);
/* Prints the table (or --csv / --json) of all results on out; returns the
 * exit code (SWEEP_BAD_INPUT, with the failure on stderr, if a task failed). */
int sweep_print(const sweep_cfg *c, const sweep_result *res, FILE *out);

#endif
