/* mpicast tracer — the wall clock of the trace: CLOCK_MONOTONIC nanoseconds,
 * read through the time-stamp counter where that is safe.
 *
 * clock_gettime(CLOCK_MONOTONIC) costs ~30 ns through the vDSO on the
 * reference VM and the tracer reads it twice per MPI call; rdtsc costs about
 * half. With an invariant TSC (cpuinfo flags constant_tsc and nonstop_tsc,
 * or CPUID's invariant-TSC bit, and the kernel itself using the tsc
 * clocksource) the tracer maps TSC ticks to CLOCK_MONOTONIC nanoseconds
 * with an affine function:
 *
 *   ns(tsc) = base_ns + (tsc - base_tsc) * mult / 2^32
 *
 * calibrated over MPI_Init (at least MCT_CLOCK_CALIBRATE_NS; the rank sleeps
 * for the rest if Init was quicker) and re-anchored against clock_gettime
 * every MCT_CLOCK_ANCHOR_NS from the wrappers' slow path. A re-anchor keeps
 * the function continuous and slews the rate so that the offset measured
 * at the anchor is gone by the next one (bounded to 1000 ppm): the clock
 * never steps back, and stays within a few microseconds of CLOCK_MONOTONIC
 * (the test tests/test_trace_clock.c checks that). An offset above
 * MCT_CLOCK_GIVEUP_NS (TSC not what the flags promise) switches the rank to
 * clock_gettime for the rest of the run. MPICAST_CLOCK=monotonic forces
 * clock_gettime from the start. Times therefore stay CLOCK_MONOTONIC ns on
 * every rank, and the epoch (taken after MPI_Init's barrier) is common to
 * the ranks of a node as before; meta.json's "timer" says which source was
 * used (mct_clock_name).
 *
 * The parameters are read under a sequence lock, so a thread reading the
 * clock while another re-anchors it (MPI_THREAD_MULTIPLE) retries instead
 * of mixing old and new values; re-anchoring itself is serialised by the
 * caller (mct_lock). Nothing here calls MPI, allocates or prints: the unit
 * test links this file alone. Signal handlers use clock_gettime directly.
 */
#ifndef MPICAST_TRACE_CLOCK_H
#define MPICAST_TRACE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) /* (the arithmetic needs __int128) */
#include <x86intrin.h>
#define MCT_HAVE_TSC 1
#else
#define MCT_HAVE_TSC 0
#endif

#define MCT_CLOCK_CALIBRATE_NS 20000000   /* 20 ms */
#define MCT_CLOCK_ANCHOR_NS 100000000     /* 100 ms */
#define MCT_CLOCK_GIVEUP_NS 1000000       /* 1 ms */

enum mct_clock_source { MCT_CLOCK_MONOTONIC = 0, MCT_CLOCK_TSC = 1 };

typedef struct mct_clock {
    _Atomic int tsc;           /* 1 while the TSC path is on */
    atomic_uint seq;           /* sequence lock: odd while re-anchoring */
    _Atomic uint64_t base_tsc; /* the mapping, see above; plus a slew: */
    _Atomic int64_t base_ns;
    _Atomic int64_t mult;      /* ns per tick, 32.32 fixed point */
    _Atomic int64_t corr;      /* added to mult for the first slew_ticks */
    _Atomic int64_t slew_ticks;
    _Atomic int64_t next_anchor; /* absolute ns of the next re-anchor */
} mct_clock;
extern mct_clock mct_clk;

/* ns(base_tsc + d) with the parameters as read; the slew applies to the
 * first slew_ticks ticks only, so a long gap between anchors does not
 * carry a correction meant for one interval. */
#if MCT_HAVE_TSC
static inline int64_t mct_clock_eval(int64_t d, int64_t base_ns, int64_t mult, int64_t corr,
                                     int64_t slew)
{
    int64_t ds = d < slew ? d : slew;
    return base_ns + (int64_t)(((__int128)d * mult) >> 32) +
           (int64_t)(((__int128)ds * corr) >> 32);
}
#endif

static inline int64_t mct_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t mct_now_slow(void);

/* The trace clock: CLOCK_MONOTONIC ns, absolute. */
static inline __attribute__((always_inline)) int64_t mct_now(void)
{
#if MCT_HAVE_TSC
    if (atomic_load_explicit(&mct_clk.tsc, memory_order_relaxed)) {
        unsigned s = atomic_load_explicit(&mct_clk.seq, memory_order_acquire);
        uint64_t t = __rdtsc();
        int64_t ns = mct_clock_eval(
            (int64_t)(t - atomic_load_explicit(&mct_clk.base_tsc, memory_order_relaxed)),
            atomic_load_explicit(&mct_clk.base_ns, memory_order_relaxed),
            atomic_load_explicit(&mct_clk.mult, memory_order_relaxed),
            atomic_load_explicit(&mct_clk.corr, memory_order_relaxed),
            atomic_load_explicit(&mct_clk.slew_ticks, memory_order_relaxed));
        atomic_thread_fence(memory_order_acquire);
        if (__builtin_expect(
                !(s & 1) && atomic_load_explicit(&mct_clk.seq, memory_order_relaxed) == s, 1))
            return ns;
        return mct_now_slow();
    }
#endif
    return mct_mono_ns();
}

/* MPI_Init's entry: reads CLOCK_MONOTONIC (returned) and the TSC with it,
 * the start of the calibration interval. */
int64_t mct_clock_start(void);
/* After MPI_Init (before its barrier, so the ranks' epochs stay aligned):
 * decides the source (MPICAST_CLOCK, CPU flags, kernel clocksource),
 * sleeps until the calibration interval is MCT_CLOCK_CALIBRATE_NS long if
 * Init was shorter, and switches mct_now to the TSC. Returns the source;
 * *bad_env is set when MPICAST_CLOCK held something unknown (ignored). */
int mct_clock_calibrate(int *bad_env);
/* Re-anchors now (the TSC source only). The caller serialises it
 * (mct_lock); mct_clock_due(now) says when: `now` (absolute ns, just
 * read) is past the next anchor time. */
void mct_clock_anchor(void);
static inline int mct_clock_due(int64_t now)
{
    return __builtin_expect(
        now >= atomic_load_explicit(&mct_clk.next_anchor, memory_order_relaxed), 0);
}
/* The clock's current offset from CLOCK_MONOTONIC (ns, TSC source; 0
 * otherwise), for the check at MPI_Finalize. */
int64_t mct_clock_offset(void);
/* Switches back to clock_gettime (MPICAST_CLOCK=monotonic, tests). */
void mct_clock_reset(void);
/* meta.json's "timer": "CLOCK_MONOTONIC", or "CLOCK_MONOTONIC+TSC" when
 * the times were interpolated with the TSC (for all or, after giving it up,
 * part of the run). */
const char *mct_clock_name(void);

/* Internals, exposed for the unit test. */
/* 1 when the CPU flags line at `cpuinfo` has constant_tsc and nonstop_tsc
 * (or, when it cannot be read, CPUID says invariant TSC) and the kernel's
 * clocksource named in `clocksource` (if readable) is "tsc". */
int mct_clock_tsc_usable(const char *cpuinfo, const char *clocksource);
/* Sets the mapping directly (tests: a deliberately wrong rate). */
void mct_clock_set(uint64_t base_tsc, int64_t base_ns, int64_t mult);
/* Ticks of the TSC (0 where there is none). */
uint64_t mct_clock_ticks(void);
/* Number of re-anchors since calibration, and whether the TSC was given up. */
extern int mct_clock_anchors, mct_clock_gave_up;

#endif
