/* mpicast tracer — internal interface of libmpicast-trace*.so.
 *
 * Every wrapper (generated in wrappers.c, or hand-written in wrap_*.c) follows
 * the same frame protocol:
 *
 *     mct_frame f;
 *     if (!mct_enter(&f, MC_OP_X, __builtin_return_address(0)))
 *         return PMPI_X(...);            // nested, not initialised, finalised
 *     int rc = PMPI_X(...);
 *     mct_stop(&f);                      // exit time
 *     mct_rec_...(&f, ...);              // fill the event's fields
 *     mct_leave(&f);                     // write it (when recording)
 *     return rc;
 *
 * The Fortran entry points (mpi_send_ ...) pass their arguments unchanged to
 * the library's own Fortran entry (pmpi_send_), so Fortran sentinels such as
 * MPI_IN_PLACE keep working, and convert only what the recorders read.
 *
 * mct_enter also marks this thread as "inside a wrapper", so an MPI_ call made
 * by the MPI library itself (MPICH's Fortran bindings call the C MPI_
 * functions) passes straight through and is not counted twice. Bookkeeping
 * (communicator ids, request ids) goes on while Pcontrol has paused
 * recording or the writer failed, because it is collective or needed later.
 *
 * Not part of the public interface: nothing here is exported from the .so.
 */
#ifndef MPICAST_TRACE_TRACER_H
#define MPICAST_TRACE_TRACER_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include "mpicast/format.h"
#include "clock.h"

#define MCT_EXPORT __attribute__((visibility("default")))
#define MCT_RETADDR() __builtin_extract_return_addr(__builtin_return_address(0))

/* ------------------------------------------------------------ state */

enum mct_state {
    MCT_OFF = 0,   /* before MPI_Init */
    MCT_ON,        /* recording */
    MCT_PAUSED,    /* MPI_Pcontrol(0): bookkeeping only */
    MCT_FAILED,    /* the writer failed: bookkeeping only, warned once */
    MCT_DONE       /* after MPI_Finalize */
};
extern volatile int mct_state;
extern int mct_world_rank, mct_world_size;
extern int mct_cpu_mode;
/* Profile mode: markers for the CPU-profile analyser (tracer.c). */
extern int mct_profile;
void mct_prof_mark(char what, long v);
/* initial-exec: the tracer is preloaded, so static TLS is available and
 * each access avoids a __tls_get_addr call. */
#define MCT_TLS _Thread_local __attribute__((tls_model("initial-exec")))
extern MCT_TLS int mct_inside;

/* ------------------------------------------------------------ frames */

typedef struct mct_frame {
    mc_event ev;
    void *ret;       /* return address of the wrapper: the call site */
    int record;      /* 1 when the event is written at mct_leave */
} mct_frame;

/* mct_now(): CLOCK_MONOTONIC ns, absolute (clock.h) */
int64_t mct_cpu_now(void);    /* CLOCK_THREAD_CPUTIME_ID ns */
extern int64_t mct_epoch;     /* mct_now() at the end of MPI_Init */

/* Starts a frame; 0 means "call PMPI directly, record nothing". */
int mct_enter_slow(mct_frame *f, int op, void *ret);
static inline int mct_enter(mct_frame *f, int op, void *ret)
{
    if (mct_inside || (mct_state != MCT_ON && mct_state != MCT_PAUSED &&
                       mct_state != MCT_FAILED))
        return 0;
    return mct_enter_slow(f, op, ret);
}
static inline void mct_stop(mct_frame *f) { f->ev.t_end = mct_now() - mct_epoch; }
/* Writes the event when recording and leaves the wrapper. */
void mct_leave(mct_frame *f);

/* Space for n more event values (per-thread buffer, valid until mct_leave);
 * NULL when out of memory (the event is then dropped). */
int64_t *mct_vals_add(mct_frame *f, uint32_t n);
static inline void mct_val(mct_frame *f, int64_t v)
{
    int64_t *p = mct_vals_add(f, 1);
    if (p)
        *p = v;
}

/* Per-thread scratch memory for wrappers (request and status copies). Slot
 * k (0..MCT_NSCRATCH-1; 0-3 for recorders, 4+ for generated wrappers) grows
 * to at least `bytes`; NULL when out of memory. */
#define MCT_NSCRATCH 12
void *mct_scratch(int k, size_t bytes);

/* Called once by the Init wrappers (C and Fortran) after PMPI_Init*. */
void mct_after_init(int64_t t_entry, int op, void *ret, int thread_level);
/* Called by the Finalize wrappers before PMPI_Finalize. */
void mct_before_finalize(mct_frame *f);
/* Called by the Finalize wrappers after PMPI_Finalize. */
void mct_after_finalize(mct_frame *f);
/* Flushes the writer (MPI_Abort, signals). */
void mct_flush_now(void);
/* Pcontrol: records the event and pauses / resumes. */
void mct_pcontrol(int level, void *ret);
/* Reports a tracer failure once and stops recording. */
void mct_fail(const char *what);

/* Locks for MPI_THREAD_MULTIPLE (no-ops otherwise: inline test). */
extern int mct_threaded;
void mct_lock_slow(void);
void mct_unlock_slow(void);
static inline void mct_lock(void)
{
    if (mct_threaded)
        mct_lock_slow();
}
static inline void mct_unlock(void)
{
    if (mct_threaded)
        mct_unlock_slow();
}

/* ------------------------------------------------------------ failed polls
 * (issue 24). A polling loop calls MPI_Test (Testany, Testall, Testsome,
 * Iprobe) on the same requests from the same call site over and over; the
 * writer folds such a run into one record (mc_writer_set_fold: count, first
 * entry, last exit). Once the writer holds a failed poll that this thread
 * just recorded, the run is armed: the next call of the same operation from
 * the same return address on the same handles (Iprobe: source, tag and
 * communicator) then bypasses the frame, the tables and the writer. Its
 * event would be the held record's again but for its times: every other
 * traced call disarms the run first (mct_enter_slow), so the request and
 * communicator tables are as they were.
 *
 * Reading the clock twice is what a poll then costs (a TSC read is ~12 ns in
 * a VM), so only every k-th poll of the run is timed ("sampled"), k chosen
 * so that k polls take about the fold gap. A sampled poll that starts less
 * than the gap after the run's last timed exit shows that no gap in between
 * reached it: the k polls fold, and the record's count, first entry and last
 * exit are exactly what timing every poll gives. Otherwise (a burst of
 * compute or a descheduling inside the window), the untimed polls are taken
 * to have run at the run's measured pace from its last timed exit, and what
 * remains before the sampled poll is a burst as usual: only there are times
 * estimates (an untimed poll that took longer than the gap is then taken
 * for a burst; docs/trace-format.md gives what that costs on hpcc). A
 * poll that completes after untimed ones gets the end of that estimate, or
 * its exit less one poll's pace if later, as its entry. MPICAST_POLL_HOT=
 * exact times every poll (the trace is then what the slow path writes), off
 * takes the slow path for every poll. Only without MPI_THREAD_MULTIPLE,
 * outside cpu, token and profile modes; the Fortran entry points have their
 * own (gen_wrappers.py, emit_f_hot), but a call through MPI's Fortran layer,
 * whose return address is every call site's, is never armed (mct_hot_arm). */
#define MCT_HOT_MAX 8
typedef struct mct_poll_run {
    int armed, op, n;   /* n: the handles of a Test* call */
    void *ret;
    MPI_Request handles[MCT_HOT_MAX];
    int source, tag;    /* Iprobe */
    MPI_Comm comm;
    int left;           /* untimed polls before the next sampled one */
    int64_t pending;    /* untimed failed polls not yet in the held record */
    int64_t t_last;     /* the held record's end (mct_now, absolute) */
    int64_t pace;       /* ns per poll over the last window (0: not known) */
} mct_poll_run;
extern mct_poll_run mct_run;
/* One hot call: whether it is timed, and its times (mct_now, absolute). */
typedef struct mct_hot {
    int sampled;
    int64_t t0, t1;
} mct_hot;

#define MCT_HOT_INLINE static inline __attribute__((always_inline))
MCT_HOT_INLINE int mct_hot_go(mct_hot *h)
{
    mct_inside = 1;
    h->sampled = mct_run.left <= 0;
    if (h->sampled)
        h->t0 = mct_now();
    return 1;
}
MCT_HOT_INLINE int mct_hot_cpl(mct_hot *h, int op, void *ret, int n, const MPI_Request *rs)
{
    if (!mct_run.armed || mct_run.op != op || mct_run.ret != ret || mct_run.n != n ||
        mct_inside || mct_state != MCT_ON)
        return 0;
    for (int i = 0; i < n; i++)
        if (rs[i] != mct_run.handles[i])
            return 0;
    return mct_hot_go(h);
}
MCT_HOT_INLINE int mct_hot_probe(mct_hot *h, void *ret, int source, int tag, MPI_Comm comm)
{
    if (!mct_run.armed || mct_run.op != MC_OP_IPROBE || mct_run.ret != ret ||
        mct_run.source != source || mct_run.tag != tag || mct_run.comm != comm ||
        mct_inside || mct_state != MCT_ON)
        return 0;
    return mct_hot_go(h);
}
/* Folds a sampled failed poll and the untimed ones before it (tracer.c):
 * 1 when folded. */
int mct_hot_extend(const mct_hot *h);
/* After the PMPI call: 1 when the call failed and was folded (return rc). */
MCT_HOT_INLINE int mct_hot_fold(mct_hot *h, int failed)
{
    mct_inside = 0;
    if (!h->sampled && failed) {
        mct_run.left--;
        mct_run.pending++;
        return 1;
    }
    h->t1 = mct_now();
    return failed && mct_hot_extend(h);
}
/* Otherwise: the frame the slow path would have made, with the hot call's
 * times; the wrapper then records the outcome and calls mct_leave. */
void mct_hot_cold(mct_hot *h, mct_frame *f, int op);
/* Arms the run after a failed poll was recorded (record.c). */
void mct_hot_arm(const mct_frame *f);
/* Whether the writer holds a failed poll ending at t_end (tracer.c). */
int mct_writer_holds_poll(int64_t t_end);

/* ------------------------------------------------------------ sites */

int32_t mct_site_of(void *ret);
/* The last direct hit of mct_site_of's cache on this thread: a call from the
 * same place as the previous one (a polling loop) skips even the cache. */
extern MCT_TLS void *mct_last_ret;
extern MCT_TLS int32_t mct_last_site;
static inline int32_t mct_site_of_fast(void *ret)
{
    return ret == mct_last_ret ? mct_last_site : mct_site_of(ret);
}
/* Writes sites-NNNNNN.txt and serialises the site table (rank 0 gathers it). */
char *mct_sites_serialise(size_t *len);
int mct_sites_write(const char *dir, int rank);
void mct_sites_parse_into(const char *buf, size_t len, mc_meta *m);

/* ------------------------------------------------------------ communicators */

typedef struct mct_comm {
    uint64_t id;
    int size;            /* local group size */
    int rsize;           /* remote group size; 0 for an intracommunicator */
    int32_t *world;      /* world ranks of the local group; NULL: identity */
    int32_t *rworld;     /* world ranks of the remote group */
    int refs;            /* handle map + pending requests */
} mct_comm;

void mct_comm_init(void);
/* Info of a communicator handle; registers unknown ones with a membership-
 * derived id. NULL for MPI_COMM_NULL or on failure. */
mct_comm *mct_comm_get(MPI_Comm c);
static inline uint64_t mct_comm_id(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return MC_COMM_WORLD;
    mct_comm *ci = mct_comm_get(c);
    return ci ? ci->id : MC_COMM_NULL;
}
/* World rank of rank r of the comm (remote group for intercomms);
 * MC_NONE for MPI_PROC_NULL or out of range, MC_ANY for MPI_ANY_SOURCE. */
int32_t mct_peer(const mct_comm *ci, int r);
int32_t mct_peer_of(MPI_Comm c, int r);
/* Registers a new communicator (collective over newc; both sides of an
 * intercomm). Returns its info (NULL for MPI_COMM_NULL). */
mct_comm *mct_comm_register(MPI_Comm newc);
void mct_comm_forget(MPI_Comm c);
void mct_comm_ref(mct_comm *ci);
void mct_comm_unref(mct_comm *ci);
/* Serialises every communicator this rank knows (for rank 0's meta). */
int64_t *mct_comms_serialise(size_t *n);
void mct_comms_parse_into(const int64_t *buf, size_t n, mc_meta *m);

/* ------------------------------------------------------------ requests */

enum { MCT_REQ_SEND = 0, MCT_REQ_RECV = 1, MCT_REQ_COLL = 2 };
void mct_req_init(void);

/* ------------------------------------------------------------ recorders */

int64_t mct_tsize(MPI_Datatype t);
/* Length of a collective's per-rank arrays (remote size for intercomms). */
int mct_npeers(MPI_Comm c);

void mct_rec_send(mct_frame *f, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype t);
void mct_rec_recv(mct_frame *f, int rc, MPI_Comm comm, int count, MPI_Datatype t,
                  const MPI_Status *st);
void mct_rec_irecv(mct_frame *f, MPI_Comm comm, int source, int tag, int count,
                   MPI_Datatype t);
void mct_rec_probe(mct_frame *f, int rc, MPI_Comm comm, const MPI_Status *st);
void mct_rec_iprobe(mct_frame *f, int rc, MPI_Comm comm, int source, int tag, int flag,
                    const MPI_Status *st);
void mct_rec_sendrecv(mct_frame *f, int rc, MPI_Comm comm, int dest, int stag, int scount,
                      MPI_Datatype stype, const MPI_Status *st);
/* A request created by the call: new id into ev.req. */
void mct_rec_newreq(mct_frame *f, int rc, MPI_Request r, MPI_Comm comm, int kind,
                    int persistent);
void mct_rec_start(mct_frame *f, MPI_Request r);
void mct_rec_reqfree_pre(mct_frame *f, MPI_Request r);

/* Completion: pre copies the handles (completed ones become
 * MPI_REQUEST_NULL), done records one completed request. */
void mct_cpl_pre(mct_frame *f, int n, const MPI_Request *reqs);
void mct_cpl_done(mct_frame *f, int i, const MPI_Status *st);
void mct_cpl_all(mct_frame *f, int n, const MPI_Status *sts);
/* Status i of an array that may be MPI_STATUSES_IGNORE (then NULL). */
#define MCT_ST(arr, i) ((arr) == MPI_STATUSES_IGNORE ? NULL : &(arr)[i])

/* Collectives. flags: */
enum { MCT_SEND_AT_ROOT = 1, MCT_RECV_AT_ROOT = 2, MCT_ROOTED = 4 };
void mct_rec_coll(mct_frame *f, MPI_Comm comm, int root, const void *sbuf, int scount,
                  MPI_Datatype stype, const void *rbuf, int rcount, MPI_Datatype rtype,
                  int flags);
/* v-collectives: pass scounts/rcounts NULL where the op has a scalar. */
void mct_rec_collv(mct_frame *f, MPI_Comm comm, int root, const void *sbuf, int scount,
                   const int *scounts, MPI_Datatype stype, const void *rbuf, int rcount,
                   const int *rcounts, MPI_Datatype rtype, int flags);
void mct_rec_alltoallw(mct_frame *f, MPI_Comm comm, const void *sbuf, const int *scounts,
                       const MPI_Datatype *stypes, const int *rcounts,
                       const MPI_Datatype *rtypes);
void mct_rec_reduce_scatter(mct_frame *f, MPI_Comm comm, const int *rcounts,
                            MPI_Datatype t);

/* Communicator management. */
void mct_rec_newcomm(mct_frame *f, int rc, MPI_Comm parent, MPI_Comm newc);
void mct_rec_cart(mct_frame *f, int rc, MPI_Comm newc);
void mct_rec_commfree_pre(mct_frame *f, MPI_Comm c);
void mct_rec_commfree_post(mct_frame *f, int rc, MPI_Comm old);

/* ------------------------------------------------------------ token mode */

/* Token execution (token.c): only the rank holding the token runs
 * application code. mct_token_on: the protocol runs on this rank. */
extern int mct_token_on, mct_token_mode;
/* Collective, in MPI_Init: decides (all ranks alike) whether the program can
 * run in token mode; warns once and leaves wall mode if not. */
void mctk_init(int thread_level);
/* Waits for the token (no-op when holding it). */
void mctk_acquire(void);
/* Collective, at MPI_Finalize entry: retires the token. */
void mctk_finalize(void);
/* Blocking calls with the token protocol (same arguments and results as the
 * PMPI call; see token.c). kind: MC_OP_SEND/SSEND/BSEND/RSEND. */
int mctk_send(int kind, const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm);
int mctk_recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Status *st);
int mctk_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
                  MPI_Comm comm, MPI_Status *st);
int mctk_sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest, int stag, int src,
                          int rtag, MPI_Comm comm, MPI_Status *st);
int mctk_probe(int src, int tag, MPI_Comm comm, MPI_Status *st);
int mctk_wait(MPI_Request *r, MPI_Status *st);
int mctk_waitall(int n, MPI_Request *rs, MPI_Status *sts);
int mctk_waitany(int n, MPI_Request *rs, int *index, MPI_Status *st);
int mctk_waitsome(int n, MPI_Request *rs, int *outcount, int *indices, MPI_Status *sts);
/* After a test call (Test, Testany, Testall, Testsome, Iprobe): counts
 * unsuccessful tests, yields the token after many in a row. Returns rc.
 * The flag is read through a pointer: C leaves the order in which function
 * arguments are evaluated open, so it must not be read before the call. */
int mctk_tested(int rc, const int *flag);
/* The same for Testsome: success is *outcount != 0. */
int mctk_tested_some(int rc, const int *outcount);
/* Before a blocking collective on comm: waits (without the token) until
 * every member has reached it. The wrapper calls mctk_acquire afterwards. */
void mctk_gate(MPI_Comm comm);

/* ------------------------------------------------------------ Fortran */

/* Fortran status length in MPI_Fint (the C status sizeof). */
#ifdef MPI_F_STATUS_SIZE
#define MCT_FSTATUS MPI_F_STATUS_SIZE
#else
#define MCT_FSTATUS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#define MCT_FSTATUS_MAX 16
/* The library's Fortran profiling entry point (pmpi_send_ ...), found once. */
void *mct_f_resolve(const char *name);
/* Maps the Fortran MPI_IN_PLACE / MPI_BOTTOM addresses to C's. */
const void *mct_f_buf(const void *p);
int mct_f_status_ignore(const MPI_Fint *s);
int mct_f_statuses_ignore(const MPI_Fint *s);
/* MPICH's mpi_f08 sentinels. */
int mct_f08_status_ignore(const MPI_Fint *s);
int mct_f08_statuses_ignore(const MPI_Fint *s);

#endif
