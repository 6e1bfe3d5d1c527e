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
} mcb_point;

/* The LogGP parameters written to [network]. */
typedef struct mcb_loggp {
    double L, o, g, G;   /* s, s, s, s/B */
    double eager_limit;  /* B: largest size still eager */
    int eager_found;     /* 0: no switch seen up to the largest size */
    double max_rel_err;  /* largest |fit - T1| / T1 over the fitted region */
    int nfit;            /* points in the fitted (eager) region */
} mcb_loggp;

/* One-way time of a point: half the round trip (send + recv). */
double mcb_one_way(const mcb_point *p);

/* Median of v[0..n-1] (reorders v); 0 for n == 0. */
double mcb_median(double *v, size_t n);

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
