/* Writes the synthetic 4-rank trace the export tests (test_export_*.sh,
 * test_otf2_*) convert: usage `test_export_mktrace DIR`.
 *
 * Every rank: Init; a ring exchange with Isend/Irecv + Waitall; a
 * rendezvous-size Send/Recv between pairs (0→1, 2→3); Barrier; Allreduce;
 * Bcast from rank 1; Comm_split into {0,2} and {1,3} and an Allreduce on it;
 * Alltoall; Finalize — with compute bursts of different lengths per rank
 * before each call, so that the prediction depends on every burst.
 * With a second argument "world-only": no Comm_split nor sub-communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/format.h"

enum { N = 4 };

static mc_writer *w;
static int64_t now;
static int failed;
static int world_only; /* no sub-communicator: every op has a TIT form */

static mc_event ev(int op)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = MC_COMM_NULL;
    e.cpu = -1;
    return e;
}

/* Appends e after `burst` ns of compute, lasting `dur` ns. */
static void put(mc_event e, int64_t burst, int64_t dur)
{
    mc_error err = {0};
    e.t_start = now + burst;
    e.t_end = e.t_start + dur;
    now = e.t_end;
    if (mc_writer_add(w, &e, &err) != MC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        failed = 1;
    }
}

static void coll(int op, int32_t root, int64_t bytes, int64_t bytes2, uint64_t comm, int32_t size,
                 int64_t burst)
{
    mc_event e = ev(op);
    e.peer = root;
    e.bytes = bytes;
    e.bytes2 = bytes2;
    e.comm = comm;
    e.peer2 = size;
    put(e, burst, 2000);
}

static void rank_events(int r)
{
    int right = (r + 1) % N, left = (r + N - 1) % N;
    now = -5000;
    put(ev(MC_OP_INIT), 0, 5000);
    /* ring: Isend right, Irecv left, Waitall */
    mc_event e = ev(MC_OP_ISEND);
    e.peer = right; e.tag = 7; e.bytes = 1000 + r; e.req = 1;
    put(e, 10000 + 1000 * r, 300);
    e = ev(MC_OP_IRECV);
    e.peer = left; e.tag = 7; e.bytes = 4096; e.req = 2;
    put(e, 0, 200);
    int64_t wv[8] = {1, MC_NONE, MC_NONE, 0, 2, left, 7, 1000 + left};
    e = ev(MC_OP_WAITALL);
    e.vals = wv;
    e.nvals = 8;
    put(e, 500, 4000);
    /* pairs: a rendezvous-size message */
    if (r % 2 == 0) {
        e = ev(MC_OP_SEND);
        e.peer = r + 1; e.tag = 3; e.bytes = 200000;
    } else {
        e = ev(MC_OP_RECV);
        e.peer = r - 1; e.tag = 3; e.bytes = 200000; e.bytes2 = 200000;
    }
    put(e, 3000 * (r + 1), 50000);
    coll(MC_OP_BARRIER, MC_NONE, 0, 0, MC_COMM_WORLD, N, 7000 - 1000 * r);
    coll(MC_OP_ALLREDUCE, MC_NONE, 8, 8, MC_COMM_WORLD, N, 20000 + 5000 * r);
    coll(MC_OP_BCAST, 1, 512, 512, MC_COMM_WORLD, N, 1000);
    if (world_only) {
        coll(MC_OP_ALLTOALL, MC_NONE, 128, 128, MC_COMM_WORLD, N, 9000);
        put(ev(MC_OP_FINALIZE), 1500, 1000);
        return;
    }
    /* split into even and odd ranks */
    int64_t members[2] = {r % 2, r % 2 + 2};
    uint64_t sub = (1ull << 32) | (uint64_t)(r % 2);
    e = ev(MC_OP_COMM_SPLIT);
    e.tag = r % 2; e.bytes = r; e.peer2 = 2; e.newcomm = sub;
    e.vals = members;
    e.nvals = 2;
    put(e, 2000, 3000);
    coll(MC_OP_ALLREDUCE, MC_NONE, 64, 64, sub, 2, 4000 * (r + 1));
    coll(MC_OP_ALLTOALL, MC_NONE, 128, 128, MC_COMM_WORLD, N, 9000);
    put(ev(MC_OP_FINALIZE), 1500, 1000);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: test_export_mktrace DIR [world-only]\n", stderr);
        return 2;
    }
    world_only = argc == 3;
    mc_error err = {0};
    for (int r = 0; r < N; r++) {
        if (!(w = mc_writer_open(argv[1], r, 0, 4, &err))) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        rank_events(r);
        if (mc_writer_close(w, &err) != MC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    }
    mc_meta *m = mc_meta_create(N);
    int32_t world[N] = {0, 1, 2, 3}, even[2] = {0, 2}, odd[2] = {1, 3};
    if (!m || mc_meta_set(m, "command", "test_export_mktrace", &err) ||
        mc_meta_add_comm(m, MC_COMM_WORLD, world, N, N, &err) ||
        mc_meta_add_comm(m, 1ull << 32, even, 2, 2, &err) ||
        mc_meta_add_comm(m, (1ull << 32) | 1, odd, 2, 2, &err) || mc_meta_write(m, argv[1], &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    mc_meta_destroy(m);
    return failed;
}
