/* MC_COMPRESS_ALIGN (mc_compress_trace): ranks whose iterations differ get
 * their loops started at one shared event.
 *
 * A multigrid-like trace of 3 ranks: rank 0 does 6 iterations of the local
 * levels down and up (L0 L1 L2 L3 L3 L2 L1 L0, one site, tags by level) and an
 * Allreduce; rank 1 does the same with a coarse-level event C in the middle;
 * rank 2 has no loop. The finder alone starts rank 0's loop at its
 * Allreduce and rank 1's at C (the same loop rotated), which extrapolate
 * cannot fold alike (issue 20). Aligned, both start at their first
 * Allreduce with 5 iterations, rank 2 is copied as it is, and both
 * compressed traces deliver every event of the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/compress.h"
#include "mpicast/format.h"
#include "loop_trace.h"

#define ITERS 6
#define NRANKS 3

enum { SITE_LEVEL = 10, SITE_COARSE = 11, SITE_REDUCE = 12 };

static mc_event level(int r, int l)
{
    mc_event e = plain(MC_OP_SENDRECV, SITE_LEVEL);
    e.peer = e.peer2 = 1 - r;
    e.tag = e.tag2 = l;
    e.bytes = e.bytes2 = 128 >> l;
    return e;
}

static void write_rank(const char *dir, int r)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w != NULL);
    int64_t now = 1000;
    add(w, &now, plain(MC_OP_INIT, 1));
    for (int i = 0; r < 2 && i < ITERS; i++) {
        for (int l = 0; l < 4; l++)
            add(w, &now, level(r, l));
        if (r == 1) {
            mc_event c = plain(MC_OP_SENDRECV, SITE_COARSE);
            c.peer = c.peer2 = 0;
            c.tag = c.tag2 = 101;
            c.bytes = c.bytes2 = 8;
            add(w, &now, c);
        }
        for (int l = 3; l >= 0; l--)
            add(w, &now, level(r, l));
        mc_event red = plain(MC_OP_ALLREDUCE, SITE_REDUCE);
        red.bytes = red.bytes2 = 8;
        red.peer2 = NRANKS;
        add(w, &now, red);
    }
    add(w, &now, plain(MC_OP_FINALIZE, 2));
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

typedef struct seen {
    uint64_t first[NRANKS], iterations[NRANKS];
    const mc_compress_info *info;
} seen;

static void rank_done(void *ctx, int r)
{
    seen *s = ctx;
    s->first[r] = s->info->rank_first;
    s->iterations[r] = s->info->rank_iterations;
}

/* Event i of rank r of dir. */
static mc_event event_at(const char *dir, int r, uint64_t i)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_event e;
    for (uint64_t k = 0; k <= i; k++)
        CHECK(mc_source_next(s, r, &e, &err) == 1);
    mc_event out = e;
    out.vals = NULL;
    mc_source_close(s);
    return out;
}

/* Every event of every rank alike but times; the count. */
static uint64_t compare(const char *x, const char *y)
{
    mc_error err = {0};
    mc_source *a = mc_trace_open(x, &err), *b = mc_trace_open(y, &err);
    CHECK(a && b);
    uint64_t n = 0;
    for (int r = 0; r < NRANKS; r++) {
        mc_event e, f;
        while (mc_source_next(a, r, &e, &err) == 1) {
            CHECK(mc_source_next(b, r, &f, &err) == 1);
            CHECK(e.op == f.op && e.site == f.site && e.peer == f.peer && e.tag == f.tag &&
                  e.bytes == f.bytes && e.req == f.req);
            n++;
        }
        CHECK_EQ_INT(mc_source_next(b, r, &f, &err), 0);
    }
    mc_source_close(a);
    mc_source_close(b);
    return n;
}

static seen compress(const char *in, const char *out, int flags)
{
    mc_error err = {0};
    mc_compress_info info;
    seen s = {.info = &info};
    CHECK(mkdir(out, 0700) == 0);
    if (mc_compress_trace(in, out, flags, &info, rank_done, &s, &err) != MC_OK)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(info.ranks_looped, 2);
    CHECK_EQ_INT(compare(in, out), info.events);
    return s;
}

int main(void)
{
    char root[] = "/tmp/mc_align_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char in[300], plain_dir[300], aligned[300];
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(plain_dir, sizeof plain_dir, "%s/plain", root);
    snprintf(aligned, sizeof aligned, "%s/aligned", root);
    for (int r = 0; r < NRANKS; r++)
        write_rank(in, r);

    /* what makes the case: the finder alone rotates the two loops apart */
    seen p = compress(in, plain_dir, 0);
    printf("finder: rank 0 from event %llu (%s), rank 1 from %llu (site %d)\n",
           (unsigned long long)p.first[0], mc_op_name(event_at(in, 0, p.first[0]).op),
           (unsigned long long)p.first[1], event_at(in, 1, p.first[1]).site);
    CHECK(event_at(in, 0, p.first[0]).site != event_at(in, 1, p.first[1]).site);

    seen a = compress(in, aligned, MC_COMPRESS_ALIGN);
    printf("aligned: rank 0 from event %llu, %llu iterations; rank 1 from %llu, %llu\n",
           (unsigned long long)a.first[0], (unsigned long long)a.iterations[0],
           (unsigned long long)a.first[1], (unsigned long long)a.iterations[1]);
    /* the first Allreduce of each: after Init and one iteration's other events */
    CHECK_EQ_INT(a.first[0], 1 + 8);
    CHECK_EQ_INT(a.first[1], 1 + 9);
    CHECK_EQ_INT(event_at(in, 0, a.first[0]).site, SITE_REDUCE);
    CHECK_EQ_INT(event_at(in, 1, a.first[1]).site, SITE_REDUCE);
    CHECK_EQ_INT(a.iterations[0], ITERS - 1);
    CHECK_EQ_INT(a.iterations[1], ITERS - 1);
    CHECK_EQ_INT(a.first[2], 0);
    CHECK_EQ_INT(a.iterations[2], 0);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return 0;
}
