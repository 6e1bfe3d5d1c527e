/* Writes the small synthetic 3-rank trace that the stats/dump CLI tests
 * (test_stats_cli.py) check by hand: usage `test_stats_mktrace DIR`.
 * Chunks hold 4 events so that cutting a file's tail leaves a prefix.
 *
 * Expected figures (derived in test_stats_cli.py from the events below):
 * point-to-point messages 10 (rank 0: 5, rank 1: 1, rank 2: 4), 1680 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpicast/format.h"

static mc_writer *w;
static int failed;

/* Appends one event: op, peer, tag, bytes, req, start, end; the rest default. */
static mc_event base(int op, int32_t peer, int64_t bytes, uint32_t req, int64_t t0, int64_t t1)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = peer;
    e.tag = MC_NONE;
    e.bytes = bytes;
    e.peer2 = e.tag2 = MC_NONE;
    e.req = req;
    e.newcomm = MC_COMM_NULL;
    e.t_start = t0;
    e.t_end = t1;
    e.cpu = -1;
    return e;
}

static void add(const mc_event *e)
{
    mc_error err = {0};
    if (mc_writer_add(w, e, &err) != MC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        failed = 1;
    }
}

static void add_simple(int op, int32_t peer, int64_t bytes, uint32_t req, int64_t t0,
                       int64_t t1, int32_t site)
{
    mc_event e = base(op, peer, bytes, req, t0, t1);
    e.site = site;
    if (mc_op_kind_of(op) == MC_KIND_P && peer >= 0)
        e.tag = 1;
    add(&e);
}

static void add_vals(int op, int64_t t0, int64_t t1, const int64_t *vals, uint32_t n)
{
    mc_event e = base(op, MC_NONE, 0, 0, t0, t1);
    e.vals = (int64_t *)vals;
    e.nvals = n;
    add(&e);
}

static void add_allreduce(int64_t t0, int64_t t1)
{
    mc_event e = base(MC_OP_ALLREDUCE, MC_NONE, 8, 0, t0, t1);
    e.peer2 = 3;
    e.bytes2 = 8;
    e.site = 0x14;
    add(&e);
}

/* A receive-like or sendrecv event with the second peer/size filled. */
static void add_pair(int op, int32_t peer, int64_t bytes, int32_t peer2, int64_t bytes2,
                     int64_t t0, int64_t t1, int32_t site)
{
    mc_event e = base(op, peer, bytes, 0, t0, t1);
    e.tag = 1;
    e.peer2 = peer2;
    e.tag2 = peer2 >= 0 ? 1 : MC_NONE;
    e.bytes2 = bytes2;
    e.site = site;
    add(&e);
}

static void rank0(void)
{
    add_simple(MC_OP_INIT, MC_NONE, 0, 0, -5000, 0, 0);
    add_simple(MC_OP_SEND, 1, 100, 0, 1000, 1200, 0x11);
    add_simple(MC_OP_ISEND, 2, 300, 1, 2000, 2100, 0x12);
    add_simple(MC_OP_SEND, MC_NONE, 50, 0, 2500, 2510, 0x11); /* to MPI_PROC_NULL */
    add_simple(MC_OP_SEND_INIT, 1, 64, 2, 3000, 3010, 0x13);
    add_simple(MC_OP_RECV_INIT, 2, 32, 3, 3100, 3110, 0);
    static const int64_t both[] = {2, 3}, two[] = {2};
    add_vals(MC_OP_STARTALL, 3200, 3220, both, 2);
    add_vals(MC_OP_START, 3300, 3305, two, 1);
    static const int64_t done[] = {1, -1, -1, 0, 2, -1, -1, 0, 3, 2, 1, 32};
    add_vals(MC_OP_WAITALL, 4000, 4500, done, 12);
    add_vals(MC_OP_REQUEST_FREE, 4600, 4601, two, 1);
    add_allreduce(5000, 6000);
    add_pair(MC_OP_SENDRECV, 2, 40, 2, 40, 6100, 6400, 0);
    add_simple(MC_OP_FINALIZE, MC_NONE, 0, 0, 7000, 7500, 0);
}

static void rank1(void)
{
    add_simple(MC_OP_INIT, MC_NONE, 0, 0, -3000, 0, 0);
    add_pair(MC_OP_RECV, 0, 100, MC_NONE, 100, 1000, 1500, 0);
    add_simple(MC_OP_RECV_INIT, 0, 64, 1, 1600, 1610, 0);
    static const int64_t one[] = {1}, done[] = {1, 0, 1, 64};
    add_vals(MC_OP_START, 1700, 1705, one, 1);
    add_vals(MC_OP_WAIT, 1800, 2000, done, 4);
    add_vals(MC_OP_START, 2100, 2105, one, 1);
    add_vals(MC_OP_WAIT, 2200, 2300, done, 4);
    add_allreduce(5000, 5900);
    add_simple(MC_OP_SSEND, 2, 1000, 0, 6000, 6200, 0x21);
    mc_event split = base(MC_OP_COMM_SPLIT, MC_NONE, 5, 0, 6300, 6400); /* bytes = key */
    static const int64_t members[] = {1};
    split.tag = 0; /* color */
    split.peer2 = 1;
    split.newcomm = (1ull << 32) | 1;
    split.vals = (int64_t *)members;
    split.nvals = 1;
    add(&split);
    add_simple(MC_OP_FINALIZE, MC_NONE, 0, 0, 7000, 7100, 0);
}

/* No Init/Finalize: its window is first start .. last end. */
static void rank2(void)
{
    add_simple(MC_OP_IRECV, 0, 300, 1, 1000, 1010, 0);
    add_pair(MC_OP_RECV, 1, 1000, MC_NONE, 1000, 1100, 6300, 0x31);
    add_simple(MC_OP_SEND_INIT, 0, 32, 2, 6300, 6310, 0);
    static const int64_t two[] = {2};
    add_vals(MC_OP_START, 6320, 6330, two, 1);
    add_allreduce(6400, 6500);
    add_pair(MC_OP_SENDRECV_REPLACE, 0, 40, 0, 40, 6600, 6900, 0);
    static const int64_t done[] = {1, 0, 1, 300, 2, -1, -1, 0};
    add_vals(MC_OP_WAITALL, 6950, 7000, done, 8);
    add_simple(MC_OP_BSEND, 1, 16, 0, 7100, 7110, 0);
    add_simple(MC_OP_IRSEND, 1, 24, 3, 7200, 7210, 0);
}

static int write_meta(const char *dir)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_create(3);
    const int32_t world[] = {0, 1, 2}, sub[] = {1};
    const mc_meta_site sites[] = {
        {0x11, "/work/app", 0x1100, "exchange", "app.c", 11},
        {0x14, "/work/app", 0x1400, "solve", "app.c", 14},
        {0x31, "/work/app", 0x3100, "", "", 0},
    };
    int bad = !m || mc_meta_set(m, "command", "synthetic", &err) ||
              mc_meta_add_comm(m, MC_COMM_WORLD, world, 3, 3, &err) ||
              mc_meta_add_comm(m, (1ull << 32) | 1, sub, 1, 1, &err);
    for (int i = 0; !bad && i < 3; i++)
        bad = mc_meta_add_site(m, &sites[i], &err) != MC_OK;
    bad = bad || mc_meta_write(m, dir, &err) != MC_OK;
    if (bad)
        fprintf(stderr, "meta: %s\n", err.msg);
    mc_meta_destroy(m);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_stats_mktrace DIR\n", stderr);
        return 2;
    }
    void (*ranks[])(void) = {rank0, rank1, rank2};
    for (int r = 0; r < 3; r++) {
        mc_error err = {0};
        w = mc_writer_open(argv[1], r, 0, 4, &err);
        if (!w) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        ranks[r]();
        if (mc_writer_close(w, &err) != MC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    }
    return failed || write_meta(argv[1]);
}
