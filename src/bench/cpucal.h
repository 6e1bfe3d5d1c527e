/* mpicast-bench --cpu: calibration of the processor model's [cpu] keys
 * (docs/bench.md "Processor model"; docs/platform.md "The processor
 * model"). No MPI: rank 0 runs it while the others sleep. */
#ifndef MPICAST_BENCH_CPUCAL_H
#define MPICAST_BENCH_CPUCAL_H

#include <stdio.h>

/* One cache level of the model: l1i, l1d, l2, l3 in this order. */
typedef struct mcb_cache {
    double size, line; /* B; size 0: the level was not found */
    int assoc;         /* ways; 0: not given (fully associative) */
    double latency;    /* s, measured; 0 until then */
} mcb_cache;

typedef struct mcb_cpu {
    mcb_cache level[4];
    double frequency;     /* Hz */
    int frequency_source; /* 0 cpufreq, 1 /proc/cpuinfo, 2 dependent adds */
    double mem_latency;   /* s */
    double mem_bandwidth; /* B/s */
} mcb_cpu;

/* Reads the cache levels of cpu0 from sysfs: root is normally
 * "/sys/devices/system/cpu/cpu0/cache" (tests give a fake tree). Levels
 * not found keep size 0. Returns how many levels were found. */
int mcb_cache_sysfs(const char *root, mcb_cache level[4]);
/* Load-to-use latency (s) of a dependent pointer chase over a random cyclic
 * permutation of the lines of a `bytes` working set (best of `reps`). */
double mcb_chase_latency(size_t bytes, size_t line, long steps, int reps);
/* Clock frequency (Hz): cpufreq's cpuinfo_max_freq under cpu_root
 * ("/sys/devices/system/cpu/cpu0"), else "cpu MHz" of cpuinfo (a path),
 * else measured as dependent integer adds per second (one per cycle on
 * current cores). *source as mcb_cpu.frequency_source. */
double mcb_frequency(const char *cpu_root, const char *cpuinfo, int *source);
/* Measures everything of *c (caches from sysfs first). */
void mcb_cpu_calibrate(mcb_cpu *c);
/* Misses one core keeps in flight while it streams (cpu.mlp), by Little's
 * law: memory latency x memory bandwidth / the line of the last cache
 * level present (64 B without one); at least 1. */
double mcb_cpu_mlp(const mcb_cpu *c);
/* Writes the [cpu] model keys of c as INI lines with comments. */
void mcb_cpu_write(const mcb_cpu *c, FILE *f);

#endif
