/* mc_trace_open: a trace directory as an event source. Rank files are opened
 * on first use. A wildcard receive (Irecv/Recv_init with MPI_ANY_SOURCE or
 * MPI_ANY_TAG) is delivered only once the completion that records its match
 * has been read: the events in between wait in a small per-rank look-ahead
 * queue, so consumers always see the recorded source and tag. Every event is
 * validated as it is read (ranges, ranks of the trace, known communicators;
 * docs/robustness.md): an invalid one ends the rank's stream with an error
 * naming the rank file, the chunk and the event index. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/format.h"
#include "codec.h"
#include "reader_where.h"

/* A look-ahead longer than this gives up: the receive is delivered unresolved. */
#define LOOKAHEAD_MAX (1u << 20)

typedef struct queued {
    mc_event e; /* e.vals owned by the queue entry */
    int unresolved;
} queued;

typedef struct rank_state {
    mc_rank_reader *reader;
    const void *ahead; /* mc_rank_reader_ahead after the last read: the hint's target */
    const int64_t *vals_at; /* the reader's values buffer, as last seen: a hint target
                               too (stale after a realloc: a prefetch never faults) */
    uint64_t *comms;   /* sorted ids of the communicators this rank created */
    size_t ncomms, cap_comms;
    queued *q; /* ring buffer */
    size_t qhead, qlen, qcap;
    int64_t *cur_vals; /* vals of the event last delivered from the queue */
    int ended;         /* the reader returned 0 or -1 */
    int end_rc;        /* what to return once the queue drains */
    mc_error *end_err; /* its message when end_rc < 0 (NULL: out of memory); a
                          pointer, not a member: 10^6 ranks' states stay small */
    uint64_t loop_skipped, loop_records; /* the reader's, kept when it closes */
} rank_state;

/* Large value arrays kept once for every rank that reads the same one. */
#define SHARED_ARRAYS 4

typedef struct shared_array {
    int64_t *v;
    uint32_t n;
} shared_array;

typedef struct trace_source {
    mc_source base;
    char *dir;
    mc_meta *meta;
    rank_state *ranks;
    uint64_t loop_cap; /* mc_trace_set_loop_cap */
    shared_array shared[SHARED_ARRAYS];
    int nshared;
} trace_source;

static int is_wildcard_recv(const mc_event *e)
{
    return (e->op == MC_OP_IRECV || e->op == MC_OP_RECV_INIT) && e->req != MC_NO_REQ &&
           (e->peer == MC_ANY || e->tag == MC_ANY);
}

static int is_completion(int op)
{
    return mc_op_has(op, MC_OPF_COMPLETION);
}

static queued *q_at(rank_state *rs, size_t i)
{
    return &rs->q[(rs->qhead + i) % rs->qcap];
}

static int q_push(rank_state *rs, const mc_event *e)
{
    if (rs->qlen == rs->qcap) {
        size_t cap = rs->qcap ? rs->qcap * 2 : 16;
        queued *q = malloc(cap * sizeof *q);
        if (!q)
            return -1;
        for (size_t i = 0; i < rs->qlen; i++)
            q[i] = *q_at(rs, i);
        free(rs->q);
        rs->q = q;
        rs->qcap = cap;
        rs->qhead = 0;
    }
    queued *slot = &rs->q[(rs->qhead + rs->qlen) % rs->qcap];
    slot->e = *e;
    slot->e.vals = NULL;
    if (e->nvals) {
        slot->e.vals = malloc(e->nvals * sizeof *e->vals);
        if (!slot->e.vals)
            return -1;
        memcpy(slot->e.vals, e->vals, e->nvals * sizeof *e->vals);
    }
    slot->unresolved = is_wildcard_recv(e);
    rs->qlen++;
    return 0;
}

/* Applies a completion's recorded matches to the queued wildcard receives. */
static void resolve_from(rank_state *rs, const mc_event *c)
{
    for (uint32_t k = 0; k + 3 < c->nvals; k += 4)
        for (size_t i = 0; i < rs->qlen; i++) {
            queued *qe = q_at(rs, i);
            if (qe->unresolved && (uint32_t)c->vals[k] == qe->e.req) {
                qe->e.peer = (int32_t)c->vals[k + 1];
                qe->e.tag = (int32_t)c->vals[k + 2];
                qe->unresolved = 0;
            }
        }
}

/* ------------------------------------------------------------ validation */

/* Position of id in the rank's sorted communicator list (or where it goes). */
static size_t comm_pos(const rank_state *rs, uint64_t id)
{
    size_t lo = 0, hi = rs->ncomms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rs->comms[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int comm_created(const rank_state *rs, uint64_t id)
{
    size_t i = comm_pos(rs, id);
    return i < rs->ncomms && rs->comms[i] == id;
}

static int comm_remember(rank_state *rs, uint64_t id)
{
    size_t i = comm_pos(rs, id);
    if (i < rs->ncomms && rs->comms[i] == id)
        return 0;
    if (rs->ncomms == rs->cap_comms) {
        size_t cap = rs->cap_comms ? 2 * rs->cap_comms : 8;
        uint64_t *c = realloc(rs->comms, cap * sizeof *c);
        if (!c)
            return -1;
        rs->comms = c;
        rs->cap_comms = cap;
    }
    memmove(rs->comms + i + 1, rs->comms + i, (rs->ncomms - i) * sizeof *rs->comms);
    rs->comms[i] = id;
    rs->ncomms++;
    return 0;
}

static void comm_forget(rank_state *rs, uint64_t id)
{
    size_t i = comm_pos(rs, id);
    if (i < rs->ncomms && rs->comms[i] == id) {
        memmove(rs->comms + i, rs->comms + i + 1, (rs->ncomms - i - 1) * sizeof *rs->comms);
        rs->ncomms--;
    }
}

/* A communicator the rank may use: world, its own self, one of meta.json,
 * or one an earlier event of the rank created. Without meta.json (a run
 * that crashed) the tracer's ids of communicators made by calls it does not
 * wrap (high bit of the sequence number) cannot be checked. */
static int comm_known(const trace_source *ts, const rank_state *rs, int rank, uint64_t id)
{
    if (id == MC_COMM_WORLD || id == (MC_COMM_SELF_BASE | (uint32_t)rank))
        return 1;
    if (ts->meta ? mc_meta_comm_find(ts->meta, id) != NULL : (id >> 63) != 0)
        return 1;
    return comm_created(rs, id);
}

/* Fields that are sizes, ranks or request ids must be in range: a value the
 * tracer never writes is reported here, with the file, chunk and event,
 * rather than deep inside a consumer. Returns what is wrong, or NULL. */
static const char *invalid_field(const mc_event *e, char *buf, size_t len)
{
    int kind = mc_op_kind_of(e->op);
    /* Comm_split keeps its key in bytes, Pcontrol its level in tag. */
    if (e->bytes < 0 && e->op != MC_OP_COMM_SPLIT)
        return snprintf(buf, len, "negative size %lld", (long long)e->bytes), buf;
    if (e->bytes2 < 0)
        return snprintf(buf, len, "negative size %lld", (long long)e->bytes2), buf;
    if (e->peer < MC_ANY || e->peer2 < MC_ANY)
        return snprintf(buf, len, "peer %d is not a rank", e->peer < MC_ANY ? e->peer : e->peer2),
               buf;
    if (kind == MC_KIND_P && (e->tag < MC_ANY || e->tag2 < MC_ANY))
        return snprintf(buf, len, "negative tag %d", e->tag < MC_ANY ? e->tag : e->tag2), buf;
    if (e->t_end < e->t_start)
        return snprintf(buf, len, "negative duration %lld ns", (long long)(e->t_end - e->t_start)),
               buf;
    if (e->cpu < -1)
        return snprintf(buf, len, "negative CPU time %lld ns", (long long)e->cpu), buf;
    if (kind != MC_KIND_W)
        return NULL;
    int completion = mc_op_has(e->op, MC_OPF_COMPLETION);
    if (completion && e->nvals % 4)
        return snprintf(buf, len, "%u completion values, not 4 per request", e->nvals), buf;
    for (uint32_t i = 0; i < e->nvals; i += completion ? 4 : 1) {
        if (e->vals[i] <= 0 || e->vals[i] > UINT32_MAX)
            return snprintf(buf, len, "request id %lld out of range", (long long)e->vals[i]), buf;
        if (completion && (e->vals[i + 1] < MC_ANY || e->vals[i + 1] > INT32_MAX))
            return snprintf(buf, len, "matched source %lld is not a rank",
                            (long long)e->vals[i + 1]), buf;
        if (completion && e->vals[i + 3] < 0)
            return snprintf(buf, len, "negative size %lld", (long long)e->vals[i + 3]), buf;
    }
    return NULL;
}

/* What is wrong with the ranks an event names, or NULL. */
static const char *bad_rank(const mc_event *e, int n, char *buf, size_t len)
{
    int kind = mc_op_kind_of(e->op);
    const char *role = NULL;
    long long v = 0;
    if (e->peer >= n && kind != MC_KIND_M && kind != MC_KIND_X)
        role = kind == MC_KIND_C ? "root" : "peer", v = e->peer;
    else if (kind == MC_KIND_P && e->peer2 >= n)
        role = "source", v = e->peer2;
    else if (mc_op_has(e->op, MC_OPF_COMPLETION)) {
        for (uint32_t i = 1; i < e->nvals && !role; i += 4)
            if (e->vals[i] >= n)
                role = "matched source", v = e->vals[i];
    } else if (kind == MC_KIND_M && e->op != MC_OP_COMM_FREE) {
        /* members first; Cart_* append their shape after peer2 members */
        uint32_t m = e->nvals;
        if (e->op != MC_OP_INTERCOMM_CREATE && e->peer2 > 0 && (uint32_t)e->peer2 <= m)
            m = (uint32_t)e->peer2;
        for (uint32_t i = 0; i < m && !role; i++)
            if (e->vals[i] < 0 || e->vals[i] >= n)
                role = "member", v = e->vals[i];
    }
    if (!role)
        return NULL;
    snprintf(buf, len, "%s %s %lld is not a rank (the trace has %d)", mc_op_name(e->op), role, v,
             n);
    return buf;
}

/* Checks an event just read from rank's file against the whole trace and
 * learns the communicators it creates or frees. On failure fills err with
 * the file, chunk and event index. */
static int check_event(trace_source *ts, rank_state *rs, int rank, const mc_event *e,
                       mc_error *err)
{
    char what[160];
    const char *bad = invalid_field(e, what, sizeof what);
    if (!bad)
        bad = bad_rank(e, ts->base.nranks, what, sizeof what);
    if (!bad && !comm_known(ts, rs, rank, e->comm)) {
        snprintf(what, sizeof what,
                 "%s on unknown communicator %llu.%llu (not in meta.json nor created before)",
                 mc_op_name(e->op), (unsigned long long)(e->comm >> 32),
                 (unsigned long long)(e->comm & 0xffffffffu));
        bad = what;
    }
    if (bad) {
        char path[4096];
        long chunk, offset;
        uint64_t index;
        mc_rank_path(path, sizeof path, ts->dir, rank);
        mc_rank_reader_where(rs->reader, &chunk, &offset, &index);
        mc_error_set(err, MC_ERR_FORMAT, "%s: chunk %ld at offset %ld: event %llu: %s", path,
                     chunk, offset, (unsigned long long)index, bad);
        return -1;
    }
    if (e->op == MC_OP_COMM_FREE)
        comm_forget(rs, e->comm);
    else if (mc_op_kind_of(e->op) == MC_KIND_M && e->newcomm != MC_COMM_NULL &&
             comm_remember(rs, e->newcomm) != 0)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", ts->dir), -1;
    return 0;
}

/* The rank's stream ends (reader end, read error or invalid event). */
static void rank_end(rank_state *rs, int rc)
{
    rs->ended = 1;
    rs->end_rc = rc;
    if (rs->reader)
        rs->loop_skipped = mc_rank_reader_loop_skipped(rs->reader, &rs->loop_records);
    mc_rank_reader_close(rs->reader);
    rs->reader = NULL;
}

/* A large array (MC_LARGE_VALS: a communicator's members at many ranks)
 * that another rank read already is delivered as one copy, and the reader's
 * own is freed: the ranks creating a communicator of all of them wait in
 * that collective together, each holding the array, P^2 values in all.
 * The first SHARED_ARRAYS distinct ones are kept until the source closes;
 * others stay the reader's. Consumers must not write to a shared array. */
static void share_vals(trace_source *ts, rank_state *rs, mc_event *e)
{
    size_t bytes = (size_t)e->nvals * sizeof *e->vals;
    for (int i = 0; i < ts->nshared; i++)
        if (ts->shared[i].n == e->nvals && memcmp(ts->shared[i].v, e->vals, bytes) == 0) {
            mc_rank_reader_drop_vals(rs->reader);
            e->vals = ts->shared[i].v;
            rs->vals_at = NULL;
            return;
        }
    int64_t *copy = ts->nshared < SHARED_ARRAYS ? malloc(bytes) : NULL;
    if (!copy)
        return; /* kept by the reader, as any array */
    memcpy(copy, e->vals, bytes);
    ts->shared[ts->nshared++] = (shared_array){copy, e->nvals};
    mc_rank_reader_drop_vals(rs->reader);
    e->vals = copy;
    rs->vals_at = NULL;
}

/* Next valid event from the file: 1, 0 at the end, -1 (rs->end_err). */
static int read_checked(trace_source *ts, rank_state *rs, int rank, mc_event *e)
{
    mc_error err; /* not zeroed per event: only read after a failure set it */
    err.code = MC_OK;
    err.msg[0] = 0;
    int rc = mc_rank_reader_next(rs->reader, e, &err);
    rs->ahead = rc > 0 ? mc_rank_reader_ahead(rs->reader) : NULL;
    if (rc > 0 && e->nvals)
        rs->vals_at = e->vals;
    if (rc > 0 && check_event(ts, rs, rank, e, &err) != 0)
        rc = -1;
    if (rc > 0 && e->nvals > MC_LARGE_VALS && mc_op_kind_of(e->op) == MC_KIND_M)
        share_vals(ts, rs, e); /* members only: completions' ids are moved in place */
    if (rc < 0 && (rs->end_err = malloc(sizeof *rs->end_err)) != NULL)
        *rs->end_err = err;
    if (rc <= 0)
        rank_end(rs, rc);
    return rc;
}

static rank_state *rank_open(trace_source *ts, int rank, mc_error *err)
{
    rank_state *rs = &ts->ranks[rank];
    if (rs->reader || rs->ended)
        return rs;
    char path[4096];
    mc_rank_path(path, sizeof path, ts->dir, rank);
    rs->reader = mc_rank_reader_open(path, err);
    if (rs->reader)
        mc_rank_reader_set_loop_cap(rs->reader, ts->loop_cap);
    return rs->reader ? rs : NULL;
}

/* Reads one event from the file into the queue; 0 at the end. */
static int read_ahead(trace_source *ts, rank_state *rs, int rank, mc_error *err)
{
    mc_event e;
    if (read_checked(ts, rs, rank, &e) <= 0)
        return 0;
    if (q_push(rs, &e) != 0) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory in the look-ahead queue");
        return -1;
    }
    if (is_completion(e.op))
        resolve_from(rs, &e);
    return 1;
}

/* The end of a rank's stream, once its queue has drained: what the reader
 * said; the buffers only a live stream needs are released (a reader going
 * rank after rank through 10^6 ranks keeps one rank's). */
static int deliver_end(rank_state *rs, mc_error *err)
{
    if (rs->end_rc < 0 && err) {
        if (rs->end_err)
            *err = *rs->end_err;
        else
            mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    free(rs->q);
    rs->q = NULL;
    rs->qhead = rs->qcap = 0;
    free(rs->cur_vals);
    rs->cur_vals = NULL;
    free(rs->comms);
    rs->comms = NULL;
    rs->ncomms = rs->cap_comms = 0;
    return rs->end_rc;
}

static int trace_next(mc_source *s, int rank, mc_event *e, mc_error *err)
{
    trace_source *ts = (trace_source *)s;
    if (rank < 0 || rank >= s->nranks) {
        mc_error_set(err, MC_ERR_USAGE, "%s: rank %d out of range (0..%d)", ts->dir, rank,
                     s->nranks - 1);
        return -1;
    }
    rank_state *rs = rank_open(ts, rank, err);
    if (!rs)
        return -1;
    if (rs->qlen == 0) {
        if (rs->ended)
            return deliver_end(rs, err);
        if (read_checked(ts, rs, rank, e) <= 0)
            return deliver_end(rs, err);
        if (!is_wildcard_recv(e))
            return 1; /* fast path: nothing to resolve */
        if (q_push(rs, e) != 0)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    }
    while (q_at(rs, 0)->unresolved && !rs->ended && rs->qlen < LOOKAHEAD_MAX)
        if (read_ahead(ts, rs, rank, err) < 0)
            return -1;
    queued *front = q_at(rs, 0);
    free(rs->cur_vals);
    rs->cur_vals = front->e.vals;
    *e = front->e;
    rs->qhead = (rs->qhead + 1) % rs->qcap;
    rs->qlen--;
    return 1;
}

static void trace_close(mc_source *s)
{
    trace_source *ts = (trace_source *)s;
    for (int r = 0; ts->ranks && r < s->nranks; r++) {
        rank_state *rs = &ts->ranks[r];
        mc_rank_reader_close(rs->reader);
        for (size_t i = 0; i < rs->qlen; i++)
            free(q_at(rs, i)->e.vals);
        free(rs->q);
        free(rs->cur_vals);
        free(rs->comms);
        free(rs->end_err);
    }
    free(ts->ranks);
    for (int i = 0; i < ts->nshared; i++)
        free(ts->shared[i].v);
    mc_meta_destroy(ts->meta);
    free(ts->dir);
    free(ts);
}

static const mc_meta *trace_meta(const mc_source *s)
{
    return ((const trace_source *)s)->meta;
}

/* The replay names the ranks it will step a few events ahead (at 4096 ranks
 * and more, sim_prefetch.h): their state and their next bytes are fetched
 * then, so the misses overlap instead of following each other. */
static void trace_prefetch(const mc_source *s, int rank)
{
    const trace_source *ts = (const trace_source *)s;
    if (rank < 0 || rank >= s->nranks)
        return;
    const rank_state *rs = &ts->ranks[rank];
    if (rs->qlen == 0 && rs->reader) {
        __builtin_prefetch(rs->reader); /* its cursor: the first line */
        if (rs->ahead) { /* the replay takes a few events of ~30 bytes per visit */
            __builtin_prefetch(rs->ahead);
            __builtin_prefetch((const char *)rs->ahead + 64);
            __builtin_prefetch((const char *)rs->ahead + 128);
        }
        if (rs->vals_at) /* written by the next decode, then checked */
            __builtin_prefetch(rs->vals_at, 1);
    }
}

static const mc_source_ops trace_ops = {.next = trace_next, .close = trace_close,
                                        .prefetch = trace_prefetch, .meta = trace_meta};

/* Highest N among DIR/rank-N.mct, or -1 if none. */
static int scan_max_rank(const char *dir, mc_error *err, int *max_rank)
{
    DIR *d = opendir(dir);
    if (!d)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot open trace directory: %s", dir,
                            strerror(errno));
    *max_rank = -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int r;
        char tail[8];
        if (sscanf(de->d_name, "rank-%d.mc%7s", &r, tail) == 2 && strcmp(tail, "t") == 0 &&
            r > *max_rank)
            *max_rank = r;
    }
    closedir(d);
    return MC_OK;
}

/* Every rank below nranks must have its file. */
static mc_err check_rank_files(const char *dir, int nranks, mc_error *err)
{
    for (int r = 0; r < nranks; r++) {
        char path[4096];
        mc_rank_path(path, sizeof path, dir, r);
        if (access(path, R_OK) != 0)
            return mc_error_set(err, MC_ERR_IO, "%s: missing rank file (the trace has %d ranks)",
                                path, nranks);
    }
    return MC_OK;
}

mc_source *mc_trace_open(const char *dir, mc_error *err)
{
    int max_rank = -1;
    if (scan_max_rank(dir, err, &max_rank) != MC_OK)
        return NULL;
    mc_error merr = {0};
    mc_meta *meta = mc_meta_read(dir, &merr);
    if (!meta && merr.code != MC_ERR_IO) {
        if (err)
            *err = merr;
        return NULL;
    }
    int nranks = meta ? mc_meta_nranks(meta) : max_rank + 1;
    if (nranks <= 0) {
        mc_meta_destroy(meta);
        mc_error_set(err, MC_ERR_FORMAT, "%s: no rank files (rank-NNNNNN.mct) and no meta.json",
                     dir);
        return NULL;
    }
    if (meta && max_rank >= nranks) { /* a rank file of another run in the directory */
        mc_error_set(err, MC_ERR_FORMAT, "%s/rank-%06d.mct: rank %d, but meta.json says the "
                     "trace has %d ranks (a file from another run?)", dir, max_rank, max_rank,
                     nranks);
        mc_meta_destroy(meta);
        return NULL;
    }
    if (check_rank_files(dir, nranks, err) != MC_OK) {
        mc_meta_destroy(meta);
        return NULL;
    }
    trace_source *ts = calloc(1, sizeof *ts);
    if (ts)
        ts->ranks = calloc((size_t)nranks, sizeof *ts->ranks);
    if (ts)
        ts->dir = strdup(dir);
    if (!ts || !ts->ranks || !ts->dir) {
        if (ts) {
            free(ts->ranks);
            free(ts->dir);
            free(ts);
        }
        mc_meta_destroy(meta);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", dir);
        return NULL;
    }
    ts->meta = meta;
    ts->base.ops = &trace_ops;
    ts->base.nranks = nranks;
    ts->base.name = ts->dir;
    return &ts->base;
}

const mc_meta *mc_trace_meta(const mc_source *s)
{
    return mc_source_meta(s);
}

mc_err mc_source_check_replayable(const mc_source *s, const char *path, mc_error *err)
{
    const mc_meta *m = mc_source_meta(s);
    const char *t = m ? mc_meta_get(m, "threads") : NULL;
    if (!t || !*t)
        return MC_OK;
    return mc_error_set(err, MC_ERR_USAGE, "%s: meta.json: threads: %s: one event stream per "
                        "rank, no thread field: a replay would serialise the threads' calls "
                        "(stats, dump and export read it)", path, t);
}

mc_err mc_trace_set_loop_cap(mc_source *s, uint64_t cap, mc_error *err)
{
    if (!s || s->ops != &trace_ops)
        return mc_error_set(err, MC_ERR_USAGE, "%s: sampling loops needs a trace directory "
                            "(a loop-compressed one: mpicast compress)",
                            s && s->name ? s->name : "input");
    ((trace_source *)s)->loop_cap = cap;
    return MC_OK;
}

uint64_t mc_trace_loop_skipped(const mc_source *s, int rank, uint64_t *records)
{
    if (records)
        *records = 0;
    if (!s || s->ops != &trace_ops || rank < 0 || rank >= s->nranks)
        return 0;
    const rank_state *rs = &((const trace_source *)s)->ranks[rank];
    if (rs->reader)
        return mc_rank_reader_loop_skipped(rs->reader, records);
    if (records)
        *records = rs->loop_records;
    return rs->loop_skipped;
}
