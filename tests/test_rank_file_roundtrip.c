/* Every field of every event survives write + read, across chunk borders,
 * and readers derive the compute burst from consecutive times. One rule
 * changes a field: an MC_COMM_NULL newcomm (what older tracers stored in
 * every event) reads as 0 outside communicator management and stays
 * MC_COMM_NULL there. */
#include "rankfile_util.h"

#define N 100

static mc_event event_i(int i, int64_t *vals)
{
    mc_event e = ev_make(i % MC_OP_COUNT, 1000 * i + (i % 7), 1000 * i + 500 + i);
    e.site = i * 7919 % 100000;
    e.comm = i % 3 == 0 ? MC_COMM_WORLD : ((uint64_t)i << 32) | (uint64_t)(i % 5);
    e.peer = i % 4 == 0 ? MC_NONE : (i % 4 == 1 ? MC_ANY : i % 11);
    e.tag = i % 9 - 2;
    e.bytes = (int64_t)i * i * 1000003;
    e.peer2 = i % 6 ? i : MC_NONE;
    e.tag2 = -i;
    e.bytes2 = i % 2 ? -1 : (int64_t)1 << (i % 50);
    e.req = (uint32_t)(i % 3 ? i : 0);
    e.newcomm = i % 10 == 0 || mc_op_kind_of(e.op) == MC_KIND_M ? MC_COMM_NULL : 0;
    e.cpu = i % 5 ? i * 3 : -1;
    e.nvals = (uint32_t)(i % 4);
    for (uint32_t k = 0; k < e.nvals; k++)
        vals[k] = (int64_t)k * -123456789 + i;
    e.vals = e.nvals ? vals : NULL;
    return e;
}

static int null_kept, null_read_as_0;

/* a: read back, b: as written */
static void check_same(const mc_event *a, const mc_event *b)
{
    CHECK_EQ_INT(a->op, b->op);
    CHECK_EQ_INT(a->site, b->site);
    CHECK(a->comm == b->comm);
    CHECK_EQ_INT(a->peer, b->peer);
    CHECK_EQ_INT(a->tag, b->tag);
    CHECK_EQ_INT(a->bytes, b->bytes);
    CHECK_EQ_INT(a->peer2, b->peer2);
    CHECK_EQ_INT(a->tag2, b->tag2);
    CHECK_EQ_INT(a->bytes2, b->bytes2);
    CHECK_EQ_INT(a->req, b->req);
    if (b->newcomm == MC_COMM_NULL && mc_op_kind_of(b->op) != MC_KIND_M) {
        CHECK(a->newcomm == 0);
        null_read_as_0++;
    } else {
        CHECK(a->newcomm == b->newcomm);
        null_kept += b->newcomm == MC_COMM_NULL;
    }
    CHECK_EQ_INT(a->t_start, b->t_start);
    CHECK_EQ_INT(a->t_end, b->t_end);
    CHECK_EQ_INT(a->cpu, b->cpu);
    CHECK_EQ_INT(a->nvals, b->nvals);
    for (uint32_t k = 0; k < a->nvals; k++)
        CHECK_EQ_INT(a->vals[k], b->vals[k]);
}

int main(void)
{
    char dir[256], path[512];
    make_tmpdir(dir, sizeof dir, "roundtrip");
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 3, MC_WRITER_CPU, 7, &err); /* 7 events per chunk */
    CHECK(w != NULL);
    int64_t vals[4];
    for (int i = 0; i < N; i++) {
        mc_event e = event_i(i, vals);
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    }
    CHECK(mc_writer_close(w, &err) == MC_OK);

    mc_rank_path(path, sizeof path, dir, 3);
    mc_rank_reader *r = mc_rank_reader_open(path, &err);
    CHECK(r != NULL);
    mc_event got;
    int64_t prev_end = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(mc_rank_reader_next(r, &got, &err), 1);
        mc_event want = event_i(i, vals);
        check_same(&got, &want);
        CHECK_EQ_INT(got.burst, i == 0 ? 0 : want.t_start - prev_end);
        prev_end = want.t_end;
    }
    CHECK_EQ_INT(mc_rank_reader_next(r, &got, &err), 0);
    CHECK_EQ_INT(mc_rank_reader_next(r, &got, &err), 0);
    CHECK(null_kept > 0 && null_read_as_0 > 0); /* both cases were written */
    mc_rank_reader_close(r);
    mc_rank_reader_close(NULL);
    mc_writer_close(NULL, NULL);

    /* A version this reader does not know is refused with the file named. */
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    fseek(f, 8, SEEK_SET);
    fputc(99, f);
    fclose(f);
    CHECK(mc_rank_reader_open(path, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_VERSION);
    CHECK(strstr(err.msg, path) != NULL);
    rm_tree(dir);
    return 0;
}
