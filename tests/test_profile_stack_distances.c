/* CPU profiles (src/profile): LRU stack distances on hand-made streams equal
 * the hand-computed ones and a brute-force reference; the analyser splits a
 * lackey stream with markers into blocks with the expected histograms; the
 * file round-trips; bad files are refused with the line; sampling scales;
 * other threads' accesses are left out. */
#include "check.h"
#include "mpicast/profile.h"

#include <math.h>
#include <stdint.h>

static void test_hand_stream(void)
{
    /* A B C A B B D A */
    const uint64_t s[] = {10, 11, 12, 10, 11, 11, 13, 10};
    const int64_t want[] = {-1, -1, -1, 2, 2, 0, -1, 2};
    mc_prof_stack *st = mc_prof_stack_create();
    CHECK(st);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(mc_prof_stack_access(st, s[i]), want[i]);
    CHECK_EQ_INT(mc_prof_stack_lines(st), 4);
    mc_prof_stack_destroy(st);
}

/* Cycling over more lines than the tree's first capacity (compactions). */
static void test_cycles_compact(void)
{
    mc_prof_stack *st = mc_prof_stack_create();
    for (int pass = 0; pass < 4; pass++)
        for (uint64_t l = 0; l < 5000; l++)
            CHECK_EQ_INT(mc_prof_stack_access(st, l * 7 + 1), pass ? 4999 : -1);
    mc_prof_stack_destroy(st);
}

/* A pseudo-random stream against a list walk (the O(n) textbook method). */
static void test_against_list(void)
{
    enum { N = 20000, L = 300 };
    static uint64_t stack[L];
    int depth = 0;
    mc_prof_stack *st = mc_prof_stack_create();
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t line = (x >> 33) % (i % 1000 < 500 ? 40 : L); /* phases of locality */
        int64_t d = -1;
        for (int k = 0; k < depth; k++)
            if (stack[k] == line) {
                d = k;
                break;
            }
        int from = d < 0 ? depth++ : (int)d;
        for (int k = from; k > 0; k--)
            stack[k] = stack[k - 1];
        stack[0] = line;
        CHECK_EQ_INT(mc_prof_stack_access(st, line), d);
    }
    mc_prof_stack_destroy(st);
}

static void test_buckets(void)
{
    for (int d = 0; d < 16; d++) {
        CHECK_EQ_INT(mc_prof_bucket_of(d), d);
        CHECK_EQ_INT(mc_prof_bucket_upper(d), d + 1);
    }
    CHECK_EQ_INT(mc_prof_bucket_upper(16), 18); /* ceil(2^(33/8)) */
    CHECK_EQ_INT(mc_prof_bucket_upper(17), 20);
    CHECK_EQ_INT(mc_prof_bucket_of(16), 16);
    CHECK_EQ_INT(mc_prof_bucket_of(17), 16);
    CHECK_EQ_INT(mc_prof_bucket_of(18), 17);
    for (int i = 1; i < 300; i++) {
        uint64_t u = mc_prof_bucket_upper(i), p = mc_prof_bucket_upper(i - 1);
        CHECK(u > p);
        CHECK_EQ_INT(mc_prof_bucket_of((double)u - 1), i);
        CHECK_EQ_INT(mc_prof_bucket_of((double)p), i);
        CHECK_EQ_INT(mc_prof_bucket_with_upper(u), i);
    }
    CHECK_EQ_INT(mc_prof_bucket_upper(80 - 17), 1024); /* index k - 17: k = 80, 2^10 */
    CHECK_EQ_INT(mc_prof_bucket_with_upper(17), -1);
}

/* A lackey stream with the tracer's markers (see analyse.c). */
static const char *stream =
    "==1== Lackey, an example Valgrind tool\n"
    " L 1000,8\n"                 /* before MPI_Init: in the stacks only */
    "**1** mpicast R 3\n"
    "**1** mpicast X 11\n"        /* MPI_Init returns at site 11 */
    "I  400000,4\n"
    " L 1000,8\n"
    " S 1040,8\n"
    " M 1000,4\n"
    " L 103c,8\n"                 /* spans two 64-byte lines */
    "**1** mpicast E 0\n"
    " L 2000,8\n"                 /* inside the MPI call: not counted */
    "**1** mpicast X 22\n"
    "--1--   SCHED[2]:  acquired lock (VG_(scheduler):timeslice)\n"
    "I  500000,4\n"              /* another thread (MPI's progress thread): */
    " L 9000,8\n"                /* neither counted nor in the stacks */
    "--1--   SCHED[1]:  acquired lock (VG_(scheduler):timeslice)\n"
    "I  400004,4\n"
    " L 1000,8\n"
    "**1** mpicast E 0\n"
    "**1** mpicast F 33\n"        /* MPI_Finalize at site 33 */
    " L 5000,8\n";

static const mc_prof_block *find(const mc_prof *p, const char *from, const char *to)
{
    for (size_t i = 0; i < mc_prof_nblocks(p); i++) {
        const mc_prof_block *b = mc_prof_block_at(p, i);
        if (!strcmp(b->from, from) && !strcmp(b->to, to))
            return b;
    }
    return NULL;
}

static mc_prof *analyse_text(const char *text, double rate, mc_prof_result *res)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    CHECK(in);
    mc_prof_opts o = {rate};
    mc_error err = {0};
    mc_prof *p = mc_prof_analyse(in, &o, res, &err);
    fclose(in);
    CHECK(p);
    return p;
}

static void check_hist(const mc_prof_rd *rd, double cold, const double *by_bucket, int n)
{
    CHECK(fabs(rd->cold - cold) < 1e-9);
    for (int i = 0; i < MC_PROF_NBUCKETS; i++)
        CHECK(fabs(rd->hist[i] - (i < n ? by_bucket[i] : 0)) < 1e-9);
}

/* Bad input never crashes: random byte changes of a valid file either read
 * (and then write again) or fail with a message naming the file. */
static void mutate_and_read(const char *good, size_t len)
{
    static const char alphabet[] = "\t\n:,#0123456789.-ed xrdi\0";
    char *m = malloc(len + 1);
    uint64_t x = 99;
    for (int round = 0; round < 3000; round++) {
        memcpy(m, good, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = 24 + (size_t)(x >> 33) % (len - 24); /* keep the first line */
            m[at] = alphabet[(x >> 20) % (sizeof alphabet - 1)];
        }
        FILE *in = fmemopen(m, len, "r");
        mc_error err = {0};
        mc_prof *p = mc_prof_read_stream(in, "fuzz", &err);
        fclose(in);
        if (!p) {
            CHECK(strncmp(err.msg, "fuzz:", 5) == 0);
            continue;
        }
        FILE *out = fopen("/dev/null", "w");
        CHECK(mc_prof_write(p, out, &err) == MC_OK);
        fclose(out);
        mc_prof_destroy(p);
    }
    free(m);
}

static void test_analyser(void)
{
    mc_prof_result res;
    mc_prof *p = analyse_text(stream, 1.0, &res);
    CHECK_EQ_INT(res.rank, 3);
    CHECK_EQ_INT(res.finalized, 1);
    CHECK_EQ_INT(mc_prof_nblocks(p), 2);
    const mc_prof_block *a = find(p, "11", "22"), *b = find(p, "22", "33");
    CHECK(a && b);
    CHECK_EQ_INT(a->rank, 3);
    CHECK_EQ_INT(a->bursts, 1);
    CHECK_EQ_INT(a->instr, 1);
    CHECK_EQ_INT(a->loads, 3);
    CHECK_EQ_INT(a->stores, 2);
    int l32 = mc_prof_line_index(32), l64 = mc_prof_line_index(64), l128 = mc_prof_line_index(128);
    /* 64 B lines 64 (pre-init), 64 d0, 65 cold, 64 d1, 64 d0, 64 d0, 65 d1 */
    check_hist(&a->rd[MC_PROF_DATA][l64], 1, (double[]){3, 2}, 2);
    /* 32 B lines 128 (pre), 128 d0, 130 cold, 128 d1, 128 d0, 129 cold, 130 d2 */
    check_hist(&a->rd[MC_PROF_DATA][l32], 2, (double[]){2, 1, 1}, 3);
    /* 128 B: one line, 5 repeats */
    check_hist(&a->rd[MC_PROF_DATA][l128], 0, (double[]){5}, 1);
    check_hist(&a->rd[MC_PROF_INSTR][l64], 1, NULL, 0);
    /* second burst: line 64 after 65 and the MPI call's 128: d = 2 */
    CHECK_EQ_INT(b->bursts, 1);
    CHECK_EQ_INT(b->instr, 1);
    CHECK_EQ_INT(b->loads, 1);
    check_hist(&b->rd[MC_PROF_DATA][l64], 0, (double[]){0, 0, 1}, 3);
    check_hist(&b->rd[MC_PROF_INSTR][l64], 0, (double[]){1}, 1);
    /* misses of a fully-associative cache of C lines: cold + sum d >= C */
    CHECK(fabs(mc_prof_misses(&a->rd[MC_PROF_DATA][l64], 1) - 3) < 1e-9);
    CHECK(fabs(mc_prof_misses(&a->rd[MC_PROF_DATA][l64], 2) - 1) < 1e-9);
    mc_prof_rd rd = {0};
    rd.hist[mc_prof_bucket_of(16)] = 10; /* 16 <= d < 18 */
    CHECK(fabs(mc_prof_misses(&rd, 17) - 5) < 1e-9);
    CHECK(fabs(mc_prof_misses(&rd, 16) - 10) < 1e-9);
    CHECK(fabs(mc_prof_misses(&rd, 18)) < 1e-9);

    /* round trip through the text file */
    char *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    FILE *out = open_memstream(&buf, &len);
    mc_prof_set_meta(p, "tool", "test", NULL);
    mc_error err = {0};
    CHECK(mc_prof_write(p, out, &err) == MC_OK);
    fclose(out);
    CHECK(strncmp(buf, "# mpicast cpu profile 1\n", 24) == 0);
    CHECK(strstr(buf, "block\t11\t22\t3\t1\t1\t3\t2\n"));
    CHECK(strstr(buf, "rd\t11\t22\t3\td\t64\t1\t1:3,2:2\n"));
    CHECK(strstr(buf, "rd\t11\t22\t3\td\t32\t2\t1:2,2:1,3:1\n"));
    CHECK(strstr(buf, "rd\t22\t33\t3\td\t64\t0\t3:1\n"));
    FILE *in = fmemopen(buf, len, "r");
    mc_prof *q = mc_prof_read_stream(in, "mem", &err);
    fclose(in);
    CHECK(q);
    CHECK_EQ_STR(mc_prof_get_meta(q, "tool"), "test");
    out = open_memstream(&buf2, &len2);
    CHECK(mc_prof_write(q, out, &err) == MC_OK);
    fclose(out);
    CHECK_EQ_STR(buf2, buf);
    mutate_and_read(buf, len);
    free(buf);
    free(buf2);
    mc_prof_destroy(q);
    mc_prof_destroy(p);
}

static void expect_bad(const char *text, const char *where, const char *why)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    mc_error err = {0};
    mc_prof *p = mc_prof_read_stream(in, "t.prof", &err);
    fclose(in);
    if (p || !strstr(err.msg, where) || !strstr(err.msg, why)) {
        fprintf(stderr, "for %s: got '%s', expected %s ... %s\n", text, err.msg, where, why);
        exit(1);
    }
}

/* A damaged access stream (the program's own output mixed in, a cut line)
 * is analysed without crashing. */
static void test_damaged_stream(void)
{
    size_t len = strlen(stream);
    char *m = malloc(len + 1);
    uint64_t x = 7;
    for (int round = 0; round < 2000; round++) {
        memcpy(m, stream, len + 1);
        for (int k = 0; k < 3; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            m[(x >> 33) % len] = "\n *-ILSMRXEF0f,9"[(x >> 20) % 17];
        }
        mc_prof_result res;
        mc_prof *p = analyse_text(m, round % 2 ? 1.0 : 0.5, &res);
        mc_prof_destroy(p);
    }
    free(m);
}

static void test_bad_files(void)
{
    expect_bad("# mpicast compute table 1\n", "t.prof:1:", "not a CPU profile");
    expect_bad("", "t.prof:0:", "empty");
    const char *h = "# mpicast cpu profile 1\n";
    char b[512];
    snprintf(b, sizeof b, "%sblock\ta\tb\t0\t1\t2\t3\n", h);
    expect_bad(b, "t.prof:2:", "8 fields");
    snprintf(b, sizeof b, "%s\nrd\ta\tb\t0\tx\t64\t0\t1:1\n", h);
    expect_bad(b, "t.prof:3:", "kind");
    snprintf(b, sizeof b, "%srd\ta\tb\t0\td\t48\t0\t1:1\n", h);
    expect_bad(b, "t.prof:2:", "line size");
    snprintf(b, sizeof b, "%srd\ta\tb\t0\td\t64\t0\t2:1,1:1\n", h);
    expect_bad(b, "t.prof:2:", "not increasing");
    snprintf(b, sizeof b, "%srd\ta\tb\t0\td\t64\t0\t17:1\n", h);
    expect_bad(b, "t.prof:2:", "not a bucket bound");
    snprintf(b, sizeof b, "%srd\ta\tb\t0\td\t64\t-1\t1:1\n", h);
    expect_bad(b, "t.prof:2:", "cold");
    snprintf(b, sizeof b, "%sblock\ta\tb\t-1\t1\t2\t3\t4\n", h);
    expect_bad(b, "t.prof:2:", "rank");
    snprintf(b, sizeof b, "%shello\n", h);
    expect_bad(b, "t.prof:2:", "unknown record");
    snprintf(b, sizeof b, "%srd\ta\tb\t0\td\t64\t0\t1:nan\n", h);
    expect_bad(b, "t.prof:2:", "histogram pair");
}

/* SHARDS: a cyclic sweep over 4000 lines, 5 passes, at rate 0.25: the
 * scaled counts estimate the exact ones. */
static void test_sampling(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fputs("**1** mpicast R 0\n**1** mpicast X 1\n", out);
    for (int pass = 0; pass < 5; pass++)
        for (int l = 0; l < 4000; l++)
            fprintf(out, " L %x,8\n", 0x100000 + l * 64);
    fputs("**1** mpicast E 0\n**1** mpicast F 2\n", out);
    fclose(out);
    mc_prof_result res;
    mc_prof *exact = analyse_text(text, 1.0, &res), *sampled = analyse_text(text, 0.25, &res);
    const mc_prof_rd *e = &find(exact, "1", "2")->rd[MC_PROF_DATA][mc_prof_line_index(64)];
    const mc_prof_rd *s = &find(sampled, "1", "2")->rd[MC_PROF_DATA][mc_prof_line_index(64)];
    CHECK(fabs(e->cold - 4000) < 1e-9);
    CHECK(fabs(mc_prof_misses(e, 3000) - 20000) < 1e-9); /* all miss */
    CHECK(fabs(mc_prof_misses(e, 4096) - 4000) < 1e-9);  /* cold only (d = 3999 in [3757, 4096)) */
    CHECK(fabs(s->cold - 4000) < 400);                   /* about a quarter, x4 */
    CHECK(fabs(mc_prof_misses(s, 3000) - 20000) < 2000);
    CHECK(fabs(mc_prof_misses(s, 4600) - s->cold) < 1e-9);
    mc_prof_destroy(exact);
    mc_prof_destroy(sampled);
    free(text);
}

int main(void)
{
    test_hand_stream();
    test_cycles_compact();
    test_against_list();
    test_buckets();
    test_analyser();
    test_bad_files();
    test_damaged_stream();
    test_sampling();
    return 0;
}
