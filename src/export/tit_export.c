/* SimGrid time-independent trace export (mpicast export tit).
 *
 * One file per rank, rank-N.txt, lines "N action args" in the syntax that
 * src/format/tit.c reads and SimGrid 3.2x-3.3x replays, plus traces.txt
 * listing them. Sizes are bytes (init without argument: MPI_BYTE). What the
 * format cannot say is dropped and counted (docs/formats.md):
 * sub-communicator collectives, scans, nonblocking collectives and probes;
 * the recorded cost of MPI calls (every action but compute takes no time of
 * its own in a time-independent trace). Communicator management calls
 * become `sleep` lines of their recorded duration: the simulator charges
 * that duration with cpu.comm_setup = recorded (both divided by cpu.speed),
 * so the export then predicts the same time (counted as compute); the
 * default, model, prices the calls' collectives instead. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"
#include "mpicast/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A nonblocking request of this rank the file has posted: its envelope as
 * SimGrid's `wait SRC DST TAG` names it. */
typedef struct treq {
    uint32_t id;
    int src, dst, tag, persistent_recv;
    int op;        /* the *_init or I* op that created it */
    int32_t peer;  /* persistent: for re-posting at Start */
    int64_t bytes;
    uint64_t comm;
    int outstanding;
} treq;

/* An irecv whose line waits for the size its completion reports. */
typedef struct held_irecv {
    uint32_t req;
    int32_t peer;
    int tag;
    int64_t bytes;   /* the posted size until resolved */
    int resolved;
    long pos;        /* where its line goes in the held text */
} held_irecv;

typedef struct tit_w {
    FILE *f;               /* where lines go: out, or held while irecvs wait */
    FILE *out;             /* the rank's file */
    FILE *held;            /* open_memstream of the lines after the first held irecv */
    char *held_buf;
    size_t held_len;
    long held_done;        /* bytes of held_buf already written to out */
    held_irecv *irecvs;
    size_t nirecvs, cap_irecvs;
    int rank, nranks;
    double flops;
    treq *reqs;
    size_t nreqs, cap;
    mc_export_info *info;
    uint64_t *world_like;  /* communicators with the world's members in order */
    size_t nworld_like, cap_world_like;
} tit_w;

static treq *req_find(tit_w *w, uint32_t id)
{
    for (size_t i = w->nreqs; i-- > 0;)
        if (w->reqs[i].id == id)
            return &w->reqs[i];
    return NULL;
}

static treq *req_add(tit_w *w, uint32_t id)
{
    if (w->nreqs == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        treq *r = realloc(w->reqs, cap * sizeof *r);
        if (!r)
            return NULL;
        w->reqs = r;
        w->cap = cap;
    }
    treq *q = &w->reqs[w->nreqs++];
    memset(q, 0, sizeof *q);
    q->id = id;
    return q;
}

static void drop(tit_w *w, int op)
{
    if (!w->info->dropped++)
        snprintf(w->info->first_dropped, sizeof w->info->first_dropped, "%s", mc_op_name(op));
}

static void line(tit_w *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(tit_w *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(w->f, "%d ", w->rank);
    vfprintf(w->f, fmt, ap);
    fputc('\n', w->f);
    va_end(ap);
    w->info->written++;
}

/* Posts a nonblocking send or receive (I* op, or a persistent Start). */
static int post(tit_w *w, uint32_t id, int is_recv, int32_t peer, int tag, int64_t bytes)
{
    treq *q = req_find(w, id);
    if (!q && !(q = req_add(w, id)))
        return -1;
    q->src = is_recv ? peer : w->rank;
    q->dst = is_recv ? w->rank : peer;
    q->tag = tag;
    q->outstanding = 1;
    line(w, "%s %d %d %lld", is_recv ? "irecv" : "isend", peer, tag < 0 ? 0 : tag, (long long)bytes);
    return 0;
}

static int hold_irecv(tit_w *w, const mc_event *e);

/* An Irecv: its request like post(), its line held until the size is known. */
static int post_irecv(tit_w *w, const mc_event *e)
{
    treq *q = req_find(w, e->req);
    if (!q && !(q = req_add(w, e->req)))
        return -1;
    q->src = e->peer;
    q->dst = w->rank;
    q->tag = e->tag;
    q->outstanding = 1;
    return hold_irecv(w, e);
}

/* Keeps the outstanding and the persistent requests only, so that lookups
 * stay short on long traces. */
static void forget_completed(tit_w *w)
{
    size_t k = 0;
    for (size_t i = 0; i < w->nreqs; i++)
        if (w->reqs[i].outstanding || w->reqs[i].op)
            w->reqs[k++] = w->reqs[i];
    w->nreqs = k;
}

static int outstanding(const tit_w *w)
{
    int n = 0;
    for (size_t i = 0; i < w->nreqs; i++)
        n += w->reqs[i].outstanding;
    return n;
}

/* A completion op: `waitall` when it completes every outstanding request,
 * else one `wait SRC DST TAG` per completed request. Receive envelopes use
 * the matched source/tag (vals), which is what the posted irecv says too:
 * the trace source resolves wildcards. */
static void completion(tit_w *w, const mc_event *e)
{
    int ncomp = 0;
    for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
        treq *q = req_find(w, (uint32_t)e->vals[k]);
        if (q && q->outstanding)
            ncomp++;
    }
    if (ncomp == 0) {
        if (e->op == MC_OP_TEST || e->op == MC_OP_TESTANY || e->op == MC_OP_TESTSOME ||
            e->op == MC_OP_TESTALL)
            line(w, "test");
        return;
    }
    if (ncomp == outstanding(w) && ncomp > 1) {
        line(w, "waitall");
        for (size_t i = 0; i < w->nreqs; i++)
            w->reqs[i].outstanding = 0;
        forget_completed(w);
        return;
    }
    for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
        treq *q = req_find(w, (uint32_t)e->vals[k]);
        if (!q || !q->outstanding)
            continue;
        line(w, "wait %d %d %d", q->src, q->dst, q->tag < 0 ? 0 : q->tag);
        q->outstanding = 0;
    }
    forget_completed(w);
}

static int64_t val_or0(const mc_event *e, uint32_t i)
{
    return i < e->nvals ? e->vals[i] : 0;
}

/* Counts of one side of a v-collective: n values from vals at `first`, or
 * zeros when the side is not significant on this rank. */
static void counts(tit_w *w, const mc_event *e, uint32_t first, int have, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(w->f, " %lld", have ? (long long)val_or0(e, first + (uint32_t)i) : 0LL);
}

/* -2 when an all-to-all's per-rank counts sum past 2^63 (a crafted trace):
 * the total would wrap, and no reader of the text takes it. */
static int collective(tit_w *w, const mc_event *e)
{
    int n = w->nranks;
    int root = e->peer < 0 ? 0 : e->peer;
    long long b = (long long)e->bytes, b2 = (long long)e->bytes2;
    switch (e->op) {
    case MC_OP_BARRIER: line(w, "barrier"); return 0;
    case MC_OP_BCAST: line(w, "bcast %lld %d", b, root); return 0;
    case MC_OP_REDUCE: line(w, "reduce %lld 0 %d", b, root); return 0;
    case MC_OP_ALLREDUCE: line(w, "allreduce %lld 0", b); return 0;
    case MC_OP_ALLTOALL: line(w, "alltoall %lld %lld", b, b2); return 0;
    case MC_OP_ALLGATHER: line(w, "allgather %lld %lld", b, b2); return 0;
    case MC_OP_GATHER: line(w, "gather %lld %lld %d", b, b2, root); return 0;
    case MC_OP_SCATTER: line(w, "scatter %lld %lld %d", b, b2, root); return 0;
    case MC_OP_REDUCE_SCATTER_BLOCK:
        fprintf(w->f, "%d reducescatter", w->rank);
        for (int i = 0; i < n; i++)
            fprintf(w->f, " %lld", b2 ? b2 : b);
        fputs(" 0\n", w->f);
        w->info->written++;
        return 0;
    default:
        break;
    }
    int is_root = e->peer == w->rank;
    fprintf(w->f, "%d ", w->rank);
    switch (e->op) {
    case MC_OP_GATHERV: /* vals at the root: receive counts */
        fprintf(w->f, "gatherv %lld", b);
        counts(w, e, 0, is_root, n);
        fprintf(w->f, " %d", root);
        break;
    case MC_OP_SCATTERV:
        fputs("scatterv", w->f);
        counts(w, e, 0, is_root, n);
        fprintf(w->f, " %lld %d", b2, root);
        break;
    case MC_OP_ALLGATHERV:
        fprintf(w->f, "allgatherv %lld", b);
        counts(w, e, e->nvals >= (uint32_t)n ? e->nvals - (uint32_t)n : 0, 1, n);
        break;
    case MC_OP_ALLTOALLV:
    case MC_OP_ALLTOALLW: {
        int two = e->nvals >= 2u * (uint32_t)n; /* else in place: receive side only */
        long long ss = 0, rs = 0;
        for (int i = 0; i < n; i++)
            if (__builtin_add_overflow(rs, val_or0(e, (uint32_t)(two ? n + i : i)), &rs) ||
                __builtin_add_overflow(ss, val_or0(e, (uint32_t)i), &ss))
                return -2;
        fprintf(w->f, "alltoallv %lld", ss);
        counts(w, e, 0, 1, n);
        fprintf(w->f, " %lld", rs);
        counts(w, e, two ? (uint32_t)n : 0, 1, n);
        break;
    }
    case MC_OP_REDUCE_SCATTER:
        fputs("reducescatter", w->f);
        counts(w, e, 0, 1, n);
        fputs(" 0", w->f);
        break;
    default:
        break;
    }
    fputc('\n', w->f);
    w->info->written++;
    return 0;
}

/* ------------------------------------------------------------ held irecvs
 * An irecv's line gives the size of the message that arrived, which only
 * its completion, later in the stream, reports. Its line and every line
 * after it are held in memory until the completion is read, then written
 * in order: memory is bounded by the text between an irecv and its
 * completion, not by the trace. */

static int hold_irecv(tit_w *w, const mc_event *e)
{
    if (!w->held) {
        w->held = open_memstream(&w->held_buf, &w->held_len);
        if (!w->held)
            return -1;
        w->held_done = 0;
        w->f = w->held;
    }
    if (w->nirecvs == w->cap_irecvs) {
        size_t cap = w->cap_irecvs ? 2 * w->cap_irecvs : 16;
        held_irecv *v = realloc(w->irecvs, cap * sizeof *v);
        if (!v)
            return -1;
        w->irecvs = v;
        w->cap_irecvs = cap;
    }
    fflush(w->held);
    w->irecvs[w->nirecvs++] = (held_irecv){.req = e->req, .peer = e->peer, .tag = e->tag,
                                           .bytes = e->bytes, .pos = (long)w->held_len};
    return 0;
}

/* A completion names req with the bytes received: the earliest held irecv
 * of that request takes them. */
static void resolve_irecv(tit_w *w, uint32_t req, int64_t bytes)
{
    for (size_t i = 0; i < w->nirecvs; i++)
        if (!w->irecvs[i].resolved && w->irecvs[i].req == req) {
            w->irecvs[i].bytes = bytes;
            w->irecvs[i].resolved = 1;
            return;
        }
}

static void write_held_text(tit_w *w, long upto)
{
    if (upto > w->held_done)
        fwrite(w->held_buf + w->held_done, 1, (size_t)(upto - w->held_done), w->out);
    w->held_done = upto;
}

/* Writes the held text up to the first irecv still waiting (all of it with
 * `all`, the irecvs then keeping their posted size). */
static void release_held(tit_w *w, int all)
{
    if (!w->held)
        return;
    fflush(w->held);
    size_t i = 0;
    for (; i < w->nirecvs && (all || w->irecvs[i].resolved); i++) {
        const held_irecv *h = &w->irecvs[i];
        write_held_text(w, h->pos);
        fprintf(w->out, "%d irecv %d %d %lld\n", w->rank, h->peer, h->tag < 0 ? 0 : h->tag,
                (long long)h->bytes);
        w->info->written++;
    }
    memmove(w->irecvs, w->irecvs + i, (w->nirecvs - i) * sizeof *w->irecvs);
    w->nirecvs -= i;
    if (w->nirecvs) {
        write_held_text(w, w->irecvs[0].pos);
        return;
    }
    write_held_text(w, (long)w->held_len);
    fclose(w->held);
    free(w->held_buf);
    w->held = NULL;
    w->held_buf = NULL;
    w->f = w->out;
}

static int persistent_init(tit_w *w, const mc_event *e)
{
    treq *q = req_add(w, e->req);
    if (!q)
        return -1;
    q->op = e->op;
    q->peer = e->peer;
    q->tag = e->tag;
    q->bytes = e->bytes;
    q->persistent_recv = e->op == MC_OP_RECV_INIT;
    return 0;
}

static int start(tit_w *w, const mc_event *e)
{
    for (uint32_t k = 0; k < e->nvals; k++) {
        treq *q = req_find(w, (uint32_t)e->vals[k]);
        if (!q || !q->op)
            continue;
        int32_t peer = q->peer;
        int tag = q->tag;
        int64_t bytes = q->bytes;
        if (peer < 0)
            continue;
        if (post(w, q->id, q->persistent_recv, peer, tag, bytes))
            return -1;
    }
    return 0;
}

/* A communicator management call: `sleep` for its recorded duration, in
 * seconds written exactly from the ns (the reader rounds back to the same
 * ns), so that its replay costs what the simulator charges the call with
 * cpu.comm_setup = recorded. */
static void comm_setup(tit_w *w, const mc_event *e)
{
    int64_t d = mc_event_duration(e);
    if (d > ((int64_t)1 << 50)) /* as the simulator caps a recorded duration */
        d = (int64_t)1 << 50;
    if (d > 0)
        line(w, "sleep %lld.%09lld", (long long)(d / 1000000000), (long long)(d % 1000000000));
}

/* One event → zero or more lines. Returns -1 when out of memory, -2 when
 * its sizes cannot be written (collective). */
static int event(tit_w *w, const mc_event *e)
{
    if (e->burst > 0 && e->op != MC_OP_INIT)
        line(w, "compute %lld", (long long)llround((double)e->burst * 1e-9 * w->flops));
    int world = e->comm == MC_COMM_WORLD;
    for (size_t i = 0; !world && i < w->nworld_like; i++)
        world = e->comm == w->world_like[i];
    switch (mc_op_kind_of(e->op)) {
    case MC_KIND_P:
        break;
    case MC_KIND_C:
        if (!world || mc_op_is_nonblocking_coll(e->op) || e->op == MC_OP_SCAN ||
            e->op == MC_OP_EXSCAN)
            drop(w, e->op);
        else
            return collective(w, e);
        return 0;
    case MC_KIND_W:
        if (e->op == MC_OP_START || e->op == MC_OP_STARTALL)
            return start(w, e);
        if (e->op != MC_OP_REQUEST_FREE)
            completion(w, e);
        return 0;
    default:
        if (e->op == MC_OP_INIT)
            line(w, "init");
        else if (e->op == MC_OP_FINALIZE)
            line(w, "finalize");
        else if (e->op == MC_OP_COMPUTE && e->bytes > 0)
            line(w, "compute %lld", (long long)e->bytes);
        else if (mc_op_kind_of(e->op) == MC_KIND_M)
            comm_setup(w, e);
        else if (e->op != MC_OP_COMPUTE)
            drop(w, e->op);
        return 0;
    }
    long long b = (long long)e->bytes;
    int tag = e->tag < 0 ? 0 : e->tag;
    switch (e->op) {
    case MC_OP_SEND: case MC_OP_SSEND: case MC_OP_BSEND: case MC_OP_RSEND:
        if (e->peer >= 0)
            line(w, "send %d %d %lld", e->peer, tag, b);
        return 0;
    case MC_OP_RECV:
        if (e->peer >= 0)
            line(w, "recv %d %d %lld", e->peer, tag, (long long)(e->bytes2 ? e->bytes2 : e->bytes));
        return 0;
    case MC_OP_ISEND: case MC_OP_ISSEND: case MC_OP_IBSEND: case MC_OP_IRSEND:
        return e->peer >= 0 ? post(w, e->req, 0, e->peer, e->tag, e->bytes) : 0;
    case MC_OP_IRECV:
        /* the size of the message that arrived (the completion's vals), not
         * of the buffer: SimGrid and the simulator use the posted size */
        return e->peer >= 0 ? post_irecv(w, e) : 0;
    case MC_OP_SENDRECV:
    case MC_OP_SENDRECV_REPLACE:
        /* irecv + send + wait: the receive is posted before the send as
         * Sendrecv does, so two ranks exchanging never deadlock. */
        if (e->peer2 >= 0)
            line(w, "irecv %d %d %lld", e->peer2, e->tag2 < 0 ? 0 : e->tag2, (long long)e->bytes2);
        if (e->peer >= 0)
            line(w, "send %d %d %lld", e->peer, tag, b);
        if (e->peer2 >= 0)
            line(w, "wait %d %d %d", e->peer2, w->rank, e->tag2 < 0 ? 0 : e->tag2);
        return 0;
    case MC_OP_SEND_INIT: case MC_OP_SSEND_INIT: case MC_OP_BSEND_INIT: case MC_OP_RSEND_INIT:
    case MC_OP_RECV_INIT:
        return persistent_init(w, e);
    default:
        drop(w, e->op); /* probes */
        return 0;
    }
}

/* A collective on a communicator whose members are all ranks in world
 * order (a Comm_dup, a Cart_create without reordering, a Comm_split with one
 * color) is a world collective for SimGrid, which has no communicators. */
static int is_world_like(const int32_t *m, int64_t n, int nranks, const int64_t *v)
{
    if (n != nranks)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if ((m ? m[i] : v[i]) != i)
            return 0;
    return 1;
}

static int add_world_like(tit_w *w, uint64_t id)
{
    for (size_t i = 0; i < w->nworld_like; i++)
        if (w->world_like[i] == id)
            return 0;
    if (w->nworld_like == w->cap_world_like) {
        size_t cap = w->cap_world_like ? 2 * w->cap_world_like : 8;
        uint64_t *v = realloc(w->world_like, cap * sizeof *v);
        if (!v)
            return -1;
        w->world_like = v;
        w->cap_world_like = cap;
    }
    w->world_like[w->nworld_like++] = id;
    return 0;
}

/* meta.json's world-like communicators; those a rank creates are learnt
 * from its own creating event (learn_world_like), which precedes its use. */
static int meta_world_like(tit_w *w, const mc_meta *meta)
{
    for (size_t i = 0; meta && i < mc_meta_ncomms(meta); i++) {
        const mc_meta_comm *c = mc_meta_comm_at(meta, i);
        if (c->id != MC_COMM_WORLD && c->size == c->local_size &&
            is_world_like(c->members, c->size, w->nranks, NULL) && add_world_like(w, c->id))
            return -1;
    }
    return 0;
}

static int learn_world_like(tit_w *w, const mc_event *e)
{
    if (mc_op_kind_of(e->op) == MC_KIND_M && e->newcomm != MC_COMM_NULL &&
        e->op != MC_OP_INTERCOMM_CREATE && e->peer2 == w->nranks &&
        e->nvals >= (uint32_t)w->nranks && is_world_like(NULL, w->nranks, w->nranks, e->vals))
        return add_world_like(w, e->newcomm);
    return 0;
}

/* The held text and irecvs of a rank whose file failed. */
static void drop_held(tit_w *w)
{
    if (w->held) {
        fclose(w->held);
        free(w->held_buf);
        w->held = NULL;
        w->held_buf = NULL;
    }
    w->nirecvs = 0;
    w->f = w->out;
}

/* Sizes of receives completed by e (4 values per completed request). */
static void resolve_completions(tit_w *w, const mc_event *e)
{
    if (mc_op_kind_of(e->op) != MC_KIND_W || e->op == MC_OP_START || e->op == MC_OP_STARTALL ||
        e->op == MC_OP_REQUEST_FREE)
        return;
    for (uint32_t k = 0; k + 3 < e->nvals; k += 4)
        resolve_irecv(w, (uint32_t)e->vals[k], e->vals[k + 3]);
}

/* Writes one rank's file from the stream; MC_OK or the error. */
static mc_err write_rank(tit_w *w, lt_stream *s, const char *trace, mc_error *err)
{
    mc_event e;
    int rc;
    mc_err bad = MC_OK;
    for (uint64_t i = 0; !bad && (rc = lt_stream_next(s, w->rank, &e, err)) == 1; i++) {
        w->info->events++;
        lt_note_folded(w->info, &e);
        int ev = learn_world_like(w, &e) ? -1 : event(w, &e);
        if (ev == -2)
            bad = mc_error_set(err, MC_ERR_FORMAT, "%s: rank %d event %llu (%s): the per-rank "
                               "counts sum past 2^63 bytes", trace, w->rank,
                               (unsigned long long)i, mc_op_name(e.op));
        else if (ev)
            bad = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        resolve_completions(w, &e);
        release_held(w, 0);
    }
    if (!bad && rc < 0)
        bad = err && err->code ? err->code : MC_ERR_IO;
    if (bad)
        drop_held(w);
    else
        release_held(w, 1); /* irecvs never completed keep their posted size */
    return bad;
}

mc_err mc_export_tit(const char *trace, const char *outdir, double flops, mc_export_info *info,
                     mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (!(flops > 0) || !isfinite(flops))
        return mc_error_set(err, MC_ERR_USAGE, "--flops: must be a positive number of flop/s");
    lt_stream *s = lt_stream_open(trace, err);
    if (!s)
        return err && err->code ? err->code : MC_ERR_IO;
    int nranks = lt_stream_nranks(s);
    mc_err rc = mc_mkdir(outdir, err);
    size_t plen = strlen(outdir) + 64;
    char *path = malloc(plen);
    /* every file through a temporary renamed into place: no symlink is
     * followed, and a failure leaves no half-written file under its name */
    mc_out list = {.fd = -1}, one = {.fd = -1};
    if (!rc && !path)
        rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    if (!rc) {
        snprintf(path, plen, "%s/traces.txt", outdir);
        rc = mc_out_open(&list, path, 0, err);
    }
    tit_w w = {.nranks = nranks, .flops = flops, .info = info};
    if (!rc && meta_world_like(&w, lt_stream_meta(s)))
        rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (int r = 0; !rc && r < nranks; r++) {
        snprintf(path, plen, "%s/rank-%d.txt", outdir, r);
        if ((rc = mc_out_open(&one, path, 0, err)) != MC_OK)
            break;
        w.f = w.out = one.f;
        fprintf(list.f, "rank-%d.txt\n", r);
        w.rank = r;
        w.nreqs = 0;
        rc = write_rank(&w, s, trace, err);
        if (rc)
            mc_out_abort(&one);
        else
            rc = mc_out_commit(&one, err);
        mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)nranks);
    }
    /* the list last: without it the rank files are no trace */
    if (rc)
        mc_out_abort(&list);
    else
        rc = mc_out_commit(&list, err);
    mc_progress_done(prog);
    free(w.reqs);
    free(w.irecvs);
    free(w.world_like);
    free(path);
    lt_stream_close(s);
    return rc;
}
