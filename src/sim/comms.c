/* The communicator registry: id -> communicator (S->commmap), and for a
 * communicator with a member array, (index, world rank) -> comm rank
 * (S->rankmap). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_objects.h"

int sim_comm_init(sim *S, const mc_sim_options *opt, mc_error *err)
{
    if (sim_comm_add(S, MC_COMM_WORLD, NULL, S->n, 0))
        return -1;
    for (size_t i = 0; opt && i < opt->ncomms; i++) {
        const mc_sim_comm *c = &opt->comms[i];
        if (c->id == MC_COMM_WORLD || sim_comm_find(S, c->id))
            continue;
        for (int32_t k = 0; k < c->size; k++)
            if (c->members[k] < 0 || c->members[k] >= S->n) {
                mc_error_set(err, MC_ERR_FORMAT, "%s: communicator %llx: member %d is not a rank",
                             S->src->name ? S->src->name : "trace", (unsigned long long)c->id,
                             c->members[k]);
                return -1;
            }
        if (sim_comm_add(S, c->id, c->members, c->size, 0))
            return -1;
    }
    return 0;
}

int sim_comm_add(sim *S, uint64_t id, const int32_t *members, int32_t size, int inter)
{
    if (S->ncomms == S->capcomms) {
        int32_t cap = S->capcomms ? S->capcomms * 2 : 16;
        sim_comm *c = realloc(S->comms, (size_t)cap * sizeof *c);
        if (!c)
            goto nomem;
        S->comms = c;
        S->capcomms = cap;
    }
    sim_comm *c = &S->comms[S->ncomms];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->size = size;
    c->index = S->ncomms;
    c->inter = inter;
    /* A communicator whose members are 0..size-1 in order (a Cart_create
     * without reordering, a Dup of world) is kept as the identity: no member
     * array to load per schedule operation and no rank-map entries — at 10^6
     * ranks a cache miss per collective message and 32 MB. */
    int identity = members && !inter;
    for (int32_t i = 0; identity && i < size; i++)
        identity = members[i] == i;
    if (members && !identity) {
        c->members = malloc((size_t)size * sizeof *c->members);
        if (!c->members)
            goto nomem;
        memcpy(c->members, members, (size_t)size * sizeof *c->members);
        for (int32_t i = 0; i < size && !inter; i++)
            if (sim_map_put(&S->rankmap, ((uint64_t)c->index << 32) | (uint32_t)members[i], i))
                goto nomem;
    }
    if (sim_map_put(&S->commmap, id, S->ncomms))
        goto nomem;
    S->ncomms++;
    return 0;
nomem:
    sim_fail(S, MC_ERR_NOMEM, "out of memory");
    return -1;
}

const sim_comm *sim_comm_find(sim *S, uint64_t id)
{
    int64_t v;
    if (sim_map_get(&S->commmap, id, &v))
        return &S->comms[v];
    if ((id >> 32) == 0xffffffffull && (id & 0xffffffffull) < (uint64_t)S->n) {
        int32_t self = (int32_t)(id & 0xffffffffull);
        if (sim_comm_add(S, id, &self, 1, 0))
            return NULL;
        return &S->comms[S->ncomms - 1];
    }
    return NULL;
}

int sim_comm_rank_of(sim *S, const sim_comm *c, int world)
{
    if (!c->members)
        return world >= 0 && world < c->size ? world : -1;
    int64_t v;
    if (sim_map_get(&S->rankmap, ((uint64_t)c->index << 32) | (uint32_t)world, &v))
        return (int)v;
    return -1;
}

void sim_comm_create(sim *S, int r, const mc_event *e)
{
    if (e->newcomm == MC_COMM_NULL || e->nvals == 0)
        return;
    uint32_t n = e->nvals;
    int inter = e->op == MC_OP_INTERCOMM_CREATE;
    if (!inter && e->peer2 > 0 && (uint32_t)e->peer2 <= n)
        n = (uint32_t)e->peer2;
    if (sim_comm_find(S, e->newcomm))
        return;
    int32_t *m = malloc(n * sizeof *m);
    if (!m) {
        sim_fail(S, MC_ERR_NOMEM, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (e->vals[i] < 0 || e->vals[i] >= S->n) {
            free(m);
            sim_fail(S, MC_ERR_FORMAT, "rank %d event %llu: %s member %lld is not a rank", r,
                     (unsigned long long)S->r[r].events, mc_op_name(e->op),
                     (long long)e->vals[i]);
            return;
        }
        m[i] = (int32_t)e->vals[i];
    }
    sim_comm_add(S, e->newcomm, m, (int32_t)n, inter);
    free(m);
}

const char *sim_comm_name(uint64_t comm, char *buf, size_t len)
{
    if (comm == MC_COMM_WORLD)
        snprintf(buf, len, "world");
    else if ((comm >> 32) == 0xffffffffull)
        snprintf(buf, len, "self");
    else
        snprintf(buf, len, "%llu.%llu", (unsigned long long)(comm >> 32),
                 (unsigned long long)(comm & 0xffffffffull));
    return buf;
}

void sim_comm_free_all(sim *S)
{
    sim_map_free(&S->commmap);
    sim_map_free(&S->rankmap);
    for (int32_t i = 0; i < S->ncomms; i++) {
        free(S->comms[i].members);
        free(S->comms[i].coll_seq);
    }
    free(S->comms);
}
