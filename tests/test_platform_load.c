/* Platform defaults, the key table, loading INI files, --set, and the error
 * messages (FILE:LINE: section.key: what is wrong). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/platform.h"

static char dir[] = "/tmp/mc_platXXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

#define CHECK_NUM(p, key, want) CHECK(mc_platform_num(p, key) == (want))

static void load_fails(const char *text, const char *suffix)
{
    const char *path = write_file("bad.ini", text);
    mc_error err = {0};
    CHECK(mc_platform_load(path, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    CHECK_EQ_STR(err.msg, want);
}

static void set_fails(mc_platform *p, const char *assignment, const char *msg)
{
    mc_error err = {0};
    CHECK(mc_platform_set(p, assignment, &err) != MC_OK);
    CHECK_EQ_STR(err.msg, msg);
}

static void check_defaults(void)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    CHECK_NUM(p, "cpu.speed", 1);
    CHECK_NUM(p, "cpu.flops", 1e9);
    CHECK_NUM(p, "cpu.reduce_cost", 0);
    CHECK_EQ_STR(mc_platform_str(p, "network.model"), "loggp");
    CHECK_NUM(p, "network.latency", 0.5e-6);
    CHECK_NUM(p, "network.overhead", 0.2e-6);
    CHECK_NUM(p, "network.gap", 0);
    CHECK_NUM(p, "network.bandwidth", 5e9);
    CHECK_NUM(p, "network.eager_limit", 65536);
    CHECK_EQ_STR(mc_platform_str(p, "network.topology"), "crossbar");
    CHECK_EQ_STR(mc_platform_str(p, "network.dims"), "");
    CHECK_NUM(p, "network.link_bandwidth", 5e9); /* follows network.bandwidth */
    CHECK_NUM(p, "network.hop_latency", 0);
    CHECK_NUM(p, "network.ranks_per_node", 1);
    CHECK_NUM(p, "intranode.latency", 0.5e-6);
    CHECK_NUM(p, "intranode.overhead", 0.2e-6);
    CHECK_NUM(p, "intranode.gap", 0);
    CHECK_NUM(p, "intranode.bandwidth", 5e9);
    const char *colls[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
                           "allgather", "alltoall", "alltoallv", "allgatherv", "gatherv",
                           "scatterv", "reduce_scatter", "scan", "exscan"};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "collectives.%s", colls[i]);
        CHECK_EQ_STR(mc_platform_str(p, key), "auto");
        CHECK(!mc_platform_is_set(p, key));
    }
    CHECK(!mc_platform_is_set(p, "network.latency"));
    /* wrong getter or unknown key: NaN / NULL */
    CHECK(isnan(mc_platform_num(p, "network.model")));
    CHECK(isnan(mc_platform_num(p, "network.nothing")));
    CHECK(mc_platform_str(p, "network.latency") == NULL);
    CHECK(!mc_platform_is_set(p, "network.nothing"));

    /* setting network.bandwidth moves link_bandwidth until that is set */
    mc_error err = {0};
    CHECK_EQ_INT(mc_platform_set(p, "network.bandwidth=10Gb/s", &err), MC_OK);
    CHECK_NUM(p, "network.link_bandwidth", 1.25e9);
    CHECK_EQ_INT(mc_platform_set_kv(p, "network.link_bandwidth", "1GB/s", &err), MC_OK);
    CHECK_NUM(p, "network.link_bandwidth", 1e9);
    CHECK(mc_platform_is_set(p, "network.link_bandwidth"));
    mc_platform_destroy(p);
    mc_platform_destroy(NULL);
}

static void check_key_table(void)
{
    int n = 0;
    mc_unit unit;
    const char *help, *name;
    for (; (name = mc_platform_key_at(n, &unit, &help)) != NULL; n++) {
        CHECK(strchr(name, '.') != NULL);
        CHECK(help != NULL && strlen(help) > 10);
        for (int j = 0; j < n; j++)
            CHECK(strcmp(mc_platform_key_at(j, NULL, NULL), name) != 0);
        if (strcmp(name, "network.latency") == 0)
            CHECK_EQ_INT(unit, MC_UNIT_TIME);
        if (strcmp(name, "network.bandwidth") == 0)
            CHECK_EQ_INT(unit, MC_UNIT_BANDWIDTH);
        if (strcmp(name, "network.eager_limit") == 0)
            CHECK_EQ_INT(unit, MC_UNIT_BYTES);
    }
    CHECK_EQ_INT(n, 35 + 8 + 4 + 3 + 21); /* + 8 topo keys (issue 5), + 4 accuracy keys (issue 3),
                                       + comm setup's local cost and 2 polling keys (issue 21),
                                       + 21 processor model keys (issue 23) */
    CHECK(mc_platform_key_at(-1, NULL, NULL) == NULL);
}

static void check_load(void)
{
    const char *path = write_file("good.ini",
                                  "\xef\xbb\xbf# a platform\n"
                                  "[cpu]\n"
                                  "speed = 2\n"
                                  "flops = 2.5Gf\n"
                                  "\n"
                                  "[network]\n"
                                  "  latency = 1.5us   ; indented, with a comment\n"
                                  "bandwidth = 10Gb/s\n"
                                  "eager_limit = inf\n"
                                  "model = topo\n"
                                  "topology = torus3d\n"
                                  "dims = 4x4x2\n"
                                  "ranks_per_node = 4\n"
                                  "[Collectives]\n"
                                  "Bcast = binomial\n");
    mc_error err = {0};
    mc_platform *p = mc_platform_load(path, &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);
    CHECK_NUM(p, "cpu.speed", 2);
    CHECK_NUM(p, "cpu.flops", 2.5e9);
    CHECK_NUM(p, "network.latency", 1.5e-6);
    CHECK_NUM(p, "network.bandwidth", 1.25e9);
    CHECK(isinf(mc_platform_num(p, "network.eager_limit")));
    CHECK_EQ_STR(mc_platform_str(p, "network.model"), "topo");
    CHECK_EQ_STR(mc_platform_str(p, "network.topology"), "torus3d");
    CHECK_EQ_STR(mc_platform_str(p, "network.dims"), "4x4x2");
    CHECK_NUM(p, "network.ranks_per_node", 4);
    CHECK_EQ_STR(mc_platform_str(p, "collectives.bcast"), "binomial");
    CHECK(mc_platform_is_set(p, "network.latency"));
    CHECK(!mc_platform_is_set(p, "network.overhead"));
    CHECK_NUM(p, "network.overhead", 0.2e-6);

    /* --set overrides a loaded value */
    CHECK_EQ_INT(mc_platform_set(p, " network.latency = 2us ", &err), MC_OK);
    CHECK_NUM(p, "network.latency", 2e-6);
    mc_platform_destroy(p);

    /* an empty file is the default platform */
    p = mc_platform_load(write_file("empty.ini", ""), &err);
    CHECK(p != NULL);
    CHECK_NUM(p, "network.latency", 0.5e-6);
    mc_platform_destroy(p);
}

static void check_errors(void)
{
    load_fails("[network]\nlatency = 1us\nlatencyy = 2us\n",
               ":3: network.latencyy: unknown key (did you mean network.latency?)");
    load_fails("[cpu]\nlatency = 1us\n", ":2: cpu.latency: unknown key (did you mean network.latency?)");
    load_fails("[network]\nfrobnicate = 1\n", ":2: network.frobnicate: unknown key (see docs/platform.md)");
    load_fails("# c\n[netwrk]\n", ":2: [netwrk]: unknown section (did you mean [network]?)");
    load_fails("[disk]\nspeed = 1\n",
               ":1: [disk]: unknown section (known: cpu, network, intranode, collectives)");
    load_fails("[network]\nlatency = 1.5xs\n",
               ":2: network.latency: bad value '1.5xs' (unknown unit 'xs'): expected a time like 1.5us, 250ns, "
               "2ms or 1s");
    load_fails("[network]\n\ngap = -1us\n", ":3: network.gap: must not be negative");
    load_fails("[network]\nbandwidth = 0\n", ":2: network.bandwidth: must be greater than 0");
    load_fails("[network]\nlatency = inf\n", ":2: network.latency: must be finite (inf is not allowed here)");
    load_fails("[network]\nranks_per_node = 1.5\n", ":2: network.ranks_per_node: must be a whole number");
    load_fails("[network]\ndims = 4x0\n",
               ":2: network.dims: bad value '4x0': expected dimensions like 4x4x4, or nothing");
    load_fails("latency = 1us\n", ":1: latency: key outside a section (did you mean network.latency?)");
    load_fails("[network]\nlatency 1us\n", ":2: syntax error: expected 'key = value' or '[section]'");
    load_fails("[network\n", ":1: syntax error: expected 'key = value' or '[section]'");

    mc_error err = {0};
    CHECK(mc_platform_load("/nonexistent/p.ini", &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_IO);
    CHECK_EQ_STR(err.msg, "/nonexistent/p.ini: cannot open: No such file or directory");

    mc_platform *p = mc_platform_create();
    set_fails(p, "network.latencyy=1us", "--set network.latencyy: unknown key (did you mean network.latency?)");
    set_fails(p, "network.latency=abc",
              "--set network.latency: bad value 'abc': expected a time like 1.5us, 250ns, 2ms or 1s");
    set_fails(p, "network.latency", "--set network.latency: expected section.key=value");
    set_fails(p, "=1us", "--set =1us: expected section.key=value");
    /* model and topology names are the network models' (mc_net_check,
     * test_net_check_owns_names): the loader keeps the text and its origin */
    CHECK_EQ_INT(mc_platform_set(p, "network.topology=torus", &err), MC_OK);
    CHECK_EQ_STR(mc_platform_origin(p, "network.topology"), "--set network.topology=torus");
    CHECK_EQ_INT(mc_platform_check_choice("torus", "torus2d|torus3d|ring", &err), MC_ERR_PLATFORM);
    CHECK_EQ_STR(err.msg, "unknown value 'torus' (expected one of torus2d, torus3d, ring; did you "
                          "mean torus2d?)");
    CHECK_EQ_INT(mc_platform_check_choice("ring", "torus2d|torus3d|ring", &err), MC_OK);
    CHECK_EQ_INT(mc_platform_set_kv(p, "cpu.speeed", "2", &err), MC_ERR_PLATFORM);
    CHECK_EQ_STR(err.msg, "cpu.speeed: unknown key (did you mean cpu.speed?)");
    CHECK_NUM(p, "network.latency", 0.5e-6); /* failed sets change nothing */
    CHECK(!mc_platform_is_set(p, "network.latency"));
    mc_platform_destroy(p);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    check_defaults();
    check_key_table();
    check_load();
    check_errors();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
    return 0;
}
