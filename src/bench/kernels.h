/* mpicast-bench --compute: reference kernels for the CPU speed calibration
 * (docs/bench.md). No MPI. Each returns the best rate over `reps` runs. */
#ifndef MPICAST_BENCH_KERNELS_H
#define MPICAST_BENCH_KERNELS_H

#include <stddef.h>

/* Memory-bound: STREAM triad a = b + s c over n doubles; B/s (24 B/element). */
double mcb_triad_rate(size_t n, int reps);
/* Compute-bound: `updates` multiply-adds on 8 independent chains; flop/s. */
double mcb_flop_rate(long updates, int reps);

#endif
