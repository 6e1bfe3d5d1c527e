/* Compute data on a synthetic trace (test_blocks_synth.h): exact per-block
 * counts, sums, min/max per rank and over all ranks; the compute table
 * written, read back and looked up (rank row before the all-ranks row); the
 * simulator hook's values and counters; malformed tables rejected with the
 * file and line. */
#include "check.h"
#include "mpicast/blocks.h"
#include "test_blocks_synth.h"

static const mc_block_stat *total(const mc_blocks *b, int32_t prev, int32_t site)
{
    for (size_t i = 0; i < mc_blocks_total_count(b); i++) {
        const mc_block_stat *s = mc_blocks_total_at(b, i);
        if (s->prev_site == prev && s->site == site)
            return s;
    }
    return NULL;
}

static const mc_block_stat *per_rank(const mc_blocks *b, int32_t prev, int32_t site, int r)
{
    for (size_t i = 0; i < mc_blocks_count(b); i++) {
        const mc_block_stat *s = mc_blocks_at(b, i);
        if (s->prev_site == prev && s->site == site && s->rank == r)
            return s;
    }
    return NULL;
}

static void check_stat(const mc_block_stat *s, uint64_t n, int64_t sum, int64_t lo, int64_t hi)
{
    CHECK(s != NULL);
    CHECK_EQ_INT(s->count, n);
    CHECK_EQ_INT(s->sum_ns, sum);
    CHECK_EQ_INT(s->min_ns, lo);
    CHECK_EQ_INT(s->max_ns, hi);
}

static void check_blocks(const mc_blocks *b)
{
    CHECK_EQ_INT(mc_blocks_nranks(b), 2);
    CHECK_EQ_INT(mc_blocks_total_count(b), 5);
    CHECK_EQ_INT(mc_blocks_count(b), 6);
    check_stat(total(b, 0x10, 0x20), 2, 3000, 1000, 2000);
    CHECK(mc_block_mean_ns(total(b, 0x10, 0x20)) == 1500.0);
    check_stat(per_rank(b, 0x10, 0x20, 0), 1, 1000, 1000, 1000);
    check_stat(per_rank(b, 0x10, 0x20, 1), 1, 2000, 2000, 2000);
    check_stat(total(b, 0x20, 0x30), 2, 8000, 3000, 5000);
    CHECK(mc_block_mean_ns(total(b, 0x20, 0x30)) == 4000.0);
    check_stat(total(b, 0x30, 0x20), 1, 500, 500, 500);
    check_stat(total(b, 0x30, 0x40), 1, 100, 100, 100);
    check_stat(total(b, 0x20, 0x40), 1, 700, 700, 700);
    CHECK(per_rank(b, 0x20, 0x40, 0) == NULL);
    /* sorted by (prev, site, rank) */
    for (size_t i = 1; i < mc_blocks_count(b); i++) {
        const mc_block_stat *p = mc_blocks_at(b, i - 1), *q = mc_blocks_at(b, i);
        CHECK(p->prev_site < q->prev_site ||
              (p->prev_site == q->prev_site &&
               (p->site < q->site || (p->site == q->site && p->rank < q->rank))));
    }
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void expect_bad(const char *path, const char *text, const char *needle)
{
    write_text(path, text);
    mc_error err = {0};
    CHECK(mc_ctable_load(path, &err) == NULL);
    CHECK(err.code == MC_ERR_FORMAT);
    if (!strstr(err.msg, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, needle);
        CHECK(0);
    }
}

static void check_table(const mc_blocks *b, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/table.tsv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    mc_error err = {0};
    CHECK(mc_ctable_write(b, f, 1, "synthetic", NULL, &err) == MC_OK);
    fclose(f);
    mc_ctable *t = mc_ctable_load(path, &err);
    CHECK(t != NULL);
    CHECK_EQ_INT(mc_ctable_size(t), 5 + 6);
    CHECK(mc_ctable_lookup(t, 0, 0x10, 0x20) == 1000.0); /* rank row first */
    CHECK(mc_ctable_lookup(t, 1, 0x10, 0x20) == 2000.0);
    CHECK(mc_ctable_lookup(t, 7, 0x10, 0x20) == 1500.0); /* then all ranks */
    CHECK(mc_ctable_lookup(t, 0, 0x20, 0x40) == 700.0);
    CHECK(mc_ctable_lookup(t, 0, 0x40, 0x10) == -1.0);
    /* the hook: ps, -1 for unknown, counts; the Init event is no block */
    CHECK_EQ_INT(mc_ctable_hook(t, 3, 0x20, 0x30, 123), 4000000);
    CHECK_EQ_INT(mc_ctable_hook(t, 3, 0x40, 0x10, 5), -1);
    CHECK_EQ_INT(mc_ctable_hook(t, 3, 0, 0x10, 0), -1);
    mc_ctable_counts k = mc_ctable_get_counts(t);
    CHECK_EQ_INT(k.from_table, 1);
    CHECK_EQ_INT(k.fell_back, 1);
    mc_ctable_reset_counts(t);
    CHECK_EQ_INT(mc_ctable_get_counts(t).from_table, 0);
    mc_ctable_destroy(t);

    /* hand-written: fractional ns, comments, blank lines, extra columns */
    write_text(path, "# mpicast compute table 1\n\n# x\n0x20 0x30 * 9 2.5 1 9 # a -> b\n");
    t = mc_ctable_load(path, &err);
    CHECK(t != NULL);
    CHECK(mc_ctable_lookup(t, 0, 0x20, 0x30) == 2.5);
    CHECK_EQ_INT(mc_ctable_hook(t, 0, 0x20, 0x30, 0), 2500);
    mc_ctable_destroy(t);

    expect_bad(path, "0x20 0x30 * 1 5\n", ":1: not a compute table");
    expect_bad(path, "", "empty file");
    expect_bad(path, "# mpicast compute table 1\n0x20 0x30 *\n", ":2: expected");
    expect_bad(path, "# mpicast compute table 1\n0x20 0xzz * 1 5\n", ":2: bad site key");
    expect_bad(path, "# mpicast compute table 1\n20 a.c:3 * 1 5\n", ":2: bad site key");
    expect_bad(path, "# mpicast compute table 1\na.c: a.c:3 * 1 5\n", ":2: bad site key");
    expect_bad(path, "# mpicast compute table 1\n0x80000000 a.c:3 * 1 5\n", ":2: bad site key");
    expect_bad(path, "# mpicast compute table 1\n0x20 0x30 -1 1 5\n", ":2: bad rank");
    expect_bad(path, "# mpicast compute table 1\n0x20 0x30 * 1 -5\n", ":2: bad mean_ns");
    expect_bad(path, "# mpicast compute table 1\n0x20 0x30 * 1 nan\n", ":2: bad mean_ns");
    expect_bad(path, "# mpicast compute table 1\na.c:1 b.c:2 * 1 5\na.c:1 b.c:2 * 2 6\n",
               "twice");
    CHECK(mc_ctable_load("/nonexistent/table", &err) == NULL);
    CHECK(err.code == MC_ERR_IO);
}

/* meta.json sites: the synthetic ids with file:line, for names[i] */
static mc_meta *meta_with(const int32_t *ids, const char *const *files, const int *lines, int n)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_create(2);
    CHECK(m != NULL);
    for (int i = 0; i < n; i++) {
        mc_meta_site s = {ids[i], "/bin/app", 0x100u + (unsigned)i, "fn", files[i], lines[i]};
        CHECK(mc_meta_add_site(m, &s, &err) == MC_OK);
    }
    return m;
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* A table written with file:line keys applies to a rebuilt program (other
 * site ids, same lines); sites whose keys coincide merge their blocks. */
static void check_rebuild(const mc_blocks *b, const char *dir)
{
    static const int32_t ids_a[] = {0x10, 0x20, 0x30, 0x40};
    static const int32_t ids_b[] = {0x111, 0x222, 0x333, 0x444};
    static const char *const files[] = {"/src/a.c", "/src/a.c", "/src/a.c", "/src/a.c"};
    static const char *const other[] = {"/x/a.c", "/x/a.c", "/x/a.c", "/x/a.c"};
    static const int lines[] = {5, 10, 20, 30};
    char key[64];
    mc_meta *ma = meta_with(ids_a, files, lines, 4);
    CHECK_EQ_STR(mc_site_key(ma, 0x20, key, sizeof key), "a.c:10");
    CHECK_EQ_STR(mc_site_key(ma, 0x99, key, sizeof key), "0x99");
    CHECK_EQ_STR(mc_site_key(NULL, 0x20, key, sizeof key), "0x20");
    char path[4200];
    snprintf(path, sizeof path, "%s/keyed.tsv", dir);
    FILE *f = fopen(path, "w");
    mc_error err = {0};
    CHECK(mc_ctable_write(b, f, 0, "a", ma, &err) == MC_OK);
    fclose(f);
    CHECK(strstr(slurp(path), "\na.c:10\ta.c:20\t*\t2\t4000.000\t3000\t5000\t# fn -> fn\n"));
    mc_ctable *t = mc_ctable_load(path, &err);
    CHECK(t != NULL);
    CHECK_EQ_INT(mc_ctable_size(t), 5);
    mc_meta *mb = meta_with(ids_b, other, lines, 4);
    CHECK(mc_ctable_bind(t, mb, &err) == MC_OK);
    CHECK(mc_ctable_lookup(t, 0, 0x222, 0x333) == 4000.0);
    CHECK(mc_ctable_lookup(t, 1, 0x111, 0x222) == 1500.0);
    CHECK(mc_ctable_lookup(t, 0, 0x20, 0x30) == -1.0); /* old ids: unknown */
    CHECK(mc_ctable_bind(t, NULL, &err) == MC_OK);
    CHECK(mc_ctable_lookup(t, 0, 0x222, 0x333) == -1.0);
    mc_ctable_destroy(t);
    mc_meta_destroy(mb);

    /* 0x20 and 0x30 on one line: 20->30 {3000,5000} and 30->20 {500} merge */
    static const int merged[] = {5, 10, 10, 30};
    mc_meta *mc = meta_with(ids_a, files, merged, 4);
    f = fopen(path, "w");
    CHECK(mc_ctable_write(b, f, 1, "c", mc, &err) == MC_OK);
    fclose(f);
    const char *text = slurp(path);
    CHECK(strstr(text, "\na.c:10\ta.c:10\t*\t3\t2833.333\t500\t5000\t# fn -> fn\n"));
    CHECK(strstr(text, "\na.c:10\ta.c:30\t*\t2\t400.000\t100\t700\t# fn -> fn\n"));
    CHECK(strstr(text, "\na.c:10\ta.c:30\t1\t1\t700.000\t700\t700\t# fn -> fn\n"));
    mc_meta_destroy(mc);
    mc_meta_destroy(ma);
}

int main(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "blocks");
    synth_trace(dir);
    mc_error err = {0};
    mc_source *src = mc_trace_open(dir, &err);
    CHECK(src != NULL);
    mc_blocks *b = mc_blocks_collect(src, MC_BLOCK_WALL, &err);
    CHECK(b != NULL);
    mc_source_close(src);
    CHECK_EQ_INT(mc_blocks_truncated(b), 0);
    check_blocks(b);
    check_table(b, dir);
    check_rebuild(b, dir);
    mc_blocks_destroy(b);

    /* CPU time asked of a wall-mode trace: an error naming the trace */
    src = mc_trace_open(dir, &err);
    CHECK(src != NULL);
    CHECK(mc_blocks_collect(src, MC_BLOCK_CPU, &err) == NULL);
    CHECK(strstr(err.msg, "no CPU time") != NULL);
    mc_source_close(src);

    /* rank 1's file cut inside its only chunk: rank 0's blocks, flagged */
    char path[4200];
    mc_rank_path(path, sizeof path, dir, 1);
    CHECK(truncate(path, file_size(path) - 3) == 0);
    src = mc_trace_open(dir, &err);
    CHECK(src != NULL);
    b = mc_blocks_collect(src, MC_BLOCK_WALL, &err);
    CHECK(b != NULL);
    CHECK_EQ_INT(mc_blocks_truncated(b), 1);
    CHECK_EQ_INT(mc_blocks_total_count(b), 4);
    check_stat(total(b, 0x10, 0x20), 1, 1000, 1000, 1000);
    mc_blocks_destroy(b);
    mc_source_close(src);
    rm_tree(dir);
    return 0;
}
