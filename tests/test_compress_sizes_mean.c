/* MC_COMPRESS_SIZES_MEAN (mc_compress_trace): iterations that differ only in
 * point-to-point sizes fold into one loop whose sizes are their mean, and a
 * message's two ends get the same mean (extrapolate's rule sizes data).
 *
 * Two ranks, ITERS iterations: rank 0 sends rank 1 a message whose size
 * follows the data (no two iterations alike), rank 1 receives
 * it with an Irecv and a Wait, both then Allreduce. Without the flag no rank
 * has a loop; with it both have one, every event but the sizes is the
 * input's, the sizes inside the loop are one value at all three places
 * (Send, Irecv, the Wait's received bytes), and the bytes sum to the input's
 * within rounding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/compress.h"
#include "mpicast/format.h"
#include "loop_trace.h"

#define ITERS 9
#define NRANKS 2

static int64_t size_at(int it)
{
    return 8 * (1 + (it * 5) % ITERS); /* no two iterations alike */
}

static void write_rank(const char *dir, int r)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w != NULL);
    int64_t now = 1000;
    add(w, &now, plain(MC_OP_INIT, 1));
    for (int i = 0; i < ITERS; i++) {
        if (r == 0) {
            mc_event s = plain(MC_OP_SEND, 10);
            s.peer = 1;
            s.tag = 5;
            s.bytes = size_at(i);
            add(w, &now, s);
        } else {
            mc_event q = plain(MC_OP_IRECV, 11);
            q.peer = 0;
            q.tag = 5;
            q.bytes = size_at(i);
            q.req = (uint32_t)i + 1;
            add(w, &now, q);
            int64_t v[4] = {i + 1, 0, 5, size_at(i)};
            mc_event d = plain(MC_OP_WAIT, 12);
            d.nvals = 4;
            d.vals = v;
            add(w, &now, d);
        }
        mc_event red = plain(MC_OP_ALLREDUCE, 13);
        red.bytes = red.bytes2 = 8;
        red.peer2 = NRANKS;
        add(w, &now, red);
    }
    add(w, &now, plain(MC_OP_FINALIZE, 2));
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

typedef struct run {
    mc_compress_info info;
    uint64_t first[NRANKS], iterations[NRANKS];
} run;

static void rank_done(void *ctx, int r)
{
    run *s = ctx;
    s->first[r] = s->info.rank_first;
    s->iterations[r] = s->info.rank_iterations;
}

static run compress(const char *in, const char *out, int flags)
{
    mc_error err = {0};
    run s;
    memset(&s, 0, sizeof s);
    CHECK(mkdir(out, 0700) == 0);
    if (mc_compress_trace(in, out, flags, &s.info, rank_done, &s, &err) != MC_OK)
        fprintf(stderr, "%s\n", err.msg);
    return s;
}

/* The point-to-point sizes of every event of the two streams, side by side,
 * after checking that the other fields agree: sizes[r][i] (0: none). */
static int64_t sizes[2][NRANKS][3 * ITERS + 2];
static void read_both(const char *in, const char *out)
{
    mc_error err = {0};
    const char *dirs[2] = {in, out};
    mc_source *s[2];
    for (int k = 0; k < 2; k++)
        CHECK((s[k] = mc_trace_open(dirs[k], &err)) != NULL);
    for (int r = 0; r < NRANKS; r++) {
        mc_event e[2];
        int i = 0;
        while (mc_source_next(s[0], r, &e[0], &err) == 1) {
            CHECK(i < 3 * ITERS + 2);
            CHECK(mc_source_next(s[1], r, &e[1], &err) == 1);
            CHECK(e[0].op == e[1].op && e[0].site == e[1].site && e[0].peer == e[1].peer &&
                  e[0].tag == e[1].tag && e[0].req == e[1].req && e[0].nvals == e[1].nvals);
            for (int k = 0; k < 2; k++)
                sizes[k][r][i] = e[k].op == MC_OP_WAIT ? e[k].vals[3]
                                 : e[k].op == MC_OP_ALLREDUCE ? 0
                                                              : e[k].bytes;
            if (e[0].op == MC_OP_WAIT)
                CHECK(e[0].vals[0] == e[1].vals[0] && e[0].vals[1] == e[1].vals[1] &&
                      e[0].vals[2] == e[1].vals[2]);
            i++;
        }
        CHECK_EQ_INT(mc_source_next(s[1], r, &e[1], &err), 0);
    }
    mc_source_close(s[0]);
    mc_source_close(s[1]);
}

int main(void)
{
    char root[] = "/tmp/mc_sizes_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char in[300], exact[300], mean[300];
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(exact, sizeof exact, "%s/exact", root);
    snprintf(mean, sizeof mean, "%s/mean", root);
    for (int r = 0; r < NRANKS; r++)
        write_rank(in, r);

    run a = compress(in, exact, 0);
    CHECK_EQ_INT(a.info.ranks_looped, 0); /* the sizes differ every iteration */

    run m = compress(in, mean, MC_COMPRESS_SIZES_MEAN);
    CHECK_EQ_INT(m.info.ranks_looped, NRANKS);
    printf("sizes aside: rank 0 from event %llu, %llu iterations; rank 1 from %llu, %llu\n",
           (unsigned long long)m.first[0], (unsigned long long)m.iterations[0],
           (unsigned long long)m.first[1], (unsigned long long)m.iterations[1]);
    CHECK(m.iterations[0] >= ITERS - 1 && m.iterations[1] >= ITERS - 1);
    read_both(in, mean);
    /* the i-th message: Send 2i+1 on rank 0 (after Init), Irecv 3i+1 and Wait
     * 3i+2 on rank 1 */
    int64_t traced = 0, folded = 0, in_loop = -1;
    for (int i = 0; i < ITERS; i++) {
        int64_t s = sizes[1][0][2 * i + 1];
        CHECK(sizes[1][1][3 * i + 1] == s && sizes[1][1][3 * i + 2] == s);
        CHECK_EQ_INT(sizes[0][0][2 * i + 1], size_at(i));
        traced += size_at(i);
        folded += s;
        /* inside both loops one value */
        if ((uint64_t)(2 * i + 1) >= m.first[0] + 1 && (uint64_t)(3 * i + 1) >= m.first[1] + 1) {
            if (in_loop < 0)
                in_loop = s;
            CHECK_EQ_INT(s, in_loop);
        }
    }
    printf("bytes: traced %lld, folded %lld\n", (long long)traced, (long long)folded);
    CHECK(folded - traced <= ITERS / 2 && traced - folded <= ITERS / 2);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return 0;
}
