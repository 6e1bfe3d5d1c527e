/* Rank file reader: validates each chunk (header CRC, payload CRC, sizes)
 * before decoding it, and every decoded field before handing it out, so a
 * corrupt or truncated file yields an error naming the file, the chunk and
 * its offset — never a crash. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "codec.h"
#include "reader_where.h"
#include "mpicast/env.h"
#include "mpicast/format.h"
#include "mpicast/outfile.h"

/* Bytes held in chunk buffers by all open readers of the process. A replay
 * holds one decoded chunk per rank; a chunk may decode to 64 MiB (zstd
 * makes that from a few KiB), so a directory of many such files could
 * otherwise take all memory before anything is replayed. */
static atomic_size_t held;

/* A loop record being expanded (codec.h, MC_FILE_OP_LOOP). */
typedef struct loop_state {
    uint64_t iterations, iter; /* N, and the iteration being delivered */
    uint64_t deliver;          /* iterations delivered: N, or the cap */
    uint32_t period, k;        /* body events, and the next one */
    uint32_t req_first, req_count;
    int exact, cols;
    int64_t loop_end;          /* the original loop's end (stored time) */
    int64_t cur_end;           /* end of the last event delivered */
    int64_t *times;            /* the record's values */
    mc_event *body;            /* vals: offsets into body_vals until delivered */
    int64_t *body_vals, *out_vals;
    size_t times_cap, body_cap, body_vals_cap, out_vals_cap; /* bytes, in `held` */
} loop_state;

struct mc_rank_reader {
    /* What each event reads and writes first, in one cache line or two: a
     * replay of thousands of ranks takes each reader in turn, cold. */
    const unsigned char *pos, *end; /* decoding cursor in raw */
    uint32_t left;        /* events left in the chunk */
    int done;             /* end reached or error reported */
    int loop_active;      /* a loop record is being expanded (loop) */
    int64_t prev_end;     /* delta base inside the chunk */
    int64_t last_end;     /* previous event's end, across chunks (for burst) */
    int have_last;
    int last_op;          /* the previous event's operation */
    uint64_t event_index; /* index in the file of the next event (from 0) */
    int64_t shift;        /* delivered time - stored time, after loops */
    int64_t *vals;
    size_t vals_cap;
    unsigned flags;
    int fd;               /* -1 while the pool has closed the file */
    long next;            /* file offset of the next read (pread: no seek) */
    dev_t dev;            /* identity of the file first opened, so a file */
    ino_t ino;            /* replaced while closed by the pool is noticed */
    int busy;             /* fd in use by its owner: the pool must not close it */
    mc_rank_reader *lru_prev, *lru_next; /* in the pool's list while open and idle */
    long chunk_index;     /* index of the chunk being decoded (-1 before the first) */
    long chunk_offset;    /* file offset of its header */
    unsigned char *comp;  /* stored payload */
    size_t comp_cap;
    unsigned char *raw;   /* decompressed payload */
    size_t raw_cap;
    loop_state loop;
    uint64_t loop_cap;    /* iterations delivered per loop record (0: all) */
    uint64_t loop_skipped, loop_records; /* under the cap */
    char *path; /* its own block: readers of 16384 ranks stay a few pages */
};


/* ------------------------------------------------------------ file pool
 * A replay reads every rank's file at once, and 10^5 ranks must not need
 * 10^5 descriptors (`ulimit -n` is often 1024, sometimes 256). Open files
 * are pooled: past the limit, the least recently used idle reader's file is
 * closed, and that reader reopens it at its offset on its next chunk. A
 * chunk is read whole, so a reader touches its file once per chunk and the
 * lock is taken twice per chunk, not per event. Readers may live in several
 * threads (sweep points), hence the mutex; a reader's own file is used by
 * one thread at a time (busy), and only idle files are closed. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static mc_rank_reader *lru_first, *lru_last; /* idle open readers, oldest first */
static size_t pool_open;                     /* readers holding a descriptor */

static void lru_unlink(mc_rank_reader *r)
{
    if (r->lru_prev)
        r->lru_prev->lru_next = r->lru_next;
    else if (lru_first == r)
        lru_first = r->lru_next;
    else
        return; /* not in the list */
    if (r->lru_next)
        r->lru_next->lru_prev = r->lru_prev;
    else
        lru_last = r->lru_prev;
    r->lru_prev = r->lru_next = NULL;
}

static void lru_append(mc_rank_reader *r)
{
    r->lru_prev = lru_last;
    r->lru_next = NULL;
    if (lru_last)
        lru_last->lru_next = r;
    else
        lru_first = r;
    lru_last = r;
}

/* Closes the oldest idle reader's file; called with the lock held. */
static int pool_evict_one(void)
{
    mc_rank_reader *v = lru_first;
    if (!v)
        return 0;
    lru_unlink(v);
    close(v->fd);
    v->fd = -1;
    pool_open--;
    return 1;
}

/* Opens r's file (first open: identity recorded). A descriptor, not a
 * FILE: glibc's fclose walks every open stream, which made closing and
 * reopening through the pool quadratic at 16384 ranks. */
static int reopen(mc_rank_reader *r, mc_error *err)
{
    int fd = mc_in_open(r->path, err); /* a FIFO or device is refused, never waited on */
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot stat: %s", r->path, strerror(errno));
        close(fd);
        return -1;
    }
    if (r->ino == 0 && r->dev == 0) {
        r->dev = st.st_dev;
        r->ino = st.st_ino;
    } else if (st.st_dev != r->dev || st.st_ino != r->ino) {
        mc_error_set(err, MC_ERR_IO, "%s:%ld: the file was replaced while it was being read",
                     r->path, r->next);
        close(fd);
        return -1;
    }
    r->fd = fd;
    return 0;
}

/* Reads up to n bytes at r->next (advancing it): the bytes read, fewer only
 * at the end of the file; -1 with errno on a read error. */
static ssize_t read_at(mc_rank_reader *r, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(r->fd, (char *)buf + got, n - got, (off_t)r->next);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
        r->next += k;
    }
    return (ssize_t)got;
}

/* Makes r->fd usable by its owner until pool_release. */
static int pool_acquire(mc_rank_reader *r, mc_error *err)
{
    pthread_mutex_lock(&pool_lock);
    r->busy = 1;
    if (r->fd >= 0) {
        lru_unlink(r);
        pthread_mutex_unlock(&pool_lock);
        return 0;
    }
    size_t limit = mc_in_open_budget();
    while (pool_open >= limit && pool_evict_one())
        ;
    pool_open++; /* reserved before opening, so two threads cannot both pass the limit */
    pthread_mutex_unlock(&pool_lock);
    if (reopen(r, err) == 0)
        return 0;
    pthread_mutex_lock(&pool_lock);
    pool_open--;
    r->busy = 0;
    pthread_mutex_unlock(&pool_lock);
    return -1;
}

static void pool_release(mc_rank_reader *r)
{
    pthread_mutex_lock(&pool_lock);
    r->busy = 0;
    if (r->fd >= 0)
        lru_append(r);
    pthread_mutex_unlock(&pool_lock);
}

static void pool_close(mc_rank_reader *r)
{
    pthread_mutex_lock(&pool_lock);
    lru_unlink(r);
    if (r->fd >= 0) {
        close(r->fd);
        r->fd = -1;
        pool_open--;
    }
    pthread_mutex_unlock(&pool_lock);
}

static int chunk_error(mc_rank_reader *r, mc_err code, mc_error *err, const char *what)
{
    r->done = 1;
    mc_error_set(err, code, "%s: chunk %ld at offset %ld: %s", r->path, r->chunk_index,
                 r->chunk_offset, what);
    return -1;
}

/* The rank a file's name gives (".../rank-NNNNNN.mct"), or -1 for a file
 * named otherwise (a copy, a test's cut file): then nothing to compare. */
static long rank_of_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (strncmp(name, "rank-", 5) != 0)
        return -1;
    char *end;
    errno = 0;
    long r = strtol(name + 5, &end, 10);
    if (end == name + 5 || errno || r < 0 || strcmp(end, ".mct") != 0)
        return -1;
    return r;
}

/* The header's rank must be the file name's: a swapped or foreign rank
 * file would otherwise be replayed as another rank (and then deadlock). */
static int check_header_rank(const char *path, uint32_t header_rank, mc_error *err)
{
    long named = rank_of_name(path);
    if (named < 0 || (uint64_t)named == header_rank)
        return 0;
    mc_error_set(err, MC_ERR_FORMAT,
                 "%s:12: the header says rank %" PRIu32 ", the file name rank %ld (a rank file "
                 "swapped or copied from another trace?)", path, header_rank, named);
    return -1;
}

mc_rank_reader *mc_rank_reader_open(const char *path, mc_error *err)
{
    mc_rank_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    r->fd = -1;
    r->chunk_index = -1;
    if (pool_acquire(r, err) != 0)
        goto fail;
    unsigned char hdr[MC_FILE_HEADER_SIZE];
    ssize_t rd = read_at(r, hdr, sizeof hdr);
    pool_release(r);
    if (rd < 0) {
        mc_error_set(err, MC_ERR_IO, "%s:0: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    size_t got = (size_t)rd;
    if (got < 8 || memcmp(hdr, MC_FILE_MAGIC, 8) != 0) {
        mc_error_set(err, MC_ERR_FORMAT, "%s:0: not an mpicast rank file (bad magic)", path);
        goto fail;
    }
    if (got < sizeof hdr) {
        mc_error_set(err, MC_ERR_TRUNCATED, "%s:%zu: file header truncated", path, got);
        goto fail;
    }
    uint32_t version = mc_get_u32(hdr + 8);
    if (version != MC_FORMAT_VERSION) {
        mc_error_set(err, MC_ERR_VERSION,
                     "%s:8: format version %u is not supported (this mpicast reads %d)", path,
                     version, MC_FORMAT_VERSION);
        goto fail;
    }
    if (check_header_rank(path, mc_get_u32(hdr + 12), err) != 0)
        goto fail;
    r->flags = mc_get_u32(hdr + 16);
    r->chunk_offset = MC_FILE_HEADER_SIZE;
    return r;
fail:
    mc_rank_reader_close(r);
    return NULL;
}

void mc_rank_reader_close(mc_rank_reader *r)
{
    if (!r)
        return;
    pool_close(r);
    free(r->path);
    atomic_fetch_sub(&held, r->comp_cap + r->raw_cap + r->loop.times_cap + r->loop.body_cap +
                                r->loop.body_vals_cap + r->loop.out_vals_cap);
    free(r->comp);
    free(r->raw);
    free(r->vals);
    free(r->loop.times);
    free(r->loop.body);
    free(r->loop.body_vals);
    free(r->loop.out_vals);
    free(r);
}

/* MPICAST_READ_MEMORY ("512MiB", "4GiB", bytes; checked by mpicast's
 * start, include/mpicast/env.h), else half the RAM. */
static size_t read_budget(void)
{
    const char *e = getenv("MPICAST_READ_MEMORY");
    uint64_t v;
    if (e && *e && mc_env_parse_bytes(e, &v) == 0)
        return v < SIZE_MAX ? (size_t)v : SIZE_MAX;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t half = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : (size_t)1 << 32;
    return half < ((size_t)256 << 20) ? (size_t)256 << 20 : half;
}

/* buf grown to `need` bytes (*cap bytes held so far, counted in `held`
 * against the budget): the new block, or NULL with buf kept and *why -1 out
 * of memory, -2 over the budget. */
static void *grow_to(void *buf, size_t *cap, size_t need, int *why)
{
    if (need <= *cap)
        return buf;
    size_t more = need - *cap;
    *why = -2;
    if (atomic_fetch_add(&held, more) + more > read_budget()) {
        atomic_fetch_sub(&held, more);
        return NULL;
    }
    void *p = realloc(buf, need);
    if (!p) {
        atomic_fetch_sub(&held, more);
        *why = -1;
        return NULL;
    }
    *cap = need;
    return p;
}

/* 0, -1 out of memory, -2 over the budget. */
static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    int why = 0;
    unsigned char *p = grow_to(*buf, cap, need, &why);
    if (!p)
        return why;
    *buf = p;
    return 0;
}

/* One decompression context per thread, not per rank (94 KiB on each of
 * thousands of ranks) nor per chunk (creating one cost 7 % of reading a
 * 16384-rank trace); freed when the thread ends. */
static pthread_key_t dctx_key;
static pthread_once_t dctx_once = PTHREAD_ONCE_INIT;
static int dctx_key_ok;

static void dctx_free(void *p) { ZSTD_freeDCtx(p); }
static void dctx_key_make(void) { dctx_key_ok = pthread_key_create(&dctx_key, dctx_free) == 0; }

static ZSTD_DCtx *thread_dctx(void)
{
    pthread_once(&dctx_once, dctx_key_make);
    if (!dctx_key_ok)
        return NULL;
    ZSTD_DCtx *d = pthread_getspecific(dctx_key);
    if (!d && (d = ZSTD_createDCtx()) != NULL && pthread_setspecific(dctx_key, d) != 0) {
        ZSTD_freeDCtx(d);
        d = NULL;
    }
    return d;
}

/* Reads and decodes the next chunk from r->fd (held by the caller). */
static int load_chunk_held(mc_rank_reader *r, mc_error *err)
{
    unsigned char h[MC_CHUNK_HEADER_SIZE];
    r->chunk_index++;
    r->chunk_offset = r->next;
    ssize_t got = read_at(r, h, sizeof h);
    if (got < 0)
        return chunk_error(r, MC_ERR_IO, err, strerror(errno));
    if (got == 0)
        return 0;
    if ((size_t)got < sizeof h)
        return chunk_error(r, MC_ERR_TRUNCATED, err, "file ends inside the chunk header");
    if (mc_get_u32(h) != MC_CHUNK_MAGIC || mc_get_u32(h + 20) != (uint32_t)crc32(0L, h, 20))
        return chunk_error(r, MC_ERR_FORMAT, err, "corrupt chunk header");
    uint32_t nevents = mc_get_u32(h + 4), raw_len = mc_get_u32(h + 8);
    uint32_t comp_len = mc_get_u32(h + 12);
    if (nevents == 0 || nevents > MC_CHUNK_MAX_EVENTS || raw_len > MC_CHUNK_MAX_RAW ||
        comp_len > ZSTD_compressBound(MC_CHUNK_MAX_RAW))
        return chunk_error(r, MC_ERR_FORMAT, err, "chunk sizes out of range");
    int g = grow(&r->comp, &r->comp_cap, comp_len ? comp_len : 1);
    if (!g)
        g = grow(&r->raw, &r->raw_cap, raw_len ? raw_len : 1);
    if (g == -2) {
        char what[256];
        snprintf(what, sizeof what, "decoding this %u-byte chunk would take the chunks held "
                 "by all ranks past %zu KiB (MPICAST_READ_MEMORY raises the limit)",
                 raw_len, read_budget() >> 10);
        return chunk_error(r, MC_ERR_NOMEM, err, what);
    }
    if (g)
        return chunk_error(r, MC_ERR_NOMEM, err, "out of memory");
    got = read_at(r, r->comp, comp_len);
    if (got < 0)
        return chunk_error(r, MC_ERR_IO, err, strerror(errno));
    if ((size_t)got < comp_len)
        return chunk_error(r, MC_ERR_TRUNCATED, err, "file ends inside the chunk");
    if (mc_get_u32(h + 16) != (uint32_t)crc32(0L, r->comp, comp_len))
        return chunk_error(r, MC_ERR_FORMAT, err, "checksum mismatch");
    ZSTD_DCtx *dctx = thread_dctx();
    if (!dctx)
        return chunk_error(r, MC_ERR_NOMEM, err, "out of memory");
    size_t n = ZSTD_decompressDCtx(dctx, r->raw, raw_len, r->comp, comp_len);
    if (ZSTD_isError(n) || n != raw_len)
        return chunk_error(r, MC_ERR_FORMAT, err, "payload does not decompress to its size");
    r->pos = r->raw;
    r->end = r->raw + raw_len;
    r->left = nevents;
    r->prev_end = 0;
    return 1;
}

/* Loads the next chunk: 1 loaded, 0 clean end of file, -1 error. */
static int load_chunk(mc_rank_reader *r, mc_error *err)
{
    if (pool_acquire(r, err) != 0) {
        r->done = 1;
        return -1;
    }
    int rc = load_chunk_held(r, err);
    pool_release(r);
    return rc;
}

/* The decoders work on a cursor kept in a register (cur), stored back to
 * the reader once per event, not once per byte. */
typedef struct cursor {
    const unsigned char *p, *end;
} cursor;

static inline int get_s(cursor *c, int64_t *out)
{
    uint64_t v;
    if (mc_get_uvarint(&c->p, c->end, &v))
        return -1;
    *out = mc_unzigzag(v);
    return 0;
}

static inline int get_u(cursor *c, uint64_t *out, uint64_t max)
{
    return mc_get_uvarint(&c->p, c->end, out) || *out > max ? -1 : 0;
}

/* mc_event_clear's values are MC_EVENT_FIELDS' defaults (the round trip
 * test writes every field at its default and reads it back), and it sets
 * every field: a new one changes the size (here, not in the public header,
 * which C++ may include). */
_Static_assert(sizeof(mc_event) == 120, "mc_event_clear (format.h) sets every field of mc_event");
static inline void set_defaults(mc_event *e) { mc_event_clear(e); }

/* The decoders of the MC_EVENT_FIELDS encodings: 0, or -1 if malformed. */
static inline int get_U31(cursor *c, int32_t *out)
{
    uint64_t v;
    if (get_u(c, &v, INT32_MAX))
        return -1;
    *out = (int32_t)v;
    return 0;
}

static inline int get_U32(cursor *c, uint32_t *out)
{
    uint64_t v;
    if (get_u(c, &v, UINT32_MAX))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static inline int get_U64(cursor *c, uint64_t *out) { return get_u(c, out, UINT64_MAX); }

static inline int get_S32(cursor *c, int32_t *out)
{
    int64_t v;
    if (get_s(c, &v) || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static inline int get_S64(cursor *c, int64_t *out) { return get_s(c, out); }

static void drop_vals(mc_rank_reader *r)
{
    free(r->vals);
    r->vals = NULL;
    r->vals_cap = 0;
}

void mc_rank_reader_drop_vals(mc_rank_reader *r) { drop_vals(r); }

/* A chunk that ends with a large array (the writer ends one there) is
 * released once read: P ranks waiting in the collective that creates a
 * communicator of all of them would otherwise each hold its chunk. */
static void release_chunk(mc_rank_reader *r)
{
    atomic_fetch_sub(&held, r->comp_cap + r->raw_cap);
    free(r->comp);
    free(r->raw);
    r->comp = r->raw = NULL;
    r->comp_cap = r->raw_cap = 0;
    r->pos = r->end = NULL;
}

static int decode_vals(mc_rank_reader *r, cursor *c, mc_event *e, int delta)
{
    uint64_t n;
    /* each value takes at least one byte: a count beyond the bytes left is corrupt */
    if (get_u(c, &n, MC_EVENT_MAX_VALS) || n > (uint64_t)(c->end - c->p))
        return -1;
    if (n > r->vals_cap) {
        int64_t *v = realloc(r->vals, n * sizeof *v);
        if (!v)
            return -1;
        r->vals = v;
        r->vals_cap = n;
    }
    for (uint64_t i = 0; i < n; i++)
        if (get_s(c, &r->vals[i]))
            return -1;
    if (delta) /* differences (writer.c), wrapping as they were taken */
        for (uint64_t i = 1; i < n; i++)
            r->vals[i] = (int64_t)((uint64_t)r->vals[i] + (uint64_t)r->vals[i - 1]);
    e->nvals = (uint32_t)n;
    e->vals = r->vals;
    return 0;
}

/* Decodes one event at the cursor; -1 if malformed. Times that overflow
 * int64 are malformed too (a corrupt delta must not wrap around). */
static int decode_fields(mc_rank_reader *r, cursor *c, mc_event *e)
{
    uint64_t op, f;
    int64_t start, dur;
    set_defaults(e);
    if (__builtin_expect(r->vals_cap > MC_LARGE_VALS, 0))
        drop_vals(r); /* the previous event's values are no longer valid */
    if (get_u(c, &op, MC_FILE_OP_LOOP) || (op >= MC_OP_COUNT && op != MC_FILE_OP_LOOP) ||
        get_u(c, &f, MC_F_ALL) || get_s(c, &start) || get_s(c, &dur))
        return -1;
    e->op = (int32_t)op;
    if (__builtin_add_overflow(r->prev_end, start, &e->t_start) ||
        __builtin_add_overflow(e->t_start, dur, &e->t_end))
        return -1;
#define GET_(field, bit, enc, def)                   \
    if ((f & (bit)) && get_##enc(c, &e->field) != 0) \
        return -1;
    MC_EVENT_FIELDS(GET_)
#undef GET_
    /* Older tracers stored MC_COMM_NULL as every event's newcomm; outside
     * communicator management the default, 0, means the same: old and new
     * traces of one program read alike. */
    if ((f & MC_F_NEWCOMM) && e->newcomm == MC_COMM_NULL && mc_op_kind_of(e->op) != MC_KIND_M)
        e->newcomm = 0;
    if ((f & MC_F_VALS_DELTA) && !(f & MC_F_VALS))
        return -1;
    if ((f & MC_F_VALS) && decode_vals(r, c, e, (f & MC_F_VALS_DELTA) != 0))
        return -1;
    /* folded is for failed polls only: anything else is corrupt */
    if ((f & MC_F_FOLDED) &&
        (get_u(c, &e->folded, INT64_MAX - 1) || !mc_event_is_failed_poll(e)))
        return -1;
    return 0;
}

static int decode_event(mc_rank_reader *r, mc_event *e)
{
    cursor c = {r->pos, r->end};
    int rc = decode_fields(r, &c, e);
    r->pos = c.p;
    return rc;
}

static int event_error(mc_rank_reader *r, mc_error *err, const char *what)
{
    r->done = 1;
    mc_error_set(err, MC_ERR_FORMAT, "%s: chunk %ld at offset %ld: event %llu: %s", r->path,
                 r->chunk_index, r->chunk_offset, (unsigned long long)r->event_index, what);
    return -1;
}

const void *mc_rank_reader_ahead(const mc_rank_reader *r)
{
    if (r->loop_active) /* the body it reads instead */
        return &r->loop.body[r->loop.k];
    return r->pos && r->pos < r->end ? r->pos : NULL;
}

void mc_rank_reader_where(const mc_rank_reader *r, long *chunk, long *offset, uint64_t *event)
{
    *chunk = r->chunk_index;
    *offset = r->chunk_offset;
    *event = r->event_index ? r->event_index - 1 : 0;
}

/* A clean end of file is the stream's end only when the tracer's stream
 * reached its Finalize event; files that do not promise it always are. */
static int finalized(const mc_rank_reader *r)
{
    return !(r->flags & MC_WRITER_ENDS_WITH_FINALIZE) ||
           (r->have_last && r->last_op == MC_OP_FINALIZE);
}

static int unfinished_error(mc_rank_reader *r, mc_error *err)
{
    r->done = 1;
    if (!r->have_last)
        return mc_error_set(err, MC_ERR_TRUNCATED, "%s: no events: the run stopped before "
                            "this rank's first chunk was written", r->path), -1;
    return mc_error_set(err, MC_ERR_TRUNCATED, "%s: ends after event %llu (%s) without "
                        "MPI_Finalize: the run stopped early or the file was cut at a chunk "
                        "boundary", r->path, (unsigned long long)(r->event_index - 1),
                        mc_op_name(r->last_op)), -1;
}

/* The next event as stored (loop records included), times as stored. */
static int next_stored(mc_rank_reader *r, mc_event *e, mc_error *err)
{
    if (r->done)
        return 0;
    if (r->left == 0) {
        if (r->pos != r->end)
            return chunk_error(r, MC_ERR_FORMAT, err, "trailing bytes after the last event");
        int rc = load_chunk(r, err);
        if (rc == 0 && !finalized(r))
            return unfinished_error(r, err);
        if (rc <= 0) {
            r->done = 1;
            return rc;
        }
    }
    if (decode_event(r, e) != 0)
        return event_error(r, err, "malformed event");
    if (!r->have_last)
        e->burst = 0;
    else if (__builtin_sub_overflow(e->t_start, r->last_end, &e->burst))
        return event_error(r, err, "time out of range");
    r->left--;
    if (r->left == 0 && r->pos != r->end)
        return chunk_error(r, MC_ERR_FORMAT, err, "trailing bytes after the last event");
    if (r->left == 0 && e->nvals > MC_LARGE_VALS)
        release_chunk(r);
    r->event_index++;
    r->prev_end = e->t_end;
    r->last_end = e->t_end;
    r->have_last = 1;
    r->last_op = e->op;
    return 1;
}

/* ------------------------------------------------------------ loop records */

/* A loop buffer grown to n elements of sz bytes (the budget of
 * MPICAST_READ_MEMORY counts it, as the chunks); NULL with err set. */
static void *loop_buffer(mc_rank_reader *r, void *buf, size_t *cap, size_t n, size_t sz,
                         mc_error *err)
{
    int why = 0;
    void *p = grow_to(buf, cap, (n ? n : 1) * sz, &why);
    if (!p)
        chunk_error(r, MC_ERR_NOMEM, err,
                    why == -2 ? "a loop record's buffers would pass the read budget "
                                "(MPICAST_READ_MEMORY raises it)"
                              : "out of memory");
    return p;
}

/* Reads the loop record rec's parameters and values and its body (the
 * next `period` stored events). */
static int loop_start(mc_rank_reader *r, const mc_event *rec, mc_error *err)
{
    loop_state *L = &r->loop;
    L->iterations = (uint64_t)rec->bytes;
    L->period = (uint32_t)rec->peer;
    L->req_first = rec->req;
    L->req_count = (uint32_t)rec->peer2;
    L->exact = (rec->tag & MC_LOOP_EXACT) != 0;
    L->cols = rec->tag & MC_LOOP_CPU ? 3 : 2;
    L->loop_end = rec->bytes2;
    uint64_t rows = L->exact ? (L->iterations - 1) : 1;
    if (rec->bytes < 1 || rec->bytes > (int64_t)1 << 40 || rec->peer < 1 ||
        (uint32_t)rec->peer > MC_LOOP_MAX_PERIOD || rec->peer2 < 0 || rec->tag < 0 ||
        rec->tag > (MC_LOOP_EXACT | MC_LOOP_CPU) ||
        (uint64_t)L->req_first + (uint64_t)L->req_count * L->iterations > UINT32_MAX ||
        rows > MC_LOOP_MAX_VALUES || rows * L->period * (uint64_t)L->cols != rec->nvals)
        return event_error(r, err, "malformed loop record");
    int64_t *times = loop_buffer(r, L->times, &L->times_cap, rec->nvals, sizeof *times, err);
    if (!times)
        return -1;
    L->times = times;
    mc_event *body = loop_buffer(r, L->body, &L->body_cap, L->period, sizeof *body, err);
    if (!body)
        return -1;
    L->body = body;
    if (rec->nvals)
        memcpy(L->times, rec->vals, rec->nvals * sizeof *L->times);
    size_t nv = 0;
    for (uint32_t k = 0; k < L->period; k++) {
        mc_event *b = &L->body[k];
        int rc = next_stored(r, b, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return event_error(r, err, "the stream ends inside a loop's body");
        if (b->op == (int32_t)MC_FILE_OP_LOOP || nv + b->nvals > MC_LOOP_MAX_VALUES)
            return event_error(r, err, "a loop record inside a loop's body, or a body too large");
        int64_t *bv = loop_buffer(r, L->body_vals, &L->body_vals_cap, nv + b->nvals,
                                  sizeof *bv, err);
        if (!bv)
            return -1;
        L->body_vals = bv;
        if (b->nvals) /* vals may be NULL without values */
            memcpy(L->body_vals + nv, b->vals, b->nvals * sizeof *b->vals);
        b->vals = (int64_t *)(uintptr_t)nv; /* an offset until delivered */
        nv += b->nvals;
    }
    int64_t *ov = loop_buffer(r, L->out_vals, &L->out_vals_cap, nv, sizeof *ov, err);
    if (!ov)
        return -1;
    L->out_vals = ov;
    if (__builtin_add_overflow(rec->t_end, r->shift, &L->cur_end))
        return event_error(r, err, "time out of range in a loop");
    L->iter = 0;
    L->k = 0;
    r->loop_active = 1;
    L->deliver = r->loop_cap && r->loop_cap < L->iterations ? r->loop_cap : L->iterations;
    r->loop_skipped += L->iterations - L->deliver;
    r->loop_records++;
    return 0;
}


void mc_event_shift_requests(mc_event *e, uint64_t lo, uint64_t hi, int64_t delta)
{
    if (e->req && e->req >= lo && e->req < hi)
        e->req = (uint32_t)((int64_t)e->req + delta);
    int completion = mc_op_has(e->op, MC_OPF_COMPLETION);
    if (!completion && !mc_op_has(e->op, MC_OPF_REQ_LIST))
        return;
    for (uint32_t i = 0; i < e->nvals; i += completion ? 4 : 1)
        if (e->vals[i] > 0 && (uint64_t)e->vals[i] >= lo && (uint64_t)e->vals[i] < hi)
            e->vals[i] += delta;
}

void mc_loop_shift_requests(mc_event *e, uint32_t first, uint32_t count, uint64_t j)
{
    mc_event_shift_requests(e, first, (uint64_t)first + count, (int64_t)(j * count));
}

/* Body event k of the current iteration into *e. */
static int loop_next(mc_rank_reader *r, mc_event *e, mc_error *err)
{
    loop_state *L = &r->loop;
    const mc_event *b = &L->body[L->k];
    size_t off = (size_t)(uintptr_t)b->vals;
    *e = *b;
    e->vals = L->out_vals;
    if (b->nvals)
        memcpy(e->vals, L->body_vals + off, b->nvals * sizeof *e->vals);
    if (L->iter == 0) {
        if (__builtin_add_overflow(e->t_start, r->shift, &e->t_start) ||
            __builtin_add_overflow(e->t_end, r->shift, &e->t_end))
            return event_error(r, err, "time out of range in a loop");
    } else {
        const int64_t *row = L->times + ((L->exact ? (L->iter - 1) * L->period : 0) + L->k) *
                                            (uint64_t)L->cols;
        e->burst = row[0];
        if (L->cols == 3)
            e->cpu = row[2];
        if (__builtin_add_overflow(L->cur_end, row[0], &e->t_start) ||
            __builtin_add_overflow(e->t_start, row[1], &e->t_end))
            return event_error(r, err, "time out of range in a loop");
        mc_loop_shift_requests(e, L->req_first, L->req_count, L->iter);
    }
    L->cur_end = e->t_end;
    if (++L->k == L->period) {
        L->k = 0;
        if (++L->iter == L->deliver) {
            /* stored events go on from the original loop's end; under a cap,
             * earlier by the iterations left out */
            r->loop_active = 0;
            if (__builtin_sub_overflow(L->cur_end, L->loop_end, &r->shift))
                return event_error(r, err, "loop record's end time out of range");
            r->last_end = L->loop_end;
        }
    }
    return 1;
}

int mc_rank_reader_next(mc_rank_reader *r, mc_event *e, mc_error *err)
{
    if (r->loop_active)
        return loop_next(r, e, err);
    int rc = next_stored(r, e, err);
    if (rc != 1)
        return rc;
    if (e->op == (int32_t)MC_FILE_OP_LOOP)
        return loop_start(r, e, err) ? -1 : loop_next(r, e, err);
    if (r->shift && /* 0 unless a loop record came before */
        (__builtin_add_overflow(e->t_start, r->shift, &e->t_start) ||
         __builtin_add_overflow(e->t_end, r->shift, &e->t_end)))
        return event_error(r, err, "time out of range after a loop");
    return 1;
}

void mc_rank_reader_set_loop_cap(mc_rank_reader *r, uint64_t cap)
{
    r->loop_cap = cap;
}

uint64_t mc_rank_reader_loop_skipped(const mc_rank_reader *r, uint64_t *records)
{
    if (records)
        *records = r->loop_records;
    return r->loop_skipped;
}
