/* mpicast-bench --cpu without timing anything: the cache levels read from a
 * fake sysfs tree, the frequency from cpufreq or /proc/cpuinfo text, and
 * the [cpu] lines written for given figures load as a platform with those
 * values (the bench hands out nothing mpicast rejects). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cpucal.h"
#include "mpicast/platform.h"
#include "rankfile_util.h"

static char dir[256];

static void put(const char *rel, const char *text)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(path, 0777);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void level(int idx, const char *lv, const char *type, const char *size, const char *line,
                  const char *ways)
{
    char rel[128];
    const char *names[] = {"level", "type", "size", "coherency_line_size",
                           "ways_of_associativity"};
    const char *vals[] = {lv, type, size, line, ways};
    for (int i = 0; i < 5; i++) {
        if (!vals[i])
            continue;
        snprintf(rel, sizeof rel, "cpu0/cache/index%d/%s", idx, names[i]);
        char text[64];
        snprintf(text, sizeof text, "%s\n", vals[i]);
        put(rel, text);
    }
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "cpu-cal");
    level(0, "1", "Data", "48K", "64", "12");
    level(1, "1", "Instruction", "32K", "64", "8");
    level(2, "2", "Unified", "2048K", "128", NULL); /* no ways given: 0 */
    level(3, "4", "Unified", "128M", "64", "16");   /* not a level of the model */
    char root[512];
    snprintf(root, sizeof root, "%s/cpu0/cache", dir);
    mcb_cache c[4];
    CHECK_EQ_INT(mcb_cache_sysfs(root, c), 3);
    CHECK(c[0].size == 32768 && c[0].line == 64 && c[0].assoc == 8);
    CHECK(c[1].size == 49152 && c[1].line == 64 && c[1].assoc == 12);
    CHECK(c[2].size == 2097152 && c[2].line == 128 && c[2].assoc == 0);
    CHECK(c[3].size == 0);

    /* frequency: /proc/cpuinfo's text without cpufreq, cpufreq's kHz with it */
    put("cpuinfo", "processor\t: 0\nmodel name\t: X\ncpu MHz\t\t: 2596.124\n");
    char cpu0[512], info[512];
    snprintf(cpu0, sizeof cpu0, "%s/cpu0", dir);
    snprintf(info, sizeof info, "%s/cpuinfo", dir);
    int src = -1;
    CHECK(fabs(mcb_frequency(cpu0, info, &src) - 2596.124e6) < 1e-3);
    CHECK_EQ_INT(src, 1);
    put("cpu0/cpufreq/cpuinfo_max_freq", "3500000\n");
    CHECK(mcb_frequency(cpu0, info, &src) == 3.5e9);
    CHECK_EQ_INT(src, 0);

    /* the written keys load back with their values */
    mcb_cpu m = {0};
    memcpy(m.level, c, sizeof c);
    m.level[0].latency = m.level[1].latency = 1.25e-9;
    m.level[2].latency = 4.5e-9;
    m.frequency = 3.5e9;
    m.mem_latency = 91.5e-9;
    m.mem_bandwidth = 12.5e9;
    char path[600];
    snprintf(path, sizeof path, "%s/p.ini", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("[cpu]\n", f);
    mcb_cpu_write(&m, f);
    fclose(f);
    mc_error err = {0};
    mc_platform *p = mc_platform_load(path, &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);
    CHECK(mc_platform_num(p, "cpu.frequency") == 3.5e9);
    CHECK(mc_platform_num(p, "cpu.l1d.size") == 49152);
    CHECK(mc_platform_num(p, "cpu.l1d.assoc") == 12);
    CHECK(fabs(mc_platform_num(p, "cpu.l1d.latency") - 1.25e-9) < 1e-21);
    CHECK(mc_platform_num(p, "cpu.l2.line") == 128);
    CHECK(mc_platform_num(p, "cpu.l2.assoc") == 0);
    CHECK(fabs(mc_platform_num(p, "cpu.l2.latency") - 4.5e-9) < 1e-21);
    CHECK(mc_platform_num(p, "cpu.l3.size") == 0);
    CHECK(fabs(mc_platform_num(p, "cpu.mem.latency") - 91.5e-9) < 1e-21);
    CHECK(mc_platform_num(p, "cpu.mem.bandwidth") == 12.5e9);
    /* Little's law over the last level's line (l2: 128 B; l3 absent) */
    double mlp = 91.5e-9 * 12.5e9 / 128;
    CHECK(fabs(mcb_cpu_mlp(&m) - mlp) < 1e-12);
    CHECK(fabs(mc_platform_num(p, "cpu.mlp") - mlp) < 1e-3 * mlp);
    m.mem_bandwidth = 1e6; /* a slow memory: never below one miss in flight */
    CHECK(mcb_cpu_mlp(&m) == 1);
    CHECK(!mc_platform_is_set(p, "cpu.cpi")); /* fitted elsewhere (blocks --fit-cpi) */
    mc_platform_destroy(p);
    rm_tree(dir);
    return 0;
}
