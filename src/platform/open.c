/* mc_platform_open: a platform file (or the defaults) with --set overrides,
 * the one way every command builds its platform. */
#include "mpicast/platform.h"

mc_platform *mc_platform_open(const char *file, const char *const *sets, int nsets,
                              mc_error *err)
{
    mc_platform *p = file ? mc_platform_load(file, err) : mc_platform_create();
    if (!p) {
        if (!file)
            mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < nsets; i++)
        if (mc_platform_set(p, sets[i], err)) {
            mc_error_prefix(err, "--set %s", sets[i]);
            mc_platform_destroy(p);
            return NULL;
        }
    return p;
}
