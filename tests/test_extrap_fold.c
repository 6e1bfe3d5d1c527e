/* Folded inputs (issue 26: extrapolate in memory bounded by the program's
 * structure, not its run length; docs/extrapolation.md, "Large inputs").
 * Synthetic ring traces (no MPI): per iteration Irecv from the left, Isend
 * to the right, Waitall, with bursts that vary by iteration; after the
 * loop one more exchange (request ids going on) and an Allreduce.
 *
 *  1. Built folded (MPICAST_EXTRAP_FOLD=1) from P=4 and P=6, the stream at
 *     P=12 equals the unfolded build's and a ring written at 12 ranks in
 *     every field but times (request ids after the loop included), the
 *     compute per rank equals the traced one to rounding, --explain says
 *     the inputs were folded, and no temporary directory is left.
 *  2. Refused with the reason: loops of 10 and 12 iterations in the two
 *     traces; an iteration that differs from the others. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "extrap_explain.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"

static mc_event ev(int op, int64_t *now, int64_t burst)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.site = 10 + op;
    e.comm = MC_COMM_WORLD;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = MC_COMM_NULL;
    e.cpu = -1;
    e.burst = burst;
    e.t_start = *now + burst;
    e.t_end = e.t_start + 50;
    *now = e.t_end;
    return e;
}

static void put(mc_writer *w, const mc_event *e)
{
    mc_error err = {0};
    CHECK(mc_writer_add(w, e, &err) == MC_OK);
}

/* One exchange with the ring neighbours: ids id, id + 1. */
static void exchange(mc_writer *w, int r, int P, int tag, uint32_t id, int64_t *now,
                     int64_t burst)
{
    int left = (r + P - 1) % P, right = (r + 1) % P;
    mc_event e = ev(MC_OP_IRECV, now, burst);
    e.peer = left, e.tag = tag, e.bytes = 64, e.req = id;
    put(w, &e);
    e = ev(MC_OP_ISEND, now, 10);
    e.peer = right, e.tag = tag, e.bytes = 64, e.req = id + 1;
    put(w, &e);
    int64_t v[8] = {id, left, tag, 64, id + 1, MC_NONE, MC_NONE, 0};
    e = ev(MC_OP_WAITALL, now, 10);
    e.vals = v, e.nvals = 8;
    put(w, &e);
}

/* Rank 1's Allreduce after the loop reduces this many bytes (others: 8). */
static int64_t rank1_allreduce = 8;

/* The ring program at P ranks, iters iterations (odd >= 0: that iteration
 * uses tag 9); *burst_sum: rank 0's compute. */
static void ring(const char *dir, int P, int iters, int odd, int64_t *burst_sum)
{
    CHECK(mkdir(dir, 0700) == 0);
    for (int r = 0; r < P; r++) {
        mc_error err = {0};
        mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
        CHECK(w);
        int64_t now = 0, sum = 0;
        mc_event e = ev(MC_OP_INIT, &now, 0);
        put(w, &e);
        uint32_t id = 1;
        for (int it = 0; it < iters; it++, id += 2) {
            int64_t b = 1000 + 37 * ((it * 5 + r) % 11);
            exchange(w, r, P, it == odd ? 9 : 1, id, &now, b);
            sum += b + 20;
        }
        exchange(w, r, P, 2, id, &now, 500);
        e = ev(MC_OP_ALLREDUCE, &now, 300);
        e.bytes = e.bytes2 = r == 1 ? rank1_allreduce : 8, e.peer2 = P;
        put(w, &e);
        e = ev(MC_OP_FINALIZE, &now, 100);
        put(w, &e);
        sum += 520 + 300 + 100;
        CHECK(mc_writer_close(w, &err) == MC_OK);
        if (r == 0 && burst_sum)
            *burst_sum = sum;
    }
}

static mc_extrap *build(const char *a, const char *b, const char *fold, mc_error *err)
{
    setenv("MPICAST_EXTRAP_FOLD", fold, 1);
    const char *t[2] = {a, b};
    memset(err, 0, sizeof *err);
    return mc_extrap_build(t, 2, NULL, err);
}

static int temp_entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strncmp(de->d_name, "mpicast-", 8) == 0;
    closedir(d);
    return n;
}

int main(void)
{
    char root[] = "/tmp/mc_fold_XXXXXX", tmp[4200], p4[4200], p6[4200], p12[4200],
         q6[4200], o6[4200];
    CHECK(mkdtemp(root));
    snprintf(tmp, sizeof tmp, "%s/tmp", root);
    CHECK(mkdir(tmp, 0700) == 0);
    setenv("TMPDIR", tmp, 1);
    snprintf(p4, sizeof p4, "%s/p4", root);
    snprintf(p6, sizeof p6, "%s/p6", root);
    snprintf(p12, sizeof p12, "%s/p12", root);
    snprintf(q6, sizeof q6, "%s/q6", root);
    snprintf(o6, sizeof o6, "%s/o6", root);
    int64_t traced = 0;
    ring(p4, 4, 10, -1, NULL);
    ring(p6, 6, 10, -1, NULL);
    ring(p12, 12, 10, -1, &traced);
    ring(q6, 6, 12, -1, NULL);
    ring(o6, 6, 10, 5, NULL);

    /* 1. folded = unfolded = the real ring, times aside */
    mc_error err;
    mc_extrap *xf = build(p4, p6, "1", &err);
    if (!xf)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(xf);
    mc_extrap *xu = build(p4, p6, "1000000", &err);
    CHECK(xu);
    char *text = explain_text(xf, 12);
    CHECK(strstr(text, "read as two iterations (4 of 4 ranks have one"));
    CHECK(strstr(text, "read as two iterations (6 of 6 ranks have one"));
    free(text);
    text = explain_text(xu, 12);
    CHECK(!strstr(text, "read as two iterations"));
    free(text);
    CHECK_EQ_INT(mc_extrap_checked(xf), 2); /* leave-one-out on the full streams */

    mc_source *sf = mc_extrap_source(xf, 12, &err), *su = mc_extrap_source(xu, 12, &err);
    CHECK(sf && su);
    mc_extrap_diff d;
    uint64_t n = 0;
    int rc = mc_extrap_compare(sf, su, &d, &n, NULL, NULL, &err);
    if (rc)
        fprintf(stderr, "folded vs unfolded: rank %d event %llu: %s\n", d.rank,
                (unsigned long long)d.index, d.what);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(n, 12 * (3 * 10 + 3 + 3));
    mc_source_close(sf);
    mc_source_close(su);
    sf = mc_extrap_source(xf, 12, &err);
    mc_source *real = mc_trace_open(p12, &err);
    CHECK(sf && real);
    rc = mc_extrap_compare(sf, real, &d, &n, NULL, NULL, &err);
    if (rc)
        fprintf(stderr, "folded vs real: rank %d event %llu: %s\n", d.rank,
                (unsigned long long)d.index, d.what);
    CHECK_EQ_INT(rc, 0);
    mc_source_close(sf);
    mc_source_close(real);

    /* rank 0's compute: the loop's mean times its iterations, to rounding */
    sf = mc_extrap_source(xf, 12, &err);
    mc_event e;
    int64_t sum = 0;
    uint32_t last_req = 0;
    while (mc_source_next(sf, 0, &e, &err) == 1) {
        sum += e.burst;
        last_req = e.req > last_req ? e.req : last_req;
    }
    mc_source_close(sf);
    CHECK(llabs(sum - traced) <= 10);
    CHECK_EQ_INT(last_req, 2 * 10 + 2); /* the exchange after the loop: ids 21, 22 */
    mc_extrap_destroy(xf);
    mc_extrap_destroy(xu);
    CHECK_EQ_INT(temp_entries(tmp), 0);

    /* 2. refusals */
    CHECK(!build(p4, q6, "1", &err));
    if (!strstr(err.msg, "main loop runs 10 iterations at P=4, 12 at P=6"))
        fprintf(stderr, "%s\n", err.msg);
    CHECK(strstr(err.msg, "main loop runs 10 iterations at P=4, 12 at P=6"));
    CHECK(!build(p4, o6, "1", &err));
    if (!strstr(err.msg, "differs from the others"))
        fprintf(stderr, "%s\n", err.msg);
    CHECK(strstr(err.msg, "rank 0: an iteration of its main loop differs from the others"));
    CHECK(strstr(err.msg, o6));
    CHECK_EQ_INT(temp_entries(tmp), 0);
    /* a refusal after the loop names the event as the trace numbers it (1 + 3
     * x 10 + 3 = 34), not as the folded copy does (1 + 3 x 2 + 3 = 10) */
    char a6[4200], want[200];
    snprintf(a6, sizeof a6, "%s/a6", root);
    rank1_allreduce = 16;
    ring(a6, 6, 10, -1, NULL);
    snprintf(want, sizeof want, "rank 1 event 34 (Allreduce, site %x) and rank 2 event 34",
             10 + MC_OP_ALLREDUCE);
    for (int folded = 0; folded < 2; folded++) {
        CHECK(!build(p4, a6, folded ? "1" : "1000000", &err));
        if (!strstr(err.msg, want))
            fprintf(stderr, "%s\n", err.msg);
        CHECK(strstr(err.msg, want));
        CHECK(strstr(err.msg, "differ in size 16 against 8: not explained"));
    }
    CHECK_EQ_INT(temp_entries(tmp), 0);

    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    puts("ok: folded extrapolation equals the unfolded one and the real ring; refusals");
    return 0;
}
