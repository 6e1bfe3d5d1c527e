/* Collectives of a hand-written time-independent trace over 3 ranks give the
 * expected events (roots, datatypes, v-counts, reduction compute, sleep),
 * merged and per rank. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mpicast/tit.h"

#define NRANKS 3

static void describe(const mc_event *e, char *buf, size_t len)
{
    CHECK(e->comm == MC_COMM_WORLD && e->site == 0 && e->cpu == -1 && e->tag2 == MC_NONE);
    CHECK(e->t_end == e->t_start);
    int n = snprintf(buf, len, "%s", mc_op_name(e->op));
#define FIELD(cond, ...) if (cond) n += snprintf(buf + n, len - (size_t)n, __VA_ARGS__)
    FIELD(e->peer != MC_NONE, " peer=%d", e->peer);
    FIELD(e->tag != MC_NONE, " tag=%d", e->tag);
    FIELD(e->bytes != 0, " bytes=%" PRId64, e->bytes);
    FIELD(e->bytes2 != 0, " bytes2=%" PRId64, e->bytes2);
    FIELD(e->peer2 != MC_NONE, " peer2=%d", e->peer2);
    FIELD(e->req != 0, " req=%u", e->req);
    FIELD(e->burst != 0, " burst=%" PRId64, e->burst);
    FIELD(e->t_start != 0, " t=%" PRId64, e->t_start);
    for (uint32_t i = 0; i < e->nvals; i++)
        FIELD(1, "%s%" PRId64, i ? "," : " vals=", e->vals[i]);
#undef FIELD
}

/* The events rank r must deliver for tests/data/tit/coll*.txt. */
static int expected(int r, char out[][128])
{
    int n = 0;
#define E(...) snprintf(out[n++], 128, __VA_ARGS__)
    E("Init");
    E("Barrier peer2=3");
    E("Bcast peer=2 bytes=1000 bytes2=1000 peer2=3");
    E("Reduce peer=1 bytes=1000 bytes2=1000 peer2=3");  /* 500 shorts */
    E("compute bytes=10000");                           /* the reduction's flops */
    E("Allreduce bytes=2048 bytes2=2048 peer2=3");      /* 256 doubles */
    E("compute bytes=2000");
    E("Alltoall bytes=10 bytes2=20 peer2=3");
    E(r == 0 ? "Gather peer=0 bytes=5 bytes2=5 peer2=3" : "Gather peer=0 bytes=5 peer2=3");
    E("Allgather bytes=32 bytes2=32 peer2=3");          /* 8 ints each */
    E(r == 2 ? "Scatter peer=2 bytes=12 bytes2=4 peer2=3" : "Scatter peer=2 bytes2=4 peer2=3");
    E(r == 1 ? "Gatherv peer=1 bytes=4 peer2=3 vals=1,2,3" : "Gatherv peer=1 bytes=4 peer2=3");
    E("Allgatherv bytes=3 peer2=3 vals=1,2,3");
    E(r == 0 ? "Scatterv peer=0 bytes2=5 peer2=3 vals=3,2,1" : "Scatterv peer=0 bytes2=5 peer2=3");
    E("Alltoallv peer2=3 vals=1,2,3,4,5,6");
    E("Reduce_scatter peer2=3 vals=1,2,3");
    E("compute bytes=1000");
    E("compute burst=500000000 t=500000000");           /* sleep 0.5 */
    E("Barrier peer2=3 t=500000000");
    E("Finalize t=500000000");
#undef E
    return n;
}

static void check_trace(const char *name, int interleaved)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tit/%s", MC_TEST_DATA, name);
    mc_error err = {0};
    mc_source *s = mc_tit_open(path, &err);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s != NULL);
    CHECK_EQ_INT(s->nranks, NRANKS);
    char want[NRANKS][32][128];
    int nwant[NRANKS], pos[NRANKS] = {0};
    for (int r = 0; r < NRANKS; r++)
        nwant[r] = expected(r, want[r]);
    /* interleaved: one event per rank in turn; else rank 2, 1, 0 in full */
    for (int step = 0;; step++) {
        int r = interleaved ? step % NRANKS : NRANKS - 1 - step / (nwant[0] + 1);
        if (r < 0 || (interleaved && step >= NRANKS * (nwant[0] + 1)))
            break;
        mc_event e;
        int rc = mc_source_next(s, r, &e, &err);
        if (rc < 0)
            fprintf(stderr, "%s\n", err.msg);
        if (pos[r] == nwant[r]) {
            CHECK_EQ_INT(rc, 0);
            continue;
        }
        CHECK_EQ_INT(rc, 1);
        char got[256];
        describe(&e, got, sizeof got);
        CHECK_EQ_STR(got, want[r][pos[r]]);
        pos[r]++;
    }
    for (int r = 0; r < NRANKS; r++)
        CHECK_EQ_INT(pos[r], nwant[r]);
    mc_source_close(s);
}

int main(void)
{
    check_trace("coll.txt", 0);
    check_trace("coll.txt", 1);
    check_trace("coll.list", 0);
    check_trace("coll.list", 1);
    return 0;
}
