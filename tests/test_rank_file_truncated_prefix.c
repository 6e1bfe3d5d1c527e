/* A rank file cut at any byte still yields exactly the events of its complete
 * chunks, then a truncation error naming the file and the chunk offset. */
#include "rankfile_util.h"

#define N 50
#define PER_CHUNK 10

int main(void)
{
    char dir[256], path[512], cut[600];
    make_tmpdir(dir, sizeof dir, "trunc");
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 0, 0, PER_CHUNK, &err);
    CHECK(w != NULL);
    long chunk_end[N / PER_CHUNK + 1];
    mc_rank_path(path, sizeof path, dir, 0);
    chunk_end[0] = 32; /* file header */
    for (int i = 0; i < N; i++) {
        mc_event e = ev_make(MC_OP_SEND, 100 * i, 100 * i + 40);
        e.peer = 1;
        e.bytes = 8;
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        if ((i + 1) % PER_CHUNK == 0) {
            CHECK(mc_writer_flush(w, &err) == MC_OK);
            chunk_end[(i + 1) / PER_CHUNK] = file_size(path);
        }
    }
    CHECK(mc_writer_close(w, &err) == MC_OK);
    long size = file_size(path);
    CHECK_EQ_INT(size, chunk_end[N / PER_CHUNK]);

    FILE *in = fopen(path, "rb");
    CHECK(in != NULL);
    unsigned char *buf = malloc((size_t)size);
    CHECK(fread(buf, 1, (size_t)size, in) == (size_t)size);
    fclose(in);
    snprintf(cut, sizeof cut, "%s/cut.mct", dir);
    for (long len = 0; len <= size; len++) {
        FILE *out = fopen(cut, "wb");
        fwrite(buf, 1, (size_t)len, out);
        fclose(out);
        mc_error e2 = {0};
        mc_rank_reader *r = mc_rank_reader_open(cut, &e2);
        if (len < 32) {
            CHECK(r == NULL);
            continue;
        }
        CHECK(r != NULL);
        int complete = 0;
        while (complete < N / PER_CHUNK && chunk_end[complete + 1] <= len)
            complete++;
        mc_event ev;
        int n = 0, rc;
        while ((rc = mc_rank_reader_next(r, &ev, &e2)) == 1)
            n++;
        CHECK_EQ_INT(n, complete * PER_CHUNK);
        if (len == chunk_end[complete]) {
            CHECK_EQ_INT(rc, 0); /* cut exactly between chunks: a clean end */
        } else {
            CHECK_EQ_INT(rc, -1);
            CHECK_EQ_INT(e2.code, MC_ERR_TRUNCATED);
            char where[64];
            snprintf(where, sizeof where, "at offset %ld", chunk_end[complete]);
            CHECK(strstr(e2.msg, where) != NULL);
            CHECK(strstr(e2.msg, cut) != NULL);
        }
        mc_rank_reader_close(r);
    }
    free(buf);
    rm_tree(dir);
    return 0;
}
