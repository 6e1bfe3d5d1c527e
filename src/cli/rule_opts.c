/* The extrapolation rule options shared by extrapolate, predict --ranks and
 * sweep --ranks (opts.h, CLI_EXTRAP_RULE_OPTS): each sets one rule. */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "mpicast/extrap.h"

int cli_rule_option(void *rules, const char *opt, const char *value, mc_error *err)
{
    mc_extrap_rules *r = rules;
    if (strcmp(opt, "--rules") == 0)
        return mc_extrap_rules_load(r, value, err) == MC_OK ? 0 : -1;
    if (strcmp(opt, "--rule") == 0) {
        char key[256];
        const char *eq = strchr(value, '=');
        if (!eq || (size_t)(eq - value) >= sizeof key) {
            mc_error_set(err, MC_ERR_USAGE, "--rule %s: expected KEY=VALUE", value);
            return -1;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - value), value);
        return mc_extrap_rules_set(r, key, eq + 1, err) == MC_OK ? 0 : -1;
    }
    /* --grid, --periodic, --replicate, --scaling: the rule of that name */
    return mc_extrap_rules_set(r, opt + 2, value, err) == MC_OK ? 0 : -1;
}
