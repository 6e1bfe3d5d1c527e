/* Communicators and collective schedule executors.
 *
 * A collective call becomes an executor running this rank's schedule from
 * mc_coll_build (coll.h) round by round: all sends and receives of a round
 * are posted at once as internal requests, the round completes when all of
 * them have, then its reductions take CPU time (bytes x cpu.reduce_cost),
 * then the next round starts. The messages travel through the same LogGP
 * machinery as the application's, in a separate matching context: tag
 * (1 << 40) | (seq << 8) | op, where seq numbers the collectives of the
 * communicator (equal on every member, as MPI orders collectives per
 * communicator) and op is the blocking form — members that disagree on the
 * operation never match and end in the deadlock report. Blocking
 * collectives hold the rank until the executor is done; nonblocking ones run
 * as extra executors and complete their request.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

/* ------------------------------------------------------------ executors */

static int32_t exec_new(sim *S)
{
    int32_t xi, fresh = S->nexecs;
    SIM_POOL_TAKE(S, execs, nexecs, capexecs, free_execs, xi);
    if (xi < 0)
        return -1;
    if (xi >= MAX_INDEX) {
        sim_fail(S, MC_ERR_NOMEM, "more than %d collectives in progress", MAX_INDEX);
        return -1;
    }
    if (xi == fresh) /* never used: no schedule arrays yet */
        memset(&S->execs[xi], 0, sizeof *S->execs);
    S->execs[xi].live = 1;
    S->execs[xi].next = -1;
    return xi;
}

static void exec_done(sim *S, int32_t xi, int64_t t)
{
    sim_exec *x = &S->execs[xi];
    int owner = x->owner;
    int32_t req = x->req;
    x->live = 0;
    sim_pool_give(&S->free_execs, xi);
    /* A recycled executor keeps its arrays; a large one (a tree's root) is
     * freed instead, or every executor would end up the largest size. */
    if (x->sched.cap_ops > 16)
        mc_coll_sched_free(&x->sched);
    if (req < 0) {
        S->r[owner].exec = -1;
        sim_rank_notify(S, owner, t);
    } else {
        sim_req_complete(S, req, t);
    }
}

/* The next EXEC_WINDOW rounds of a stepped algorithm, from the current one. */
static int exec_window(sim *S, sim_exec *x)
{
    mc_error err;
    err.code = MC_OK;
    err.msg[0] = '\0';
    if (mc_coll_build_rounds(x->alg, &x->args, x->round, EXEC_WINDOW, &x->sched, &err)) {
        sim_fail(S, err.code, "%s", err.msg);
        return -1;
    }
    x->r0 = x->round;
    return 0;
}

/* Posts the current round at S->now. Returns 1 if it completed at once. */
static int exec_post_round(sim *S, int32_t xi)
{
    sim_exec *x = &S->execs[xi];
    if (!sim_exec_has_round(x) && exec_window(S, x)) /* (a whole schedule always has it) */
        return 0;
    const mc_coll_sched *s = &x->sched;
    int k = x->round - x->r0;
    int lo = s->round_start[k], hi = s->round_start[k + 1];
    const sim_comm *c = &S->comms[x->comm];
    int n = 0;
    double red = 0; /* double: corrupt sizes must not overflow */
    for (int i = lo; i < hi; i++) {
        n += s->ops[i].kind != MC_COLL_REDUCE;
        red += s->ops[i].kind == MC_COLL_REDUCE ? (double)s->ops[i].bytes : 0.0;
    }
    /* With a thousand executors interleaved, a schedule's next round is out
     * of cache by the time it starts: fetch it while this one runs. */
    if (k + 1 < s->nrounds) {
        __builtin_prefetch(&s->round_start[k + 2]);
        __builtin_prefetch(&s->ops[hi]);
    }
    x->outstanding = n;
    x->red_bytes = red;
    x->t_round = S->now;
    x->posting = 1;
    for (int i = lo; i < hi && !S->rc; i++) {
        const mc_coll_op *op = &S->execs[xi].sched.ops[i];
        if (op->kind == MC_COLL_REDUCE)
            continue;
        if (op->peer < 0 || op->peer >= c->size) {
            sim_fail(S, MC_ERR_INTERNAL, "collective %s: schedule peer %d outside the "
                     "communicator of size %d", mc_op_name(S->execs[xi].op), op->peer, c->size);
            return 0;
        }
        int peer = c->members ? c->members[op->peer] : op->peer;
        int owner = S->execs[xi].owner;
        int32_t qi = sim_req_new(S, owner, op->kind == MC_COLL_SEND ? RK_SEND : RK_RECV,
                             S->execs[xi].op);
        if (qi < 0)
            return 0;
        sim_req *q = &S->reqs[qi];
        q->comm = c->id;
        q->tag = S->execs[xi].tag;
        q->bytes = op->bytes;
        q->peer = peer;
        q->exec = xi;
        if (op->kind == MC_COLL_SEND)
            sim_post_send(S, owner, qi);
        else
            sim_post_recv(S, owner, qi);
    }
    x = &S->execs[xi];
    x->posting = 0;
    return x->outstanding == 0;
}

/* The current round is complete at x->t_round: reduce, then go on. */
static void exec_advance(sim *S, int32_t xi)
{
    while (!S->rc) {
        sim_exec *x = &S->execs[xi];
        int64_t T = x->t_round;
        double red = x->red_bytes; /* summed when the round was posted */
        if (red > 0 && S->reduce_ps_per_byte > 0) {
            double c = red * S->reduce_ps_per_byte;
            int64_t cost = c < (double)((int64_t)1 << 50) ? llround(c) : (int64_t)1 << 50;
            int64_t start = T > S->r[x->owner].cpu ? T : S->r[x->owner].cpu;
            sim_cpu_work(S, x->owner, start, cost, "reduce");
            T = start + cost;
        }
        x->round++;
        if (x->round >= x->nrounds) {
            exec_done(S, xi, T);
            return;
        }
        if (T > S->now) {
            x->t_round = T;
            sim_push_event(S, T, EV_ROUND, xi);
            return;
        }
        if (!exec_post_round(S, xi))
            return;
    }
}

void sim_exec_round_event(sim *S, int32_t xi)
{
    if (!S->execs[xi].live)
        return;
    if (exec_post_round(S, xi))
        exec_advance(S, xi);
}

void sim_exec_op_done(sim *S, int32_t xi, int64_t t)
{
    sim_exec *x = &S->execs[xi];
    if (t > x->t_round)
        x->t_round = t;
    if (--x->outstanding == 0 && !x->posting)
        exec_advance(S, xi);
}

static int is_rooted(int op)
{
    return op == MC_OP_BCAST || op == MC_OP_REDUCE || op == MC_OP_GATHER ||
           op == MC_OP_GATHERV || op == MC_OP_SCATTER || op == MC_OP_SCATTERV;
}

/* Per-rank byte arrays of the v-collectives from the event's vals. */
static void v_counts(const mc_event *e, int op, int size, mc_coll_args *a)
{
    uint32_t n = e->nvals, sz = (uint32_t)size;
    switch (op) {
    case MC_OP_GATHERV: case MC_OP_ALLGATHERV: case MC_OP_REDUCE_SCATTER:
        if (n >= sz)
            a->recvcounts = e->vals;
        break;
    case MC_OP_SCATTERV:
        if (n >= sz)
            a->sendcounts = e->vals;
        break;
    case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW:
        if (n >= 2 * sz) {
            a->sendcounts = e->vals;
            a->recvcounts = e->vals + sz;
        }
        break;
    default:
        break;
    }
}

static void coll_fail(sim *S, int r, const mc_event *e, const char *what)
{
    char cb[48];
    sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s on comm %s: %s", r,
             (unsigned long long)S->r[r].events, mc_op_name(e->op),
             sim_comm_name(e->comm, cb, sizeof cb), what);
}

/* A collective priced by a measured table (mc_net_coll_time): no schedule;
 * every member is held from its entry until the last member has entered
 * plus the measured time. The members already in wait as executors chained
 * behind the first one, found through collseq under keys of their own (bit
 * 63 set, comm index, seq); the head counts entries in `outstanding` and
 * keeps the latest entry in `t_round`. */
static int exec_start_measured(sim *S, int r, int32_t cidx, int32_t size, int op, int64_t seq,
                               int32_t app_req, int64_t t_coll)
{
    int32_t xi = exec_new(S);
    if (xi < 0)
        return -1;
    sim_exec *x = &S->execs[xi];
    mc_coll_sched_reset(&x->sched);
    x->alg = NULL;
    x->r0 = x->nrounds = 0;
    x->comm = cidx;
    x->owner = r;
    x->op = (int16_t)op;
    x->seq = (int32_t)seq;
    x->req = app_req;
    x->round = 0;
    x->outstanding = 1;
    x->posting = 0;
    x->t_round = S->now;
    if (app_req < 0)
        S->r[r].exec = xi;
    uint64_t key = (1ull << 63) | ((uint64_t)cidx << 40) | ((uint64_t)seq & ((1ull << 40) - 1));
    int created;
    int64_t *slot = sim_map_insert(&S->collseq, key, &created);
    if (!slot) {
        sim_fail(S, MC_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (created) {
        *slot = xi;
        return 0;
    }
    int32_t head = (int32_t)*slot;
    sim_exec *h = &S->execs[head];
    x->next = h->next;
    h->next = xi;
    if (S->now > h->t_round)
        h->t_round = S->now;
    if (++h->outstanding < size)
        return 0;
    int64_t T = h->t_round + t_coll;
    sim_map_del(&S->collseq, key);
    for (int32_t i = head; i >= 0;) {
        int32_t next = S->execs[i].next;
        exec_done(S, i, T);
        i = next;
    }
    return 0;
}

/* The measured time of this collective from the network model, or -1. */
static int64_t measured_coll_time(sim *S, int op, int32_t size, int64_t bytes)
{
    char name[64];
    size_t k = 0;
    for (const char *c = mc_op_name(mc_coll_blocking_op(op)); c && *c && k + 1 < sizeof name; c++)
        name[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    name[k] = 0;
    return mc_net_coll_time(S->net, name, size, bytes);
}

/* The sequence number of member `me`'s next collective on communicator
 * cidx (its tag context), or -1 out of memory. An array per communicator,
 * 4 bytes per member: a map keyed by (comm, rank) cost 64 bytes per rank
 * and a cache miss of its own per collective at 10^6 ranks. */
static int64_t next_coll_seq(sim *S, int32_t cidx, int me)
{
    sim_comm *c = &S->comms[cidx];
    if (!c->coll_seq) {
        c->coll_seq = calloc((size_t)c->size, sizeof *c->coll_seq);
        if (!c->coll_seq) {
            sim_fail(S, MC_ERR_NOMEM, "out of memory");
            return -1;
        }
        sim_hint_huge(c->coll_seq, (size_t)c->size * sizeof *c->coll_seq);
    }
    return c->coll_seq[me]++;
}

/* A blocking collective whose every member's result depends on every
 * member's contribution (so every algorithm for it, and the schedule
 * builders never skip a message, even of 0 bytes). When nothing costs
 * time (free network, free reductions) each member then leaves exactly
 * when the last one enters: every time in the schedule is a maximum of
 * entry times, and the member's depends on all of them. The replay groups
 * the members instead of running the schedule (predict's free-network
 * replay of a collective-heavy trace: a third of the work at 10^6 ranks);
 * tests/test_sim_free_sync_collectives.c checks it against the schedules
 * of every algorithm. Rooted collectives, scans and v-variants are not
 * included: their members' times depend on their paths. */
static int synchronizing(int op)
{
    switch (op) {
    case MC_OP_BARRIER:
    case MC_OP_ALLREDUCE:
    case MC_OP_ALLGATHER:
    case MC_OP_ALLTOALL:
    case MC_OP_REDUCE_SCATTER_BLOCK: return 1;
    default: return 0;
    }
}

/* mc_coll_select, remembered per operation for the last (size, bytes): the
 * members of one collective all ask the same question in a row, and the
 * answer (rules, then names compared) cost more than the schedule. */
static const mc_coll_alg *select_alg(sim *S, int op, int size, int64_t bytes, mc_error *err)
{
    coll_memo *m = &S->alg_memo[op];
    if (m->alg && m->size == size && m->bytes == bytes)
        return m->alg;
    const mc_coll_alg *alg = mc_coll_select(op, S->coll_alg[op], size, bytes, err);
    if (alg) {
        m->alg = alg;
        m->size = size;
        m->bytes = bytes;
    }
    return alg;
}

int sim_exec_start(sim *S, int r, const mc_event *e, int op, int32_t app_req)
{
    const sim_comm *c = sim_comm_find(S, e->comm);
    if (!c) {
        coll_fail(S, r, e, "unknown communicator (not in meta.json nor created by an event)");
        return -1;
    }
    if (c->inter) {
        coll_fail(S, r, e, "collectives on intercommunicators are not supported");
        return -1;
    }
    int me = sim_comm_rank_of(S, c, r);
    if (me < 0) {
        coll_fail(S, r, e, "this rank is not a member");
        return -1;
    }
    int root = -1;
    if (is_rooted(op)) {
        root = e->peer >= 0 ? sim_comm_rank_of(S, c, e->peer) : -1;
        if (root < 0) {
            coll_fail(S, r, e, "the root is not a member");
            return -1;
        }
    }
    int32_t cidx = c->index, size = c->size;
    int64_t seq = next_coll_seq(S, cidx, me);
    if (seq < 0)
        return -1;
    if (size <= 1) {
        if (app_req < 0)
            sim_rank_notify(S, r, S->now);
        else
            sim_req_complete(S, app_req, S->now);
        return 0;
    }
    /* Sizes whose totals over the communicator could overflow int64 are
     * corrupt input (2^56 B = 64 PiB per call). */
    int64_t lim = ((int64_t)1 << 56) / size;
    int bad = e->bytes > lim || e->bytes2 > lim;
    for (uint32_t i = 0; i < e->nvals && !bad; i++)
        bad = e->vals[i] > lim;
    if (bad) {
        coll_fail(S, r, e, "byte count out of range");
        return -1;
    }
    if (S->sync_free && app_req < 0 && synchronizing(op))
        return exec_start_measured(S, r, cidx, size, op, seq, app_req, 0);
    mc_coll_args a = {0};
    a.op = op;
    a.size = size;
    a.rank = me;
    a.root = root;
    a.bytes = e->bytes;
    a.bytes2 = e->bytes2;
    v_counts(e, op, size, &a);
    /* the same on every member, so that "auto" picks the same algorithm */
    int64_t bytes = mc_coll_decision_bytes(&a);
    int64_t t_measured = measured_coll_time(S, op, size, bytes);
    if (t_measured >= 0)
        return exec_start_measured(S, r, cidx, size, op, seq, app_req, t_measured);
    mc_error cerr; /* (not zeroed: 1 KiB per collective start) */
    cerr.code = MC_OK;
    cerr.msg[0] = '\0';
    const mc_coll_alg *alg = select_alg(S, op, size, bytes, &cerr);
    if (!alg) {
        coll_fail(S, r, e, cerr.msg[0] ? cerr.msg : "no algorithm");
        return -1;
    }
    int32_t xi = exec_new(S);
    if (xi < 0)
        return -1;
    sim_exec *x = &S->execs[xi];
    /* a stepped algorithm without count arrays (those are the event's, gone
     * after this call) is built a window at a time: O(1) memory per rank
     * where a pairwise all-to-all's whole schedule is O(P) */
    x->alg = alg->step && !a.sendcounts && !a.recvcounts ? alg : NULL;
    x->args = a;
    x->r0 = 0;
    if (x->alg ? mc_coll_build_rounds(alg, &a, 0, EXEC_WINDOW, &x->sched, &cerr)
               : mc_coll_build(alg, &a, &x->sched, &cerr)) {
        x->live = 0;
        sim_pool_give(&S->free_execs, xi);
        coll_fail(S, r, e, cerr.msg[0] ? cerr.msg : "cannot build the schedule");
        return -1;
    }
    x->comm = cidx;
    x->owner = r;
    x->op = (int16_t)op;
    x->seq = (int32_t)seq;
    x->tag = ((int64_t)1 << 40) | (seq << 8) | op;
    x->req = app_req;
    x->round = 0;
    x->outstanding = 0;
    x->posting = 0;
    if (app_req < 0)
        S->r[r].exec = xi;
    x->nrounds = x->alg ? mc_coll_nrounds(alg, size) : x->sched.nrounds;
    if (x->nrounds <= 0) {
        exec_done(S, xi, S->now);
        return 0;
    }
    if (exec_post_round(S, xi))
        exec_advance(S, xi);
    return 0;
}

void sim_exec_release_all(sim *S)
{
    for (int32_t i = 0; i < S->nexecs; i++)
        mc_coll_sched_free(&S->execs[i].sched);
}
