/* A rank file written with the compressor thread (mc_writer_start_thread)
 * is the same, byte for byte, as one compressed on the caller's thread: the
 * same events, chunk borders, pushes, folded polls and an event larger than
 * the buffer. Also: events are readable back in order after the thread. */
#include "rankfile_util.h"

#define N 40000
#define BIG 50000 /* values of the one event larger than the chunk buffer */

static int64_t vals[BIG];

/* Event i of the stream: sends, failed Tests in runs (folded), requests with
 * values, and one huge event in the middle. */
static mc_event event_i(int i)
{
    int64_t t = 1000 * (int64_t)i;
    mc_event e = ev_make(MC_OP_ISEND, t, t + 300 + i % 17);
    e.site = 1 + i % 13 * 104729;
    e.peer = i % 5;
    e.tag = i % 3;
    e.bytes = (int64_t)(i % 97) * 4096;
    e.req = (uint32_t)i;
    if (i % 50 >= 30) { /* a run of 20 failed polls, 100 ns apart */
        e = ev_make(MC_OP_TEST, t, t + 900);
        e.site = 77;
    } else if (i % 7 == 0) {
        e.op = MC_OP_WAITALL;
        e.nvals = (uint32_t)(i % 11);
        e.vals = vals;
    }
    if (i == N / 2) {
        e.op = MC_OP_WAITALL;
        e.nvals = BIG;
        e.vals = vals;
    }
    return e;
}

/* Writes the stream to DIR/rank-000000.mct; threaded or not. */
static void write_stream(const char *dir, int threaded)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 0, MC_WRITER_ENDS_WITH_FINALIZE, 1000, &err);
    CHECK(w != NULL);
    mc_writer_set_fold(w, 200);
    if (threaded)
        CHECK(mc_writer_start_thread(w) == 0);
    for (int i = 0; i < N; i++) {
        mc_event e = event_i(i);
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        if (i % 777 == 0) /* the tracer's periodic flush */
            CHECK(mc_writer_push(w, &err) == MC_OK);
        if (i == 31234)
            CHECK(mc_writer_flush(w, &err) == MC_OK);
    }
    CHECK(mc_writer_wait_written(w) == 0);
    mc_event fin = ev_make(MC_OP_FINALIZE, 1000 * (int64_t)N, 1000 * (int64_t)N + 5);
    CHECK(mc_writer_add(w, &fin, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static unsigned char *slurp(const char *path, long *len)
{
    *len = file_size(path);
    unsigned char *buf = malloc((size_t)*len);
    FILE *f = fopen(path, "rb");
    CHECK(buf && f && fread(buf, 1, (size_t)*len, f) == (size_t)*len);
    fclose(f);
    return buf;
}

int main(void)
{
    for (int k = 0; k < BIG; k++)
        vals[k] = (int64_t)k * 2654435761u % 100003;
    char inl[256], thr[256], a[300], b[300];
    make_tmpdir(inl, sizeof inl, "wr-inline");
    make_tmpdir(thr, sizeof thr, "wr-thread");
    write_stream(inl, 0);
    write_stream(thr, 1);
    mc_rank_path(a, sizeof a, inl, 0);
    mc_rank_path(b, sizeof b, thr, 0);
    long la, lb;
    unsigned char *da = slurp(a, &la), *db = slurp(b, &lb);
    CHECK_EQ_INT(la, lb);
    CHECK(memcmp(da, db, (size_t)la) == 0);

    /* and it reads back: every event in order, polls folded */
    mc_error err = {0};
    mc_rank_reader *r = mc_rank_reader_open(b, &err);
    CHECK(r != NULL);
    mc_event e;
    uint64_t calls = 0, records = 0;
    int got_big = 0;
    while (mc_rank_reader_next(r, &e, &err) == 1) {
        calls += mc_event_calls(&e);
        records++;
        got_big |= e.nvals == BIG;
    }
    CHECK_EQ_INT(err.code, MC_OK);
    CHECK_EQ_INT(calls, N + 1);
    CHECK(records < N);
    CHECK(got_big);
    mc_rank_reader_close(r);
    printf("%ld bytes, %llu records for %d calls, identical\n", la, (unsigned long long)records,
           N + 1);
    free(da);
    free(db);
    rm_tree(inl);
    rm_tree(thr);
    return 0;
}
