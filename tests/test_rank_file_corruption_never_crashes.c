/* Bit flips and garbage anywhere in a rank file give errors or valid events,
 * never a crash, a hang or a huge allocation (run under ASan in make check). */
#include "rankfile_util.h"

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    char dir[256], path[512], bad[600];
    make_tmpdir(dir, sizeof dir, "corrupt");
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 0, 0, 16, &err);
    CHECK(w != NULL);
    int64_t vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < 64; i++) {
        mc_event e = ev_make(i % 3 ? MC_OP_ISEND : MC_OP_WAITALL, 10 * i, 10 * i + 5);
        e.peer = i % 4;
        e.req = (uint32_t)i;
        e.nvals = i % 3 ? 0 : 8;
        e.vals = e.nvals ? vals : NULL;
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    }
    CHECK(mc_writer_close(w, &err) == MC_OK);
    mc_rank_path(path, sizeof path, dir, 0);
    long size = file_size(path);
    FILE *in = fopen(path, "rb");
    unsigned char *orig = malloc((size_t)size), *buf = malloc((size_t)size);
    CHECK(fread(orig, 1, (size_t)size, in) == (size_t)size);
    fclose(in);
    snprintf(bad, sizeof bad, "%s/bad.mct", dir);

    int errors = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(buf, orig, (size_t)size);
        int flips = 1 + (int)(next_rand() % 4);
        for (int k = 0; k < flips; k++) {
            long pos = (long)(next_rand() % (unsigned long long)size);
            if (iter % 3 == 0)
                buf[pos] = (unsigned char)next_rand(); /* garbage byte */
            else
                buf[pos] ^= (unsigned char)(1u << (next_rand() % 8));
        }
        FILE *out = fopen(bad, "wb");
        fwrite(buf, 1, (size_t)size, out);
        fclose(out);
        mc_error e2 = {0};
        mc_rank_reader *r = mc_rank_reader_open(bad, &e2);
        if (!r) {
            errors++;
            CHECK(e2.msg[0] != '\0');
            continue;
        }
        mc_event ev;
        int rc, n = 0;
        while ((rc = mc_rank_reader_next(r, &ev, &e2)) == 1) {
            CHECK(ev.op >= 0 && ev.op < MC_OP_COUNT);
            CHECK(++n <= 64);
        }
        if (rc < 0) {
            errors++;
            CHECK(strstr(e2.msg, "bad.mct") != NULL);
        }
        mc_rank_reader_close(r);
    }
    /* CRCs catch (nearly) every flip: most runs must end in an error */
    CHECK(errors > 2900);
    free(orig);
    free(buf);
    rm_tree(dir);
    return 0;
}
