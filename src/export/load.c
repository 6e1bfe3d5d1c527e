/* Loading a trace in memory and matching its messages. */
#define MC_EXPORT_INTERNAL
#include "export_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpicast/input.h"

double mc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mc_progress_now(void)
{
    return mc_now();
}

void mc_progress_update(mc_progress *p, uint64_t done, uint64_t total)
{
    if (!p || !p->out)
        return;
    /* 4 updates per second; MPICAST_PROGRESS_INTERVAL (seconds) changes it,
     * e.g. 0 in tests so that a short run still shows its line. */
    static double interval = -1;
    if (interval < 0) {
        const char *e = getenv("MPICAST_PROGRESS_INTERVAL");
        interval = e && *e ? atof(e) : 0.25;
    }
    double now = mc_now();
    if (now - p->last < interval)
        return;
    p->last = now;
    if (total)
        fprintf(p->out, "\r%s: %llu/%llu (%.0f %%)\033[K", p->what ? p->what : "working",
                (unsigned long long)done, (unsigned long long)total, 100.0 * (double)done / (double)total);
    else
        fprintf(p->out, "\r%s: %llu\033[K", p->what ? p->what : "working", (unsigned long long)done);
    fflush(p->out);
}

void mc_progress_done(mc_progress *p)
{
    if (!p || !p->out || p->last == 0)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
}

mc_err mc_mkdir(const char *path, mc_error *err)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return MC_OK;
    }
    return mc_error_set(err, MC_ERR_IO, "%s: cannot create the directory: %s", path,
                        strerror(errno ? errno : ENOTDIR));
}

void lt_free(loaded_trace *t)
{
    if (!t)
        return;
    for (int r = 0; r < t->nranks && t->ranks; r++) {
        for (size_t i = 0; i < t->ranks[r].n; i++)
            free(t->ranks[r].ev[i].vals);
        free(t->ranks[r].ev);
        free(t->ranks[r].reqs);
    }
    free(t->ranks);
    mc_source_close(t->src);
    free(t);
}

static int push(lt_rank *rk, const mc_event *e)
{
    if (rk->n == rk->cap) {
        size_t cap = rk->cap ? 2 * rk->cap : 256;
        mc_event *ev = realloc(rk->ev, cap * sizeof *ev);
        if (!ev)
            return -1;
        rk->ev = ev;
        rk->cap = cap;
    }
    mc_event *d = &rk->ev[rk->n];
    *d = *e;
    d->vals = NULL;
    if (e->nvals) {
        d->vals = malloc(e->nvals * sizeof *d->vals);
        if (!d->vals)
            return -1;
        memcpy(d->vals, e->vals, e->nvals * sizeof *d->vals);
    }
    rk->n++;
    return 0;
}

static int lt_req_cmp(const void *a, const void *b)
{
    const lt_req *x = a, *y = b;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Index of the request-creating events of a rank, for lt_find_req. */
static int index_reqs(lt_rank *rk)
{
    size_t n = 0;
    for (size_t i = 0; i < rk->n; i++)
        n += rk->ev[i].req != MC_NO_REQ;
    rk->reqs = malloc((n ? n : 1) * sizeof *rk->reqs);
    if (!rk->reqs)
        return -1;
    for (size_t i = 0; i < rk->n; i++)
        if (rk->ev[i].req != MC_NO_REQ)
            rk->reqs[rk->nreqs++] = (lt_req){rk->ev[i].req, i};
    if (rk->nreqs)
        qsort(rk->reqs, rk->nreqs, sizeof *rk->reqs, lt_req_cmp);
    return 0;
}

const mc_event *lt_find_req(const lt_rank *rk, size_t upto, uint32_t req, size_t *at)
{
    size_t lo = 0, hi = rk->nreqs;
    while (lo < hi) { /* first entry >= (req, upto) */
        size_t mid = lo + (hi - lo) / 2;
        const lt_req *q = &rk->reqs[mid];
        if (q->req < req || (q->req == req && q->ev < upto))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || rk->reqs[lo - 1].req != req)
        return NULL;
    if (at)
        *at = rk->reqs[lo - 1].ev;
    return &rk->ev[rk->reqs[lo - 1].ev];
}

loaded_trace *lt_load(const char *dir, mc_progress *prog, mc_error *err)
{
    loaded_trace *t = calloc(1, sizeof *t);
    if (!t) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", dir);
        return NULL;
    }
    t->src = mc_input_open(dir, err);
    if (!t->src) {
        free(t);
        return NULL;
    }
    t->meta = mc_trace_meta(t->src);
    t->nranks = t->src->nranks;
    t->ranks = calloc(t->nranks > 0 ? (size_t)t->nranks : 1, sizeof *t->ranks);
    if (!t->ranks)
        goto nomem;
    for (int r = 0; r < t->nranks; r++) {
        mc_event e;
        int rc;
        while ((rc = mc_source_next(t->src, r, &e, err)) == 1) {
            if (push(&t->ranks[r], &e))
                goto nomem;
            if (++t->events % 65536 == 0)
                mc_progress_update(prog, (uint64_t)r, (uint64_t)t->nranks);
        }
        if (rc < 0) {
            lt_free(t);
            return NULL;
        }
        if (index_reqs(&t->ranks[r]))
            goto nomem;
    }
    return t;
nomem:
    lt_free(t);
    mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory loading the trace", dir);
    return NULL;
}

int lt_is_send(int op)
{
    switch (op) {
    case MC_OP_SEND: case MC_OP_SSEND: case MC_OP_BSEND: case MC_OP_RSEND:
    case MC_OP_ISEND: case MC_OP_ISSEND: case MC_OP_IBSEND: case MC_OP_IRSEND:
    case MC_OP_SENDRECV: case MC_OP_SENDRECV_REPLACE:
        return 1;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ matching */

/* A send or a receive in program order, keyed by its envelope. */
typedef struct side {
    int src, dst, tag;
    uint64_t comm;
    size_t post, done; /* event indexes (sends: post == done) */
    size_t seq;        /* order of posting on its rank */
    int64_t bytes;
} side;

typedef struct sides {
    side *v;
    size_t n, cap;
} sides;

static int side_add(sides *s, side x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        side *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    x.seq = s->n;
    s->v[s->n++] = x;
    return 0;
}

static int side_cmp(const void *a, const void *b)
{
    const side *x = a, *y = b;
#define CMP_(f) if (x->f != y->f) return x->f < y->f ? -1 : 1;
    CMP_(src) CMP_(dst) CMP_(comm) CMP_(tag) CMP_(seq)
#undef CMP_
    return 0;
}

/* Collects the sends and receives of rank r. */
static int collect(const loaded_trace *t, int r, sides *snd, sides *rcv)
{
    const lt_rank *rk = &t->ranks[r];
    for (size_t i = 0; i < rk->n; i++) {
        const mc_event *e = &rk->ev[i];
        if (lt_is_send(e->op) && e->peer >= 0) {
            side s = {r, e->peer, e->tag, e->comm, i, i, 0, e->bytes};
            if (side_add(snd, s))
                return -1;
        }
        if ((e->op == MC_OP_RECV && e->peer >= 0) ||
            ((e->op == MC_OP_SENDRECV || e->op == MC_OP_SENDRECV_REPLACE) && e->peer2 >= 0)) {
            int is_sr = e->op != MC_OP_RECV;
            side s = {is_sr ? e->peer2 : e->peer, r, is_sr ? e->tag2 : e->tag, e->comm, i, i, 0,
                      is_sr ? e->bytes2 : e->bytes2};
            if (side_add(rcv, s))
                return -1;
        }
        if (e->op == MC_OP_START || e->op == MC_OP_STARTALL) {
            for (uint32_t k = 0; k < e->nvals; k++) {
                size_t at;
                const mc_event *p = lt_find_req(rk, i, (uint32_t)e->vals[k], &at);
                if (p && p->peer >= 0 && p->op != MC_OP_RECV_INIT) {
                    side s = {r, p->peer, p->tag, p->comm, i, i, 0, p->bytes};
                    if (side_add(snd, s))
                        return -1;
                }
            }
        }
        /* Nonblocking receives: matched source/tag are in the completion's vals. */
        if (mc_op_kind_of(e->op) == MC_KIND_W && e->op != MC_OP_START &&
            e->op != MC_OP_STARTALL && e->op != MC_OP_REQUEST_FREE) {
            for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
                if (e->vals[k + 1] < 0)
                    continue; /* a send's completion */
                size_t at;
                const mc_event *p = lt_find_req(rk, i, (uint32_t)e->vals[k], &at);
                if (!p || (p->op != MC_OP_IRECV && p->op != MC_OP_RECV_INIT))
                    continue;
                side s = {(int)e->vals[k + 1], r, (int)e->vals[k + 2], p->comm, at, i, 0,
                          e->vals[k + 3]};
                if (side_add(rcv, s))
                    return -1;
            }
        }
    }
    return 0;
}

static int post_cmp(const void *a, const void *b)
{
    const side *x = a, *y = b;
    if (x->post != y->post)
        return x->post < y->post ? -1 : 1;
    return 0;
}

lt_msg *lt_match(const loaded_trace *t, size_t *nmsgs, mc_error *err)
{
    sides snd = {0}, rcv = {0};
    lt_msg *m = NULL;
    *nmsgs = 0;
    for (int r = 0; r < t->nranks; r++) {
        size_t r0 = rcv.n;
        if (collect(t, r, &snd, &rcv))
            goto nomem;
        /* receives are matched in posting order, not completion order */
        if (rcv.n > r0)
            qsort(rcv.v + r0, rcv.n - r0, sizeof *rcv.v, post_cmp);
        for (size_t k = r0; k < rcv.n; k++)
            rcv.v[k].seq = k;
    }
    if (snd.n)
        qsort(snd.v, snd.n, sizeof *snd.v, side_cmp);
    if (rcv.n)
        qsort(rcv.v, rcv.n, sizeof *rcv.v, side_cmp);
    m = malloc((snd.n < rcv.n ? snd.n : rcv.n) * sizeof *m + 1);
    if (!m)
        goto nomem;
    size_t i = 0, j = 0;
    while (i < snd.n && j < rcv.n) {
        const side *s = &snd.v[i], *q = &rcv.v[j];
        side a = *s, b = *q;
        a.seq = b.seq = 0;
        int c = side_cmp(&a, &b);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            m[(*nmsgs)++] = (lt_msg){s->src, s->dst, s->post, q->post, q->done, s->bytes};
            i++;
            j++;
        }
    }
    free(snd.v);
    free(rcv.v);
    return m;
nomem:
    free(snd.v);
    free(rcv.v);
    free(m);
    mc_error_set(err, MC_ERR_NOMEM, "out of memory matching messages");
    return NULL;
}
