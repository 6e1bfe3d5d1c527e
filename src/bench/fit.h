/* mpicast-bench, internal: what is computed from the measurements, kept
 * free of MPI so that tests/test_bench_fit.c can feed it synthetic curves.
 * Method and its sources: docs/bench.md. */
#ifndef MPICAST_BENCH_FIT_H
#define MPICAST_BENCH_FIT_H

#include <stddef.h>

/* One ping-pong size: medians over the repetitions, in seconds. */
typedef struct mcb_point {
    double size; /* B */
    double send; /* MPI_Send call on rank 0 */
    double recv; /* MPI_Recv call on rank 0: T_comm(size) */
    double spread; /* of the one-way times of the repetitions: mcb_spread */
} mcb_point;

/* The LogGP parameters written to [network]. */
typedef struct mcb_loggp {
    double L, o, g, G;   /* s, s, s, s/B */
    double eager_limit;  /* B: largest size still eager */
    int eager_found;     /* 0: no switch seen up to the largest size */
    double max_rel_err;  /* largest |fit - T1| / T1 over the fitted region */
    int nfit;            /* points in the fitted (eager) region */
    double o_measured;   /* (o_send + o_recv) / 2 before the cap at a / 2 */
    int o_capped;        /* o was lowered to a / 2 (the overheads exceed the latency) */
    int G_clamped;       /* the slope came out negative: G set to 0 (infinite bandwidth) */
} mcb_loggp;

/* One-way time of a point: half the round trip (send + recv). */
double mcb_one_way(const mcb_point *p);

/* Median of v[0..n-1] (reorders v); 0 for n == 0. */
double mcb_median(double *v, size_t n);

/* Relative spread of repetitions: the interquartile range over the median
 * (reorders v); 0 for n < 2 or a median of 0. Interference adds time to
 * some repetitions only, so it shows here long before it moves the median. */
double mcb_spread(double *v, size_t n);

/* Limits beyond which a measurement is not trusted (docs/bench.md): a
 * size's spread, the fit's largest relative error, the gap's spread. */
#define MCB_SPREAD_MAX 0.5
#define MCB_FIT_ERR_MAX 0.5

/* A point measured again: the better of the two. An undisturbed point
 * (spread <= MCB_SPREAD_MAX) beats a disturbed one; otherwise the smaller
 * one-way time wins, since interference only ever adds time. */
int mcb_better(const mcb_point *a, const mcb_point *b);

/* Verdict on a measured curve and its fit: 0 when it can be trusted, else
 * the number of reasons, described in `why` ("; "-separated, for one line
 * of stderr and a comment of the file). The reasons: sizes whose spread
 * exceeds MCB_SPREAD_MAX, a fit error above MCB_FIT_ERR_MAX, a gap whose
 * spread exceeds MCB_SPREAD_MAX, a slope clamped to 0. */
int mcb_assess(const mcb_point *pts, int n, const mcb_loggp *fit, double gap_spread,
               char *why, size_t len);

/* The break in the curve (the eager/rendezvous switch): the index i of the
 * first point at which the one-way time — the lowest one of all sizes from
 * i on — exceeds linear growth from the point before by `min_excess`:
 * (T1[i] / T1[i-1]) / (size[i] / size[i-1]) >= min_excess (a + b s with a,
 * b >= 0 never grows faster than the size); n if there is none. Points
 * sorted by size. */
int mcb_find_break(const mcb_point *pts, int n, double min_excess);
/* The excess that counts as a break (a jump of 30 % beyond linear). */
#define MCB_BREAK_EXCESS 1.3

/* Fits LogGP to the ping-pong curve (docs/bench.md): eager limit = the
 * size before mcb_find_break; G by least squares of T1(s) = a + G s over the
 * eager region; o = (o_send + o_recv) / 2 from the separately measured
 * overheads; L = a - 2o (at least 0); g = gap. */
void mcb_fit_loggp(const mcb_point *pts, int n, double o_send, double o_recv, double gap,
                   mcb_loggp *out);

/* Text forms that mc_parse_value reads back: "1.234us", "64KiB" or "1000",
 * "3.21GB/s". */
void mcb_fmt_time(char *buf, size_t len, double s);
void mcb_fmt_size(char *buf, size_t len, double bytes);
void mcb_fmt_bandwidth(char *buf, size_t len, double bytes_per_s);

#endif
