/* mpicast tracer — filling an event's fields per operation, exactly as
 * docs/trace-format.md ("Per operation") defines them, and the request
 * table that links completions back to the calls that created them. */
#include "tracer.h"
#include "map.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ------------------------------------------------------------ helpers */

int64_t mct_tsize(MPI_Datatype t)
{
    int s = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS)
        return 0;
    return s;
}

static int64_t nbytes(int count, MPI_Datatype t)
{
    return count > 0 ? (int64_t)count * mct_tsize(t) : 0;
}

static int32_t tag_of(int tag)
{
    return tag == MPI_ANY_TAG ? MC_ANY : tag;
}

/* Bytes a receive delivered: the status counts in bytes (MPI_BYTE), which
 * stays valid even if the user freed the receive datatype since. */
static int64_t status_bytes(const MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return 0;
    return n;
}

/* Matched source/tag of a receive status; MPI_PROC_NULL gives MC_NONE both. */
static void matched(const mct_comm *ci, const MPI_Status *st, int32_t *src, int32_t *tag)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) {
        *src = MC_NONE;
        *tag = MC_NONE;
        return;
    }
    *src = mct_peer(ci, st->MPI_SOURCE);
    *tag = st->MPI_TAG;
}

static mct_comm *comm_of(mct_frame *f, MPI_Comm c)
{
    mct_comm *ci = mct_comm_get(c);
    f->ev.comm = ci ? ci->id : MC_COMM_NULL;
    return ci;
}

/* ------------------------------------------------------------ point to point */

void mct_rec_send(mct_frame *f, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype t)
{
    mct_comm *ci = comm_of(f, comm);
    f->ev.peer = mct_peer(ci, dest);
    f->ev.tag = tag;
    f->ev.bytes = nbytes(count, t);
}

void mct_rec_recv(mct_frame *f, int rc, MPI_Comm comm, int count, MPI_Datatype t,
                  const MPI_Status *st)
{
    mct_comm *ci = comm_of(f, comm);
    f->ev.bytes = nbytes(count, t);
    if (rc != MPI_SUCCESS)
        return;
    matched(ci, st, &f->ev.peer, &f->ev.tag);
    f->ev.bytes2 = status_bytes(st);
}

void mct_rec_irecv(mct_frame *f, MPI_Comm comm, int source, int tag, int count,
                   MPI_Datatype t)
{
    mct_comm *ci = comm_of(f, comm);
    f->ev.peer = mct_peer(ci, source);
    f->ev.tag = source == MPI_PROC_NULL ? MC_NONE : tag_of(tag);
    f->ev.bytes = nbytes(count, t);
}

void mct_rec_probe(mct_frame *f, int rc, MPI_Comm comm, const MPI_Status *st)
{
    mct_comm *ci = comm_of(f, comm);
    if (rc != MPI_SUCCESS)
        return;
    matched(ci, st, &f->ev.peer, &f->ev.tag);
    f->ev.bytes2 = status_bytes(st);
}

/* The failed-poll fast path (tracer.h, mct_poll_run): armed by the thread
 * that recorded the poll, below MPI_THREAD_MULTIPLE only. */
mct_poll_run mct_run;
/* The last Iprobe's arguments, for mct_hot_arm. */
static MCT_TLS int probe_source, probe_tag;
static MCT_TLS MPI_Comm probe_comm;

void mct_rec_iprobe(mct_frame *f, int rc, MPI_Comm comm, int source, int tag, int flag,
                    const MPI_Status *st)
{
    probe_source = source;
    probe_tag = tag;
    probe_comm = comm;
    mct_comm *ci = comm_of(f, comm);
    f->ev.peer = mct_peer(ci, source);
    f->ev.tag = source == MPI_PROC_NULL ? MC_NONE : tag_of(tag);
    f->ev.bytes2 = rc == MPI_SUCCESS && flag ? 1 : 0;
    if (f->ev.bytes2)
        matched(ci, st, &f->ev.peer2, &f->ev.tag2);
}

void mct_rec_sendrecv(mct_frame *f, int rc, MPI_Comm comm, int dest, int stag, int scount,
                      MPI_Datatype stype, const MPI_Status *st)
{
    mct_comm *ci = comm_of(f, comm);
    f->ev.peer = mct_peer(ci, dest);
    f->ev.tag = stag;
    f->ev.bytes = nbytes(scount, stype);
    if (rc != MPI_SUCCESS)
        return;
    matched(ci, st, &f->ev.peer2, &f->ev.tag2);
    f->ev.bytes2 = status_bytes(st);
}

/* ------------------------------------------------------------ requests */

/* Slot payload: a = id | kind << 32 | persistent << 40 | active << 41,
 * b = the communicator info (kept alive by the known-comm list). */
#define REQ_KIND(a) ((int)(((a) >> 32) & 0xff))
#define REQ_PERSISTENT (1ull << 40)
#define REQ_ACTIVE (1ull << 41)
/* Bits 42..57: a tag of the thread that created the request, so that a
 * handle shared by several live requests completes the caller's own first. */
#define REQ_TTAG_SHIFT 42
#define REQ_TTAG_MASK (0xffffull << REQ_TTAG_SHIFT)

static uint64_t thread_tag(void)
{
    static MCT_TLS uint64_t tag;
    static atomic_uint next;
    if (!tag)
        tag = (uint64_t)(atomic_fetch_add(&next, 1) % 0xffffu + 1) << REQ_TTAG_SHIFT;
    return tag;
}

static mct_map reqs;
static uint32_t next_req = 1;
/* Changes with every update of the request table (under the lock): a
 * completion call on the same single request at the same generation finds
 * what the previous one found (mct_cpl_pre's poll cache). */
static uint64_t req_gen = 1;

static uint64_t req_key(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return k;
}

void mct_req_init(void)
{
    next_req = 1;
}

/* MPI may hand out one static, already-complete request for several calls
 * (Open MPI returns &ompi_request_empty for every operation on
 * MPI_PROC_NULL). Such a handle then stands for several live ids: the map
 * slot holds the newest, the older ones wait here. Usually empty. */
typedef struct dup_req {
    uint64_t key;
    uint64_t a;
    void *b;
} dup_req;
static dup_req *dups;
static size_t ndups, dups_cap;

static void dup_push(uint64_t key, const mct_slot *s)
{
    if (ndups == dups_cap) {
        size_t cap = dups_cap ? 2 * dups_cap : 8;
        dup_req *d = realloc(dups, cap * sizeof *d);
        if (!d) {
            mct_fail("out of memory for the request table");
            return;
        }
        dups = d;
        dups_cap = cap;
    }
    dups[ndups++] = (dup_req){key, s->a, s->b};
}

/* The k-th older id recorded for key (k from 0), or -1. */
static ssize_t dup_find(uint64_t key, int k)
{
    for (size_t i = 0; i < ndups; i++)
        if (dups[i].key == key && k-- == 0)
            return (ssize_t)i;
    return -1;
}

static void dup_remove(size_t i)
{
    dups[i] = dups[--ndups];
}

/* The id the k-th listing (from 0) of handle key completes: the slot and its
 * older ids, the calling thread's own first, each in creation order (newest
 * first for the slot). 0 if there are fewer than k + 1. */
static int shared_pick(uint64_t key, const mct_slot *s, int k, uint64_t *a, mct_comm **b)
{
    uint64_t mine = thread_tag();
    for (int pass = 0; pass < 2; pass++) {
        int own = pass == 0;
        if (((s->a & REQ_TTAG_MASK) == mine) == own && k-- == 0) {
            *a = s->a;
            *b = s->b;
            return 1;
        }
        for (size_t i = 0; i < ndups; i++)
            if (dups[i].key == key && ((dups[i].a & REQ_TTAG_MASK) == mine) == own &&
                k-- == 0) {
                *a = dups[i].a;
                *b = dups[i].b;
                return 1;
            }
    }
    return 0;
}

/* Forgets the completed id `a` of handle key: from the older ids if it is
 * one of them, else from the slot, which then takes an older id if any. */
static void req_forget(uint64_t key, uint64_t a)
{
    req_gen++;
    if (ndups == 0) { /* the usual case: one probe, not a find then a delete */
        mct_map_del(&reqs, key);
        return;
    }
    for (size_t i = 0; i < ndups; i++)
        if (dups[i].key == key && dups[i].a == a) {
            dup_remove(i);
            return;
        }
    ssize_t d = dup_find(key, 0);
    mct_slot *s = mct_map_find(&reqs, key);
    if (d >= 0 && s) {
        s->a = dups[d].a;
        s->b = dups[d].b;
        dup_remove((size_t)d);
    } else {
        mct_map_del(&reqs, key);
    }
}

void mct_rec_newreq(mct_frame *f, int rc, MPI_Request r, MPI_Comm comm, int kind,
                    int persistent)
{
    if (rc != MPI_SUCCESS || r == MPI_REQUEST_NULL)
        return;
    mct_comm *ci = mct_comm_get(comm);
    mct_lock();
    req_gen++;
    uint32_t id = next_req++;
    mct_slot *s = mct_map_put(&reqs, req_key(r));
    if (!s)
        mct_fail("out of memory for the request table");
    if (s && s->a && !(s->a & REQ_PERSISTENT) && (s->a & REQ_ACTIVE))
        dup_push(req_key(r), s); /* the handle is shared: keep the older id too */
    if (s) {
        s->a = id | (uint64_t)kind << 32 | (persistent ? REQ_PERSISTENT : REQ_ACTIVE) |
               thread_tag();
        s->b = ci;
    }
    mct_unlock();
    f->ev.req = id;
}

void mct_rec_start(mct_frame *f, MPI_Request r)
{
    mct_lock();
    mct_slot *s = mct_map_find(&reqs, req_key(r));
    req_gen++;
    if (s)
        s->a |= REQ_ACTIVE;
    mct_unlock();
    mct_val(f, s ? (int64_t)(uint32_t)s->a : 0);
}

void mct_rec_reqfree_pre(mct_frame *f, MPI_Request r)
{
    mct_lock();
    mct_slot *s = mct_map_find(&reqs, req_key(r));
    int64_t id = s ? (int64_t)(uint32_t)s->a : 0;
    if (s)
        req_forget(req_key(r), s->a);
    mct_unlock();
    mct_val(f, id);
}

/* ------------------------------------------------------------ completion */

/* What the completion call is about, copied before the call: completed
 * requests become MPI_REQUEST_NULL. */
typedef struct cpl_entry {
    MPI_Request handle;
    uint64_t a;        /* slot payload; 0: not ours / null / inactive */
    mct_comm *ci;
} cpl_entry;

static MCT_TLS cpl_entry *cpl;
static MCT_TLS int ncpl;
/* One request (Test, Wait, Testany of 1 ...): its entry, and the last such
 * lookup with the table generation it was made at. A polling loop calls
 * Test on the same request over and over while the table stays the same:
 * the lookup is then done once per run (only below MPI_THREAD_MULTIPLE,
 * where no other thread changes the table during the call). */
static MCT_TLS cpl_entry cpl_one, cpl_last;
static MCT_TLS uint64_t cpl_last_gen;

void mct_cpl_pre(mct_frame *f, int n, const MPI_Request *rs)
{
    if (n == 1 && !mct_threaded && cpl_last_gen == req_gen && cpl_last.handle == rs[0]) {
        cpl_one = cpl_last;
        cpl = &cpl_one;
        ncpl = 1;
        return;
    }
    ncpl = 0;
    cpl = n == 1 ? &cpl_one : n > 0 ? mct_scratch(3, (size_t)n * sizeof *cpl) : NULL;
    if (n > 0 && !cpl) {
        f->record = 0;
        return;
    }
    mct_lock();
    for (int i = 0; i < n; i++) {
        cpl[i].handle = rs[i];
        cpl[i].a = 0;
        cpl[i].ci = NULL;
        if (rs[i] == MPI_REQUEST_NULL)
            continue;
        mct_slot *s = mct_map_find(&reqs, req_key(rs[i]));
        if (!s) {
            cpl[i].a = 1ull << 63; /* unknown but active: id 0 */
            continue;
        }
        if ((s->a & REQ_PERSISTENT) && !(s->a & REQ_ACTIVE))
            continue; /* an inactive persistent request completes nothing */
        int earlier = 0; /* a shared handle listed again takes its next id */
        for (int j = 0; j < i; j++)
            earlier += cpl[j].handle == rs[i];
        if (!shared_pick(req_key(rs[i]), s, earlier, &cpl[i].a, &cpl[i].ci))
            continue;
    }
    if (n == 1) {
        cpl_last = cpl_one;
        cpl_last_gen = req_gen;
    }
    mct_unlock();
    ncpl = n;
}

void mct_hot_arm(const mct_frame *f)
{
    if (!mct_writer_holds_poll(f->ev.t_end))
        return; /* written, not held: a run of one (no fold gap) */
    if (mct_last_ret != f->ret)
        return; /* not a direct hit of the site cache: the return address may be MPI's
                   Fortran glue, whose site depends on the stack (sites.c) */
    if (f->ev.op == MC_OP_IPROBE) {
        mct_run.source = probe_source;
        mct_run.tag = probe_tag;
        mct_run.comm = probe_comm;
        mct_run.n = 0;
    } else {
        if (ncpl > MCT_HOT_MAX || (ncpl > 0 && !cpl))
            return;
        for (int i = 0; i < ncpl; i++)
            mct_run.handles[i] = cpl[i].handle;
        mct_run.n = ncpl;
    }
    mct_run.op = f->ev.op;
    mct_run.ret = f->ret;
    mct_run.t_last = f->ev.t_end + mct_epoch;
    mct_run.pending = 0;
    mct_run.left = 0; /* the first poll timed: its window gives the pace */
    mct_run.armed = 1;
}

void mct_cpl_done(mct_frame *f, int i, const MPI_Status *st)
{
    if (i < 0 || i >= ncpl || cpl[i].a == 0)
        return;
    uint64_t a = cpl[i].a;
    int known = !(a >> 63);
    int64_t *v = mct_vals_add(f, 4);
    if (!v)
        return;
    v[0] = known ? (int64_t)(uint32_t)a : 0;
    v[1] = v[2] = MC_NONE;
    v[3] = 0;
    if (known && REQ_KIND(a) == MCT_REQ_RECV && st) {
        int32_t src, tag;
        matched(cpl[i].ci, st, &src, &tag);
        v[1] = src;
        v[2] = tag;
        v[3] = src == MC_NONE ? 0 : status_bytes(st);
    }
    if (!known)
        return;
    mct_lock();
    if (a & REQ_PERSISTENT) {
        mct_slot *s = mct_map_find(&reqs, req_key(cpl[i].handle));
        req_gen++;
        if (s)
            s->a &= ~REQ_ACTIVE;
    } else {
        req_forget(req_key(cpl[i].handle), a);
    }
    mct_unlock();
    cpl[i].a = 0;
}

void mct_cpl_all(mct_frame *f, int n, const MPI_Status *sts)
{
    for (int i = 0; i < n; i++)
        mct_cpl_done(f, i, sts ? &sts[i] : NULL);
}

/* ------------------------------------------------------------ collectives */

static int comm_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

/* Members a per-rank array of the collective covers (remote group of an
 * intercomm). */
static int peers_of(const mct_comm *ci)
{
    return ci ? (ci->rsize > 0 ? ci->rsize : ci->size) : 0;
}

/* Is this rank the root of a rooted collective? (MPI_ROOT: intercomm root) */
static int at_root(MPI_Comm c, const mct_comm *ci, int root)
{
    if (root == MPI_ROOT)
        return 1;
    if (ci && ci->rsize > 0)
        return 0;
    return comm_rank(c) == root;
}

int mct_npeers(MPI_Comm c)
{
    return peers_of(mct_comm_get(c));
}

static void coll_head(mct_frame *f, MPI_Comm comm, int root, int flags, mct_comm **ci,
                      int *isroot)
{
    *ci = comm_of(f, comm);
    f->ev.peer2 = peers_of(*ci);
    *isroot = 0;
    if (flags & MCT_ROOTED) {
        *isroot = at_root(comm, *ci, root);
        if (root == MPI_ROOT)
            f->ev.peer = mct_world_rank;
        else
            f->ev.peer = mct_peer(*ci, root);
    }
}

void mct_rec_coll(mct_frame *f, MPI_Comm comm, int root, const void *sbuf, int scount,
                  MPI_Datatype stype, const void *rbuf, int rcount, MPI_Datatype rtype,
                  int flags)
{
    mct_comm *ci;
    int isroot;
    coll_head(f, comm, root, flags, &ci, &isroot);
    int send_ok = !(flags & MCT_SEND_AT_ROOT) || isroot;
    int recv_ok = !(flags & MCT_RECV_AT_ROOT) || isroot;
    f->ev.bytes2 = recv_ok && rbuf != MPI_IN_PLACE ? nbytes(rcount, rtype) : 0;
    if (!send_ok)
        f->ev.bytes = 0;
    else if (sbuf == MPI_IN_PLACE) /* the block sits in the receive buffer */
        f->ev.bytes = nbytes(rcount, rtype);
    else
        f->ev.bytes = nbytes(scount, stype);
    if (rbuf == MPI_IN_PLACE && send_ok) /* scatter at the root, in place */
        f->ev.bytes2 = f->ev.bytes;
}

static void vals_counts(mct_frame *f, int n, const int *counts, MPI_Datatype t)
{
    int64_t size = mct_tsize(t);
    int64_t *v = mct_vals_add(f, (uint32_t)n);
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        v[i] = counts[i] > 0 ? counts[i] * size : 0;
}

void mct_rec_collv(mct_frame *f, MPI_Comm comm, int root, const void *sbuf, int scount,
                   const int *scounts, MPI_Datatype stype, const void *rbuf, int rcount,
                   const int *rcounts, MPI_Datatype rtype, int flags)
{
    mct_comm *ci;
    int isroot;
    coll_head(f, comm, root, flags, &ci, &isroot);
    int n = peers_of(ci);
    int send_ok = !(flags & MCT_SEND_AT_ROOT) || isroot;
    int recv_ok = !(flags & MCT_RECV_AT_ROOT) || isroot;
    int in_place = sbuf == MPI_IN_PLACE;
    if (!scounts && send_ok) {
        if (!in_place)
            f->ev.bytes = nbytes(scount, stype);
        else if (rcounts && ci && ci->rsize == 0) /* my block of the receive side */
            f->ev.bytes = nbytes(rcounts[comm_rank(comm)], rtype);
    }
    if (!rcounts && recv_ok && rbuf != MPI_IN_PLACE)
        f->ev.bytes2 = nbytes(rcount, rtype);
    if (scounts && send_ok && !in_place)
        vals_counts(f, n, scounts, stype);
    if (rcounts && recv_ok)
        vals_counts(f, n, rcounts, rtype);
}

void mct_rec_alltoallw(mct_frame *f, MPI_Comm comm, const void *sbuf, const int *scounts,
                       const MPI_Datatype *stypes, const int *rcounts,
                       const MPI_Datatype *rtypes)
{
    mct_comm *ci = comm_of(f, comm);
    int n = peers_of(ci);
    f->ev.peer2 = n;
    int sides = sbuf == MPI_IN_PLACE ? 1 : 2;
    int64_t *v = mct_vals_add(f, (uint32_t)(sides * n));
    if (!v)
        return;
    if (sides == 2)
        for (int i = 0; i < n; i++)
            *v++ = nbytes(scounts[i], stypes[i]);
    for (int i = 0; i < n; i++)
        *v++ = nbytes(rcounts[i], rtypes[i]);
}

void mct_rec_reduce_scatter(mct_frame *f, MPI_Comm comm, const int *rcounts, MPI_Datatype t)
{
    mct_comm *ci = comm_of(f, comm);
    f->ev.peer2 = peers_of(ci);
    vals_counts(f, ci ? ci->size : 0, rcounts, t);
}

/* ------------------------------------------------------------ communicators */

void mct_rec_newcomm(mct_frame *f, int rc, MPI_Comm parent, MPI_Comm newc)
{
    comm_of(f, parent);
    f->ev.peer2 = 0;
    if (rc != MPI_SUCCESS)
        return;
    mct_comm *ci = mct_comm_register(newc);
    if (!ci)
        return;
    f->ev.newcomm = ci->id;
    f->ev.peer2 = ci->size;
    int n = ci->size + ci->rsize;
    int64_t *v = mct_vals_add(f, (uint32_t)n);
    if (!v)
        return;
    for (int i = 0; i < ci->size; i++)
        *v++ = ci->world[i];
    for (int i = 0; i < ci->rsize; i++)
        *v++ = ci->rworld[i];
}

void mct_rec_cart(mct_frame *f, int rc, MPI_Comm newc)
{
    int nd = 0;
    if (rc != MPI_SUCCESS || newc == MPI_COMM_NULL ||
        PMPI_Cartdim_get(newc, &nd) != MPI_SUCCESS || nd < 0)
        return;
    int *dims = mct_scratch(0, (size_t)(3 * nd + 1) * sizeof(int));
    if (!dims)
        return;
    int *periods = dims + nd, *coords = periods + nd;
    if (PMPI_Cart_get(newc, nd, dims, periods, coords) != MPI_SUCCESS)
        return;
    mct_val(f, nd);
    for (int i = 0; i < nd; i++)
        mct_val(f, dims[i]);
    for (int i = 0; i < nd; i++)
        mct_val(f, periods[i] != 0);
}

void mct_rec_commfree_pre(mct_frame *f, MPI_Comm c)
{
    mct_comm *ci = mct_comm_get(c);
    f->ev.comm = ci ? ci->id : MC_COMM_NULL;
}

void mct_rec_commfree_post(mct_frame *f, int rc, MPI_Comm old)
{
    (void)f;
    if (rc == MPI_SUCCESS)
        mct_comm_forget(old);
}
