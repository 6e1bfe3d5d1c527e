/* mpicast tracer — communicator ids and world-rank translation.
 *
 * An id is (seq << 32) | lowest world rank of the members, equal on every
 * member: at creation the members agree on seq with an Allreduce(MAX) of
 * their next free sequence numbers, so two communicators sharing a lowest
 * member (who took part in both) always get different seqs. Communicators
 * created by calls we do not wrap get a seq derived from their membership
 * (high bit set), which needs no communication. */
#include "tracer.h"
#include "map.h"

#include <stdlib.h>
#include <string.h>

static mct_map by_handle;   /* MPI_Comm handle → mct_comm* */
static mct_comm world_info, self_info;
static uint32_t next_seq = 1;
static mct_comm **known;    /* every communicator ever registered, for meta */
static size_t nknown, known_cap;

static uint64_t comm_key(MPI_Comm c)
{
    uint64_t k = 0;
    memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
    return k;
}

static void remember(mct_comm *ci)
{
    if (nknown == known_cap) {
        size_t cap = known_cap ? known_cap * 2 : 16;
        mct_comm **k = realloc(known, cap * sizeof *k);
        if (!k) {
            mct_fail("out of memory for the communicator table");
            return;
        }
        known = k;
        known_cap = cap;
    }
    ci->refs++;
    known[nknown++] = ci;
}

void mct_comm_init(void)
{
    world_info.id = MC_COMM_WORLD;
    world_info.size = mct_world_size;
    world_info.refs = 1;
    self_info.id = MC_COMM_SELF_BASE | (uint32_t)mct_world_rank;
    self_info.size = 1;
    self_info.world = malloc(sizeof(int32_t));
    if (self_info.world)
        self_info.world[0] = mct_world_rank;
    self_info.refs = 1;
    remember(&world_info);
    remember(&self_info);
}

void mct_comm_ref(mct_comm *ci)
{
    if (ci)
        ci->refs++;
}

void mct_comm_unref(mct_comm *ci)
{
    if (ci && --ci->refs == 0) {
        free(ci->world);
        free(ci->rworld);
        free(ci);
    }
}

int32_t mct_peer(const mct_comm *ci, int r)
{
    if (r == MPI_ANY_SOURCE)
        return MC_ANY;
    if (!ci || r < 0)
        return MC_NONE; /* MPI_PROC_NULL, MPI_ROOT */
    if (ci->rsize > 0)
        return r < ci->rsize && ci->rworld ? ci->rworld[r] : MC_NONE;
    if (r >= ci->size)
        return MC_NONE;
    return ci->world ? ci->world[r] : r;
}

/* World ranks of a group, in group order. */
static int32_t *group_to_world(MPI_Group g, int n)
{
    MPI_Group wg;
    int32_t *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    int *tr = malloc((size_t)(n > 0 ? n : 1) * sizeof *tr);
    if (!out || !in || !tr || PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
        free(out);
        out = NULL;
        goto done;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(g, n, in, wg, tr);
    for (int i = 0; i < n; i++)
        out[i] = tr[i] == MPI_UNDEFINED ? MC_NONE : tr[i];
    PMPI_Group_free(&wg);
done:
    free(in);
    free(tr);
    return out;
}

/* Membership of c (without id). */
static mct_comm *describe(MPI_Comm c)
{
    mct_comm *ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    int inter = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(c, &inter);
    PMPI_Comm_size(c, &ci->size);
    PMPI_Comm_group(c, &g);
    ci->world = group_to_world(g, ci->size);
    PMPI_Group_free(&g);
    if (inter) {
        PMPI_Comm_remote_size(c, &ci->rsize);
        PMPI_Comm_remote_group(c, &g);
        ci->rworld = group_to_world(g, ci->rsize);
        PMPI_Group_free(&g);
    }
    if (!ci->world || (inter && !ci->rworld)) {
        free(ci->world);
        free(ci->rworld);
        free(ci);
        return NULL;
    }
    ci->refs = 1;
    return ci;
}

static uint32_t lowest_member(const mct_comm *ci)
{
    int32_t low = INT32_MAX;
    for (int i = 0; i < ci->size; i++)
        if (ci->world[i] >= 0 && ci->world[i] < low)
            low = ci->world[i];
    for (int i = 0; i < ci->rsize; i++)
        if (ci->rworld[i] >= 0 && ci->rworld[i] < low)
            low = ci->rworld[i];
    return (uint32_t)low;
}

static void put_handle(MPI_Comm c, mct_comm *ci)
{
    mct_lock();
    mct_slot *s = mct_map_put(&by_handle, comm_key(c));
    if (!s)
        mct_fail("out of memory for the communicator table");
    if (s) {
        /* A handle value can come back after a free we did not see. */
        if (s->b)
            mct_comm_unref(s->b);
        s->b = ci;
        ci->refs++;
    }
    remember(ci);
    mct_unlock();
}

/* The agreed sequence number: MAX over all members. On an intercomm an
 * Allreduce returns the other group's result, so two rounds give the MAX of
 * both groups on both sides. */
static uint32_t agree_seq(MPI_Comm c, int inter)
{
    unsigned mine = next_seq, got = mine;
    PMPI_Allreduce(&mine, &got, 1, MPI_UNSIGNED, MPI_MAX, c);
    if (inter) {
        unsigned both = got > mine ? got : mine, all = both;
        PMPI_Allreduce(&both, &all, 1, MPI_UNSIGNED, MPI_MAX, c);
        got = all > both ? all : both;
    }
    next_seq = got + 1;
    return got;
}

mct_comm *mct_comm_register(MPI_Comm newc)
{
    if (newc == MPI_COMM_NULL)
        return NULL;
    int inter = 0;
    PMPI_Comm_test_inter(newc, &inter);
    mct_comm *ci = describe(newc);
    /* Every member must take part in the agreement, the same number of
     * times, even if describe() failed locally, or the others would hang. */
    uint32_t seq = agree_seq(newc, inter);
    if (!ci) {
        mct_fail("out of memory");
        return NULL;
    }
    ci->id = ((uint64_t)seq << 32) | lowest_member(ci);
    put_handle(newc, ci);
    mct_comm_unref(ci); /* the map and the known list hold it */
    return ci;
}

/* A communicator created behind our back: an id from its membership. */
static mct_comm *register_unknown(MPI_Comm c)
{
    mct_comm *ci = describe(c);
    if (!ci) {
        mct_fail("out of memory for the communicator table");
        return NULL;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < ci->size; i++)
        h = (h ^ (uint64_t)(uint32_t)ci->world[i]) * 0x100000001b3ull;
    for (int i = 0; i < ci->rsize; i++)
        h = (h ^ (uint64_t)(uint32_t)ci->rworld[i]) * 0x100000001b3ull;
    uint64_t seq = 0x80000000u | (uint32_t)(h ^ (h >> 32));
    if (seq == 0xffffffffu)
        seq = 0xfffffffeu; /* not MPI_COMM_SELF's */
    ci->id = (seq << 32) | lowest_member(ci);
    put_handle(c, ci);
    mct_comm_unref(ci);
    return ci;
}

mct_comm *mct_comm_get(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return &world_info;
    if (c == MPI_COMM_SELF)
        return &self_info;
    if (c == MPI_COMM_NULL)
        return NULL;
    mct_lock();
    mct_slot *s = mct_map_find(&by_handle, comm_key(c));
    mct_comm *ci = s ? s->b : NULL;
    mct_unlock();
    return ci ? ci : register_unknown(c);
}

int32_t mct_peer_of(MPI_Comm c, int r)
{
    if (c == MPI_COMM_WORLD)
        return r >= 0 ? r : (r == MPI_ANY_SOURCE ? MC_ANY : MC_NONE);
    return mct_peer(mct_comm_get(c), r);
}

void mct_comm_forget(MPI_Comm c)
{
    mct_lock();
    mct_slot *s = mct_map_find(&by_handle, comm_key(c));
    if (s) {
        mct_comm *ci = s->b;
        mct_map_del(&by_handle, comm_key(c));
        mct_comm_unref(ci);
    }
    mct_unlock();
}

/* Layout per communicator: id, size (both groups), local size, members. */
int64_t *mct_comms_serialise(size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < nknown; i++)
        total += 3 + (size_t)known[i]->size + (size_t)known[i]->rsize;
    int64_t *buf = malloc((total ? total : 1) * sizeof *buf);
    if (!buf) {
        *n = 0;
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < nknown; i++) {
        const mct_comm *ci = known[i];
        buf[k++] = (int64_t)ci->id;
        buf[k++] = ci->size + ci->rsize;
        buf[k++] = ci->size;
        for (int j = 0; j < ci->size; j++)
            buf[k++] = ci->world ? ci->world[j] : j;
        for (int j = 0; j < ci->rsize; j++)
            buf[k++] = ci->rworld[j];
    }
    *n = total;
    return buf;
}

void mct_comms_parse_into(const int64_t *buf, size_t n, mc_meta *m)
{
    int32_t *members = NULL;
    size_t cap = 0;
    for (size_t k = 0; k + 3 <= n;) {
        uint64_t id = (uint64_t)buf[k];
        int64_t size = buf[k + 1], local = buf[k + 2];
        k += 3;
        if (size < 0 || (size_t)size > n - k)
            break;
        if ((size_t)size > cap) {
            int32_t *p = realloc(members, (size_t)size * sizeof *p);
            if (!p)
                break;
            members = p;
            cap = (size_t)size;
        }
        for (int64_t j = 0; j < size; j++)
            members[j] = (int32_t)buf[k + (size_t)j];
        k += (size_t)size;
        mc_error err = {0};
        mc_meta_add_comm(m, id, members, (int32_t)size, (int32_t)local, &err);
    }
    free(members);
}
