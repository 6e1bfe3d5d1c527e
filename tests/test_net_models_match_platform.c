/* The platform file accepts exactly the network models the registry has:
 * platform.c repeats the names so that a typo is reported with FILE:LINE at
 * load time; this keeps the two lists equal in both directions. */
#include "check.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"

int main(void)
{
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    mc_error err = {0};
    int n = 0;
    for (const mc_net_ops *o; (o = mc_net_at(n)) != NULL; n++) {
        if (mc_platform_set_kv(p, "network.model", o->name, &err) != MC_OK)
            fprintf(stderr, "registry model '%s' refused: %s\n", o->name, err.msg);
        CHECK(mc_platform_set_kv(p, "network.model", o->name, &err) == MC_OK);
    }
    CHECK(n >= 4);
    /* the refusal lists the accepted names: each must be in the registry */
    CHECK(mc_platform_set_kv(p, "network.model", "no-such-model", &err) == MC_ERR_PLATFORM);
    const char *list = strstr(err.msg, "expected one of ");
    CHECK(list != NULL);
    char names[256];
    snprintf(names, sizeof names, "%s", list + strlen("expected one of "));
    names[strcspn(names, ";)")] = 0;
    int listed = 0;
    for (char *save = NULL, *w = strtok_r(names, ", ", &save); w;
         w = strtok_r(NULL, ", ", &save), listed++) {
        if (!mc_net_find(w))
            fprintf(stderr, "platform accepts '%s', the registry has no such model\n", w);
        CHECK(mc_net_find(w) != NULL);
    }
    CHECK_EQ_INT(listed, n);
    mc_platform_destroy(p);
    return 0;
}
