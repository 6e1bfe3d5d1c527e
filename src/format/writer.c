/* Rank file writer: events are varint-encoded into a raw buffer and written
 * as zstd-compressed, CRC-checked chunks (docs/trace-format.md). Everything a
 * flush needs is allocated at open so that mc_writer_flush can run from a
 * signal handler: the zstd context is a static one over a workspace sized
 * for level 1 and any input (ZSTD_initStaticCCtx never allocates), output
 * uses write(2), and with err == NULL a failure formats no message (no
 * strerror, no snprintf). The memory is bounded by the chunk buffer, which
 * grows only for a single event larger than it. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStaticCCtx, ZSTD_estimateCCtxSize */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Sizes the raw and output buffers for `cap` raw bytes. */
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
    size_t out_cap = MC_CHUNK_HEADER_SIZE + ZSTD_compressBound(cap);
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

static size_t encode(unsigned char *p, const mc_event *e, int64_t prev_end)
{
    unsigned f = presence(e);
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
        for (uint32_t i = 0; i < e->nvals; i++)
            n += mc_put_uvarint(p + n, mc_zigzag(e->vals[i]));
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

static mc_err add_one(mc_writer *w, const mc_event *e, mc_error *err)
{
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, "%s: writer stopped after an earlier error", w->path);
    if (e->nvals > MC_EVENT_MAX_VALS)
        return mc_error_set(err, MC_ERR_USAGE, "%s: event has too many values (%u)", w->path,
                            e->nvals);
    size_t need = EVENT_FIXED_MAX + (size_t)e->nvals * 10;
    if (w->nevents >= w->chunk_events || w->raw_len + need > w->raw_cap) {
        mc_err rc = mc_writer_flush(w, err);
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

mc_err mc_writer_flush(mc_writer *w, mc_error *err)
{
    mc_err rc = write_held(w, err);
    if (rc != MC_OK)
        return rc;
    if (w->nevents == 0)
        return MC_OK;
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, "%s: writer stopped after an earlier error", w->path);
    unsigned char *payload = w->out + MC_CHUNK_HEADER_SIZE;
    size_t clen = ZSTD_compressCCtx(w->cctx, payload, w->out_cap - MC_CHUNK_HEADER_SIZE,
                                    w->raw, w->raw_len, ZSTD_LEVEL);
    if (ZSTD_isError(clen)) {
        w->failed = 1;
        return mc_error_set(err, MC_ERR_INTERNAL, "%s: compression failed: %s", w->path,
                            err ? ZSTD_getErrorName(clen) : "");
    }
    unsigned char *h = w->out;
    mc_put_u32(h, MC_CHUNK_MAGIC);
    mc_put_u32(h + 4, w->nevents);
    mc_put_u32(h + 8, (uint32_t)w->raw_len);
    mc_put_u32(h + 12, (uint32_t)clen);
    mc_put_u32(h + 16, (uint32_t)crc32(0L, payload, (uInt)clen));
    mc_put_u32(h + 20, (uint32_t)crc32(0L, h, 20));
    if (write_all(w->fd, w->out, MC_CHUNK_HEADER_SIZE + clen) != 0) {
        w->failed = 1;
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", w->path,
                            err ? strerror(errno) : "");
    }
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
    if (close(w->fd) != 0 && rc == MC_OK)
        rc = mc_error_set(err, MC_ERR_IO, "%s: cannot close: %s", w->path, strerror(errno));
    free(w->cwork);
    free(w->raw);
    free(w->out);
    free(w);
    return rc;
}
