/* Reader of SimGrid time-independent traces as an mc_source
 * (include/mpicast/tit.h has the conventions).
 *
 * Each rank reads its lines through a list of byte ranges ("runs") of one
 * file: a per-rank file is a single run to its end; a merged file is indexed
 * once on open into the runs of consecutive lines of each rank. Reads use
 * pread on a file opened per buffer refill, so thousands of ranks never hold
 * thousands of descriptors, and a rank's memory is its buffer, its
 * outstanding requests and its runs. */
#include "mpicast/tit.h"
#include "mpicast/outfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h> /* isfinite, isnan: macros */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define BUF_INITIAL (16u << 10)
#define LINE_MAX_BYTES (64u << 20)
#define MAX_COUNT 4.0e18 /* largest byte or flop count accepted */


typedef struct tit_run {
    int64_t start, end; /* byte range [start, end); end < 0: to end of file */
} tit_run;

typedef struct tit_req {
    uint32_t id;
    int32_t src, dst, tag; /* envelope as written (world ranks; < 0 = any) */
    int32_t is_recv;
    int64_t bytes;
} tit_req;

typedef struct tit_rank {
    int file;           /* index into the source's paths */
    tit_run *runs;
    size_t nruns, run;  /* run = index of the run being read */
    int64_t off;        /* file offset of buf[len] */
    int64_t lineno;     /* number of the line returned last (per-rank files) */
    int64_t line_off;   /* file offset of the line returned last */
    char *buf;
    size_t pos, len, cap;
    int started, at_end, failed;
    /* replay state */
    tit_req *reqs;
    size_t nreqs, cap_reqs;
    uint32_t next_req;
    int dtsize;          /* default datatype size: 1 (MPI_BYTE) or 8 */
    int64_t clock_ns;    /* advanced by sleep */
    int64_t last_end;
    int64_t *vals;
    size_t cap_vals;
    char *err_msg;       /* the error that stopped the rank, repeated after */
    mc_err err_code;
    int32_t pending_op;  /* event owed after the one delivered (-1: none): */
    int64_t pending_bytes; /* a reduction's compute, or Finalize after Waitall */
} tit_rank;

typedef struct tit_source {
    mc_source base;
    char *name;
    char **paths;
    int npaths;
    int merged;          /* one file for all ranks (line numbers computed on error) */
    int *fds;            /* per path: open descriptor or -1 */
    int nopen;
    tit_rank *ranks;
    char **tok;          /* tokens of the line being parsed */
    size_t cap_tok;
} tit_source;

/* One line being turned into events. */
typedef struct line_ctx {
    tit_source *s;
    tit_rank *rk;
    int rank, nranks;
    const char *path;
    char **tok;  /* tok[0] = action name, tok[1..] = arguments */
    int nargs;   /* number of arguments */
    mc_error *err;
} line_ctx;

/* ------------------------------------------------------------ tokens */

/* An ASCII digit, without the locale table isdigit reads per call. */
static inline int is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* Rank token: "12" or "p12". Returns the rank or -1. */
static long parse_rank_token(const char *t)
{
    if (*t == 'p' || *t == 'P')
        t++;
    if (!is_digit(*t))
        return -1;
    long v = 0;
    for (; is_digit(*t); t++) {
        v = v * 10 + (*t - '0');
        if (v >= MC_TIT_MAX_RANKS)
            return -2;
    }
    return *t == '\0' ? v : -1;
}

static int is_blank_or_comment(const char *line)
{
    while (*line == ' ' || *line == '\t' || *line == '\r')
        line++;
    return *line == '\0' || *line == '\n' || *line == '#';
}

/* Splits line in place on blanks into s->tok; returns the count or -1. */
/* Token separators; END also ends a token. */
enum { CH_OTHER, CH_SPACE, CH_END };
static const unsigned char char_class[256] = {['\0'] = CH_END, [' '] = CH_SPACE, ['\t'] = CH_SPACE,
                                              ['\r'] = CH_SPACE, ['\n'] = CH_SPACE};

static int tokenize(tit_source *s, char *line)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (char_class[(unsigned char)*p] == CH_SPACE)
            *p++ = '\0';
        if (*p == '\0')
            break;
        if (n == s->cap_tok) {
            size_t cap = s->cap_tok ? 2 * s->cap_tok : 64;
            char **t = realloc(s->tok, cap * sizeof *t);
            if (!t)
                return -1;
            s->tok = t;
            s->cap_tok = cap;
        }
        s->tok[n++] = p;
        while (char_class[(unsigned char)*p] == CH_OTHER)
            p++;
    }
    return (int)n;
}

/* ------------------------------------------------------------ reading lines */

static int read_error(tit_source *s, tit_rank *rk, mc_error *err, const char *what)
{
    mc_error_set(err, MC_ERR_IO, "%s: cannot read: %s", s->paths[rk->file], what);
    return -1;
}

/* Line number of the line at rk->line_off. A merged trace does not keep
 * line numbers (they would cost memory per line): they are counted from the
 * start of the file when an error needs one. */
static long long line_number(tit_source *s, tit_rank *rk)
{
    if (!s->merged)
        return (long long)rk->lineno;
    int fd = open(s->paths[rk->file], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char chunk[1 << 16];
    long long lines = 1;
    for (int64_t off = 0; off < rk->line_off;) {
        size_t want = sizeof chunk;
        if ((int64_t)want > rk->line_off - off)
            want = (size_t)(rk->line_off - off);
        ssize_t got = pread(fd, chunk, want, off);
        if (got <= 0)
            break;
        for (const char *p = chunk; (p = memchr(p, '\n', (size_t)(chunk + got - p))) != NULL; p++)
            lines++;
        off += got;
    }
    close(fd);
    return lines;
}

/* Descriptors cached by all TIT sources of the process: predict holds two
 * sources of one trace at once (both replays), so a per-source cap could
 * still pass the descriptor limit. */
static atomic_size_t fds_cached;

/* A descriptor for file i: cached while the process holds fewer than half
 * its input budget (mc_in_open_budget), so a merged trace keeps its one
 * descriptor and thousands of per-rank files do not exhaust the limit.
 * *temporary tells the caller to close it. */
static int file_fd(tit_source *s, int i, int *temporary)
{
    *temporary = 0;
    if (s->fds[i] >= 0)
        return s->fds[i];
    /* O_NONBLOCK: checked regular at open; a file swapped for a FIFO since
     * then must not block (pread of a regular file ignores the flag) */
    int fd = open(s->paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && atomic_fetch_add(&fds_cached, 1) < mc_in_open_budget() / 2) {
        s->fds[i] = fd;
        s->nopen++;
    } else {
        if (fd >= 0) /* over the budget: used once and closed by the caller */
            atomic_fetch_sub(&fds_cached, 1);
        *temporary = 1;
    }
    return fd;
}

/* Reads more of the current run into rk->buf. Returns bytes added (0 at the
 * end of the run), -1 on error. */
static ssize_t refill(tit_source *s, tit_rank *rk, mc_error *err)
{
    const tit_run *run = &rk->runs[rk->run];
    if (rk->pos > 0) {
        memmove(rk->buf, rk->buf + rk->pos, rk->len - rk->pos);
        rk->len -= rk->pos;
        rk->pos = 0;
        rk->buf[rk->len] = '\0'; /* the fast path's sentinel (fast_event) */
    }
    if (rk->len == rk->cap) {
        if (rk->cap >= LINE_MAX_BYTES) {
            rk->line_off = rk->off - (int64_t)rk->len;
            rk->lineno++;
            mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: line too long", s->paths[rk->file],
                         line_number(s, rk));
            return -1;
        }
        size_t cap = rk->cap ? 2 * rk->cap : BUF_INITIAL;
        char *b = realloc(rk->buf, cap + 1);
        if (!b)
            return read_error(s, rk, err, "out of memory");
        rk->buf = b;
        rk->cap = cap;
    }
    size_t want = rk->cap - rk->len;
    if (run->end >= 0 && (int64_t)want > run->end - rk->off)
        want = (size_t)(run->end - rk->off);
    if (want == 0)
        return 0;
    int temporary;
    int fd = file_fd(s, rk->file, &temporary);
    if (fd < 0)
        return read_error(s, rk, err, strerror(errno));
    ssize_t got = pread(fd, rk->buf + rk->len, want, rk->off);
    int saved = errno;
    if (temporary)
        close(fd);
    if (got < 0)
        return read_error(s, rk, err, strerror(saved));
    rk->len += (size_t)got;
    rk->off += got;
    rk->buf[rk->len] = '\0'; /* the fast path's sentinel (fast_event) */
    return got;
}

static void start_run(tit_rank *rk)
{
    rk->off = rk->runs[rk->run].start;
    rk->pos = rk->len = 0;
}

/* The line at pos is taken; the next starts at buf[next]. */
static void pass_line(tit_rank *rk, size_t next)
{
    rk->line_off = rk->off - (int64_t)(rk->len - rk->pos);
    rk->pos = next;
    rk->lineno++;
}

/* Hands out buf[pos, end) as the next line. */
static void take_line(tit_rank *rk, char **line, size_t end, size_t next)
{
    rk->buf[end] = '\0';
    *line = rk->buf + rk->pos;
    pass_line(rk, next);
}

/* Next physical line of the rank, NUL-terminated, without its newline.
 * Returns 1, 0 at the end, -1 on error. */
static int next_line(tit_source *s, tit_rank *rk, char **line, mc_error *err)
{
    if (!rk->started) {
        rk->started = 1;
        if (rk->nruns == 0)
            return 0;
        start_run(rk);
    }
    for (;;) {
        char *nl = rk->len > rk->pos ? memchr(rk->buf + rk->pos, '\n', rk->len - rk->pos) : NULL;
        if (nl) {
            size_t end = (size_t)(nl - rk->buf);
            take_line(rk, line, end, end + 1);
            return 1;
        }
        ssize_t got = refill(s, rk, err);
        if (got < 0)
            return -1;
        if (got > 0)
            continue;
        if (rk->len > rk->pos) { /* last line without a newline */
            take_line(rk, line, rk->len, rk->len);
            return 1;
        }
        if (rk->run + 1 >= rk->nruns)
            return 0;
        rk->run++;
        start_run(rk);
    }
}

/* ------------------------------------------------------------ arguments */

/* Nearest integer of a value in [0, MAX_COUNT] (mc_format does not link
 * libm). */
static int64_t round_nonneg(double v)
{
    return (int64_t)(v + 0.5);
}

static int fail(line_ctx *c, const char *fmt, const char *a, long long b)
{
    char what[512];
    snprintf(what, sizeof what, fmt, a, b);
    mc_error_set(c->err, MC_ERR_FORMAT, "%s:%lld: %s: %s", c->path, line_number(c->s, c->rk), c->tok[0],
                 what);
    return -1;
}

static int nomem(line_ctx *c)
{
    mc_error_set(c->err, MC_ERR_NOMEM, "%s:%lld: out of memory", c->path, line_number(c->s, c->rk));
    return -1;
}

/* A token of decimal digits only (at most 18, optionally after '-'): its
 * value in *v and 1; 0 for anything else (parsed by strtod/strtoll then).
 * Nearly every number of a trace is one: this skips the locale-aware
 * parsers, which cost more than the rest of reading a line. */
static int plain_integer(const char *t, int64_t *v)
{
    int neg = *t == '-';
    const char *p = t + neg;
    int64_t x = 0;
    int n = 0;
    for (; *p >= '0' && *p <= '9' && n < 18; p++, n++) /* 18 digits never overflow */
        x = x * 10 + (*p - '0');
    if (*p != '\0' || n == 0) /* more digits, or not a plain integer */
        return 0;
    *v = neg ? -x : x;
    return 1;
}

static int arg_double(line_ctx *c, int i, double *out)
{
    const char *t = c->tok[i];
    int64_t iv;
    if (plain_integer(t, &iv)) {
        *out = (double)iv;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (end == t || *end != '\0' || !isfinite(v) || isnan(v))
        return fail(c, "bad number '%s' (argument %lld)", t, i);
    *out = v;
    return 0;
}

static int arg_int(line_ctx *c, int i, int32_t *out)
{
    const char *t = c->tok[i];
    int64_t iv;
    if (plain_integer(t, &iv) && iv >= INT32_MIN && iv <= INT32_MAX) {
        *out = (int32_t)iv;
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (end == t || *end != '\0' || errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
        return fail(c, "bad integer '%s' (argument %lld)", t, i);
    *out = (int32_t)v;
    return 0;
}

/* A world rank: 0 <= r < nranks; with allow_any, negative means MC_ANY. */
static int arg_rank(line_ctx *c, int i, int allow_any, int32_t *out)
{
    int32_t r;
    if (arg_int(c, i, &r) < 0)
        return -1;
    if (r < 0 && allow_any) {
        *out = MC_ANY;
        return 0;
    }
    if (r < 0 || r >= c->nranks) {
        char what[64];
        snprintf(what, sizeof what, "%d", r);
        return fail(c, "rank %s out of range (the trace has %lld ranks)", what, c->nranks);
    }
    *out = r;
    return 0;
}

/* Datatype ids of SimGrid's Datatype::encode (smpi_datatype.cpp), with
 * their sizes on x86-64. */
static int arg_datatype(line_ctx *c, int i, int *size)
{
    static const signed char sizes[] = {
        8, 4, 1, 2, 8, 4, 1, 8, 1, 1, /* double int char short long float byte llong schar uchar */
        2, 4, 8, 8, 16, 4, 1,         /* ushort unsigned ulong ullong ldouble wchar bool */
        1, 2, 4, 8, 1, 2, 4, 8,       /* int8..64 uint8..64 */
        8, 16, 32, 8, 8,              /* float/double/ldouble complex, aint, offset */
    };
    int32_t id = 0; /* (set on success: -O3 cannot see it) */
    if (arg_int(c, i, &id) < 0)
        return -1;
    if (id < 0 || id >= (int32_t)sizeof sizes)
        return fail(c, "unknown datatype id '%s' (argument %lld)", c->tok[i], i);
    *size = sizes[id];
    return 0;
}

/* Optional datatype argument i (default: the rank's default type). */
static int opt_datatype(line_ctx *c, int i, int *size)
{
    *size = c->rk->dtsize;
    return i <= c->nargs ? arg_datatype(c, i, size) : 0;
}

/* A count of elements of `dtsize` bytes (or flops, dtsize 1) as int64. */
static int arg_count(line_ctx *c, int i, int dtsize, int64_t *out)
{
    double v = 0; /* (set on success: -O3 cannot see it) */
    if (arg_double(c, i, &v) < 0)
        return -1;
    if (v < 0)
        return fail(c, "negative size '%s' (argument %lld)", c->tok[i], i);
    v *= dtsize;
    if (v > MAX_COUNT)
        return fail(c, "size '%s' too large (argument %lld)", c->tok[i], i);
    *out = round_nonneg(v);
    return 0;
}

/* ------------------------------------------------------------ events */

static void event_init(line_ctx *c, mc_event *e, int op)
{
    mc_event_clear(e);
    e->op = op;
    e->t_start = e->t_end = c->rk->clock_ns;
}

static void collective_init(line_ctx *c, mc_event *e, int op)
{
    event_init(c, e, op);
    e->peer2 = c->nranks;
}

static int64_t *vals_reserve(line_ctx *c, size_t n)
{
    tit_rank *rk = c->rk;
    if (n > rk->cap_vals) {
        size_t cap = rk->cap_vals ? rk->cap_vals : 16;
        while (cap < n)
            cap *= 2;
        int64_t *v = realloc(rk->vals, cap * sizeof *v);
        if (!v) {
            nomem(c);
            return NULL;
        }
        rk->vals = v;
        rk->cap_vals = cap;
    }
    return rk->vals;
}

/* Owes an event (default fields, no vals) after the one being built. */
static void enqueue(line_ctx *c, int op, int64_t bytes)
{
    c->rk->pending_op = op;
    c->rk->pending_bytes = bytes;
}

static void enqueue_compute(line_ctx *c, int64_t flops)
{
    if (flops > 0)
        enqueue(c, MC_OP_COMPUTE, flops);
}

/* Fills e's vals with the completion records of requests [from, from+n). */
static int complete(line_ctx *c, mc_event *e, size_t from, size_t n)
{
    tit_rank *rk = c->rk;
    e->vals = NULL;
    e->nvals = 0;
    if (n == 0)
        return 0;
    int64_t *v = vals_reserve(c, 4 * n);
    if (!v)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const tit_req *q = &rk->reqs[from + k];
        v[4 * k] = q->id;
        v[4 * k + 1] = q->is_recv ? q->src : MC_NONE;
        v[4 * k + 2] = q->is_recv ? q->tag : MC_NONE;
        v[4 * k + 3] = q->is_recv ? q->bytes : 0;
    }
    e->vals = v;
    e->nvals = (uint32_t)(4 * n);
    memmove(rk->reqs + from, rk->reqs + from + n, (rk->nreqs - from - n) * sizeof *rk->reqs);
    rk->nreqs -= n;
    return 0;
}

static int act_skip(line_ctx *c, mc_event *e)
{
    (void)c;
    (void)e;
    return 0;
}

static int act_init(line_ctx *c, mc_event *e)
{
    /* SimGrid: MPI_DOUBLE by default when init has an argument (MPE
     * traces), MPI_BYTE otherwise (TAU and smpi's own traces). */
    c->rk->dtsize = c->nargs >= 1 ? 8 : 1;
    event_init(c, e, MC_OP_INIT);
    return 1;
}

static int act_finalize(line_ctx *c, mc_event *e)
{
    if (c->rk->nreqs == 0) {
        event_init(c, e, MC_OP_FINALIZE);
        return 1;
    }
    event_init(c, e, MC_OP_WAITALL);
    if (complete(c, e, 0, c->rk->nreqs) < 0)
        return -1;
    enqueue(c, MC_OP_FINALIZE, 0);
    return 1;
}

static int act_compute(line_ctx *c, mc_event *e)
{
    event_init(c, e, MC_OP_COMPUTE);
    return arg_count(c, 1, 1, &e->bytes) < 0 ? -1 : 1;
}

static int act_sleep(line_ctx *c, mc_event *e)
{
    double secs = 0;
    if (arg_double(c, 1, &secs) < 0)
        return -1;
    if (secs < 0 || secs > 1e9)
        return fail(c, "bad duration '%s' (argument %lld)", c->tok[1], 1);
    int64_t ns = round_nonneg(secs * 1e9);
    if (c->rk->clock_ns > INT64_MAX / 2 - ns)
        return fail(c, "sleep '%s' makes the total time too long (argument %lld)", c->tok[1], 1);
    c->rk->clock_ns += ns;
    event_init(c, e, MC_OP_COMPUTE);
    return 1;
}

/* The request an isend or irecv event e creates: its id in e->req, its
 * envelope held for the wait that completes it. 1, or -1 out of memory. */
static int add_request(line_ctx *c, mc_event *e)
{
    tit_rank *rk = c->rk;
    int is_recv = e->op == MC_OP_IRECV;
    if (rk->nreqs == rk->cap_reqs) {
        size_t cap = rk->cap_reqs ? 2 * rk->cap_reqs : 16;
        tit_req *r = realloc(rk->reqs, cap * sizeof *r);
        if (!r)
            return nomem(c);
        rk->reqs = r;
        rk->cap_reqs = cap;
    }
    e->req = ++rk->next_req;
    rk->reqs[rk->nreqs++] = (tit_req){
        .id = e->req,
        .src = is_recv ? e->peer : c->rank,
        .dst = is_recv ? c->rank : e->peer,
        .tag = e->tag,
        .is_recv = is_recv,
        .bytes = e->bytes,
    };
    return 1;
}

/* send/isend/recv/irecv: "PEER TAG SIZE [DATATYPE]" (current SimGrid) or
 * "PEER SIZE" (older traces, tag 0). */
static int act_p2p(line_ctx *c, mc_event *e, int op)
{
    int is_recv = op == MC_OP_RECV || op == MC_OP_IRECV;
    int legacy = c->nargs == 2;
    int size_arg = legacy ? 2 : 3;
    int dtsize;
    event_init(c, e, op);
    if (arg_rank(c, 1, is_recv, &e->peer) < 0)
        return -1;
    if (legacy) {
        e->tag = 0;
    } else {
        if (arg_int(c, 2, &e->tag) < 0)
            return -1;
        if (e->tag < 0) {
            if (!is_recv)
                return fail(c, "negative tag '%s' (argument %lld)", c->tok[2], 2);
            e->tag = MC_ANY;
        }
    }
    if (opt_datatype(c, size_arg + 1, &dtsize) < 0 || arg_count(c, size_arg, dtsize, &e->bytes) < 0)
        return -1;
    if (op == MC_OP_RECV)
        e->bytes2 = e->bytes;
    if (op == MC_OP_ISEND || op == MC_OP_IRECV)
        return add_request(c, e);
    return 1;
}

static int act_send(line_ctx *c, mc_event *e) { return act_p2p(c, e, MC_OP_SEND); }
static int act_isend(line_ctx *c, mc_event *e) { return act_p2p(c, e, MC_OP_ISEND); }
static int act_recv(line_ctx *c, mc_event *e) { return act_p2p(c, e, MC_OP_RECV); }
static int act_irecv(line_ctx *c, mc_event *e) { return act_p2p(c, e, MC_OP_IRECV); }

static int field_matches(int32_t want, int32_t have)
{
    return want < 0 || have < 0 || want == have;
}

/* "wait SRC DST TAG": completes the oldest request that envelope matches. */
static int wait_for(line_ctx *c, mc_event *e, int32_t src, int32_t dst, int32_t tag)
{
    tit_rank *rk = c->rk;
    for (size_t k = 0; k < rk->nreqs; k++) {
        const tit_req *q = &rk->reqs[k];
        if (field_matches(src, q->src) && field_matches(dst, q->dst) && field_matches(tag, q->tag))
            return complete(c, e, k, 1) < 0 ? -1 : 1;
    }
    return 1; /* SimGrid ignores a wait for a request it does not hold */
}

static int act_wait(line_ctx *c, mc_event *e)
{
    tit_rank *rk = c->rk;
    event_init(c, e, MC_OP_WAIT);
    if (c->nargs != 0 && c->nargs != 3)
        return fail(c, "expected 0 or 3 arguments%s, got %lld", "", c->nargs);
    if (c->nargs == 0) { /* older SimGrid: the most recent request */
        return rk->nreqs ? (complete(c, e, rk->nreqs - 1, 1) < 0 ? -1 : 1) : 1;
    }
    int32_t src = 0, dst = 0, tag = 0;
    if (arg_int(c, 1, &src) < 0 || arg_int(c, 2, &dst) < 0 || arg_int(c, 3, &tag) < 0)
        return -1;
    return wait_for(c, e, src, dst, tag);
}

static int act_waitall(line_ctx *c, mc_event *e)
{
    event_init(c, e, MC_OP_WAITALL);
    return complete(c, e, 0, c->rk->nreqs) < 0 ? -1 : 1;
}

static int act_test(line_ctx *c, mc_event *e)
{
    if (c->nargs != 0 && c->nargs != 3)
        return fail(c, "expected 0 or 3 arguments%s, got %lld", "", c->nargs);
    event_init(c, e, MC_OP_TEST);
    return 1;
}

static int act_barrier(line_ctx *c, mc_event *e)
{
    collective_init(c, e, MC_OP_BARRIER);
    return 1;
}

/* bcast SIZE [ROOT [DT]] */
static int act_bcast(line_ctx *c, mc_event *e)
{
    int dt;
    collective_init(c, e, MC_OP_BCAST);
    e->peer = 0;
    if ((c->nargs >= 2 && arg_rank(c, 2, 0, &e->peer) < 0) || opt_datatype(c, 3, &dt) < 0 ||
        arg_count(c, 1, dt, &e->bytes) < 0)
        return -1;
    e->bytes2 = e->bytes;
    return 1;
}

/* reduce COMM_SIZE COMP_SIZE [ROOT [DT]] and allreduce COMM_SIZE COMP_SIZE [DT] */
static int reduce_common(line_ctx *c, mc_event *e, int op)
{
    int dt;
    int64_t flops;
    int rooted = op == MC_OP_REDUCE;
    collective_init(c, e, op);
    if (rooted) {
        e->peer = 0;
        if (c->nargs >= 3 && arg_rank(c, 3, 0, &e->peer) < 0)
            return -1;
    }
    if (opt_datatype(c, rooted ? 4 : 3, &dt) < 0 || arg_count(c, 1, dt, &e->bytes) < 0 ||
        arg_count(c, 2, 1, &flops) < 0)
        return -1;
    e->bytes2 = e->bytes;
    enqueue_compute(c, flops);
    return 1;
}

static int act_reduce(line_ctx *c, mc_event *e) { return reduce_common(c, e, MC_OP_REDUCE); }
static int act_allreduce(line_ctx *c, mc_event *e) { return reduce_common(c, e, MC_OP_ALLREDUCE); }

/* alltoall/allgather SEND RECV [DT1 [DT2]]; gather/scatter SEND RECV [ROOT [DT1 [DT2]]] */
static int block_common(line_ctx *c, mc_event *e, int op)
{
    int rooted = op == MC_OP_GATHER || op == MC_OP_SCATTER;
    int dt1, dt2, first_dt = rooted ? 4 : 3;
    collective_init(c, e, op);
    if (rooted) {
        e->peer = 0;
        if (c->nargs >= 3 && arg_rank(c, 3, 0, &e->peer) < 0)
            return -1;
    }
    /* Each datatype defaults to the rank's default type, as in SimGrid. */
    if (opt_datatype(c, first_dt, &dt1) < 0 || opt_datatype(c, first_dt + 1, &dt2) < 0 ||
        arg_count(c, 1, dt1, &e->bytes) < 0 || arg_count(c, 2, dt2, &e->bytes2) < 0)
        return -1;
    /* MPI ignores the root-only buffer elsewhere (docs/trace-format.md). */
    if (op == MC_OP_GATHER && c->rank != e->peer)
        e->bytes2 = 0;
    if (op == MC_OP_SCATTER && c->rank != e->peer)
        e->bytes = 0;
    return 1;
}

static int act_alltoall(line_ctx *c, mc_event *e) { return block_common(c, e, MC_OP_ALLTOALL); }
static int act_allgather(line_ctx *c, mc_event *e) { return block_common(c, e, MC_OP_ALLGATHER); }
static int act_gather(line_ctx *c, mc_event *e) { return block_common(c, e, MC_OP_GATHER); }
static int act_scatter(line_ctx *c, mc_event *e) { return block_common(c, e, MC_OP_SCATTER); }

/* Reads n counts starting at argument `first` into v, times dtsize. */
static int counts(line_ctx *c, int first, int n, int dtsize, int64_t *v)
{
    for (int k = 0; k < n; k++)
        if (arg_count(c, first + k, dtsize, &v[k]) < 0)
            return -1;
    return 0;
}

/* gatherv SEND RECVCOUNTS[n] [ROOT [DT1 [DT2]]] */
static int act_gatherv(line_ctx *c, mc_event *e)
{
    int n = c->nranks, dt1, dt2;
    collective_init(c, e, MC_OP_GATHERV);
    e->peer = 0;
    if (c->nargs >= n + 2 && arg_rank(c, n + 2, 0, &e->peer) < 0)
        return -1;
    if (opt_datatype(c, n + 3, &dt1) < 0 || opt_datatype(c, n + 4, &dt2) < 0)
        return -1;
    if (arg_count(c, 1, dt1, &e->bytes) < 0)
        return -1;
    if (c->rank == e->peer) {
        int64_t *v = vals_reserve(c, (size_t)n);
        if (!v || counts(c, 2, n, dt2, v) < 0)
            return -1;
        e->vals = v;
        e->nvals = (uint32_t)n;
    }
    return 1;
}

/* allgatherv SEND RECVCOUNTS[n] then, as SimGrid reads it: DT DISPS[n], or
 * DISPS[n] (more than 2 extra arguments), or DT. */
static int act_allgatherv(line_ctx *c, mc_event *e)
{
    int n = c->nranks, extra = c->nargs - 1 - n, dt;
    collective_init(c, e, MC_OP_ALLGATHERV);
    dt = c->rk->dtsize;
    if ((extra > n || extra <= 2) && extra >= 1 && arg_datatype(c, n + 2, &dt) < 0)
        return -1;
    int64_t *v = vals_reserve(c, (size_t)n);
    if (!v || arg_count(c, 1, dt, &e->bytes) < 0 || counts(c, 2, n, dt, v) < 0)
        return -1;
    e->vals = v;
    e->nvals = (uint32_t)n;
    return 1;
}

/* scatterv SENDCOUNTS[n] RECV [ROOT [DT1 [DT2]]] */
static int act_scatterv(line_ctx *c, mc_event *e)
{
    int n = c->nranks, dt1, dt2;
    collective_init(c, e, MC_OP_SCATTERV);
    e->peer = 0;
    if (c->nargs >= n + 2 && arg_rank(c, n + 2, 0, &e->peer) < 0)
        return -1;
    if (opt_datatype(c, n + 3, &dt1) < 0 || opt_datatype(c, n + 4, &dt2) < 0)
        return -1;
    if (arg_count(c, n + 1, dt2, &e->bytes2) < 0)
        return -1;
    if (c->rank == e->peer) {
        int64_t *v = vals_reserve(c, (size_t)n);
        if (!v || counts(c, 1, n, dt1, v) < 0)
            return -1;
        e->vals = v;
        e->nvals = (uint32_t)n;
    }
    return 1;
}

/* alltoallv SENDBUF SENDCOUNTS[n] RECVBUF RECVCOUNTS[n] [DT1 [DT2]] */
static int act_alltoallv(line_ctx *c, mc_event *e)
{
    int n = c->nranks, dt1, dt2;
    int64_t ignored;
    collective_init(c, e, MC_OP_ALLTOALLV);
    if (opt_datatype(c, 2 * n + 3, &dt1) < 0 || opt_datatype(c, 2 * n + 4, &dt2) < 0)
        return -1;
    int64_t *v = vals_reserve(c, 2 * (size_t)n);
    /* The buffer sizes are checked as numbers but carry nothing the
     * counts do not. */
    if (!v || arg_count(c, 1, 1, &ignored) < 0 || arg_count(c, n + 2, 1, &ignored) < 0 ||
        counts(c, 2, n, dt1, v) < 0 || counts(c, n + 3, n, dt2, v + n) < 0)
        return -1;
    e->vals = v;
    e->nvals = (uint32_t)(2 * n);
    return 1;
}

/* reducescatter RECVCOUNTS[n] COMP_SIZE [DT] */
static int act_reducescatter(line_ctx *c, mc_event *e)
{
    int n = c->nranks, dt;
    int64_t flops;
    collective_init(c, e, MC_OP_REDUCE_SCATTER);
    int64_t *v = vals_reserve(c, (size_t)n);
    if (!v || opt_datatype(c, n + 2, &dt) < 0 || counts(c, 1, n, dt, v) < 0 ||
        arg_count(c, n + 1, 1, &flops) < 0)
        return -1;
    e->vals = v;
    e->nvals = (uint32_t)n;
    enqueue_compute(c, flops);
    return 1;
}

/* ------------------------------------------------------------ action table */

typedef int (*action_fn)(line_ctx *c, mc_event *e);

/* Argument counts are min_a + min_n * nranks .. max_a + max_n * nranks. */
typedef struct action_def {
    const char *name;
    action_fn fn;
    int min_a, min_n, max_a, max_n;
    size_t len; /* strlen(name) */
} action_def;

static const action_def actions[] = {
    {"init", act_init, 0, 0, 1, 0, sizeof "init" - 1},
    {"finalize", act_finalize, 0, 0, 0, 0, sizeof "finalize" - 1},
    {"comm_size", act_skip, 0, 0, 1000000, 0, sizeof "comm_size" - 1},
    {"comm_split", act_skip, 0, 0, 1000000, 0, sizeof "comm_split" - 1},
    {"comm_dup", act_skip, 0, 0, 1000000, 0, sizeof "comm_dup" - 1},
    {"location", act_skip, 0, 0, 1000000, 0, sizeof "location" - 1},
    {"compute", act_compute, 1, 0, 1, 0, sizeof "compute" - 1},
    {"sleep", act_sleep, 1, 0, 1, 0, sizeof "sleep" - 1},
    {"send", act_send, 2, 0, 4, 0, sizeof "send" - 1},
    {"isend", act_isend, 2, 0, 4, 0, sizeof "isend" - 1},
    {"recv", act_recv, 2, 0, 4, 0, sizeof "recv" - 1},
    {"irecv", act_irecv, 2, 0, 4, 0, sizeof "irecv" - 1},
    {"test", act_test, 0, 0, 3, 0, sizeof "test" - 1},
    {"wait", act_wait, 0, 0, 3, 0, sizeof "wait" - 1},
    {"waitall", act_waitall, 0, 0, 0, 0, sizeof "waitall" - 1},
    {"barrier", act_barrier, 0, 0, 0, 0, sizeof "barrier" - 1},
    {"bcast", act_bcast, 1, 0, 3, 0, sizeof "bcast" - 1},
    {"reduce", act_reduce, 2, 0, 4, 0, sizeof "reduce" - 1},
    {"allreduce", act_allreduce, 2, 0, 3, 0, sizeof "allreduce" - 1},
    {"alltoall", act_alltoall, 2, 0, 4, 0, sizeof "alltoall" - 1},
    {"allgather", act_allgather, 2, 0, 4, 0, sizeof "allgather" - 1},
    {"gather", act_gather, 2, 0, 5, 0, sizeof "gather" - 1},
    {"scatter", act_scatter, 2, 0, 5, 0, sizeof "scatter" - 1},
    {"gatherv", act_gatherv, 1, 1, 4, 1, sizeof "gatherv" - 1},
    {"allgatherv", act_allgatherv, 1, 1, 2, 2, sizeof "allgatherv" - 1},
    {"scatterv", act_scatterv, 1, 1, 4, 1, sizeof "scatterv" - 1},
    {"alltoallv", act_alltoallv, 2, 2, 4, 2, sizeof "alltoallv" - 1},
    {"reducescatter", act_reducescatter, 1, 1, 2, 1, sizeof "reducescatter" - 1},
    {"reduce_scatter", act_reducescatter, 1, 1, 2, 1, sizeof "reduce_scatter" - 1},
};

/* The rows of `actions` by first letter and length (row + 1, 0: none), so
 * a line's action is found among one to three rows instead of all. */
#define KEY_LEN 16
#define KEY_ROWS 4
static unsigned char action_index[26][KEY_LEN][KEY_ROWS];
_Static_assert(sizeof actions / sizeof actions[0] < 256, "action rows fit the index's bytes");
static pthread_once_t action_index_once = PTHREAD_ONCE_INIT;

static void build_action_index(void)
{
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        const action_def *a = &actions[i];
        if (a->len >= KEY_LEN || a->name[0] < 'a' || a->name[0] > 'z')
            continue; /* found by the full scan */
        unsigned char *rows = action_index[a->name[0] - 'a'][a->len];
        for (int k = 0; k < KEY_ROWS; k++)
            if (!rows[k]) {
                rows[k] = (unsigned char)(i + 1);
                break;
            }
    }
}

static int action_is(const action_def *a, const char *name, size_t len)
{
    if (a->len != len)
        return 0;
    size_t k = 0; /* inline: a memcmp call costs more than these few bytes */
    while (k < len && a->name[k] == name[k])
        k++;
    return k == len;
}

/* The action named `name` (any case; lowered in place). */
static const action_def *find_action(char *name)
{
    size_t len = 0;
    for (char *p = name; *p; p++, len++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (len < KEY_LEN && name[0] >= 'a' && name[0] <= 'z') {
        pthread_once(&action_index_once, build_action_index);
        const unsigned char *rows = action_index[name[0] - 'a'][len];
        for (int k = 0; k < KEY_ROWS && rows[k]; k++)
            if (action_is(&actions[rows[k] - 1], name, len))
                return &actions[rows[k] - 1];
        if (!rows[KEY_ROWS - 1]) /* the index holds every row of this key */
            return NULL;
    }
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (action_is(&actions[i], name, len))
            return &actions[i];
    return NULL;
}

/* Turns one meaningful line into events: returns 1 with *e filled (more may
 * be queued), 0 for a line without event, -1 on error. */
static int parse_line(tit_source *s, tit_rank *rk, int rank, char *line, mc_event *e, mc_error *err)
{
    line_ctx c = {.s = s, .rk = rk, .rank = rank, .nranks = s->base.nranks,
                  .path = s->paths[rk->file], .err = err};
    int n = tokenize(s, line);
    if (n < 0) {
        return mc_error_set(err, MC_ERR_NOMEM, "%s:%lld: out of memory", c.path, line_number(s, rk)), -1;
    }
    long r = parse_rank_token(s->tok[0]);
    if (r < 0 || r != rank) {
        if (r < 0)
            mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: bad rank '%.32s' (expected a rank like 0 or p0)",
                         c.path, line_number(s, rk), s->tok[0]);
        else
            mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: line of rank %ld in the trace of rank %d",
                         c.path, line_number(s, rk), r, rank);
        return -1;
    }
    if (n < 2) {
        mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: missing action after the rank", c.path,
                     line_number(s, rk));
        return -1;
    }
    c.tok = s->tok + 1;
    c.nargs = n - 2;
    const action_def *a = find_action(c.tok[0]);
    if (!a) {
        mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: unknown action '%.64s'", c.path, line_number(s, rk),
                     c.tok[0]);
        return -1;
    }
    long long lo = a->min_a + (long long)a->min_n * c.nranks;
    long long hi = a->max_a + (long long)a->max_n * c.nranks;
    if (c.nargs < lo || c.nargs > hi) {
        char range[64];
        if (lo == hi)
            snprintf(range, sizeof range, "%lld", lo);
        else
            snprintf(range, sizeof range, "%lld to %lld", lo, hi);
        return fail(&c, "expected %s arguments, got %lld", range, c.nargs);
    }
    return a->fn(&c, e);
}

/* ------------------------------------------------------------ fast path */

/* The lines that make up nearly every trace are read straight from the
 * buffer in one pass: no memchr, no token array, no NULs written (buf[len]
 * is a NUL sentinel, so a scan stops at the buffer's end), numbers parsed
 * as they are scanned. They are "R send|isend|recv|irecv PEER TAG SIZE",
 * "R wait SRC DST TAG", "R compute FLOPS", "R allreduce SIZE FLOPS",
 * "R bcast SIZE [ROOT]", "R barrier" and "R waitall". Any other line, a line
 * not wholly in the buffer yet, or one the general path would refuse, is
 * left to it untouched, so what is accepted and every error message stay
 * its own. The events are those parse_line makes of the same line. */

static inline int is_blank(char c) { return c == ' ' || c == '\t'; }

/* A number token as the fast path reads it. */
typedef struct fast_num {
    int64_t v;
    int plain;  /* decimal digits only (after an optional '-'): an integer */
    int digits; /* of a plain number */
} fast_num;

#define FAST_COUNT_MAX 1000000000000000ll /* 10^15: exact in a double, times 8 too */

/* Digits, and for counts a fraction and an exponent (SimGrid writes flops
 * as "1.06512e+06"), then a blank or the newline. A number with a fraction
 * or an exponent is taken only when its value is a whole number up to
 * 10^15, computed exactly (strtod gives the same double). 1 and *pp past
 * it, or 0. */
static int fast_number(const char **pp, fast_num *out)
{
    const char *p = *pp;
    int neg = *p == '-';
    p += neg;
    int64_t x = 0;
    int n = 0, frac = 0;
    for (; n < 18 && is_digit(*p); p++, n++)
        x = x * 10 + (*p - '0');
    if (n == 0 || n == 18)
        return 0;
    if (is_blank(*p) || *p == '\n') {
        *out = (fast_num){neg ? -x : x, 1, n};
        *pp = p;
        return 1;
    }
    if (neg)
        return 0;
    if (*p == '.')
        for (p++; n < 18 && is_digit(*p); p++, n++, frac++)
            x = x * 10 + (*p - '0');
    int ex = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        int eneg = *p == '-';
        p += eneg || *p == '+';
        int k = 0;
        for (; k < 3 && is_digit(*p); p++, k++)
            ex = ex * 10 + (*p - '0');
        if (k == 0 || k == 3)
            return 0;
        ex = eneg ? -ex : ex;
    }
    if (n == 18 || !(is_blank(*p) || *p == '\n'))
        return 0;
    for (int k = ex - frac; k > 0; k--) /* times 10^(ex - frac) */
        if ((x *= 10) > FAST_COUNT_MAX)
            return 0;
    for (int k = frac - ex; k > 0; k--) { /* divided: only trailing zeros go */
        if (x % 10)
            return 0;
        x /= 10;
    }
    if (x > FAST_COUNT_MAX)
        return 0;
    *out = (fast_num){x, 0, 0};
    *pp = p;
    return 1;
}

/* Up to max numbers, each after blanks, then optional blanks and the
 * newline; *pp ends past the newline. The count, or -1. */
static int fast_args(const char **pp, int max, fast_num *v)
{
    const char *p = *pp;
    int n = 0;
    for (;;) {
        int gap = is_blank(*p);
        while (is_blank(*p))
            p++;
        if (*p == '\n')
            break;
        if (!gap || n == max || !fast_number(&p, &v[n]))
            return -1;
        n++;
    }
    *pp = p + 1;
    return n;
}

/* An integer argument as arg_int reads it (nine digits always fit). */
static int fast_int(const fast_num *a) { return a->plain && a->digits <= 9; }

/* A size or flop count as arg_count reads it: not negative, exact. */
static int fast_count(const fast_num *a)
{
    return a->v >= 0 && (!a->plain || a->digits <= 15);
}

enum { FAST_NONE, FAST_SEND, FAST_ISEND, FAST_RECV, FAST_IRECV, FAST_WAIT, FAST_COMPUTE,
       FAST_ALLREDUCE, FAST_BCAST, FAST_BARRIER, FAST_WAITALL };

static int fast_action(const char *p, size_t len)
{
#define IS_(name) (len == sizeof name - 1 && memcmp(p, name, sizeof name - 1) == 0)
    switch (p[0]) {
    case 's': return IS_("send") ? FAST_SEND : FAST_NONE;
    case 'r': return IS_("recv") ? FAST_RECV : FAST_NONE;
    case 'i': return IS_("isend") ? FAST_ISEND : IS_("irecv") ? FAST_IRECV : FAST_NONE;
    case 'w': return IS_("wait") ? FAST_WAIT : IS_("waitall") ? FAST_WAITALL : FAST_NONE;
    case 'c': return IS_("compute") ? FAST_COMPUTE : FAST_NONE;
    case 'a': return IS_("allreduce") ? FAST_ALLREDUCE : FAST_NONE;
    case 'b': return IS_("bcast") ? FAST_BCAST : IS_("barrier") ? FAST_BARRIER : FAST_NONE;
    default: return FAST_NONE;
    }
#undef IS_
}

/* Whether the arguments are what the general path accepts for act. */
static int fast_valid(int act, int n, const fast_num *v, int nranks)
{
    int recv = act == FAST_RECV || act == FAST_IRECV;
    switch (act) {
    case FAST_SEND: case FAST_ISEND: case FAST_RECV: case FAST_IRECV:
        return n == 3 && fast_int(&v[0]) && fast_int(&v[1]) && fast_count(&v[2]) &&
               v[0].v < nranks && (recv || (v[0].v >= 0 && v[1].v >= 0));
    case FAST_WAIT:
        return n == 3 && fast_int(&v[0]) && fast_int(&v[1]) && fast_int(&v[2]);
    case FAST_COMPUTE:
        return n == 1 && fast_count(&v[0]);
    case FAST_ALLREDUCE:
        return n == 2 && fast_count(&v[0]) && fast_count(&v[1]);
    case FAST_BCAST:
        return (n == 1 || (n == 2 && fast_int(&v[1]) && v[1].v >= 0 && v[1].v < nranks)) &&
               fast_count(&v[0]);
    default: /* barrier, waitall */
        return n == 0;
    }
}

/* The rank's next line as an event, if it is one of the lines above: 1
 * with *e filled, 0 to leave the line to the general path, -1 on error
 * (out of memory). */
static int fast_event(tit_source *s, tit_rank *rk, int rank, mc_event *e, mc_error *err)
{
    const char *line = rk->buf + rk->pos, *p = line;
    int64_t r = 0;
    for (; is_digit(*p) && r <= rank; p++)
        r = r * 10 + (*p - '0');
    if (p == line || r != rank || !is_blank(*p))
        return 0;
    while (is_blank(*p))
        p++;
    const char *name = p;
    while (*p >= 'a' && *p <= 'z')
        p++;
    int act = p > name ? fast_action(name, (size_t)(p - name)) : FAST_NONE;
    fast_num v[3];
    int n = act == FAST_NONE ? -1 : fast_args(&p, (int)(sizeof v / sizeof v[0]), v);
    if (n < 0 || !fast_valid(act, n, v, s->base.nranks))
        return 0;
    line_ctx c = {.s = s, .rk = rk, .rank = rank, .nranks = s->base.nranks,
                  .path = s->paths[rk->file], .err = err};
    pass_line(rk, (size_t)(p - rk->buf));
    static const int ops[] = { /* the lines the switch leaves to the code after it */
        [FAST_SEND] = MC_OP_SEND, [FAST_ISEND] = MC_OP_ISEND, [FAST_RECV] = MC_OP_RECV,
        [FAST_IRECV] = MC_OP_IRECV, [FAST_ALLREDUCE] = MC_OP_ALLREDUCE,
        [FAST_BCAST] = MC_OP_BCAST};
    switch (act) {
    case FAST_COMPUTE:
        event_init(&c, e, MC_OP_COMPUTE);
        e->bytes = v[0].v;
        return 1;
    case FAST_WAIT:
        event_init(&c, e, MC_OP_WAIT);
        return wait_for(&c, e, (int32_t)v[0].v, (int32_t)v[1].v, (int32_t)v[2].v);
    case FAST_WAITALL:
        return act_waitall(&c, e);
    case FAST_BARRIER:
        return act_barrier(&c, e);
    case FAST_ALLREDUCE: case FAST_BCAST:
        collective_init(&c, e, ops[act]);
        e->bytes = e->bytes2 = v[0].v * rk->dtsize;
        if (act == FAST_BCAST)
            e->peer = n == 2 ? (int32_t)v[1].v : 0;
        else
            enqueue_compute(&c, v[1].v);
        return 1;
    default:
        break;
    }
    event_init(&c, e, ops[act]);
    e->peer = v[0].v < 0 ? MC_ANY : (int32_t)v[0].v;
    e->tag = v[1].v < 0 ? MC_ANY : (int32_t)v[1].v;
    e->bytes = v[2].v * rk->dtsize;
    if (act == FAST_RECV)
        e->bytes2 = e->bytes;
    return act == FAST_ISEND || act == FAST_IRECV ? add_request(&c, e) : 1;
}

/* ------------------------------------------------------------ source */

static int next_event(tit_source *s, int rank, mc_event *e, mc_error *err);

/* Delivers the rank's next event; once a rank failed, every later call
 * gives the same error again. */
static int tit_next(mc_source *base, int rank, mc_event *e, mc_error *err)
{
    tit_source *s = (tit_source *)base;
    if (rank < 0 || rank >= base->nranks)
        return mc_error_set(err, MC_ERR_USAGE, "%s: no rank %d (the trace has %d ranks)", s->name, rank,
                            base->nranks), -1;
    tit_rank *rk = &s->ranks[rank];
    if (rk->failed) {
        mc_error_set(err, rk->err_code, "%s", rk->err_msg ? rk->err_msg : "reading stopped after an error");
        return -1;
    }
    mc_error local; /* not zeroed: 1 KiB per event; filled only on failure */
    local.code = MC_OK;
    local.msg[0] = '\0';
    int rc = next_event(s, rank, e, &local);
    if (rc < 0) {
        rk->failed = 1;
        rk->err_code = local.code;
        rk->err_msg = strdup(local.msg);
        if (err)
            *err = local;
    }
    return rc;
}

static int next_event(tit_source *s, int rank, mc_event *e, mc_error *err)
{
    mc_source *base = &s->base;
    tit_rank *rk = &s->ranks[rank];
    int got = 0;
    if (rk->pending_op >= 0) {
        line_ctx c = {.s = s, .rk = rk, .rank = rank, .nranks = base->nranks,
                      .path = s->paths[rk->file], .err = err};
        event_init(&c, e, rk->pending_op);
        e->bytes = rk->pending_bytes;
        rk->pending_op = -1;
        got = 1;
    }
    while (!got && !rk->at_end) {
        if (rk->pos < rk->len && (got = fast_event(s, rk, rank, e, err)) != 0) {
            if (got < 0)
                return -1;
            break;
        }
        char *line;
        int rc = next_line(s, rk, &line, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            rk->at_end = 1;
            free(rk->buf);
            rk->buf = NULL;
            rk->cap = rk->len = rk->pos = 0;
            if (rk->nreqs > 0) { /* complete what is left, like SimGrid */
                line_ctx c = {.s = s, .rk = rk, .rank = rank, .nranks = base->nranks,
                              .path = s->paths[rk->file], .err = err};
                event_init(&c, e, MC_OP_WAITALL);
                if (complete(&c, e, 0, rk->nreqs) < 0)
                    return -1;
                got = 1;
            }
            break;
        }
        if (is_blank_or_comment(line))
            continue;
        got = parse_line(s, rk, rank, line, e, err);
        if (got < 0)
            return -1;
    }
    if (!got)
        return 0;
    e->burst = e->t_start - rk->last_end;
    rk->last_end = e->t_end;
    return 1;
}

static void tit_close(mc_source *base)
{
    tit_source *s = (tit_source *)base;
    if (!s)
        return;
    if (s->ranks) {
        for (int r = 0; r < base->nranks; r++) {
            free(s->ranks[r].runs);
            free(s->ranks[r].buf);
            free(s->ranks[r].reqs);
            free(s->ranks[r].vals);
            free(s->ranks[r].err_msg);
        }
    }
    free(s->ranks);
    for (int i = 0; i < s->npaths; i++) {
        if (s->fds && s->fds[i] >= 0) {
            close(s->fds[i]);
            atomic_fetch_sub(&fds_cached, 1);
        }
        free(s->paths[i]);
    }
    free(s->fds);
    free(s->paths);
    free(s->tok);
    free(s->name);
    free(s);
}

/* The replay names the ranks it will step a few events ahead (4096 ranks
 * and more): the rank's next line is fetched then, so the first touch of
 * each rank's cold buffer is not a miss waited on in memchr. */
static void tit_prefetch(const mc_source *base, int rank)
{
    const tit_source *s = (const tit_source *)base;
    if (rank < 0 || rank >= base->nranks)
        return;
    const tit_rank *rk = &s->ranks[rank];
    if (rk->buf && rk->pos < rk->len) {
        __builtin_prefetch(rk->buf + rk->pos);
        __builtin_prefetch(rk->buf + rk->pos + 64);
    }
}

static const mc_source_ops tit_ops = {.next = tit_next, .close = tit_close,
                                      .prefetch = tit_prefetch};

/* ------------------------------------------------------------ opening */

static mc_source *open_fail(tit_source *s, FILE *f, char *line, void *extra)
{
    if (f)
        fclose(f);
    free(line);
    free(extra);
    tit_close(&s->base);
    return NULL;
}

/* Allocates the ranks and the descriptor cache once the paths are known. */
static int alloc_ranks(tit_source *s, int nranks, mc_error *err)
{
    s->base.nranks = nranks;
    s->ranks = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *s->ranks);
    s->fds = malloc((size_t)(s->npaths > 0 ? s->npaths : 1) * sizeof *s->fds);
    if (!s->ranks || !s->fds)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name), -1;
    for (int i = 0; i < s->npaths; i++)
        s->fds[i] = -1;
    for (int r = 0; r < nranks; r++) {
        s->ranks[r].dtsize = 1;
        s->ranks[r].pending_op = -1;
    }
    return 0;
}

typedef struct run_list {
    tit_run *runs;
    size_t n, cap;
} run_list;

static void free_lists(run_list *lists, long n)
{
    for (long r = 0; lists && r < n; r++)
        free(lists[r].runs);
    free(lists);
}

/* Adds the line [start, end) of rank r: extends r's last run when the line
 * follows it directly (only blank or comment lines between). */
static int add_line(run_list *l, int64_t start, int64_t end, int64_t *last_end_of_any)
{
    if (l->n > 0 && l->runs[l->n - 1].end == *last_end_of_any) {
        l->runs[l->n - 1].end = end;
    } else {
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 4;
            tit_run *n = realloc(l->runs, cap * sizeof *n);
            if (!n)
                return -1;
            l->runs = n;
            l->cap = cap;
        }
        l->runs[l->n++] = (tit_run){start, end};
    }
    *last_end_of_any = end;
    return 0;
}

/* Splits a merged trace into the runs of each rank, in one pass. Every rank
 * from 0 to the largest must have a line, which also bounds the memory a
 * stray huge rank number can claim. */
static mc_source *index_merged(tit_source *s, FILE *f, mc_error *err)
{
    run_list *lists = NULL;
    long nlists = 0, maxrank = -1;
    char *line = NULL;
    size_t lcap = 0;
    int64_t off = 0, lineno = 0, last_end = -1;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        int64_t start = off;
        off += len;
        if (is_blank_or_comment(line))
            continue;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        char *end = p;
        while (*end && !isspace((unsigned char)*end))
            end++;
        *end = '\0';
        long r = parse_rank_token(p);
        if (r < 0) {
            if (r == -2)
                mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: rank '%.32s' out of range (at most %d)", s->name,
                             (long long)lineno, p, MC_TIT_MAX_RANKS - 1);
            else
                mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: bad rank '%.32s' (expected a rank like 0 or p0)",
                             s->name, (long long)lineno, p);
            free_lists(lists, nlists);
            return open_fail(s, f, line, NULL);
        }
        if (r >= nlists) {
            long n = nlists ? nlists : 16;
            while (n <= r)
                n *= 2;
            run_list *nl = realloc(lists, (size_t)n * sizeof *nl);
            if (!nl) {
                mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
                free_lists(lists, nlists);
                return open_fail(s, f, line, NULL);
            }
            memset(nl + nlists, 0, (size_t)(n - nlists) * sizeof *nl);
            lists = nl;
            nlists = n;
        }
        if (r > maxrank)
            maxrank = r;
        if (add_line(&lists[r], start, off, &last_end) < 0) {
            mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
            free_lists(lists, nlists);
            return open_fail(s, f, line, NULL);
        }
    }
    int bad = ferror(f);
    fclose(f);
    free(line);
    if (bad) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot read: %s", s->name, strerror(errno));
        free_lists(lists, nlists);
        return open_fail(s, NULL, NULL, NULL);
    }
    for (long r = 0; r <= maxrank; r++) {
        if (lists[r].n == 0) {
            mc_error_set(err, MC_ERR_FORMAT, "%s: no line for rank %ld (the trace has ranks up to %ld)",
                         s->name, r, maxrank);
            free_lists(lists, nlists);
            return open_fail(s, NULL, NULL, NULL);
        }
    }
    if (alloc_ranks(s, (int)(maxrank + 1), err) < 0) {
        free_lists(lists, nlists);
        return open_fail(s, NULL, NULL, NULL);
    }
    for (long r = 0; r <= maxrank; r++) {
        s->ranks[r].runs = lists[r].runs;
        s->ranks[r].nruns = lists[r].n;
        lists[r].runs = NULL;
    }
    free_lists(lists, nlists);
    return &s->base;
}

/* Reads a list of per-rank trace files, one per line. */
static mc_source *open_list(tit_source *s, FILE *f, mc_error *err)
{
    char *line = NULL, *dir = NULL;
    size_t lcap = 0;
    int64_t lineno = 0;
    int cap = 0;
    const char *slash = strrchr(s->name, '/');
    dir = slash ? strndup(s->name, (size_t)(slash - s->name + 1)) : strdup("");
    if (!dir) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
        return open_fail(s, f, line, NULL);
    }
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        if (is_blank_or_comment(line))
            continue;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(p);
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            p[--n] = '\0';
        if (s->npaths >= MC_TIT_MAX_RANKS) {
            mc_error_set(err, MC_ERR_FORMAT, "%s:%lld: more than %d ranks", s->name, (long long)lineno,
                         MC_TIT_MAX_RANKS);
            return open_fail(s, f, line, dir);
        }
        if (s->npaths == cap) {
            cap = cap ? 2 * cap : 64;
            char **np = realloc(s->paths, (size_t)cap * sizeof *np);
            if (!np) {
                mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
                return open_fail(s, f, line, dir);
            }
            s->paths = np;
        }
        char *path = malloc(strlen(dir) + n + 1);
        if (!path) {
            mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
            return open_fail(s, f, line, dir);
        }
        sprintf(path, "%s%s", p[0] == '/' ? "" : dir, p);
        s->paths[s->npaths++] = path;
        /* a regular file only: a FIFO entry would block the replay */
        mc_error perr = {0};
        int probe = mc_in_open(path, &perr);
        if (probe < 0 && p[0] != '/' && dir[0] != '\0' && (probe = mc_in_open(p, NULL)) >= 0) {
            /* SimGrid writes names relative to where it ran: try that too. */
            strcpy(path, p);
        }
        if (probe < 0) {
            mc_error_set(err, MC_ERR_IO, "%s:%lld: %s", s->name, (long long)lineno, perr.msg);
            return open_fail(s, f, line, dir);
        }
        close(probe);
    }
    int bad = ferror(f);
    fclose(f);
    free(line);
    free(dir);
    if (bad) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot read", s->name);
        return open_fail(s, NULL, NULL, NULL);
    }
    if (s->npaths == 0) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: empty trace (neither '<rank> <action>' lines nor file names)",
                     s->name);
        return open_fail(s, NULL, NULL, NULL);
    }
    if (alloc_ranks(s, s->npaths, err) < 0)
        return open_fail(s, NULL, NULL, NULL);
    for (int r = 0; r < s->npaths; r++) {
        tit_rank *rk = &s->ranks[r];
        rk->file = r;
        rk->runs = malloc(sizeof *rk->runs);
        if (!rk->runs) {
            mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->name);
            return open_fail(s, NULL, NULL, NULL);
        }
        rk->runs[0] = (tit_run){0, -1};
        rk->nruns = 1;
    }
    return &s->base;
}

/* A merged trace starts with "<rank> <action>"; anything else is a list. */
static int looks_merged(FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    int merged = 0;
    while (getline(&line, &cap, f) >= 0) {
        if (is_blank_or_comment(line))
            continue;
        char *save = NULL;
        char *t1 = strtok_r(line, " \t\r\n", &save);
        char *t2 = t1 ? strtok_r(NULL, " \t\r\n", &save) : NULL;
        merged = t1 && t2 && parse_rank_token(t1) != -1;
        break;
    }
    free(line);
    return merged;
}

mc_source *mc_tit_open(const char *path, mc_error *err)
{
    tit_source *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(path))) {
        free(s);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    s->base.ops = &tit_ops;
    s->base.name = s->name;
    FILE *f = mc_in_fopen(path, err); /* a FIFO or device is refused */
    if (!f)
        return open_fail(s, NULL, NULL, NULL);
    int merged = looks_merged(f);
    if (ferror(f)) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        return open_fail(s, f, NULL, NULL);
    }
    rewind(f);
    if (!merged)
        return open_list(s, f, err) ? &s->base : NULL;
    s->paths = malloc(sizeof *s->paths);
    if (!s->paths || !(s->paths[0] = strdup(path))) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return open_fail(s, f, NULL, NULL);
    }
    s->npaths = 1;
    s->merged = 1;
    return index_merged(s, f, err);
}
