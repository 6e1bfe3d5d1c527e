/* mpicast stats --json on a 2-rank trace written here: the polls (Test*
 * calls that completed nothing, Iprobes that found nothing) per function,
 * per rank and in all, and the bytes of collectives whose counts differ
 * per rank, counted from the events below.
 *   r0: Irecv (req 1), Test fails x3, Testany fails, Test completes req 1,
 *       Iprobe fails x2, Iprobe finds a message, Recv.
 *   r1: Send, Send, Testsome fails, Iprobe on MPI_PROC_NULL (not a poll:
 *       it returns at once).
 * polls: Test 3 of 4 calls, Testany 1 of 1, Iprobe 2 of 3 on r0 + 0 of 1
 * on r1, Testsome 1 of 1; r0 6, r1 1, all 7.
 * Then both ranks (bytes: the send side, docs/json.md):
 *   Alltoallv, send counts r0 {10, 20}, r1 {30, 40} (receive counts after
 *     them): r0 30, r1 70; in place on r0 (receive counts {10, 30} only): 40
 *   Scatter from r0 of 16 B blocks: r0 sends 16, r1 (a non-root) receives 16
 *   Scatterv from r0, counts {4, 12}: r0 16, r1 receives 12
 *   Reduce_scatter, receive counts {8, 24}: each contributes 32. */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "check.h"
#include "mpicast/format.h"

static char dir[256];
static mc_writer *w;
static int64_t now;

static mc_event ev(int op, int32_t peer, int64_t bytes)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = peer;
    e.tag = peer >= 0 ? 7 : MC_NONE;
    e.bytes = bytes;
    e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = MC_COMM_NULL;
    e.cpu = -1;
    return e;
}

static void put(mc_event *e)
{
    mc_error err = {0};
    e->t_start = now + 100;
    e->t_end = e->t_start + 200;
    now = e->t_end;
    CHECK(mc_writer_add(w, e, &err) == MC_OK);
}

static void put_op(int op, int32_t peer, int64_t bytes)
{
    mc_event e = ev(op, peer, bytes);
    put(&e);
}

static void iprobe(int32_t peer, int found)
{
    mc_event e = ev(MC_OP_IPROBE, peer, 0);
    e.bytes2 = found;
    if (found && peer >= 0) {
        e.peer2 = peer;
        e.tag2 = 7;
    }
    put(&e);
}

/* A collective of rank r with per-rank byte counts in vals. */
static void coll(int op, int32_t root, int64_t bytes, int64_t bytes2, const int64_t *vals,
                 uint32_t n)
{
    mc_event e = ev(op, root, bytes);
    e.tag = MC_NONE;
    e.bytes2 = bytes2;
    e.peer2 = 2; /* the communicator's size */
    e.vals = (int64_t *)vals;
    e.nvals = n;
    put(&e);
}

static void collectives(int r)
{
    static const int64_t a2av[2][4] = {{10, 20, 10, 30}, {30, 40, 20, 40}};
    static const int64_t inplace[2] = {10, 30}, sv[2] = {4, 12}, rs[2] = {8, 24};
    coll(MC_OP_ALLTOALLV, MC_NONE, 0, 0, a2av[r], 4);
    if (r == 0)
        coll(MC_OP_ALLTOALLV, MC_NONE, 0, 0, inplace, 2);
    coll(MC_OP_SCATTER, 0, r == 0 ? 16 : 0, 16, NULL, 0);
    coll(MC_OP_SCATTERV, 0, 0, r == 0 ? 4 : 12, r == 0 ? sv : NULL, r == 0 ? 2 : 0);
    coll(MC_OP_REDUCE_SCATTER, MC_NONE, 0, 0, rs, 2);
}

static void write_trace(void)
{
    for (int r = 0; r < 2; r++) {
        mc_error err = {0};
        w = mc_writer_open(dir, r, 0, 0, &err);
        CHECK(w != NULL);
        now = 0;
        put_op(MC_OP_INIT, MC_NONE, 0);
        if (r == 0) {
            mc_event e = ev(MC_OP_IRECV, 1, 8);
            e.req = 1;
            put(&e);
            for (int i = 0; i < 3; i++)
                put_op(MC_OP_TEST, MC_NONE, 0);
            put_op(MC_OP_TESTANY, MC_NONE, 0);
            int64_t done[4] = {1, 1, 7, 8};
            e = ev(MC_OP_TEST, MC_NONE, 0);
            e.vals = done;
            e.nvals = 4;
            put(&e);
            iprobe(1, 0);
            iprobe(1, 0);
            iprobe(1, 1);
            put_op(MC_OP_RECV, 1, 8);
        } else {
            put_op(MC_OP_SEND, 0, 8);
            put_op(MC_OP_SEND, 0, 8);
            put_op(MC_OP_TESTSOME, MC_NONE, 0);
            iprobe(MC_NONE, 1);
        }
        collectives(r);
        put_op(MC_OP_FINALIZE, MC_NONE, 0);
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
}

static json_t *stats_json(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s stats %s --json > %s.json", MPICAST_BIN, dir, dir);
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(cmd, sizeof cmd, "%s.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(cmd, 0, &je);
    CHECK(doc != NULL);
    return doc;
}

static long long integer(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_integer(v));
    return json_integer_value(v);
}

/* functions[name]: bytes in all and on each rank. */
static void check_bytes(json_t *doc, const char *name, long long all, long long b0, long long b1)
{
    json_t *f = json_object_get(json_object_get(doc, "functions"), name);
    CHECK(f != NULL);
    CHECK_EQ_INT(integer(f, "bytes"), all);
    json_t *pr = json_object_get(f, "per_rank");
    CHECK_EQ_INT(integer(json_array_get(pr, 0), "bytes"), b0);
    CHECK_EQ_INT(integer(json_array_get(pr, 1), "bytes"), b1);
}

/* functions[name]: polls and calls in all, and polls on each rank. */
static void check_fn(json_t *doc, const char *name, long long polls, long long calls,
                     long long p0, long long p1)
{
    json_t *f = json_object_get(json_object_get(doc, "functions"), name);
    CHECK(f != NULL);
    CHECK_EQ_INT(integer(f, "polls"), polls);
    CHECK_EQ_INT(integer(f, "calls"), calls);
    json_t *pr = json_object_get(f, "per_rank");
    CHECK_EQ_INT(integer(json_array_get(pr, 0), "polls"), p0);
    CHECK_EQ_INT(integer(json_array_get(pr, 1), "polls"), p1);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/mc_stats_polls_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    write_trace();
    json_t *doc = stats_json();
    check_fn(doc, "MPI_Test", 3, 4, 3, 0);
    check_fn(doc, "MPI_Testany", 1, 1, 1, 0);
    check_fn(doc, "MPI_Testsome", 1, 1, 0, 1);
    check_fn(doc, "MPI_Iprobe", 2, 4, 2, 0);
    /* not a polling function: no key */
    CHECK(json_object_get(json_object_get(json_object_get(doc, "functions"), "MPI_Recv"),
                          "polls") == NULL);
    json_t *pr = json_object_get(doc, "per_rank");
    CHECK_EQ_INT(integer(json_array_get(pr, 0), "polls"), 6);
    CHECK_EQ_INT(integer(json_array_get(pr, 1), "polls"), 1);
    CHECK_EQ_INT(integer(doc, "polls"), 7);
    check_bytes(doc, "MPI_Alltoallv", 30 + 40 + 70, 30 + 40, 70);
    check_bytes(doc, "MPI_Scatter", 32, 16, 16);
    check_bytes(doc, "MPI_Scatterv", 28, 16, 12);
    check_bytes(doc, "MPI_Reduce_scatter", 64, 32, 32);
    json_decref(doc);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.json'", dir, dir);
    CHECK(system(cmd) == 0);
    return 0;
}
