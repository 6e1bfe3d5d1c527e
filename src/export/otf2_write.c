/* Writing OTF2 archives: the archive lifecycle and the definitions. */
#define MPICAST_EXPORT_INTERNAL
#include "otf2_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    (void)user; (void)type; (void)loc; (void)caller; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user; (void)type; (void)loc;
    return 0;
}

static OTF2_FlushCallbacks flush_cb = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

static OTF2_ErrorCode quiet_cb(void *user, const char *file, uint64_t line, const char *fn,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user; (void)file; (void)line; (void)fn; (void)fmt; (void)va;
    return code;
}

void ow_quiet(void)
{
    OTF2_Error_RegisterCallback(quiet_cb, NULL);
}

mc_err ow_open(otf2w *w, const char *dir, int nlocs, uint64_t offset, mc_error *err)
{
    memset(w, 0, sizeof *w);
    ow_quiet();
    w->dir = dir;
    w->nlocs = nlocs;
    w->offset = offset;
    if (mc_mkdir(dir, err))
        return err->code;
    w->nevents = calloc(nlocs > 0 ? (size_t)nlocs : 1, sizeof *w->nevents);
    if (!w->nevents)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    w->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->ar) {
        free(w->nevents);
        return mc_error_set(err, MC_ERR_IO, "%s: cannot create the OTF2 archive (does %s/traces.otf2 exist already?)",
                            dir, dir);
    }
    OTF2_Archive_SetFlushCallbacks(w->ar, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(w->ar);
    OTF2_Archive_SetCreator(w->ar, "mpicast");
    if (OTF2_Archive_OpenEvtFiles(w->ar) != OTF2_SUCCESS) {
        OTF2_Archive_Close(w->ar);
        free(w->nevents);
        return mc_error_set(err, MC_ERR_IO, "%s: cannot open the OTF2 event files", dir);
    }
    return MC_OK;
}

uint32_t ow_string(otf2w *w, const char *s)
{
    for (size_t i = 0; i < w->nstrings; i++)
        if (strcmp(w->strings[i], s) == 0)
            return (uint32_t)i;
    if (w->nstrings == w->cap_strings) {
        size_t cap = w->cap_strings ? 2 * w->cap_strings : 64;
        char **v = realloc(w->strings, cap * sizeof *v);
        if (!v)
            return UINT32_MAX;
        w->strings = v;
        w->cap_strings = cap;
    }
    if (!(w->strings[w->nstrings] = strdup(s)))
        return UINT32_MAX;
    return (uint32_t)w->nstrings++;
}

uint32_t ow_region(otf2w *w, const char *name, int role, int paradigm)
{
    uint32_t sref = ow_string(w, name);
    if (sref == UINT32_MAX)
        return UINT32_MAX;
    for (size_t i = 0; i < w->nregions; i++)
        if (w->regions[i].name == sref)
            return (uint32_t)i;
    if (w->nregions == w->cap_regions) {
        size_t cap = w->cap_regions ? 2 * w->cap_regions : 32;
        void *v = realloc(w->regions, cap * sizeof *w->regions);
        if (!v)
            return UINT32_MAX;
        w->regions = v;
        w->cap_regions = cap;
    }
    w->regions[w->nregions].name = sref;
    w->regions[w->nregions].role = role;
    w->regions[w->nregions].paradigm = paradigm;
    return (uint32_t)w->nregions++;
}

uint32_t ow_comm_add(otf2w *w, uint64_t id, const int32_t *members, int32_t size)
{
    for (size_t i = 0; i < w->ncomms; i++)
        if (w->comms[i].id == id)
            return (uint32_t)i;
    if (w->ncomms == w->cap_comms) {
        size_t cap = w->cap_comms ? 2 * w->cap_comms : 16;
        ow_comm *v = realloc(w->comms, cap * sizeof *v);
        if (!v)
            return UINT32_MAX;
        w->comms = v;
        w->cap_comms = cap;
    }
    ow_comm *c = &w->comms[w->ncomms];
    c->id = id;
    c->size = size;
    c->members = malloc((size > 0 ? (size_t)size : 1) * sizeof *c->members);
    if (!c->members)
        return UINT32_MAX;
    if (size > 0)
        memcpy(c->members, members, (size_t)size * sizeof *members);
    return (uint32_t)w->ncomms++;
}

int ow_coll_op(int op)
{
    switch (op) {
    case MC_OP_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case MC_OP_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case MC_OP_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
    case MC_OP_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
    case MC_OP_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
    case MC_OP_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
    case MC_OP_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case MC_OP_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case MC_OP_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case MC_OP_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case MC_OP_ALLTOALLW: return OTF2_COLLECTIVE_OP_ALLTOALLW;
    case MC_OP_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case MC_OP_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case MC_OP_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case MC_OP_SCAN: return OTF2_COLLECTIVE_OP_SCAN;
    case MC_OP_EXSCAN: return OTF2_COLLECTIVE_OP_EXSCAN;
    case MC_OP_REDUCE_SCATTER_BLOCK: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
    default: return -1;
    }
}

static char *comm_name(const ow_comm *c, char *buf, size_t len)
{
    if (c->id == MC_COMM_WORLD)
        snprintf(buf, len, "MPI_COMM_WORLD");
    else
        snprintf(buf, len, "mpicast comm 0x%llx", (unsigned long long)c->id);
    return buf;
}

uint32_t ow_call_attr(otf2w *w)
{
    w->call_attr = 1;
    return 0;
}

static int write_globals(otf2w *w)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->ar);
    if (!g)
        return -1;
    char buf[128];
    uint32_t s_machine = ow_string(w, "machine"), s_node = ow_string(w, "node");
    uint32_t s_thread = ow_string(w, "Master thread"), s_empty = ow_string(w, "");
    uint32_t s_comm_locs = ow_string(w, "MPI_COMM_WORLD locations");
    uint32_t s_attr = w->call_attr ? ow_string(w, OW_CALL_ATTR) : 0;
    uint32_t s_attr_desc = w->call_attr ? ow_string(w, "mpicast event fields of a communicator "
                                                       "call: peer tag bytes peer2 tag2 bytes2 "
                                                       "nvals vals...") : 0;
    uint32_t *s_rank = malloc(((size_t)w->nlocs + 1) * sizeof *s_rank);
    uint32_t *s_comm = malloc((w->ncomms + 1) * sizeof *s_comm);
    if (!s_rank || !s_comm) {
        free(s_rank);
        free(s_comm);
        return -1;
    }
    for (int r = 0; r < w->nlocs; r++) {
        snprintf(buf, sizeof buf, "MPI Rank %d", r);
        s_rank[r] = ow_string(w, buf);
    }
    for (size_t i = 0; i < w->ncomms; i++)
        s_comm[i] = ow_string(w, comm_name(&w->comms[i], buf, sizeof buf));
    int bad = 0;
    for (size_t i = 0; i < w->nstrings; i++)
        bad |= OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, w->strings[i]) != OTF2_SUCCESS;
    if (w->call_attr)
        bad |= OTF2_GlobalDefWriter_WriteAttribute(g, 0, s_attr, s_attr_desc, OTF2_TYPE_STRING) !=
               OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, w->offset,
                                                     w->tmax > w->offset ? w->tmax - w->offset : 0,
                                                     OTF2_UNDEFINED_TIMESTAMP) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_node,
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE) != OTF2_SUCCESS;
    for (int r = 0; r < w->nlocs; r++)
        bad |= OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, s_rank[r],
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                       OTF2_UNDEFINED_LOCATION_GROUP) != OTF2_SUCCESS;
    for (int r = 0; r < w->nlocs; r++)
        bad |= OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, s_thread,
                                                  OTF2_LOCATION_TYPE_CPU_THREAD, w->nevents[r],
                                                  (uint32_t)r) != OTF2_SUCCESS;
    for (size_t i = 0; i < w->nregions; i++)
        bad |= OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, w->regions[i].name, w->regions[i].name,
                                                s_empty, (OTF2_RegionRole)w->regions[i].role,
                                                (OTF2_Paradigm)w->regions[i].paradigm,
                                                OTF2_REGION_FLAG_NONE, s_empty, 0, 0) != OTF2_SUCCESS;
    /* Score-P's layout: group 0 lists the locations of MPI_COMM_WORLD's
     * ranks; each communicator's group lists indexes into it. */
    uint64_t *mem = malloc(((size_t)w->nlocs + 1) * sizeof *mem);
    if (!mem)
        bad = 1;
    for (int r = 0; mem && r < w->nlocs; r++)
        mem[r] = (uint64_t)r;
    if (mem)
        bad |= OTF2_GlobalDefWriter_WriteGroup(g, 0, s_comm_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                               OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                               (uint32_t)w->nlocs, mem) != OTF2_SUCCESS;
    for (size_t i = 0; mem && i < w->ncomms; i++) {
        const ow_comm *c = &w->comms[i];
        uint64_t *m = malloc(((size_t)c->size + 1) * sizeof *m);
        if (!m) {
            bad = 1;
            break;
        }
        for (int32_t k = 0; k < c->size; k++)
            m[k] = (uint64_t)c->members[k];
        bad |= OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)(i + 1), s_comm[i], OTF2_GROUP_TYPE_COMM_GROUP,
                                               OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                               (uint32_t)c->size, m) != OTF2_SUCCESS;
        bad |= OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)i, s_comm[i], (uint32_t)(i + 1),
                                              OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE) != OTF2_SUCCESS;
        free(m);
    }
    free(mem);
    free(s_rank);
    free(s_comm);
    return bad ? -1 : 0;
}

mc_err ow_close(otf2w *w, int fail, mc_error *err)
{
    int bad = fail;
    if (OTF2_Archive_CloseEvtFiles(w->ar) != OTF2_SUCCESS)
        bad = 1;
    if (!fail) {
        if (OTF2_Archive_OpenDefFiles(w->ar) != OTF2_SUCCESS) {
            bad = 1;
        } else {
            for (int r = 0; r < w->nlocs; r++) {
                OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(w->ar, (uint64_t)r);
                if (!d || OTF2_Archive_CloseDefWriter(w->ar, d) != OTF2_SUCCESS)
                    bad = 1;
            }
            if (OTF2_Archive_CloseDefFiles(w->ar) != OTF2_SUCCESS)
                bad = 1;
        }
        if (!bad && write_globals(w))
            bad = 1;
    }
    if (OTF2_Archive_Close(w->ar) != OTF2_SUCCESS)
        bad = 1;
    for (size_t i = 0; i < w->nstrings; i++)
        free(w->strings[i]);
    free(w->strings);
    free(w->regions);
    for (size_t i = 0; i < w->ncomms; i++)
        free(w->comms[i].members);
    free(w->comms);
    free(w->nevents);
    if (bad && !fail)
        return mc_error_set(err, MC_ERR_IO, "%s: writing the OTF2 archive failed", w->dir);
    return fail ? (err && err->code ? err->code : MC_ERR_IO) : MC_OK;
}
