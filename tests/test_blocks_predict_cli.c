/* mpicast blocks and predict --compute end to end on the synthetic trace of
 * test_blocks_synth.h. Pcontrol, Init and Finalize cost nothing in the
 * replay, so each rank's predicted end is the sum of its bursts:
 *   recorded:          rank 0 = 1000+3000+500+5000+100 = 9600 ns, rank 1 = 2700
 *   its own table:     every burst = its block's mean over all ranks:
 *                      rank 0 = 1500+4000+500+4000+100 = 10100, rank 1 = 1500+700
 *   a partial table {10->20: 1500, 20->30: 1000} (the others fall back):
 *                      rank 0 = 1500+1000+500+1000+100 = 4100, rank 1 = 1500+700
 *                      from the table 3+1 bursts, fell back 2+1. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "test_blocks_synth.h"

static char dir[256];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    return doc;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_number(v));
    return json_number_value(v);
}

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-15)

static double predict(const char *extra, json_t **out)
{
    CHECK_EQ_INT(sh("%s predict %s/trace %s --json > %s/p.json", MPICAST_BIN, dir, extra, dir), 0);
    json_t *doc = load("p.json");
    double t = num(doc, "predicted_time");
    if (out)
        *out = doc;
    else
        json_decref(doc);
    return t;
}

static void check_blocks_json(void)
{
    CHECK_EQ_INT(sh("%s blocks %s/trace --json > %s/b.json", MPICAST_BIN, dir, dir), 0);
    json_t *doc = load("b.json");
    CHECK_EQ_INT(num(doc, "ranks"), 2);
    CHECK_EQ_INT(num(doc, "total_blocks"), 5);
    json_t *bl = json_object_get(doc, "blocks");
    CHECK_EQ_INT(json_array_size(bl), 5);
    /* the largest total first: 20->30 8000, 10->20 3000, 20->40 700, 30->20 500,
     * 30->40 100 ns */
    static const int order[5][2] = {{0x20, 0x30}, {0x10, 0x20}, {0x20, 0x40}, {0x30, 0x20},
                                    {0x30, 0x40}};
    for (int i = 0; i < 5; i++) {
        json_t *x = json_array_get(bl, (size_t)i);
        CHECK_EQ_INT(num(json_object_get(x, "from"), "id"), order[i][0]);
        CHECK_EQ_INT(num(json_object_get(x, "to"), "id"), order[i][1]);
    }
    json_t *b = json_array_get(bl, 0);
    CHECK_EQ_INT(num(b, "count"), 2);
    NEAR(num(b, "mean"), 4000e-9);
    NEAR(num(b, "min"), 3000e-9);
    NEAR(num(b, "max"), 5000e-9);
    NEAR(num(b, "total"), 8000e-9);
    json_t *pr20 = json_object_get(b, "per_rank");
    CHECK_EQ_INT(json_array_size(pr20), 1); /* rank 0 only */
    NEAR(num(json_array_get(pr20, 0), "total"), 8000e-9);
    b = json_array_get(bl, 1);
    json_t *pr = json_object_get(b, "per_rank");
    CHECK_EQ_INT(json_array_size(pr), 2);
    CHECK_EQ_INT(num(json_array_get(pr, 1), "rank"), 1);
    NEAR(num(json_array_get(pr, 1), "mean"), 2000e-9);
    json_decref(doc);

    /* --top 2: the two largest, the count of all kept */
    CHECK_EQ_INT(sh("%s blocks %s/trace --json --top 2 > %s/b2.json", MPICAST_BIN, dir, dir), 0);
    doc = load("b2.json");
    CHECK_EQ_INT(num(doc, "total_blocks"), 5);
    bl = json_object_get(doc, "blocks");
    CHECK_EQ_INT(json_array_size(bl), 2);
    CHECK_EQ_INT(num(json_object_get(json_array_get(bl, 1), "from"), "id"), 0x10);
    json_decref(doc);
}

/* The text listing: blocks by total, the total column, --top, and nothing
 * but the table with --table. */
static void check_blocks_text(void)
{
    CHECK_EQ_INT(sh("%s blocks %s/trace --top 1 > %s/b.txt", MPICAST_BIN, dir, dir), 0);
    char path[600], line[512];
    snprintf(path, sizeof path, "%s/b.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int blocks = 0, all_rows = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned from, to;
        double total, mean;
        unsigned long long count;
        if (sscanf(line, "block %x -> %x", &from, &to) == 2) {
            blocks++;
            CHECK_EQ_INT(from, 0x20);
            CHECK_EQ_INT(to, 0x30);
        }
        if (sscanf(line, " all %llu %lf %lf", &count, &total, &mean) == 3) {
            all_rows++;
            CHECK_EQ_INT(count, 2);
            CHECK(fabs(total - 8.0) < 1e-9); /* us */
            CHECK(fabs(mean - 4.0) < 1e-9);
        }
    }
    if (f)
        fclose(f);
    CHECK_EQ_INT(blocks, 1);
    CHECK_EQ_INT(all_rows, 1);
    /* --table writes the table and prints nothing */
    CHECK_EQ_INT(sh("%s blocks %s/trace --table %s/t.tsv > %s/out.txt", MPICAST_BIN, dir, dir, dir),
                 0);
    struct stat st;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    CHECK(stat(path, &st) == 0);
    CHECK_EQ_INT(st.st_size, 0);
    snprintf(path, sizeof path, "%s/t.tsv", dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    CHECK_EQ_INT(sh("%s blocks %s/trace --top 0 2>/dev/null", MPICAST_BIN, dir), 2);
    CHECK_EQ_INT(sh("%s blocks %s/trace --top x 2>/dev/null", MPICAST_BIN, dir), 2);
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "blocks-cli");
    char tdir[512];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    synth_trace(tdir);
    check_blocks_json();
    check_blocks_text();

    NEAR(predict("", NULL), 9600e-9);

    CHECK_EQ_INT(sh("%s blocks %s/trace --table %s/own.tsv > /dev/null", MPICAST_BIN, dir, dir), 0);
    char arg[1024];
    snprintf(arg, sizeof arg, "--compute %s/own.tsv", dir);
    json_t *doc;
    NEAR(predict(arg, &doc), 10100e-9);
    json_t *ct = json_object_get(doc, "compute_table");
    CHECK_EQ_INT(num(ct, "from_table"), 7);
    CHECK_EQ_INT(num(ct, "fell_back"), 0);
    json_decref(doc);

    char path[600];
    snprintf(path, sizeof path, "%s/part.tsv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("# mpicast compute table 1\n0x10\t0x20\t*\t2\t1500\n0x20\t0x30\t*\t2\t1000\n", f);
    fclose(f);
    snprintf(arg, sizeof arg, "--compute %s", path);
    NEAR(predict(arg, &doc), 4100e-9);
    ct = json_object_get(doc, "compute_table");
    CHECK_EQ_INT(num(ct, "from_table"), 4);
    CHECK_EQ_INT(num(ct, "fell_back"), 3);
    CHECK_EQ_INT(num(ct, "blocks"), 2);
    json_t *pr = json_object_get(doc, "per_rank");
    NEAR(num(json_array_get(pr, 1), "end"), 2200e-9);
    json_decref(doc);
    /* cpu.speed scales only the bursts that fell back: rank 0 = 1500+1000+250+1000+50 */
    snprintf(arg, sizeof arg, "--compute %s --set cpu.speed=2", path);
    NEAR(predict(arg, NULL), 3800e-9);

    /* bad tables and usage */
    CHECK_EQ_INT(sh("%s predict %s/trace --compute %s/nope 2>/dev/null", MPICAST_BIN, dir, dir), 1);
    CHECK_EQ_INT(sh("%s predict %s/trace --compute %s/trace/rank-000000.mct 2>/dev/null",
                    MPICAST_BIN, dir, dir), 1);
    CHECK_EQ_INT(sh("%s blocks 2>/dev/null", MPICAST_BIN), 2);
    CHECK_EQ_INT(sh("%s blocks %s/trace --per-rank 2>/dev/null", MPICAST_BIN, dir), 2);
    CHECK_EQ_INT(sh("%s blocks %s/nope 2>/dev/null", MPICAST_BIN, dir), 1);
    CHECK_EQ_INT(sh("%s blocks %s/trace --table /nonexistent/x.tsv 2>/dev/null", MPICAST_BIN, dir), 1);
    rm_tree(dir);
    return 0;
}
