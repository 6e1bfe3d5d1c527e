/* mpicast — trace model: events, the trace directory, and the event source.
 *
 * A trace directory holds meta.json and one binary stream per rank
 * (rank-NNNNNN.mct). Each stream is a file header followed by self-checking
 * chunks (see docs/trace-format.md). Everything that reads events — the rank
 * file reader, the time-independent text reader, extrapolation — implements
 * mc_source, so consumers never know where events come from.
 *
 * Ownership: objects returned by an open or create function are freed by the matching
 * close or destroy function; close(NULL) is a no-op. An mc_event filled by a reader
 * borrows its `vals` array from the reader: it stays valid until the next
 * call on the same rank.
 */
#ifndef MPICAST_FORMAT_H
#define MPICAST_FORMAT_H

#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_FORMAT_VERSION 1

/* Special peer / tag values (peers are world ranks). */
#define MC_NONE (-1)      /* no peer (e.g. MPI_PROC_NULL, or not applicable) */
#define MC_ANY (-2)       /* MPI_ANY_SOURCE / MPI_ANY_TAG not yet resolved */
#define MC_NO_REQ 0u      /* request id 0 means "no request" */

/* Communicator ids are equal on every member rank:
 * (sequence number << 32) | lowest world rank among the members.
 * MPI_COMM_WORLD is 0; MPI_COMM_SELF of rank r is MC_COMM_SELF_BASE | r. */
#define MC_COMM_WORLD 0ull
#define MC_COMM_SELF_BASE (0xffffffffull << 32)
#define MC_COMM_NULL UINT64_MAX

/* The operation table: OP(enum suffix, printed name, kind).
 * Kinds: P point-to-point, C collective, W completion, M comm management,
 * X other. Appending is compatible; reordering changes the format version. */
#define MC_OPS(OP)                                 \
    OP(INIT, "Init", X)                            \
    OP(FINALIZE, "Finalize", X)                    \
    OP(SEND, "Send", P)                            \
    OP(SSEND, "Ssend", P)                          \
    OP(BSEND, "Bsend", P)                          \
    OP(RSEND, "Rsend", P)                          \
    OP(RECV, "Recv", P)                            \
    OP(SENDRECV, "Sendrecv", P)                    \
    OP(SENDRECV_REPLACE, "Sendrecv_replace", P)    \
    OP(PROBE, "Probe", P)                          \
    OP(ISEND, "Isend", P)                          \
    OP(ISSEND, "Issend", P)                        \
    OP(IBSEND, "Ibsend", P)                        \
    OP(IRSEND, "Irsend", P)                        \
    OP(IRECV, "Irecv", P)                          \
    OP(IPROBE, "Iprobe", P)                        \
    OP(SEND_INIT, "Send_init", P)                  \
    OP(SSEND_INIT, "Ssend_init", P)                \
    OP(BSEND_INIT, "Bsend_init", P)                \
    OP(RSEND_INIT, "Rsend_init", P)                \
    OP(RECV_INIT, "Recv_init", P)                  \
    OP(START, "Start", W)                          \
    OP(STARTALL, "Startall", W)                    \
    OP(REQUEST_FREE, "Request_free", W)            \
    OP(WAIT, "Wait", W)                            \
    OP(WAITALL, "Waitall", W)                      \
    OP(WAITANY, "Waitany", W)                      \
    OP(WAITSOME, "Waitsome", W)                    \
    OP(TEST, "Test", W)                            \
    OP(TESTALL, "Testall", W)                      \
    OP(TESTANY, "Testany", W)                      \
    OP(TESTSOME, "Testsome", W)                    \
    OP(BARRIER, "Barrier", C)                      \
    OP(BCAST, "Bcast", C)                          \
    OP(REDUCE, "Reduce", C)                        \
    OP(ALLREDUCE, "Allreduce", C)                  \
    OP(GATHER, "Gather", C)                        \
    OP(GATHERV, "Gatherv", C)                      \
    OP(SCATTER, "Scatter", C)                      \
    OP(SCATTERV, "Scatterv", C)                    \
    OP(ALLGATHER, "Allgather", C)                  \
    OP(ALLGATHERV, "Allgatherv", C)                \
    OP(ALLTOALL, "Alltoall", C)                    \
    OP(ALLTOALLV, "Alltoallv", C)                  \
    OP(ALLTOALLW, "Alltoallw", C)                  \
    OP(REDUCE_SCATTER, "Reduce_scatter", C)        \
    OP(REDUCE_SCATTER_BLOCK, "Reduce_scatter_block", C) \
    OP(SCAN, "Scan", C)                            \
    OP(EXSCAN, "Exscan", C)                        \
    OP(IBARRIER, "Ibarrier", C)                    \
    OP(IBCAST, "Ibcast", C)                        \
    OP(IREDUCE, "Ireduce", C)                      \
    OP(IALLREDUCE, "Iallreduce", C)                \
    OP(IGATHER, "Igather", C)                      \
    OP(IGATHERV, "Igatherv", C)                    \
    OP(ISCATTER, "Iscatter", C)                    \
    OP(ISCATTERV, "Iscatterv", C)                  \
    OP(IALLGATHER, "Iallgather", C)                \
    OP(IALLGATHERV, "Iallgatherv", C)              \
    OP(IALLTOALL, "Ialltoall", C)                  \
    OP(IALLTOALLV, "Ialltoallv", C)                \
    OP(IALLTOALLW, "Ialltoallw", C)                \
    OP(IREDUCE_SCATTER, "Ireduce_scatter", C)      \
    OP(IREDUCE_SCATTER_BLOCK, "Ireduce_scatter_block", C) \
    OP(ISCAN, "Iscan", C)                          \
    OP(IEXSCAN, "Iexscan", C)                      \
    OP(COMM_DUP, "Comm_dup", M)                    \
    OP(COMM_SPLIT, "Comm_split", M)                \
    OP(COMM_CREATE, "Comm_create", M)              \
    OP(COMM_FREE, "Comm_free", M)                  \
    OP(CART_CREATE, "Cart_create", M)              \
    OP(CART_SUB, "Cart_sub", M)                    \
    OP(GRAPH_CREATE, "Graph_create", M)            \
    OP(DIST_GRAPH_CREATE_ADJACENT, "Dist_graph_create_adjacent", M) \
    OP(INTERCOMM_CREATE, "Intercomm_create", M)    \
    OP(PCONTROL, "Pcontrol", X)                    \
    OP(COMPUTE, "compute", X)

typedef enum mc_op {
#define MC_OP_ENUM_(name, str, kind) MC_OP_##name,
    MC_OPS(MC_OP_ENUM_)
#undef MC_OP_ENUM_
    MC_OP_COUNT
} mc_op;

typedef enum mc_op_kind {
    MC_KIND_P = 'P', MC_KIND_C = 'C', MC_KIND_W = 'W', MC_KIND_M = 'M', MC_KIND_X = 'X'
} mc_op_kind;

/* Printed name ("Send"); "?" for out-of-range values. */
const char *mc_op_name(int op);
/* MPI_ name lookup, case-insensitive, with or without "MPI_"; -1 if unknown. */
int mc_op_from_name(const char *name);
mc_op_kind mc_op_kind_of(int op);
/* True for the nonblocking collectives (Ibarrier ... Iexscan). */
int mc_op_is_nonblocking_coll(int op);

/* Properties of the operations, from one table in ops.c (no code tests the
 * order of the enum). */
enum {
    MC_OPF_SEND = 1u << 0,        /* sends a message: Send, Ssend, Bsend, Rsend, their I*
                                     forms, Sendrecv, Sendrecv_replace */
    MC_OPF_SEND_INIT = 1u << 1,   /* Send_init, Ssend_init, Bsend_init, Rsend_init */
    MC_OPF_PERSISTENT = 1u << 2,  /* the *_init calls, Recv_init included */
    MC_OPF_COMPLETION = 1u << 3,  /* Wait*, Test*: vals hold 4 values per completed request */
    MC_OPF_TEST = 1u << 4,        /* Test, Testall, Testany, Testsome: may complete nothing */
    MC_OPF_REQ_LIST = 1u << 5,    /* Start, Startall, Request_free: vals are request ids */
    MC_OPF_COLL = 1u << 6,        /* the blocking collectives, Barrier ... Exscan */
    MC_OPF_COMM_MGMT = 1u << 7,   /* Comm_dup ... Intercomm_create */
    MC_OPF_SENDRECV = 1u << 8,    /* Sendrecv, Sendrecv_replace */
    MC_OPF_POLL = 1u << 9,        /* Test* and Iprobe: the calls a polling loop makes */
    MC_OPF_ICOLL = 1u << 10       /* the nonblocking collectives, Ibarrier ... Iexscan */
};
/* The MC_OPF_* flags of op (0 out of range); inline: the tracer's writer
 * and the reader ask per event. */
extern const unsigned mc_op_flag_table[MC_OP_COUNT]; /* ops.c */
static inline unsigned mc_op_flags(int op)
{
    return op >= 0 && op < MC_OP_COUNT ? mc_op_flag_table[op] : 0;
}
static inline int mc_op_has(int op, unsigned flags) { return (mc_op_flags(op) & flags) != 0; }
/* The blocking collective a nonblocking one starts (Ibcast: Bcast), op
 * itself for a blocking collective, -1 for anything else. */
int mc_op_blocking_form(int op);

/* Meaning of `vals` by operation (n = vals count):
 *  completion ops (Wait*, Test*): 4 values per completed request:
 *      request id, matched source (world rank or MC_NONE), matched tag, bytes.
 *  Start/Startall/Request_free: the request ids, 1 value each.
 *  v-collectives (Gatherv, Scatterv, Allgatherv, Alltoallv/w, Reduce_scatter):
 *      bytes per comm rank: first the send side (comm size values, if any),
 *      then the receive side; `peer2` holds the comm size.
 *  comm management: world ranks of the new communicator's members, in comm
 *      rank order (intercomms: local group then remote group; `peer2` holds
 *      the local group size); empty when the new comm is MPI_COMM_NULL.
 *  other ops: none. */
typedef struct mc_event {
    int32_t op;        /* mc_op */
    int32_t site;      /* call site id of this call (0: unknown) */
    uint64_t comm;     /* communicator id, see MC_COMM_* */
    int32_t peer;      /* dest/source/root as world rank; MC_NONE; MC_ANY */
    int32_t tag;       /* tag, MC_ANY; Pcontrol: level */
    int64_t bytes;     /* bytes sent (recv ops: bytes of the receive buffer) */
    int32_t peer2;     /* Sendrecv: source; see vals for others */
    int32_t tag2;      /* Sendrecv: receive tag */
    int64_t bytes2;    /* Sendrecv / collectives: bytes received */
    uint32_t req;      /* request created (I*, *_init, nonblocking colls) */
    uint64_t newcomm;  /* comm management: id of the created communicator */
    int64_t t_start;   /* entry time, ns since the trace epoch */
    int64_t t_end;     /* exit time, ns since the trace epoch */
    int64_t burst;     /* wall ns of compute since the previous call's exit
                          (t_start - previous t_end; readers fill it, writers
                          ignore it); first event: 0 */
    int64_t cpu;       /* thread CPU ns of the burst before this call; -1 unknown */
    uint32_t nvals;
    int64_t *vals;     /* see above; borrowed from the reader */
    uint64_t folded;   /* a failed poll (mc_event_is_failed_poll) that stands
                          for 1 + folded identical calls in a row: t_start is
                          the first's entry, t_end the last's exit (the writer
                          folds them: mc_writer_set_fold); 0 for other events */
} mc_event;

/* Every field at its stored default, what a reader delivers for a field
 * the file does not hold: op 0, world, no peer, tag or request, no new
 * communicator (0), CPU time unknown, no values, times 0. One store a
 * field: a memset or struct copy compiles to `rep stos`, whose start-up
 * costs more (the tracer and the readers do this per event). reader.c
 * asserts mc_event's size, so a new field fails the build until set here. */
static inline void mc_event_clear(mc_event *e)
{
    e->op = 0;
    e->site = 0;
    e->comm = MC_COMM_WORLD;
    e->peer = e->tag = e->peer2 = e->tag2 = MC_NONE;
    e->bytes = e->bytes2 = 0;
    e->req = 0;
    e->newcomm = 0;
    e->t_start = e->t_end = e->burst = 0;
    e->cpu = -1;
    e->nvals = 0;
    e->vals = NULL;
    e->folded = 0;
}

/* A poll that found nothing: a Test, Testall, Testany or Testsome that
 * completed no request, an Iprobe without a message. A run of them is a
 * polling loop: the replay takes it as waiting (engine.c, "polling"). */
static inline int mc_event_is_failed_poll(const mc_event *e)
{
    if (e->op == MC_OP_IPROBE)
        return e->bytes2 == 0 && e->peer != MC_NONE;
    return mc_op_has(e->op, MC_OPF_TEST) && e->nvals == 0;
}

/* Fields of an event for mc_event_p2p_size: bytes, bytes2; i >= 0 is vals[i]. */
enum { MC_FIELD_BYTES = -2, MC_FIELD_BYTES2 = -1 };
/* Whether field i of e is a point-to-point size: bytes and bytes2 of a
 * point-to-point operation (kind P), the bytes of a completion's (kind W)
 * groups (vals 3, 7, ...). A particle code's are its data's: extrapolate's
 * rule sizes data takes them from the traced ranks, and the loops it folds
 * leave them aside. */
static inline int mc_event_p2p_size(const mc_event *e, int64_t i)
{
    mc_op_kind k = mc_op_kind_of(e->op);
    return i < 0 ? k == MC_KIND_P : k == MC_KIND_W && i < e->nvals && i % 4 == 3;
}

/* The MPI calls an event stands for (more than 1 for folded polls). */
static inline uint64_t mc_event_calls(const mc_event *e) { return 1 + e->folded; }

static inline int64_t mc_event_duration(const mc_event *e) { return e->t_end - e->t_start; }

/* ---------------------------------------------------------------- writer */

typedef struct mc_writer mc_writer;

/* Creates DIR/rank-NNNNNN.mct (creating DIR if needed); the file must not
 * exist yet, and a symlink in its place is refused, never followed
 * (O_EXCL|O_NOFOLLOW). `flags`: MC_WRITER_CPU if events carry CPU times;
 * MC_WRITER_PRIVATE for an owner-only file (0600) and directory (0700), as
 * the tracer writes them. Chunks of at most chunk_events events are
 * compressed and written as they fill (0: default). */
#define MC_WRITER_CPU 1u
/* The stream is the tracer's: complete only when it ends with the Finalize
 * event, so a reader reports any other end (a crash, or a file cut at a
 * chunk boundary, which leaves no partial chunk) as MC_ERR_TRUNCATED. Older
 * readers ignore the bit; files without it are not checked. */
#define MC_WRITER_ENDS_WITH_FINALIZE 2u
#define MC_WRITER_PRIVATE 0x100u /* how to create the file; not stored in it */
mc_writer *mc_writer_open(const char *dir, int rank, unsigned flags,
                          uint32_t chunk_events, mc_error *err);
/* Folds polling loops from now on: a failed poll (mc_event_is_failed_poll)
 * is held back, and the next one with the same operation, site,
 * communicator, peer and tag that starts less than gap_ns after its end is
 * folded into it (mc_event.folded), so a polling loop leaves one record per
 * run; anything else, or a flush, writes the held record first. 0: no
 * folding (the default). */
void mc_writer_set_fold(mc_writer *w, int64_t gap_ns);
/* The tracer's fast path for a run of failed polls (issue 24): whether the
 * held poll ends at t_end (the event just added is held, not written). */
int mc_writer_holds_poll(const mc_writer *w, int64_t t_end);
/* Folds n more failed polls, identical to the held one but for their times,
 * into it, its end moving to t_end: the caller has checked, as mc_writer_add
 * would, that they go on with its run. 1 when done; 0 (nothing changed) when
 * nothing is held, t_end is before its end, the count would overflow or the
 * writer has failed. */
int mc_writer_fold_polls(mc_writer *w, uint64_t n, int64_t t_end);
/* A loop record (docs/trace-format.md, "Loop records"; `mpicast compress`):
 * the next `period` events added are one iteration, the body, which readers
 * deliver `iterations` times, request ids created by the body moved on by
 * req_count per iteration, and times from `times`: per body event burst,
 * duration (and thread CPU ns with `cpu`), either one row per body event
 * (means, for every iteration but the first, which keeps the body's own
 * times) or, with `exact`, one row per event of iterations 1 .. N-1.
 * Events after the body are the stream after the original loop, which ended
 * at loop_end; readers move their times by the expanded loop's difference. */
#define MC_LOOP_MAX_PERIOD 65536u     /* events of a body a reader holds */
#define MC_LOOP_MAX_VALUES (1u << 20) /* values of a record, or of a body's events */
typedef struct mc_loop_record {
    uint64_t iterations;        /* >= 1 */
    uint32_t period;            /* 1 .. 65536 */
    uint32_t req_first, req_count; /* ids the body creates: req_first .. + req_count - 1 */
    int exact, cpu;
    int64_t at;                 /* time of the record: the end of the event before the body */
    int64_t loop_end;           /* t_end of the original loop's last event */
    const int64_t *times;       /* (exact ? iterations - 1 : 1) * period * (cpu ? 3 : 2) */
} mc_loop_record;
mc_err mc_writer_add_loop(mc_writer *w, const mc_loop_record *l, mc_error *err);
/* A body event as iteration j of its loop record delivers it: the request
 * ids the body creates, [first, first + count), move on by j * count, in
 * e->req and in the ids of e->vals (completions, Start, Startall,
 * Request_free); changed in place. Readers expand records with it, and
 * mpicast compress checks iterations against it. */
void mc_loop_shift_requests(mc_event *e, uint32_t first, uint32_t count, uint64_t j);
/* Moves the request ids in [lo, hi) by delta, where mc_loop_shift_requests
 * looks for them (changed in place). */
void mc_event_shift_requests(mc_event *e, uint64_t lo, uint64_t hi, int64_t delta);
/* Appends one event (copied). Writes a chunk when the buffer is full. */
mc_err mc_writer_add(mc_writer *w, const mc_event *e, mc_error *err);
/* Writes the buffered events as a chunk now (e.g. from a signal path),
 * after every chunk handed to the compressor thread: on return all events
 * added are in the file. With err == NULL (a signal handler) nothing is
 * allocated, formatted or locked, and the wait for the thread is bounded
 * (about 2 s; then MC_ERR_IO and the buffered events stay unwritten). */
mc_err mc_writer_flush(mc_writer *w, mc_error *err);
/* Hands the buffered events to the compressor thread as a chunk without
 * waiting for it to be written (mc_writer_flush without a thread). */
mc_err mc_writer_push(mc_writer *w, mc_error *err);
/* Compresses and writes full chunks on a thread of the writer's own, so
 * that mc_writer_add only encodes (the tracer: docs/tracer-safety.md). The
 * file is the same byte for byte. The thread blocks every signal, is
 * joined by mc_writer_close, and never outlives the writer. 0, or -1 if it
 * cannot be started (the writer then compresses on the caller's thread, as
 * without this call). Call before any other thread uses the writer. */
int mc_writer_start_thread(mc_writer *w);
/* Waits, async-signal-safely and for about 2 s at most, until the thread
 * has written every chunk handed to it: for a signal handler that cannot
 * flush (it interrupted the writer). 0 when written (or no thread), -1 if
 * not. */
int mc_writer_wait_written(mc_writer *w);
/* Flushes and closes; NULL is a no-op. */
mc_err mc_writer_close(mc_writer *w, mc_error *err);

/* ---------------------------------------------------------------- source */

typedef struct mc_meta mc_meta;

/* Next event of one rank. Returns 1 with *e filled, 0 at the end of the
 * rank's stream, -1 on error (err filled). On a truncated stream the readable
 * prefix is delivered, then -1 with MC_ERR_TRUNCATED. */
typedef struct mc_source mc_source;
typedef struct mc_source_ops {
    int (*next)(mc_source *s, int rank, mc_event *e, mc_error *err);
    void (*close)(mc_source *s);
    /* Optional (NULL: none): a hint that `next` will soon be asked for the
     * rank's event, so that its state can be fetched into the cache ahead
     * (the simulator knows a few events in advance which ranks step). */
    void (*prefetch)(const mc_source *s, int rank);
    /* Optional (NULL: none): the source's meta data (call sites,
     * communicators), owned by the source. Wrappers pass their inner's on. */
    const mc_meta *(*meta)(const mc_source *s);
} mc_source_ops;
struct mc_source {
    const mc_source_ops *ops;
    int nranks;
    const char *name;  /* path shown in error messages */
};
static inline int mc_source_next(mc_source *s, int rank, mc_event *e, mc_error *err) {
    return s->ops->next(s, rank, e, err);
}
static inline void mc_source_close(mc_source *s) { if (s) s->ops->close(s); }
/* The meta data of a source (NULL when its kind has none). */
static inline const mc_meta *mc_source_meta(const mc_source *s) {
    return s && s->ops->meta ? s->ops->meta(s) : NULL;
}
static inline void mc_source_prefetch(const mc_source *s, int rank) {
    if (s->ops->prefetch)
        s->ops->prefetch(s, rank);
}

/* Opens a trace directory as a source: meta.json if present, otherwise the
 * ranks found from the rank files. Wildcard receives are resolved to their
 * recorded matches (peer/tag never MC_ANY in delivered events). */
mc_source *mc_trace_open(const char *dir, mc_error *err);
/* The meta data of a source (NULL when it has none, e.g. a trace directory
 * without meta.json): mc_source_meta() under its older name. */
const mc_meta *mc_trace_meta(const mc_source *s);

/* MC_OK when the source's events can be replayed as one stream per rank;
 * MC_ERR_USAGE naming `path` when its meta data says MPI was called from
 * several threads of a rank (meta.json "threads", MPI_THREAD_MULTIPLE):
 * the stream then holds the threads' calls in the order they returned, and
 * a replay would serialise them. For the replaying commands (predict,
 * validate, sweep, report, extrapolate); stats, dump and export read it. */
mc_err mc_source_check_replayable(const mc_source *s, const char *path, mc_error *err);

/* Sampling a loop-compressed trace (predict --iterations): every loop
 * record of every rank delivers at most `cap` of its iterations (0: all);
 * the events after it follow at once, their times moved back by the
 * iterations left out. Call before the first event is read. MC_ERR_USAGE
 * when s is not a trace directory's source. */
mc_err mc_trace_set_loop_cap(mc_source *s, uint64_t cap, mc_error *err);
/* Iterations rank's loop records left out so far under the cap, and how
 * many loop records it read (*records may be NULL). */
uint64_t mc_trace_loop_skipped(const mc_source *s, int rank, uint64_t *records);

/* Opens the rank file of one rank directly (no wildcard resolution). */
typedef struct mc_rank_reader mc_rank_reader;
mc_rank_reader *mc_rank_reader_open(const char *path, mc_error *err);
int mc_rank_reader_next(mc_rank_reader *r, mc_event *e, mc_error *err);
void mc_rank_reader_close(mc_rank_reader *r);
/* See mc_trace_set_loop_cap. */
void mc_rank_reader_set_loop_cap(mc_rank_reader *r, uint64_t cap);
uint64_t mc_rank_reader_loop_skipped(const mc_rank_reader *r, uint64_t *records);

/* Path of rank r's file under dir, into buf. */
void mc_rank_path(char *buf, size_t len, const char *dir, int rank);

/* ---------------------------------------------------------------- meta */

/* meta.json of a trace directory: format version, ranks, free-form strings
 * (command, mpi_library, timer, mode, start), communicators with their
 * world-rank membership, and call sites. Written by rank 0 at finalize;
 * readers tolerate its absence. */

typedef struct mc_meta_comm {
    uint64_t id;
    int32_t size;           /* members (intercomm: local + remote) */
    int32_t local_size;     /* intercomm: size of the first group; else size */
    const int32_t *members; /* world ranks in comm-rank order */
} mc_meta_comm;

typedef struct mc_meta_site {
    int32_t id;             /* as stored in events; equal across ranks */
    const char *module;     /* path of the executable or library */
    uint64_t offset;        /* return address relative to the module base */
    const char *function;   /* "" when unknown */
    const char *file;       /* "" when unknown */
    int line;               /* 0 when unknown */
} mc_meta_site;

mc_meta *mc_meta_create(int nranks);
void mc_meta_destroy(mc_meta *m);
/* Keys used: "command", "mpi_library", "timer", "mode", "start", "checked"
 * (a pseudo-trace: its leave-one-out check). Copies. */
mc_err mc_meta_set(mc_meta *m, const char *key, const char *value, mc_error *err);
const char *mc_meta_get(const mc_meta *m, const char *key); /* NULL if unset */
/* Copies every string key src has (command, mode, threads, ...) into dst. */
mc_err mc_meta_copy_strings(mc_meta *dst, const mc_meta *src, mc_error *err);
int mc_meta_nranks(const mc_meta *m);
/* Adds a communicator unless one with the same id exists. Copies members. */
mc_err mc_meta_add_comm(mc_meta *m, uint64_t id, const int32_t *members, int32_t size,
                        int32_t local_size, mc_error *err);
size_t mc_meta_ncomms(const mc_meta *m);
const mc_meta_comm *mc_meta_comm_at(const mc_meta *m, size_t i);
const mc_meta_comm *mc_meta_comm_find(const mc_meta *m, uint64_t id);
/* Adds a call site unless one with the same id exists. Copies strings. */
mc_err mc_meta_add_site(mc_meta *m, const mc_meta_site *site, mc_error *err);
size_t mc_meta_nsites(const mc_meta *m);
const mc_meta_site *mc_meta_site_at(const mc_meta *m, size_t i);
const mc_meta_site *mc_meta_site_find(const mc_meta *m, int32_t id);
/* Writes DIR/meta.json atomically: a mkstemp temporary in DIR renamed over
 * it (a symlink named meta.json is replaced, never followed). */
mc_err mc_meta_write(const mc_meta *m, const char *dir, mc_error *err);
/* mc_meta_write with mc_out_open's flags (MC_OUT_PRIVATE: owner-only). */
mc_err mc_meta_write_as(const mc_meta *m, const char *dir, unsigned flags, mc_error *err);
/* Reads DIR/meta.json; NULL with MC_ERR_IO if absent, MC_ERR_FORMAT/VERSION
 * if invalid (message names the file and the key). */
mc_meta *mc_meta_read(const char *dir, mc_error *err);

/* ---------------------------------------------------------------- text */

/* Prints one event in the stable text form of `mpicast dump`
 * (docs/trace-format.md). with_times=0 omits every time. */
void mc_event_print(FILE *out, int rank, const mc_event *e, int with_times);

#ifdef __cplusplus
}
#endif
#endif
