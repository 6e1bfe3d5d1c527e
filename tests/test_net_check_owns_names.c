/* The network models own their names: the platform loader accepts any
 * network.model or network.topology text, and mc_net_check refuses what no
 * model knows, listing exactly the registry's models, suggesting the
 * nearest, and naming where the value was set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"

/* Sets key=value and runs mc_net_check; its code, err filled. */
static mc_err check_with(const char *key, const char *value, mc_error *err)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    CHECK(mc_platform_set_kv(p, key, value, err) == MC_OK); /* no list in the loader */
    mc_err rc = mc_net_check(p, err);
    mc_platform_destroy(p);
    return rc;
}

int main(void)
{
    mc_error err = {0};
    int n = 0;
    for (const mc_net_ops *o; (o = mc_net_at(n)) != NULL; n++)
        CHECK(check_with("network.model", o->name, &err) == MC_OK);
    CHECK(n >= 4);

    CHECK(check_with("network.model", "logpg", &err) == MC_ERR_PLATFORM);
    CHECK(strncmp(err.msg, "--set network.model=logpg: network.model: unknown value 'logpg'",
                  strlen("--set network.model=logpg: network.model: unknown value 'logpg'")) == 0);
    CHECK(strstr(err.msg, "did you mean loggp?") != NULL);
    /* the refusal lists the registry, in its order, and nothing else */
    char expect[256] = "expected one of ";
    for (int i = 0; i < n; i++) {
        strcat(expect, mc_net_at(i)->name);
        strcat(expect, i + 1 < n ? ", " : ";");
    }
    CHECK(strstr(err.msg, expect) != NULL);

    const char *shapes[] = {"crossbar", "ring", "mesh2d", "torus2d", "mesh3d", "torus3d",
                            "fattree", "hxb", "dragonfly", "switches"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        CHECK(check_with("network.topology", shapes[i], &err) == MC_OK);
    /* checked whatever the model: a sweep may switch to topo later */
    CHECK(check_with("network.topology", "fatree", &err) == MC_ERR_PLATFORM);
    CHECK(strstr(err.msg, "--set network.topology=fatree: network.topology: unknown value "
                          "'fatree'") == err.msg);
    CHECK(strstr(err.msg, "did you mean fattree?") != NULL);

    /* a file's value: its FILE:LINE */
    char path[] = "/tmp/mc_netcheckXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CHECK(f != NULL);
    fputs("[network]\nmodel = topo\ntopology = torus3\n", f);
    fclose(f);
    mc_platform *p = mc_platform_load(path, &err);
    CHECK(p != NULL);
    CHECK(mc_net_check(p, &err) == MC_ERR_PLATFORM);
    char want[512];
    snprintf(want, sizeof want, "%s:3: network.topology: unknown value 'torus3' (expected one of "
             "crossbar, ring, mesh2d, torus2d, mesh3d, torus3d, fattree, hxb, dragonfly, switches; "
             "did you mean torus3d?)", path);
    CHECK_EQ_STR(err.msg, want);
    mc_platform_destroy(p);
    unlink(path);

    /* created without a platform: the platform's default model */
    mc_net *net = mc_net_create(NULL, NULL, 2, &err);
    CHECK(net != NULL);
    CHECK_EQ_STR(net->ops->name, mc_platform_str(NULL, "network.model"));
    mc_net_destroy(net);
    return 0;
}
