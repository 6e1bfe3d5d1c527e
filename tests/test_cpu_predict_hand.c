/* predict --profile and blocks --profile against a hand computation, on the
 * synthetic trace of test_blocks_synth.h (bursts in ns):
 *   rank 0: Init | 1000 | 0x20 | 3000 | 0x30 | 500 | 0x20 | 5000 | 0x30 | 100 | Finalize
 *   rank 1: Init | 2000 | 0x20 | 700 | Finalize         (calls cost nothing in the replay)
 * Profile (docs/cpu-profile.md): block 0x20 -> 0x30 on rank 0, 2 bursts, 4000
 * instructions, data at 64 B lines: 10 cold, 1000 at distance 0, 50 at 100,
 * 20 at 1000; block 0x10 -> 0x20 on rank 1 only: 1 burst, 2000 instructions.
 * Platform: 2 GHz, cpi 1.5, no L1i, L1d 4 KiB (64 lines) fully associative
 * 1 ns, L2 64 KiB (1024 lines) 5 ns, no L3, memory 85 ns, bandwidth inf.
 *   L1d misses = 10 + 50 + 20 = 80 (distances >= 64), L2 = 10 (only cold)
 *   0x20->0x30: 4000 * 1.5 / 2e9 = 3000 ns + 80 * (5 - 1) + 10 * (85 - 5)
 *               = 3000 + 320 + 800 = 4120 ns for 2 bursts: 2060 per burst
 *   0x10->0x20 on rank 1: 2000 * 1.5 / 2e9 = 1500 ns; rank 0 has no row of
 *               its own: the block's all-ranks time per burst, 1500 ns
 *   rank 0 = 1500 + 2060 + 500 + 2060 + 100 = 6220 ns (30->20, 30->40 fall back)
 *   rank 1 = 1500 + 700 = 2200 ns; from the profile 4 bursts, fell back 3.
 * With a memory bandwidth of 0.1 GB/s the 640 B fetched (10 L2 misses of
 * 64 B) take 6400 ns > 4120: 3200 per burst, rank 0 = 8500 ns. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "test_blocks_synth.h"

static char dir[256];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[4096];
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

/* to the nanosecond (and far below: the replay counts in ps) */
#define NEAR_NS(a, ns) CHECK(fabs((a) - (ns) * 1e-9) < 1e-12)

static const char *platform =
    "--set cpu.frequency=2GHz --set cpu.cpi=1.5 --set cpu.l1i.size=0 "
    "--set cpu.l1d.size=4KiB --set cpu.l1d.assoc=0 --set cpu.l1d.latency=1ns "
    "--set cpu.l2.size=64KiB --set cpu.l2.assoc=0 --set cpu.l2.latency=5ns "
    "--set cpu.l3.size=0 --set cpu.mem.latency=85ns --set cpu.mem.bandwidth=inf";

static void write_file(const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static json_t *predict(const char *extra)
{
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof %s %s --json > %s/p.json",
                    MPICAST_BIN, dir, dir, platform, extra, dir), 0);
    return load("p.json");
}

static void check_predict(void)
{
    json_t *doc = predict("");
    NEAR_NS(num(doc, "predicted_time"), 6220);
    json_t *pr = json_object_get(doc, "per_rank");
    NEAR_NS(num(json_array_get(pr, 0), "end"), 6220);
    NEAR_NS(num(json_array_get(pr, 1), "end"), 2200);
    json_t *cp = json_object_get(doc, "cpu_profile");
    CHECK_EQ_INT(num(cp, "from_profile"), 4);
    CHECK_EQ_INT(num(cp, "fell_back"), 3);
    CHECK_EQ_INT(num(cp, "blocks"), 2);
    json_decref(doc);
    /* cpu.speed scales only the bursts that fell back:
     * rank 0 = 1500 + 2060 + 250 + 2060 + 50 */
    doc = predict("--set cpu.speed=2");
    NEAR_NS(num(doc, "predicted_time"), 5920);
    json_decref(doc);
    /* no L1 data cache: all 1080 data accesses pay L2's 5 ns, the 10 L2
     * misses 80 more: 3000 + 5400 + 800 = 9200 ns, 4600 per burst;
     * rank 0 = 1500 + 4600 + 500 + 4600 + 100 */
    doc = predict("--set cpu.l1d.size=0");
    NEAR_NS(num(doc, "predicted_time"), 11300);
    json_decref(doc);
    /* the bandwidth bound */
    doc = predict("--set cpu.mem.bandwidth=0.1GB/s");
    NEAR_NS(num(doc, "predicted_time"), 8500);
    json_decref(doc);
    /* text form says how many bursts came from where */
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof %s | grep -q 'cpu profile .*4 bursts "
                    "from the processor model, 3 fell back'", MPICAST_BIN, dir, dir, platform), 0);
}

static void check_blocks(void)
{
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --json > %s/b.json", MPICAST_BIN,
                    dir, dir, platform, dir), 0);
    json_t *doc = load("b.json");
    json_t *bl = json_object_get(doc, "blocks");
    int seen = 0;
    for (size_t i = 0; i < json_array_size(bl); i++) {
        json_t *x = json_array_get(bl, i);
        int from = (int)num(json_object_get(x, "from"), "id");
        int to = (int)num(json_object_get(x, "to"), "id");
        json_t *m = json_object_get(x, "model");
        if (from == 0x20 && to == 0x30) {
            CHECK(json_is_object(m));
            CHECK(num(m, "instructions") == 4000);
            json_t *mi = json_object_get(m, "misses");
            CHECK(num(mi, "l1d") == 80);
            CHECK(num(mi, "l2") == 10);
            CHECK(json_is_null(json_object_get(mi, "l1i")));
            CHECK(json_is_null(json_object_get(mi, "l3")));
            NEAR_NS(num(m, "time"), 4120);
            NEAR_NS(num(m, "time_per_burst"), 2060);
            CHECK_EQ_STR(json_string_value(json_object_get(m, "bound")), "latency");
            seen++;
        } else if (from == 0x10 && to == 0x20) { /* rank 1's row */
            CHECK(num(m, "instructions") == 2000);
            CHECK(num(m, "bursts") == 1);
            CHECK(num(json_object_get(m, "misses"), "l1d") == 0);
            NEAR_NS(num(m, "time"), 1500);
            seen++;
        } else {
            CHECK(json_is_null(m));
        }
    }
    CHECK_EQ_INT(seen, 2);
    CHECK_EQ_INT(num(json_object_get(doc, "cpu_profile"), "matched"), 2);
    json_decref(doc);
    /* --fit-cpi, two blocks of 2 executions each in the trace, 1000 ns per
     * unit of CPI per burst (2000 instructions at 2 GHz) in both:
     *   0x20->0x30: measured mean 4000 ns, miss time 560 per burst
     *   0x10->0x20: measured mean (1000 + 2000) / 2 = 1500, no misses
     * cpi = (2*1000*(4000 - 560) + 2*1000*1500) / (2*1000^2 + 2*1000^2) = 2.47 */
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --fit-cpi --json > %s/f.json",
                    MPICAST_BIN, dir, dir, platform, dir), 0);
    doc = load("f.json");
    json_t *cp = json_object_get(doc, "cpu_profile");
    CHECK(fabs(num(cp, "fitted_cpi") - 2.47) < 1e-9);
    CHECK_EQ_INT(num(cp, "fitted_blocks"), 2);
    json_decref(doc);
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s | grep -q 'misses l1d 80 l2 10'",
                    MPICAST_BIN, dir, dir, platform), 0);
    /* an L2 of 2000 ns: 80 x 1999 ns of misses per 2 bursts, more than the
     * measured 4000 ns per burst; the L2 misses cost nothing more (memory is
     * faster: penalty 0). cpi = (2*1000*(4000 - 79960) + 2*1000*1500) / 4e6
     * = -37.23: said so in the text, the number in JSON */
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --set cpu.l2.latency=2000ns "
                    "--fit-cpi --json > %s/f.json", MPICAST_BIN, dir, dir, platform, dir), 0);
    doc = load("f.json");
    CHECK(fabs(num(json_object_get(doc, "cpu_profile"), "fitted_cpi") + 37.23) < 1e-9);
    json_decref(doc);
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --set cpu.l2.latency=2000ns "
                    "--fit-cpi | grep -q 'miss time alone exceeds'", MPICAST_BIN, dir, dir,
                    platform), 0);
}

/* Each block's own cpi (blocks --fit-cpi --cpi-records), per burst
 * (m - r) f / k with k = 2000 instructions at 2 GHz = 1000 ns in both blocks:
 *   0x20->0x30: (4000 - 560) / 1000 = 3.44;  0x10->0x20: 1500 / 1000 = 1.5
 * Appended to the profile they give back the measured means (4000, 1500 ns
 * a burst); predict: rank 0 = 1500 + 4000 + 500 + 4000 + 100 = 10100 ns. At
 * 4 GHz the core part halves: 0x20->0x30 1720 + 560 = 2280, 0x10->0x20 750:
 * rank 0 = 750 + 2280 + 500 + 2280 + 100 = 5910 ns. */
static void check_cpi_records(void)
{
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --fit-cpi --cpi-records "
                    "> %s/r.txt", MPICAST_BIN, dir, dir, platform, dir), 0);
    CHECK_EQ_INT(sh("grep -c '^cpi\t' %s/r.txt | grep -qx 2 && grep -qx 'cpi	0x20	0x30	3.44' "
                    "%s/r.txt && grep -qx 'cpi	0x10	0x20	1.5' %s/r.txt", dir, dir, dir), 0);
    CHECK_EQ_INT(sh("cp %s/p.prof %s/p2.prof && grep '^cpi\t' %s/r.txt >> %s/p2.prof", dir, dir,
                    dir, dir), 0);
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p2.prof %s --json > %s/b2.json",
                    MPICAST_BIN, dir, dir, platform, dir), 0);
    json_t *doc = load("b2.json");
    json_t *bl = json_object_get(doc, "blocks");
    int seen = 0;
    for (size_t i = 0; i < json_array_size(bl); i++) {
        json_t *x = json_array_get(bl, i), *m = json_object_get(x, "model");
        if (!json_is_object(m))
            continue;
        NEAR_NS(num(m, "time_per_burst") * 1e9, num(x, "mean") * 1e18);
        seen++;
    }
    CHECK_EQ_INT(seen, 2);
    json_decref(doc);
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p2.prof %s --json > %s/p.json",
                    MPICAST_BIN, dir, dir, platform, dir), 0);
    doc = load("p.json");
    NEAR_NS(num(doc, "predicted_time"), 10100);
    json_decref(doc);
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p2.prof %s --set cpu.frequency=4GHz "
                    "--json > %s/p.json", MPICAST_BIN, dir, dir, platform, dir), 0);
    doc = load("p.json");
    NEAR_NS(num(doc, "predicted_time"), 5910);
    json_decref(doc);
    /* a profile with only some blocks' own cpi says so (the others take
     * cpu.cpi): predict, sweep and blocks; a complete one says nothing */
    CHECK_EQ_INT(sh("cp %s/p.prof %s/p3.prof && grep -P '^cpi\t0x20' %s/r.txt >> %s/p3.prof",
                    dir, dir, dir, dir), 0);
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p3.prof %s 2>%s/err.txt >/dev/null && "
                    "%s sweep %s/trace --profile %s/p3.prof %s --vary cpu.cpi=1,2 --quiet "
                    "2>>%s/err.txt >/dev/null && %s blocks %s/trace --profile %s/p3.prof "
                    "2>>%s/err.txt >/dev/null", MPICAST_BIN, dir, dir, platform, dir, MPICAST_BIN,
                    dir, dir, platform, dir, MPICAST_BIN, dir, dir, dir), 0);
    CHECK_EQ_INT(sh("test $(grep -c 'warning: .*p3.prof: 1 of 2 block rows have no cpi record' "
                    "%s/err.txt) = 3", dir), 0);
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p2.prof %s 2>%s/err.txt >/dev/null && "
                    "! grep -q 'no cpi record' %s/err.txt", MPICAST_BIN, dir, dir, platform, dir,
                    dir), 0);
    /* misses alone above the measured mean: no record, the reason instead */
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof %s --set cpu.l2.latency=2000ns "
                    "--fit-cpi --cpi-records > %s/r.txt", MPICAST_BIN, dir, dir, platform, dir),
                 0);
    CHECK_EQ_INT(sh("grep -c '^cpi\t' %s/r.txt | grep -qx 1 && grep -q '^# 0x20 -> 0x30: none: "
                    "its modelled misses .* exceed its measured mean' %s/r.txt", dir, dir), 0);
    /* only with --fit-cpi, and not with --json */
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof --cpi-records 2>/dev/null",
                    MPICAST_BIN, dir, dir), 2);
    CHECK_EQ_INT(sh("%s blocks %s/trace --profile %s/p.prof --fit-cpi --cpi-records --json "
                    "2>/dev/null", MPICAST_BIN, dir, dir), 2);
}

static void check_refusals(void)
{
    /* --compute with --profile: usage */
    write_file("t.tsv", "# mpicast compute table 1\n0x20\t0x30\t*\t2\t1000\n");
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof --compute %s/t.tsv 2>/dev/null",
                    MPICAST_BIN, dir, dir, dir), 2);
    CHECK_EQ_INT(sh("%s sweep %s/trace --profile %s/p.prof --compute %s/t.tsv 2>/dev/null",
                    MPICAST_BIN, dir, dir, dir), 2);
    /* a line size the profile lacks: refused with the reason, exit 1 */
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof %s --set cpu.l2.line=128 "
                    "2>%s/err.txt >/dev/null", MPICAST_BIN, dir, dir, platform, dir), 1);
    CHECK_EQ_INT(sh("grep -q 'cpu.l2.line = 128 B: .*lines of 64 B only' %s/err.txt", dir), 0);
    /* a profile of none of the trace's blocks: said on stderr, not silent */
    write_file("o.prof", "# mpicast cpu profile 1\nblock\tx.c:1\tx.c:2\t0\t1\t100\t0\t0\n"
                         "rd\tx.c:1\tx.c:2\t0\td\t64\t0\t\nrd\tx.c:1\tx.c:2\t0\ti\t64\t0\t\n");
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/o.prof 2>%s/err.txt >/dev/null",
                    MPICAST_BIN, dir, dir, dir), 0);
    CHECK_EQ_INT(sh("grep -q 'warning: .*o.prof has none of the blocks' %s/err.txt", dir), 0);
    /* an unknown cpu key */
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof --set cpu.cache_size=16KiB "
                    "2>%s/err.txt >/dev/null", MPICAST_BIN, dir, dir, dir), 1);
    CHECK_EQ_INT(sh("grep -q 'cpu.cache_size: unknown key' %s/err.txt", dir), 0);
    write_file("u.ini", "[cpu]\nl1d.size = 16KiB\nl4.size = 1MiB\n");
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof --platform %s/u.ini 2>%s/err.txt "
                    ">/dev/null", MPICAST_BIN, dir, dir, dir, dir), 1);
    CHECK_EQ_INT(sh("grep -q 'u.ini:3: cpu.l4.size: unknown key' %s/err.txt", dir), 0);
    CHECK_EQ_INT(sh("%s predict %s/trace --set cpu.frequency=2GB 2>/dev/null >/dev/null",
                    MPICAST_BIN, dir), 1);
    CHECK_EQ_INT(sh("%s blocks %s/trace --fit-cpi 2>/dev/null", MPICAST_BIN, dir), 2);
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "cpu-hand");
    char tdir[512];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    synth_trace(tdir);
    write_file("p.prof", "# mpicast cpu profile 1\n"
                         "# hand-made: see the top of test_cpu_predict_hand.c\n"
                         "meta\ttool\thand made\n"
                         "meta\tsample_rate\t1\n"
                         "meta\tsource\ttest_cpu_predict_hand.c\n"
                         "block\t0x20\t0x30\t0\t2\t4000\t1000\t80\n"
                         "rd\t0x20\t0x30\t0\td\t64\t10\t1:1000,100:0,101:50,1000:0,1001:20\n"
                         "rd\t0x20\t0x30\t0\ti\t64\t5\t1:100\n"
                         "block\t0x10\t0x20\t1\t1\t2000\t0\t0\n"
                         "rd\t0x10\t0x20\t1\td\t64\t0\t\n"
                         "rd\t0x10\t0x20\t1\ti\t64\t0\t\n");
    check_predict();
    check_blocks();
    check_cpi_records();
    check_refusals();
    rm_tree(dir);
    return 0;
}
