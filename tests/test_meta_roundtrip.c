/* meta.json written then read back gives every field unchanged; adding a
 * duplicate id keeps the first; lookups find by id. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/format.h"

static void make_dir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/mc-meta-XXXXXX");
    CHECK(mkdtemp(buf) != NULL);
}

static mc_meta *build(void)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_create(4);
    CHECK(m != NULL);
    CHECK_EQ_INT(mc_meta_set(m, "command", "mpirun -np 4 ./halo2d 100 \"x y\"", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(m, "mpi_library", "Open MPI v4.1.4", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(m, "timer", "clock_gettime(CLOCK_MONOTONIC)", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(m, "mode", "wall", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(m, "start", "2026-11-22T00:30:00Z", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(m, "bogus", "x", &err), MC_ERR_USAGE);

    const int32_t world[] = {0, 1, 2, 3}, row[] = {2, 3}, inter[] = {1, 3, 0};
    CHECK_EQ_INT(mc_meta_add_comm(m, MC_COMM_WORLD, world, 4, 4, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_comm(m, (3ull << 32) | 2, row, 2, 2, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_comm(m, (7ull << 32) | 0, inter, 3, 2, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_comm(m, MC_COMM_SELF_BASE | 3, world + 3, 1, 1, &err), MC_OK);
    /* a duplicate id is ignored, the first one stays */
    CHECK_EQ_INT(mc_meta_add_comm(m, (3ull << 32) | 2, world, 4, 4, &err), MC_OK);
    const int32_t out_of_range[] = {0, 4};
    CHECK_EQ_INT(mc_meta_add_comm(m, 9ull << 32, out_of_range, 2, 2, &err), MC_ERR_USAGE);

    mc_meta_site a = {0x1234567, "/usr/bin/halo2d", 0x1a2b, "exchange", "halo2d.c", 42};
    mc_meta_site b = {0x7fffffff, "/usr/lib/libfoo.so", 0xffffffffffffff00ull, "", "", 0};
    mc_meta_site dup = {0x1234567, "other", 1, "f", "g.c", 1};
    CHECK_EQ_INT(mc_meta_add_site(m, &a, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_site(m, &b, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_site(m, &dup, &err), MC_OK);
    return m;
}

static void check_same(const mc_meta *x, const mc_meta *y)
{
    CHECK_EQ_INT(mc_meta_nranks(y), mc_meta_nranks(x));
    const char *keys[] = {"command", "mpi_library", "timer", "mode", "start"};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_STR(mc_meta_get(y, keys[i]), mc_meta_get(x, keys[i]));
    CHECK_EQ_INT(mc_meta_ncomms(y), mc_meta_ncomms(x));
    for (size_t i = 0; i < mc_meta_ncomms(x); i++) {
        const mc_meta_comm *a = mc_meta_comm_at(x, i), *b = mc_meta_comm_at(y, i);
        CHECK(a->id == b->id);
        CHECK_EQ_INT(b->size, a->size);
        CHECK_EQ_INT(b->local_size, a->local_size);
        for (int32_t k = 0; k < a->size; k++)
            CHECK_EQ_INT(b->members[k], a->members[k]);
    }
    CHECK_EQ_INT(mc_meta_nsites(y), mc_meta_nsites(x));
    for (size_t i = 0; i < mc_meta_nsites(x); i++) {
        const mc_meta_site *a = mc_meta_site_at(x, i), *b = mc_meta_site_at(y, i);
        CHECK_EQ_INT(b->id, a->id);
        CHECK_EQ_STR(b->module, a->module);
        CHECK(b->offset == a->offset);
        CHECK_EQ_STR(b->function, a->function);
        CHECK_EQ_STR(b->file, a->file);
        CHECK_EQ_INT(b->line, a->line);
    }
}

int main(void)
{
    char dir[64];
    make_dir(dir, sizeof dir);
    mc_error err = {0};
    mc_meta *m = build();

    /* the values as built */
    CHECK_EQ_INT(mc_meta_ncomms(m), 4);
    CHECK_EQ_INT(mc_meta_nsites(m), 2);
    const mc_meta_comm *row = mc_meta_comm_find(m, (3ull << 32) | 2);
    CHECK(row != NULL);
    CHECK_EQ_INT(row->size, 2);
    CHECK_EQ_INT(row->members[0], 2);
    CHECK(mc_meta_comm_find(m, 5ull << 32) == NULL);
    const mc_meta_site *s = mc_meta_site_find(m, 0x1234567);
    CHECK(s != NULL);
    CHECK_EQ_STR(s->module, "/usr/bin/halo2d");
    CHECK(mc_meta_site_find(m, 99) == NULL);
    CHECK(mc_meta_get(m, "bogus") == NULL);

    CHECK_EQ_INT(mc_meta_write(m, dir, &err), MC_OK);
    mc_meta *back = mc_meta_read(dir, &err);
    if (!back)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(back != NULL);
    check_same(m, back);
    CHECK(mc_meta_comm_find(back, MC_COMM_SELF_BASE | 3) != NULL);
    CHECK_EQ_INT(mc_meta_comm_find(back, 7ull << 32)->local_size, 2);

    /* a second write replaces the file atomically and leaves no temp file */
    CHECK_EQ_INT(mc_meta_write(back, dir, &err), MC_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    unlink(path);
    CHECK_EQ_INT(rmdir(dir), 0); /* fails if anything else was left behind */

    /* an unset key reads back as unset; many sites/comms stay findable */
    mc_meta *big = mc_meta_create(2);
    const int32_t one[] = {1};
    for (int i = 1; i <= 5000; i++) {
        mc_meta_site si = {i * 7, "m", (uint64_t)i, "f", "f.c", i};
        CHECK_EQ_INT(mc_meta_add_site(big, &si, &err), MC_OK);
        CHECK_EQ_INT(mc_meta_add_comm(big, ((uint64_t)i << 32) | 1, one, 1, 1, &err), MC_OK);
    }
    make_dir(dir, sizeof dir);
    CHECK_EQ_INT(mc_meta_write(big, dir, &err), MC_OK);
    mc_meta *big2 = mc_meta_read(dir, &err);
    CHECK(big2 != NULL);
    CHECK(mc_meta_get(big2, "command") == NULL);
    CHECK_EQ_INT(mc_meta_nsites(big2), 5000);
    CHECK_EQ_INT(mc_meta_site_find(big2, 7 * 4321)->line, 4321);
    CHECK(mc_meta_comm_find(big2, (4999ull << 32) | 1) != NULL);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    unlink(path);
    rmdir(dir);

    /* a meta that readers would refuse is not written; nor into a missing dir */
    mc_meta *none = mc_meta_create(0);
    CHECK_EQ_INT(mc_meta_write(none, "/tmp", &err), MC_ERR_USAGE);
    mc_meta_destroy(none);
    CHECK_EQ_INT(mc_meta_write(big, "/nonexistent/mpicast-dir", &err), MC_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent/mpicast-dir/meta.json") != NULL);

    mc_meta_destroy(big);
    mc_meta_destroy(big2);
    mc_meta_destroy(m);
    mc_meta_destroy(back);
    mc_meta_destroy(NULL);
    return 0;
}
