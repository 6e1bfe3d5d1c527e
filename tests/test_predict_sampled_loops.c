/* predict --iterations K (mc_predict_request.iterations): a loop-compressed
 * trace replayed with its loops cut to K and 2K iterations and extended
 * linearly. 2 ranks, 1000 iterations of (Irecv, Isend, Waitall, Allreduce)
 * with the same bursts every iteration and a prologue and epilogue: the
 * iterations cost the same, so the sampled prediction equals the full one
 * to the picosecond, rank by rank and with the breakdown. A trace without
 * loop records is compressed on the fly (a private temporary directory,
 * removed) and gives the same figures; one whose ranks' loops
 * differ (rank 1's Allreduce at another site in iteration 500: its loop is
 * two records, so the cut leaves out more iterations on rank 0 than on rank
 * 1 and the replay cannot match their messages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/compress.h"
#include "mpicast/format.h"
#include "mpicast/predict.h"

static void add(mc_writer *w, int64_t *now, int64_t burst, mc_event e)
{
    mc_error err = {0};
    e.cpu = -1;
    e.tag2 = MC_NONE;
    if (!e.peer2)
        e.peer2 = MC_NONE;
    e.t_start = *now + burst;
    e.t_end = e.t_start + 100;
    *now = e.t_end;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
}

static void write_rank(const char *dir, int r, int odd)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w != NULL);
    int64_t now = 0;
    uint32_t req = 0;
    add(w, &now, 0, (mc_event){.op = MC_OP_INIT, .peer = MC_NONE, .tag = MC_NONE});
    add(w, &now, 7000 * (r + 1), (mc_event){.op = MC_OP_BCAST, .site = 2, .peer = 0, .tag = MC_NONE, .bytes = 4096, .peer2 = 2, .bytes2 = 4096});
    for (int i = 0; i < 1000; i++) {
        uint32_t q1 = ++req, q2 = ++req;
        add(w, &now, 3000 + 500 * r, (mc_event){.op = MC_OP_IRECV, .site = 10, .peer = 1 - r, .tag = 5, .bytes = 65536, .req = q1});
        add(w, &now, 20, (mc_event){.op = MC_OP_ISEND, .site = 11, .peer = 1 - r, .tag = 5, .bytes = 65536, .req = q2});
        int64_t vals[8] = {q1, 1 - r, 5, 65536, q2, MC_NONE, MC_NONE, 0};
        add(w, &now, 40, (mc_event){.op = MC_OP_WAITALL, .site = 12, .peer = MC_NONE, .tag = MC_NONE, .nvals = 8, .vals = vals});
        int site = odd && r == 1 && i == 500 ? 14 : 13;
        add(w, &now, 1500, (mc_event){.op = MC_OP_ALLREDUCE, .site = site, .peer = MC_NONE, .tag = MC_NONE, .bytes = 8, .peer2 = 2, .bytes2 = 8});
    }
    add(w, &now, 9000, (mc_event){.op = MC_OP_REDUCE, .site = 3, .peer = 0, .tag = MC_NONE, .bytes = 8, .peer2 = 2, .bytes2 = 8});
    add(w, &now, 10, (mc_event){.op = MC_OP_FINALIZE, .peer = MC_NONE, .tag = MC_NONE});
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static mc_err predict(const char *dir, uint64_t k, mc_predict_result *res, mc_error *err)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    CHECK(mc_platform_set(p, "network.bandwidth=2GB/s", err) == MC_OK);
    CHECK(mc_platform_set(p, "network.latency=3us", err) == MC_OK);
    mc_predict_request rq = {.trace = dir, .platform = p, .breakdown = 1, .jobs = 1,
                             .iterations = k};
    mc_err rc = mc_predict_run(&rq, res, err);
    mc_platform_destroy(p);
    return rc;
}

int main(void)
{
    char root[] = "/tmp/mc_sampled_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char in[300], comp[300], odd[300], oddc[300];
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(comp, sizeof comp, "%s/means", root);
    snprintf(odd, sizeof odd, "%s/odd", root);
    snprintf(oddc, sizeof oddc, "%s/oddc", root);
    for (int r = 0; r < 2; r++) {
        write_rank(in, r, 0);
        write_rank(odd, r, 1);
    }
    CHECK(mkdir(comp, 0700) == 0);
    mc_error err = {0};
    CHECK(mc_compress_trace(in, comp, 0, NULL, NULL, NULL, &err) == MC_OK);

    mc_predict_result full, quick;
    CHECK(predict(comp, 0, &full, &err) == MC_OK);
    CHECK(predict(comp, 4, &quick, &err) == MC_OK);
    CHECK_EQ_INT(quick.sampled_records, 1);
    CHECK_EQ_INT(quick.sampled_skipped, 1000 - 4);
    printf("full %lld ps, sampled %lld ps\n", (long long)full.run.end, (long long)quick.run.end);
    CHECK_EQ_INT(quick.run.end, full.run.end);
    CHECK_EQ_INT(quick.free_run.end, full.free_run.end);
    CHECK_EQ_INT(quick.run.messages, full.run.messages);
    CHECK_EQ_INT(quick.run.events, full.run.events);
    for (int r = 0; r < 2; r++) {
        CHECK_EQ_INT(quick.run.ranks[r].end, full.run.ranks[r].end);
        CHECK_EQ_INT(quick.run.ranks[r].compute, full.run.ranks[r].compute);
        CHECK_EQ_INT(quick.run.ranks[r].comm, full.run.ranks[r].comm);
        CHECK_EQ_INT(quick.run.ranks[r].wait, full.run.ranks[r].wait);
    }
    mc_predict_result_free(&full);
    mc_predict_result_free(&quick);

    /* the uncompressed trace is compressed on the fly into a private
     * temporary directory, sampled there (the same figures), and the
     * directory removed */
    char tmpd[320];
    snprintf(tmpd, sizeof tmpd, "%s/tmp", root);
    CHECK(mkdir(tmpd, 0700) == 0);
    CHECK(setenv("TMPDIR", tmpd, 1) == 0);
    mc_predict_result res, whole;
    CHECK(predict(in, 0, &whole, &err) == MC_OK);
    CHECK(predict(in, 4, &res, &err) == MC_OK);
    CHECK_EQ_INT(res.sampled_records, 1);
    CHECK_EQ_INT(res.sampled_skipped, 1000 - 4);
    CHECK_EQ_INT(res.run.end, whole.run.end);
    CHECK_EQ_INT(res.free_run.end, whole.free_run.end);
    for (int r = 0; r < 2; r++)
        CHECK_EQ_INT(res.run.ranks[r].wait, whole.run.ranks[r].wait);
    mc_predict_result_free(&res);
    mc_predict_result_free(&whole);
    CHECK(rmdir(tmpd) == 0); /* empty: the compressed copy is gone */
    CHECK(mkdir(tmpd, 0700) == 0);

    /* loops of other lengths on the two ranks: refused, naming the rank;
     * on the fly too, naming the user's trace, not the temporary copy */
    CHECK(mkdir(oddc, 0700) == 0);
    CHECK(mc_compress_trace(odd, oddc, 0, NULL, NULL, NULL, &err) == MC_OK);
    CHECK(predict(oddc, 4, &res, &err) == MC_ERR_USAGE);
    if (!strstr(err.msg, "the ranks' loops differ"))
        fprintf(stderr, "unexpected: %s\n", err.msg);
    CHECK(strstr(err.msg, "the ranks' loops differ") != NULL);
    mc_predict_result_free(&res);
    CHECK(predict(odd, 4, &res, &err) == MC_ERR_USAGE);
    CHECK(strstr(err.msg, "the ranks' loops differ") != NULL);
    CHECK(strncmp(err.msg, odd, strlen(odd)) == 0 && !strstr(err.msg, "mpicast-sample"));
    mc_predict_result_free(&res);
    CHECK(rmdir(tmpd) == 0);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return 0;
}
