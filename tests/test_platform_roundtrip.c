/* mc_platform_write then mc_platform_load gives the same value for every
 * key, bit for bit, for the defaults and for awkward values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/platform.h"

static void check_same(const mc_platform *a, const mc_platform *b)
{
    const char *key;
    mc_unit unit;
    for (int i = 0; (key = mc_platform_key_at(i, &unit, NULL)) != NULL; i++) {
        if (unit == MC_UNIT_STRING) {
            CHECK_EQ_STR(mc_platform_str(a, key), mc_platform_str(b, key));
            continue;
        }
        double x = mc_platform_num(a, key), y = mc_platform_num(b, key);
        if (!(x == y)) {
            fprintf(stderr, "%s: %.17g != %.17g\n", key, x, y);
            exit(1);
        }
    }
}

static mc_platform *write_and_load(const mc_platform *p, const char *path)
{
    mc_error err = {0};
    CHECK_EQ_INT(mc_platform_write(p, path, &err), MC_OK);
    mc_platform *q = mc_platform_load(path, &err);
    if (!q)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(q != NULL);
    return q;
}

int main(void)
{
    char path[] = "/tmp/mc_plat_rtXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);

    mc_platform *p = mc_platform_create();
    mc_platform *q = write_and_load(p, path);
    check_same(p, q);
    /* an unset key that follows another one is still unset after the trip */
    CHECK(!mc_platform_is_set(q, "network.link_bandwidth"));
    mc_platform_destroy(q);

    const char *sets[] = {
        "cpu.speed=3.3333333333333335", "cpu.flops=1.2345678901234567e9", "cpu.reduce_cost=0.3ns",
        "network.latency=3.3e-7", "network.overhead=123456789ns", "network.gap=1.0000000000000002s",
        "network.bandwidth=10Gb/s", "network.eager_limit=inf", "network.link_bandwidth=123457B/s",
        "network.hop_latency=7e-300", "network.ranks_per_node=48", "network.model=topo",
        "network.topology=dragonfly", "network.dims=2x3x4", "intranode.bandwidth=0.1B/s",
        "intranode.latency=1e3s", "collectives.bcast=scatter_allgather", "collectives.scan=linear",
    };
    mc_error err = {0};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (mc_platform_set(p, sets[i], &err) != MC_OK)
            fprintf(stderr, "%s\n", err.msg);
        CHECK_EQ_INT(err.code, MC_OK);
    }
    q = write_and_load(p, path);
    check_same(p, q);
    CHECK_EQ_STR(mc_platform_str(q, "collectives.bcast"), "scatter_allgather");
    CHECK(mc_platform_num(q, "network.latency") == 3.3e-7);
    CHECK(isinf(mc_platform_num(q, "network.eager_limit")));

    /* writing what was loaded gives the same file again */
    char path2[] = "/tmp/mc_plat_rt2XXXXXX";
    int fd2 = mkstemp(path2);
    CHECK(fd2 >= 0);
    CHECK_EQ_INT(mc_platform_write(q, path2, &err), MC_OK);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", path, path2);
    CHECK_EQ_INT(system(cmd), 0);

    CHECK_EQ_INT(mc_platform_write(p, "/nonexistent/dir/p.ini", &err), MC_ERR_IO);
    CHECK_EQ_STR(err.msg, "/nonexistent/dir/p.ini: cannot open: No such file or directory");

    mc_platform_destroy(p);
    mc_platform_destroy(q);
    remove(path);
    remove(path2);
    return 0;
}
