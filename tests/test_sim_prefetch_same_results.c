/* Fetching records ahead (sim_prefetch_ahead, the pools' free stacks) is a
 * hint: it reads what the next events will touch, and must never change a
 * result nor read outside the simulator's arrays (the ASan pass runs this
 * too). A workload that reaches every prefetch stage — nonblocking
 * exchanges with unexpected and posted receives, Sendrecv, rendezvous
 * messages, every event type in the queue (steps, arrivals, progress,
 * collective rounds) with collectives on the world and on a split
 * communicator — is replayed with prefetching forced on and forced off, on
 * loggp (both rendezvous protocols) and on a torus with contention; every
 * rank's figures and the message counts must be equal. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "mem_source.h"

enum { P = 48, ITERS = 4 };

static int64_t burst(int r, int it)
{
    uint32_t x = (uint32_t)(r * 2654435761u) ^ (uint32_t)(it * 40503u);
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return 200 + (int64_t)(x % 20000);
}

/* root: a world rank, for rooted operations */
static void coll(mem_source *m, int r, int op, uint64_t comm, int size, int64_t bytes, int root)
{
    mc_event *e = ms_add(m, r, op, 0);
    e->comm = comm;
    e->peer = root;
    e->peer2 = size;
    e->bytes = e->bytes2 = bytes;
}

static void build(mem_source *m)
{
    const uint64_t row = 7; /* a communicator of the 8 ranks of a row */
    for (int r = 0; r < P; r++) {
        /* split into rows of 8: the new communicator's members in vals */
        mc_event *e = ms_add(m, r, MC_OP_COMM_SPLIT, 1000);
        e->newcomm = row << 32 | (uint64_t)(r / 8);
        e->peer2 = 8;
        int64_t base = r / 8 * 8;
        ms_vals(m, e, 8, base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6,
                base + 7);
        for (int it = 0; it < ITERS; it++) {
            int64_t big = it == 2 ? 1 << 20 : 512; /* rendezvous once */
            ms_compute(m, r, burst(r, it));
            /* four neighbours (+1, -1, +8, -8: the inverse of k is k ^ 1),
             * nonblocking; the receives of odd ranks are posted after their
             * sends (unexpected messages) */
            int nb[4] = {(r + 1) % P, (r + P - 1) % P, (r + 8) % P, (r + P - 8) % P};
            uint32_t q = 1;
            for (int k = 0; k < 4 && r % 2 == 0; k++)
                ms_p2p(m, r, MC_OP_IRECV, nb[k ^ 1], k, big, q++);
            for (int k = 0; k < 4; k++)
                ms_p2p(m, r, MC_OP_ISEND, nb[k], k, big, q++);
            ms_compute(m, r, burst(r, it + 9) / 4);
            for (int k = 0; k < 4 && r % 2 == 1; k++)
                ms_p2p(m, r, MC_OP_IRECV, nb[k ^ 1], k, big, q++);
            ms_wait(m, r, MC_OP_WAITALL, 8, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
            /* a shift with Sendrecv */
            e = ms_p2p(m, r, MC_OP_SENDRECV, (r + 3) % P, 9, 2048, 0);
            e->peer2 = (r + P - 3) % P;
            e->tag2 = 9;
            e->bytes2 = 2048;
            ms_compute(m, r, burst(r, it + 20));
            coll(m, r, MC_OP_ALLREDUCE, MC_COMM_WORLD, P, 8, MC_NONE);
            coll(m, r, MC_OP_BCAST, row << 32 | (uint64_t)(r / 8), 8, 4096, (int)base);
            coll(m, r, MC_OP_ALLTOALL, MC_COMM_WORLD, P, 256, MC_NONE);
        }
        coll(m, r, MC_OP_BARRIER, MC_COMM_WORLD, P, 0, MC_NONE);
    }
}

static void same(const mc_sim_result *a, const mc_sim_result *b, const char *what)
{
    CHECK_EQ_INT(a->nranks, b->nranks);
    CHECK_EQ_INT(a->end, b->end);
    CHECK_EQ_INT(a->messages, b->messages);
    CHECK_EQ_INT(a->bytes, b->bytes);
    int bad = 0;
    for (int i = 0; i < a->nranks && i < b->nranks; i++)
        if (a->ranks[i].end != b->ranks[i].end || a->ranks[i].compute != b->ranks[i].compute ||
            a->ranks[i].comm != b->ranks[i].comm || a->ranks[i].wait != b->ranks[i].wait ||
            a->ranks[i].events != b->ranks[i].events) {
            if (!bad++)
                fprintf(stderr, "%s: rank %d differs with prefetching\n", what, i);
        }
    CHECK(bad == 0);
}

static void both(mem_source *m, const char *const *sets, const char *what)
{
    mc_sim_result on = {0}, off = {0};
    mem_run_prefetch = 1;
    mem_run_ok(m, sets, &on);
    mem_run_prefetch = -1;
    mem_run_ok(m, sets, &off);
    mem_run_prefetch = 0;
    CHECK(on.messages > 0);
    same(&on, &off, what);
    mc_sim_result_free(&on);
    mc_sim_result_free(&off);
}

int main(void)
{
    mem_source *m = mem_source_create(P);
    build(m);
    const char *const loggp[] = {"network.model=loggp", "network.latency=2us",
                                 "network.overhead=1us", "network.bandwidth=2GB/s",
                                 "network.eager_limit=64KiB", NULL};
    both(m, loggp, "loggp");
    const char *const handshake[] = {"network.model=loggp", "network.rendezvous=handshake",
                                     "network.eager_limit=1KiB", NULL};
    both(m, handshake, "loggp, handshake rendezvous");
    const char *const torus[] = {"network.model=topo", "network.topology=torus2d",
                                 "network.link_bandwidth=1GB/s", "network.ranks_per_node=2",
                                 NULL};
    both(m, torus, "topo torus2d");
    mem_source_destroy(m);
    return 0;
}
