/* mpicast import dumpi: a DUMPI trace (SST's libdumpi) becomes a trace
 * directory. Two passes over the rank files: the first collects the
 * communicator creations of every rank and the time origin, the second
 * converts and writes each rank's calls (one rank in memory at a time, only
 * its outstanding requests). Mapping and losses: docs/formats.md, DUMPI. */
#define MPICAST_EXPORT_INTERNAL
#include "dumpi_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/export.h"
#include "mpicast/format.h"

/* ------------------------------------------------------- communicators */

typedef struct dcomm {
    uint64_t id;
    int32_t size;
    int32_t *members; /* world ranks in comm-rank order */
} dcomm;

/* A communicator creation of one rank, in program order. */
typedef struct dcreate {
    int op;            /* DP_Comm_dup, DP_Comm_split, DP_Cart_create */
    int parent, newidx;/* DUMPI indexes */
    int32_t color, key;
    int64_t cart_n;    /* Cart_create: product of dims */
    int32_t result;    /* index in comms[], -1: MPI_COMM_NULL */
} dcreate;

typedef struct drank {
    dcreate *c;
    size_t n, cap, cur;
    int32_t *map;      /* DUMPI index -> comms[] index, -1 unknown */
    size_t nmap;
    int32_t self;      /* comms[] index of its MPI_COMM_SELF, -1 none yet */
} drank;

typedef struct dimp {
    dp_trace t;
    int n;
    drank *ranks;
    dcomm *comms;
    size_t ncomms, capcomms;
    uint32_t *next_seq;   /* per world rank, as the tracer agrees on ids */
    int64_t epoch;        /* ns: the earliest MPI_Init exit */
} dimp;

static int32_t add_comm(dimp *x, uint64_t id, const int32_t *members, int32_t size)
{
    if (x->ncomms == x->capcomms) {
        size_t cap = x->capcomms ? 2 * x->capcomms : 16;
        dcomm *c = realloc(x->comms, cap * sizeof *c);
        if (!c)
            return -1;
        x->comms = c;
        x->capcomms = cap;
    }
    dcomm *k = &x->comms[x->ncomms];
    k->members = malloc(((size_t)size + 1) * sizeof *k->members);
    if (!k->members)
        return -1;
    memcpy(k->members, members, (size_t)size * sizeof *members);
    k->size = size;
    k->id = id;
    return (int32_t)x->ncomms++;
}

static int32_t self_of(dimp *x, int r)
{
    drank *k = &x->ranks[r];
    if (k->self < 0)
        k->self = add_comm(x, MC_COMM_SELF_BASE | (uint64_t)r, &r, 1);
    return k->self;
}

/* comms[] index of DUMPI communicator idx on rank r; -1 unknown, -2 no memory */
static int32_t lookup(dimp *x, int r, int idx)
{
    if (idx == DP_COMM_WORLD)
        return 0;
    if (idx == DP_COMM_SELF)
        return self_of(x, r) < 0 ? -2 : x->ranks[r].self;
    drank *k = &x->ranks[r];
    return idx >= 0 && (size_t)idx < k->nmap ? k->map[idx] : -1;
}

static int set_map(drank *k, int idx, int32_t comm)
{
    if ((size_t)idx >= k->nmap) {
        size_t n = (size_t)idx + 16;
        int32_t *m = realloc(k->map, n * sizeof *m);
        if (!m)
            return -1;
        for (size_t i = k->nmap; i < n; i++)
            m[i] = -1;
        k->map = m;
        k->nmap = n;
    }
    k->map[idx] = comm;
    return 0;
}

static int add_create(drank *k, const dcreate *c)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 8;
        dcreate *p = realloc(k->c, cap * sizeof *p);
        if (!p)
            return -1;
        k->c = p;
        k->cap = cap;
    }
    k->c[k->n++] = *c;
    return 0;
}

/* A new communicator of `members`: its id as the tracer's agreement gives
 * it (the largest next sequence number among the members). */
static int32_t create_comm(dimp *x, const int32_t *members, int32_t size)
{
    uint32_t seq = 0;
    int32_t low = INT32_MAX;
    for (int32_t i = 0; i < size; i++) {
        if (x->next_seq[members[i]] > seq)
            seq = x->next_seq[members[i]];
        if (members[i] < low)
            low = members[i];
    }
    for (int32_t i = 0; i < size; i++)
        x->next_seq[members[i]] = seq + 1;
    return add_comm(x, (uint64_t)seq << 32 | (uint32_t)low, members, size);
}

typedef struct split_key {
    int32_t color, key, prank, world;
} split_key;

static int by_color_key(const void *a, const void *b)
{
    const split_key *p = a, *q = b;
    if (p->color != q->color)
        return p->color < q->color ? -1 : 1;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->prank < q->prank ? -1 : p->prank > q->prank;
}

/* Resolves one collective creation over parent P whose members all stand at
 * it: gives each member its result and advances them. */
static mc_err resolve_group(dimp *x, int32_t P, mc_error *err)
{
    int32_t size = x->comms[P].size;
    split_key *s = malloc((size_t)size * sizeof *s);
    int32_t *members = malloc((size_t)size * sizeof *members);
    if (!s || !members) {
        free(s);
        free(members);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    const int32_t *pm = x->comms[P].members;
    const dcreate *first = &x->ranks[pm[0]].c[x->ranks[pm[0]].cur];
    for (int32_t i = 0; i < size; i++) {
        const dcreate *c = &x->ranks[pm[i]].c[x->ranks[pm[i]].cur];
        s[i].color = first->op == DP_Comm_split ? c->color : 0;
        if (first->op == DP_Cart_create && i >= first->cart_n)
            s[i].color = -1; /* outside the grid: MPI_COMM_NULL */
        s[i].key = first->op == DP_Comm_split ? c->key : 0;
        s[i].prank = i;
        s[i].world = pm[i];
    }
    qsort(s, (size_t)size, sizeof *s, by_color_key);
    mc_err rc = MC_OK;
    for (int32_t i = 0; i < size && !rc;) {
        int32_t j = i;
        while (j < size && s[j].color == s[i].color)
            j++;
        int32_t result = -1;
        if (s[i].color >= 0) { /* MPI_UNDEFINED is negative */
            for (int32_t k = i; k < j; k++)
                members[k - i] = s[k].world;
            result = create_comm(x, members, j - i);
            if (result < 0)
                rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        }
        for (int32_t k = i; k < j && !rc; k++) {
            drank *dr = &x->ranks[s[k].world];
            dcreate *c = &dr->c[dr->cur++];
            c->result = result;
            if (result >= 0 && set_map(dr, c->newidx, result))
                rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        }
        i = j;
    }
    free(s);
    free(members);
    return rc;
}

/* Is every member of P standing at a creation over P, of the same kind? */
static int group_ready(dimp *x, int32_t P, int op)
{
    for (int32_t i = 0; i < x->comms[P].size; i++) {
        int m = x->comms[P].members[i];
        drank *k = &x->ranks[m];
        if (k->cur >= k->n || k->c[k->cur].op != op || lookup(x, m, k->c[k->cur].parent) != P)
            return 0;
    }
    return 1;
}

/* Replays every rank's creations in an order MPI allows (a creation is
 * collective over its parent): members agree on ids as the tracer makes
 * them. Leaves each creation's result for the second pass. */
static mc_err resolve_comms(dimp *x, mc_error *err)
{
    size_t left = 0;
    for (int r = 0; r < x->n; r++)
        left += x->ranks[r].n;
    while (left) {
        int progress = 0;
        for (int r = 0; r < x->n; r++) {
            drank *k = &x->ranks[r];
            if (k->cur >= k->n)
                continue;
            int32_t P = lookup(x, r, k->c[k->cur].parent);
            if (P == -2)
                return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
            if (P < 0)
                return mc_error_set(err, MC_ERR_FORMAT, "%s: rank %d: a communicator is "
                                    "created from communicator %d, which no earlier call "
                                    "made", x->t.meta, r, k->c[k->cur].parent);
            if (!group_ready(x, P, k->c[k->cur].op))
                continue;
            size_t before = 0, after = 0;
            for (int32_t i = 0; i < x->comms[P].size; i++)
                before += x->ranks[x->comms[P].members[i]].cur;
            mc_err rc = resolve_group(x, P, err);
            if (rc)
                return rc;
            for (int32_t i = 0; i < x->comms[P].size; i++)
                after += x->ranks[x->comms[P].members[i]].cur;
            left -= after - before;
            progress = 1;
        }
        if (!progress)
            return mc_error_set(err, MC_ERR_FORMAT, "%s: the communicator creations of the "
                                "ranks do not match (a member of a parent communicator "
                                "never makes the same call)", x->t.meta);
    }
    for (int r = 0; r < x->n; r++) { /* the second pass replays from the start */
        x->ranks[r].cur = 0;
        for (size_t i = 0; i < x->ranks[r].nmap; i++)
            x->ranks[r].map[i] = -1;
    }
    return MC_OK;
}

/* ------------------------------------------------------- pass 1 */

static mc_err collect_rank(dimp *x, int r, mc_error *err)
{
    char path[4200];
    dp_rank_path(&x->t, r, path, sizeof path);
    dp_file d;
    mc_err rc = dp_open(&d, path, err);
    dp_rec rec;
    int got;
    while (!rc && (got = dp_next(&d, &rec, err)) == 1) {
        if (rec.label == DP_Init && rec.wall1 >= 0 && rec.wall1 < x->epoch)
            x->epoch = rec.wall1;
        if (rec.label != DP_Comm_dup && rec.label != DP_Comm_split &&
            rec.label != DP_Cart_create)
            continue;
        dcreate c = {.op = rec.label, .parent = rec.comm, .newidx = rec.newcomm,
                     .color = rec.color, .key = rec.key, .cart_n = 1, .result = -1};
        for (int32_t i = 0; rec.label == DP_Cart_create && i < rec.nints; i++)
            c.cart_n *= rec.ints[i];
        if (add_create(&x->ranks[r], &c))
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    if (!rc && got < 0)
        rc = err->code;
    dp_close(&d);
    return rc;
}

/* ------------------------------------------------------- pass 2 */

typedef struct dreq {
    int32_t handle;
    uint32_t id;
    int recv, persistent;
    int32_t peer, tag;
    int64_t bytes;
} dreq;

typedef struct conv {
    dimp *x;
    int r;
    dp_file *d;
    dreq *reqs;
    size_t nreqs, cap;
    uint32_t next_id;
    int64_t *vals;
    size_t nvals, capvals;
    int64_t prev_cpu;
    int used_self;
} conv;

static int64_t *vals_add(conv *c, size_t n)
{
    if (c->nvals + n > c->capvals) {
        size_t cap = (c->nvals + n) * 2;
        int64_t *v = realloc(c->vals, cap * sizeof *v);
        if (!v)
            return NULL;
        c->vals = v;
        c->capvals = cap;
    }
    int64_t *v = c->vals + c->nvals;
    c->nvals += n;
    return v;
}

/* World rank of comm rank `peer` of comm k; MC_NONE for MPI_PROC_NULL,
 * MC_ANY for MPI_ANY_SOURCE. */
static int32_t world_of(const dcomm *k, int32_t peer)
{
    if (peer == DP_ANY_SOURCE)
        return MC_ANY;
    if (!k || peer < 0 || peer >= k->size)
        return MC_NONE;
    return k->members[peer];
}

static dreq *req_find(conv *c, int32_t handle)
{
    for (size_t i = c->nreqs; i-- > 0;)
        if (c->reqs[i].handle == handle)
            return &c->reqs[i];
    return NULL;
}

static dreq *req_new(conv *c, int32_t handle)
{
    dreq *q = req_find(c, handle);
    if (q && !q->persistent) { /* DUMPI reuses a freed handle: a new request */
        *q = c->reqs[--c->nreqs];
        q = NULL;
    }
    if (!q) {
        if (c->nreqs == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 32;
            dreq *p = realloc(c->reqs, cap * sizeof *p);
            if (!p)
                return NULL;
            c->reqs = p;
            c->cap = cap;
        }
        q = &c->reqs[c->nreqs++];
    }
    memset(q, 0, sizeof *q);
    q->handle = handle;
    q->id = c->next_id++;
    return q;
}

/* The 4 completion values of request `handle` (status st when recorded). */
static int complete(conv *c, const dcomm *k, int32_t handle, const dp_status *st)
{
    if (handle == DP_REQUEST_NULL || handle == 0)
        return 0;
    int64_t *v = vals_add(c, 4);
    if (!v)
        return -1;
    dreq *q = req_find(c, handle);
    v[0] = q ? q->id : 0;
    v[1] = v[2] = MC_NONE;
    v[3] = 0;
    if (q && q->recv) {
        if (st && st->source >= 0) {
            v[1] = world_of(k, st->source);
            v[2] = st->tag;
            v[3] = st->bytes;
        } else if (q->peer != MC_NONE) {
            v[1] = q->peer;
            v[2] = q->tag;
            v[3] = q->bytes;
        }
    }
    if (q && !q->persistent)
        *q = c->reqs[--c->nreqs];
    return 0;
}

static const dcomm *comm_at(conv *c, int idx, uint64_t *id)
{
    int32_t i = lookup(c->x, c->r, idx);
    if (idx == DP_COMM_SELF)
        c->used_self = 1;
    *id = i >= 0 ? c->x->comms[i].id : MC_COMM_NULL;
    return i >= 0 ? &c->x->comms[i] : NULL;
}

/* Which mpicast operation a record is; -1 for the calls mpicast does not
 * record (local queries: Comm_rank, Cart_shift, Wtime, ...). */
static int op_of(int label)
{
    switch (label) {
    case DP_Send: return MC_OP_SEND;
    case DP_Bsend: return MC_OP_BSEND;
    case DP_Ssend: return MC_OP_SSEND;
    case DP_Rsend: return MC_OP_RSEND;
    case DP_Recv: return MC_OP_RECV;
    case DP_Isend: return MC_OP_ISEND;
    case DP_Ibsend: return MC_OP_IBSEND;
    case DP_Issend: return MC_OP_ISSEND;
    case DP_Irsend: return MC_OP_IRSEND;
    case DP_Irecv: return MC_OP_IRECV;
    case DP_Send_init: return MC_OP_SEND_INIT;
    case DP_Bsend_init: return MC_OP_BSEND_INIT;
    case DP_Ssend_init: return MC_OP_SSEND_INIT;
    case DP_Rsend_init: return MC_OP_RSEND_INIT;
    case DP_Recv_init: return MC_OP_RECV_INIT;
    case DP_Wait: return MC_OP_WAIT;
    case DP_Test: return MC_OP_TEST;
    case DP_Waitany: return MC_OP_WAITANY;
    case DP_Testany: return MC_OP_TESTANY;
    case DP_Waitall: return MC_OP_WAITALL;
    case DP_Testall: return MC_OP_TESTALL;
    case DP_Waitsome: return MC_OP_WAITSOME;
    case DP_Testsome: return MC_OP_TESTSOME;
    case DP_Request_free: return MC_OP_REQUEST_FREE;
    case DP_Start: return MC_OP_START;
    case DP_Startall: return MC_OP_STARTALL;
    case DP_Probe: return MC_OP_PROBE;
    case DP_Iprobe: return MC_OP_IPROBE;
    case DP_Sendrecv: return MC_OP_SENDRECV;
    case DP_Sendrecv_replace: return MC_OP_SENDRECV_REPLACE;
    case DP_Barrier: return MC_OP_BARRIER;
    case DP_Bcast: return MC_OP_BCAST;
    case DP_Gather: return MC_OP_GATHER;
    case DP_Scatter: return MC_OP_SCATTER;
    case DP_Allgather: return MC_OP_ALLGATHER;
    case DP_Alltoall: return MC_OP_ALLTOALL;
    case DP_Reduce: return MC_OP_REDUCE;
    case DP_Allreduce: return MC_OP_ALLREDUCE;
    case DP_Scan: return MC_OP_SCAN;
    case DP_Comm_dup: return MC_OP_COMM_DUP;
    case DP_Comm_split: return MC_OP_COMM_SPLIT;
    case DP_Comm_free: return MC_OP_COMM_FREE;
    case DP_Cart_create: return MC_OP_CART_CREATE;
    case DP_Init: return MC_OP_INIT;
    case DP_Finalize: return MC_OP_FINALIZE;
    default: return -1;
    }
}

static void p2p(conv *c, const dp_rec *rec, const dcomm *k, mc_event *e)
{
    const dp_file *d = c->d;
    int recv = rec->label == DP_Recv || rec->label == DP_Irecv || rec->label == DP_Recv_init;
    e->peer = world_of(k, rec->peer);
    e->bytes = dp_type_bytes(d, rec->count, rec->type);
    e->tag = rec->tag == DP_ANY_TAG && recv ? MC_ANY : rec->tag;
    if (recv && e->peer == MC_NONE)
        e->tag = MC_NONE;
    if (rec->label == DP_Recv) { /* the status, when DUMPI kept it, says who matched */
        if (rec->nst > 0 && rec->st[0].source >= 0) {
            e->peer = world_of(k, rec->st[0].source);
            e->tag = rec->st[0].tag;
            e->bytes2 = rec->st[0].bytes;
        } else {
            e->bytes2 = e->peer == MC_NONE ? 0 : e->bytes;
        }
    }
}

static void sendrecv(const dp_rec *rec, const dcomm *k, const dp_file *d, mc_event *e)
{
    e->peer = world_of(k, rec->peer);
    e->tag = rec->tag;
    e->bytes = dp_type_bytes(d, rec->count, rec->type);
    e->peer2 = world_of(k, rec->peer2);
    e->tag2 = rec->tag2 == DP_ANY_TAG ? MC_ANY : rec->tag2;
    e->bytes2 = dp_type_bytes(d, rec->count2, rec->type2);
    if (rec->nst > 0 && rec->st[0].source >= 0) {
        e->peer2 = world_of(k, rec->st[0].source);
        e->tag2 = rec->st[0].tag;
        e->bytes2 = rec->st[0].bytes;
    }
    if (e->peer2 == MC_NONE) {
        e->tag2 = MC_NONE;
        e->bytes2 = 0;
    }
}

/* Collectives as the tracer records them: bytes sent / received by this
 * rank (the root's side only at the root), peer the root, peer2 the size. */
static void collective(const dp_rec *rec, const dcomm *k, const dp_file *d, int me,
                       mc_event *e)
{
    e->peer2 = k ? k->size : 0;
    if (rec->label == DP_Bcast || rec->label == DP_Reduce || rec->label == DP_Gather ||
        rec->label == DP_Scatter)
        e->peer = world_of(k, rec->root);
    int64_t b1 = dp_type_bytes(d, rec->count, rec->type);
    int64_t b2 = dp_type_bytes(d, rec->count2, rec->type2);
    switch (rec->label) {
    case DP_Reduce: /* the result lands at the root only */
        e->bytes = b1;
        e->bytes2 = e->peer == me ? b1 : 0;
        break;
    case DP_Gather: /* own send block; the root's receive side (0 elsewhere) */
        e->bytes = b1;
        e->bytes2 = b2;
        break;
    case DP_Scatter: /* own receive block; the root's send side */
        e->bytes = b2;
        e->bytes2 = b1;
        break;
    default:
        e->bytes = b1;
        e->bytes2 = b2;
    }
}

static mc_err management(conv *c, const dp_rec *rec, mc_event *e, mc_error *err)
{
    drank *k = &c->x->ranks[c->r];
    if (rec->label == DP_Comm_free)
        return MC_OK;
    if (k->cur >= k->n)
        return mc_error_set(err, MC_ERR_INTERNAL, "%s: rank %d: creation %zu not collected",
                            c->d->path, c->r, k->cur);
    dcreate *cr = &k->c[k->cur++];
    e->newcomm = MC_COMM_NULL;
    e->peer2 = 0;
    if (rec->label == DP_Comm_split) {
        e->tag = rec->color;
        e->bytes = rec->key;
    }
    if (cr->result >= 0) {
        const dcomm *n = &c->x->comms[cr->result];
        if (set_map(k, cr->newidx, cr->result))
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        e->newcomm = n->id;
        e->peer2 = n->size;
        int64_t *v = vals_add(c, (size_t)n->size);
        if (!v)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        for (int32_t i = 0; i < n->size; i++)
            v[i] = n->members[i];
    }
    if (rec->label == DP_Cart_create && cr->result >= 0) {
        int64_t *v = vals_add(c, 1 + (size_t)rec->nints + (size_t)rec->nints2);
        if (!v)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        *v++ = rec->ndim;
        for (int32_t i = 0; i < rec->nints; i++)
            *v++ = rec->ints[i];
        for (int32_t i = 0; i < rec->nints2; i++)
            *v++ = rec->ints2[i] != 0;
    }
    return MC_OK;
}

static mc_err completion(conv *c, const dp_rec *rec, mc_event *e, mc_error *err)
{
    const dcomm *world = &c->x->comms[0];
    int bad = 0;
    switch (rec->label) {
    case DP_Wait:
    case DP_Test:
        if (rec->flag || rec->label == DP_Wait)
            bad = complete(c, world, rec->req, rec->nst > 0 ? &rec->st[0] : NULL);
        break;
    case DP_Waitany:
    case DP_Testany:
        if (rec->flag && rec->index >= 0 && rec->index < rec->nreqs)
            bad = complete(c, world, rec->reqs[rec->index], rec->nst > 0 ? &rec->st[0] : NULL);
        break;
    case DP_Waitall:
    case DP_Testall:
        for (int32_t i = 0; rec->flag && i < rec->nreqs && !bad; i++)
            bad = complete(c, world, rec->reqs[i], i < rec->nst ? &rec->st[i] : NULL);
        break;
    case DP_Waitsome:
    case DP_Testsome:
        for (int32_t i = 0; i < rec->nidx && !bad; i++)
            if (rec->idx[i] >= 0 && rec->idx[i] < rec->nreqs)
                bad = complete(c, world, rec->reqs[rec->idx[i]],
                               i < rec->nst ? &rec->st[i] : NULL);
        break;
    case DP_Request_free:
    case DP_Start:
    case DP_Startall: {
        int32_t n = rec->label == DP_Startall ? rec->nreqs : 1;
        for (int32_t i = 0; i < n && !bad; i++) {
            int32_t h = rec->label == DP_Startall ? rec->reqs[i] : rec->req;
            dreq *q = req_find(c, h);
            int64_t *v = vals_add(c, 1);
            bad = !v;
            if (v)
                *v = q ? q->id : 0;
            if (q && rec->label == DP_Request_free)
                *q = c->reqs[--c->nreqs];
        }
        break;
    }
    default:
        break;
    }
    (void)e;
    return bad ? mc_error_set(err, MC_ERR_NOMEM, "out of memory") : MC_OK;
}

/* One record as an mpicast event; 0 when the call is not one mpicast
 * records, -1 on error. */
static int convert(conv *c, const dp_rec *rec, mc_event *e, mc_error *err)
{
    int op = op_of(rec->label);
    if (op < 0)
        return 0;
    mc_event_clear(e);
    c->nvals = 0;
    e->op = op;
    e->t_start = rec->wall0 - c->x->epoch;
    e->t_end = rec->wall1 - c->x->epoch;
    e->cpu = rec->cpu0 >= 0 && c->prev_cpu >= 0 ? rec->cpu0 - c->prev_cpu : -1;
    c->prev_cpu = rec->cpu1;
    const dcomm *k = NULL;
    uint64_t id = MC_COMM_WORLD;
    mc_op_kind kind = mc_op_kind_of(op);
    if (kind == MC_KIND_M) /* none yet; elsewhere the stored default, 0 */
        e->newcomm = MC_COMM_NULL;
    if (kind == MC_KIND_P || kind == MC_KIND_C || kind == MC_KIND_M)
        k = comm_at(c, rec->comm, &id);
    e->comm = id;
    mc_err rc = MC_OK;
    switch (kind) {
    case MC_KIND_P:
        if (op == MC_OP_SENDRECV || op == MC_OP_SENDRECV_REPLACE) {
            sendrecv(rec, k, c->d, e);
        } else if (op == MC_OP_PROBE || op == MC_OP_IPROBE) {
            e->peer = world_of(k, rec->peer);
            e->tag = rec->tag == DP_ANY_TAG ? MC_ANY : rec->tag;
            e->bytes2 = rec->flag ? 1 : 0;
            if (rec->flag && rec->nst > 0 && rec->st[0].source >= 0) {
                e->peer2 = world_of(k, rec->st[0].source);
                e->tag2 = rec->st[0].tag;
            }
            if (op == MC_OP_PROBE) {
                e->peer = e->peer2;
                e->tag = e->tag2;
                e->peer2 = e->tag2 = MC_NONE;
                e->bytes2 = rec->nst > 0 ? rec->st[0].bytes : 0;
            }
        } else {
            p2p(c, rec, k, e);
        }
        if (rec->label == DP_Isend || rec->label == DP_Ibsend || rec->label == DP_Issend ||
            rec->label == DP_Irsend || rec->label == DP_Irecv ||
            mc_op_has(op, MC_OPF_PERSISTENT)) {
            dreq *q = req_new(c, rec->req);
            if (!q)
                return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
            q->recv = rec->label == DP_Irecv || rec->label == DP_Recv_init;
            q->persistent = mc_op_has(op, MC_OPF_PERSISTENT);
            q->peer = e->peer;
            q->tag = e->tag;
            q->bytes = e->bytes;
            e->req = q->id;
        }
        break;
    case MC_KIND_C:
        collective(rec, k, c->d, c->r, e);
        break;
    case MC_KIND_M:
        rc = management(c, rec, e, err);
        break;
    case MC_KIND_W:
        rc = completion(c, rec, e, err);
        break;
    default:
        if (op == MC_OP_PCONTROL)
            e->tag = rec->tag;
        break;
    }
    if (rc)
        return -1;
    e->nvals = (uint32_t)c->nvals;
    e->vals = c->vals;
    return 1;
}

static mc_err write_rank(dimp *x, int r, const char *outdir, mc_export_info *info,
                         int *used_self, mc_error *err)
{
    char path[4200];
    dp_rank_path(&x->t, r, path, sizeof path);
    dp_file d;
    mc_err rc = dp_open(&d, path, err);
    conv c = {.x = x, .r = r, .d = &d, .next_id = 1, .prev_cpu = -1};
    mc_writer *w = rc ? NULL : mc_writer_open(outdir, r, MC_WRITER_CPU, 0, err);
    if (!rc && !w)
        rc = err->code;
    dp_rec rec;
    mc_event e;
    int got = 0;
    while (!rc && (got = dp_next(&d, &rec, err)) == 1) {
        info->events++;
        int k = convert(&c, &rec, &e, err);
        if (k < 0)
            rc = err->code;
        else if (k > 0 && !(rc = mc_writer_add(w, &e, err)))
            info->written++;
        else if (k == 0)
            info->dropped++;
    }
    if (!rc && got < 0)
        rc = err->code;
    mc_err rc2 = mc_writer_close(w, rc ? NULL : err);
    *used_self |= c.used_self;
    dp_close(&d);
    free(c.reqs);
    free(c.vals);
    return rc ? rc : rc2;
}

static mc_err write_meta(dimp *x, const char *outdir, mc_error *err)
{
    mc_meta *m = mc_meta_create(x->n);
    if (!m)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mpicast import dumpi %s", x->t.meta);
    mc_err rc = mc_meta_set(m, "command", cmd, err);
    if (!rc)
        rc = mc_meta_set(m, "timer", "dumpi walltime", err);
    for (size_t i = 0; !rc && i < x->ncomms; i++)
        rc = mc_meta_add_comm(m, x->comms[i].id, x->comms[i].members, x->comms[i].size,
                              x->comms[i].size, err);
    if (!rc)
        rc = mc_meta_write(m, outdir, err);
    mc_meta_destroy(m);
    return rc;
}

static void dimp_free(dimp *x)
{
    for (int r = 0; x->ranks && r < x->n; r++) {
        free(x->ranks[r].c);
        free(x->ranks[r].map);
    }
    for (size_t i = 0; i < x->ncomms; i++)
        free(x->comms[i].members);
    free(x->ranks);
    free(x->comms);
    free(x->next_seq);
    dp_trace_free(&x->t);
}

static mc_err setup(dimp *x, const char *path, mc_error *err)
{
    mc_err rc = dp_locate(path, &x->t, err);
    if (rc)
        return rc;
    x->n = x->t.nranks;
    x->ranks = calloc((size_t)x->n, sizeof *x->ranks);
    x->next_seq = malloc((size_t)x->n * sizeof *x->next_seq);
    int32_t *world = malloc((size_t)x->n * sizeof *world);
    if (!x->ranks || !x->next_seq || !world) {
        free(world);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < x->n; r++) {
        x->ranks[r].self = -1;
        x->next_seq[r] = 1;
        world[r] = r;
    }
    int32_t w = add_comm(x, MC_COMM_WORLD, world, x->n);
    free(world);
    x->epoch = INT64_MAX;
    return w < 0 ? mc_error_set(err, MC_ERR_NOMEM, "out of memory") : MC_OK;
}

mc_err mc_import_dumpi(const char *path, const char *outdir, mc_export_info *info,
                       mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    dimp x = {0};
    mc_err rc = setup(&x, path, err);
    for (int r = 0; !rc && r < x.n; r++) {
        rc = collect_rank(&x, r, err);
        if (prog)
            mc_progress_update(prog, (uint64_t)r + 1, 2 * (uint64_t)x.n);
    }
    if (!rc && x.epoch == INT64_MAX)
        x.epoch = 0; /* no MPI_Init: times stay DUMPI's own */
    if (!rc)
        rc = resolve_comms(&x, err);
    int used_self = 0;
    for (int r = 0; !rc && r < x.n; r++) {
        rc = write_rank(&x, r, outdir, info, &used_self, err);
        if (prog)
            mc_progress_update(prog, (uint64_t)x.n + r + 1, 2 * (uint64_t)x.n);
    }
    if (!rc)
        rc = write_meta(&x, outdir, err);
    if (prog)
        mc_progress_done(prog);
    dimp_free(&x);
    return rc;
}

int mc_dumpi_is_trace(const char *path)
{
    return dp_is_trace(path);
}
