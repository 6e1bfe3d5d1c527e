/* mpicast-bench --cpu (cpucal.h): caches from sysfs, latencies by pointer
 * chasing, frequency, stream bandwidth. */
#include "cpucal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kernels.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The first line of DIR/NAME, trimmed, into buf; 0 on success. */
static int read_word(const char *dir, const char *name, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\r\n")] = 0;
    return 0;
}

/* "32K", "1024K", "32M", "65536": bytes, or -1. */
static double parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    if (*end == 'K')
        v *= 1024, end++;
    else if (*end == 'M')
        v *= 1024 * 1024, end++;
    else if (*end == 'G')
        v *= 1024.0 * 1024 * 1024, end++;
    return *end ? -1 : v;
}

/* Which model level an index directory describes, or -1 (L4, TLBs...). */
static int model_level(const char *level, const char *type)
{
    if (strcmp(level, "1") == 0)
        return strcmp(type, "Instruction") == 0 ? 0 : strcmp(type, "Data") == 0 ? 1 : -1;
    if (strcmp(level, "2") == 0 && strcmp(type, "Instruction") != 0)
        return 2;
    if (strcmp(level, "3") == 0 && strcmp(type, "Instruction") != 0)
        return 3;
    return -1;
}

int mcb_cache_sysfs(const char *root, mcb_cache level[4])
{
    memset(level, 0, 4 * sizeof *level);
    int found = 0;
    for (int i = 0; i < 16; i++) {
        char dir[512], lv[32], type[32], size[32], line[32], ways[32];
        snprintf(dir, sizeof dir, "%s/index%d", root, i);
        if (read_word(dir, "level", lv, sizeof lv) || read_word(dir, "type", type, sizeof type) ||
            read_word(dir, "size", size, sizeof size))
            continue;
        int l = model_level(lv, type);
        double sz = parse_size(size);
        if (l < 0 || sz <= 0 || level[l].size > 0)
            continue;
        level[l].size = sz;
        level[l].line = 64;
        if (!read_word(dir, "coherency_line_size", line, sizeof line) && atof(line) >= 1)
            level[l].line = atof(line);
        if (!read_word(dir, "ways_of_associativity", ways, sizeof ways) && atoi(ways) > 0)
            level[l].assoc = atoi(ways);
        found++;
    }
    return found;
}

/* A random cyclic permutation of the lines: each line holds the address of
 * the next one, so every load depends on the one before. */
static void **make_chain(size_t bytes, size_t line, size_t *nlines)
{
    size_t n = bytes / line;
    if (n < 2)
        n = 2;
    /* huge pages where the kernel gives them: the chase should time the
     * caches, not page walks (a random walk over 4 KiB pages misses the TLB
     * at every step once the set exceeds its reach) */
    const size_t huge = (size_t)2 << 20;
    size_t len = ((n * line + huge - 1) / huge) * huge;
    char *mem = aligned_alloc(huge, len);
    if (mem)
        madvise(mem, len, MADV_HUGEPAGE);
    size_t *order = malloc(n * sizeof *order);
    if (!mem || !order) {
        free(mem);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates, xorshift */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = (size_t)(x % (i + 1));
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(mem + order[i] * line) = mem + order[(i + 1) % n] * line;
    free(order);
    *nlines = n;
    return (void **)mem;
}

double mcb_chase_latency(size_t bytes, size_t line, long steps, int reps)
{
    size_t n;
    void **start = make_chain(bytes, line, &n);
    if (!start)
        return NAN;
    void *volatile sink;
    void **p = start;
    for (size_t i = 0; i < 2 * n; i++) /* warm: the working set in its level */
        p = (void **)*p;
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (long i = 0; i < steps; i++)
            p = (void **)*p;
        double t = (now() - t0) / (double)steps;
        if (t < best)
            best = t;
    }
    sink = p;
    (void)sink;
    free(start);
    return best;
}

/* Dependent integer adds per second: one per cycle on current x86 and Arm
 * cores, so the clock when nothing else tells it. */
static double measure_adds(void)
{
    volatile uint64_t seed = 1;
    double best = 0;
    for (int r = 0; r < 5; r++) {
        uint64_t x = seed;
        const long n = 100000000L;
        double t0 = now();
        for (long i = 0; i < n; i++) {
            x += 1;
            __asm__ volatile("" : "+r"(x)); /* no folding: one dependent add per step */
        }
        double rate = (double)n / (now() - t0);
        seed = x;
        if (rate > best)
            best = rate;
    }
    return best;
}

double mcb_frequency(const char *cpu_root, const char *cpuinfo, int *source)
{
    char w[64];
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cpufreq", cpu_root);
    if (!read_word(dir, "cpuinfo_max_freq", w, sizeof w) && atof(w) > 0) {
        *source = 0;
        return atof(w) * 1e3; /* kHz */
    }
    FILE *f = fopen(cpuinfo, "r");
    char line[256];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':')) {
            mhz = atof(strchr(line, ':') + 1);
            break;
        }
    if (f)
        fclose(f);
    if (mhz > 0) {
        *source = 1;
        return mhz * 1e6;
    }
    *source = 2;
    return measure_adds();
}

void mcb_cpu_calibrate(mcb_cpu *c)
{
    memset(c, 0, sizeof *c);
    mcb_cache_sysfs("/sys/devices/system/cpu/cpu0/cache", c->level);
    c->frequency = mcb_frequency("/sys/devices/system/cpu/cpu0", "/proc/cpuinfo",
                                 &c->frequency_source);
    double largest = 0;
    /* each data level over half its size: it fits there and not above
     * (the instruction cache is timed as the data L1: loads cannot run
     * from it) */
    for (int l = 1; l < 4; l++) {
        mcb_cache *k = &c->level[l];
        if (k->size <= 0)
            continue;
        k->latency = mcb_chase_latency((size_t)(k->size / 2), (size_t)k->line, 4000000L, 3);
        largest = fmax(largest, k->size);
    }
    if (c->level[0].size > 0)
        c->level[0].latency = c->level[1].latency;
    size_t mem = (size_t)fmax(8 * largest, 64.0 * 1024 * 1024);
    c->mem_latency = mcb_chase_latency(mem, 64, 2000000L, 3);
    c->mem_bandwidth = mcb_triad_rate((size_t)4 << 20, 5);
}

double mcb_cpu_mlp(const mcb_cpu *c)
{
    double line = 64;
    for (int l = 1; l < 4; l++)
        if (c->level[l].size > 0 && c->level[l].line > 0)
            line = c->level[l].line;
    double m = c->mem_latency * c->mem_bandwidth / line;
    return m > 1 ? m : 1;
}

static void write_level(FILE *f, const char *name, const mcb_cache *k)
{
    if (k->size <= 0) {
        fprintf(f, "# %s: not found in sysfs\n%s.size = 0\n", name, name);
        return;
    }
    fprintf(f, "%s.size = %.0fB\n%s.line = %.0fB\n%s.assoc = %d\n%s.latency = %.4gns\n", name,
            k->size, name, k->line, name, k->assoc, name, k->latency * 1e9);
}

void mcb_cpu_write(const mcb_cpu *c, FILE *f)
{
    static const char *const names[4] = {"l1i", "l1d", "l2", "l3"};
    static const char *const fsrc[3] = {"cpufreq cpuinfo_max_freq", "/proc/cpuinfo cpu MHz",
                                        "measured: dependent adds per second"};
    fprintf(f, "# processor model (--cpu): caches from sysfs (cpu0), latencies of a\n"
               "# pointer chase over a random permutation of half of each level (its\n"
               "# load-to-use time; l1i takes l1d's), memory the same over 8 x the largest\n"
               "# cache, bandwidth the STREAM triad of one core. cpi is not measured here:\n"
               "# fit it on traced blocks with 'mpicast blocks TRACE --profile FILE --fit-cpi'\n");
    fprintf(f, "# frequency from %s\nfrequency = %.6gHz\n", fsrc[c->frequency_source],
            c->frequency);
    for (int l = 0; l < 4; l++)
        write_level(f, names[l], &c->level[l]);
    fprintf(f, "mem.latency = %.4gns\nmem.bandwidth = %.4gB/s\n", c->mem_latency * 1e9,
            c->mem_bandwidth);
    /* Streams are prefetched: a core that moves mem.bandwidth with misses of
     * mem.latency each has this many in flight; mlp = 1 (no overlap) made
     * the examples' streaming blocks 3-30x too slow (docs/compute-data.md). */
    fprintf(f, "# misses in flight while streaming (Little's law: mem.latency x "
               "mem.bandwidth / line)\nmlp = %.4g\n", mcb_cpu_mlp(c));
}
