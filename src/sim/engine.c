/* The replay engine: event loop, one state machine per rank, point-to-point
 * MPI semantics on top of a network model.
 *
 * Transfer semantics (LogGOPSim's, priced by the net model). The protocol
 * of each message is chosen here (first_leg) and the model is told which
 * leg it prices, so that eager and rendezvous are told apart in one place:
 *  - A send is issued once the sender's CPU and send NIC are free; it keeps
 *    the CPU for send_cpu (o) and the NIC for send_nic (g + (s-1)G); the
 *    message arrives at the receiver send_arrive (o + L) after the issue.
 *  - An arrived message waits in the receiver's inbox until the receiver's
 *    CPU and receive NIC are free; processing it costs recv_cpu (o + (s-1)G)
 *    of CPU and recv_nic of NIC, whether or not a receive is posted (as in
 *    LogGOPSim: the MPI library progresses it). It is then matched: a posted
 *    receive completes at the end of the processing; otherwise the message
 *    joins the unexpected queue, and a receive posted later completes at its
 *    posting time.
 *  - Eager (bytes <= network.eager_limit): the send request completes when
 *    the CPU is released (t + o). Rendezvous (bytes > limit) and synchronous
 *    sends: the send request completes at the moment of the match (the
 *    receiver's processing start if the receive was posted, else the time the
 *    receive is posted). The data is not re-sent and no extra latency is
 *    charged for the acknowledgement: exactly LogGOPSim's rendezvous
 *    (LogGOPSim.cpp, "rendezvous - free remote request"). That is
 *    network.rendezvous = loggops (default); with handshake a rendezvous
 *    message is a request, a reply and the data (see "handshake" below).
 * Communicator management calls cost a local cost and their collective on
 * the modelled network (cpu.comm_setup = model, default), their recorded
 * duration as MPI work (recorded) or nothing (free).
 * A run of failed polls (Test*, Iprobe) ending in its success replays as a
 * wait for that success (cpu.polling = wait, default: see "polling").
 * A rank is busy (CPU) during its compute bursts, so arrivals are processed
 * only when it is inside MPI or between calls: no asynchronous progress.
 * At one instant a rank first executes its MPI call, then processes what is
 * ready (arrived messages, queued sends) and only then starts its next burst.
 * Ties between ranks' events at the same time go in insertion order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_internal.h"

/* EV_ARRIVE index of a flow model's wake (messages stay below it). */
#define NET_WAKE (MAX_INDEX - 1)

/* ------------------------------------------------------------ errors */

void sim_fail(sim *S, mc_err code, const char *fmt, ...)
{
    if (S->rc)
        return; /* keep the first failure */
    S->rc = code;
    if (S->err) {
        char buf[MC_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        mc_error_set(S->err, code, "%s: %s", S->src->name ? S->src->name : "trace", buf);
    }
}

/* ------------------------------------------------------------ pools */

int32_t sim_req_new(sim *S, int owner, int kind, int op)
{
    int32_t qi;
    SIM_POOL_TAKE(S, reqs, nreqs, capreqs, free_reqs, qi);
    if (qi < 0)
        return -1;
    sim_req *q = &S->reqs[qi];
    memset(q, 0, sizeof *q);
    q->owner = owner;
    q->kind = (uint8_t)kind;
    q->op = (int16_t)op;
    q->exec = -1;
    q->next = -1;
    q->peer = MC_NONE;
    return qi;
}

static void req_release(sim *S, int32_t qi)
{
    sim_req *q = &S->reqs[qi];
    if (q->id)
        sim_map_del(&S->reqmap, ((uint64_t)(uint32_t)q->owner << 32) | q->id);
    q->state = RQ_INACTIVE;
    q->id = 0;
    sim_pool_give(&S->free_reqs, qi);
}

static int32_t msg_new(sim *S)
{
    int32_t mi;
    SIM_POOL_TAKE(S, msgs, nmsgs, capmsgs, free_msgs, mi);
    if (mi >= NET_WAKE) {
        sim_fail(S, MC_ERR_NOMEM, "more than %d messages in flight", MAX_INDEX);
        return -1;
    }
    return mi;
}

static void msg_release(sim *S, int32_t mi)
{
    sim_pool_give(&S->free_msgs, mi);
}

/* Matching buckets: sim_match_find, sim_match_get, sim_match_maybe_drop (match.c). */

/* ------------------------------------------------------------ scheduling */

void sim_push_event(sim *S, int64_t t, uint32_t type, int32_t idx)
{
    if (sim_heap_push(&S->h, t, S->seq++, type, idx))
        sim_fail(S, MC_ERR_NOMEM, "out of memory");
}

static void push_step(sim *S, int r, int64_t t)
{
    S->r[r].step_at = t;
    sim_push_event(S, t, EV_STEP, r);
}

void sim_cpu_work(sim *S, int r, int64_t start, int64_t len, const char *what)
{
    sim_rank *R = &S->r[r];
    R->cpu = start + len;
    R->work += len;
    if (S->tl_on && len > 0) {
        if (R->in_call && start > R->tl_mark)
            sim_tl_slice(S, r, "wait", "wait", R->tl_mark, start);
        sim_tl_slice(S, r, what, "comm", start, start + len);
        if (R->in_call)
            R->tl_mark = start + len;
    }
}

/* One of the things a blocked rank waits for completed at t. */
void sim_rank_notify(sim *S, int r, int64_t t)
{
    sim_rank *R = &S->r[r];
    if (t > R->wake)
        R->wake = t;
    if (--R->nwait == 0 && R->state == RS_BLOCKED) {
        R->state = RS_READY;
        /* Held back until the current handler returns: if it is then the
         * earliest event, the main loop runs it without a queue round trip. */
        if (S->npend)
            push_step(S, S->pend_r, S->pend_t);
        S->pend_r = r;
        S->pend_t = R->wake;
        S->npend = 1;
    }
}

static void kick_progress(sim *S, int r);

void sim_req_complete(sim *S, int32_t qi, int64_t t)
{
    sim_req *q = &S->reqs[qi];
    q->state = RQ_DONE;
    q->t_done = t;
    if (q->exec >= 0) {
        int32_t x = q->exec;
        req_release(S, qi);
        sim_exec_op_done(S, x, t);
        return;
    }
    if (q->flags & F_WAITED) {
        q->flags &= (uint8_t)~F_WAITED;
        int owner = q->owner;
        if (q->flags & F_PERSIST)
            q->state = RQ_INACTIVE;
        else
            req_release(S, qi);
        sim_rank_notify(S, owner, t);
    } else if (q->flags & F_FREED) {
        req_release(S, qi);
    }
}

/* ------------------------------------------------------------ sends */

/* The protocol of a message of `bytes`, as the leg that leaves first: the
 * one place where eager and rendezvous are told apart (the network model
 * prices the leg it is given). */
static mc_net_leg first_leg(const sim *S, int64_t bytes)
{
    if (bytes <= S->eager_limit)
        return MC_NET_LEG_EAGER;
    return S->rdv_handshake ? MC_NET_LEG_HS_REQUEST : MC_NET_LEG_RDV;
}

static void issue_send(sim *S, int r, int32_t qi, int64_t T)
{
    sim_rank *R = &S->r[r];
    sim_req *q = &S->reqs[qi];
    mc_net_leg leg = first_leg(S, q->bytes);
    /* handshake: what leaves now is the request-to-send, an empty message */
    int rts = leg == MC_NET_LEG_HS_REQUEST;
    mc_net_cost c;
    mc_net_transfer(S->net, T, r, q->peer, rts ? 0 : q->bytes, leg, &c);
    R->nic_s = T + c.send_nic;
    sim_cpu_work(S, r, T, c.send_cpu, "send");
    int32_t mi = msg_new(S);
    if (mi < 0)
        return;
    q = &S->reqs[qi];
    sim_msg *m = &S->msgs[mi];
    m->comm = q->comm;
    m->tag = q->tag;
    m->bytes = q->bytes;
    m->src = r;
    m->dst = q->peer;
    m->t_arrive = T + c.arrive;
    m->recv_cpu = rts ? 0 : c.recv_cpu; /* handled in the reply's overhead */
    m->recv_nic = rts ? 0 : c.recv_nic;
    m->next = -1;
    m->recv_req = -1;
    m->leg = (uint8_t)leg;
    S->messages++;
    S->bytes += (uint64_t)(q->bytes > 0 ? q->bytes : 0);
    if (q->exec >= 0) {
        S->coll_messages++;
        S->coll_bytes += (uint64_t)(q->bytes > 0 ? q->bytes : 0);
    }
    /* a flow model (topo) may only know the arrival later: net_arrive */
    const mc_net_flow_ops *fo = S->net->ops->flow;
    if (!fo || fo->start_flow(S->net, T, r, m->dst, rts ? 0 : m->bytes, mi, &m->t_arrive))
        sim_push_event(S, m->t_arrive, EV_ARRIVE, mi);
    int notify = q->flags & F_NOTIFY;
    q->flags &= (uint8_t)~F_NOTIFY;
    if (leg != MC_NET_LEG_EAGER || (q->flags & F_SYNC)) {
        m->send_req = qi; /* released at the match */
    } else {
        m->send_req = -1;
        sim_req_complete(S, qi, T + c.send_cpu);
    }
    if (notify)
        sim_rank_notify(S, r, T + c.send_cpu);
}

/* Issues now if the rank's CPU and NIC are free and nothing is queued before
 * it, else queues it for the progress engine (F_NOTIFY set by the caller
 * decides whether the rank hears about the issue). */
int sim_post_send(sim *S, int r, int32_t qi)
{
    sim_rank *R = &S->r[r];
    sim_req *q = &S->reqs[qi];
    q->state = RQ_ACTIVE;
    q->t_post = S->now;
    if (R->outbox_head < 0 && R->cpu <= S->now && R->nic_s <= S->now) {
        q->flags &= (uint8_t)~F_NOTIFY;
        issue_send(S, r, qi, S->now);
        return 1;
    }
    q->next = -1;
    if (R->outbox_tail >= 0)
        S->reqs[R->outbox_tail].next = qi;
    else
        R->outbox_head = qi;
    R->outbox_tail = qi;
    kick_progress(S, r);
    return 0;
}

/* ------------------------------------------------------------ handshake */

/* network.rendezvous = handshake (docs/platform.md "Rendezvous protocols").
 * A message above the eager limit travels as three legs that reuse its
 * sim_msg, each priced by the network model as that leg (mc_net_leg) of a
 * message of that size between those two ranks (so intranode pairs use the
 * intranode values and a flow model carries every leg as a flow):
 *   RTS   (MC_NET_LEG_HS_REQUEST) sender -> receiver, empty, issued by
 *         issue_send: sender CPU o, NIC g, arrival o + L. Handled, once it
 *         has arrived and the receiver's CPU and receive NIC are free, at
 *         no cost of its own: its handling is the reply's overhead. Matched
 *         like any message; unmatched, it waits in the unexpected queue (a
 *         probe sees it).
 *   CTS   (MC_NET_LEG_HS_REPLY) receiver -> sender, empty: issued at the
 *         match (the RTS's handling if the receive was posted, else the
 *         posting of the receive) once the receiver's CPU and send NIC are
 *         free: receiver CPU o, NIC g, arrival o + L. Handled by the sender
 *         at no cost of its own once its CPU and receive NIC are free: a
 *         sender that is computing sees it only when the burst ends (no
 *         asynchronous progress).
 *   data  (MC_NET_LEG_HS_DATA) sender -> receiver, s bytes: issued at the
 *         CTS's handling once the sender's send NIC is free: sender CPU o,
 *         NIC g + (s-1)G, arrival o + L; processed by the receiver like an
 *         eager message (loggp: o + (s-1)G + network.rendezvous_overhead);
 *         the receive completes at the end of that processing.
 * The send completes when the data has left the sender: the data's issue +
 * max(o, g + (s-1)G). Small synchronous sends keep LogGOPSim's semantics.
 * (LogGP, posted receive, idle ranks: the receive completes 4o + 3L +
 * (s-1)G after the send starts, against 2o + L + (s-1)G for eager.) */

/* Issues leg `leg` of message mi from rank `from` to `to` at the earliest
 * time from now at which from's CPU and send NIC are free; returns that
 * time and the leg's price in *c. */
static int64_t send_leg(sim *S, int32_t mi, int from, int to, int64_t bytes, mc_net_leg leg,
                        const char *what, mc_net_cost *c)
{
    sim_rank *F = &S->r[from];
    int64_t t = F->cpu > S->now ? F->cpu : S->now;
    if (F->nic_s > t)
        t = F->nic_s;
    mc_net_transfer(S->net, t, from, to, bytes, leg, c);
    sim_cpu_work(S, from, t, c->send_cpu, what);
    F->nic_s = t + c->send_nic;
    sim_msg *m = &S->msgs[mi];
    m->src = from;
    m->dst = to;
    m->leg = (uint8_t)leg;
    m->next = -1;
    m->recv_cpu = leg == MC_NET_LEG_HS_DATA ? c->recv_cpu : 0;
    m->recv_nic = leg == MC_NET_LEG_HS_DATA ? c->recv_nic : 0;
    m->t_arrive = t + c->arrive;
    const mc_net_flow_ops *fo = S->net->ops->flow;
    if (!fo || fo->start_flow(S->net, t, from, to, bytes, mi, &m->t_arrive))
        sim_push_event(S, m->t_arrive, EV_ARRIVE, mi);
    return t;
}

/* Rank r handles an arrived CTS (r is the sender: the data leaves) or data
 * (r is the receiver: it processes them) at T, its CPU and receive NIC free. */
static void leg_arrived(sim *S, int r, int32_t mi, int64_t T)
{
    sim_msg *m = &S->msgs[mi];
    if (m->leg == MC_NET_LEG_HS_REPLY) {
        int32_t sq = m->send_req;
        m->send_req = -1;
        mc_net_cost c;
        int64_t t = send_leg(S, mi, r, m->src, m->bytes, MC_NET_LEG_HS_DATA, "send", &c);
        sim_req_complete(S, sq, t + (c.send_nic > c.send_cpu ? c.send_nic : c.send_cpu));
        return;
    }
    sim_rank *R = &S->r[r];
    R->nic_r = T + m->recv_nic;
    m->t_proc_end = T + m->recv_cpu;
    sim_cpu_work(S, r, T, m->recv_cpu, "recv");
    int32_t qi = m->recv_req;
    int64_t done = m->t_proc_end;
    msg_release(S, mi);
    sim_req_complete(S, qi, done);
}

/* ------------------------------------------------------------ receives */

static void match(sim *S, int32_t qi, int32_t mi, int64_t t_match)
{
    sim_msg *m = &S->msgs[mi];
    if (m->leg == MC_NET_LEG_HS_REQUEST) { /* handshake: reply; the receive ends with the data */
        m->recv_req = qi;
        mc_net_cost c;
        send_leg(S, mi, m->dst, m->src, 0, MC_NET_LEG_HS_REPLY, "reply", &c);
        return;
    }
    int64_t done = m->t_proc_end;
    if (S->reqs[qi].t_post > done)
        done = S->reqs[qi].t_post;
    if (m->send_req >= 0)
        sim_req_complete(S, m->send_req, t_match);
    msg_release(S, mi);
    sim_req_complete(S, qi, done);
}

void sim_post_recv(sim *S, int r, int32_t qi)
{
    sim_req *q = &S->reqs[qi];
    q->state = RQ_ACTIVE;
    q->t_post = S->now;
    int32_t bi = sim_match_get(S, q->comm, q->tag, r, q->peer);
    if (bi < 0)
        return;
    bucket *k = &S->bks[bi];
    if (k->uq_head >= 0) {
        int32_t mi = k->uq_head;
        k->uq_head = S->msgs[mi].next;
        if (k->uq_head < 0)
            k->uq_tail = -1;
        sim_match_maybe_drop(S, bi);
        match(S, qi, mi, S->now);
        return;
    }
    q->next = -1;
    if (k->rq_tail >= 0)
        S->reqs[k->rq_tail].next = qi;
    else
        k->rq_head = qi;
    k->rq_tail = qi;
}

/* The receiver processes arrived message mi at T (CPU and NIC free). */
static void process_msg(sim *S, int r, int32_t mi, int64_t T)
{
    uint8_t leg = S->msgs[mi].leg;
    if (leg == MC_NET_LEG_HS_REPLY || leg == MC_NET_LEG_HS_DATA) { /* not matched */
        leg_arrived(S, r, mi, T);
        return;
    }
    sim_rank *R = &S->r[r];
    sim_msg *m = &S->msgs[mi];
    R->nic_r = T + m->recv_nic;
    m->t_proc_end = T + m->recv_cpu;
    sim_cpu_work(S, r, T, m->recv_cpu, "recv");
    int32_t bi = sim_match_get(S, m->comm, m->tag, r, m->src);
    if (bi < 0)
        return;
    bucket *k = &S->bks[bi];
    m = &S->msgs[mi];
    if (k->rq_head >= 0) {
        int32_t qi = k->rq_head;
        k->rq_head = S->reqs[qi].next;
        if (k->rq_head < 0)
            k->rq_tail = -1;
        sim_match_maybe_drop(S, bi);
        match(S, qi, mi, T);
        return;
    }
    m->next = -1;
    if (k->uq_tail >= 0)
        S->msgs[k->uq_tail].next = mi;
    else
        k->uq_head = mi;
    k->uq_tail = mi;
    if (R->probing && R->ev.comm == m->comm && R->ev.peer == m->src && R->ev.tag == m->tag) {
        R->probing = 0;
        sim_rank_notify(S, r, m->t_proc_end);
    }
}

/* ------------------------------------------------------------ progress */

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Earliest time the rank's inbox or outbox head can be handled; INT64_MAX if
 * both are empty. *which: 0 inbox, 1 outbox. */
static int64_t progress_next(const sim *S, int r, int *which)
{
    const sim_rank *R = &S->r[r];
    int64_t tin = INT64_MAX, tout = INT64_MAX;
    if (R->inbox_head >= 0)
        tin = max64(S->msgs[R->inbox_head].t_arrive, max64(R->cpu, R->nic_r));
    if (R->outbox_head >= 0)
        tout = max64(S->reqs[R->outbox_head].t_post, max64(R->cpu, R->nic_s));
    *which = tout <= tin; /* sends first on ties: they free the partner sooner */
    return tout <= tin ? tout : tin;
}

static void kick_progress(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    int which;
    int64_t t = progress_next(S, r, &which);
    if (t == INT64_MAX)
        return;
    if (t < S->now)
        t = S->now;
    /* A queued step of the rank at or before t drains the queues itself. */
    if (R->step_at >= 0 && R->step_at <= t)
        return;
    if (R->progress_at < 0 || t < R->progress_at) {
        R->progress_at = t;
        sim_push_event(S, t, EV_PROGRESS, r);
    }
}

/* Handles every queued message and send of the rank that can start by now.
 * Returns how many. */
static int drain(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    int n = 0;
    while (!S->rc) {
        int which;
        int64_t t = progress_next(S, r, &which);
        if (t == INT64_MAX || t > S->now)
            break;
        if (which) {
            int32_t qi = R->outbox_head;
            R->outbox_head = S->reqs[qi].next;
            if (R->outbox_head < 0)
                R->outbox_tail = -1;
            issue_send(S, r, qi, S->now);
        } else {
            int32_t mi = R->inbox_head;
            R->inbox_head = S->msgs[mi].next;
            if (R->inbox_head < 0)
                R->inbox_tail = -1;
            process_msg(S, r, mi, S->now);
        }
        n++;
    }
    return n;
}

static void progress(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    if (R->progress_at != S->now)
        return; /* superseded by an earlier one */
    R->progress_at = -1;
    drain(S, r);
    kick_progress(S, r);
}

static void arrive(sim *S, int32_t mi)
{
    if (mi == NET_WAKE) {
        S->net->ops->flow->advance(S->net, S->now);
        return;
    }
    sim_msg *m = &S->msgs[mi];
    sim_rank *R = &S->r[m->dst];
    m->next = -1;
    /* Receiver idle with nothing queued: process now rather than through a
     * progress event at this same time (same result, one queue round trip
     * less per message). */
    if (R->inbox_head < 0 && R->outbox_head < 0 && R->cpu <= S->now && R->nic_r <= S->now) {
        process_msg(S, m->dst, mi, S->now);
        return;
    }
    if (R->inbox_tail >= 0)
        S->msgs[R->inbox_tail].next = mi;
    else
        R->inbox_head = mi;
    R->inbox_tail = mi;
    kick_progress(S, m->dst);
}

/* ------------------------------------------------------------ requests */

static int32_t find_req(sim *S, int r, uint32_t id)
{
    int64_t v;
    if (id != MC_NO_REQ && sim_map_get(&S->reqmap, ((uint64_t)(uint32_t)r << 32) | id, &v))
        return (int32_t)v;
    return -1;
}

/* A new application request with the id the trace gave it. */
static int32_t app_req(sim *S, int r, const mc_event *e, int kind)
{
    if (e->req == MC_NO_REQ) {
        sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s without a request id", r,
                 (unsigned long long)S->r[r].events, mc_op_name(e->op));
        return -1;
    }
    int created;
    int64_t *slot = sim_map_insert(&S->reqmap, ((uint64_t)(uint32_t)r << 32) | e->req, &created);
    if (!slot) {
        sim_fail(S, MC_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (!created) {
        sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s reuses request id %u", r,
                 (unsigned long long)S->r[r].events, mc_op_name(e->op), e->req);
        return -1;
    }
    int32_t qi = sim_req_new(S, r, kind, e->op); /* may move S->reqs, not the map */
    if (qi < 0) {
        sim_map_del(&S->reqmap, ((uint64_t)(uint32_t)r << 32) | e->req);
        return -1;
    }
    *slot = qi;
    S->reqs[qi].id = e->req;
    return qi;
}

static void set_p2p(sim_req *q, uint64_t comm, int peer, int tag, int64_t bytes)
{
    q->comm = comm;
    q->peer = peer;
    q->tag = tag;
    q->bytes = bytes;
}

/* The rank waits for request qi (already posted) unless it is complete. */
static void wait_on(sim *S, int r, int32_t qi)
{
    sim_rank *R = &S->r[r];
    sim_req *q = &S->reqs[qi];
    if (q->state == RQ_INACTIVE)
        return; /* MPI: waiting on an inactive persistent request returns at once */
    if (q->state == RQ_DONE) {
        if (q->t_done > R->wake)
            R->wake = q->t_done;
        if (q->flags & F_PERSIST)
            q->state = RQ_INACTIVE;
        else
            req_release(S, qi);
        return;
    }
    q->flags |= F_WAITED;
    R->nwait++;
}

static int valid_peer(sim *S, int r, int peer, const char *what)
{
    if (peer >= 0 && peer < S->n)
        return 1;
    if (peer == MC_NONE)
        return 0;
    if (peer == MC_ANY)
        sim_fail(S, MC_ERR_FORMAT,
                 "rank %d event %llu: %s with an unresolved wildcard %s (the source must "
                 "resolve MPI_ANY_SOURCE/MPI_ANY_TAG to the recorded match)",
                 r, (unsigned long long)S->r[r].events, mc_op_name(S->r[r].ev.op), what);
    else
        sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s %s %d is not a rank (0..%d)", r,
                 (unsigned long long)S->r[r].events, mc_op_name(S->r[r].ev.op), what, peer,
                 S->n - 1);
    return 0;
}

static int valid_tag(sim *S, int r, int tag)
{
    if (tag != MC_ANY)
        return 1;
    valid_peer(S, r, MC_ANY, "tag");
    return 0;
}

/* Starts a send of the current call; blocking: the rank waits for its
 * completion; nonblocking: only for its issue. */
static void start_send(sim *S, int r, int32_t qi, int blocking)
{
    if (blocking) {
        sim_post_send(S, r, qi);
        wait_on(S, r, qi);
        return;
    }
    S->reqs[qi].flags |= F_NOTIFY;
    if (!sim_post_send(S, r, qi))
        S->r[r].nwait++;
}

static int is_sync_send(int op)
{
    return op == MC_OP_SSEND || op == MC_OP_ISSEND || op == MC_OP_SSEND_INIT;
}

static void op_send(sim *S, int r, const mc_event *e, int blocking)
{
    if (!valid_peer(S, r, e->peer, "destination") || !valid_tag(S, r, e->tag))
        return;
    int32_t qi = blocking ? sim_req_new(S, r, RK_SEND, e->op) : app_req(S, r, e, RK_SEND);
    if (qi < 0)
        return;
    set_p2p(&S->reqs[qi], e->comm, e->peer, e->tag, e->bytes);
    if (is_sync_send(e->op))
        S->reqs[qi].flags |= F_SYNC;
    start_send(S, r, qi, blocking);
}

static void op_recv(sim *S, int r, const mc_event *e, int blocking)
{
    if (!blocking && e->peer == MC_NONE) {
        /* Irecv from MPI_PROC_NULL: a request that is complete at once */
        int32_t qi = app_req(S, r, e, RK_RECV);
        if (qi >= 0) {
            S->reqs[qi].state = RQ_DONE;
            S->reqs[qi].t_done = S->now;
        }
        return;
    }
    if (!valid_peer(S, r, e->peer, "source") || !valid_tag(S, r, e->tag))
        return;
    int32_t qi = blocking ? sim_req_new(S, r, RK_RECV, e->op) : app_req(S, r, e, RK_RECV);
    if (qi < 0)
        return;
    set_p2p(&S->reqs[qi], e->comm, e->peer, e->tag, e->bytes);
    sim_post_recv(S, r, qi);
    if (blocking)
        wait_on(S, r, qi);
}

static void op_sendrecv(sim *S, int r, const mc_event *e)
{
    int32_t rq = -1, sq = -1;
    if (e->peer2 != MC_NONE) {
        if (!valid_peer(S, r, e->peer2, "source") || !valid_tag(S, r, e->tag2))
            return;
        rq = sim_req_new(S, r, RK_RECV, e->op);
        if (rq < 0)
            return;
        set_p2p(&S->reqs[rq], e->comm, e->peer2, e->tag2, e->bytes2);
        sim_post_recv(S, r, rq);
    }
    if (e->peer != MC_NONE) {
        if (!valid_peer(S, r, e->peer, "destination") || !valid_tag(S, r, e->tag))
            return;
        sq = sim_req_new(S, r, RK_SEND, e->op);
        if (sq < 0)
            return;
        set_p2p(&S->reqs[sq], e->comm, e->peer, e->tag, e->bytes);
        sim_post_send(S, r, sq);
    }
    if (rq >= 0)
        wait_on(S, r, rq);
    if (sq >= 0)
        wait_on(S, r, sq);
}

static void op_probe(sim *S, int r, const mc_event *e)
{
    if (e->peer == MC_NONE)
        return;
    if (!valid_peer(S, r, e->peer, "source") || !valid_tag(S, r, e->tag))
        return;
    sim_rank *R = &S->r[r];
    int32_t bi = sim_match_find(S, e->comm, e->tag, r, e->peer);
    if (bi >= 0 && S->bks[bi].uq_head >= 0) {
        int64_t t = S->msgs[S->bks[bi].uq_head].t_proc_end;
        if (t > R->wake)
            R->wake = t;
        return;
    }
    R->probing = 1;
    R->nwait++;
}

static void op_init(sim *S, int r, const mc_event *e)
{
    int is_recv = e->op == MC_OP_RECV_INIT;
    if (e->peer != MC_NONE && !valid_peer(S, r, e->peer, is_recv ? "source" : "destination"))
        return;
    int32_t qi = app_req(S, r, e, is_recv ? RK_RECV : RK_SEND);
    if (qi < 0)
        return;
    sim_req *q = &S->reqs[qi];
    set_p2p(q, e->comm, e->peer, e->tag, e->bytes);
    q->flags |= F_PERSIST;
    if (is_sync_send(e->op))
        q->flags |= F_SYNC;
}

static int32_t req_of_val(sim *S, int r, int64_t v)
{
    int32_t qi = v > 0 && v <= UINT32_MAX ? find_req(S, r, (uint32_t)v) : -1;
    if (qi < 0)
        sim_fail(S, MC_ERR_DEADLOCK, "rank %d event %llu: %s on unknown request %lld", r,
                 (unsigned long long)S->r[r].events, mc_op_name(S->r[r].ev.op), (long long)v);
    return qi;
}

static void op_start(sim *S, int r, const mc_event *e)
{
    for (uint32_t i = 0; i < e->nvals && !S->rc; i++) {
        int32_t qi = req_of_val(S, r, e->vals[i]);
        if (qi < 0)
            return;
        sim_req *q = &S->reqs[qi];
        if (!(q->flags & F_PERSIST) || q->state == RQ_ACTIVE) {
            sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: Start of request %u that is %s", r,
                     (unsigned long long)S->r[r].events, q->id,
                     q->flags & F_PERSIST ? "already active" : "not persistent");
            return;
        }
        if (q->peer == MC_NONE) {
            q->state = RQ_DONE;
            q->t_done = S->now;
        } else if (q->kind == RK_SEND) {
            start_send(S, r, qi, 0);
        } else {
            sim_post_recv(S, r, qi);
        }
    }
}

static void op_request_free(sim *S, int r, const mc_event *e)
{
    for (uint32_t i = 0; i < e->nvals && !S->rc; i++) {
        int32_t qi = req_of_val(S, r, e->vals[i]);
        if (qi < 0)
            return;
        if (S->reqs[qi].state == RQ_ACTIVE)
            S->reqs[qi].flags |= F_FREED;
        else
            req_release(S, qi);
    }
}

/* ns of the traced machine -> ps on the target (cpu.speed), capped. */
static int64_t scale_ps(int64_t ns, double speed)
{
    double ps = (double)ns * 1000.0 / speed;
    return ps < (double)TIME_LIMIT ? llround(ps) : TIME_LIMIT;
}

/* Recorded duration of the call in ps, scaled like compute. */
static int64_t recorded_ps(const sim *S, const mc_event *e)
{
    int64_t d = mc_event_duration(e);
    if (d <= 0)
        return 0;
    if (d > NS_LIMIT)
        d = NS_LIMIT;
    return S->speed == 1.0 ? d * 1000 : scale_ps(d, S->speed);
}

/* The recorded duration as MPI work: what a call the model cannot price
 * costs (cpu.polling = recorded: a test that completed nothing, an Iprobe). */
static void op_local_cost(sim *S, int r, const mc_event *e)
{
    int64_t ps = recorded_ps(S, e);
    if (ps > 0)
        sim_cpu_work(S, r, S->now, ps, mc_op_name(e->op));
}

/* ------------------------------------------------------------ polling */

/* cpu.polling = wait (the default). A loop that tests requests, or probes
 * for a message, until they complete is waiting, however many calls it
 * takes. Charged as recorded, its failed calls cost what the traced network
 * made them last (HPCC: 96 % of the predicted communication), and the
 * prediction would not move with the modelled network.
 *
 * A run of failed polls (Test/Testall/Testany/Testsome completing nothing,
 * Iprobe finding nothing) that ends in the success it polled for (a Test*
 * or Wait* completing requests; after Iprobes, a successful Iprobe or a
 * Probe for the same communicator, source and tag) replays as that success
 * alone: a wait for what it completes (a probe for the message it found),
 * priced by the network. The failed calls cost nothing; a burst between
 * them shorter than cpu.poll_gap is the loop's own code (and the tracer's)
 * and is dropped; a longer one is real work done while waiting, so the run
 * ends at the later of the completion and the end of that work.
 *
 * The trace does not record which requests a failed test looked at, so any
 * failed Test* goes on with a run of tests. A run that ends otherwise
 * (another call, a completion of nothing, a probe for something else, the
 * end of the stream) is charged what it held back, as recorded. */

static int is_test_op(int op)
{
    return mc_op_has(op, MC_OPF_TEST);
}

/* POLL_TESTS or POLL_IPROBE for a poll that found nothing (one call or a
 * run folded by the tracer: the same to the replay), else POLL_NONE. */
static int failed_poll(const mc_event *e)
{
    if (!mc_event_is_failed_poll(e))
        return POLL_NONE;
    return e->op == MC_OP_IPROBE ? POLL_IPROBE : POLL_TESTS;
}

/* Whether e is the success that the run p polls for. */
static int ends_run(const sim_poll *p, const mc_event *e)
{
    if (p->kind == POLL_TESTS)
        return mc_op_has(e->op, MC_OPF_COMPLETION) && e->nvals > 0;
    /* a Probe records the source and tag it matched, an Iprobe those asked */
    int probe = e->op == MC_OP_PROBE || (e->op == MC_OP_IPROBE && e->bytes2 != 0);
    return p->kind == POLL_IPROBE && probe && e->comm == p->comm &&
           (p->peer == MC_ANY || p->peer == e->peer) && (p->tag == MC_ANY || p->tag == e->tag);
}

static int64_t add_capped(int64_t a, int64_t b)
{
    return a > TIME_LIMIT - b ? TIME_LIMIT : a + b;
}

/* A failed poll of rank r: starts or goes on with its run, at no cost. */
static void poll_hold(sim *S, int r, const mc_event *e, int kind)
{
    sim_poll *p = &S->poll[r];
    S->r[r].polling = 1;
    p->kind = (uint8_t)kind;
    p->comm = e->comm;
    p->peer = e->peer;
    p->tag = e->tag;
    p->held_mpi = add_capped(p->held_mpi, recorded_ps(S, e));
}

/* The burst b before rank r's next event e while r is in a run: held back
 * (0) if shorter than cpu.poll_gap and e goes on with the run or ends it;
 * if e breaks the run, b plus the bursts held back, with the polls' held
 * time in *mpi (the run is over). */
static int64_t poll_burst(sim *S, int r, const mc_event *e, int64_t b, int64_t *mpi)
{
    sim_poll *p = &S->poll[r];
    *mpi = 0;
    if (failed_poll(e) || ends_run(p, e)) {
        if (b >= S->poll_gap)
            return b;
        p->held_compute = add_capped(p->held_compute, b);
        return 0;
    }
    b = add_capped(b, p->held_compute);
    *mpi = p->held_mpi;
    memset(p, 0, sizeof *p);
    S->r[r].polling = 0;
    return b;
}

/* cpu.polling = wait: an Iprobe is a failed poll, or the probe for the
 * message it found (its matched source and tag). */
static void op_iprobe(sim *S, int r, mc_event *e)
{
    if (!S->poll) {
        op_local_cost(S, r, e);
        return;
    }
    int kind = failed_poll(e);
    if (kind) {
        poll_hold(S, r, e, kind);
        return;
    }
    if (e->bytes2 == 0 || e->peer2 < 0 || e->peer2 >= S->n || e->tag2 == MC_ANY) {
        op_local_cost(S, r, e); /* MPI_PROC_NULL, or no match recorded */
        return;
    }
    e->peer = e->peer2; /* what op_probe and process_msg look for */
    e->tag = e->tag2;
    op_probe(S, r, e);
}

static void op_wait(sim *S, int r, const mc_event *e)
{
    if (e->nvals == 0) {
        if (is_test_op(e->op) && S->poll)
            poll_hold(S, r, e, POLL_TESTS);
        else if (is_test_op(e->op))
            op_local_cost(S, r, e);
        return;
    }
    if (e->nvals % 4) {
        sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s has %u completion values, not 4 per "
                 "request", r, (unsigned long long)S->r[r].events, mc_op_name(e->op), e->nvals);
        return;
    }
    /* A test that completed requests in the run is replayed as a wait on
     * exactly those requests (they must complete before the rank goes on). */
    for (uint32_t i = 0; i < e->nvals && !S->rc; i += 4) {
        int32_t qi = req_of_val(S, r, e->vals[i]);
        if (qi >= 0)
            wait_on(S, r, qi);
    }
}

/* cpu.comm_setup = model (default): a call that builds a communicator
 * costs what the platform says. The library's local work (the group, the
 * communicator object, topology tables) is cpu.comm_setup_local of MPI
 * work; then the collective that every implementation runs over the parent
 * communicator, on the modelled network with the algorithm the platform
 * names: Comm_split and Cart_sub exchange each member's (colour, key), an
 * allgather of 8 bytes; Comm_dup, Comm_create, Cart_create, Graph_create,
 * Dist_graph_create_adjacent and Intercomm_create (over its local
 * communicator) agree on a context id, an allreduce of 8 bytes. The wait
 * for a late member is then the model's, not the traced run's. Comm_free
 * is local. A parent the replay cannot run a collective on (an
 * intercommunicator) leaves the local cost alone. */
static void comm_setup_model(sim *S, int r, const mc_event *e)
{
    if (S->comm_local > 0)
        sim_cpu_work(S, r, S->now, S->comm_local, mc_op_name(e->op));
    if (e->op == MC_OP_COMM_FREE)
        return;
    const sim_comm *c = sim_comm_find(S, e->comm);
    if (!c || c->inter || sim_comm_rank_of(S, c, r) < 0)
        return;
    int split = e->op == MC_OP_COMM_SPLIT || e->op == MC_OP_CART_SUB;
    mc_event x;
    memset(&x, 0, sizeof x);
    x.op = split ? MC_OP_ALLGATHER : MC_OP_ALLREDUCE;
    x.site = e->site;
    x.comm = e->comm;
    x.peer = x.peer2 = x.tag = x.tag2 = MC_NONE;
    x.bytes = x.bytes2 = 8; /* (colour, key) as two ints per member (the block an
                               allgather's receive count names); a 64-bit context id */
    S->r[r].nwait++;
    sim_exec_start(S, r, &x, x.op, -1);
}

/* The cost of a communicator management call: cpu.comm_setup = model (the
 * default, above), recorded (its recorded duration as MPI work, divided by
 * cpu.speed like every recorded time of the traced machine; the wait for a
 * slow member is part of it, not re-synchronised) or free. */
static void op_comm_setup_cost(sim *S, int r, const mc_event *e)
{
    if (S->comm_setup == CS_RECORDED)
        op_local_cost(S, r, e);
    else if (S->comm_setup == CS_MODEL)
        comm_setup_model(S, r, e);
}

/* Executes the current call at S->now. Returns 1 if the rank blocks. */
static int exec_op(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    const mc_event *e = &R->ev;
    R->phase = PH_FETCH;
    R->nwait = 0;
    R->wake = S->now;
    if (e->op == MC_OP_COMPUTE)
        return 0;
    R->in_call = 1;
    R->call_start = R->tl_mark = S->now;
    if (R->polling && !failed_poll(e)) { /* the success: nothing to charge */
        memset(&S->poll[r], 0, sizeof S->poll[r]);
        R->polling = 0;
    }
    switch (e->op) {
    case MC_OP_SEND: case MC_OP_SSEND: case MC_OP_BSEND: case MC_OP_RSEND:
        if (e->peer != MC_NONE)
            op_send(S, r, e, 1);
        break;
    case MC_OP_ISEND: case MC_OP_ISSEND: case MC_OP_IBSEND: case MC_OP_IRSEND:
        if (e->peer == MC_NONE) {
            int32_t qi = app_req(S, r, e, RK_SEND);
            if (qi >= 0) {
                S->reqs[qi].state = RQ_DONE;
                S->reqs[qi].t_done = S->now;
            }
        } else {
            op_send(S, r, e, 0);
        }
        break;
    case MC_OP_RECV:
        if (e->peer != MC_NONE)
            op_recv(S, r, e, 1);
        break;
    case MC_OP_IRECV:
        op_recv(S, r, e, 0);
        break;
    case MC_OP_SENDRECV: case MC_OP_SENDRECV_REPLACE:
        op_sendrecv(S, r, e);
        break;
    case MC_OP_PROBE:
        op_probe(S, r, e);
        break;
    case MC_OP_IPROBE:
        op_iprobe(S, r, &R->ev);
        break;
    case MC_OP_SEND_INIT: case MC_OP_SSEND_INIT: case MC_OP_BSEND_INIT: case MC_OP_RSEND_INIT:
    case MC_OP_RECV_INIT:
        op_init(S, r, e);
        break;
    case MC_OP_START: case MC_OP_STARTALL:
        op_start(S, r, e);
        break;
    case MC_OP_REQUEST_FREE:
        op_request_free(S, r, e);
        break;
    case MC_OP_WAIT: case MC_OP_WAITALL: case MC_OP_WAITANY: case MC_OP_WAITSOME:
    case MC_OP_TEST: case MC_OP_TESTALL: case MC_OP_TESTANY: case MC_OP_TESTSOME:
        op_wait(S, r, e);
        break;
    case MC_OP_COMM_DUP: case MC_OP_COMM_SPLIT: case MC_OP_COMM_CREATE:
    case MC_OP_CART_CREATE: case MC_OP_CART_SUB: case MC_OP_GRAPH_CREATE:
    case MC_OP_DIST_GRAPH_CREATE_ADJACENT: case MC_OP_INTERCOMM_CREATE:
        /* membership, and the cost cpu.comm_setup says */
        sim_comm_create(S, r, e);
        op_comm_setup_cost(S, r, e);
        break;
    case MC_OP_COMM_FREE:
        op_comm_setup_cost(S, r, e);
        break;
    default:
        if (mc_op_has(e->op, MC_OPF_COLL)) {
            R->nwait++;
            sim_exec_start(S, r, e, e->op, -1);
        } else if (mc_op_is_nonblocking_coll(e->op)) {
            int32_t qi = app_req(S, r, e, RK_COLL);
            if (qi >= 0) {
                S->reqs[qi].state = RQ_ACTIVE;
                S->reqs[qi].comm = e->comm;
                sim_exec_start(S, r, e, e->op - (MC_OP_IBARRIER - MC_OP_BARRIER), qi);
            }
        } else if (e->op < 0 || e->op >= MC_OP_COUNT) {
            sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: unknown operation %d", r,
                     (unsigned long long)R->events, e->op);
        }
        /* Init, Finalize, Pcontrol: no cost */
        break;
    }
    if (R->nwait > 0) {
        R->state = RS_BLOCKED;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ rank steps */

static void end_call(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    if (!R->in_call)
        return;
    R->in_call = 0;
    if (S->tl_on) {
        if (S->now > R->tl_mark)
            sim_tl_slice(S, r, "wait", "wait", R->tl_mark, S->now);
        sim_tl_slice(S, r, mc_op_name(R->ev.op), "mpi", R->call_start, S->now);
    }
}

static int64_t burst_ps(sim *S, int r, const mc_event *e)
{
    int64_t b = e->burst > 0 ? e->burst : 0;
    if (b > NS_LIMIT)
        b = NS_LIMIT;
    int64_t ps = S->speed == 1.0 ? b * 1000 : scale_ps(b, S->speed);
    if (S->compute) {
        int64_t v = S->compute(S->compute_ctx, r, S->r[r].prev_site, e->site, ps);
        if (v >= 0)
            ps = v;
    }
    if (e->op == MC_OP_COMPUTE && e->bytes > 0) {
        double f = (double)e->bytes * S->ps_per_flop;
        ps += f < (double)TIME_LIMIT ? llround(f) : TIME_LIMIT;
    }
    if (ps > TIME_LIMIT)
        ps = TIME_LIMIT;
    return ps;
}

/* The stream of rank r ended in a polling run: what it held back is spent
 * as recorded (its end moves). */
static void poll_charge_rest(sim *S, int r)
{
    sim_poll *p = &S->poll[r];
    sim_rank *R = &S->r[r];
    int64_t t = S->now;
    if (p->held_compute > 0 && p->held_compute <= TIME_LIMIT - t) {
        R->compute += p->held_compute;
        t += p->held_compute;
        R->cpu = t;
    }
    if (p->held_mpi > 0 && p->held_mpi <= TIME_LIMIT - t)
        sim_cpu_work(S, r, t, p->held_mpi, "polls");
    memset(p, 0, sizeof *p);
    R->polling = 0;
    R->end = R->cpu > R->end ? R->cpu : R->end;
}

/* Reads the rank's next event and starts its compute burst. Returns 0 when
 * the rank has finished (or failed). */
static int fetch(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    end_call(S, r);
    /* S->src_err is zeroed once: sources fill it only when they fail, and the
     * first failure ends the replay (zeroing 1 KiB per event would not be free). */
    int rc = mc_source_next(S->src, r, &R->ev, &S->src_err);
    if (rc <= 0) {
        if (rc < 0) {
            if (!S->rc) {
                S->rc = S->src_err.code ? S->src_err.code : MC_ERR_FORMAT;
                if (S->err)
                    *S->err = S->src_err;
                if (!S->src_err.msg[0] && S->err)
                    mc_error_set(S->err, S->rc, "%s: rank %d: cannot read the next event",
                                 S->src->name ? S->src->name : "trace", r);
            }
        }
        R->state = RS_DONE;
        R->end = S->now;
        S->ndone++;
        if (R->polling)
            poll_charge_rest(S, r);
        return 0;
    }
    R->events++;
    S->events++;
    int64_t b = burst_ps(S, r, &R->ev), held_mpi = 0;
    if (R->polling)
        b = poll_burst(S, r, &R->ev, b, &held_mpi);
    /* a burst capped at TIME_LIMIT (by burst_ps) was larger still: refused, not cut */
    if (b >= TIME_LIMIT || b > TIME_LIMIT - S->now || held_mpi > TIME_LIMIT - S->now - b) {
        sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: simulated time passes %.0f s (a compute "
                 "burst, duration or size in the trace is absurdly large)", r,
                 (unsigned long long)R->events, (double)TIME_LIMIT * 1e-12);
        return 0;
    }
    R->prev_site = R->ev.site;
    if (b > 0) {
        R->compute += b;
        R->cpu = S->now + b;
        if (S->tl_on)
            sim_tl_slice(S, r, "compute", "compute", S->now, S->now + b);
    }
    if (held_mpi > 0) /* a polling run that did not end in its success */
        sim_cpu_work(S, r, S->now + b, held_mpi, "polls");
    R->phase = PH_EXEC;
    return 1;
}

/* Events a rank runs at one instant before it lets the ranks already due
 * at that instant go first. Where calls take no time (the free network of
 * the breakdown, a trace without compute), a rank that never blocks would
 * otherwise run its whole stream at one instant while every message it
 * sends waits unreceived (a 64-rank broadcast trace of 9 M events: 180 MB). */
#define SAME_INSTANT_RUN 4096

/* Runs the rank from S->now until it must wait. Order at one instant: the
 * MPI call executes, then the rank processes the messages (and queued sends)
 * that are ready, and only then goes back to computing — an MPI library
 * progresses what has arrived before it returns to the application. */
static void rank_step(sim *S, int r)
{
    sim_rank *R = &S->r[r];
    int64_t at = S->now;
    unsigned run = 0;
    for (;;) {
        if (S->rc || R->state == RS_DONE)
            break;
        int64_t t = R->phase == PH_FETCH ? max64(R->cpu, R->wake) : R->cpu;
        if (t > S->now) {
            /* Nothing else can happen before t: go on without the queue.
             * A rank this handler woke (npend, not queued yet) counts: the
             * last member of a grouped collective wakes the others at the
             * time it goes on from. */
            if ((sim_heap_empty(&S->h) || t < sim_heap_min(&S->h)) &&
                !(S->npend && S->pend_t <= t) && !S->flush) {
                S->now = t;
                S->sim_events++;
            } else {
                push_step(S, r, t);
                break;
            }
        }
        if (R->phase == PH_FETCH) {
            /* Progress happens inside MPI calls only: not after a `compute`
             * event, so a time-independent trace replays like the same
             * program's trace with its bursts recorded inside the calls. */
            if (R->in_call && drain(S, r))
                continue;
            if (S->now != at) {
                at = S->now;
                run = 0;
            } else if (++run == SAME_INSTANT_RUN) {
                push_step(S, r, S->now);
                break;
            }
            if (!fetch(S, r))
                break;
        } else if (exec_op(S, r)) {
            drain(S, r);
            break;
        }
    }
    kick_progress(S, r);
}

/* ------------------------------------------------------------ run */

/* Flow models (mc_net_flow_ops): their wakes ride on EV_ARRIVE with a
 * reserved index, so the queue's four event types stay as they are. */
static void net_wake(void *ctx, int64_t t)
{
    sim_push_event((sim *)ctx, t, EV_ARRIVE, NET_WAKE);
}

static void net_flush(void *ctx)
{
    ((sim *)ctx)->flush = 1;
}

static void net_arrive(void *ctx, int64_t cookie, int64_t t)
{
    sim *S = ctx;
    S->msgs[cookie].t_arrive = t;
    sim_push_event(S, t, EV_ARRIVE, (int32_t)cookie);
}

static int sim_init(sim *S, mc_source *src, const mc_platform *p, const mc_sim_options *opt,
                    mc_error *err)
{
    memset(S, 0, sizeof *S);
    S->src = src;
    S->plat = p;
    S->err = err;
    S->n = src->nranks;
    int pf = opt ? opt->prefetch : 0;
    S->prefetch = pf > 0 || (pf == 0 && S->n >= SIM_PREFETCH_MIN_RANKS);
    S->speed = mc_platform_num(p, "cpu.speed");
    if (!(S->speed > 0))
        S->speed = 1.0;
    double flops = mc_platform_num(p, "cpu.flops");
    S->ps_per_flop = flops > 0 && !isinf(flops) ? MC_PS_PER_S / flops : 0.0;
    S->reduce_ps_per_byte = mc_platform_num(p, "cpu.reduce_cost") * MC_PS_PER_S;
    double el = mc_platform_num(p, "network.eager_limit");
    S->eager_limit = el >= 9.2e18 ? INT64_MAX : (int64_t)el;
    const char *rdv = p ? mc_platform_str(p, "network.rendezvous") : NULL;
    S->rdv_handshake = rdv && strcmp(rdv, "handshake") == 0;
    const char *cs = p ? mc_platform_str(p, "cpu.comm_setup") : NULL;
    S->comm_setup = !cs || strcmp(cs, "model") == 0 ? CS_MODEL
                    : strcmp(cs, "free") == 0      ? CS_FREE
                                                   : CS_RECORDED;
    double local = mc_platform_num(p, "cpu.comm_setup_local");
    S->comm_local = local * MC_PS_PER_S < (double)TIME_LIMIT ? llround(local * MC_PS_PER_S)
                                                              : TIME_LIMIT;
    const char *pm = p ? mc_platform_str(p, "cpu.polling") : NULL;
    double gap = mc_platform_num(p, "cpu.poll_gap");
    S->poll_gap = gap * MC_PS_PER_S < (double)TIME_LIMIT ? llround(gap * MC_PS_PER_S) : TIME_LIMIT;
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!mc_op_has(op, MC_OPF_COLL))
            continue;
        char key[64] = "collectives.";
        size_t k = strlen(key);
        for (const char *c = mc_op_name(op); *c && k + 1 < sizeof key; c++)
            key[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        key[k] = 0;
        int known = 0;
        const char *name;
        for (int i = 0; (name = mc_platform_key_at(i, NULL, NULL)); i++)
            if (strcmp(name, key) == 0)
                known = 1;
        S->coll_alg[op] = known && p ? mc_platform_str(p, key) : NULL;
    }
    if (opt) {
        S->compute = opt->compute;
        S->compute_ctx = opt->compute_ctx;
        S->tl = opt->timeline;
        S->slice = opt->slice;
        S->slice_ctx = opt->slice_ctx;
        S->tl_on = S->tl || S->slice;
    }
    if (S->n > MAX_INDEX) {
        mc_error_set(err, MC_ERR_USAGE, "%s: %d ranks: the simulator handles at most %d",
                     src->name ? src->name : "trace", S->n, MAX_INDEX);
        return -1;
    }
    if (S->n <= 0) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: the trace has no ranks", src->name ? src->name : "trace");
        return -1;
    }
    S->net = opt && opt->net ? opt->net : mc_net_create(opt ? opt->net_model : NULL, p, S->n, err);
    if (!S->net)
        return -1;
    if (S->net->ops->flow)
        S->net->ops->flow->set_hooks(S->net, &(mc_net_hooks){S, net_wake, net_arrive, net_flush});
    /* On the free network with free reductions every cost inside a
     * collective is zero (exec.c's sync shortcut); a timeline would lose the
     * schedule's slices, so not with one. */
    S->sync_free = (S->net->ops->caps & MC_NET_CAP_ZERO_COST) && S->reduce_ps_per_byte == 0 &&
                   !S->tl_on;
    S->r = aligned_alloc(64, (size_t)S->n * sizeof *S->r); /* whole lines */
    if (S->r) {
        sim_hint_huge(S->r, (size_t)S->n * sizeof *S->r);
        memset(S->r, 0, (size_t)S->n * sizeof *S->r);
    }
    if (!S->r) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory for %d ranks", S->n);
        return -1;
    }
    if (!(pm && strcmp(pm, "recorded") == 0)) {
        S->poll = calloc((size_t)S->n, sizeof *S->poll);
        if (!S->poll) {
            mc_error_set(err, MC_ERR_NOMEM, "out of memory for %d ranks", S->n);
            return -1;
        }
    }
    for (int i = 0; i < S->n; i++) {
        sim_rank *R = &S->r[i];
        R->progress_at = -1;
        R->step_at = -1;
        R->inbox_head = R->inbox_tail = R->outbox_head = R->outbox_tail = -1;
        R->exec = -1;
    }
    return sim_comm_init(S, opt, err);
}

static void sim_free(sim *S)
{
    sim_exec_release_all(S);
    sim_heap_free(&S->h);
    free(S->reqs);
    free(S->free_reqs.a);
    free(S->free_msgs.a);
    free(S->free_execs.a);
    free(S->msgs);
    free(S->bks);
    free(S->execs);
    sim_map_free(&S->reqmap);
    sim_map_free(&S->collseq);
    sim_comm_free_all(S);
    free(S->r);
    free(S->poll);
    mc_net_destroy(S->net);
}

/* Runs the event loop; returns 1 if it stopped because `stall` engine
 * events passed with neither simulated time advancing nor a trace event
 * read (a livelock: the replay would never end), 2 if *stop became
 * non-zero (checked every 4096 engine events: a volatile load per event
 * would cost more than the check is worth). */
static int run_loop(sim *S, uint64_t stall, const volatile sig_atomic_t *stop)
{
    int64_t seen_t = -1;
    uint64_t seen_events = 0, since = 0;
    for (int i = 0; i < S->n; i++)
        push_step(S, i, 0);
    while (!S->rc) {
        if (S->flush && (sim_heap_empty(&S->h) || sim_heap_min(&S->h) > S->now)) {
            /* the instant is done: the flow model rates what started in it */
            S->flush = 0;
            S->net->ops->flow->advance(S->net, S->now);
            continue;
        }
        if (sim_heap_empty(&S->h))
            break;
        hentry e;
        if (sim_heap_pop(&S->h, &e)) {
            sim_fail(S, MC_ERR_NOMEM, "out of memory");
            break;
        }
        sim_prefetch_ahead(S);
        if (stop && (S->sim_events & 4095) == 0 && *stop)
            return 2; /* e is dropped: the replay ends here */
        if (e.t != seen_t || S->events != seen_events) {
            seen_t = e.t;
            seen_events = S->events;
            since = S->sim_events;
        } else if (S->sim_events - since >= stall) {
            return 1;
        }
        S->now = e.t;
        S->sim_events++;
        int32_t idx = HE_IDX(e);
        switch (HE_TYPE(e)) {
        case EV_STEP:
            S->r[idx].step_at = -1;
            rank_step(S, idx);
            break;
        case EV_ARRIVE:
            arrive(S, idx);
            break;
        case EV_PROGRESS:
            progress(S, idx);
            break;
        case EV_ROUND:
            sim_exec_round_event(S, idx);
            break;
        }
        while (S->npend && !S->rc) {
            S->npend = 0;
            if ((sim_heap_empty(&S->h) || S->pend_t < sim_heap_min(&S->h)) &&
                !(S->flush && S->pend_t > S->now)) {
                if (S->pend_t > S->now)
                    S->now = S->pend_t;
                S->sim_events++;
                rank_step(S, S->pend_r);
            } else {
                push_step(S, S->pend_r, S->pend_t);
            }
        }
    }
    return 0;
}

static void fill_result(sim *S, mc_sim_result *out)
{
    out->nranks = S->n;
    out->ranks = calloc((size_t)S->n, sizeof *out->ranks);
    out->events = S->events;
    out->sim_events = S->sim_events;
    out->messages = S->messages;
    out->bytes = S->bytes;
    out->coll_messages = S->coll_messages;
    out->peak_messages = (uint64_t)S->nmsgs; /* the pool's slots: its high-water mark */
    out->coll_bytes = S->coll_bytes;
    out->end = 0;
    out->sim_time = S->now;
    for (int i = 0; i < S->n; i++) {
        sim_rank *R = &S->r[i];
        int64_t end = R->state == RS_DONE ? R->end : S->now;
        if (R->cpu > end)
            end = R->cpu;
        if (end > out->end)
            out->end = end;
        if (!out->ranks)
            continue;
        mc_sim_rank *o = &out->ranks[i];
        o->end = end;
        o->compute = R->compute;
        int64_t mpi = end - R->compute;
        if (mpi < 0)
            mpi = 0;
        o->comm = R->work < mpi ? R->work : mpi;
        o->wait = mpi - o->comm;
        o->events = R->events;
    }
}

mc_err mc_sim_run(mc_source *src, const mc_platform *p, const mc_sim_options *opt,
                  mc_sim_result *out, mc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!src)
        return mc_error_set(err, MC_ERR_USAGE, "mc_sim_run: no source");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sim *S = malloc(sizeof *S);
    if (!S)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    mc_error local = {0};
    if (!err)
        err = &local;
    if (sim_init(S, src, p, opt, err)) {
        mc_err rc = err->code ? err->code : MC_ERR_INTERNAL;
        if (opt && opt->net)
            S->net = NULL; /* borrowed: the caller destroys it */
        sim_free(S);
        free(S);
        return rc;
    }
    if (S->tl)
        sim_tl_begin(S);
    uint64_t stall = opt && opt->stall_events ? opt->stall_events
                                              : 100000000u + 4u * (uint64_t)S->n * (uint64_t)S->n;
    int how = run_loop(S, stall, opt ? opt->interrupt : NULL);
    int stalled = how == 1;
    if (how == 2) {
        out->interrupted = 1;
        sim_fail(S, MC_ERR_INTERRUPTED, "interrupted at simulated time %.9f s after %llu "
                 "trace events", mc_sim_seconds(S->now), (unsigned long long)S->events);
    }
    if (stalled)
        sim_fail(S, MC_ERR_DEADLOCK, "no progress: %llu engine events at simulated time %.9f s "
                 "without time passing or a trace event read (livelock?)",
                 (unsigned long long)stall, mc_sim_seconds(S->now));
    if ((!S->rc || stalled) && S->ndone < S->n && how != 2)
        sim_report_stuck(S, out);
    else if (!S->rc)
        sim_check_leftovers(S, out);
    if (S->tl)
        sim_tl_end(S);
    fill_result(S, out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    mc_err rc = S->rc;
    if (!out->ranks && !rc)
        rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    if (opt && opt->net)
        S->net = NULL; /* borrowed: its link statistics outlive the replay */
    sim_free(S);
    free(S);
    return rc;
}

void mc_sim_result_free(mc_sim_result *r)
{
    if (!r)
        return;
    free(r->ranks);
    free(r->report);
    r->ranks = NULL;
    r->report = NULL;
}
