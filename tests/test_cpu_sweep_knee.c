/* A sweep over the L1 data cache size on the profile of a kernel whose
 * working set is 32 KiB (a loop over 512 lines of 64 B, 100 times) shows the
 * knee at 32 KiB: the predicted time is the same for every L1 below 32 KiB
 * (all 51200 reuses miss), drops when L1 reaches 32 KiB, and stays there.
 * The drop is the misses' penalty: 51200 x (cpu.l2.latency - cpu.l1d.latency)
 * (defaults 5 ns - 1 ns) = 204.8 us, since the 512 cold misses stay.
 * (28 KiB = 448 lines is below the bucket [471, 512) holding distance 511;
 * between 471 and 511 lines the step is interpolated within the bucket.)
 * The synthetic trace is test_blocks_synth.h's; the kernel is its block
 * 0x20 -> 0x30 on rank 0 (2 bursts), the other blocks keep their times. */
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
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *sweep(const char *args)
{
    CHECK_EQ_INT(sh("%s sweep %s/trace --profile %s/k.prof %s --json --quiet > %s/s.json",
                    MPICAST_BIN, dir, dir, args, dir), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/s.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    return doc;
}

static double point_time(json_t *doc, size_t i)
{
    json_t *v = json_object_get(json_array_get(json_object_get(doc, "points"), i),
                                "predicted_time");
    CHECK(json_is_number(v));
    return json_number_value(v);
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "cpu-knee");
    char path[600];
    snprintf(path, sizeof path, "%s/trace", dir);
    CHECK(mkdir(path, 0777) == 0);
    synth_trace(path);
    /* every reuse at distance 511: the format's bucket [471, 512) */
    snprintf(path, sizeof path, "%s/k.prof", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("# mpicast cpu profile 1\nmeta\ttool\thand made\nmeta\tsample_rate\t1\n"
          "block\t0x20\t0x30\t0\t2\t1000000\t51712\t0\n"
          "rd\t0x20\t0x30\t0\ti\t64\t0\t\n"
          "rd\t0x20\t0x30\t0\td\t64\t512\t471:0,512:51200\n", f);
    fclose(f);

    json_t *doc = sweep("--set cpu.l1d.assoc=0 --vary "
                        "cpu.l1d.size=4KiB,8KiB,16KiB,24KiB,28KiB,32KiB,48KiB,64KiB");
    double t[8];
    for (size_t i = 0; i < 8; i++)
        t[i] = point_time(doc, i);
    json_decref(doc);
    for (int i = 1; i < 5; i++)
        CHECK(t[i] == t[0]); /* below the working set: all miss */
    CHECK(t[5] < t[4]);      /* the knee */
    CHECK(fabs((t[4] - t[5]) - 51200 * 4e-9) < 1e-12);
    CHECK(t[6] == t[5] && t[7] == t[5]);

    /* --vary cpu.frequency: the core part scales, the misses do not; and an
     * L2 sweep (the default 1 MiB holds the loop: no effect beyond L1) */
    doc = sweep("--vary cpu.frequency=1GHz,2GHz");
    /* 1e6 instructions at cpi 1: 1 ms at 1 GHz, 0.5 ms at 2 GHz */
    CHECK(fabs((point_time(doc, 0) - point_time(doc, 1)) - 0.5e-3) < 1e-12);
    json_decref(doc);
    doc = sweep("--vary cpu.l2.size=0,256KiB,1MiB --set cpu.l1d.size=16KiB --set cpu.l1d.assoc=0");
    /* without L2 an L1 miss goes to L3 (default 15 ns): 51712 x (15 - 1) and
     * 512 x (80 - 15), against 51712 x (5 - 1) + 512 x (15 - 5) + 512 x (80 - 15)
     * with it: 51200 x 10 ns more */
    double d = point_time(doc, 0) - point_time(doc, 1);
    CHECK(fabs(d - 51200 * 10e-9) < 1e-12);
    CHECK(point_time(doc, 1) == point_time(doc, 2));
    json_decref(doc);

    /* the balance point on a processor key: rank 1 computes 2.7 us
     * (recorded), rank 0 mostly the kernel, so the efficiency (mean compute
     * / predicted time) rises towards 1/2 + 2.7 us / (2 c0) as the clock
     * speeds rank 0 up (to 0.509 at 1 THz: the misses stay); the solver's
     * frequency for 0.505 gives 0.505 when
     * predicted at that frequency */
    doc = sweep("--target-efficiency 0.505 --solve cpu.frequency");
    json_t *sol = json_array_get(json_object_get(doc, "solutions"), 0);
    json_t *v = json_object_get(sol, "value");
    CHECK(json_is_number(v));
    double freq = json_number_value(v);
    CHECK(freq > 2e9); /* faster than the default 2 GHz */
    json_decref(doc);
    char arg[128];
    snprintf(arg, sizeof arg, "--vary cpu.frequency=%.17g", freq);
    doc = sweep(arg);
    json_t *e = json_object_get(json_array_get(json_object_get(doc, "points"), 0), "efficiency");
    printf("efficiency %.6f at %.6g Hz\n", json_number_value(e), freq);
    CHECK(fabs(json_number_value(e) - 0.505) <= 0.002 * 0.505);
    json_decref(doc);
    rm_tree(dir);
    return 0;
}
