/* mpicast — imports and exports: OTF2 (Score-P's format), SimGrid
 * time-independent text, Chrome trace-event JSON, gnuplot plots and the
 * self-contained HTML report. Conventions and losses: docs/formats.md.
 *
 * Every function reads a trace directory (mpicast trace, or mpicast import)
 * through mc_trace_open, so wildcard receives arrive resolved. Errors follow
 * error.h: MC_OK or a code with "FILE:WHERE: what is wrong" in err. Nothing
 * here prints, except to the FILE * a caller hands in (progress, output).
 */
#ifndef MPICAST_EXPORT_H
#define MPICAST_EXPORT_H

#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress reporting: when `out` is non-NULL a line "what: done/total" is
 * rewritten on it (a terminal) at most a few times per second. */
typedef struct mc_progress {
    FILE *out;
    const char *what;
    double last;  /* internal: time of the last line */
} mc_progress;
void mc_progress_update(mc_progress *p, uint64_t done, uint64_t total);
/* Clears the line when one was written. */
void mc_progress_done(mc_progress *p);
/* Monotonic seconds, for mc_progress.last (a line only after 0.25 s). */
double mc_progress_now(void);

/* What an export had to drop or approximate (counts of events). */
typedef struct mc_export_info {
    uint64_t events;      /* events read */
    uint64_t written;     /* records / lines / slices written */
    uint64_t dropped;     /* events the target format cannot express */
    uint64_t messages;    /* point-to-point messages matched (chrome flows) */
    char first_dropped[64]; /* name of the first dropped operation */
    char dropped_ops[256];  /* every dropped operation's name, comma-separated,
                               as many as fit ("" when the exporter does not list
                               them: DUMPI does) */
    uint64_t folded_runs;   /* records of failed polls the tracer folded
                               (mc_event.folded), written as one call each */
    uint64_t folded_calls;  /* the calls those records stand for */
} mc_export_info;

/* ---------------------------------------------------------------- TIT */

/* Writes OUTDIR/rank-N.txt per rank and the list file OUTDIR/traces.txt for
 * `smpirun -replay OUTDIR/traces.txt` (and `mpicast predict`). Compute
 * bursts become `compute F` with F = burst seconds × flops (flop/s; match
 * it with the platform's cpu.flops). */
mc_err mc_export_tit(const char *trace, const char *outdir, double flops, mc_export_info *info,
                     mc_progress *prog, mc_error *err);

/* ---------------------------------------------------------------- Chrome */

/* What `export chrome` writes: the ranks whose flag is set (ranks NULL:
 * all; nranks entries), the calls and bursts overlapping [t0, t1] ns from
 * the trace's earliest event (t1 < t0: the whole run). */
typedef struct mc_chrome_filter {
    const unsigned char *ranks;
    int nranks;
    int64_t t0, t1;
} mc_chrome_filter;

/* Chrome trace-event JSON of a real trace: one thread per rank; compute
 * slices ("X", cat compute), MPI calls as B/E pairs (cat mpi) with a nested
 * wait slice where the waiting is known (a receive that started before its
 * matching send), and flow events (s/f) from each send to its receive.
 * Streams: two passes over the trace, the first keeping 24 bytes per
 * message to a written rank (for flows and waits), none per event. filter
 * NULL: everything. */
mc_err mc_export_chrome(const char *trace, FILE *out, const mc_chrome_filter *filter,
                        mc_export_info *info, mc_progress *prog,
                        mc_error *err);

/* ---------------------------------------------------------------- OTF2 */

/* Writes an OTF2 archive OUTDIR/traces.otf2 (+ traces.def, traces/): one
 * location per rank with its own definition file, MPI regions with Enter/
 * Leave, MpiSend/MpiRecv/MpiIsend/MpiIsendComplete/MpiIrecvRequest/MpiIrecv
 * and MpiCollectiveBegin/End records (sizes as Score-P computes them),
 * communicators from meta.json. */
mc_err mc_export_otf2(const char *trace, const char *outdir, mc_export_info *info,
                      mc_progress *prog, mc_error *err);

/* Reads an OTF2 archive (its anchor file ARCHIVE.otf2, or a directory holding
 * traces.otf2) as Score-P writes it and writes a trace directory OUTDIR:
 * one rank per MPI process (its first location), MPI calls from the Enter/
 * Leave of MPI_ regions with the records inside them, compute bursts from
 * the gaps between MPI regions, communicators from the definitions.
 * The OTF2 library runs in a child process (it can spin or crash on a
 * corrupt archive): no progress for $MPICAST_OTF2_STALL seconds (default
 * 60) or a crash is an MC_ERR_FORMAT error. A cut event file gives its
 * readable prefix and MC_ERR_TRUNCATED. */
mc_err mc_import_otf2(const char *archive, const char *outdir, mc_export_info *info,
                      mc_progress *prog, mc_error *err);

/* ---------------------------------------------------------------- DUMPI */

/* Reads a DUMPI trace (SST's libdumpi, format 13.0.0; PATH: its PREFIX.meta
 * or a directory holding one dumpi-*.meta) and writes the trace directory
 * OUTDIR: one event per MPI call mpicast records (local queries such as
 * Comm_rank or Cart_shift fall into the compute burst around them),
 * communicators mapped to world ranks with the ids the tracer gives,
 * request handles renumbered 1, 2, ... per rank, wildcard receives resolved
 * from the status when DUMPI kept it, wall and CPU times in ns from the
 * earliest MPI_Init exit. info->dropped counts the calls left out. */
mc_err mc_import_dumpi(const char *path, const char *outdir, mc_export_info *info,
                       mc_progress *prog, mc_error *err);

/* Writes TRACE (any input kind) as a DUMPI trace OUTDIR/PREFIX.meta and
 * OUTDIR/PREFIX-NNNN.bin, rank by rank (one rank's events at a time), in
 * the 13.0.0 layout SST/macro, CODES and dumpi2ascii read. Sizes are
 * written as counts of MPI_BYTE; what DUMPI cannot express is counted in
 * info->dropped (first in info->first_dropped). */
mc_err mc_export_dumpi(const char *trace, const char *outdir, const char *prefix,
                       mc_export_info *info, mc_progress *prog, mc_error *err);

/* As mc_export_dumpi from an open source (the caller keeps and closes it),
 * e.g. mc_extrap_source's pseudo-trace: ranks are read in order 0..P-1,
 * each to its end before the next, and each rank file is written through
 * outfile.h (a temporary renamed when complete), so one file is open and
 * memory holds one rank's communicator table whatever P. */
mc_err mc_export_dumpi_source(mc_source *src, const char *outdir, const char *prefix,
                              mc_export_info *info, mc_progress *prog, mc_error *err);

/* True when path is a DUMPI .meta file or a directory holding one. */
int mc_dumpi_is_trace(const char *path);

/* Registers the importers' rows in the input registry (input.h): OTF2, DUMPI.
 * Programs call it once at start-up, before mc_input_open. */
mc_err mc_import_register_inputs(void);

/* True when path is an OTF2 anchor file or a directory holding traces.otf2. */
int mc_otf2_is_archive(const char *path);
/* The anchor file of an archive path (malloc'd), or NULL. */
char *mc_otf2_anchor(const char *path);

/* The simulated run as an OTF2 archive, slice by slice: pass
 * mc_tl_otf2_slice and the object as the replay's mc_sim_slice_fn and its
 * context (exact times, no text in between), then write OUTDIR/traces.otf2
 * once the replay has ended (nranks: the run's; ranks without slices get
 * empty locations). Slices nest by time: MPI calls (region MPI_<op>), and
 * inside them or alone compute, comm and wait regions. */
typedef struct mc_tl_otf2 mc_tl_otf2;
mc_tl_otf2 *mc_tl_otf2_create(void);
void mc_tl_otf2_slice(void *ctx, int rank, const char *name, const char *cat, int64_t t0_ps,
                      int64_t t1_ps);
mc_err mc_tl_otf2_write(mc_tl_otf2 *t, const char *outdir, int nranks, mc_error *err);
void mc_tl_otf2_destroy(mc_tl_otf2 *t);

/* Converts the simulator's Chrome timeline (predict --timeline) read from
 * `in` to an OTF2 archive in OUTDIR: slices become nested regions (MPI
 * calls, compute, comm, wait) on one location per rank. */
mc_err mc_timeline_to_otf2(FILE *in, const char *outdir, mc_error *err);

/* ---------------------------------------------------------------- plots */

/* A plot through gnuplot: `script` is a gnuplot script body that reads the
 * data file named by the variable `data` and writes to `output` with the
 * terminal chosen from the file extension (.png: pngcairo, .svg: svg).
 * Returns MC_ERR_IO when gnuplot is missing or fails. */
mc_err mc_gnuplot(const char *script, const char *datafile, const char *output, mc_error *err);
/* True when a gnuplot binary is on PATH (or $MPICAST_GNUPLOT). */
int mc_gnuplot_available(void);
/* Writes s as a gnuplot single-quoted string ('' stands for a quote). */
void mc_gnuplot_quoted(FILE *f, const char *s);

/* ---------------------------------------------------------------- report */

typedef struct mc_report_opts {
    const char *const *inputs;  /* trace directories; predict, scaling or sweep JSON files */
    int ninputs;
    const char *platform;       /* platform file for predictions (NULL: built-in) */
    const char *const *sets;    /* platform overrides KEY=VALUE */
    int nsets;
    double window_start, window_end; /* timeline window in seconds; end <= start: whole run */
    int no_predict;             /* do not run the simulator on trace inputs */
    const char *plots_dir;      /* also write every plot there as PNG and SVG (NULL: no) */
} mc_report_opts;

/* Writes one self-contained HTML page (inline CSS and SVG, no script
 * needed, no network access) for the inputs. */
mc_err mc_report_html(const mc_report_opts *o, FILE *out, mc_progress *prog, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
