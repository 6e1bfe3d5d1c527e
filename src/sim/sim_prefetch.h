/* Internal to the replay simulator: the prefetch pipeline over the event
 * queue's run (run_loop in engine.c calls sim_prefetch_ahead). Not a public
 * interface. */
#ifndef MPICAST_SIM_PREFETCH_H
#define MPICAST_SIM_PREFETCH_H

#include <stddef.h>
#include <stdint.h>
#include "sim_objects.h"

/* Prefetching the events a few places ahead in the queue's run. With
 * 10^5-10^6 ranks in lock-step every event handles a different rank, whose
 * records are cache misses; the run says which events come next, so their
 * misses can overlap instead of following each other. Each record leads to
 * the next (a message names its receiver, whose matching slot names the
 * receive), so the prefetch is a pipeline: 12 ahead the event's own record,
 * 8 ahead (that record now in cache) what it names, 4 ahead the level after,
 * and 2 ahead, for a collective's round, the slots of the receives it posts.
 * A stage only reads what an earlier stage fetched. Hints only: no effect on
 * results (test_sim_prefetch_same_results). Each stage starts with
 * SIM_PF_KEEP (sim_mem.h), which keeps it in the binary. */

/* Below this many ranks the replay's state stays in the caches, where the
 * prefetches cost 10-25 % (bench_replay's 1024-rank cases); from 4096 up
 * they pay (halo predict, 4096 ranks: 0.07 -> 0.06 s; 65,536: 3.5 -> 2.0 s). */
#define SIM_PREFETCH_MIN_RANKS 4096

/* Stage 1: the record the event starts from. */
static inline void sim_pf_record(const sim *S, hentry e)
{
    SIM_PF_KEEP();
    int32_t idx = HE_IDX(e);
    switch (HE_TYPE(e)) {
    case EV_ARRIVE:
        if (idx < S->nmsgs)
            sim_prefetch_range(&S->msgs[idx], sizeof(sim_msg));
        break;
    case EV_ROUND:
        if (idx < S->nexecs)
            sim_prefetch_range(&S->execs[idx], sizeof(sim_exec));
        break;
    default: /* a step or progress of rank idx: all of its record, and what
                the source keeps for it (a step may read its next event) */
        if (idx < S->n) {
            sim_prefetch_range(&S->r[idx], sizeof(sim_rank));
            mc_source_prefetch(S->src, idx);
        }
    }
}

/* Stage 2: what the record names. */
static inline void sim_pf_named(const sim *S, hentry e)
{
    SIM_PF_KEEP();
    int32_t idx = HE_IDX(e);
    switch (HE_TYPE(e)) {
    case EV_ARRIVE:
        if (idx < S->nmsgs) {
            const sim_msg *m = &S->msgs[idx];
            if (m->dst >= 0 && m->dst < S->n) {
                sim_prefetch_range(&S->r[m->dst], offsetof(sim_rank, ev));
                if (S->bks) /* and the slot after it, which a drop reads */
                    sim_prefetch_range(
                        &S->bks[sim_match_home(m->comm, m->tag, m->dst, m->src, S->bmask)],
                        2 * sizeof(bucket));
            }
        }
        break;
    case EV_ROUND:
        if (idx < S->nexecs) {
            const sim_exec *x = &S->execs[idx];
            if (x->owner >= 0 && x->owner < S->n)
                sim_prefetch_range(&S->r[x->owner], offsetof(sim_rank, ev));
            if (sim_exec_has_round(x))
                __builtin_prefetch(&x->sched.round_start[x->round - x->r0]);
        }
        break;
    default:
        if (idx < S->n) {
            const sim_rank *R = &S->r[idx];
            if (R->exec >= 0 && R->exec < S->nexecs)
                sim_prefetch_range(&S->execs[R->exec], sizeof(sim_exec));
            /* the heads of its inbox and outbox, which a drain reads */
            if (R->inbox_head >= 0 && R->inbox_head < S->nmsgs)
                sim_prefetch_range(&S->msgs[R->inbox_head], sizeof(sim_msg));
            if (R->outbox_head >= 0 && R->outbox_head < S->nreqs)
                sim_prefetch_range(&S->reqs[R->outbox_head], sizeof(sim_req));
            /* a receive it is about to post hashes to this slot (a guess:
             * the step may go on to another event) */
            const mc_event *ev = &R->ev;
            int sr = ev->op == MC_OP_SENDRECV || ev->op == MC_OP_SENDRECV_REPLACE;
            int32_t src = sr ? ev->peer2 : ev->op == MC_OP_RECV || ev->op == MC_OP_IRECV ? ev->peer : -1;
            if (src >= 0 && S->bks)
                __builtin_prefetch(
                    &S->bks[sim_match_home(ev->comm, sr ? ev->tag2 : ev->tag, idx, src, S->bmask)]);
        }
    }
}

/* Stage 3: the level after (the receive an arrival will match, the
 * operations of an executor's next round). */
static inline void sim_pf_after(const sim *S, hentry e)
{
    SIM_PF_KEEP();
    int32_t idx = HE_IDX(e);
    uint32_t type = HE_TYPE(e);
    if (type == EV_ARRIVE && idx < S->nmsgs && S->bks) {
        const sim_msg *m = &S->msgs[idx];
        if (m->dst < 0 || m->dst >= S->n)
            return;
        int32_t x = S->r[m->dst].exec; /* a collective's message goes to it */
        if (x >= 0 && x < S->nexecs)
            sim_prefetch_range(&S->execs[x], sizeof(sim_exec));
        uint32_t h = sim_match_home(m->comm, m->tag, m->dst, m->src, S->bmask);
        const bucket *k = &S->bks[h];
        if (k->dst == m->dst && k->src == m->src && k->tag == m->tag && k->comm == m->comm &&
            k->rq_head >= 0 && k->rq_head < S->nreqs)
            sim_prefetch_range(&S->reqs[k->rq_head], sizeof(sim_req));
    } else if (type == EV_ROUND && idx < S->nexecs) {
        const sim_exec *x = &S->execs[idx];
        if (sim_exec_has_round(x))
            __builtin_prefetch(&x->sched.ops[x->sched.round_start[x->round - x->r0]]);
    }
}

/* Stage 4, for an executor's round: the matching slots of the receives it
 * will post (their operations came in at stage 3). */
static inline void sim_pf_round_slots(const sim *S, hentry e)
{
    SIM_PF_KEEP();
    int32_t idx = HE_IDX(e);
    if (HE_TYPE(e) != EV_ROUND || idx >= S->nexecs || !S->bks)
        return;
    const sim_exec *x = &S->execs[idx];
    const mc_coll_sched *s = &x->sched;
    if (!sim_exec_has_round(x) || x->comm < 0 || x->comm >= S->ncomms)
        return;
    const sim_comm *c = &S->comms[x->comm];
    int lo = s->round_start[x->round - x->r0], hi = s->round_start[x->round - x->r0 + 1];
    for (int i = lo; i < hi && i < lo + 4; i++) {
        const mc_coll_op *op = &s->ops[i];
        if (op->kind != MC_COLL_RECV || op->peer < 0 || op->peer >= c->size)
            continue;
        int32_t peer = c->members ? c->members[op->peer] : op->peer;
        __builtin_prefetch(&S->bks[sim_match_home(c->id, x->tag, x->owner, peer, S->bmask)]);
    }
}

static inline void sim_prefetch_ahead(const sim *S)
{
    SIM_PF_KEEP();
    if (!S->prefetch)
        return;
    const hbucket *run = &S->h.b[0];
    uint32_t h0 = S->h.head0;
    if (h0 + 12 < run->n)
        sim_pf_record(S, run->a[h0 + 12]);
    if (h0 + 8 < run->n)
        sim_pf_named(S, run->a[h0 + 8]);
    if (h0 + 4 < run->n)
        sim_pf_after(S, run->a[h0 + 4]);
    if (h0 + 2 < run->n)
        sim_pf_round_slots(S, run->a[h0 + 2]);
}

#endif
