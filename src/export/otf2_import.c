/* mpicast import otf2: an OTF2 archive as Score-P writes it → a trace
 * directory (docs/formats.md says what maps to what and what is lost).
 *
 * Definitions give the ranks (the MPI "comm locations" group, else one
 * process location group per rank), the MPI regions (by name: MPI_Send →
 * Send) and the communicators (comm → group → world ranks). Events are read
 * one location at a time: an Enter of a known MPI region opens an event,
 * the MPI records inside fill it, its Leave closes it; everything between
 * two MPI calls is the compute burst. A rank's events are buffered until
 * its location is read, because a nonblocking receive learns its source
 * only at its completion. */
#define MPICAST_EXPORT_INTERNAL
#include "otf2_common.h"

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct igroup {
    int type;
    uint32_t n;
    uint64_t *m;
} igroup;

typedef struct icomm {
    int defined;
    uint32_t group;
    uint64_t id;          /* mpicast id (self comms: filled per rank) */
    int self;
    int32_t *members;     /* world ranks */
    int32_t size;
} icomm;

typedef struct ireq {
    uint64_t otf2;
    uint32_t id;
    size_t ev;            /* the creating event (Irecv) or SIZE_MAX */
} ireq;

typedef struct imp {
    char **strings;
    size_t nstrings;
    uint64_t res, offset;
    struct { uint64_t id; uint32_t group; int type; uint64_t nevents; } *locs;
    size_t nlocs;
    struct { uint32_t id; int type; } *lgroups;
    size_t nlgroups;
    int *region_op;       /* by region ref: mc_op or -1 */
    size_t nregions;
    igroup *groups;
    size_t ngroups;
    icomm *comms;
    size_t ncomms;
    uint64_t *rank_loc;   /* rank -> location id */
    int nranks;
    /* the rank being read */
    int rank;
    mc_event *ev;
    size_t n, cap;
    int depth;
    int open;             /* an MPI event is being filled */
    mc_event cur;
    int64_t *vals;
    uint32_t nvals, cap_vals;
    int got_send, got_recv;
    ireq *reqs;
    size_t nreqs, cap_reqs;
    uint32_t last_req;
    uint32_t call_attr;   /* ref of the OW_CALL_ATTR attribute; UINT32_MAX: none */
    int oom;
    int beat_fd;          /* heartbeat pipe to the parent (see mc_import_otf2) */
    uint64_t beats;
} imp;

/* Tells the parent process the OTF2 library is still making progress. */
static void beat(imp *x)
{
    if (x->beat_fd >= 0 && (++x->beats & 4095) == 0) {
        ssize_t w = write(x->beat_fd, ".", 1);
        (void)w;
    }
}

/* ------------------------------------------------------------ growth */

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*v, c * elem);
    if (!p)
        return -1;
    memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
    *v = p;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------ definitions */

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    imp *x = u;
    beat(x);
    if (grow((void **)&x->strings, &x->nstrings, (size_t)self + 1, sizeof *x->strings) ||
        !(x->strings[self] = strdup(s)))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *str(const imp *x, uint32_t ref)
{
    return ref < x->nstrings && x->strings[ref] ? x->strings[ref] : "";
}

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    imp *x = u;
    (void)len;
    (void)rt;
    x->res = res ? res : 1;
    x->offset = off;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    imp *x = u;
    (void)name; (void)parent; (void)creator;
    size_t cap = x->nlgroups;
    if (grow((void **)&x->lgroups, &cap, x->nlgroups + 1, sizeof *x->lgroups))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    x->lgroups[x->nlgroups].id = self;
    x->lgroups[x->nlgroups++].type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef group)
{
    imp *x = u;
    (void)name;
    size_t cap = x->nlocs;
    if (grow((void **)&x->locs, &cap, x->nlocs + 1, sizeof *x->locs))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    x->locs[x->nlocs].id = self;
    x->locs[x->nlocs].group = group;
    x->locs[x->nlocs].nevents = nev;
    x->locs[x->nlocs++].type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
                                  uint32_t b, uint32_t e)
{
    imp *x = u;
    (void)canon; (void)desc; (void)role; (void)flags; (void)file; (void)b; (void)e;
    size_t old = x->nregions;
    if (grow((void **)&x->region_op, &x->nregions, (size_t)self + 1, sizeof *x->region_op))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    for (size_t i = old; i < x->nregions; i++)
        x->region_op[i] = -1;
    const char *s = str(x, name);
    int op = -1;
    if (paradigm == OTF2_PARADIGM_MPI || strncmp(s, "MPI_", 4) == 0)
        op = mc_op_from_name(s);
    x->region_op[self] = op == MC_OP_COMPUTE ? -1 : op;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                 OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                                 const uint64_t *m)
{
    imp *x = u;
    (void)name; (void)flags;
    if (grow((void **)&x->groups, &x->ngroups, (size_t)self + 1, sizeof *x->groups))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    igroup *g = &x->groups[self];
    free(g->m);
    g->type = paradigm == OTF2_PARADIGM_MPI || type != OTF2_GROUP_TYPE_COMM_LOCATIONS ? (int)type : -1;
    g->n = n;
    g->m = malloc((n ? n : 1) * sizeof *g->m);
    if (!g->m)
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    memcpy(g->m, m, n * sizeof *m);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef desc, OTF2_Type type)
{
    imp *x = u;
    (void)desc;
    if (type == OTF2_TYPE_STRING && strcmp(str(x, name), OW_CALL_ATTR) == 0)
        x->call_attr = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                OTF2_CommRef parent, OTF2_CommFlag flags)
{
    imp *x = u;
    (void)parent; (void)flags;
    if (grow((void **)&x->comms, &x->ncomms, (size_t)self + 1, sizeof *x->comms))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    x->comms[self].defined = 1;
    x->comms[self].group = group;
    unsigned long long id;
    /* our own exports name their communicators after the mpicast id */
    if (sscanf(str(x, name), "mpicast comm 0x%llx", &id) == 1)
        x->comms[self].id = id;
    else
        x->comms[self].id = UINT64_MAX;
    return OTF2_CALLBACK_SUCCESS;
}

/* ------------------------------------------------------------ ranks, comms */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Rank i is the i-th location of the MPI comm-locations group; without
 * one, the first CPU thread of each process location group. */
static int find_ranks(imp *x)
{
    for (size_t g = 0; g < x->ngroups; g++)
        if (x->groups[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && x->groups[g].n) {
            x->nranks = (int)x->groups[g].n;
            x->rank_loc = malloc(x->groups[g].n * sizeof *x->rank_loc);
            if (!x->rank_loc)
                return -1;
            memcpy(x->rank_loc, x->groups[g].m, x->groups[g].n * sizeof *x->rank_loc);
            return 0;
        }
    x->rank_loc = malloc((x->nlgroups + 1) * sizeof *x->rank_loc);
    if (!x->rank_loc)
        return -1;
    uint64_t *gid = malloc((x->nlgroups + 1) * sizeof *gid);
    if (!gid)
        return -1;
    size_t ng = 0;
    for (size_t i = 0; i < x->nlgroups; i++)
        if (x->lgroups[i].type == OTF2_LOCATION_GROUP_TYPE_PROCESS)
            gid[ng++] = x->lgroups[i].id;
    qsort(gid, ng, sizeof *gid, cmp_u64);
    x->nranks = 0;
    for (size_t i = 0; i < ng; i++) {
        uint64_t best = UINT64_MAX;
        for (size_t l = 0; l < x->nlocs; l++)
            if (x->locs[l].group == gid[i] && x->locs[l].type == OTF2_LOCATION_TYPE_CPU_THREAD &&
                x->locs[l].id < best)
                best = x->locs[l].id;
        if (best != UINT64_MAX)
            x->rank_loc[x->nranks++] = best;
    }
    free(gid);
    return 0;
}

static int rank_of_location(const imp *x, uint64_t loc)
{
    for (int r = 0; r < x->nranks; r++)
        if (x->rank_loc[r] == loc)
            return r;
    return -1;
}

/* World members of each communicator and its mpicast id: the world comm is
 * 0, the others (seq << 32) | lowest member, seq in definition order. */
static int resolve_comms(imp *x)
{
    uint64_t seq = 1;
    int have_world = 0;
    for (size_t c = 0; c < x->ncomms; c++) {
        icomm *k = &x->comms[c];
        if (!k->defined || k->group >= x->ngroups)
            continue;
        const igroup *g = &x->groups[k->group];
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            k->self = 1;
            continue;
        }
        k->members = malloc((g->n ? g->n : 1) * sizeof *k->members);
        if (!k->members)
            return -1;
        k->size = 0;
        int32_t low = INT32_MAX;
        for (uint32_t i = 0; i < g->n; i++) {
            int32_t w = g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ? rank_of_location(x, g->m[i])
                                                                  : (int32_t)g->m[i];
            if (w < 0 || w >= x->nranks)
                continue;
            k->members[k->size++] = w;
            if (w < low)
                low = w;
        }
        if (k->id != UINT64_MAX)
            continue; /* named by our exporter */
        int world = k->size == x->nranks;
        for (int32_t i = 0; world && i < k->size; i++)
            world = k->members[i] == i;
        if (world && !have_world) {
            k->id = MC_COMM_WORLD;
            have_world = 1;
        } else {
            k->id = (seq++ << 32) | (uint64_t)(low == INT32_MAX ? 0 : low);
        }
    }
    return 0;
}

static const icomm *comm_at(const imp *x, uint32_t ref)
{
    return ref < x->ncomms && x->comms[ref].defined ? &x->comms[ref] : NULL;
}

static uint64_t comm_id(const imp *x, uint32_t ref)
{
    const icomm *c = comm_at(x, ref);
    if (!c)
        return MC_COMM_WORLD;
    if (c->self)
        return MC_COMM_SELF_BASE | (uint64_t)x->rank;
    return c->id;
}

static int32_t comm_size(const imp *x, uint32_t ref)
{
    const icomm *c = comm_at(x, ref);
    return !c ? x->nranks : c->self ? 1 : c->size;
}

/* World rank of comm rank `r` of communicator `ref`. */
static int32_t world_of(const imp *x, uint32_t ref, uint32_t r)
{
    if (r == OTF2_UNDEFINED_UINT32)
        return MC_NONE;
    const icomm *c = comm_at(x, ref);
    if (!c)
        return (int32_t)r < x->nranks ? (int32_t)r : MC_NONE;
    if (c->self)
        return x->rank;
    return r < (uint32_t)c->size ? c->members[r] : MC_NONE;
}

/* ------------------------------------------------------------ events */

static int64_t to_ns(const imp *x, OTF2_TimeStamp t)
{
    int64_t d = (int64_t)(t - x->offset);
    if (x->res == 1000000000ull)
        return d;
    return (int64_t)((long double)d * 1e9L / (long double)x->res);
}

static int add_val(imp *x, int64_t v)
{
    if (x->nvals == x->cap_vals) {
        uint32_t cap = x->cap_vals ? 2 * x->cap_vals : 16;
        int64_t *p = realloc(x->vals, cap * sizeof *p);
        if (!p)
            return x->oom = 1, -1;
        x->vals = p;
        x->cap_vals = cap;
    }
    x->vals[x->nvals++] = v;
    return 0;
}

static uint32_t new_req(imp *x, uint64_t otf2, size_t ev)
{
    size_t cap = x->cap_reqs;
    if (grow((void **)&x->reqs, &cap, x->nreqs + 1, sizeof *x->reqs)) {
        x->oom = 1;
        return 0;
    }
    x->cap_reqs = cap;
    /* keep the archive's ids when they keep ours increasing (our exports) */
    uint32_t id = otf2 > x->last_req && otf2 < UINT32_MAX ? (uint32_t)otf2 : x->last_req + 1;
    x->last_req = id;
    x->reqs[x->nreqs++] = (ireq){otf2, id, ev};
    return id;
}

static ireq *find_req(imp *x, uint64_t otf2)
{
    for (size_t i = x->nreqs; i-- > 0;)
        if (x->reqs[i].otf2 == otf2)
            return &x->reqs[i];
    return NULL;
}

static void drop_req(imp *x, ireq *q)
{
    *q = x->reqs[--x->nreqs];
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    imp *x = u;
    (void)loc; (void)pos; (void)al;
    beat(x);
    int op = region < x->nregions ? x->region_op[region] : -1;
    if (op < 0)
        return OTF2_CALLBACK_SUCCESS;
    if (x->depth++ > 0)
        return OTF2_CALLBACK_SUCCESS; /* an MPI call inside an MPI call */
    mc_event_clear(&x->cur);
    x->cur.op = op;
    /* none: MC_COMM_NULL where a communicator could be created, else the
     * stored default */
    if (mc_op_kind_of(op) == MC_KIND_M)
        x->cur.newcomm = MC_COMM_NULL;
    x->cur.t_start = to_ns(x, t);
    x->nvals = 0;
    x->got_send = x->got_recv = 0;
    x->open = 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* The communicator an open communicator call created (our exports and
 * Score-P's write CommCreate inside the call). */
static OTF2_CallbackCode e_comm_create(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, OTF2_CommRef comm)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (x->open && mc_op_kind_of(x->cur.op) == MC_KIND_M && comm_at(x, comm))
        x->cur.newcomm = comm_id(x, comm);
    return OTF2_CALLBACK_SUCCESS;
}

/* The communicator Comm_free frees (Score-P writes CommDestroy in it). */
static OTF2_CallbackCode e_comm_destroy(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_CommRef comm)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (x->open && x->cur.op == MC_OP_COMM_FREE && comm_at(x, comm))
        x->cur.comm = comm_id(x, comm);
    return OTF2_CALLBACK_SUCCESS;
}

/* The fields our export keeps in OW_CALL_ATTR (otf2_common.h); a value
 * that does not parse leaves the event as OTF2 alone gives it. */
static int comm_call_fields(imp *x, OTF2_AttributeList *al)
{
    OTF2_Type type;
    OTF2_AttributeValue v;
    if (!al || x->call_attr == UINT32_MAX ||
        OTF2_AttributeList_GetAttributeByID(al, x->call_attr, &type, &v) != OTF2_SUCCESS ||
        type != OTF2_TYPE_STRING)
        return 0;
    const char *s = str(x, v.stringRef);
    int peer, tag, peer2, tag2, used;
    long long bytes, bytes2;
    unsigned nvals, cref;
    if (sscanf(s, "comm=%u %d %d %lld %d %d %lld %u%n", &cref, &peer, &tag, &bytes, &peer2,
               &tag2, &bytes2, &nvals, &used) != 8 || nvals > (1u << 24))
        return 0;
    x->nvals = 0;
    for (unsigned k = 0; k < nvals; k++) {
        long long val;
        int len;
        if (sscanf(s + used, " %lld%n", &val, &len) != 1)
            return 0;
        used += len;
        if (add_val(x, val))
            return -1;
    }
    if (comm_at(x, cref))
        x->cur.comm = comm_id(x, cref);
    x->cur.peer = peer;
    x->cur.tag = tag;
    x->cur.bytes = bytes;
    x->cur.peer2 = peer2;
    x->cur.tag2 = tag2;
    x->cur.bytes2 = bytes2;
    return 0;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    imp *x = u;
    (void)loc; (void)pos; (void)al;
    int op = region < x->nregions ? x->region_op[region] : -1;
    if (op < 0 || x->depth == 0 || --x->depth > 0 || !x->open)
        return OTF2_CALLBACK_SUCCESS;
    x->open = 0;
    x->cur.t_end = to_ns(x, t);
    if (mc_op_kind_of(op) == MC_KIND_M && comm_call_fields(x, al))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    if (grow((void **)&x->ev, &x->cap, x->n + 1, sizeof *x->ev))
        return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
    mc_event *e = &x->ev[x->n++];
    *e = x->cur;
    e->vals = NULL;
    e->nvals = x->nvals;
    if (x->nvals) {
        if (!(e->vals = malloc(x->nvals * sizeof *e->vals)))
            return x->oom = 1, OTF2_CALLBACK_INTERRUPT;
        memcpy(e->vals, x->vals, x->nvals * sizeof *e->vals);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void p2p_send(imp *x, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t len)
{
    if (!x->open || x->got_send++)
        return;
    x->cur.peer = world_of(x, comm, receiver);
    x->cur.tag = (int32_t)tag;
    x->cur.bytes = (int64_t)len;
    x->cur.comm = comm_id(x, comm);
}

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    (void)loc; (void)t; (void)pos; (void)al;
    p2p_send(u, receiver, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t reqid)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (!x->open)
        return OTF2_CALLBACK_SUCCESS;
    int first = !x->got_send;
    p2p_send(x, receiver, comm, tag, len);
    uint32_t id = new_req(x, reqid, SIZE_MAX);
    if (first && x->cur.op != MC_OP_START && x->cur.op != MC_OP_STARTALL)
        x->cur.req = id;
    else
        add_val(x, id);
    return x->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (!x->open || x->got_recv++)
        return OTF2_CALLBACK_SUCCESS;
    int32_t src = world_of(x, comm, sender);
    if (x->cur.op == MC_OP_SENDRECV || x->cur.op == MC_OP_SENDRECV_REPLACE) {
        x->cur.peer2 = src;
        x->cur.tag2 = (int32_t)tag;
        x->cur.bytes2 = (int64_t)len;
        x->cur.comm = comm_id(x, comm);
    } else {
        x->cur.peer = src;
        x->cur.tag = (int32_t)tag;
        x->cur.bytes = x->cur.bytes2 = (int64_t)len;
        x->cur.comm = comm_id(x, comm);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, uint64_t reqid)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (!x->open)
        return OTF2_CALLBACK_SUCCESS;
    uint32_t id = new_req(x, reqid, x->n); /* this event will be ev[n] */
    if (x->cur.op == MC_OP_START || x->cur.op == MC_OP_STARTALL) {
        add_val(x, id);
    } else {
        x->cur.req = id;
        x->cur.peer = x->cur.tag = MC_ANY; /* known at the completion */
    }
    return x->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t reqid)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    ireq *q = find_req(x, reqid);
    if (!q || !x->open)
        return OTF2_CALLBACK_SUCCESS;
    int32_t src = world_of(x, comm, sender);
    if (q->ev < x->n) { /* the Irecv that posted it learns its envelope */
        mc_event *p = &x->ev[q->ev];
        p->peer = src;
        p->tag = (int32_t)tag;
        p->bytes = (int64_t)len;
        p->comm = comm_id(x, comm);
    }
    add_val(x, q->id);
    add_val(x, src);
    add_val(x, (int64_t)tag);
    add_val(x, (int64_t)len);
    drop_req(x, q);
    return x->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, uint64_t reqid)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    ireq *q = find_req(x, reqid);
    if (!q || !x->open)
        return OTF2_CALLBACK_SUCCESS;
    add_val(x, q->id);
    add_val(x, MC_NONE);
    add_val(x, MC_NONE);
    add_val(x, 0);
    drop_req(x, q);
    return x->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static int op_of_coll(OTF2_CollectiveOp c)
{
    for (int op = 0; op < MC_OP_COUNT; op++)
        if (ow_coll_op(op) == (int)c)
            return op;
    return -1;
}

/* v-collectives: OTF2 keeps totals only; the counts become an even split. */
static void split(imp *x, int64_t total, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        add_val(x, total / n + (i < total % n ? 1 : 0));
}

/* Inverse of the exporter's coll_sizes (Score-P's byte conventions). */
static OTF2_CallbackCode e_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *al, OTF2_CollectiveOp cop, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t recvd)
{
    imp *x = u;
    (void)loc; (void)t; (void)pos; (void)al;
    if (!x->open)
        return OTF2_CALLBACK_SUCCESS;
    mc_event *e = &x->cur;
    if (mc_op_kind_of(e->op) != MC_KIND_C) {
        int op = op_of_coll(cop);
        if (op < 0)
            return OTF2_CALLBACK_SUCCESS;
        e->op = op;
    }
    int32_t N = comm_size(x, comm);
    if (N < 1)
        N = 1;
    int64_t S = (int64_t)sent, R = (int64_t)recvd;
    e->comm = comm_id(x, comm);
    e->peer = world_of(x, comm, root);
    e->peer2 = N;
    int is_root = e->peer == x->rank;
    int64_t me = 0;
    const icomm *c = comm_at(x, comm);
    for (int32_t i = 0; c && !c->self && i < c->size; i++)
        if (c->members[i] == x->rank)
            me = i;
    switch (e->op) {
    case MC_OP_BCAST: case MC_OP_IBCAST: e->bytes = e->bytes2 = is_root ? S / N : R; break;
    case MC_OP_REDUCE: case MC_OP_IREDUCE: e->bytes = S; e->bytes2 = is_root ? R / N : 0; break;
    case MC_OP_GATHER: case MC_OP_IGATHER: e->bytes = S; e->bytes2 = is_root ? R / N : 0; break;
    case MC_OP_SCATTER: case MC_OP_ISCATTER: e->bytes = is_root ? S / N : 0; e->bytes2 = R; break;
    case MC_OP_SCAN: case MC_OP_ISCAN: e->bytes = e->bytes2 = S / (N - me); break;
    case MC_OP_EXSCAN: case MC_OP_IEXSCAN:
        e->bytes = e->bytes2 = N - me - 1 > 0 ? S / (N - me - 1) : me > 0 ? R / me : 0;
        break;
    case MC_OP_GATHERV: case MC_OP_IGATHERV:
        e->bytes = S;
        if (is_root)
            split(x, R, N);
        break;
    case MC_OP_SCATTERV: case MC_OP_ISCATTERV:
        e->bytes2 = R;
        if (is_root)
            split(x, S, N);
        break;
    case MC_OP_ALLGATHERV: case MC_OP_IALLGATHERV: e->bytes = S / N; split(x, R, N); break;
    case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW: case MC_OP_IALLTOALLV: case MC_OP_IALLTOALLW:
        split(x, S, N);
        split(x, R, N);
        break;
    case MC_OP_REDUCE_SCATTER: case MC_OP_IREDUCE_SCATTER: split(x, S, N); break;
    default: /* barrier, all-to-all family */
        e->bytes = S / N;
        e->bytes2 = R / N;
        break;
    }
    return x->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* ------------------------------------------------------------ driver */

static void imp_free(imp *x)
{
    for (size_t i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->locs);
    free(x->lgroups);
    free(x->region_op);
    for (size_t i = 0; i < x->ngroups; i++)
        free(x->groups[i].m);
    free(x->groups);
    for (size_t i = 0; i < x->ncomms; i++)
        free(x->comms[i].members);
    free(x->comms);
    free(x->rank_loc);
    for (size_t i = 0; i < x->n; i++)
        free(x->ev[i].vals);
    free(x->ev);
    free(x->vals);
    free(x->reqs);
}

static mc_err read_defs(OTF2_Reader *rd, imp *x, const char *anchor, mc_error *err)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!g || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return mc_error_set(err, MC_ERR_FORMAT, "%s: no global definitions", anchor);
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, d_attr);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, g, cb, x);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, g, &n);
    if (x->oom)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", anchor);
    if (ec != OTF2_SUCCESS)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: reading the global definitions: %s", anchor,
                            OTF2_Error_GetDescription(ec));
    if (!x->res)
        x->res = 1000000000ull;
    if (find_ranks(x) || resolve_comms(x))
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", anchor);
    if (x->nranks == 0)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: no MPI process in the definitions", anchor);
    return MC_OK;
}

static OTF2_EvtReaderCallbacks *evt_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, e_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, e_comm_destroy);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, e_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, e_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, e_isend_done);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, e_irecv_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, e_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, e_recv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, e_coll_end);
    return cb;
}

/* Reads rank r's location and writes its rank file. */
static mc_err import_rank(OTF2_Reader *rd, imp *x, int r, const char *anchor, const char *outdir,
                          mc_export_info *info, mc_error *err)
{
    x->rank = r;
    x->n = 0;
    x->depth = x->open = 0;
    x->nreqs = 0;
    x->last_req = 0;
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, x->rank_loc[r]);
    OTF2_EvtReaderCallbacks *cb = evt_callbacks();
    if (!er || !cb) {
        OTF2_EvtReaderCallbacks_Delete(cb);
        return mc_error_set(err, MC_ERR_FORMAT, "%s: no events for location %llu (rank %d)", anchor,
                            (unsigned long long)x->rank_loc[r], r);
    }
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, x);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t n;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    OTF2_Reader_CloseEvtReader(rd, er);
    if (x->oom || ec != OTF2_SUCCESS) {
        for (size_t i = 0; i < x->n; i++)
            free(x->ev[i].vals);
        x->n = 0;
    }
    if (x->oom)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", anchor);
    if (ec != OTF2_SUCCESS)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: reading the events of rank %d: %s", anchor, r,
                            OTF2_Error_GetDescription(ec));
    /* OTF2 reads a cut event file as a shorter one: compare with the count
     * the definitions announce (then keep the prefix, as for our traces) */
    uint64_t expected = 0;
    for (size_t l = 0; l < x->nlocs; l++)
        if (x->locs[l].id == x->rank_loc[r])
            expected = x->locs[l].nevents;
    mc_writer *w = mc_writer_open(outdir, r, 0, 0, err);
    if (!w)
        return err->code;
    mc_err rc = MC_OK;
    for (size_t i = 0; !rc && i < x->n; i++)
        rc = mc_writer_add(w, &x->ev[i], err);
    mc_err rc2 = mc_writer_close(w, rc ? NULL : err);
    info->events += x->n;
    info->written += x->n;
    for (size_t i = 0; i < x->n; i++)
        free(x->ev[i].vals);
    x->n = 0;
    if (!rc && !rc2 && expected && n < expected)
        return mc_error_set(err, MC_ERR_TRUNCATED,
                            "%s: rank %d: truncated event file: %llu of the %llu events announced "
                            "(the readable prefix was imported)", anchor, r, (unsigned long long)n,
                            (unsigned long long)expected);
    return rc ? rc : rc2;
}

static mc_err write_meta(const imp *x, const char *archive, const char *outdir, mc_error *err)
{
    mc_meta *m = mc_meta_create(x->nranks);
    if (!m)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mpicast import otf2 %s", archive);
    mc_err rc = mc_meta_set(m, "command", cmd, err);
    if (!rc)
        rc = mc_meta_set(m, "timer", "otf2", err);
    for (size_t c = 0; !rc && c < x->ncomms; c++) {
        const icomm *k = &x->comms[c];
        if (k->defined && !k->self && k->members && k->size > 0)
            rc = mc_meta_add_comm(m, k->id, k->members, k->size, k->size, err);
    }
    if (!rc)
        rc = mc_meta_write(m, outdir, err);
    mc_meta_destroy(m);
    return rc;
}

static mc_err import_here(const char *archive, const char *outdir, mc_export_info *info,
                          mc_progress *prog, int beat_fd, mc_error *err)
{
    char *anchor = mc_otf2_anchor(archive);
    if (!anchor)
        return mc_error_set(err, MC_ERR_IO, "%s: not an OTF2 archive (no .otf2 anchor file)", archive);
    ow_quiet();
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: cannot open the OTF2 archive", anchor);
        free(anchor);
        return MC_ERR_FORMAT;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    imp x;
    memset(&x, 0, sizeof x);
    x.call_attr = UINT32_MAX;
    x.beat_fd = beat_fd;
    mc_err rc = read_defs(rd, &x, anchor, err);
    if (!rc && mc_mkdir(outdir, err))
        rc = err->code;
    if (!rc) {
        for (int r = 0; r < x.nranks; r++)
            OTF2_Reader_SelectLocation(rd, x.rank_loc[r]);
        /* local definitions hold Score-P's id mapping tables: read them */
        int defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
        OTF2_Reader_OpenEvtFiles(rd);
        for (int r = 0; r < x.nranks; r++) {
            if (defs) {
                OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, x.rank_loc[r]);
                if (dr) {
                    uint64_t nd;
                    OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
                    OTF2_Reader_CloseDefReader(rd, dr);
                }
            }
            OTF2_Reader_GetEvtReader(rd, x.rank_loc[r]);
        }
        if (defs)
            OTF2_Reader_CloseDefFiles(rd);
        for (int r = 0; !rc && r < x.nranks; r++) {
            x.beats = 4095;
            beat(&x);
            rc = import_rank(rd, &x, r, anchor, outdir, info, err);
            mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)x.nranks);
        }
        OTF2_Reader_CloseEvtFiles(rd);
    }
    if (!rc)
        rc = write_meta(&x, anchor, outdir, err);
    mc_progress_done(prog);
    imp_free(&x);
    OTF2_Reader_Close(rd);
    free(anchor);
    return rc;
}

/* What the importing child reports at its end. */
typedef struct child_result {
    mc_err code;
    uint64_t events, written;
    char msg[MC_ERROR_MSG_MAX];
} child_result;

static int stall_seconds(void)
{
    const char *s = getenv("MPICAST_OTF2_STALL");
    int v = s ? atoi(s) : 0;
    return v > 0 ? v : 60;
}

/* Reads the child's heartbeats ('.') and its final record ('!' + result).
 * Returns 0 with *res filled, 1 when the child stalled, -1 on EOF first. */
static int watch_child(int fd, child_result *res)
{
    int stall_ms = stall_seconds() * 1000;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, stall_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return 1;
        char c;
        ssize_t got = read(fd, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        if (c != '!')
            continue;
        size_t have = 0;
        while (have < sizeof *res) {
            ssize_t k = read(fd, (char *)res + have, sizeof *res - have);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                return -1;
            have += (size_t)k;
        }
        return 0;
    }
}

/* The OTF2 library can loop forever or crash on a corrupt archive (a
 * flipped byte in the anchor file makes OTF2_Reader_Open spin), so the
 * import runs in a child process that sends heartbeats while the library
 * makes progress; no heartbeat for MPICAST_OTF2_STALL seconds (default 60)
 * or a crash ends it with an error instead of a hang. */
mc_err mc_import_otf2(const char *archive, const char *outdir, mc_export_info *info,
                      mc_progress *prog, mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (!mc_otf2_is_archive(archive))
        return mc_error_set(err, MC_ERR_IO, "%s: not an OTF2 archive (no .otf2 anchor file)", archive);
    int fds[2];
    if (pipe(fds) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot create a pipe: %s", archive, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return mc_error_set(err, MC_ERR_IO, "%s: cannot fork: %s", archive, strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child_result res;
        mc_error e = {0};
        mc_export_info in;
        memset(&res, 0, sizeof res);
        memset(&in, 0, sizeof in);
        res.code = import_here(archive, outdir, &in, prog, fds[1], &e);
        res.events = in.events;
        res.written = in.written;
        memcpy(res.msg, e.msg, sizeof res.msg);
        if (write(fds[1], "!", 1) == 1 && write(fds[1], &res, sizeof res) == (ssize_t)sizeof res)
            _exit(0);
        _exit(3);
    }
    close(fds[1]);
    child_result res;
    memset(&res, 0, sizeof res);
    int w = watch_child(fds[0], &res);
    close(fds[0]);
    if (w == 1)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (w == 1)
        return mc_error_set(err, MC_ERR_FORMAT,
                            "%s: the OTF2 library made no progress for %d s reading it (a corrupt "
                            "archive?); stopped", archive, stall_seconds());
    if (w < 0 || !WIFEXITED(st))
        return mc_error_set(err, MC_ERR_FORMAT, "%s: the OTF2 library crashed reading it%s (a corrupt archive?)",
                            archive, WIFSIGNALED(st) ? " (signal)" : "");
    info->events = res.events;
    info->written = res.written;
    if (res.code) {
        res.msg[sizeof res.msg - 1] = 0;
        mc_error_set(err, res.code, "%s", res.msg);
    }
    return res.code;
}

char *mc_otf2_anchor(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return NULL;
    size_t len = strlen(path);
    if (S_ISREG(st.st_mode))
        return len > 5 && strcmp(path + len - 5, ".otf2") == 0 ? strdup(path) : NULL;
    if (!S_ISDIR(st.st_mode))
        return NULL;
    char *a = malloc(len + 16);
    if (!a)
        return NULL;
    snprintf(a, len + 16, "%s/traces.otf2", path);
    if (stat(a, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(a);
        return NULL;
    }
    return a;
}

int mc_otf2_is_archive(const char *path)
{
    char *a = mc_otf2_anchor(path);
    free(a);
    return a != NULL;
}
