/* Loop-compressed traces (mc_compress_trace, the reader's loop records):
 * a 2-rank trace with a prologue, 5000 iterations of (Irecv, Isend,
 * Waitall, Allreduce) with bursts that change every iteration, one
 * iteration at 3000 that sends more bytes, and an epilogue.
 * - exact: the compressed trace delivers the same events, field by field,
 *   times, bursts and request ids included, and replays to the same
 *   picosecond; it stores a few events and loop records only;
 * - means: the same events but times; the stored file is far smaller;
 * - a loop record whose body is cut off, and one out of range, are refused
 *   naming the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/compress.h"
#include "mpicast/format.h"
#include "mpicast/sim.h"
#include "mpicast/platform.h"

#define ITERS 5000
#define ODD 3000

static void add(mc_writer *w, int64_t *now, int64_t burst, mc_event e)
{
    mc_error err = {0};
    if (!e.cpu)
        e.cpu = -1;
    e.t_start = *now + burst;
    e.t_end = e.t_start + 200 + burst % 13;
    *now = e.t_end;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
}

static void write_rank(const char *dir, int r)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w != NULL);
    int64_t now = 1000;
    int peer = 1 - r;
    uint32_t req = 0;
    add(w, &now, 0, (mc_event){.op = MC_OP_INIT, .peer = MC_NONE, .tag = MC_NONE, .peer2 = MC_NONE, .tag2 = MC_NONE});
    add(w, &now, 500, (mc_event){.op = MC_OP_BCAST, .site = 2, .peer = 0, .tag = MC_NONE, .bytes = 64, .peer2 = 2, .tag2 = MC_NONE, .bytes2 = 64});
    for (int i = 0; i < ITERS; i++) {
        int64_t b = 1000 + (i * 7919) % 977; /* a burst that changes every iteration */
        int64_t bytes = i == ODD ? 4096 : 2048;
        uint32_t q1 = ++req, q2 = ++req;
        add(w, &now, b, (mc_event){.op = MC_OP_IRECV, .site = 10, .peer = peer, .tag = 5, .bytes = bytes, .peer2 = MC_NONE, .tag2 = MC_NONE, .req = q1});
        add(w, &now, 30, (mc_event){.op = MC_OP_ISEND, .site = 11, .peer = peer, .tag = 5, .bytes = bytes, .peer2 = MC_NONE, .tag2 = MC_NONE, .req = q2});
        int64_t vals[8] = {q1, peer, 5, bytes, q2, MC_NONE, MC_NONE, 0};
        add(w, &now, 40, (mc_event){.op = MC_OP_WAITALL, .site = 12, .peer = MC_NONE, .tag = MC_NONE, .peer2 = MC_NONE, .tag2 = MC_NONE, .nvals = 8, .vals = vals});
        add(w, &now, b / 2, (mc_event){.op = MC_OP_ALLREDUCE, .site = 13, .peer = MC_NONE, .tag = MC_NONE, .bytes = 8, .peer2 = 2, .tag2 = MC_NONE, .bytes2 = 8});
    }
    add(w, &now, 700, (mc_event){.op = MC_OP_BARRIER, .site = 3, .peer = MC_NONE, .tag = MC_NONE, .peer2 = MC_NONE, .tag2 = MC_NONE});
    add(w, &now, 10, (mc_event){.op = MC_OP_FINALIZE, .peer = MC_NONE, .tag = MC_NONE, .peer2 = MC_NONE, .tag2 = MC_NONE});
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static int same_event(const mc_event *a, const mc_event *b, int times)
{
    if (a->op != b->op || a->site != b->site || a->comm != b->comm || a->peer != b->peer ||
        a->tag != b->tag || a->bytes != b->bytes || a->peer2 != b->peer2 || a->tag2 != b->tag2 ||
        a->bytes2 != b->bytes2 || a->req != b->req || a->newcomm != b->newcomm ||
        a->nvals != b->nvals || a->folded != b->folded)
        return 0;
    for (uint32_t i = 0; i < a->nvals; i++)
        if (a->vals[i] != b->vals[i])
            return 0;
    return !times || (a->t_start == b->t_start && a->t_end == b->t_end && a->burst == b->burst &&
                      a->cpu == b->cpu);
}

/* Every event of every rank equal (times too when asked); the count. */
static uint64_t compare(const char *x, const char *y, int times)
{
    mc_error err = {0};
    mc_source *a = mc_trace_open(x, &err), *b = mc_trace_open(y, &err);
    CHECK(a && b);
    CHECK_EQ_INT(a->nranks, b->nranks);
    uint64_t n = 0;
    for (int r = 0; r < a->nranks; r++) {
        mc_event e, f;
        int ra, rb;
        while ((ra = mc_source_next(a, r, &e, &err)) == 1) {
            rb = mc_source_next(b, r, &f, &err);
            if (rb != 1)
                fprintf(stderr, "rank %d event %llu: %s\n", r, (unsigned long long)n, err.msg);
            CHECK(rb == 1);
            if (!same_event(&e, &f, times))
                fprintf(stderr, "rank %d: %s differs at event %llu (%s)\n", r, y,
                        (unsigned long long)n, mc_op_name(e.op));
            CHECK(same_event(&e, &f, times));
            n++;
        }
        CHECK_EQ_INT(ra, 0);
        CHECK_EQ_INT(mc_source_next(b, r, &f, &err), 0);
    }
    mc_source_close(a);
    mc_source_close(b);
    return n;
}

static int64_t predict(const char *dir)
{
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK(p && mc_platform_set(p, "network.bandwidth=1GB/s", &err) == MC_OK);
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_sim_options opt = {0};
    mc_sim_result res = {0};
    CHECK(mc_sim_run(s, p, &opt, &res, &err) == MC_OK);
    int64_t end = res.end;
    mc_sim_result_free(&res);
    mc_source_close(s);
    mc_platform_destroy(p);
    return end;
}

static long long size_of(const char *dir, int rank)
{
    char path[400];
    mc_rank_path(path, sizeof path, dir, rank);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return (long long)st.st_size;
}

static void expect_refused(const char *dir, const char *what)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_event e;
    int rc;
    while ((rc = mc_source_next(s, 0, &e, &err)) == 1)
        ;
    if (rc != -1 || !strstr(err.msg, "rank-000000.mct") || !strstr(err.msg, what))
        fprintf(stderr, "expected an error with '%s', got %d: %s\n", what, rc, err.msg);
    CHECK(rc == -1 && strstr(err.msg, "rank-000000.mct") && strstr(err.msg, what));
    mc_source_close(s);
}

int main(void)
{
    char root[] = "/tmp/mc_compress_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char in[300], ex[300], mean[300], bad[300];
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(ex, sizeof ex, "%s/exact", root);
    snprintf(mean, sizeof mean, "%s/means", root);
    snprintf(bad, sizeof bad, "%s/bad", root);
    for (int r = 0; r < 2; r++)
        write_rank(in, r);
    CHECK(mkdir(ex, 0700) == 0 && mkdir(mean, 0700) == 0);
    mc_error err = {0};
    mc_compress_info info;
    CHECK(mc_compress_trace(in, ex, MC_COMPRESS_EXACT, &info, NULL, NULL, &err) == MC_OK);
    CHECK_EQ_INT(info.events, 2 * (2 + 4 * ITERS + 2));
    CHECK_EQ_INT(info.ranks_looped, 2);
    /* two loops (before and after the odd iteration), each a few records */
    CHECK(info.stored < 2 * (4 + 3 * 4 * 8 + 8));
    CHECK_EQ_INT(compare(in, ex, 1), info.events);
    CHECK_EQ_INT(predict(ex), predict(in));

    CHECK(mc_compress_trace(in, mean, 0, &info, NULL, NULL, &err) == MC_OK);
    CHECK_EQ_INT(compare(in, mean, 0), info.events);
    printf("rank 0: %lld bytes, exact %lld, means %lld\n", size_of(in, 0), size_of(ex, 0),
           size_of(mean, 0));
    CHECK(size_of(mean, 0) < 2048);
    CHECK(size_of(ex, 0) < size_of(in, 0));

    /* a loop record whose body the file does not hold */
    mc_writer *w = mc_writer_open(bad, 0, 0, 0, &err);
    CHECK(w != NULL);
    int64_t times[2] = {100, 50};
    mc_loop_record l = {.iterations = 10, .period = 1, .at = 0, .loop_end = 1000, .times = times};
    CHECK(mc_writer_add_loop(w, &l, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
    expect_refused(bad, "ends inside a loop's body");
    l.period = MC_LOOP_MAX_PERIOD + 1;
    w = mc_writer_open(root, 0, 0, 0, &err); /* refused by the writer too */
    CHECK(w != NULL);
    CHECK(mc_writer_add_loop(w, &l, &err) == MC_ERR_USAGE);
    mc_writer_close(w, &err);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return 0;
}
