/* mpicast tracer — the per-process context: state, clocks, the writer,
 * frames, Init/Finalize work, Pcontrol, signal and exit paths.
 *
 * A tracer failure (unwritable directory, full disk, no memory) warns once
 * on stderr and stops recording; it never changes what the program does.
 *
 * Threads (docs/tracer-safety.md): under MPI_THREAD_MULTIPLE the shared
 * tables and the writer are taken under one mutex, and events of all threads
 * go to the rank's one stream in the order their calls returned; below
 * MULTIPLE only one thread calls MPI and the mutex is skipped (mct_lock).
 * The writer is also guarded by an atomic flag, because a signal handler on
 * any thread may want it: the handler flushes only when it can take that
 * flag, never while its own thread was inside the writer. */
#include "tracer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mpicast/outfile.h"

#ifdef MCT_HAVE_VALGRIND
#include <valgrind/valgrind.h>
#endif

volatile int mct_state = MCT_OFF;
int mct_world_rank = 0, mct_world_size = 1;
int mct_cpu_mode = 0;
int64_t mct_epoch = 0;
MCT_TLS int mct_inside = 0;

static mc_writer *writer;
static char trace_dir[4096];
int mct_threaded;                 /* MPI_THREAD_MULTIPLE: take the lock */
/* Threads that made a recorded MPI call (counted under MPI_THREAD_MULTIPLE
 * only): more than one makes the trace not replayable (meta "threads"). */
static atomic_int mpi_threads = 1;
static MCT_TLS int thread_counted;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int writer_busy;    /* someone (any thread) uses the writer */
static MCT_TLS volatile sig_atomic_t busy_here; /* ... and it is this thread */
static MCT_TLS int64_t last_cpu;  /* this thread's CPU time at its previous exit */
static atomic_int warned;
/* Incremental flushing: a chunk is also written once the oldest buffered
 * event is this old, so a SIGKILL loses at most that much of the run. */
static int64_t flush_every = 1000000000; /* ns; MPICAST_FLUSH_INTERVAL */
static int64_t flush_due;                /* t_end after which to flush */
/* Failed polls' fast path (tracer.h, mct_poll_run; decide_poll_hot). */
enum { HOT_OFF, HOT_EXACT, HOT_SAMPLED };
#define HOT_KMAX 16                      /* most polls per timed one */
static int poll_hot;
static int64_t poll_gap;                 /* the writer's fold gap, ns */
static uint64_t hot_folds;               /* polls it folded (MPICAST_POLL_STATS) */
static uint64_t hot_split;               /* windows of a gap or more (MPICAST_POLL_STATS) */
static int64_t hot_split_ns;             /* and the bursts they gave */

/* ------------------------------------------------------------ CPU profiles */

/* Profile mode (MPICAST_PROFILE=1 under Valgrind lackey): markers in the
 * access stream through Valgrind's client request, which lackey's log
 * carries in program order (src/profile/analyse.c reads them). Outside
 * Valgrind, or without the header at build time, mct_profile stays 0. */
int mct_profile;

void mct_prof_mark(char what, long v)
{
#ifdef MCT_HAVE_VALGRIND
    VALGRIND_PRINTF("mpicast %c %ld\n", what, v);
#else
    (void)what;
    (void)v;
#endif
}

static int profile_wanted(void)
{
#ifdef MCT_HAVE_VALGRIND
    const char *p = getenv("MPICAST_PROFILE");
    return p && strcmp(p, "1") == 0 && RUNNING_ON_VALGRIND;
#else
    return 0;
#endif
}

/* ------------------------------------------------------------ clocks */

int64_t mct_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mct_lock_slow(void)
{
    pthread_mutex_lock(&lock);
}

void mct_unlock_slow(void)
{
    pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ per-thread buffers */

static MCT_TLS int64_t *vals_buf;
static MCT_TLS uint32_t vals_cap;
static MCT_TLS void *scratch_buf[MCT_NSCRATCH];
static MCT_TLS size_t scratch_cap[MCT_NSCRATCH];

int64_t *mct_vals_add(mct_frame *f, uint32_t n)
{
    uint32_t need = f->ev.nvals + n;
    if (need > vals_cap) {
        uint32_t cap = vals_cap ? vals_cap : 64;
        while (cap < need)
            cap *= 2;
        int64_t *p = realloc(vals_buf, cap * sizeof *p);
        if (!p) {
            mct_fail("out of memory");
            f->record = 0;
            return NULL;
        }
        vals_buf = p;
        vals_cap = cap;
    }
    f->ev.vals = vals_buf;
    int64_t *at = vals_buf + f->ev.nvals;
    f->ev.nvals = need;
    return at;
}

void *mct_scratch(int k, size_t bytes)
{
    if (bytes > scratch_cap[k]) {
        size_t cap = bytes < 1024 ? 1024 : bytes * 2;
        void *p = realloc(scratch_buf[k], cap);
        if (!p) {
            mct_fail("out of memory");
            return NULL;
        }
        scratch_buf[k] = p;
        scratch_cap[k] = cap;
    }
    return scratch_buf[k];
}

/* ------------------------------------------------------------ failures */

/* During MPI_Init failures are collected, not printed: the ranks then
 * agree (agree_on_writers) and the job gets one warning. */
static int in_init;
static char init_why[MC_ERROR_MSG_MAX];

void mct_fail(const char *what)
{
    if (in_init) {
        if (!init_why[0])
            snprintf(init_why, sizeof init_why, "%s", what);
        return;
    }
    if (atomic_exchange(&warned, 1) == 0)
        fprintf(stderr, "mpicast-trace: rank %d: %s; tracing disabled\n", mct_world_rank,
                what);
    if (mct_state == MCT_ON || mct_state == MCT_PAUSED)
        mct_state = MCT_FAILED;
}

/* mct_fail for a signal handler: write(2) only, no stdio, no formatting
 * library. */
static void fail_in_signal(void)
{
    if (mct_state == MCT_ON || mct_state == MCT_PAUSED)
        mct_state = MCT_FAILED;
    if (atomic_exchange(&warned, 1) != 0)
        return;
    char msg[96] = "mpicast-trace: rank ";
    size_t n = strlen(msg);
    char digits[12];
    int k = 0;
    unsigned r = (unsigned)mct_world_rank;
    do
        digits[k++] = (char)('0' + r % 10);
    while ((r /= 10) && k < (int)sizeof digits);
    while (k > 0)
        msg[n++] = digits[--k];
    const char *tail = ": cannot write the trace; tracing disabled\n";
    size_t t = strlen(tail);
    memcpy(msg + n, tail, t);
    ssize_t w = write(STDERR_FILENO, msg, n + t);
    (void)w;
}

/* ------------------------------------------------------------ frames */

static void frame_init(mct_frame *f, int op, void *ret)
{
    mc_event *e = &f->ev;
    mc_event_clear(e);
    e->op = op;
    /* "none" is MC_COMM_NULL only where a communicator could be created:
     * elsewhere the stored default (0) costs no bytes, where MC_COMM_NULL
     * cost a 10-byte varint in every event */
    if (mc_op_kind_of(op) == MC_KIND_M)
        e->newcomm = MC_COMM_NULL;
    f->ret = ret;
}

/* Re-anchors the TSC clock (clock.h), every ~100 ms of wrapper entries;
 * under the lock because another thread may be doing the same. */
static __attribute__((noinline)) void anchor_clock(void)
{
    mct_lock();
    if (mct_clock_due(mct_now()))
        mct_clock_anchor();
    mct_unlock();
}

static void disarm(void);

int mct_enter_slow(mct_frame *f, int op, void *ret)
{
    /* A run that ends inside an MPI_Pcontrol(0) pause still records its
     * Finalize: the end of the run is what elapsed-time figures use. */
    if (op == MC_OP_FINALIZE && mct_state == MCT_PAUSED)
        mct_state = MCT_ON;
    mct_inside = 1;
    if (mct_run.armed)
        disarm(); /* another call: the tables may change (mct_poll_run) */
    if (mct_threaded && !thread_counted) {
        thread_counted = 1;
        atomic_fetch_add(&mpi_threads, 1);
    }
    if (mct_profile)
        mct_prof_mark('E', 0);
    frame_init(f, op, ret);
    f->record = mct_state == MCT_ON;
    if (f->record && mct_cpu_mode)
        f->ev.cpu = mct_cpu_now() - last_cpu;
    int64_t now = mct_now();
    f->ev.t_start = now - mct_epoch;
    if (mct_clock_due(now))
        anchor_clock();
    return 1;
}

/* The writer flag: taken with an atomic exchange (uncontended unless a
 * signal handler or MPI_Abort on another thread is flushing). */
static void writer_take(void)
{
    while (atomic_exchange_explicit(&writer_busy, 1, memory_order_acquire))
        sched_yield();
    busy_here = 1;
}

static void writer_give(void)
{
    busy_here = 0;
    atomic_store_explicit(&writer_busy, 0, memory_order_release);
}

static void write_event(const mc_event *e)
{
    mc_error err; /* not zeroed: 1 KiB per event; filled only on failure */
    err.code = MC_OK;
    err.msg[0] = 0;
    mct_lock();
    writer_take();
    mc_err rc = MC_OK;
    if (writer) {
        rc = mc_writer_add(writer, e, &err);
        if (rc == MC_OK && e->t_end >= flush_due) {
            /* on disk before the call returns, not handed to the compressor
             * thread: a rank SIGKILLed later (an MPI launcher ending a run
             * whose other rank crashed) keeps what this flush wrote, and a
             * busy-polling MPI may leave that thread no core for a while */
            rc = mc_writer_flush(writer, &err);
            flush_due = e->t_end + flush_every;
        }
    }
    writer_give();
    mct_unlock();
    if (rc != MC_OK)
        mct_fail(err.msg);
}

void mct_leave(mct_frame *f)
{
    int32_t recorded = 0;
    if (f->record && mct_state == MCT_ON) {
        f->ev.site = mct_site_of_fast(f->ret);
        recorded = f->ev.site;
        write_event(&f->ev);
        if (poll_hot && mc_event_is_failed_poll(&f->ev))
            mct_hot_arm(f);
        if (mct_cpu_mode)
            last_cpu = mct_cpu_now();
    }
    if (mct_profile) /* site 0: an unrecorded call, the next burst is no block */
        mct_prof_mark('X', recorded);
    mct_inside = 0;
}

/* ------------------------------------------------------------ failed polls */

int mct_writer_holds_poll(int64_t t_end)
{
    return writer && mc_writer_holds_poll(writer, t_end);
}

/* The end of the run's untimed polls: at its pace from its last timed exit,
 * not past cap (a time read after them). */
static int64_t pending_end(int64_t cap)
{
    int64_t e = mct_run.t_last + mct_run.pending * mct_run.pace;
    e = e < cap ? e : cap;
    return e > mct_run.t_last ? e : mct_run.t_last;
}

/* Moves the untimed polls into the held record, which then ends at end. */
static void flush_pending(int64_t end)
{
    if (!mct_run.pending)
        return;
    writer_take();
    if (writer)
        (void)mc_writer_fold_polls(writer, (uint64_t)mct_run.pending, end - mct_epoch);
    writer_give();
    hot_folds += (uint64_t)mct_run.pending;
    mct_run.pending = 0;
    mct_run.t_last = end;
}

/* After a window of n polls folded up to t1: its pace, and the next window
 * about one fold gap long (one poll when every poll is timed). */
static void next_window(int64_t t1, int64_t n)
{
    int64_t pace = (t1 - mct_run.t_last) / n;
    mct_run.pace = pace > 0 ? pace : 1;
    int64_t k = poll_hot == HOT_SAMPLED ? poll_gap / mct_run.pace : 1;
    mct_run.left = (int)(k < 1 ? 1 : k > HOT_KMAX ? HOT_KMAX : k) - 1;
    mct_run.t_last = t1;
}

int mct_hot_extend(const mct_hot *h)
{
    if (h->t1 - mct_epoch >= flush_due || mct_clock_due(h->t0))
        return 0; /* the slow path flushes or anchors the clock */
    if (h->t0 - mct_run.t_last >= poll_gap)
        return 0; /* a gap may be inside: mct_hot_cold */
    int64_t n = mct_run.pending + 1;
    writer_take();
    int ok = writer && mc_writer_fold_polls(writer, (uint64_t)n, h->t1 - mct_epoch);
    writer_give();
    if (!ok)
        return 0;
    hot_folds += (uint64_t)n;
    mct_run.pending = 0;
    next_window(h->t1, n);
    return 1;
}

void mct_hot_cold(mct_hot *h, mct_frame *f, int op)
{
    int64_t end = pending_end(h->sampled ? h->t0 : h->t1);
    if (!h->sampled) { /* entered at the pace's estimate, not before the polls it follows */
        int64_t t0 = h->t1 - mct_run.pace;
        h->t0 = t0 > end ? t0 : end;
    }
    if (mct_run.pending && h->t0 - end >= poll_gap) {
        hot_split++;
        hot_split_ns += h->t0 - end;
    }
    flush_pending(end);
    mct_enter_slow(f, op, mct_run.ret); /* disarms; the handles stay */
    f->ev.t_start = h->t0 - mct_epoch;
    if (op != MC_OP_IPROBE)
        mct_cpl_pre(f, mct_run.n, mct_run.handles);
    f->ev.t_end = h->t1 - mct_epoch;
}

/* Another call ends the run: its untimed polls go into the held record. */
static void disarm(void)
{
    if (mct_run.pending)
        flush_pending(pending_end(mct_now()));
    mct_run.armed = 0;
}

/* ------------------------------------------------------------ flush paths */

/* MPI_Abort and exit: an ordinary context, so failures are reported with
 * the writer's message. Not while this thread is inside the writer. */
void mct_flush_now(void)
{
    if (busy_here || mct_state == MCT_OFF || mct_state == MCT_DONE)
        return;
    mc_error err = {0};
    if (mct_run.armed)
        disarm(); /* the run's untimed polls first */
    writer_take();
    mc_err rc = writer ? mc_writer_flush(writer, &err) : MC_OK;
    writer_give();
    if (rc != MC_OK)
        mct_fail(err.msg);
}

/* The signal path: async-signal-safe (the writer allocates nothing to
 * flush; errors are not formatted; waiting is nanosleep). If the signal
 * interrupted this thread inside the writer, its buffer may be half
 * updated: nothing is flushed and the chunks already written stand. If
 * another thread holds the writer, wait for it up to ~200 ms. */
/* The Finalize event while PMPI_Finalize runs: when one rank exits with a
 * non-zero status after Finalize, mpirun terminates the others, possibly
 * still inside or just after PMPI_Finalize — their event is then written by
 * the signal path, ending at the signal, instead of being lost. A copy, not
 * a pointer: a handler on another thread must not read a dead frame. */
static mc_event pending_finalize;
static volatile sig_atomic_t have_pending_finalize;

static void write_pending_finalize_in_signal(void)
{
    if (!have_pending_finalize || !writer)
        return;
    have_pending_finalize = 0;
    mc_event e = pending_finalize;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
    e.t_end = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - mct_epoch;
    if (e.t_end < e.t_start)
        e.t_end = e.t_start;
    (void)mc_writer_add(writer, &e, NULL);
}

static void flush_in_signal(void)
{
    if (mct_state == MCT_OFF || mct_state == MCT_DONE)
        return;
    if (busy_here) { /* but what the compressor thread was given is whole */
        if (writer)
            (void)mc_writer_wait_written(writer);
        return;
    }
    for (int i = 0; atomic_exchange(&writer_busy, 1); i++) {
        if (i == 200)
            return;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    busy_here = 1;
    write_pending_finalize_in_signal();
    mc_err rc = writer ? mc_writer_flush(writer, NULL) : MC_OK;
    busy_here = 0;
    atomic_store(&writer_busy, 0);
    if (rc != MC_OK)
        fail_in_signal();
}

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGBUS};
#define NSIG_FATAL (int)(sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[NSIG_FATAL];

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS;
}

/* Flush what we have, then hand the signal to the disposition that was in
 * place before us (the program's handler or MPI's, called directly with
 * the same arguments, or the default action): the program dies or handles
 * the signal exactly as it would without us. */
static void on_fatal_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    int i = 0;
    while (i < NSIG_FATAL && fatal_signals[i] != sig)
        i++;
    if (i == NSIG_FATAL)
        return;
    flush_in_signal();
    struct sigaction *old = &old_actions[i];
    errno = saved;
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_flags & SA_RESETHAND)
            signal(sig, SIG_DFL);
        old->sa_sigaction(sig, info, uctx);
        return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        if (old->sa_flags & SA_RESETHAND)
            signal(sig, SIG_DFL);
        old->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    /* A real fault re-executes the faulting instruction on return and
     * dies of it with the kernel's own siginfo; anything else is sent
     * again (blocked until we return). */
    if (is_fault(sig) && info && info->si_code > 0)
        return;
    raise(sig);
}

static void install_signal_handlers(void)
{
    for (int i = 0; i < NSIG_FATAL; i++) {
        if (sigaction(fatal_signals[i], NULL, &old_actions[i]) != 0)
            continue;
        /* An ignored signal stays ignored: we must not make it fatal. */
        if (!(old_actions[i].sa_flags & SA_SIGINFO) && old_actions[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | (old_actions[i].sa_flags & (SA_RESTART | SA_ONSTACK));
        /* The previous handler expects its own mask; a second fatal signal
         * must not interrupt the flush. */
        sa.sa_mask = old_actions[i].sa_mask;
        for (int k = 0; k < NSIG_FATAL; k++)
            sigaddset(&sa.sa_mask, fatal_signals[k]);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static void at_exit(void)
{
    mct_flush_now();
}

/* A fork()ed child is not a rank: it holds a copy of the parent's buffer,
 * which the parent writes itself, and its own calls are no part of the
 * run. It stops tracing and drops its copy (only plain stores: the child of
 * a threaded process may call async-signal-safe functions only), so its
 * exit and signal paths find nothing to write. */
static void child_after_fork(void)
{
    mct_state = MCT_DONE;
    have_pending_finalize = 0;
    writer = NULL; /* the parent's; its memory is the child's copy, left as is */
}

/* ------------------------------------------------------------ init */

/* Without the launcher and without MPICAST_TRACE_DIR, rank 0 picks a
 * timestamped directory and tells everyone. */
static void choose_dir(void)
{
    const char *env = getenv("MPICAST_TRACE_DIR");
    if (env && *env) {
        snprintf(trace_dir, sizeof trace_dir, "%s", env);
        return;
    }
    char name[64] = {0};
    if (mct_world_rank == 0) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(name, sizeof name, "mpicast-trace-%Y%m%d-%H%M%S", &tm);
    }
    PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    name[sizeof name - 1] = 0;
    snprintf(trace_dir, sizeof trace_dir, "%s", name);
}

/* A byte count with an optional unit: k/K/KiB = 1024, KB = 1000, M/MiB,
 * MB, G/GiB, GB. -1 if malformed. */
static int64_t parse_bytes(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return -1;
    static const struct { const char *unit; double mul; } units[] = {
        {"", 1}, {"B", 1}, {"k", 1024}, {"K", 1024}, {"KiB", 1024}, {"kB", 1e3}, {"KB", 1e3},
        {"M", 1048576}, {"MiB", 1048576}, {"MB", 1e6}, {"G", 1073741824.0},
        {"GiB", 1073741824.0}, {"GB", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0)
            return v * units[i].mul < 9e18 ? (int64_t)(v * units[i].mul) : -1;
    return -1;
}

/* Bytes one encoded event may take at most in the chunk buffer: the
 * writer sizes its buffer as events x 24 B (+ 160 B for one large event). */
#define MCT_EVENT_BUDGET 24
#define MCT_BUFFER_MIN 4096
#define MCT_BUFFER_MAX (64 << 20)

/* Events per chunk from MPICAST_CHUNK_EVENTS and MPICAST_BUFFER (the
 * smaller wins); 0: the writer's default (8192 events, a 192 KiB buffer).
 * A bad value is ignored with a note from rank 0: it must not stop the run. */
static uint32_t chunk_events(void)
{
    const char *ce = getenv("MPICAST_CHUNK_EVENTS");
    const char *be = getenv("MPICAST_BUFFER");
    uint32_t chunk = ce ? (uint32_t)strtoul(ce, NULL, 10) : 0;
    if (be && *be) {
        int64_t b = parse_bytes(be);
        if (b < 0) {
            if (mct_world_rank == 0)
                fprintf(stderr, "mpicast-trace: ignoring MPICAST_BUFFER=%s (not a size)\n", be);
        } else {
            if (b < MCT_BUFFER_MIN)
                b = MCT_BUFFER_MIN;
            if (b > MCT_BUFFER_MAX)
                b = MCT_BUFFER_MAX;
            uint32_t n = (uint32_t)((b - 160) / MCT_EVENT_BUDGET);
            if (chunk == 0 || n < chunk)
                chunk = n;
        }
    }
    const char *fi = getenv("MPICAST_FLUSH_INTERVAL");
    if (fi && *fi) {
        char *end;
        double sec = strtod(fi, &end);
        if (end != fi && *end == 0 && sec >= 0 && sec < 1e6)
            flush_every = sec > 0 ? (int64_t)(sec * 1e9) : INT64_MAX / 2;
        else if (mct_world_rank == 0)
            fprintf(stderr, "mpicast-trace: ignoring MPICAST_FLUSH_INTERVAL=%s\n", fi);
    }
    return chunk;
}

/* Polling loops folded at the source (mc_writer_set_fold): a failed poll
 * that starts within this gap of the previous one's end goes on with its
 * run. MPICAST_POLL_FOLD (seconds, 0: off); the default is cpu.poll_gap's,
 * so the default replay, which drops shorter bursts between polls anyway,
 * gives the same prediction folded or not. */
static int64_t poll_fold_gap(void)
{
    const char *v = getenv("MPICAST_POLL_FOLD");
    if (!v || !*v)
        return 2000;
    char *end;
    double sec = strtod(v, &end);
    if (end != v && *end == 0 && sec >= 0 && sec < 1e6)
        return (int64_t)(sec * 1e9 + 0.5);
    if (mct_world_rank == 0)
        fprintf(stderr, "mpicast-trace: ignoring MPICAST_POLL_FOLD=%s (not seconds)\n", v);
    return 2000;
}

/* Compression on a thread of the writer's own (mc_writer_start_thread), so
 * that an MPI call only encodes its event. Not in token mode (the thread
 * would run beside the rank that holds the token and disturb its bursts)
 * nor in profile mode (its memory accesses would enter the rank's
 * profile); MPICAST_COMPRESS_THREAD=off keeps it on the calling thread.
 * If the thread cannot be started, the writer compresses inline. */
static void start_compressor(void)
{
    const char *v = getenv("MPICAST_COMPRESS_THREAD");
    if (v && *v && strcmp(v, "on") != 0 && strcmp(v, "off") != 0 && mct_world_rank == 0)
        fprintf(stderr, "mpicast-trace: ignoring MPICAST_COMPRESS_THREAD=%s (on or off)\n", v);
    if (!writer || mct_token_on || profile_wanted() || (v && strcmp(v, "off") == 0))
        return;
    (void)mc_writer_start_thread(writer);
}

/* Opens this rank's writer; on failure leaves why in `why`. */
static void open_writer(void)
{
    uint32_t chunk = chunk_events();
    mc_error err = {0};
    unsigned flags = MC_WRITER_PRIVATE | MC_WRITER_ENDS_WITH_FINALIZE |
                     (mct_cpu_mode ? MC_WRITER_CPU : 0u);
    writer = mc_writer_open(trace_dir, mct_world_rank, flags, chunk, &err);
    if (!writer)
        mct_fail(err.msg[0] ? err.msg : "cannot open the trace file");
    else
        mc_writer_set_fold(writer, poll_gap = poll_fold_gap());
}

/* Whether failed polls take the fast path (mct_poll_run): with folding on,
 * below MPI_THREAD_MULTIPLE, outside cpu, token and profile modes.
 * MPICAST_POLL_HOT: on (the default: a timed poll every fold gap), exact
 * (every poll timed) or off (the slow path for every poll). */
static void decide_poll_hot(void)
{
    const char *v = getenv("MPICAST_POLL_HOT");
    int mode = HOT_SAMPLED;
    if (v && strcmp(v, "exact") == 0)
        mode = HOT_EXACT;
    else if (v && strcmp(v, "off") == 0)
        mode = HOT_OFF;
    else if (v && *v && strcmp(v, "on") != 0 && mct_world_rank == 0)
        fprintf(stderr, "mpicast-trace: ignoring MPICAST_POLL_HOT=%s (on, exact or off)\n", v);
    if (!writer || poll_gap <= 0 || mct_threaded || mct_cpu_mode || mct_profile || mct_token_on)
        mode = HOT_OFF;
    poll_hot = mode;
}

/* Collective: if any rank failed during Init (no writer, no memory), no
 * rank traces (a trace missing ranks is of no use) and only the lowest such
 * rank warns, so the job gets one warning, not one per rank. Also the
 * barrier that makes the epoch (nearly) common to the ranks of a node. */
static void agree_on_writers(void)
{
    in_init = 0;
    int mine = writer && !init_why[0] ? mct_world_size : mct_world_rank, first = mine;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first >= mct_world_size)
        return;
    if (mct_world_rank == first)
        mct_fail(init_why[0] ? init_why : "cannot open the trace file");
    else
        atomic_store(&warned, 1);
    mct_state = MCT_FAILED;
    if (writer) { /* remove the empty rank file we created */
        mc_error err = {0};
        mc_writer_close(writer, &err);
        writer = NULL;
        char path[4200];
        mc_rank_path(path, sizeof path, trace_dir, mct_world_rank);
        unlink(path);
    }
}

/* Before the barrier in agree_on_writers, so that a rank that has to
 * wait for the end of its calibration interval does not shift its epoch
 * against the others. */
static void calibrate_clock(void)
{
    int bad_env = 0;
    mct_clock_calibrate(&bad_env);
    if (bad_env && mct_world_rank == 0)
        fprintf(stderr, "mpicast-trace: ignoring MPICAST_CLOCK=%s (auto, tsc or monotonic)\n",
                getenv("MPICAST_CLOCK"));
}

void mct_after_init(int64_t t_entry, int op, void *ret, int thread_level)
{
    mct_inside = 1;
    in_init = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &mct_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &mct_world_size);
    mct_threaded = thread_level == MPI_THREAD_MULTIPLE;
    thread_counted = 1; /* the thread that initialised MPI is the first */
    const char *mode = getenv("MPICAST_MODE");
    /* token mode records CPU times too: wall == CPU shows an undisturbed burst */
    mct_cpu_mode = mode && (strcmp(mode, "cpu") == 0 || strcmp(mode, "token") == 0);
    if (mode && strcmp(mode, "token") == 0)
        mctk_init(thread_level);
    mct_comm_init();
    mct_req_init();
    choose_dir();
    open_writer();
    if (mct_state == MCT_OFF)
        mct_state = MCT_ON;
    calibrate_clock();
    agree_on_writers();
    start_compressor(); /* before the handlers, which may wait for it */
    install_signal_handlers();
    atexit(at_exit);
    pthread_atfork(NULL, NULL, child_after_fork);
    mct_epoch = mct_now();
    /* The Init event goes out as a chunk of its own: a rank killed before
     * its first regular flush still shows up in the trace. */
    flush_due = 0;
    mct_frame f;
    frame_init(&f, op, ret);
    f.ev.t_start = t_entry - mct_epoch;
    f.ev.t_end = 0;
    if (mct_token_on) { /* rank 0 starts with the token; the others wait */
        mctk_acquire();
        f.ev.t_end = mct_now() - mct_epoch;
    }
    if (mct_cpu_mode) {
        last_cpu = mct_cpu_now();
        f.ev.cpu = 0;
    }
    f.record = mct_state == MCT_ON;
    mct_inside = 1;
    mct_profile = profile_wanted();
    if (mct_profile)
        mct_prof_mark('R', mct_world_rank);
    decide_poll_hot();
    mct_leave(&f);
}

/* ------------------------------------------------------------ finalize */

static char *read_cmdline(void)
{
    FILE *fp = fopen("/proc/self/cmdline", "rb");
    if (!fp)
        return NULL;
    char *buf = malloc(65536);
    size_t n = buf ? fread(buf, 1, 65535, fp) : 0;
    fclose(fp);
    if (!buf)
        return NULL;
    while (n > 0 && buf[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    buf[n] = 0;
    return buf;
}

static void library_version(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int n = 0;
    PMPI_Get_library_version(v, &n);
    v[sizeof v - 1] = 0;
    char *nl = strchr(v, '\n');
    if (nl)
        *nl = 0;
    snprintf(buf, len, "%s", v);
    for (char *p = buf; *p; p++)
        if (*p == '\t' || *p == '\r')
            *p = ' ';
}

/* Gathers variable-length byte buffers at rank 0: returns the concatenation
 * (rank 0 only; NULL elsewhere) and its length. Collective. */
static char *gather_bytes(const void *mine, int len, size_t *total)
{
    int n = mct_world_size, me = mct_world_rank;
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (me == 0) {
        lens = calloc((size_t)n, sizeof *lens);
        displs = calloc((size_t)n, sizeof *displs);
    }
    /* Without room for the lengths rank 0 cannot take part: everyone skips. */
    int ok = me != 0 || (lens && displs);
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        free(lens);
        free(displs);
        *total = 0;
        return NULL;
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t sum = 0;
    if (me == 0 && lens && displs) {
        for (int i = 0; i < n; i++) {
            displs[i] = (int)sum;
            sum += (size_t)lens[i];
        }
        all = malloc(sum + 1);
    }
    /* Without room for the bytes, rank 0 cannot receive them: everyone
     * skips (a send that rank 0 does not match is an MPI error; MPICH
     * over UCX reports it on stdout). */
    ok = me != 0 || all != NULL;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        free(lens);
        free(displs);
        *total = 0;
        return NULL;
    }
    int zero = 0;
    PMPI_Gatherv(mine, len, MPI_BYTE, all, lens ? lens : &zero, displs ? displs : &zero,
                 MPI_BYTE, 0, MPI_COMM_WORLD);
    free(lens);
    free(displs);
    *total = sum;
    return all;
}

/* "threads" of meta.json: absent when one thread per rank called MPI. */
static void threads_line(const int who[2], char *buf, size_t len)
{
    buf[0] = '\0';
    if (who[0] > 1)
        snprintf(buf, len, "multiple: MPI called from %d threads on rank %d", who[0], who[1]);
}

static void write_meta(const char *comms, size_t ncomm_bytes, const char *sites,
                       size_t nsite_bytes, const char *threads)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_create(mct_world_size);
    if (!m) {
        mct_fail("out of memory writing meta.json");
        return;
    }
    char lib[512];
    library_version(lib, sizeof lib);
    char *cmd = read_cmdline();
    char start[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm);
    mc_err rc = mc_meta_set(m, "command", cmd ? cmd : "", &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "mpi_library", lib, &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "timer", mct_clock_name(), &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "mode", mct_token_mode ? "token" : mct_cpu_mode ? "cpu" : "wall",
                         &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "start", start, &err);
    if (rc == MC_OK && threads[0])
        rc = mc_meta_set(m, "threads", threads, &err);
    free(cmd);
    if (comms)
        mct_comms_parse_into((const int64_t *)(const void *)comms,
                             ncomm_bytes / sizeof(int64_t), m);
    if (sites)
        mct_sites_parse_into(sites, nsite_bytes, m);
    if (rc == MC_OK)
        rc = mc_meta_write_as(m, trace_dir, MC_OUT_PRIVATE, &err);
    if (rc != MC_OK)
        mct_fail(err.msg);
    mc_meta_destroy(m);
}

void mct_before_finalize(mct_frame *f)
{
    int32_t fsite = mct_site_of(f->ret); /* the Finalize event's site must be in the tables */
    if (getenv("MPICAST_POLL_STATS"))
        fprintf(stderr, "mpicast-trace: rank %d: %llu failed polls folded on the fast path%s; "
                "%llu bursts after untimed polls, %.6f s\n", mct_world_rank,
                (unsigned long long)hot_folds, poll_hot ? "" : " (off)",
                (unsigned long long)hot_split, (double)hot_split_ns * 1e-9);
    if (mct_profile) { /* the last burst ends here; nothing after is counted */
        mct_prof_mark('F', f->record && mct_state == MCT_ON ? fsite : 0);
        mct_profile = 0;
    }
    int ok = mct_state != MCT_FAILED;
    if (ok && mct_sites_write(trace_dir, mct_world_rank) != 0)
        mct_fail("cannot write the sites file");
    size_t ncomm = 0, nsite = 0;
    int64_t *comms = mct_comms_serialise(&ncomm);
    char *sites = mct_sites_serialise(&nsite);
    size_t call = 0, sall = 0;
    char *all_comms = gather_bytes(comms, comms ? (int)(ncomm * sizeof *comms) : 0, &call);
    char *all_sites = gather_bytes(sites, sites ? (int)nsite : 0, &sall);
    free(comms);
    free(sites);
    int mine[2] = {atomic_load(&mpi_threads), mct_world_rank}, who[2] = {1, 0};
    PMPI_Reduce(mine, who, 1, MPI_2INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
    char threads[128];
    threads_line(who, threads, sizeof threads);
    if (mct_world_rank == 0 && mct_state != MCT_FAILED && writer)
        write_meta(all_comms, call, all_sites, sall, threads);
    free(all_comms);
    free(all_sites);
    if (f->record && mct_state == MCT_ON) {
        pending_finalize = f->ev;
        pending_finalize.site = mct_site_of(f->ret);
        atomic_signal_fence(memory_order_seq_cst);
        have_pending_finalize = 1;
    }
}

/* The TSC clock's check at the end of the run: the re-anchoring keeps it
 * within a few microseconds of CLOCK_MONOTONIC; say so when it did not
 * (or was given up), since the times are then off by that much. */
static void check_clock(void)
{
    int64_t off = mct_clock_offset();
    if (mct_clock_gave_up)
        fprintf(stderr, "mpicast-trace: rank %d: the TSC drifted more than %d us from "
                "CLOCK_MONOTONIC; timed with clock_gettime from then on (MPICAST_CLOCK="
                "monotonic avoids the TSC)\n", mct_world_rank, MCT_CLOCK_GIVEUP_NS / 1000);
    else if (off > 20000 || off < -20000)
        fprintf(stderr, "mpicast-trace: rank %d: the TSC clock ends %.1f us off "
                "CLOCK_MONOTONIC (MPICAST_CLOCK=monotonic avoids the TSC)\n",
                mct_world_rank, (double)off / 1000.0);
}

void mct_after_finalize(mct_frame *f)
{
    have_pending_finalize = 0; /* written below, by the ordinary path */
    atomic_signal_fence(memory_order_seq_cst);
    mct_stop(f);
    mct_leave(f);
    if (mct_state != MCT_FAILED)
        check_clock();
    mct_state = MCT_DONE;
    mc_error err = {0};
    mct_lock();
    writer_take();
    mc_err rc = mc_writer_close(writer, &err);
    writer = NULL;
    writer_give();
    mct_unlock();
    if (rc != MC_OK && atomic_exchange(&warned, 1) == 0)
        fprintf(stderr, "mpicast-trace: rank %d: %s; tracing disabled\n", mct_world_rank,
                err.msg);
}

/* ------------------------------------------------------------ Pcontrol */

void mct_pcontrol(int level, void *ret)
{
    if (mct_inside || mct_state == MCT_OFF || mct_state == MCT_DONE || mct_state == MCT_FAILED)
        return;
    if (level == 1 && mct_state == MCT_PAUSED)
        mct_state = MCT_ON;
    mct_frame f;
    mct_enter_slow(&f, MC_OP_PCONTROL, ret);
    f.ev.tag = level;
    mct_stop(&f);
    mct_leave(&f);
    if (level == 0 && mct_state == MCT_ON)
        mct_state = MCT_PAUSED;
}
