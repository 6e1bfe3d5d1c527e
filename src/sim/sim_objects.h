/* Internal to the replay simulator: its objects (requests, messages in
 * flight, collective executors, ranks) and the simulator that holds them,
 * with the pools they are taken from. Not a public interface.
 *
 * Time: int64_t picoseconds. Indices into pools are int32_t, -1 = none. */
#ifndef MPICAST_SIM_OBJECTS_H
#define MPICAST_SIM_OBJECTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "coll.h"
#include "mpicast/format.h"
#include "mpicast/net.h"
#include "mpicast/sim.h"
#include "sim_comm.h"
#include "sim_map.h"
#include "sim_match.h"
#include "sim_mem.h"
#include "sim_queue.h"

/* Largest simulated time (ps, ~53 days): far enough from INT64_MAX that the
 * bounded costs added after the check cannot overflow. */
#define TIME_LIMIT ((int64_t)1 << 62)
#define NS_LIMIT ((int64_t)1 << 50) /* a single recorded burst or duration, ns */

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
    uint8_t leg;        /* mc_net_leg: the protocol leg it carries (engine.c) */
} sim_msg;

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

/* engine.c: records the first failure (code and message) and stops the
 * replay. */
void sim_fail(sim *S, mc_err code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Takes a free entry of pool `arr` (`used` in use, `room` allocated, free
 * stack fs) into `out`, or -1 (out of memory, S failed). The entries the
 * next takes will get are fetched ahead: deep in the stack they are cold. */
#define SIM_POOL_TAKE(S, arr, used, room, fs, out)                          \
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

#endif
