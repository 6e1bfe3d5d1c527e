/* Internal to the replay simulator: engine state shared by engine.c (rank
 * state machines, point-to-point semantics), exec.c (collective schedule
 * executors), tables.c (priority queue, hash maps, pools), stuck.c (deadlock
 * report) and timeline.c. Not a public interface.
 *
 * Time: int64_t picoseconds. Indices into pools are int32_t, -1 = none.
 */
#ifndef MPICAST_SIM_INTERNAL_H
#define MPICAST_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "coll.h"
#include "mpicast/format.h"
#include "mpicast/net.h"
#include "mpicast/sim.h"

/* ------------------------------------------------------------ queue */

enum { EV_STEP, EV_ARRIVE, EV_PROGRESS, EV_ROUND };

/* 16 bytes, so a node's four children share a cache line: time, then
 * (insertion sequence << 32 | type << 30 | index). The 32-bit sequence breaks
 * ties in insertion order (deterministically also past its wrap-around). */
typedef struct hentry {
    int64_t t;
    uint64_t s;
} hentry;
#define HE_TYPE(e) ((uint32_t)((e).s >> 30) & 3u)
#define HE_IDX(e) ((int32_t)((e).s & 0x3fffffffu))
#define MAX_INDEX (1 << 30) /* ranks, messages, executors: fit HE_IDX */
/* Largest simulated time (ps, ~53 days): far enough from INT64_MAX that the
 * bounded costs added after the check cannot overflow. */
#define TIME_LIMIT ((int64_t)1 << 62)
#define NS_LIMIT ((int64_t)1 << 50) /* a single recorded burst or duration, ns */

/* The event queue (tables.c): a radix heap with a sorted run. The engine's
 * times never go below the last popped one, so an entry lives in bucket
 * k = 1 + the highest bit in which its time differs from `base` (a time
 * <= every queued one). Bucket 0 is the run: the earliest entries, sorted,
 * popped from its head. When the run is used up, the lowest non-empty bucket
 * becomes the run: sorted at once if it is small, else spread over the
 * buckets below it around its minimum (its entries of that time form the
 * run). Entries of equal time always share a bucket and keep their push
 * order, so the order is exactly (time, insertion sequence) — that of a
 * binary heap with a sequence tie-break. */
#define HEAP_BUCKETS 65
typedef struct hbucket {
    hentry *a;
    uint32_t n, cap;
} hbucket;
typedef struct heap {
    hbucket b[HEAP_BUCKETS];
    uint32_t head0;  /* next entry of the run (b[0]) to pop */
    int sorted_run;  /* the run covers a bucket's whole range, not one time */
    uint64_t used;   /* bit k-1 set: bucket k (1..64) is non-empty */
    size_t n;        /* entries in the queue */
    int64_t base;    /* buckets are relative to this time (<= last) */
    int64_t last;    /* time of the last pop */
    int64_t run_end; /* times below this go into the run */
    int64_t min[HEAP_BUCKETS]; /* earliest time in each bucket (INT64_MAX: none
                                  since it was last emptied) */
    int ready;       /* initialised (a zero-filled heap is empty) */
} heap;

/* 0, or -1 out of memory. Times are expected at or after the last popped
 * one (the engine never goes back in time); an earlier one pops next, its
 * time raised to `base` if below it. */
int sim_heap_push_slow(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx);
static inline int sim_heap_push(heap *h, int64_t t, uint64_t seq, uint32_t type, int32_t idx)
{
    /* the common case inline: a time past the run, into a bucket with room */
    if (h->ready && t >= h->run_end) {
        unsigned k = 64u - (unsigned)__builtin_clzll((uint64_t)t ^ (uint64_t)h->base);
        hbucket *b = &h->b[k];
        if (b->n < b->cap) {
            b->a[b->n].t = t;
            b->a[b->n].s = (seq << 32) | ((uint64_t)(type & 3u) << 30) |
                           ((uint32_t)idx & 0x3fffffffu);
            b->n++;
            if (t < h->min[k])
                h->min[k] = t;
            h->used |= 1ull << (k - 1);
            h->n++;
            return 0;
        }
    }
    return sim_heap_push_slow(h, t, seq, type, idx);
}
int sim_heap_refill(heap *h); /* the run is used up: 0, or -1 out of memory */
void sim_heap_free(heap *h);
static inline int sim_heap_empty(const heap *h) { return h->n == 0; }
/* The earliest entry (the queue must not be empty); -1 out of memory. */
static inline int sim_heap_pop(heap *h, hentry *out)
{
    if (h->head0 >= h->b[0].n && sim_heap_refill(h))
        return -1;
    h->n--;
    *out = h->b[0].a[h->head0++];
    h->last = out->t;
    return 0;
}
/* The earliest time (the queue must not be empty). */
static inline int64_t sim_heap_min(const heap *h)
{
    return h->head0 < h->b[0].n ? h->b[0].a[h->head0].t
                                : h->min[1 + __builtin_ctzll(h->used)];
}

/* Asks for transparent huge pages on a large array (a hint: ignored where
 * THP is off, or "always" anyway). With 10^5-10^6 ranks every event
 * touches a few arrays of hundreds of MB at random: with 4 KiB pages each
 * access is also a TLB miss and a page walk. */
void sim_hint_huge(void *p, size_t bytes);

/* ------------------------------------------------------------ u64 map */

/* Open addressing, linear probing, backward-shift deletion. Key UINT64_MAX
 * is reserved (empty slot). */
typedef struct sim_map_slot {
    uint64_t key;
    int64_t val;
} sim_map_slot;
typedef struct sim_map {
    sim_map_slot *s;    /* key and value side by side: one cache line per probe */
    size_t cap, n; /* cap: power of two */
} sim_map;

int sim_map_put(sim_map *m, uint64_t key, int64_t val); /* 0 or -1 (no memory) */
int sim_map_get(const sim_map *m, uint64_t key, int64_t *val); /* 1 found, 0 not */
int64_t *sim_map_ref(sim_map *m, uint64_t key); /* slot of key, created as 0; NULL on OOM */
int64_t *sim_map_insert(sim_map *m, uint64_t key, int *created); /* same, says if new */
void sim_map_del(sim_map *m, uint64_t key);
void sim_map_free(sim_map *m);

/* ------------------------------------------------------------ free lists */

/* The free entries of a pool, as a stack of indices. A list threaded
 * through the records made every take a cache miss once the list ran deep
 * (the record of the next free entry had to be read to find the one after),
 * and two takes in a row (a Sendrecv's two requests) waited on each other;
 * from an array the next entries to be taken are known and fetched ahead.
 * Its array grows with the pool's, so a push never fails. */
typedef struct idstack {
    int32_t *a;
    int32_t n;
} idstack;

/* ------------------------------------------------------------ objects */

enum { RK_SEND, RK_RECV, RK_COLL };
enum { RQ_INACTIVE, RQ_ACTIVE, RQ_DONE };
enum {
    F_PERSIST = 1, /* persistent request: back to INACTIVE when consumed */
    F_WAITED = 2,  /* a Wait* of the owner is blocked on it */
    F_FREED = 4,   /* Request_free'd while active: release at completion */
    F_SYNC = 8,    /* synchronous send: completes when matched */
    F_NOTIFY = 16  /* queued send: tell the owner when it is issued */
};

/* A request: application (id != 0), blocking-call internal (id 0), or a
 * send/receive of a collective executor (exec >= 0). */
typedef struct sim_req {
    uint64_t comm;
    int64_t tag;    /* application tags are int32; collective tags >= 2^40 */
    int64_t bytes;
    int64_t t_post; /* posted (receives) / ready to issue (sends) */
    int64_t t_done;
    uint32_t id;
    int32_t owner;  /* world rank */
    int32_t peer;   /* world rank */
    int32_t exec;   /* executor to notify, or -1 */
    int32_t next;   /* queue link: posted-receive queue or outbox; free list */
    int16_t op;     /* mc_op that created it (for reports) */
    uint8_t kind, state, flags;
} sim_req;

/* A message in flight, in an inbox (arrived, not processed) or in an
 * unexpected queue (processed, not matched). */
typedef struct sim_msg {
    uint64_t comm;
    int64_t tag;
    int64_t bytes;
    int64_t t_arrive;
    int64_t t_proc_end; /* receiver finished processing it */
    int64_t recv_cpu, recv_nic;
    int32_t src, dst;
    int32_t send_req;   /* rendezvous / synchronous sender to release, or -1 */
    int32_t next;
    int32_t recv_req;   /* handshake CTS and data legs: the matched receive */
    uint8_t leg;        /* MSG_PLAIN, or the leg of a handshake rendezvous */
} sim_msg;

/* Legs of a rendezvous with network.rendezvous = handshake (engine.c):
 * request-to-send, clear-to-send, data. Everything else is MSG_PLAIN. */
enum { MSG_PLAIN, MSG_RTS, MSG_CTS, MSG_DATA };

/* Matching bucket: one (receiver, communicator, source, tag) key with its
 * FIFO of posted receives and FIFO of unexpected messages. The buckets are
 * the slots of an open-addressing table (tables.c): an index is valid until
 * the next sim_match_get or sim_match_maybe_drop. */
typedef struct bucket {
    uint64_t comm;
    int64_t tag;
    int32_t dst, src;           /* dst < 0: free slot */
    int32_t rq_head, rq_tail; /* sim_req */
    int32_t uq_head, uq_tail; /* sim_msg */
} bucket;

typedef struct sim_comm {
    uint64_t id;
    int32_t size;
    int32_t *members; /* NULL: identity (world) */
    uint32_t *coll_seq; /* next collective's sequence number per member (by comm
                           rank), allocated at the first collective */
    int32_t index;    /* position in the comm array (map keys) */
    int inter;
} sim_comm;

/* One executing collective schedule of one rank. */
typedef struct sim_exec {
    mc_coll_sched sched; /* rounds r0 .. r0 + sched.nrounds - 1 */
    const mc_coll_alg *alg; /* built EXEC_WINDOW rounds at a time (a stepped
                               algorithm, coll.h), or NULL: sched is all */
    mc_coll_args args;  /* alg's arguments (no count arrays) */
    int32_t r0;         /* the round that is sched's round 0 */
    int32_t nrounds;    /* rounds in all */
    int32_t comm;     /* index in sim.comms */
    int64_t tag;      /* collective context: (1 << 40) | seq << 8 | op */
    int64_t t_round;  /* latest completion in the current round */
    int32_t owner;    /* world rank */
    int32_t round;
    int32_t outstanding;
    int32_t req;      /* application request (nonblocking), or -1 (blocking) */
    int32_t next;      /* free list */
    int32_t seq;
    int16_t op;
    uint8_t posting, live;
    double red_bytes; /* bytes reduced at the end of the current round */
} sim_exec;

/* Rounds of a stepped algorithm built at once: 16 operations of a
 * pairwise all-to-all or a ring allgather, which a recycled executor keeps
 * (a ring allreduce's 24 are freed at its end, as a tree root's are). */
#define EXEC_WINDOW 8

/* Whether the executor's current round is in its schedule buffer (the
 * prefetches ahead look only there). */
static inline int sim_exec_has_round(const sim_exec *x)
{
    return x->sched.round_start && x->round >= x->r0 && x->round - x->r0 < x->sched.nrounds;
}

enum { RS_READY, RS_BLOCKED, RS_DONE };
enum { PH_FETCH, PH_EXEC };

/* Fields in order of use: what every step and arrival reads comes first, in
 * the first cache line, so that a thousand interleaved ranks cost one miss
 * each rather than four. Four whole cache lines (the array is aligned): a
 * step fetches all of it ahead, and 240 bytes at any offset were 4.5 lines
 * on average. */
typedef struct sim_rank {
    _Alignas(64) int64_t cpu; /* busy until: CPU, send NIC, receive NIC */
    int64_t nic_s, nic_r;
    int64_t wake;              /* resume time while blocked */
    int64_t progress_at;       /* valid scheduled progress event, -1 none */
    int64_t step_at;           /* queued step event, -1 none */
    int32_t inbox_head, inbox_tail;   /* sim_msg */
    int32_t outbox_head, outbox_tail; /* sim_req */
    int32_t nwait;
    uint8_t state, phase, in_call, probing;
    int32_t exec;      /* blocking collective executor, or -1 */
    int32_t prev_site;
    int64_t compute, work, end;
    uint64_t events;
    int64_t call_start, tl_mark;
    mc_event ev;               /* current event */
    uint8_t polling;           /* in a run of failed polls (S->poll[r]): read with ev,
                                  so the poll array is touched only in a run */
} sim_rank;
_Static_assert(sizeof(sim_rank) == 256, "a rank is four cache lines");

/* cpu.polling = wait (engine.c, "Polling"): the run of failed polls a rank
 * is in. What the run held back is charged as recorded if the run ends in
 * anything but the success it polled for. */
enum { POLL_NONE, POLL_TESTS, POLL_IPROBE };
typedef struct sim_poll {
    int64_t held_compute; /* ps of short bursts between the polls */
    int64_t held_mpi;     /* ps of the failed polls' recorded durations */
    uint64_t comm;        /* POLL_IPROBE: the source and tag polled for */
    int32_t peer, tag;
    uint8_t kind;         /* POLL_*: the last failed poll's kind */
} sim_poll;

enum { CS_MODEL, CS_RECORDED, CS_FREE }; /* cpu.comm_setup */

/* The algorithm chosen for an operation at one (size, bytes) (exec.c). */
typedef struct coll_memo {
    const mc_coll_alg *alg; /* NULL: nothing remembered */
    int32_t size;
    int64_t bytes;
} coll_memo;

typedef struct sim {
    mc_source *src;
    const mc_platform *plat;
    mc_net *net;
    int n;
    sim_rank *r;
    heap h;
    uint64_t seq;
    int64_t now;

    sim_req *reqs;
    int32_t nreqs, capreqs;
    idstack free_reqs;
    sim_msg *msgs;
    int32_t nmsgs, capmsgs;
    idstack free_msgs;
    bucket *bks;     /* matching table: bmask + 1 slots, bused in use */
    uint32_t bmask;
    int32_t bused;
    sim_exec *execs;
    int32_t nexecs, capexecs;
    idstack free_execs;

    sim_map reqmap;   /* (rank << 32 | id) -> req index */
    sim_map commmap;  /* comm id -> index in comms */
    sim_map rankmap;  /* (comm index << 32 | world rank) -> comm rank */
    sim_map collseq;  /* measured collectives waiting: (1 << 63 | comm << 40 | seq) -> head */
    sim_comm *comms;
    int32_t ncomms, capcomms;

    double speed, ps_per_flop, reduce_ps_per_byte;
    int64_t eager_limit;
    uint8_t rdv_handshake;   /* network.rendezvous = handshake */
    uint8_t comm_setup;      /* cpu.comm_setup: CS_MODEL, CS_RECORDED or CS_FREE */
    int64_t comm_local;      /* cpu.comm_setup_local, ps */
    sim_poll *poll;          /* per rank with cpu.polling = wait, else NULL */
    int64_t poll_gap;        /* cpu.poll_gap, ps */
    uint8_t sync_free;       /* collectives cost nothing: see exec.c's synchronizing() */
    uint8_t prefetch;        /* ranks enough for their state to leave the caches:
                                fetch ahead (sim_prefetch_ahead, SIM_POOL_TAKE) */
    const char *coll_alg[MC_OP_COUNT];
    coll_memo alg_memo[MC_OP_COUNT];

    mc_sim_compute_fn compute;
    void *compute_ctx;
    FILE *tl;                 /* Chrome timeline, or NULL */
    mc_sim_slice_fn slice;    /* timeline sink, or NULL */
    void *slice_ctx;
    int tl_on;                /* tl or slice: make the slices */
    int tl_first;

    int32_t pend_r;  /* a rank woken by the current handler, not yet queued */
    int64_t pend_t;
    int npend;
    int flush;       /* the flow model asked for advance(now) once the
                        events of this instant are done (hooks.flush) */
    int ndone;
    uint64_t events, sim_events, messages, bytes, coll_messages, coll_bytes;
    mc_err rc;
    mc_error *err;
    mc_error src_err;
} sim;

/* Home slot of a matching key in a table of mask + 1 slots: each field
 * spread by its own multiply, then Fibonacci hashing (the top bits of the
 * last product depend on every bit of every field). */
static inline uint32_t sim_match_home(uint64_t comm, int64_t tag, int32_t dst, int32_t src,
                                      uint32_t mask)
{
    uint64_t x = ((uint64_t)(uint32_t)dst << 32 | (uint32_t)src) ^
                 (uint64_t)tag * 0xc2b2ae3d27d4eb4full ^ comm * 0x165667b19e3779f9ull;
    /* log2(mask + 1) by ctz: popcount is a libgcc call without -mpopcnt */
    return (uint32_t)((x * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll((uint64_t)mask + 1)));
}

/* Prefetching the events a few places ahead in the queue's run. With
 * 10^5-10^6 ranks in lock-step every event handles a different rank, whose
 * records are cache misses; the run says which events come next, so their
 * misses can overlap instead of following each other. Each record leads to
 * the next (a message names its receiver, whose matching slot names the
 * receive), so the prefetch is a pipeline: 12 ahead the event's own record,
 * 8 ahead (that record now in cache) what it names, 4 ahead the level after,
 * and 2 ahead, for a collective's round, the slots of the receives it posts.
 * A stage only reads what an earlier stage fetched. Hints only: no effect on
 * results (test_sim_prefetch_same_results).
 *
 * GCC counts a prefetch as no effect, so it finds a function that only reads
 * memory and prefetches "pure" and drops a call to it whose result is unused
 * (tests/test_sim_prefetch_in_binary.sh checks they reach the binary). The
 * empty volatile asm in each stage is the effect that keeps it. */
#define SIM_PF_KEEP() __asm__ __volatile__("")

/* Below this many ranks the replay's state stays in the caches, where the
 * prefetches cost 10-25 % (bench_replay's 1024-rank cases); from 4096 up
 * they pay (halo predict, 4096 ranks: 0.07 -> 0.06 s; 65,536: 3.5 -> 2.0 s). */
#define SIM_PREFETCH_MIN_RANKS 4096

/* Every cache line of [p, p + len). */
static inline void sim_prefetch_range(const void *p, size_t len)
{
    SIM_PF_KEEP();
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    for (const char *end = (const char *)p + len; c < end; c += 64)
        __builtin_prefetch(c);
}

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

/* ------------------------------------------------------------ pools */

/* Takes a free entry of pool `arr` (`used` in use, `room` allocated, free
 * stack fs) into `out`, or -1 (out of memory, S failed). The entries the
 * next takes will get are fetched ahead: deep in the stack they are cold. */
#define SIM_POOL_TAKE(S, arr, used, room, fs, out)                              \
    do {                                                                    \
        idstack *fs_ = &(S)->fs;                                            \
        if (fs_->n > 0) {                                                   \
            (out) = fs_->a[--fs_->n];                                       \
            for (int32_t k_ = fs_->n - 2 > 0 ? fs_->n - 2 : 0;              \
                 (S)->prefetch && k_ < fs_->n; k_++)                        \
                sim_prefetch_range(&(S)->arr[fs_->a[k_]], sizeof *(S)->arr); \
        } else {                                                            \
            if ((S)->used == (S)->room) {                                   \
                int32_t c_ = (S)->room ? (S)->room * 2 : 256;               \
                void *p_ = realloc((S)->arr, (size_t)c_ * sizeof *(S)->arr); \
                int32_t *s_ = p_ ? realloc(fs_->a, (size_t)c_ * sizeof *s_) : NULL; \
                if (p_)                                                     \
                    (S)->arr = p_;                                          \
                if (!s_) {                                                  \
                    sim_fail((S), MC_ERR_NOMEM, "out of memory");           \
                    (out) = -1;                                             \
                    break;                                                  \
                }                                                           \
                sim_hint_huge(p_, (size_t)c_ * sizeof *(S)->arr);           \
                fs_->a = s_;                                                \
                (S)->room = c_;                                             \
            }                                                               \
            (out) = (S)->used++;                                            \
        }                                                                   \
    } while (0)

/* Gives entry i back to free stack fs (room: its array grows with the
 * pool's). */
static inline void sim_pool_give(idstack *fs, int32_t i)
{
    fs->a[fs->n++] = i;
}

/* tables.c: matching buckets. find: index or -1; get: found or created
 * (-1 out of memory, S failed); maybe_drop: frees the bucket if both its
 * queues are empty. */
int32_t sim_match_find(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src);
int32_t sim_match_get(sim *S, uint64_t comm, int64_t tag, int32_t dst, int32_t src);
void sim_match_maybe_drop(sim *S, int32_t bi);

/* engine.c */
void sim_fail(sim *S, mc_err code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int32_t sim_req_new(sim *S, int owner, int kind, int op);
void sim_req_complete(sim *S, int32_t qi, int64_t t);
int sim_post_send(sim *S, int r, int32_t qi);   /* 1 issued now, 0 queued */
void sim_post_recv(sim *S, int r, int32_t qi);
void sim_rank_notify(sim *S, int r, int64_t t);
void sim_cpu_work(sim *S, int r, int64_t start, int64_t len, const char *what);
void sim_push_event(sim *S, int64_t t, uint32_t type, int32_t idx);
const char *sim_comm_name(uint64_t comm, char *buf, size_t len);

/* exec.c */
/* 0 or -1 (failed) */
int sim_exec_start(sim *S, int r, const mc_event *e, int op, int32_t app_req);
void sim_exec_op_done(sim *S, int32_t xi, int64_t t);
void sim_exec_round_event(sim *S, int32_t xi);
int sim_comm_rank_of(sim *S, const sim_comm *c, int world);
const sim_comm *sim_comm_find(sim *S, uint64_t id);
int sim_comm_add(sim *S, uint64_t id, const int32_t *members, int32_t size, int inter);
void sim_exec_release_all(sim *S);

/* stuck.c */
void sim_report_stuck(sim *S, mc_sim_result *out);
int sim_check_leftovers(sim *S, mc_sim_result *out);

/* timeline.c */
void sim_tl_begin(sim *S);
void sim_tl_slice(sim *S, int r, const char *name, const char *cat, int64_t t0, int64_t t1);
void sim_tl_end(sim *S);

#endif
