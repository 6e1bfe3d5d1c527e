/* A trace directory without meta.json opens from its rank files; wildcard
 * Irecvs are delivered with the source and tag their Waitall recorded; a
 * missing rank file is an error naming it. */
#include "rankfile_util.h"

static void write_rank0(const char *dir)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 0, 0, 2, &err);
    CHECK(w != NULL);
    mc_event e = ev_make(MC_OP_IRECV, 10, 20);
    e.peer = MC_ANY;
    e.tag = MC_ANY;
    e.bytes = 64;
    e.req = 1;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    e = ev_make(MC_OP_IRECV, 30, 40);
    e.peer = MC_ANY;
    e.tag = 5;
    e.bytes = 64;
    e.req = 2;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    e = ev_make(MC_OP_SEND, 50, 60);
    e.peer = 2;
    e.bytes = 8;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    int64_t done[8] = {2, 2, 5, 64, 1, 1, 77, 32}; /* req 2 from rank 2, req 1 from rank 1 */
    e = ev_make(MC_OP_WAITALL, 70, 90);
    e.nvals = 8;
    e.vals = done;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static void write_empty_rank(const char *dir, int rank)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, rank, 0, 0, &err);
    CHECK(w != NULL);
    mc_event e = ev_make(MC_OP_INIT, 0, 5);
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

int main(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "source");
    write_rank0(dir);
    write_empty_rank(dir, 1);
    write_empty_rank(dir, 2);
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s != NULL);
    CHECK_EQ_INT(s->nranks, 3);
    CHECK(mc_trace_meta(s) == NULL);
    mc_event e;
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1);
    CHECK_EQ_INT(e.op, MC_OP_IRECV);
    CHECK_EQ_INT(e.peer, 1);
    CHECK_EQ_INT(e.tag, 77);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1);
    CHECK_EQ_INT(e.peer, 2);
    CHECK_EQ_INT(e.tag, 5);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1);
    CHECK_EQ_INT(e.op, MC_OP_SEND);
    CHECK_EQ_INT(e.burst, 10);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1);
    CHECK_EQ_INT(e.op, MC_OP_WAITALL);
    CHECK_EQ_INT(e.nvals, 8);
    CHECK_EQ_INT(e.vals[6], 77);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 0);
    CHECK_EQ_INT(mc_source_next(s, 2, &e, &err), 1);
    CHECK_EQ_INT(e.op, MC_OP_INIT);
    CHECK_EQ_INT(mc_source_next(s, 3, &e, &err), -1);
    mc_source_close(s);

    char path[512];
    mc_rank_path(path, sizeof path, dir, 1);
    CHECK(unlink(path) == 0);
    CHECK(mc_trace_open(dir, &err) == NULL);
    CHECK(strstr(err.msg, "rank-000001.mct") != NULL);
    rm_tree(dir);
    CHECK(mc_trace_open("/nonexistent/dir", &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_IO);
    return 0;
}
