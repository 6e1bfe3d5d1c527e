/* mpicast tracer — the per-process context: state, clocks, the writer,
 * frames, Init/Finalize work, Pcontrol, signal and exit paths.
 *
 * A tracer failure (unwritable directory, full disk, no memory) warns once
 * on stderr and stops recording; it never changes what the program does. */
#include "tracer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile int mct_state = MCT_OFF;
int mct_world_rank = 0, mct_world_size = 1;
int mct_cpu_mode = 0;
int64_t mct_epoch = 0;
MCT_TLS int mct_inside = 0;

static mc_writer *writer;
static char trace_dir[4096];
int mct_threaded;                 /* MPI_THREAD_MULTIPLE: take the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t in_writer; /* a signal must not flush mid-add */
static int64_t last_cpu;          /* thread CPU time at the previous exit */
static int warned;

/* ------------------------------------------------------------ clocks */

int64_t mct_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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
        if (!p)
            return NULL;
        scratch_buf[k] = p;
        scratch_cap[k] = cap;
    }
    return scratch_buf[k];
}

/* ------------------------------------------------------------ failures */

void mct_fail(const char *what)
{
    if (!warned) {
        warned = 1;
        fprintf(stderr, "mpicast-trace: rank %d: %s; tracing disabled\n", mct_world_rank,
                what);
    }
    if (mct_state == MCT_ON || mct_state == MCT_PAUSED)
        mct_state = MCT_FAILED;
}

/* ------------------------------------------------------------ frames */

static void frame_init(mct_frame *f, int op, void *ret)
{
    memset(&f->ev, 0, sizeof f->ev);
    f->ev.op = op;
    f->ev.comm = MC_COMM_WORLD;
    f->ev.peer = f->ev.tag = f->ev.peer2 = f->ev.tag2 = MC_NONE;
    f->ev.newcomm = MC_COMM_NULL;
    f->ev.cpu = -1;
    f->ret = ret;
}

int mct_enter_slow(mct_frame *f, int op, void *ret)
{
    mct_inside = 1;
    frame_init(f, op, ret);
    f->record = mct_state == MCT_ON;
    if (f->record && mct_cpu_mode)
        f->ev.cpu = mct_cpu_now() - last_cpu;
    f->ev.t_start = mct_now() - mct_epoch;
    return 1;
}

static void write_event(const mc_event *e)
{
    mc_error err; /* not zeroed: 1 KiB per event; filled only on failure */
    err.code = MC_OK;
    err.msg[0] = 0;
    mct_lock();
    in_writer = 1;
    mc_err rc = writer ? mc_writer_add(writer, e, &err) : MC_OK;
    in_writer = 0;
    mct_unlock();
    if (rc != MC_OK)
        mct_fail(err.msg);
}

void mct_leave(mct_frame *f)
{
    if (f->record && mct_state == MCT_ON) {
        f->ev.site = mct_site_of(f->ret);
        write_event(&f->ev);
        if (mct_cpu_mode)
            last_cpu = mct_cpu_now();
    }
    mct_inside = 0;
}

/* ------------------------------------------------------------ flush paths */

void mct_flush_now(void)
{
    if (!writer || in_writer)
        return;
    mc_error err = {0};
    if (mc_writer_flush(writer, &err) != MC_OK)
        mct_fail(err.msg);
}

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGBUS};
#define NSIG_FATAL (int)(sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[NSIG_FATAL];

/* Flush what we have, then let the original disposition act: the program
 * dies (or handles the signal) exactly as it would without us. */
static void on_fatal_signal(int sig)
{
    for (int i = 0; i < NSIG_FATAL; i++) {
        if (fatal_signals[i] != sig)
            continue;
        if (mct_state != MCT_DONE)
            mct_flush_now();
        sigaction(sig, &old_actions[i], NULL);
        raise(sig);
        return;
    }
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIG_FATAL; i++) {
        if (sigaction(fatal_signals[i], NULL, &old_actions[i]) != 0)
            continue;
        /* An ignored signal stays ignored: we must not make it fatal. */
        if (old_actions[i].sa_handler == SIG_IGN)
            continue;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static void at_exit(void)
{
    if (mct_state == MCT_DONE || mct_state == MCT_OFF)
        return;
    mct_flush_now();
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

static void open_writer(void)
{
    const char *ce = getenv("MPICAST_CHUNK_EVENTS");
    uint32_t chunk = ce ? (uint32_t)strtoul(ce, NULL, 10) : 0;
    mc_error err = {0};
    writer = mc_writer_open(trace_dir, mct_world_rank, mct_cpu_mode ? MC_WRITER_CPU : 0,
                            chunk, &err);
    if (!writer)
        mct_fail(err.msg[0] ? err.msg : "cannot open the trace file");
}

void mct_after_init(int64_t t_entry, int op, void *ret, int thread_level)
{
    mct_inside = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &mct_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &mct_world_size);
    mct_threaded = thread_level == MPI_THREAD_MULTIPLE;
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
    install_signal_handlers();
    atexit(at_exit);
    /* The barrier makes the epoch (nearly) common to the ranks of a node. */
    PMPI_Barrier(MPI_COMM_WORLD);
    mct_epoch = mct_now();
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
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t sum = 0;
    if (me == 0 && lens && displs) {
        for (int i = 0; i < n; i++) {
            displs[i] = (int)sum;
            sum += (size_t)lens[i];
        }
        all = malloc(sum + 1);
    }
    /* Ranks must take part even when rank 0 is out of memory: it then
     * receives nothing (zero counts). */
    if (me == 0 && (!all || !lens || !displs)) {
        free(all);
        all = NULL;
        if (lens)
            memset(lens, 0, (size_t)n * sizeof *lens);
        sum = 0;
    }
    int zero = 0;
    PMPI_Gatherv(mine, len, MPI_BYTE, all, lens ? lens : &zero, displs ? displs : &zero,
                 MPI_BYTE, 0, MPI_COMM_WORLD);
    free(lens);
    free(displs);
    *total = sum;
    return all;
}

static void write_meta(const char *comms, size_t ncomm_bytes, const char *sites,
                       size_t nsite_bytes)
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
        rc = mc_meta_set(m, "timer", "CLOCK_MONOTONIC", &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "mode", mct_token_mode ? "token" : mct_cpu_mode ? "cpu" : "wall",
                         &err);
    if (rc == MC_OK)
        rc = mc_meta_set(m, "start", start, &err);
    free(cmd);
    if (comms)
        mct_comms_parse_into((const int64_t *)(const void *)comms,
                             ncomm_bytes / sizeof(int64_t), m);
    if (sites)
        mct_sites_parse_into(sites, nsite_bytes, m);
    if (rc == MC_OK)
        rc = mc_meta_write(m, trace_dir, &err);
    if (rc != MC_OK)
        mct_fail(err.msg);
    mc_meta_destroy(m);
}

void mct_before_finalize(mct_frame *f)
{
    mct_site_of(f->ret); /* the Finalize event's site must be in the tables */
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
    if (mct_world_rank == 0 && mct_state != MCT_FAILED && writer)
        write_meta(all_comms, call, all_sites, sall);
    free(all_comms);
    free(all_sites);
}

void mct_after_finalize(mct_frame *f)
{
    mct_stop(f);
    mct_leave(f);
    mct_state = MCT_DONE;
    mc_error err = {0};
    mct_lock();
    in_writer = 1;
    mc_err rc = mc_writer_close(writer, &err);
    writer = NULL;
    in_writer = 0;
    mct_unlock();
    if (rc != MC_OK && !warned) {
        warned = 1;
        fprintf(stderr, "mpicast-trace: rank %d: %s; tracing disabled\n", mct_world_rank,
                err.msg);
    }
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
