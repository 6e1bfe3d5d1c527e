/* mpicast export dumpi: any input as a DUMPI trace (format 13.0.0) for
 * SST/macro, CODES and dumpi2ascii. Streamed: one rank's events are read,
 * converted and written before the next rank is opened, so memory is one
 * rank's communicator table whatever the number of ranks (pseudo-traces of
 * 10^6 ranks). Layout: dumpi_format.h; mapping and losses: docs/formats.md. */
#define MPICAST_EXPORT_INTERNAL
#include "dumpi_format.h"
#include "export_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpicast/export.h"
#include "mpicast/format.h"
#include "mpicast/input.h"
#include "mpicast/outfile.h"

/* Exported wall times are the trace's plus this many seconds, so that the
 * negative entry time of MPI_Init (the trace epoch is its exit) stays
 * positive in DUMPI's unsigned seconds. */
#define DP_EPOCH_S 1000

typedef struct wcomm {
    uint64_t id;
    int idx;                /* DUMPI index on this rank */
    int32_t size;
    int32_t *members;       /* NULL: the world (identity) */
} wcomm;

typedef struct wrank {
    FILE *f;                /* the rank file's temporary (mc_out) */
    const char *path;
    int rank, nranks;
    const mc_meta *meta;
    wcomm *comms;
    size_t ncomms, cap;
    int next_idx;
    uint32_t counts[DP_ALL_FUNCTIONS + 1];
    int64_t cpu_clock;
    int cpu;
    mc_export_info *info;
} wrank;

/* ---------------------------------------------------------------- bytes */

static void p8(wrank *w, uint8_t v) { putc(v, w->f); }
static void p16(wrank *w, uint16_t v) { p8(w, (uint8_t)(v >> 8)); p8(w, (uint8_t)v); }
static void p32(wrank *w, uint32_t v) { p16(w, (uint16_t)(v >> 16)); p16(w, (uint16_t)v); }
static void p64(wrank *w, uint64_t v) { p32(w, (uint32_t)(v >> 32)); p32(w, (uint32_t)v); }
static void pstr(wrank *w, const char *s)
{
    size_t n = strlen(s);
    p16(w, (uint16_t)n);
    fwrite(s, 1, n, w->f);
}

/* ---------------------------------------------------------------- comms */

static wcomm *comm_add(wrank *w, uint64_t id, int idx, const int64_t *members, int32_t size)
{
    if (w->ncomms == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        wcomm *c = realloc(w->comms, cap * sizeof *c);
        if (!c)
            return NULL;
        w->comms = c;
        w->cap = cap;
    }
    wcomm *c = &w->comms[w->ncomms];
    c->id = id;
    c->idx = idx;
    c->size = size;
    c->members = NULL;
    if (members) {
        if (!(c->members = malloc(((size_t)size + 1) * sizeof *c->members)))
            return NULL;
        for (int32_t i = 0; i < size; i++)
            c->members[i] = (int32_t)members[i];
    }
    w->ncomms++;
    return c;
}

/* The communicator of id on this rank: the latest with that id. Unknown ids
 * (created by a call DUMPI cannot express) take their members from meta. */
static const wcomm *comm_find(wrank *w, uint64_t id)
{
    for (size_t i = w->ncomms; i-- > 0;)
        if (w->comms[i].id == id)
            return &w->comms[i];
    if (id == (MC_COMM_SELF_BASE | (uint64_t)w->rank)) {
        int64_t me = w->rank;
        return comm_add(w, id, DP_COMM_SELF, &me, 1);
    }
    const mc_meta_comm *m = w->meta ? mc_meta_comm_find(w->meta, id) : NULL;
    if (!m)
        return NULL;
    int64_t *v = malloc(((size_t)m->size + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (int32_t i = 0; i < m->size; i++)
        v[i] = m->members[i];
    const wcomm *c = comm_add(w, id, w->next_idx++, v, m->size);
    free(v);
    return c;
}

static int comm_idx(wrank *w, uint64_t id)
{
    const wcomm *c = comm_find(w, id);
    return c ? c->idx : DP_COMM_NULL;
}

/* Comm rank of world rank `peer`: DUMPI's source/dest/root. */
static int32_t rank_in(wrank *w, uint64_t id, int32_t peer)
{
    if (peer == MC_ANY)
        return DP_ANY_SOURCE;
    if (peer < 0)
        return DP_PROC_NULL;
    const wcomm *c = comm_find(w, id);
    if (!c || !c->members)
        return peer;
    for (int32_t i = 0; i < c->size; i++)
        if (c->members[i] == peer)
            return i;
    return DP_PROC_NULL;
}

/* ---------------------------------------------------------------- records */

static void times_of(wrank *w, const mc_event *e)
{
    int64_t cpu0 = w->cpu_clock + (e->cpu > 0 ? e->cpu : 0);
    int64_t t0 = e->t_start + (int64_t)DP_EPOCH_S * 1000000000;
    int64_t t1 = e->t_end + (int64_t)DP_EPOCH_S * 1000000000;
    if (t0 < 0)
        t0 = 0;
    if (t1 < t0)
        t1 = t0;
    if (w->cpu) { /* the call's own CPU time is not traced: 0 */
        p16(w, (uint16_t)(cpu0 / 1000000000));
        p32(w, (uint32_t)(cpu0 % 1000000000));
        p16(w, (uint16_t)(cpu0 / 1000000000));
        p32(w, (uint32_t)(cpu0 % 1000000000));
        w->cpu_clock = cpu0;
    }
    p16(w, (uint16_t)(t0 / 1000000000));
    p32(w, (uint32_t)(t0 % 1000000000));
    p16(w, (uint16_t)(t1 / 1000000000));
    p32(w, (uint32_t)(t1 % 1000000000));
}

static void head(wrank *w, int label, const mc_event *e)
{
    p16(w, (uint16_t)label);
    p8(w, (uint8_t)(DP_MASK_STATUS | DP_MASK_WALL | DP_MASK_THREAD | (w->cpu ? DP_MASK_CPU : 0)));
    p16(w, 0); /* thread */
    times_of(w, e);
    w->counts[label]++;
    w->counts[DP_ALL_FUNCTIONS]++;
}

static uint32_t count_of(int64_t bytes) { return bytes > 0 && bytes < INT32_MAX ? (uint32_t)bytes : 0; }

/* count (bytes of MPI_BYTE), datatype, peer, tag, comm */
static void envelope(wrank *w, int64_t bytes, uint64_t comm, int32_t peer, int32_t tag)
{
    p32(w, count_of(bytes));
    p16(w, DP_BYTE);
    p32(w, (uint32_t)rank_in(w, comm, peer));
    p32(w, (uint32_t)(tag == MC_ANY ? DP_ANY_TAG : tag));
    p16(w, (uint16_t)comm_idx(w, comm));
}

static uint32_t handle_of(int64_t id) { return id > 0 ? (uint32_t)id + 1 : DP_REQUEST_NULL; }

static int label_of(int op)
{
    switch (op) {
    case MC_OP_SEND: return DP_Send;
    case MC_OP_BSEND: return DP_Bsend;
    case MC_OP_SSEND: return DP_Ssend;
    case MC_OP_RSEND: return DP_Rsend;
    case MC_OP_RECV: return DP_Recv;
    case MC_OP_ISEND: return DP_Isend;
    case MC_OP_IBSEND: return DP_Ibsend;
    case MC_OP_ISSEND: return DP_Issend;
    case MC_OP_IRSEND: return DP_Irsend;
    case MC_OP_IRECV: return DP_Irecv;
    case MC_OP_SEND_INIT: return DP_Send_init;
    case MC_OP_BSEND_INIT: return DP_Bsend_init;
    case MC_OP_SSEND_INIT: return DP_Ssend_init;
    case MC_OP_RSEND_INIT: return DP_Rsend_init;
    case MC_OP_RECV_INIT: return DP_Recv_init;
    case MC_OP_WAIT: return DP_Wait;
    case MC_OP_TEST: return DP_Test;
    case MC_OP_WAITALL: return DP_Waitall;
    case MC_OP_WAITANY: return DP_Waitany;
    case MC_OP_WAITSOME: return DP_Waitsome;
    case MC_OP_REQUEST_FREE: return DP_Request_free;
    case MC_OP_START: return DP_Start;
    case MC_OP_STARTALL: return DP_Startall;
    case MC_OP_SENDRECV: return DP_Sendrecv;
    case MC_OP_SENDRECV_REPLACE: return DP_Sendrecv_replace;
    case MC_OP_BARRIER: return DP_Barrier;
    case MC_OP_BCAST: return DP_Bcast;
    case MC_OP_GATHER: return DP_Gather;
    case MC_OP_SCATTER: return DP_Scatter;
    case MC_OP_ALLGATHER: return DP_Allgather;
    case MC_OP_ALLTOALL: return DP_Alltoall;
    case MC_OP_REDUCE: return DP_Reduce;
    case MC_OP_ALLREDUCE: return DP_Allreduce;
    case MC_OP_SCAN: return DP_Scan;
    case MC_OP_COMM_DUP: return DP_Comm_dup;
    case MC_OP_COMM_SPLIT: return DP_Comm_split;
    case MC_OP_COMM_FREE: return DP_Comm_free;
    case MC_OP_CART_CREATE: return DP_Cart_create;
    case MC_OP_INIT: return DP_Init;
    case MC_OP_FINALIZE: return DP_Finalize;
    default: return -1;
    }
}

/* The new communicator of a management call: its DUMPI index (COMM_NULL
 * when this rank is not a member). */
static int new_comm(wrank *w, const mc_event *e)
{
    if (e->newcomm == MC_COMM_NULL || e->peer2 <= 0 || e->nvals < (uint32_t)e->peer2)
        return DP_COMM_NULL;
    const wcomm *c = comm_add(w, e->newcomm, w->next_idx++, e->vals, e->peer2);
    return c ? c->idx : DP_COMM_NULL;
}

static void init_args(wrank *w)
{
    const char *cmd = w->meta ? mc_meta_get(w->meta, "command") : NULL;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", cmd ? cmd : "");
    uint32_t argc = 0;
    for (char *s = strtok(buf, " "); s; s = strtok(NULL, " "))
        argc++;
    p32(w, argc);
    snprintf(buf, sizeof buf, "%s", cmd ? cmd : "");
    for (char *s = strtok(buf, " "); s; s = strtok(NULL, " ")) {
        p32(w, (uint32_t)strlen(s));
        fwrite(s, 1, strlen(s), w->f);
    }
}

static int my_comm_rank(wrank *w, uint64_t comm) { return rank_in(w, comm, w->rank); }

/* Writes one event; 0 when DUMPI cannot express it (dropped). */
static int record(wrank *w, const mc_event *e)
{
    int label = label_of(e->op);
    if (label < 0)
        return 0;
    if ((e->op == MC_OP_WAITANY || e->op == MC_OP_WAITSOME) && e->nvals < 4)
        return 0;
    head(w, label, e);
    switch (label) {
    case DP_Send: case DP_Bsend: case DP_Ssend: case DP_Rsend:
        envelope(w, e->bytes, e->comm, e->peer, e->tag);
        break;
    case DP_Recv:
        envelope(w, e->bytes, e->comm, e->peer, e->tag);
        if (e->bytes2 == e->bytes || e->peer < 0) {
            p32(w, 0); /* status ignored: the source above is the matched one */
        } else { /* a shorter message than the buffer: the status says so */
            p32(w, 1);
            p32(w, count_of(e->bytes2));
            p32(w, (uint32_t)rank_in(w, e->comm, e->peer));
            p8(w, 0);
            p8(w, 0);
            p32(w, (uint32_t)e->tag);
        }
        break;
    case DP_Isend: case DP_Ibsend: case DP_Issend: case DP_Irsend: case DP_Irecv:
    case DP_Send_init: case DP_Bsend_init: case DP_Ssend_init: case DP_Rsend_init:
    case DP_Recv_init:
        envelope(w, e->bytes, e->comm, e->peer, e->tag);
        p32(w, handle_of(e->req));
        break;
    case DP_Wait:
        p32(w, handle_of(e->nvals >= 4 ? e->vals[0] : 0));
        p32(w, 0);
        break;
    case DP_Test:
        p32(w, handle_of(e->nvals >= 4 ? e->vals[0] : 0));
        p32(w, e->nvals >= 4);
        p32(w, 0);
        break;
    case DP_Waitall: case DP_Waitsome: case DP_Waitany: {
        uint32_t n = e->nvals / 4;
        p32(w, n);
        p32(w, n);
        for (uint32_t i = 0; i < n; i++)
            p32(w, handle_of(e->vals[4 * i]));
        if (label == DP_Waitany) {
            p32(w, 0); /* index */
            p32(w, 0);
        } else if (label == DP_Waitsome) {
            p32(w, n);
            p32(w, n);
            for (uint32_t i = 0; i < n; i++)
                p32(w, i);
            p32(w, 0);
        } else {
            p32(w, 0);
        }
        break;
    }
    case DP_Request_free: case DP_Start:
        p32(w, handle_of(e->nvals ? e->vals[0] : 0));
        break;
    case DP_Startall:
        p32(w, e->nvals);
        p32(w, e->nvals);
        for (uint32_t i = 0; i < e->nvals; i++)
            p32(w, handle_of(e->vals[i]));
        break;
    case DP_Sendrecv:
        envelope(w, e->bytes, e->comm, e->peer, e->tag);
        w->counts[label] += 0;
        fseek(w->f, -2, SEEK_CUR); /* the comm comes after the receive side */
        p32(w, count_of(e->bytes2));
        p16(w, DP_BYTE);
        p32(w, (uint32_t)rank_in(w, e->comm, e->peer2));
        p32(w, (uint32_t)(e->tag2 == MC_ANY ? DP_ANY_TAG : e->tag2));
        p16(w, (uint16_t)comm_idx(w, e->comm));
        p32(w, 0);
        break;
    case DP_Sendrecv_replace:
        envelope(w, e->bytes, e->comm, e->peer, e->tag);
        fseek(w->f, -2, SEEK_CUR);
        p32(w, (uint32_t)rank_in(w, e->comm, e->peer2));
        p32(w, (uint32_t)(e->tag2 == MC_ANY ? DP_ANY_TAG : e->tag2));
        p16(w, (uint16_t)comm_idx(w, e->comm));
        p32(w, 0);
        break;
    case DP_Barrier:
        p16(w, (uint16_t)comm_idx(w, e->comm));
        break;
    case DP_Bcast:
        p32(w, count_of(e->bytes));
        p16(w, DP_BYTE);
        p32(w, (uint32_t)rank_in(w, e->comm, e->peer));
        p16(w, (uint16_t)comm_idx(w, e->comm));
        break;
    case DP_Reduce: case DP_Allreduce: case DP_Scan:
        p32(w, count_of(e->bytes));
        p16(w, DP_BYTE);
        p8(w, DP_OP_SUM);
        if (label == DP_Reduce)
            p32(w, (uint32_t)rank_in(w, e->comm, e->peer));
        p16(w, (uint16_t)comm_idx(w, e->comm));
        break;
    case DP_Gather: case DP_Scatter: {
        int32_t me = my_comm_rank(w, e->comm), root = rank_in(w, e->comm, e->peer);
        int gather = label == DP_Gather;
        p32(w, (uint32_t)me);
        p32(w, count_of(gather ? e->bytes : e->bytes2));
        p16(w, DP_BYTE);
        p32(w, (uint32_t)root);
        p16(w, (uint16_t)comm_idx(w, e->comm));
        if (me == root) {
            p32(w, count_of(gather ? e->bytes2 : e->bytes));
            p16(w, DP_BYTE);
        }
        break;
    }
    case DP_Allgather: case DP_Alltoall:
        p32(w, count_of(e->bytes));
        p16(w, DP_BYTE);
        p32(w, count_of(e->bytes2));
        p16(w, DP_BYTE);
        p16(w, (uint16_t)comm_idx(w, e->comm));
        break;
    case DP_Comm_dup:
        p16(w, (uint16_t)comm_idx(w, e->comm));
        p16(w, (uint16_t)new_comm(w, e));
        break;
    case DP_Comm_split:
        p16(w, (uint16_t)comm_idx(w, e->comm));
        p32(w, (uint32_t)e->tag);
        p32(w, (uint32_t)e->bytes);
        p16(w, (uint16_t)new_comm(w, e));
        break;
    case DP_Comm_free:
        p16(w, (uint16_t)comm_idx(w, e->comm));
        break;
    case DP_Cart_create: {
        uint32_t at = e->peer2 > 0 ? (uint32_t)e->peer2 : 0;
        int32_t nd = at < e->nvals ? (int32_t)e->vals[at] : 0;
        if (nd < 0 || at + 1 + 2 * (uint32_t)nd > e->nvals)
            nd = 0;
        p16(w, (uint16_t)comm_idx(w, e->comm));
        p32(w, (uint32_t)nd);
        for (int side = 0; side < 2; side++) {
            p32(w, (uint32_t)nd);
            for (int32_t i = 0; i < nd; i++)
                p32(w, (uint32_t)e->vals[at + 1 + (uint32_t)(side * nd + i)]);
        }
        p32(w, 0); /* reorder */
        p16(w, (uint16_t)new_comm(w, e));
        break;
    }
    case DP_Init:
        init_args(w);
        break;
    default: /* Finalize: no arguments */
        break;
    }
    return 1;
}

/* ---------------------------------------------------------------- file */

static void tail(wrank *w, uint64_t body)
{
    p16(w, DP_END_OF_STREAM);
    uint64_t header = (uint64_t)ftell(w->f);
    p8(w, 13);
    p8(w, 0);
    p8(w, 0);
    p64(w, 0); /* start time */
    pstr(w, "mpicast");
    pstr(w, "<none>");
    p32(w, 0); /* mesh coordinates and sizes */
    p32(w, 0);
    uint64_t footer = (uint64_t)ftell(w->f);
    p64(w, DP_FOOT_MAGIC);
    for (int i = 0; i <= DP_ALL_FUNCTIONS; i++)
        p32(w, w->counts[i]);
    for (int i = 0; i <= DP_ALL_FUNCTIONS; i++)
        p32(w, 0);
    p32(w, 0); /* keyval record */
    uint64_t perf = (uint64_t)ftell(w->f);
    p32(w, 0);
    uint64_t sizes = (uint64_t)ftell(w->f);
    p32(w, DP_NSIZES);
    for (int i = 0; i < DP_NSIZES; i++)
        p32(w, (uint32_t)dp_type_sizes[i]);
    uint64_t addr = (uint64_t)ftell(w->f);
    p32(w, 0);
    p64(w, DP_MAGIC);
    p64(w, sizes);
    p64(w, addr);
    p64(w, perf);
    p64(w, header);
    p64(w, body);
    p64(w, footer);
    p64(w, 0);
}

/* Adds op to info->dropped_ops once (the warning names every kind lost). */
static void name_dropped(mc_export_info *info, int op)
{
    const char *name = mc_op_name(op);
    size_t len = strlen(info->dropped_ops), n = strlen(name);
    for (const char *at = info->dropped_ops; (at = strstr(at, name)) != NULL; at += n)
        if ((at == info->dropped_ops || at[-1] == ' ') && (at[n] == ',' || at[n] == 0))
            return;
    if (len + n + 3 < sizeof info->dropped_ops)
        snprintf(info->dropped_ops + len, sizeof info->dropped_ops - len, "%s%s",
                 len ? ", " : "", name);
}

/* One rank file, written to a temporary renamed into place when complete
 * (outfile.h): one file open at a time, whatever the rank count. */
static mc_err write_rank(mc_source *src, wrank *w, mc_error *err)
{
    mc_out o = {.fd = -1};
    mc_err rc = mc_out_open(&o, w->path, 0, err);
    if (rc)
        return rc;
    w->f = o.f;
    p64(w, DP_MAGIC);
    uint64_t body = (uint64_t)ftell(w->f);
    p32(w, 0); /* cpu and wall time offsets: times are written whole */
    p32(w, 0);
    mc_event e;
    int got;
    int first = 1;
    while ((got = mc_source_next(src, w->rank, &e, err)) == 1) {
        if (first) /* CPU times when the trace has them */
            w->cpu = e.cpu >= 0 || e.op == MC_OP_INIT;
        first = 0;
        w->info->events++;
        lt_note_folded(w->info, &e);
        if (record(w, &e)) {
            w->info->written++;
        } else if (e.op != MC_OP_COMPUTE) {
            if (!w->info->dropped++)
                snprintf(w->info->first_dropped, sizeof w->info->first_dropped, "%s",
                         mc_op_name(e.op));
            name_dropped(w->info, e.op);
        }
    }
    tail(w, body);
    if (got < 0 || ferror(w->f)) {
        mc_out_abort(&o);
        return got < 0 ? err->code : mc_error_set(err, MC_ERR_IO, "%s: write failed", w->path);
    }
    return mc_out_commit(&o, err);
}

static mc_err write_meta(const char *outdir, const char *prefix, int nranks, mc_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.meta", outdir, prefix);
    mc_out o = {.fd = -1};
    mc_err rc = mc_out_open(&o, path, 0, err);
    if (rc)
        return rc;
    fprintf(o.f, "hostname=mpicast\nnumprocs=%d\nusername=<none>\nstartime=0\nfileprefix=%s\n"
                 "version=13\nsubversion=0\nsubsubversion=0\n", nranks, prefix);
    if (ferror(o.f)) {
        mc_out_abort(&o);
        return mc_error_set(err, MC_ERR_IO, "%s: write failed", path);
    }
    return mc_out_commit(&o, err);
}

mc_err mc_export_dumpi_source(mc_source *src, const char *outdir, const char *prefix,
                              mc_export_info *info, mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (!prefix || !*prefix)
        prefix = "dumpi-mpicast";
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot create: %s", outdir, strerror(errno));
    mc_err rc = MC_OK;
    for (int r = 0; !rc && r < src->nranks; r++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s-%04d.bin", outdir, prefix, r);
        wrank w = {.path = path, .rank = r, .nranks = src->nranks,
                   .meta = mc_source_meta(src), .next_idx = DP_FIRST_USER_COMM, .info = info};
        if (!comm_add(&w, MC_COMM_WORLD, DP_COMM_WORLD, NULL, src->nranks))
            rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = write_rank(src, &w, err);
        for (size_t i = 0; i < w.ncomms; i++)
            free(w.comms[i].members);
        free(w.comms);
        if (prog)
            mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)src->nranks);
    }
    if (!rc)
        rc = write_meta(outdir, prefix, src->nranks, err);
    if (prog)
        mc_progress_done(prog);
    return rc;
}

mc_err mc_export_dumpi(const char *trace, const char *outdir, const char *prefix,
                       mc_export_info *info, mc_progress *prog, mc_error *err)
{
    mc_source *src = mc_input_open(trace, err);
    if (!src)
        return err->code;
    mc_err rc = mc_export_dumpi_source(src, outdir, prefix, info, prog, err);
    mc_source_close(src);
    return rc;
}
