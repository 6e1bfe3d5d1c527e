/* The report of a replay that cannot complete: what every stuck rank waits
 * for (operation, peer, tag, communicator), and messages or receives left
 * unmatched when every rank has finished. Error path only: scans freely. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
        char *s = realloc(b->s, cap);
        if (!s)
            return;
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void tag_text(int64_t tag, char *buf, size_t len)
{
    if (tag >= ((int64_t)1 << 40))
        snprintf(buf, len, "collective #%lld (%s)", (long long)((tag >> 8) & 0xffffffff),
                 mc_op_name((int)(tag & 0xff)));
    else
        snprintf(buf, len, "tag %lld", (long long)tag);
}

/* Who waits on what, gathered in one pass over requests and executors, so
 * that a report on 10^6 stuck ranks is linear, not ranks x requests. An
 * index that could not be allocated is NULL: the report then says less. */
typedef struct stuck_index {
    int32_t *waited;    /* per rank: its first waited active request, or -1 */
    int32_t *exec_of;   /* per request: the live executor it belongs to, or -1 */
    int32_t *exec_req;  /* per executor: its first active internal request, or -1 */
} stuck_index;

static int32_t *filled(int32_t n)
{
    int32_t *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    if (a)
        for (int32_t i = 0; i < n; i++)
            a[i] = -1;
    return a;
}

static void index_build(sim *S, stuck_index *ix)
{
    ix->waited = filled(S->n);
    ix->exec_of = filled(S->nreqs);
    ix->exec_req = filled(S->nexecs);
    for (int32_t x = 0; ix->exec_of && x < S->nexecs; x++) {
        int32_t q = S->execs[x].req;
        if (S->execs[x].live && q >= 0 && q < S->nreqs && ix->exec_of[q] < 0)
            ix->exec_of[q] = x;
    }
    for (int32_t i = 0; i < S->nreqs; i++) {
        const sim_req *q = &S->reqs[i];
        if (q->state != RQ_ACTIVE)
            continue;
        if (ix->exec_req && q->exec >= 0 && q->exec < S->nexecs && ix->exec_req[q->exec] < 0)
            ix->exec_req[q->exec] = i;
        if (ix->waited && (q->flags & F_WAITED) && q->owner >= 0 && q->owner < S->n &&
            ix->waited[q->owner] < 0)
            ix->waited[q->owner] = i;
    }
}

static void index_free(stuck_index *ix)
{
    free(ix->waited);
    free(ix->exec_of);
    free(ix->exec_req);
}

static void peer_note(sim *S, sbuf *b, int peer)
{
    if (peer >= 0 && peer < S->n && S->r[peer].state == RS_DONE)
        sb_printf(b, " (rank %d has finished its trace)", peer);
}

static void describe_req(sim *S, sbuf *b, int32_t qi)
{
    const sim_req *q = &S->reqs[qi];
    char cb[48], tb[64];
    sim_comm_name(q->comm, cb, sizeof cb);
    tag_text(q->tag, tb, sizeof tb);
    if (q->kind == RK_RECV)
        sb_printf(b, "%s from rank %d %s comm %s, %lld bytes: no matching message", mc_op_name(q->op),
                  q->peer, tb, cb, (long long)q->bytes);
    else
        sb_printf(b, "%s to rank %d %s comm %s, %lld bytes: %s", mc_op_name(q->op), q->peer, tb,
                  cb, (long long)q->bytes,
                  q->flags & F_SYNC ? "synchronous, no matching receive"
                                    : "rendezvous, no matching receive");
    peer_note(S, b, q->peer);
}

/* First pending internal request of executor xi. */
static void describe_exec(sim *S, const stuck_index *ix, sbuf *b, int32_t xi)
{
    const sim_exec *x = &S->execs[xi];
    char cb[48];
    sb_printf(b, "%s on comm %s (collective #%d, round %d of %d): ", mc_op_name(x->op),
              sim_comm_name(S->comms[x->comm].id, cb, sizeof cb), x->seq, x->round + 1,
              x->nrounds);
    int32_t i = ix->exec_req ? ix->exec_req[xi] : -1;
    if (i < 0) {
        sb_printf(b, "waits");
        return;
    }
    const sim_req *q = &S->reqs[i];
    sb_printf(b, "waits for %s rank %d", q->kind == RK_RECV ? "a message from" :
              "the receive of its message by", q->peer);
    peer_note(S, b, q->peer);
}

static void describe_rank(sim *S, const stuck_index *ix, sbuf *b, int r)
{
    sim_rank *R = &S->r[r];
    const mc_event *e = &R->ev;
    char cb[48];
    sb_printf(b, "rank %d: ", r);
    if (R->exec >= 0) {
        describe_exec(S, ix, b, R->exec);
        return;
    }
    switch (e->op) {
    case MC_OP_RECV: case MC_OP_PROBE: case MC_OP_IPROBE: /* a successful one waits */
        sb_printf(b, "%s from rank %d tag %d comm %s: no matching message", mc_op_name(e->op),
                  e->peer, e->tag, sim_comm_name(e->comm, cb, sizeof cb));
        peer_note(S, b, e->peer);
        return;
    case MC_OP_SENDRECV: case MC_OP_SENDRECV_REPLACE:
        sb_printf(b, "%s to rank %d tag %d, from rank %d tag %d, comm %s: not matched",
                  mc_op_name(e->op), e->peer, e->tag, e->peer2, e->tag2,
                  sim_comm_name(e->comm, cb, sizeof cb));
        return;
    default:
        break;
    }
    /* A call waiting on requests: name the first pending one. */
    int32_t i = ix->waited ? ix->waited[r] : -1;
    if (i >= 0) {
        const sim_req *q = &S->reqs[i];
        if (q->id)
            sb_printf(b, "%s on request %u = ", mc_op_name(e->op), q->id);
        int32_t x = q->kind == RK_COLL && ix->exec_of ? ix->exec_of[i] : -1;
        if (x >= 0)
            describe_exec(S, ix, b, x);
        else
            describe_req(S, b, i);
        return;
    }
    sb_printf(b, "%s (comm %s, peer %d, tag %d) cannot complete", mc_op_name(e->op),
              sim_comm_name(e->comm, cb, sizeof cb), e->peer, e->tag);
}

static void finish(sim *S, mc_sim_result *out, sbuf *b, int count, const char *what)
{
    /* The error message carries the first lines; the report all of them. */
    char head[MC_ERROR_MSG_MAX - 128];
    size_t n = b->len < sizeof head - 1 ? b->len : sizeof head - 1;
    memcpy(head, b->s ? b->s : "", n);
    head[n] = 0;
    for (char *p = head; *p; p++)
        if (*p == '\n')
            *p = ';';
    if (n && head[n - 1] == ';')
        head[n - 1] = 0;
    sim_fail(S, MC_ERR_DEADLOCK, "replay cannot complete: %d %s: %s%s", count, what, head,
             b->len > n ? " ..." : "");
    out->report = b->s;
}

void sim_report_stuck(sim *S, mc_sim_result *out)
{
    sbuf b = {0};
    int count = 0;
    stuck_index ix;
    index_build(S, &ix);
    for (int r = 0; r < S->n; r++) {
        if (S->r[r].state == RS_DONE)
            continue;
        describe_rank(S, &ix, &b, r);
        sb_printf(&b, "\n");
        count++;
    }
    index_free(&ix);
    finish(S, out, &b, count, count == 1 ? "rank stuck" : "ranks stuck");
}

int sim_check_leftovers(sim *S, mc_sim_result *out)
{
    sbuf b = {0};
    int count = 0;
    char cb[48], tb[64];
    for (uint32_t h = 0; S->bks && h <= S->bmask; h++) {
        const bucket *bk = &S->bks[h];
        if (bk->dst < 0)
            continue; /* free slot of the matching table */
        sim_comm_name(bk->comm, cb, sizeof cb);
        tag_text(bk->tag, tb, sizeof tb);
        for (int32_t m = bk->uq_head; m >= 0; m = S->msgs[m].next, count++)
            sb_printf(&b, "message from rank %d to rank %d %s comm %s, %lld bytes: never "
                      "received\n", bk->src, bk->dst, tb, cb, (long long)S->msgs[m].bytes);
        for (int32_t q = bk->rq_head; q >= 0; q = S->reqs[q].next, count++)
            sb_printf(&b, "rank %d: %s from rank %d %s comm %s: never matched\n", bk->dst,
                      mc_op_name(S->reqs[q].op), bk->src, tb, cb);
    }
    if (!count)
        return 0;
    finish(S, out, &b, count, count == 1 ? "unmatched operation" : "unmatched operations");
    return count;
}
