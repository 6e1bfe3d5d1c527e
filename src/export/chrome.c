/* Chrome trace-event JSON of a real trace (mpicast export chrome), for
 * Perfetto or chrome://tracing. Track per rank (pid 0, tid = rank):
 *   compute   "X" slices for the bursts between MPI calls;
 *   mpi       "B"/"E" pairs, one per MPI call, named MPI_<op>, with args;
 *   wait      an "X" slice nested at the start of a receive or wait whose
 *             matching send started later (late sender: the time is
 *             certainly waiting, given the trace's common time base);
 *   flows     "s"/"f" pairs (cat msg) from each send to the call that
 *             completed its receive.
 * Two streamed passes: the first records, per envelope (source,
 * destination, communicator, tag), the sends to the ranks written; the
 * second writes rank by rank and matches each receive to the send of the
 * same envelope and order (MPI's non-overtaking rule; receives in posting
 * order, wildcards as the trace resolved them).
 * The simulated run has its own writer (src/sim/timeline.c). */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct send_rec {
    int64_t start, flow_ts, bytes;
} send_rec;

typedef struct env_q {
    int32_t src, dst, tag;
    uint64_t comm;
    send_rec *v;
    size_t n, cap;
    size_t next_recv; /* the receiver's next receive of this envelope */
} env_q;

/* Envelopes: open addressing over indexes into q. */
typedef struct envs {
    env_q *q;
    size_t n, cap;
    size_t *slot; /* index + 1, 0 empty */
    size_t nslots;
} envs;

typedef struct chrome_x {
    FILE *f;
    int64_t base;
    const mc_chrome_filter *flt;
    envs env;
    lt_reqmap *reqs;
    mc_export_info *info;
    size_t flows;
} chrome_x;

static double us(int64_t ns, int64_t base)
{
    return (double)(ns - base) * 1e-3;
}

static int selected(const chrome_x *x, int r)
{
    return !x->flt || !x->flt->ranks || (r >= 0 && r < x->flt->nranks && x->flt->ranks[r]);
}

/* [t0, t1] overlaps the window */
static int in_window(const chrome_x *x, int64_t t0, int64_t t1)
{
    if (!x->flt || x->flt->t1 < x->flt->t0)
        return 1;
    return t1 - x->base >= x->flt->t0 && t0 - x->base <= x->flt->t1;
}

static size_t env_hash(int32_t src, int32_t dst, int32_t tag, uint64_t comm)
{
    uint64_t h = comm * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uint32_t)src * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)dst * 0x165667B19E3779F9ull;
    h ^= (uint64_t)(uint32_t)tag * 0x27D4EB2F165667C5ull;
    return (size_t)(h ^ (h >> 29));
}

static int env_rehash(envs *e, size_t nslots)
{
    size_t *slot = calloc(nslots, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < e->n; i++) {
        const env_q *q = &e->q[i];
        size_t h = env_hash(q->src, q->dst, q->tag, q->comm) & (nslots - 1);
        while (slot[h])
            h = (h + 1) & (nslots - 1);
        slot[h] = i + 1;
    }
    free(e->slot);
    e->slot = slot;
    e->nslots = nslots;
    return 0;
}

/* The envelope's queue, created when `create`; NULL when absent or no memory. */
static env_q *env_get(envs *e, int32_t src, int32_t dst, int32_t tag, uint64_t comm, int create)
{
    if (e->nslots) {
        size_t h = env_hash(src, dst, tag, comm) & (e->nslots - 1);
        for (; e->slot[h]; h = (h + 1) & (e->nslots - 1)) {
            env_q *q = &e->q[e->slot[h] - 1];
            if (q->src == src && q->dst == dst && q->tag == tag && q->comm == comm)
                return q;
        }
    }
    if (!create)
        return NULL;
    if ((e->n + 1) * 2 > e->nslots && env_rehash(e, e->nslots ? 2 * e->nslots : 256))
        return NULL;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 64;
        env_q *q = realloc(e->q, cap * sizeof *q);
        if (!q)
            return NULL;
        e->q = q;
        e->cap = cap;
    }
    e->q[e->n] = (env_q){.src = src, .dst = dst, .tag = tag, .comm = comm};
    size_t h = env_hash(src, dst, tag, comm) & (e->nslots - 1);
    while (e->slot[h])
        h = (h + 1) & (e->nslots - 1);
    e->slot[h] = ++e->n;
    return &e->q[e->n - 1];
}

static void envs_free(envs *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->q[i].v);
    free(e->q);
    free(e->slot);
}

/* ------------------------------------------------------------ pass 1: sends */

static int add_send(chrome_x *x, int r, int32_t dst, int32_t tag, uint64_t comm,
                    const mc_event *e, int64_t bytes)
{
    if (dst < 0 || !selected(x, dst))
        return 0;
    env_q *q = env_get(&x->env, r, dst, tag, comm, 1);
    if (!q)
        return -1;
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 8;
        send_rec *v = realloc(q->v, cap * sizeof *v);
        if (!v)
            return -1;
        q->v = v;
        q->cap = cap;
    }
    /* A flow binds to the slice enclosing its timestamp: 1 ns into the call */
    int64_t ts = e->t_start + (e->t_end - e->t_start > 1 ? 1 : 0);
    q->v[q->n++] = (send_rec){e->t_start, ts, bytes};
    return 0;
}

/* The sends of event e of rank r (persistent ones at their Start). */
static int sends_of(chrome_x *x, int r, const mc_event *e)
{
    if (lt_is_send(e->op) && e->peer >= 0)
        return add_send(x, r, e->peer, e->tag, e->comm, e, e->bytes);
    if (mc_op_has(e->op, MC_OPF_PERSISTENT))
        return lt_reqmap_put(x->reqs, e);
    if (e->op == MC_OP_START || e->op == MC_OP_STARTALL)
        for (uint32_t k = 0; k < e->nvals; k++) {
            const lt_reqdef *d = lt_reqmap_get(x->reqs, (uint32_t)e->vals[k]);
            if (d && d->peer >= 0 && d->op != MC_OP_RECV_INIT &&
                add_send(x, r, d->peer, d->tag, d->comm, e, d->bytes))
                return -1;
        }
    if (e->op == MC_OP_REQUEST_FREE)
        for (uint32_t k = 0; k < e->nvals; k++)
            lt_reqmap_del(x->reqs, (uint32_t)e->vals[k]);
    return 0;
}

static mc_err collect_sends(chrome_x *x, const char *trace, mc_progress *prog, mc_error *err)
{
    lt_stream *s = lt_stream_open(trace, err);
    if (!s)
        return err && err->code ? err->code : MC_ERR_IO;
    int n = lt_stream_nranks(s), rc = 0, bad = 0;
    mc_event e;
    for (int r = 0; !bad && rc >= 0 && r < n; r++) {
        lt_reqmap_clear(x->reqs);
        while (!bad && (rc = lt_stream_next(s, r, &e, err)) == 1)
            bad = sends_of(x, r, &e);
        mc_progress_update(prog, (uint64_t)r + 1, 2 * (uint64_t)n);
    }
    lt_stream_close(s);
    if (bad)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    return rc < 0 ? (err && err->code ? err->code : MC_ERR_IO) : MC_OK;
}

/* ------------------------------------------------------------ pass 2: ranks */

static void event_args(FILE *f, const mc_event *e)
{
    fputs(",\"args\":{", f);
    int first = 1;
#define ARG_(key, cond, val)                                                 \
    if (cond) {                                                              \
        fprintf(f, "%s\"" key "\":%lld", first ? "" : ",", (long long)(val)); \
        first = 0;                                                           \
    }
    ARG_("peer", e->peer >= 0, e->peer)
    ARG_("tag", e->tag >= 0 && mc_op_kind_of(e->op) == MC_KIND_P, e->tag)
    ARG_("bytes", e->bytes != 0, e->bytes)
    ARG_("bytes2", e->bytes2 != 0, e->bytes2)
    ARG_("req", e->req != 0, e->req)
#undef ARG_
    if (e->comm != MC_COMM_WORLD)
        fprintf(f, "%s\"comm\":\"0x%llx\"", first ? "" : ",", (unsigned long long)e->comm);
    fputc('}', f);
}

/* The k-th send of the envelope, or NULL. */
static const send_rec *sent(chrome_x *x, int32_t src, int r, int32_t tag, uint64_t comm, size_t k)
{
    env_q *q = env_get(&x->env, src, r, tag, comm, 0);
    return q && k < q->n ? &q->v[k] : NULL;
}

static size_t next_recv(chrome_x *x, int32_t src, int r, int32_t tag, uint64_t comm)
{
    env_q *q = env_get(&x->env, src, r, tag, comm, 0);
    return q ? q->next_recv++ : (size_t)-1;
}

/* A message received by event e of rank r: its flow, and the latest send
 * start the event waited for. */
static void received(chrome_x *x, int r, const mc_event *e, int32_t src, const send_rec *s,
                     int64_t *wait_end)
{
    if (!s)
        return;
    if (s->start > *wait_end)
        *wait_end = s->start;
    if (!selected(x, src) || !in_window(x, s->flow_ts, s->flow_ts))
        return;
    int64_t tf = e->t_start + (e->t_end - e->t_start > 1 ? 1 : 0);
    if (tf < s->flow_ts) /* in the completing call, not before the send (clocks permitting) */
        tf = s->flow_ts < e->t_end ? s->flow_ts : e->t_end;
    x->flows++;
    fprintf(x->f, ",\n{\"name\":\"message\",\"cat\":\"msg\",\"ph\":\"s\",\"id\":%zu,\"pid\":0,"
                  "\"tid\":%d,\"ts\":%.3f,\"args\":{\"bytes\":%lld}}",
            x->flows, src, us(s->flow_ts, x->base), (long long)s->bytes);
    fprintf(x->f, ",\n{\"name\":\"message\",\"cat\":\"msg\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,"
                  "\"pid\":0,\"tid\":%d,\"ts\":%.3f}",
            x->flows, r, us(tf, x->base));
}

/* Receives e posts or completes (flows written when `draw`); the latest
 * matching send start in *wait_end. -1: out of memory. */
static int receives_of(chrome_x *x, int r, const mc_event *e, int draw, int64_t *wait_end)
{
    int64_t none = INT64_MIN, *w = draw ? wait_end : &none;
    if (e->op == MC_OP_RECV && e->peer >= 0) {
        size_t k = next_recv(x, e->peer, r, e->tag, e->comm);
        if (draw)
            received(x, r, e, e->peer, sent(x, e->peer, r, e->tag, e->comm, k), w);
    } else if ((e->op == MC_OP_SENDRECV || e->op == MC_OP_SENDRECV_REPLACE) && e->peer2 >= 0) {
        size_t k = next_recv(x, e->peer2, r, e->tag2, e->comm);
        if (draw)
            received(x, r, e, e->peer2, sent(x, e->peer2, r, e->tag2, e->comm, k), w);
    } else if (e->op == MC_OP_IRECV || e->op == MC_OP_RECV_INIT) {
        if (lt_reqmap_put(x->reqs, e))
            return -1;
        /* posting order decides the match: the trace resolved the wildcards */
        lt_reqdef *d = lt_reqmap_get_mut(x->reqs, e->req);
        if (e->op == MC_OP_IRECV && e->peer >= 0 && e->tag >= 0)
            d->seq = (int64_t)next_recv(x, e->peer, r, e->tag, e->comm);
    } else if (e->op == MC_OP_START || e->op == MC_OP_STARTALL) {
        for (uint32_t k = 0; k < e->nvals; k++) {
            lt_reqdef *d = lt_reqmap_get_mut(x->reqs, (uint32_t)e->vals[k]);
            if (d && d->op == MC_OP_RECV_INIT && d->peer >= 0 && d->tag >= 0)
                d->seq = (int64_t)next_recv(x, d->peer, r, d->tag, d->comm);
        }
    } else if (e->op == MC_OP_REQUEST_FREE) {
        for (uint32_t k = 0; k < e->nvals; k++)
            lt_reqmap_del(x->reqs, (uint32_t)e->vals[k]);
    } else if (mc_op_kind_of(e->op) == MC_KIND_W) {
        for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
            if (e->vals[k + 1] < 0)
                continue; /* a send's completion, or from MPI_PROC_NULL */
            lt_reqdef *d = lt_reqmap_get_mut(x->reqs, (uint32_t)e->vals[k]);
            if (!d || (d->op != MC_OP_IRECV && d->op != MC_OP_RECV_INIT))
                continue;
            int32_t src = (int32_t)e->vals[k + 1], tag = (int32_t)e->vals[k + 2];
            size_t seq = d->seq >= 0 ? (size_t)d->seq : next_recv(x, src, r, tag, d->comm);
            if (draw)
                received(x, r, e, src, sent(x, src, r, tag, d->comm, seq), w);
            if (d->op == MC_OP_RECV_INIT)
                d->seq = -1; /* the next Start posts it again */
            else
                lt_reqmap_del(x->reqs, (uint32_t)e->vals[k]);
        }
    }
    return 0;
}

static void write_call(chrome_x *x, int r, const mc_event *e, int first, int64_t wait_end)
{
    FILE *f = x->f;
    if (!first && e->burst > 0 && in_window(x, e->t_start - e->burst, e->t_start)) {
        fprintf(f, ",\n{\"name\":\"compute\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":0,"
                   "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
                r, us(e->t_start - e->burst, x->base), (double)e->burst * 1e-3);
        x->info->written++;
    }
    if (!in_window(x, e->t_start, e->t_end))
        return;
    fprintf(f, ",\n{\"name\":\"MPI_%s\",\"cat\":\"mpi\",\"ph\":\"B\",\"pid\":0,\"tid\":%d,"
               "\"ts\":%.3f",
            mc_op_name(e->op), r, us(e->t_start, x->base));
    event_args(f, e);
    fputc('}', f);
    if (wait_end > e->t_start) {
        int64_t end = wait_end < e->t_end ? wait_end : e->t_end;
        fprintf(f, ",\n{\"name\":\"wait\",\"cat\":\"wait\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,"
                   "\"ts\":%.3f,\"dur\":%.3f}",
                r, us(e->t_start, x->base), (double)(end - e->t_start) * 1e-3);
        x->info->written++;
    }
    fprintf(f, ",\n{\"name\":\"MPI_%s\",\"cat\":\"mpi\",\"ph\":\"E\",\"pid\":0,\"tid\":%d,"
               "\"ts\":%.3f}",
            mc_op_name(e->op), r, us(e->t_end, x->base));
    x->info->written++;
}

static mc_err write_rank(chrome_x *x, lt_stream *s, int r, const char *trace, mc_error *err)
{
    lt_reqmap_clear(x->reqs);
    mc_event e;
    int rc;
    for (uint64_t i = 0; (rc = lt_stream_next(s, r, &e, err)) == 1; i++) {
        if (e.op == MC_OP_COMPUTE)
            continue; /* time-independent input: only sleeps carry time */
        lt_note_folded(x->info, &e);
        int64_t wait_end = INT64_MIN;
        if (receives_of(x, r, &e, in_window(x, e.t_start, e.t_end), &wait_end))
            return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
        write_call(x, r, &e, i == 0, wait_end);
    }
    return rc < 0 ? (err && err->code ? err->code : MC_ERR_IO) : MC_OK;
}

static void write_header(FILE *out, const char *trace, int nranks, const chrome_x *x)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mpicast export chrome\"},"
          "\"traceEvents\":[\n",
          out);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"", out);
    for (const char *c = trace; *c; c++) /* JSON string: escape what needs it */
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if ((unsigned char)*c >= 0x20)
            fputc(*c, out);
    fputs("\"}}", out);
    for (int r = 0; r < nranks; r++)
        if (selected(x, r))
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
                         "\"args\":{\"name\":\"rank %d\"}}",
                    r, r);
}

mc_err mc_export_chrome(const char *trace, FILE *out, const mc_chrome_filter *filter,
                        mc_export_info *info, mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    chrome_x x = {.f = out, .flt = filter, .info = info, .reqs = lt_reqmap_create()};
    if (!x.reqs)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    mc_err rc = collect_sends(&x, trace, prog, err);
    lt_stream *s = rc ? NULL : lt_stream_open(trace, err);
    if (!rc && !s)
        rc = err && err->code ? err->code : MC_ERR_IO;
    if (!rc) {
        int n = lt_stream_nranks(s);
        x.base = lt_stream_tfirst(s) == INT64_MAX ? 0 : lt_stream_tfirst(s);
        write_header(out, trace, n, &x);
        for (int r = 0; !rc && r < n; r++) {
            if (selected(&x, r))
                rc = write_rank(&x, s, r, trace, err);
            mc_progress_update(prog, (uint64_t)(n + r + 1), 2 * (uint64_t)n);
        }
        fputs("\n]}\n", out);
        info->events = lt_stream_events(s);
        info->messages = x.flows;
    }
    mc_progress_done(prog);
    lt_stream_close(s);
    envs_free(&x.env);
    lt_reqmap_destroy(x.reqs);
    if (!rc && ferror(out))
        return mc_error_set(err, MC_ERR_IO, "write failed");
    return rc;
}
