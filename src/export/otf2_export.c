/* mpicast export otf2: a trace directory as an OTF2 archive, with the
 * records Score-P writes for the same calls (docs/formats.md). */
#define MPICAST_EXPORT_INTERNAL
#include "otf2_common.h"

#include <stdlib.h>
#include <string.h>

/* Communicator of the export: OTF2 ref and world rank -> comm rank. */
typedef struct xcomm {
    uint64_t id;
    uint32_t ref;
    int32_t size;
    int32_t *crank; /* nranks entries, -1 for non-members */
} xcomm;

typedef struct xport {
    otf2w w;
    int nranks;
    const mc_meta *meta;
    lt_reqmap *reqs;  /* the live requests of the rank being written */
    int32_t *all;     /* 0..nranks-1 */
    xcomm *comms;
    size_t ncomms;
    uint32_t region[MC_OP_COUNT]; /* region ref per op + 1; 0: not defined yet */
} xport;

static int region_role(int op)
{
    switch (op) {
    case MC_OP_BARRIER: case MC_OP_IBARRIER: return OTF2_REGION_ROLE_BARRIER;
    case MC_OP_BCAST: case MC_OP_SCATTER: case MC_OP_SCATTERV: case MC_OP_IBCAST:
    case MC_OP_ISCATTER: case MC_OP_ISCATTERV:
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case MC_OP_REDUCE: case MC_OP_GATHER: case MC_OP_GATHERV: case MC_OP_IREDUCE:
    case MC_OP_IGATHER: case MC_OP_IGATHERV:
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    default:
        break;
    }
    switch (mc_op_kind_of(op)) {
    case MC_KIND_P: return OTF2_REGION_ROLE_POINT2POINT;
    case MC_KIND_C: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

static xcomm *comm_get(xport *x, uint64_t id)
{
    for (size_t i = 0; i < x->ncomms; i++)
        if (x->comms[i].id == id)
            return &x->comms[i];
    return NULL;
}

static int comm_add(xport *x, uint64_t id, const int32_t *members, int32_t size)
{
    if (comm_get(x, id))
        return 0;
    xcomm *v = realloc(x->comms, (x->ncomms + 1) * sizeof *v);
    if (!v)
        return -1;
    x->comms = v;
    xcomm *c = &v[x->ncomms];
    c->id = id;
    c->size = size;
    c->crank = malloc((size_t)x->nranks * sizeof *c->crank);
    if (!c->crank)
        return -1;
    for (int r = 0; r < x->nranks; r++)
        c->crank[r] = -1;
    for (int32_t k = 0; k < size; k++)
        if (members[k] >= 0 && members[k] < x->nranks)
            c->crank[members[k]] = k;
    c->ref = ow_comm_add(&x->w, id, members, size);
    if (c->ref == UINT32_MAX)
        return -1;
    x->ncomms++;
    return 0;
}

/* The communicators known before the events: the world and meta.json's. */
static int known_comms(xport *x)
{
    int bad = comm_add(x, MC_COMM_WORLD, x->all, x->nranks);
    for (size_t i = 0; !bad && x->meta && i < mc_meta_ncomms(x->meta); i++) {
        const mc_meta_comm *c = mc_meta_comm_at(x->meta, i);
        bad = comm_add(x, c->id, c->members, c->size);
    }
    return bad;
}

/* The communicators an event of rank r makes known: the one a communicator
 * call creates (its members in vals) and the rank's MPI_COMM_SELF. Each is
 * known before its first use on every rank that uses it. */
static int learn_comms(xport *x, int r, const mc_event *e)
{
    int bad = 0;
    if (mc_op_kind_of(e->op) == MC_KIND_M && e->op != MC_OP_COMM_FREE && e->nvals &&
        e->newcomm != MC_COMM_NULL && !comm_get(x, e->newcomm)) {
        int32_t sz = e->peer2 > 0 && (uint32_t)e->peer2 <= e->nvals ? e->peer2 : (int32_t)e->nvals;
        int32_t *m = malloc((size_t)sz * sizeof *m + 1);
        bad = !m;
        for (int32_t k = 0; m && k < sz; k++)
            m[k] = (int32_t)e->vals[k];
        if (m)
            bad = comm_add(x, e->newcomm, m, sz);
        free(m);
    }
    if (!bad && (e->comm & MC_COMM_SELF_BASE) == MC_COMM_SELF_BASE && e->comm != MC_COMM_NULL)
        bad = comm_add(x, e->comm, &x->all[r], 1);
    return bad;
}

/* A trace without meta.json (a run that crashed) may use ids no event
 * defines: each gets the ranks that use it, in rank order, from a first
 * pass over the trace (ids in first-use order, as the events name them). */
static int usage_comms(xport *x, const char *trace, mc_error *err)
{
    lt_stream *s = lt_stream_open(trace, err);
    if (!s)
        return -1;
    uint64_t *ids = NULL;
    unsigned char *users = NULL; /* nranks bytes per id */
    size_t n = 0;
    int bad = 0, rc = 0;
    mc_event e;
    for (int r = 0; !bad && r < x->nranks; r++)
        while (!bad && (rc = lt_stream_next(s, r, &e, err)) == 1) {
            bad = learn_comms(x, r, &e);
            if (bad || comm_get(x, e.comm))
                continue;
            size_t k = 0;
            while (k < n && ids[k] != e.comm)
                k++;
            if (k == n) {
                uint64_t *ni = realloc(ids, (n + 1) * sizeof *ni);
                unsigned char *nu = ni ? realloc(users, (n + 1) * (size_t)x->nranks) : NULL;
                if (ni)
                    ids = ni;
                if (!nu) {
                    bad = 1;
                    break;
                }
                users = nu;
                memset(users + n * (size_t)x->nranks, 0, (size_t)x->nranks);
                ids[n++] = e.comm;
            }
            users[k * (size_t)x->nranks + (size_t)r] = 1;
        }
    for (size_t k = 0; !bad && rc >= 0 && k < n; k++) {
        int32_t size = 0;
        int32_t *m = malloc((size_t)x->nranks * sizeof *m + 1);
        bad = !m;
        for (int q = 0; m && q < x->nranks; q++)
            if (users[k * (size_t)x->nranks + (size_t)q])
                m[size++] = q;
        if (m)
            bad = comm_add(x, ids[k], m, size);
        free(m);
    }
    if (bad && rc >= 0)
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    free(ids);
    free(users);
    lt_stream_close(s);
    return bad || rc < 0 ? -1 : 0;
}

static uint32_t crank(const xcomm *c, int32_t world)
{
    if (!c || world < 0 || c->crank[world] < 0)
        return OTF2_UNDEFINED_UINT32;
    return (uint32_t)c->crank[world];
}

/* Sizes in 128 bits: per-rank counts of a crafted trace (each up to 2^63)
 * summed or multiplied by the communicator size must not wrap. */
typedef unsigned __int128 u128;

static u128 sum_vals(const mc_event *e, uint32_t from, uint32_t n)
{
    u128 s = 0;
    for (uint32_t i = from; i < from + n && i < e->nvals; i++)
        s += e->vals[i] > 0 ? (u128)e->vals[i] : 0;
    return s;
}

static u128 pos(int64_t v)
{
    return v > 0 ? (u128)v : 0;
}

/* Bytes sent and received as Score-P's scorep_mpi_coll_bytes_* compute them;
 * -1 when one does not fit the 64 bits of OTF2's record. */
static int coll_sizes(const mc_event *e, const xcomm *c, int rank, uint64_t *sent, uint64_t *recvd)
{
    int64_t N = c ? c->size : 1, me = c && c->crank[rank] >= 0 ? c->crank[rank] : 0;
    int root = e->peer == rank;
    u128 n128 = pos(N), b = pos(e->bytes), b2 = pos(e->bytes2), S = 0, R = 0;
    uint32_t n = (uint32_t)N;
    switch (e->op) {
    case MC_OP_BCAST: S = root ? n128 * b : 0; R = b; break;
    case MC_OP_REDUCE: S = b; R = root ? n128 * b : 0; break;
    case MC_OP_GATHER: S = b; R = root ? n128 * b2 : 0; break;
    case MC_OP_SCATTER: S = root ? n128 * b : 0; R = b2; break;
    case MC_OP_ALLGATHER: case MC_OP_ALLTOALL: S = n128 * b; R = n128 * b2; break;
    case MC_OP_ALLREDUCE: case MC_OP_REDUCE_SCATTER_BLOCK: S = R = n128 * b; break;
    case MC_OP_SCAN: S = pos(N - me) * b; R = pos(me + 1) * b; break;
    case MC_OP_EXSCAN: S = pos(N - me - 1) * b; R = pos(me) * b; break;
    case MC_OP_GATHERV: S = b; R = root ? sum_vals(e, 0, n) : 0; break;
    case MC_OP_SCATTERV: S = root ? sum_vals(e, 0, n) : 0; R = b2; break;
    case MC_OP_ALLGATHERV: S = n128 * b; R = sum_vals(e, e->nvals >= n ? e->nvals - n : 0, n); break;
    case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW:
        S = sum_vals(e, 0, n);
        R = sum_vals(e, e->nvals >= 2 * n ? n : 0, n);
        break;
    case MC_OP_REDUCE_SCATTER:
        S = sum_vals(e, 0, n);
        R = n128 * ((uint32_t)me < e->nvals ? pos(e->vals[me]) : 0);
        break;
    default: break;
    }
    if (S > UINT64_MAX || R > UINT64_MAX)
        return -1;
    *sent = (uint64_t)S;
    *recvd = (uint64_t)R;
    return 0;
}

/* What a communicator call leaves that OTF2 has no field for (OW_CALL_ATTR,
 * an attribute of its Leave in *al), and the communicator it created as a
 * CommCreate event (Score-P's record), so that the import can rebuild the
 * event: extrapolation needs to know which call created which communicator
 * with which members and shape. */
static int comm_call_record(xport *x, OTF2_EvtWriter *ew, const mc_event *e, uint64_t t1,
                            OTF2_AttributeList **al)
{
    size_t cap = 160 + 21 * (size_t)e->nvals, n;
    char *s = malloc(cap);
    if (!s)
        return -1;
    const xcomm *c = comm_get(x, e->comm);
    n = (size_t)snprintf(s, cap, "comm=%u %d %d %lld %d %d %lld %u", c ? c->ref : 0, e->peer, e->tag,
                         (long long)e->bytes, e->peer2, e->tag2, (long long)e->bytes2, e->nvals);
    for (uint32_t k = 0; k < e->nvals && n < cap; k++)
        n += (size_t)snprintf(s + n, cap - n, " %lld", (long long)e->vals[k]);
    uint32_t sref = ow_string(&x->w, s);
    free(s);
    *al = OTF2_AttributeList_New();
    if (sref == UINT32_MAX || !*al ||
        OTF2_AttributeList_AddStringRef(*al, ow_call_attr(&x->w), sref) != OTF2_SUCCESS)
        return -1;
    const xcomm *nc = e->op != MC_OP_COMM_FREE && e->newcomm != MC_COMM_NULL
                          ? comm_get(x, e->newcomm) : NULL;
    if (nc && OTF2_EvtWriter_CommCreate(ew, NULL, t1, nc->ref) != OTF2_SUCCESS)
        return -1;
    if (e->op == MC_OP_COMM_FREE && c && OTF2_EvtWriter_CommDestroy(ew, NULL, t1, c->ref) != OTF2_SUCCESS)
        return -1;
    return 0;
}

static int write_event(xport *x, OTF2_EvtWriter *ew, int r, const mc_event *e)
{
    if (e->op < 0 || e->op >= MC_OP_COUNT)
        return 0; /* not an operation: nothing to write */
    if (!x->region[e->op]) {
        char name[64];
        snprintf(name, sizeof name, "MPI_%s", mc_op_name(e->op));
        uint32_t r = ow_region(&x->w, name, region_role(e->op), OTF2_PARADIGM_MPI);
        if (r == UINT32_MAX)
            return -1;
        x->region[e->op] = r + 1;
    }
    uint32_t reg = x->region[e->op] - 1;
    uint64_t t0 = ow_ts(&x->w, e->t_start), t1 = ow_ts(&x->w, e->t_end);
    const xcomm *c = comm_get(x, e->comm);
    uint32_t cref = c ? c->ref : 0;
    int ok = OTF2_EvtWriter_Enter(ew, NULL, t0, reg) == OTF2_SUCCESS;
    int tag = e->tag < 0 ? 0 : e->tag;
    switch (e->op) {
    case MC_OP_SEND: case MC_OP_SSEND: case MC_OP_BSEND: case MC_OP_RSEND:
    case MC_OP_SENDRECV: case MC_OP_SENDRECV_REPLACE:
        if (e->peer >= 0)
            ok &= OTF2_EvtWriter_MpiSend(ew, NULL, t0, crank(c, e->peer), cref, (uint32_t)tag,
                                         (uint64_t)e->bytes) == OTF2_SUCCESS;
        if (mc_op_has(e->op, MC_OPF_SENDRECV) && e->peer2 >= 0)
            ok &= OTF2_EvtWriter_MpiRecv(ew, NULL, t1, crank(c, e->peer2), cref,
                                         (uint32_t)(e->tag2 < 0 ? 0 : e->tag2),
                                         (uint64_t)e->bytes2) == OTF2_SUCCESS;
        break;
    case MC_OP_RECV:
        if (e->peer >= 0)
            ok &= OTF2_EvtWriter_MpiRecv(ew, NULL, t1, crank(c, e->peer), cref, (uint32_t)tag,
                                         (uint64_t)e->bytes2) == OTF2_SUCCESS;
        break;
    case MC_OP_ISEND: case MC_OP_ISSEND: case MC_OP_IBSEND: case MC_OP_IRSEND:
        if (e->peer >= 0)
            ok &= OTF2_EvtWriter_MpiIsend(ew, NULL, t0, crank(c, e->peer), cref, (uint32_t)tag,
                                          (uint64_t)e->bytes, e->req) == OTF2_SUCCESS;
        break;
    case MC_OP_IRECV:
        if (e->peer != MC_NONE)
            ok &= OTF2_EvtWriter_MpiIrecvRequest(ew, NULL, t0, e->req) == OTF2_SUCCESS;
        break;
    case MC_OP_START: case MC_OP_STARTALL:
        for (uint32_t k = 0; k < e->nvals; k++) {
            const lt_reqdef *d = lt_reqmap_get(x->reqs, (uint32_t)e->vals[k]);
            if (!d || d->peer < 0)
                continue;
            const xcomm *dc = comm_get(x, d->comm);
            if (d->op == MC_OP_RECV_INIT)
                ok &= OTF2_EvtWriter_MpiIrecvRequest(ew, NULL, t0, d->req) == OTF2_SUCCESS;
            else
                ok &= OTF2_EvtWriter_MpiIsend(ew, NULL, t0, crank(dc, d->peer), dc ? dc->ref : 0,
                                              (uint32_t)(d->tag < 0 ? 0 : d->tag), (uint64_t)d->bytes,
                                              d->req) == OTF2_SUCCESS;
        }
        break;
    default:
        if (mc_op_kind_of(e->op) == MC_KIND_W) {
            for (uint32_t k = 0; k + 3 < e->nvals; k += 4) {
                uint32_t id = (uint32_t)e->vals[k];
                const lt_reqdef *d = lt_reqmap_get(x->reqs, id);
                if (!d)
                    continue;
                if (d->op == MC_OP_IRECV || d->op == MC_OP_RECV_INIT) {
                    if (e->vals[k + 1] < 0)
                        continue; /* from MPI_PROC_NULL: no message */
                    const xcomm *dc = comm_get(x, d->comm);
                    ok &= OTF2_EvtWriter_MpiIrecv(ew, NULL, t1, crank(dc, (int32_t)e->vals[k + 1]),
                                                  dc ? dc->ref : 0, (uint32_t)e->vals[k + 2],
                                                  (uint64_t)e->vals[k + 3], id) == OTF2_SUCCESS;
                } else if (mc_op_has(d->op, MC_OPF_SEND | MC_OPF_SEND_INIT)) {
                    ok &= OTF2_EvtWriter_MpiIsendComplete(ew, NULL, t1, id) == OTF2_SUCCESS;
                }
            }
        } else if (mc_op_kind_of(e->op) == MC_KIND_C && ow_coll_op(e->op) >= 0) {
            uint64_t S, R;
            if (coll_sizes(e, c, r, &S, &R) != 0)
                return -2;
            ok &= OTF2_EvtWriter_MpiCollectiveBegin(ew, NULL, t0) == OTF2_SUCCESS;
            ok &= OTF2_EvtWriter_MpiCollectiveEnd(ew, NULL, t1, (OTF2_CollectiveOp)ow_coll_op(e->op), cref,
                                                  e->peer >= 0 ? crank(c, e->peer) : OTF2_UNDEFINED_UINT32,
                                                  S, R) == OTF2_SUCCESS;
        }
        break;
    }
    OTF2_AttributeList *al = NULL;
    if (mc_op_kind_of(e->op) == MC_KIND_M)
        ok &= comm_call_record(x, ew, e, t1, &al) == 0;
    ok &= OTF2_EvtWriter_Leave(ew, al, t1, reg) == OTF2_SUCCESS;
    OTF2_AttributeList_Delete(al);
    return ok ? 0 : -1;
}

static void xport_free(xport *x)
{
    for (size_t i = 0; i < x->ncomms; i++)
        free(x->comms[i].crank);
    free(x->comms);
    free(x->all);
    lt_reqmap_destroy(x->reqs);
}

/* Writes rank r's events; 0, or -1 with err filled. */
static int write_rank(xport *x, lt_stream *s, int r, const char *trace, const char *outdir,
                      mc_export_info *info, mc_error *err)
{
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(x->w.ar, (uint64_t)r);
    if (!ew)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot open the OTF2 event writer of rank %d",
                            outdir, r), -1;
    lt_reqmap_clear(x->reqs);
    mc_event e;
    int rc, fail = 0;
    for (uint64_t i = 0; !fail && (rc = lt_stream_next(s, r, &e, err)) == 1; i++) {
        lt_note_folded(info, &e);
        if (e.op == MC_OP_COMPUTE) {
            info->dropped++;
            continue;
        }
        int w = learn_comms(x, r, &e) ? -3 : write_event(x, ew, r, &e);
        if (!w && lt_reqmap_track(x->reqs, &e) != 0)
            w = -3;
        if (w == -2)
            mc_error_set(err, MC_ERR_FORMAT, "%s: rank %d event %llu (%s): the collective's "
                         "bytes sent or received exceed 2^64, more than OTF2 records", trace,
                         r, (unsigned long long)i, mc_op_name(e.op));
        else if (w == -3)
            mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
        else if (w)
            mc_error_set(err, MC_ERR_IO, "%s: writing the events of rank %d failed", outdir, r);
        fail = w != 0;
        info->written++;
    }
    OTF2_EvtWriter_GetNumberOfEvents(ew, &x->w.nevents[r]);
    OTF2_Archive_CloseEvtWriter(x->w.ar, ew);
    return fail || rc < 0 ? -1 : 0;
}

mc_err mc_export_otf2(const char *trace, const char *outdir, mc_export_info *info,
                      mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    lt_stream *s = lt_stream_open(trace, err);
    if (!s)
        return err && err->code ? err->code : MC_ERR_IO;
    xport x = {.nranks = lt_stream_nranks(s), .meta = lt_stream_meta(s)};
    x.reqs = lt_reqmap_create();
    x.all = malloc((size_t)(x.nranks > 0 ? x.nranks : 1) * sizeof *x.all);
    if (!x.reqs || !x.all) {
        xport_free(&x);
        lt_stream_close(s);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    }
    for (int r = 0; r < x.nranks; r++)
        x.all[r] = r;
    mc_err rc = ow_open(&x.w, outdir, x.nranks, (uint64_t)-lt_stream_tmin(s), err);
    if (rc) {
        xport_free(&x);
        lt_stream_close(s);
        return rc;
    }
    int fail = known_comms(&x);
    if (fail)
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    if (!fail && !x.meta)
        fail = usage_comms(&x, trace, err);
    for (int r = 0; !fail && r < x.nranks; r++) {
        fail = write_rank(&x, s, r, trace, outdir, info, err);
        mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)x.nranks);
    }
    info->events = lt_stream_events(s);
    rc = ow_close(&x.w, fail, err);
    mc_progress_done(prog);
    xport_free(&x);
    lt_stream_close(s);
    return rc;
}
