/* mpicast export otf2: a trace directory as an OTF2 archive, with the
 * records Score-P writes for the same calls (docs/formats.md). */
#define MC_EXPORT_INTERNAL
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
    const loaded_trace *t;
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
    c->crank = malloc((size_t)x->t->nranks * sizeof *c->crank);
    if (!c->crank)
        return -1;
    for (int r = 0; r < x->t->nranks; r++)
        c->crank[r] = -1;
    for (int32_t k = 0; k < size; k++)
        if (members[k] >= 0 && members[k] < x->t->nranks)
            c->crank[members[k]] = k;
    c->ref = ow_comm_add(&x->w, id, members, size);
    if (c->ref == UINT32_MAX)
        return -1;
    x->ncomms++;
    return 0;
}

/* Every communicator the events use: meta.json's, those created by
 * communicator calls, MPI_COMM_SELF, and for any other id the ranks that
 * use it (a trace without meta.json). */
static int collect_comms(xport *x)
{
    const loaded_trace *t = x->t;
    int n = t->nranks;
    int32_t *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return -1;
    for (int r = 0; r < n; r++)
        all[r] = r;
    int bad = comm_add(x, MC_COMM_WORLD, all, n);
    for (size_t i = 0; !bad && t->meta && i < mc_meta_ncomms(t->meta); i++) {
        const mc_meta_comm *c = mc_meta_comm_at(t->meta, i);
        bad = comm_add(x, c->id, c->members, c->size);
    }
    for (int r = 0; !bad && r < n; r++)
        for (size_t i = 0; !bad && i < t->ranks[r].n; i++) {
            const mc_event *e = &t->ranks[r].ev[i];
            if (mc_op_kind_of(e->op) == MC_KIND_M && e->op != MC_OP_COMM_FREE && e->nvals &&
                e->newcomm != MC_COMM_NULL) {
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
                bad = comm_add(x, e->comm, &all[r], 1);
        }
    /* unknown ids: the ranks using them, in rank order */
    for (int r = 0; !bad && r < n; r++)
        for (size_t i = 0; !bad && i < t->ranks[r].n; i++) {
            uint64_t id = t->ranks[r].ev[i].comm;
            if (comm_get(x, id))
                continue;
            int32_t k = 0;
            for (int q = 0; q < n; q++) {
                int uses = 0;
                for (size_t j = 0; j < t->ranks[q].n && !uses; j++)
                    uses = t->ranks[q].ev[j].comm == id;
                if (uses)
                    all[k++] = q;
            }
            bad = comm_add(x, id, all, k);
            for (int q = 0; q < n; q++)
                all[q] = q;
        }
    free(all);
    return bad ? -1 : 0;
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

static const mc_event *req_def(const lt_rank *rk, size_t upto, uint32_t id)
{
    return lt_find_req(rk, upto, id, NULL);
}

static int write_event(xport *x, OTF2_EvtWriter *ew, int r, size_t i)
{
    const lt_rank *rk = &x->t->ranks[r];
    const mc_event *e = &rk->ev[i];
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
        if (e->op >= MC_OP_SENDRECV && e->op <= MC_OP_SENDRECV_REPLACE && e->peer2 >= 0)
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
            const mc_event *d = req_def(rk, i, (uint32_t)e->vals[k]);
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
                const mc_event *d = req_def(rk, i, id);
                if (!d)
                    continue;
                if (d->op == MC_OP_IRECV || d->op == MC_OP_RECV_INIT) {
                    if (e->vals[k + 1] < 0)
                        continue; /* from MPI_PROC_NULL: no message */
                    const xcomm *dc = comm_get(x, d->comm);
                    ok &= OTF2_EvtWriter_MpiIrecv(ew, NULL, t1, crank(dc, (int32_t)e->vals[k + 1]),
                                                  dc ? dc->ref : 0, (uint32_t)e->vals[k + 2],
                                                  (uint64_t)e->vals[k + 3], id) == OTF2_SUCCESS;
                } else if (lt_is_send(d->op) || (d->op >= MC_OP_SEND_INIT && d->op <= MC_OP_RSEND_INIT)) {
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

mc_err mc_export_otf2(const char *trace, const char *outdir, mc_export_info *info,
                      mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    loaded_trace *t = lt_load(trace, prog, err);
    if (!t)
        return err && err->code ? err->code : MC_ERR_IO;
    info->events = t->events;
    int64_t tmin = 0;
    for (int r = 0; r < t->nranks; r++)
        if (t->ranks[r].n && t->ranks[r].ev[0].t_start < tmin)
            tmin = t->ranks[r].ev[0].t_start;
    xport x = {.t = t};
    mc_err rc = ow_open(&x.w, outdir, t->nranks, (uint64_t)-tmin, err);
    if (rc) {
        lt_free(t);
        return rc;
    }
    int fail = collect_comms(&x);
    if (fail)
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (int r = 0; !fail && r < t->nranks; r++) {
        OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(x.w.ar, (uint64_t)r);
        if (!ew) {
            fail = 1;
            mc_error_set(err, MC_ERR_IO, "%s: cannot open the OTF2 event writer of rank %d", outdir, r);
            break;
        }
        for (size_t i = 0; !fail && i < t->ranks[r].n; i++) {
            if (t->ranks[r].ev[i].op == MC_OP_COMPUTE) {
                info->dropped++;
                continue;
            }
            int w = write_event(&x, ew, r, i);
            if (w == -2)
                mc_error_set(err, MC_ERR_FORMAT, "%s: rank %d event %zu (%s): the collective's "
                             "bytes sent or received exceed 2^64, more than OTF2 records", trace,
                             r, i, mc_op_name(t->ranks[r].ev[i].op));
            else if (w)
                mc_error_set(err, MC_ERR_IO, "%s: writing the events of rank %d failed", outdir, r);
            fail = w != 0;
            info->written++;
        }
        OTF2_EvtWriter_GetNumberOfEvents(ew, &x.w.nevents[r]);
        OTF2_Archive_CloseEvtWriter(x.w.ar, ew);
        mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)t->nranks);
    }
    rc = ow_close(&x.w, fail, err);
    mc_progress_done(prog);
    for (size_t i = 0; i < x.ncomms; i++)
        free(x.comms[i].crank);
    free(x.comms);
    lt_free(t);
    return rc;
}
