/* mc_trace_open: a trace directory as an event source. Rank files are opened
 * on first use. A wildcard receive (Irecv/Recv_init with MPI_ANY_SOURCE or
 * MPI_ANY_TAG) is delivered only once the completion that records its match
 * has been read: the events in between wait in a small per-rank look-ahead
 * queue, so consumers always see the recorded source and tag. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/format.h"

/* A look-ahead longer than this gives up: the receive is delivered unresolved. */
#define LOOKAHEAD_MAX (1u << 20)

typedef struct queued {
    mc_event e; /* e.vals owned by the queue entry */
    int unresolved;
} queued;

typedef struct rank_state {
    mc_rank_reader *reader;
    queued *q; /* ring buffer */
    size_t qhead, qlen, qcap;
    int64_t *cur_vals; /* vals of the event last delivered from the queue */
    int ended;         /* the reader returned 0 or -1 */
    int end_rc;        /* what to return once the queue drains */
    mc_error end_err;
} rank_state;

typedef struct trace_source {
    mc_source base;
    char *dir;
    mc_meta *meta;
    rank_state *ranks;
} trace_source;

static int is_wildcard_recv(const mc_event *e)
{
    return (e->op == MC_OP_IRECV || e->op == MC_OP_RECV_INIT) && e->req != MC_NO_REQ &&
           (e->peer == MC_ANY || e->tag == MC_ANY);
}

static int is_completion(int op)
{
    return op >= MC_OP_WAIT && op <= MC_OP_TESTSOME;
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

static rank_state *rank_open(trace_source *ts, int rank, mc_error *err)
{
    rank_state *rs = &ts->ranks[rank];
    if (rs->reader || rs->ended)
        return rs;
    char path[4096];
    mc_rank_path(path, sizeof path, ts->dir, rank);
    rs->reader = mc_rank_reader_open(path, err);
    return rs->reader ? rs : NULL;
}

/* Reads one event from the file into the queue; 0 at the end. */
static int read_ahead(rank_state *rs, mc_error *err)
{
    mc_event e;
    int rc = mc_rank_reader_next(rs->reader, &e, &rs->end_err);
    if (rc <= 0) {
        rs->ended = 1;
        rs->end_rc = rc;
        mc_rank_reader_close(rs->reader);
        rs->reader = NULL;
        return 0;
    }
    if (q_push(rs, &e) != 0) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory in the look-ahead queue");
        return -1;
    }
    if (is_completion(e.op))
        resolve_from(rs, &e);
    return 1;
}

static int deliver_end(rank_state *rs, mc_error *err)
{
    if (rs->end_rc < 0 && err)
        *err = rs->end_err;
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
        int rc = mc_rank_reader_next(rs->reader, e, &rs->end_err);
        if (rc <= 0) {
            rs->ended = 1;
            rs->end_rc = rc;
            mc_rank_reader_close(rs->reader);
            rs->reader = NULL;
            return deliver_end(rs, err);
        }
        if (!is_wildcard_recv(e))
            return 1; /* fast path: nothing to resolve */
        if (q_push(rs, e) != 0)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    }
    while (q_at(rs, 0)->unresolved && !rs->ended && rs->qlen < LOOKAHEAD_MAX)
        if (read_ahead(rs, err) < 0)
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
    }
    free(ts->ranks);
    mc_meta_destroy(ts->meta);
    free(ts->dir);
    free(ts);
}

static const mc_source_ops trace_ops = {trace_next, trace_close};

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
    return s && s->ops == &trace_ops ? ((const trace_source *)s)->meta : NULL;
}
