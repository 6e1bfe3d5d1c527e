/* Rank file writer: events are varint-encoded into a raw buffer and written
 * as zstd-compressed, CRC-checked chunks (docs/trace-format.md). Everything a
 * flush needs is allocated at open so that mc_writer_flush can run from a
 * signal handler: the zstd context is a static one over a workspace sized
 * for level 1 and any input (ZSTD_initStaticCCtx never allocates), output
 * uses write(2), and with err == NULL a failure formats no message (no
 * strerror, no snprintf). The memory is bounded by the chunk buffer, which
 * grows only for a single event larger than it.
 *
 * With mc_writer_start_thread (the tracer), full chunks are compressed and
 * written by a thread of the writer's own, so the caller only encodes: two
 * raw buffers, one filled by the caller while the other is compressed. Only
 * that thread writes chunks while it has work; a flush first waits until it
 * has none (polling an atomic counter, so a signal handler can wait too)
 * and then compresses the rest itself, with the same context. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStaticCCtx, ZSTD_estimateCCtxSize */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "codec.h"
#include "mpicast/format.h"

/* 8192 events (a 192 KiB buffer): a reader holds one decoded chunk per
 * rank, so replaying a 1024-rank trace takes ranks x chunk of memory —
 * 1.6 GB with the former 65536 — and a crashed run loses less. */
#define DEFAULT_CHUNK_EVENTS 8192u
#define EVENT_FIXED_MAX (16 * 10) /* op, present, times and 12 fields, 10 B each */
/* Raw buffers with a compressor thread: the one filled, the one compressed. */
#define NSLOTS 2
/* How long a flush without an error report (a signal handler) waits for the
 * compressor to finish its chunk before giving up on the rest. */
#define SIGNAL_WAIT_NS 2000000000LL

/* A chunk handed to the compressor thread. */
typedef struct slot {
    unsigned char *raw;
    size_t len, cap;
    uint32_t nevents;
} slot;

/* Why the compressor thread stopped writing (the caller formats it). */
enum { BG_OK, BG_ZSTD, BG_WRITE };

struct mc_writer {
    int fd;
    char path[4096];
    uint32_t chunk_events; /* events per chunk */
    unsigned char *raw;    /* encoded events of the current chunk */
    size_t raw_len, raw_cap;
    unsigned char *out; /* chunk header + compressed payload */
    size_t out_cap;
    uint32_t nevents;
    int64_t prev_end; /* time base of delta encoding; resets each chunk */
    ZSTD_CCtx *cctx; /* static: lives in cwork */
    void *cwork;
    int failed; /* a write failed: further adds are refused */
    int64_t fold_gap; /* mc_writer_set_fold; 0: off */
    int held_poll;    /* `held` is a failed poll not yet written */
    mc_event held;
    /* The compressor thread (mc_writer_start_thread); async = 0 without.
     * Chunk i is slots[i % NSLOTS]; chunks done .. handed-1 are the
     * thread's, the current buffer (raw) is slots[cur] and the caller's. */
    int async, cur;
    slot slots[NSLOTS];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    int stop;                 /* under mu: no more chunks, exit */
    atomic_uint handed, done; /* chunks given to / written by the thread */
    atomic_int bg_failed;     /* BG_*: the thread's write failed ... */
    int bg_errno;             /* ... with this errno (set before bg_failed) */
    size_t bg_zstd;           /* ... or this zstd error code */
};

#define ZSTD_LEVEL 1

void mc_rank_path(char *buf, size_t len, const char *dir, int rank)
{
    snprintf(buf, len, "%s/rank-%06d.mct", dir, rank);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int make_dir(const char *dir, mode_t mode)
{
    return mkdir(dir, mode) == 0 || errno == EEXIST ? 0 : -1;
}

static int wait_idle(mc_writer *w, int64_t max_ns);

/* Sizes the current raw buffer, and the output buffer, for `cap` raw bytes
 * (the output buffer only grows: with a compressor thread it serves every
 * raw buffer, so it is resized only while the thread is idle). */
static mc_err reserve(mc_writer *w, size_t cap, mc_error *err)
{
    if (cap <= w->raw_cap)
        return MC_OK;
    if (cap > MC_CHUNK_MAX_RAW)
        return mc_error_set(err, MC_ERR_USAGE, "%s: event too large for a chunk (%zu bytes)",
                            w->path, cap);
    unsigned char *raw = realloc(w->raw, cap);
    if (!raw)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory for the trace buffer", w->path);
    w->raw = raw;
    w->raw_cap = cap;
    if (w->async) {
        w->slots[w->cur].raw = raw;
        w->slots[w->cur].cap = cap;
    }
    size_t out_cap = MC_CHUNK_HEADER_SIZE + ZSTD_compressBound(cap);
    if (out_cap <= w->out_cap)
        return MC_OK;
    if (w->async)
        (void)wait_idle(w, -1);
    unsigned char *out = realloc(w->out, out_cap);
    if (!out)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory for the trace buffer", w->path);
    w->out = out;
    w->out_cap = out_cap;
    return MC_OK;
}

mc_writer *mc_writer_open(const char *dir, int rank, unsigned flags, uint32_t chunk_events,
                          mc_error *err)
{
    mc_writer *w = calloc(1, sizeof *w);
    if (!w) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", dir);
        return NULL;
    }
    w->fd = -1;
    w->chunk_events = chunk_events ? chunk_events : DEFAULT_CHUNK_EVENTS;
    if (w->chunk_events > MC_CHUNK_MAX_EVENTS)
        w->chunk_events = MC_CHUNK_MAX_EVENTS;
    mc_rank_path(w->path, sizeof w->path, dir, rank);
    int private_ = (flags & MC_WRITER_PRIVATE) != 0;
    flags &= ~MC_WRITER_PRIVATE;
    if (make_dir(dir, private_ ? 0700 : 0777) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot create directory: %s", dir, strerror(errno));
        goto fail;
    }
    size_t want = (size_t)w->chunk_events * 24 + EVENT_FIXED_MAX;
    if (want > MC_CHUNK_MAX_RAW / 2)
        want = MC_CHUNK_MAX_RAW / 2;
    size_t csize = ZSTD_estimateCCtxSize(ZSTD_LEVEL);
    w->cwork = malloc(csize);
    w->cctx = w->cwork ? ZSTD_initStaticCCtx(w->cwork, csize) : NULL;
    if (!w->cctx || reserve(w, want, err) != MC_OK) {
        if (!w->cctx)
            mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", w->path);
        goto fail;
    }
    /* Never over an existing file or through a planted symlink: a trace
     * directory is fresh, and whatever is in the way is not ours. */
    w->fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 private_ ? 0600 : 0666);
    if (w->fd < 0) {
        int e = errno;
        mc_error_set(err, MC_ERR_IO, "%s: cannot create: %s%s", w->path, strerror(e),
                     e == EEXIST ? " (not overwritten)" : "");
        goto fail;
    }
    unsigned char hdr[MC_FILE_HEADER_SIZE] = {0};
    memcpy(hdr, MC_FILE_MAGIC, 8);
    mc_put_u32(hdr + 8, MC_FORMAT_VERSION);
    mc_put_u32(hdr + 12, (uint32_t)rank);
    mc_put_u32(hdr + 16, flags);
    if (write_all(w->fd, hdr, sizeof hdr) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", w->path, strerror(errno));
        goto fail;
    }
    return w;
fail:
    if (w->fd >= 0)
        close(w->fd);
    free(w->cwork);
    free(w->raw);
    free(w->out);
    free(w);
    return NULL;
}

static unsigned presence(const mc_event *e)
{
    unsigned f = 0;
#define PRESENT_(field, bit, enc, def) f |= e->field != (def) ? (bit) : 0;
    MC_EVENT_FIELDS(PRESENT_)
#undef PRESENT_
    f |= e->nvals != 0 ? MC_F_VALS : 0;
    f |= e->folded != 0 ? MC_F_FOLDED : 0;
    return f;
}

/* Arrays from this long are stored as differences where that is shorter. */
#define VALS_DELTA_FROM 32u

static size_t uvarint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* A long member list whose values mostly follow each other (in order) is
 * shorter as differences. Differences wrap modulo 2^64, as the reader adds.
 * Only communicator management: the tracer's completions (request ids,
 * sources) would pay the extra pass on every Waitall for nothing. */
static int vals_as_deltas(const mc_event *e)
{
    if (e->nvals < VALS_DELTA_FROM || mc_op_kind_of(e->op) != MC_KIND_M)
        return 0;
    size_t plain = 0, delta = 0;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < e->nvals; i++) {
        plain += uvarint_len(mc_zigzag(e->vals[i]));
        delta += uvarint_len(mc_zigzag((int64_t)((uint64_t)e->vals[i] - prev)));
        prev = (uint64_t)e->vals[i];
    }
    return delta < plain;
}

static size_t encode(unsigned char *p, const mc_event *e, int64_t prev_end)
{
    unsigned f = presence(e);
    if ((f & MC_F_VALS) && vals_as_deltas(e))
        f |= MC_F_VALS_DELTA;
    size_t n = mc_put_uvarint(p, (uint64_t)e->op);
    n += mc_put_uvarint(p + n, f);
    n += mc_put_uvarint(p + n, mc_zigzag(e->t_start - prev_end));
    n += mc_put_uvarint(p + n, mc_zigzag(e->t_end - e->t_start));
#define PUT_(field, bit, enc, def) \
    if (f & (bit))                 \
        n += mc_put_uvarint(p + n, MC_ENC_##enc(e->field));
    MC_EVENT_FIELDS(PUT_)
#undef PUT_
    if (f & MC_F_VALS) {
        n += mc_put_uvarint(p + n, e->nvals);
        uint64_t prev = 0;
        for (uint32_t i = 0; i < e->nvals; i++) {
            uint64_t v = (uint64_t)e->vals[i];
            n += mc_put_uvarint(p + n, mc_zigzag((int64_t)(f & MC_F_VALS_DELTA ? v - prev : v)));
            prev = v;
        }
    }
    if (f & MC_F_FOLDED) n += mc_put_uvarint(p + n, e->folded);
    return n;
}

void mc_writer_set_fold(mc_writer *w, int64_t gap_ns)
{
    w->fold_gap = gap_ns > 0 ? gap_ns : 0;
}

/* Whether e goes on with the held poll's run (see mc_writer_set_fold). */
static int folds_into(const mc_writer *w, const mc_event *e)
{
    const mc_event *h = &w->held;
    return mc_event_is_failed_poll(e) && e->op == h->op && e->site == h->site &&
           e->comm == h->comm && e->peer == h->peer && e->tag == h->tag &&
           e->t_start >= h->t_end && e->t_start - h->t_end < w->fold_gap &&
           h->folded < (uint64_t)INT64_MAX - 1 - e->folded;
}

int mc_writer_holds_poll(const mc_writer *w, int64_t t_end)
{
    return w->held_poll && w->held.t_end == t_end;
}

int mc_writer_fold_polls(mc_writer *w, uint64_t n, int64_t t_end)
{
    mc_event *h = &w->held;
    if (!w->held_poll || w->failed || t_end < h->t_end || n >= (uint64_t)INT64_MAX ||
        h->folded >= (uint64_t)INT64_MAX - n)
        return 0;
    h->folded += n;
    h->t_end = t_end;
    return 1;
}

static mc_err add_one(mc_writer *w, const mc_event *e, mc_error *err);

/* Writes the held poll, if any. */
static mc_err write_held(mc_writer *w, mc_error *err)
{
    if (!w->held_poll)
        return MC_OK;
    w->held_poll = 0;
    return add_one(w, &w->held, err);
}

mc_err mc_writer_add(mc_writer *w, const mc_event *e, mc_error *err)
{
    if (!w->fold_gap)
        return add_one(w, e, err);
    if (w->held_poll && folds_into(w, e)) {
        w->held.folded += 1 + e->folded;
        w->held.t_end = e->t_end;
        return MC_OK;
    }
    mc_err rc = write_held(w, err);
    if (rc != MC_OK || !mc_event_is_failed_poll(e))
        return rc ? rc : add_one(w, e, err);
    w->held = *e;
    w->held.vals = NULL; /* a failed poll has none */
    w->held.nvals = 0;
    w->held_poll = 1;
    return MC_OK;
}

static mc_err hand_off(mc_writer *w, mc_error *err);

static mc_err add_one(mc_writer *w, const mc_event *e, mc_error *err)
{
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, "%s: writer stopped after an earlier error", w->path);
    if (e->nvals > MC_EVENT_MAX_VALS)
        return mc_error_set(err, MC_ERR_USAGE, "%s: event has too many values (%u)", w->path,
                            e->nvals);
    size_t need = EVENT_FIXED_MAX + (size_t)e->nvals * 10;
    if (w->nevents >= w->chunk_events || w->raw_len + need > w->raw_cap) {
        /* Without an error report (a signal handler) nothing is handed
         * to the thread: that takes its mutex. */
        mc_err rc = w->async && err ? hand_off(w, err) : mc_writer_flush(w, err);
        if (rc != MC_OK)
            return rc;
    }
    if (need > w->raw_cap) {
        mc_err rc = reserve(w, need, err);
        if (rc != MC_OK)
            return rc;
    }
    w->raw_len += encode(w->raw + w->raw_len, e, w->prev_end);
    w->prev_end = e->t_end;
    w->nevents++;
    /* a large array ends its chunk, which readers then release once read
     * (reader.c, release_chunk) */
    if (e->nvals > MC_LARGE_VALS)
        return w->async && err ? hand_off(w, err) : mc_writer_flush(w, err);
    return MC_OK;
}

mc_err mc_writer_add_loop(mc_writer *w, const mc_loop_record *l, mc_error *err)
{
    uint64_t rows = l->exact ? l->iterations - 1 : 1, cols = l->cpu ? 3 : 2;
    if (l->iterations < 1 || l->iterations > (uint64_t)1 << 40 || l->period < 1 ||
        l->period > MC_LOOP_MAX_PERIOD || rows > MC_LOOP_MAX_VALUES ||
        rows * l->period * cols > MC_LOOP_MAX_VALUES || l->req_count > INT32_MAX ||
        (uint64_t)l->req_first + (uint64_t)l->req_count * l->iterations > UINT32_MAX)
        return mc_error_set(err, MC_ERR_USAGE, "%s: loop record out of range (%llu x %u)",
                            w->path, (unsigned long long)l->iterations, l->period);
    mc_err rc = write_held(w, err);
    if (rc != MC_OK)
        return rc;
    mc_event e = {.op = (int32_t)MC_FILE_OP_LOOP, .peer = (int32_t)l->period,
                  .tag = (l->exact ? MC_LOOP_EXACT : 0) | (l->cpu ? MC_LOOP_CPU : 0),
                  .bytes = (int64_t)l->iterations, .peer2 = (int32_t)l->req_count,
                  .tag2 = MC_NONE, .bytes2 = l->loop_end, .req = l->req_first, .t_start = l->at,
                  .t_end = l->at, .cpu = -1, .nvals = (uint32_t)(rows * l->period * cols),
                  .vals = (int64_t *)l->times};
    return add_one(w, &e, err);
}

/* Compresses raw[0, len) into w->out and writes it as one chunk of n
 * events: BG_OK, or BG_ZSTD with *zerr, or BG_WRITE with *eno. Allocates
 * nothing and formats nothing (signal handlers and the thread call it). */
static int write_chunk(mc_writer *w, const unsigned char *raw, size_t len, uint32_t n,
                       size_t *zerr, int *eno)
{
    unsigned char *payload = w->out + MC_CHUNK_HEADER_SIZE;
    size_t clen = ZSTD_compressCCtx(w->cctx, payload, w->out_cap - MC_CHUNK_HEADER_SIZE, raw,
                                    len, ZSTD_LEVEL);
    if (ZSTD_isError(clen)) {
        *zerr = clen;
        return BG_ZSTD;
    }
    unsigned char *h = w->out;
    mc_put_u32(h, MC_CHUNK_MAGIC);
    mc_put_u32(h + 4, n);
    mc_put_u32(h + 8, (uint32_t)len);
    mc_put_u32(h + 12, (uint32_t)clen);
    mc_put_u32(h + 16, (uint32_t)crc32(0L, payload, (uInt)clen));
    mc_put_u32(h + 20, (uint32_t)crc32(0L, h, 20));
    if (write_all(w->fd, w->out, MC_CHUNK_HEADER_SIZE + clen) != 0) {
        *eno = errno;
        return BG_WRITE;
    }
    return BG_OK;
}

/* Stops the writer after a failed chunk and says why. */
static mc_err chunk_failed(mc_writer *w, int why, size_t zerr, int eno, mc_error *err)
{
    w->failed = 1;
    if (why == BG_ZSTD)
        return mc_error_set(err, MC_ERR_INTERNAL, "%s: compression failed: %s", w->path,
                            err ? ZSTD_getErrorName(zerr) : "");
    return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", w->path,
                        err ? strerror(eno) : "");
}

/* ------------------------------------------------------------ compressor thread */

/* The thread's failure, reported by the caller once it sees it. */
static mc_err check_thread(mc_writer *w, mc_error *err)
{
    int why = atomic_load_explicit(&w->bg_failed, memory_order_acquire);
    return why == BG_OK ? MC_OK : chunk_failed(w, why, w->bg_zstd, w->bg_errno, err);
}

/* Waits until the thread has written every chunk handed to it: 0, or -1
 * after about max_ns (< 0: no limit). Polls with nanosleep, so a signal
 * handler may wait too (the thread takes nothing the handler holds). */
static int wait_idle(mc_writer *w, int64_t max_ns)
{
    int64_t slept = 0;
    while (atomic_load_explicit(&w->done, memory_order_acquire) !=
           atomic_load_explicit(&w->handed, memory_order_relaxed)) {
        if (max_ns >= 0 && slept >= max_ns)
            return -1;
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
        slept += ts.tv_nsec;
    }
    return 0;
}

static void *compressor(void *arg)
{
    mc_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        unsigned d = atomic_load_explicit(&w->done, memory_order_relaxed);
        if (d == atomic_load_explicit(&w->handed, memory_order_acquire)) {
            if (w->stop)
                break;
            pthread_cond_wait(&w->work, &w->mu);
            continue;
        }
        pthread_mutex_unlock(&w->mu);
        const slot *s = &w->slots[d % NSLOTS];
        if (atomic_load_explicit(&w->bg_failed, memory_order_relaxed) == BG_OK) {
            size_t zerr = 0;
            int eno = 0;
            int why = write_chunk(w, s->raw, s->len, s->nevents, &zerr, &eno);
            if (why != BG_OK) {
                w->bg_zstd = zerr;
                w->bg_errno = eno;
                atomic_store_explicit(&w->bg_failed, why, memory_order_release);
            }
        }
        /* Before the mutex: a signal handler waits on `done` alone, and
         * may have interrupted a caller that holds the mutex. */
        atomic_store_explicit(&w->done, d + 1, memory_order_release);
        pthread_mutex_lock(&w->mu);
        pthread_cond_broadcast(&w->idle);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Gives the current buffer to the thread as the next chunk and goes on in
 * the next buffer, waiting while that one is still being compressed. */
static mc_err hand_off(mc_writer *w, mc_error *err)
{
    if (w->nevents == 0)
        return MC_OK;
    mc_err rc = check_thread(w, err);
    if (rc != MC_OK)
        return rc;
    slot *s = &w->slots[w->cur];
    s->len = w->raw_len;
    s->nevents = w->nevents;
    pthread_mutex_lock(&w->mu);
    unsigned h = atomic_load_explicit(&w->handed, memory_order_relaxed) + 1;
    atomic_store_explicit(&w->handed, h, memory_order_release);
    pthread_cond_signal(&w->work);
    while (h - atomic_load_explicit(&w->done, memory_order_acquire) > NSLOTS - 1)
        pthread_cond_wait(&w->idle, &w->mu);
    pthread_mutex_unlock(&w->mu);
    w->cur = (int)(h % NSLOTS);
    w->raw = w->slots[w->cur].raw;
    w->raw_cap = w->slots[w->cur].cap;
    w->raw_len = 0;
    w->nevents = 0;
    w->prev_end = 0;
    return MC_OK;
}

int mc_writer_start_thread(mc_writer *w)
{
    if (w->async || w->failed)
        return w->async ? 0 : -1;
    /* the second raw buffer, owned by its slot from the start */
    w->slots[1] = (slot){.raw = malloc(w->raw_cap), .cap = w->raw_cap};
    if (!w->slots[1].raw)
        return -1;
    int ok = pthread_mutex_init(&w->mu, NULL) == 0;
    int okw = ok && pthread_cond_init(&w->work, NULL) == 0;
    int oki = okw && pthread_cond_init(&w->idle, NULL) == 0;
    pthread_attr_t attr;
    int oka = oki && pthread_attr_init(&attr) == 0;
    int started = 0;
    if (oka) {
        w->slots[0] = (slot){.raw = w->raw, .cap = w->raw_cap};
        w->cur = 0;
        w->stop = 0;
        atomic_init(&w->handed, 0);
        atomic_init(&w->done, 0);
        atomic_init(&w->bg_failed, BG_OK);
        /* zstd's level-1 compression needs little stack */
        (void)pthread_attr_setstacksize(&attr, 256 * 1024);
        /* Signals go to the program's threads, never to this one: the
         * tracer's handlers flush by waiting for it. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        started = pthread_create(&w->thread, &attr, compressor, w) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (started) {
        w->async = 1;
        return 0;
    }
    if (oki)
        pthread_cond_destroy(&w->idle);
    if (okw)
        pthread_cond_destroy(&w->work);
    if (ok)
        pthread_mutex_destroy(&w->mu);
    free(w->slots[1].raw);
    w->slots[1].raw = NULL;
    return -1;
}

/* Joins the thread (once it has written what it was given) and frees the
 * buffers that are not the current one. */
static void stop_thread(mc_writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->idle);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    for (int i = 0; i < NSLOTS; i++)
        if (i != w->cur)
            free(w->slots[i].raw);
    w->async = 0;
}

/* ------------------------------------------------------------ flush, close */

int mc_writer_wait_written(mc_writer *w)
{
    if (!w->async || pthread_equal(pthread_self(), w->thread))
        return w->async ? -1 : 0;
    return wait_idle(w, SIGNAL_WAIT_NS);
}

mc_err mc_writer_push(mc_writer *w, mc_error *err)
{
    if (!w->async)
        return mc_writer_flush(w, err);
    mc_err rc = write_held(w, err);
    if (rc != MC_OK)
        return rc;
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, "%s: writer stopped after an earlier error", w->path);
    return hand_off(w, err);
}

mc_err mc_writer_flush(mc_writer *w, mc_error *err)
{
    mc_err rc = write_held(w, err);
    if (rc != MC_OK)
        return rc;
    if (w->async) {
        /* A fault in the thread itself: it cannot wait for itself. */
        if (pthread_equal(pthread_self(), w->thread))
            return mc_error_set(err, MC_ERR_INTERNAL, "%s: flush on the compressor thread",
                                w->path);
        if (wait_idle(w, err ? -1 : SIGNAL_WAIT_NS) != 0)
            return mc_error_set(err, MC_ERR_IO, "%s: the compressor thread is stuck", w->path);
        if (!w->failed && (rc = check_thread(w, err)) != MC_OK)
            return rc;
    }
    if (w->nevents == 0)
        return MC_OK;
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, "%s: writer stopped after an earlier error", w->path);
    size_t zerr = 0;
    int eno = 0;
    int why = write_chunk(w, w->raw, w->raw_len, w->nevents, &zerr, &eno);
    if (why != BG_OK)
        return chunk_failed(w, why, zerr, eno, err);
    w->raw_len = 0;
    w->nevents = 0;
    w->prev_end = 0;
    return MC_OK;
}

mc_err mc_writer_close(mc_writer *w, mc_error *err)
{
    if (!w)
        return MC_OK;
    mc_err rc = w->failed ? MC_OK : mc_writer_flush(w, err);
    if (w->async)
        stop_thread(w);
    if (close(w->fd) != 0 && rc == MC_OK)
        rc = mc_error_set(err, MC_ERR_IO, "%s: cannot close: %s", w->path, strerror(errno));
    free(w->cwork);
    free(w->raw);
    free(w->out);
    free(w);
    return rc;
}
