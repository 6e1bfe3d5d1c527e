/* The [table] and [measured] sections of a platform file: accepted names
 * and values, rejected typos with the line and a hint, --set, and the
 * write/load round trip (docs/platform.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/platform.h"

static char path[] = "/tmp/mc_table_keysXXXXXX";

static mc_platform *load(const char *text, mc_error *err)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    memset(err, 0, sizeof *err);
    return mc_platform_load(path, err);
}

static void rejects(const char *text, const char *what)
{
    mc_error err;
    mc_platform *p = load(text, &err);
    if (p || !strstr(err.msg, what)) {
        fprintf(stderr, "for:\n%sgot: %s\nexpected: %s\n", text, p ? "(accepted)" : err.msg, what);
        exit(1);
    }
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    mc_error err;
    mc_platform *p = load("[measured]\nhost = node 7\nmpi = Open MPI 4.1.4\ndate = 2026-01-02\n"
                          "ranks = 2\nrepetitions = 50\nmembw = 12.5GB/s\nflops = 3.2e9\n"
                          "[table]\npingpong.0 = 1.5us\npingpong.64KiB = 20us\n"
                          "pingpong.0 = 1.25us\n" /* given again: replaces */
                          "send.0 = 250ns\nAllreduce.16.1MiB = 1.5ms\nbarrier.16.0 = 3us\n",
                          &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);
    double *s, *t;
    CHECK_EQ_INT(mc_platform_table(p, "pingpong", &s, &t), 2);
    CHECK(s[0] == 0 && t[0] == 1.25e-6 && s[1] == 65536 && t[1] == 20e-6);
    free(s);
    free(t);
    CHECK_EQ_INT(mc_platform_table(p, "allreduce.16", &s, &t), 1);
    CHECK(s[0] == 1048576 && t[0] == 1.5e-3);
    free(s);
    free(t);
    const char *v, *k = mc_platform_entry_at(p, 0, &v);
    CHECK_EQ_STR(k, "measured.host");
    CHECK_EQ_STR(v, "node 7");
    CHECK(mc_platform_entry_at(p, 1000, NULL) == NULL);
    /* the fixed keys are untouched */
    CHECK(mc_platform_num(p, "network.latency") == 0.5e-6);

    /* --set reaches the tables too */
    CHECK_EQ_INT(mc_platform_set(p, "table.pingpong.1KiB=3us", &err), MC_OK);
    CHECK_EQ_INT(mc_platform_table(p, "pingpong", &s, &t), 3);
    CHECK(s[1] == 1024 && t[1] == 3e-6);
    free(s);
    free(t);
    CHECK(mc_platform_set(p, "table.pingpong.1KiB=fast", &err) != MC_OK);
    CHECK(strstr(err.msg, "table.pingpong.1KiB") != NULL);

    /* round trip: written entries load back the same */
    char path2[] = "/tmp/mc_table_keys2XXXXXX";
    CHECK(mkstemp(path2) >= 0);
    CHECK_EQ_INT(mc_platform_write(p, path2, &err), MC_OK);
    mc_platform *q = mc_platform_load(path2, &err);
    if (!q)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(q != NULL);
    int i = 0;
    const char *k2, *v2;
    for (; (k = mc_platform_entry_at(p, i, &v)); i++) {
        k2 = mc_platform_entry_at(q, i, &v2);
        CHECK(k2 != NULL);
        CHECK_EQ_STR(k, k2);
        CHECK_EQ_STR(v, v2);
    }
    CHECK(mc_platform_entry_at(q, i, NULL) == NULL);
    mc_platform_destroy(q);
    mc_platform_destroy(p);
    remove(path2);

    /* a platform without measured data writes no such sections */
    p = mc_platform_create();
    CHECK_EQ_INT(mc_platform_write(p, path2, &err), MC_OK);
    FILE *f = fopen(path2, "r");
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    CHECK(strstr(buf, "[table]") == NULL && strstr(buf, "[measured]") == NULL);
    mc_platform_destroy(p);
    remove(path2);

    rejects("[table]\npingpong.1KiB = 2\n[tabel]\n", "[tabel]");
    rejects("[table]\npingpong = 2us\n", "expected table.pingpong.SIZE");
    rejects("[table]\npingpong.lots = 2us\n", "bad size 'lots'");
    rejects("[table]\npingpong.1.5 = 2us\n", "bad size");
    rejects("[table]\npingpong.8 = -2us\n", "bad time '-2us'");
    rejects("[table]\npingpong.8 = inf\n", "bad time 'inf'");
    rejects("[table]\npingpong.8 = soon\n", "expected a time");
    rejects("[table]\nallreduse.4.8 = 2us\n", "unknown table 'allreduse'");
    rejects("[table]\nallreduce.1.8 = 2us\n", "RANKS >= 2");
    rejects("[table]\nallreduce.8 = 2us\n", "RANKS >= 2");
    rejects("[measured]\nhots = x\n", "did you mean measured.host?");
    rejects("[measured]\nranks = 1.5\n", "whole number");
    rejects("[measured]\nmembw = 0\n", "greater than 0");
    rejects("[network]\npingpong.8 = 2us\n", "unknown key");
    /* errors name the line */
    rejects("[cpu]\nspeed = 1\n[table]\npingpong.8 = x\n", ":4: table.pingpong.8");
    remove(path);
    return 0;
}
