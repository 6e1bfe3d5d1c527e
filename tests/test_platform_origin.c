/* A platform remembers where each value came from (issue 22 item 3):
 * "FILE:LINE" for the file, "--set KEY=VALUE" for an override, nothing for
 * a default, so an error found later (a network model's) names the place
 * to fix; and mc_platform_num(NULL, key) is the key's one default. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "rankfile_util.h"
#include "mpicast/platform.h"

int main(void)
{
    char dir[256], path[512];
    make_tmpdir(dir, sizeof dir, "plat-origin");
    snprintf(path, sizeof path, "%s/p.ini", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("[network]\n# comment\nlatency = 3us\n\n[cpu]\nspeed = 2\n", f);
    fclose(f);
    mc_error err = {0};
    mc_platform *p = mc_platform_load(path, &err);
    CHECK(p != NULL);
    char want[600];
    snprintf(want, sizeof want, "%s:3", path);
    CHECK(strcmp(mc_platform_origin(p, "network.latency"), want) == 0);
    snprintf(want, sizeof want, "%s:6", path);
    CHECK(strcmp(mc_platform_origin(p, "cpu.speed"), want) == 0);
    CHECK(mc_platform_origin(p, "network.bandwidth") == NULL); /* a default */
    CHECK(mc_platform_set(p, "network.latency=5us", &err) == MC_OK);
    CHECK(strcmp(mc_platform_origin(p, "network.latency"), "--set network.latency=5us") == 0);
    mc_platform_destroy(p);
    /* the defaults, from the one table */
    CHECK(mc_platform_num(NULL, "network.eager_limit") == 65536.0);
    CHECK(mc_platform_num(NULL, "cpu.speed") == 1.0);
    CHECK(mc_platform_num(NULL, "cpu.flops") == 1e9);
    CHECK(fabs(mc_platform_num(NULL, "network.latency") - 0.5e-6) < 1e-18);
    CHECK(isnan(mc_platform_num(NULL, "network.topology"))); /* a string key */
    rm_tree(dir);
    return 0;
}
