/* mpicast tracer — TSC-interpolated CLOCK_MONOTONIC (see clock.h). */
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if MCT_HAVE_TSC
#include <cpuid.h>
#endif

mct_clock mct_clk = {.next_anchor = INT64_MAX};
int mct_clock_anchors, mct_clock_gave_up;

/* The start of the calibration interval (and of the long baseline every
 * re-anchor measures the rate over). */
static uint64_t start_tsc;
static int64_t start_ns;
static int started;
static int used; /* the TSC timed this run (for the "timer" name) */

#if MCT_HAVE_TSC
static uint64_t ticks_ordered(void)
{
    _mm_lfence(); /* not before the instructions ahead of it */
    return __rdtsc();
}
#endif

uint64_t mct_clock_ticks(void)
{
#if MCT_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

/* One (TSC, CLOCK_MONOTONIC) pair: clock_gettime bracketed by two TSC
 * reads, the narrowest of a few tries (a preempted try is wide), the TSC
 * taken as the middle of the bracket. */
static void read_pair(uint64_t *tsc, int64_t *ns)
{
#if MCT_HAVE_TSC
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = ticks_ordered();
        int64_t m = mct_mono_ns();
        uint64_t b = ticks_ordered();
        if (b >= a && b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = m;
        }
    }
    if (best == UINT64_MAX) { /* the TSC went backwards every time */
        *tsc = __rdtsc();
        *ns = mct_mono_ns();
    }
#else
    *tsc = 0;
    *ns = mct_mono_ns();
#endif
}

int64_t mct_clock_start(void)
{
    read_pair(&start_tsc, &start_ns);
    started = 1;
    return start_ns;
}

/* Whether `line` (a cpuinfo "flags" line) holds the word `flag`. */
static int has_word(const char *line, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
        if ((p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
            (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

/* 1/0 from the first "flags" line of a cpuinfo file, -1 if unreadable. */
static int cpuinfo_invariant(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        found = has_word(line, "constant_tsc") && has_word(line, "nonstop_tsc");
        break;
    }
    fclose(f);
    return found;
}

static int cpuid_invariant(void)
{
#if MCT_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1; /* EDX bit 8: invariant TSC */
#else
    return 0;
#endif
}

int mct_clock_tsc_usable(const char *cpuinfo, const char *clocksource)
{
    if (!MCT_HAVE_TSC)
        return 0;
    int inv = cpuinfo_invariant(cpuinfo);
    if (inv < 0)
        inv = cpuid_invariant();
    if (!inv)
        return 0;
    /* A kernel that does not trust its TSC (or prefers a paravirtual clock
     * that survives migration) has chosen another clocksource: follow it. */
    FILE *f = fopen(clocksource, "r");
    if (!f)
        return 1;
    char name[64] = {0};
    int ok = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    return ok && strncmp(name, "tsc", 3) == 0 && (name[3] == '\n' || name[3] == 0);
}

/* Writes the mapping under the sequence lock (single writer: the caller
 * serialises). */
static void publish(uint64_t base_tsc, int64_t base_ns, int64_t mult, int64_t corr,
                    int64_t slew)
{
    unsigned s = atomic_load_explicit(&mct_clk.seq, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&mct_clk.base_tsc, base_tsc, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.base_ns, base_ns, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.mult, mult, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.corr, corr, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.slew_ticks, slew, memory_order_relaxed);
    atomic_store_explicit(&mct_clk.seq, s + 2, memory_order_release);
}

void mct_clock_set(uint64_t base_tsc, int64_t base_ns, int64_t mult)
{
    publish(base_tsc, base_ns, mult, 0, 0);
    atomic_store(&mct_clk.tsc, MCT_HAVE_TSC ? 1 : 0);
    used = MCT_HAVE_TSC;
}

#if MCT_HAVE_TSC
/* ns per tick in 32.32 over [t0, t1]; 0 if implausible (the TSC must tick
 * between 50 MHz and 20 GHz). */
static int64_t rate(uint64_t t0, int64_t n0, uint64_t t1, int64_t n1)
{
    if (t1 <= t0 || n1 <= n0)
        return 0;
    __int128 m = ((__int128)(n1 - n0) << 32) / (__int128)(t1 - t0);
    if (m < ((__int128)1 << 32) / 20 || m > ((__int128)20 << 32))
        return 0;
    return (int64_t)m;
}

/* The mapping at tsc t, as the readers compute it (the writer's view). */
static int64_t eval_at(uint64_t t)
{
    return mct_clock_eval((int64_t)(t - atomic_load(&mct_clk.base_tsc)),
                          atomic_load(&mct_clk.base_ns), atomic_load(&mct_clk.mult),
                          atomic_load(&mct_clk.corr), atomic_load(&mct_clk.slew_ticks));
}
#endif

int mct_clock_calibrate(int *bad_env)
{
    *bad_env = 0;
    mct_clock_reset();
    const char *env = getenv("MPICAST_CLOCK");
    if (env && strcmp(env, "monotonic") == 0)
        return MCT_CLOCK_MONOTONIC;
    if (env && *env && strcmp(env, "auto") != 0 && strcmp(env, "tsc") != 0)
        *bad_env = 1;
#if MCT_HAVE_TSC
    if (!mct_clock_tsc_usable("/proc/cpuinfo",
                              "/sys/devices/system/clocksource/clocksource0/current_clocksource"))
        return MCT_CLOCK_MONOTONIC;
    if (!started)
        mct_clock_start();
    uint64_t t1;
    int64_t n1;
    read_pair(&t1, &n1);
    int64_t left = MCT_CLOCK_CALIBRATE_NS - (n1 - start_ns);
    if (left > 0) {
        struct timespec ts = {left / 1000000000, left % 1000000000};
        while (nanosleep(&ts, &ts) != 0)
            ;
        read_pair(&t1, &n1);
    }
    int64_t m = rate(start_tsc, start_ns, t1, n1);
    if (m == 0)
        return MCT_CLOCK_MONOTONIC;
    publish(t1, n1, m, 0, 0);
    atomic_store(&mct_clk.next_anchor, n1 + MCT_CLOCK_ANCHOR_NS);
    atomic_store(&mct_clk.tsc, 1);
    used = 1;
    return MCT_CLOCK_TSC;
#else
    return MCT_CLOCK_MONOTONIC;
#endif
}

void mct_clock_anchor(void)
{
#if MCT_HAVE_TSC
    if (!atomic_load(&mct_clk.tsc))
        return;
    uint64_t t;
    int64_t n;
    read_pair(&t, &n);
    int64_t cur = eval_at(t);
    int64_t e = n - cur; /* > 0: the TSC clock is behind */
    int64_t m = started ? rate(start_tsc, start_ns, t, n) : 0;
    if (m == 0 || e > MCT_CLOCK_GIVEUP_NS || e < -MCT_CLOCK_GIVEUP_NS) {
        /* Not the TSC the flags promised (or a suspended VM): give it up. */
        atomic_store(&mct_clk.tsc, 0);
        atomic_store(&mct_clk.next_anchor, INT64_MAX);
        mct_clock_gave_up = 1;
        return;
    }
    /* Slew the offset out over one anchor interval (S ticks = interval /
     * rate): corr = e * 2^32 / S = e * m / interval, at most 1000 ppm. */
    int64_t corr = (int64_t)((__int128)e * m / MCT_CLOCK_ANCHOR_NS);
    int64_t bound = m / 1000;
    if (corr > bound)
        corr = bound;
    if (corr < -bound)
        corr = -bound;
    int64_t slew = (int64_t)(((__int128)MCT_CLOCK_ANCHOR_NS << 32) / m);
    publish(t, cur, m, corr, slew);
    atomic_store(&mct_clk.next_anchor, n + MCT_CLOCK_ANCHOR_NS);
    mct_clock_anchors++;
#endif
}

int64_t mct_clock_offset(void)
{
#if MCT_HAVE_TSC
    if (!atomic_load(&mct_clk.tsc))
        return 0;
    uint64_t t;
    int64_t n;
    read_pair(&t, &n);
    return eval_at(t) - n;
#else
    return 0;
#endif
}

int64_t mct_now_slow(void)
{
#if MCT_HAVE_TSC
    /* A re-anchor was in progress: it is short, try again a few times. */
    for (int i = 0; i < 64 && atomic_load_explicit(&mct_clk.tsc, memory_order_relaxed); i++) {
        unsigned s = atomic_load_explicit(&mct_clk.seq, memory_order_acquire);
        if (s & 1)
            continue;
        int64_t ns = eval_at(__rdtsc());
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&mct_clk.seq, memory_order_relaxed) == s)
            return ns;
    }
#endif
    return mct_mono_ns();
}

void mct_clock_reset(void)
{
    atomic_store(&mct_clk.tsc, 0);
    atomic_store(&mct_clk.next_anchor, INT64_MAX);
    used = 0;
    mct_clock_anchors = 0;
    mct_clock_gave_up = 0;
}

const char *mct_clock_name(void)
{
    return used ? "CLOCK_MONOTONIC+TSC" : "CLOCK_MONOTONIC";
}
