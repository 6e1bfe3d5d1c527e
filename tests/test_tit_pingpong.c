/* A hand-written ping-pong in SimGrid's time-independent format gives exactly
 * the expected events, as one merged trace and as one file per rank, read in
 * any rank order; the older SimGrid spelling too. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mpicast/tit.h"

/* Compact text of an event: fields that differ from their defaults. */
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

static const char *const expect0[] = {
    "Init",
    "compute bytes=1000000",
    "Send peer=1 tag=7 bytes=1024",
    "Recv peer=1 tag=8 bytes=2048 bytes2=2048",
    "Isend peer=1 tag=9 bytes=100 req=1",
    "Irecv peer=1 tag=10 bytes=200 req=2",
    "Wait vals=1,-1,-1,0",
    "Wait vals=2,1,10,200",
    "Finalize",
    NULL,
};
static const char *const expect1[] = {
    "Init",
    "Recv peer=0 tag=7 bytes=1024 bytes2=1024",
    "compute bytes=250000",
    "Send peer=0 tag=8 bytes=2048",
    "Irecv peer=0 tag=9 bytes=100 req=1",
    "Isend peer=0 tag=10 bytes=200 req=2",
    "Waitall vals=1,0,9,100,2,-1,-1,0",
    "Finalize",
    NULL,
};
/* Older spelling: tag 0, bare wait completes the most recent request. */
static const char *const legacy0[] = {
    "Init",
    "Isend peer=1 tag=0 bytes=1000 req=1",
    "Irecv peer=1 tag=0 bytes=2000 req=2",
    "Wait vals=2,1,0,2000",
    "Wait vals=1,-1,-1,0",
    "Finalize",
    NULL,
};
static const char *const legacy1[] = {
    "Init",
    "Irecv peer=0 tag=0 bytes=1000 req=1",
    "Send peer=0 tag=0 bytes=2000",
    "Waitall vals=1,0,0,1000",
    "Finalize",
    NULL,
};

/* Checks the next event of `rank` against *want (NULL: end of stream). */
static void expect_next(mc_source *s, int rank, const char *const *want)
{
    mc_event e;
    mc_error err = {0};
    int rc = mc_source_next(s, rank, &e, &err);
    if (rc < 0)
        fprintf(stderr, "error: %s\n", err.msg);
    CHECK(rc >= 0);
    if (*want == NULL) {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(mc_source_next(s, rank, &e, &err), 0); /* stays at the end */
        return;
    }
    CHECK_EQ_INT(rc, 1);
    char got[512];
    describe(&e, got, sizeof got);
    CHECK_EQ_STR(got, *want);
}

static mc_source *open_ok(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tit/%s", MC_TEST_DATA, name);
    mc_error err = {0};
    mc_source *s = mc_tit_open(path, &err);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s != NULL);
    CHECK_EQ_STR(s->name, path);
    return s;
}

/* Reads every rank to its end, one rank after the other (high rank first). */
static void check_sequential(const char *name, const char *const *const *want, int nranks)
{
    mc_source *s = open_ok(name);
    CHECK_EQ_INT(s->nranks, nranks);
    for (int r = nranks - 1; r >= 0; r--)
        for (const char *const *w = want[r];; w++) {
            expect_next(s, r, w);
            if (!*w)
                break;
        }
    mc_source_close(s);
}

/* Alternates between the ranks, one event each. */
static void check_interleaved(const char *name, const char *const *const *want, int nranks)
{
    mc_source *s = open_ok(name);
    const char *const *pos[8];
    for (int r = 0; r < nranks; r++)
        pos[r] = want[r];
    for (int active = nranks; active > 0;) {
        active = 0;
        for (int r = 0; r < nranks; r++) {
            if (!pos[r])
                continue;
            expect_next(s, r, pos[r]);
            pos[r] = *pos[r] ? pos[r] + 1 : NULL;
            active += pos[r] != NULL;
        }
    }
    mc_source_close(s);
}

int main(void)
{
    const char *const *pp[] = {expect0, expect1};
    const char *const *lg[] = {legacy0, legacy1};
    check_sequential("pingpong.txt", pp, 2);
    check_interleaved("pingpong.txt", pp, 2);
    check_sequential("pingpong.list", pp, 2);
    check_interleaved("pingpong.list", pp, 2);
    check_sequential("legacy.txt", lg, 2);
    check_interleaved("legacy.txt", lg, 2);

    /* Out-of-range rank arguments to next are errors, not crashes. */
    mc_source *s = open_ok("pingpong.txt");
    mc_event e;
    mc_error err = {0};
    CHECK_EQ_INT(mc_source_next(s, 2, &e, &err), -1);
    CHECK_EQ_INT(mc_source_next(s, -1, &e, &err), -1);
    mc_source_close(s);
    mc_source_close(NULL);
    return 0;
}
