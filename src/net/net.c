/* Network model registry: a static table of name -> ops. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "mpicast/net.h"
#include "net_models.h"

static const mc_net_ops *const registry[] = {
    &mc_net_loggp_ops,
    &mc_net_free_ops,
    &mc_net_topo_ops,
    &mc_net_table_ops,
};
#define NMODELS ((int)(sizeof registry / sizeof registry[0]))

const mc_net_ops *mc_net_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NMODELS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const mc_net_ops *mc_net_at(int i)
{
    return i >= 0 && i < NMODELS ? registry[i] : NULL;
}

/* A model's error about a key ("network.dims: ...") gets the place the
 * key's value came from in front ("cluster.ini:7: network.dims: ..."). */
static void name_origin(const mc_platform *p, mc_error *err)
{
    if (!err || err->code != MC_ERR_PLATFORM)
        return;
    char key[64];
    const char *m = err->msg;
    size_t n = strcspn(m, ": ");
    if (m[n] == ':' && !memchr(m, '.', n)) /* "topo: network.dims: ..." */
        m += n + (m[n + 1] == ' ' ? 2 : 1), n = strcspn(m, ": ");
    if (n == 0 || n >= sizeof key || m[n] != ':' || !memchr(m, '.', n))
        return;
    memcpy(key, m, n);
    key[n] = 0;
    const char *where = mc_platform_origin(p, key);
    if (where)
        mc_error_prefix(err, "%s", where);
}

/* name is a model of the registry, else the error names the choices (and
 * where network.model was set, when p says). */
static mc_err check_model_name(const mc_platform *p, const char *name, mc_error *err)
{
    if (mc_net_find(name))
        return MC_OK;
    char known[256] = "";
    for (int i = 0; i < NMODELS; i++) {
        if (i)
            strncat(known, "|", sizeof known - strlen(known) - 1);
        strncat(known, registry[i]->name, sizeof known - strlen(known) - 1);
    }
    mc_platform_check_choice(name, known, err);
    mc_error_prefix(err, "network.model");
    name_origin(p, err);
    return MC_ERR_PLATFORM;
}

mc_err mc_net_check(const mc_platform *p, mc_error *err)
{
    if (check_model_name(p, mc_platform_str(p, "network.model"), err) != MC_OK)
        return MC_ERR_PLATFORM;
    for (int i = 0; i < NMODELS; i++)
        if (registry[i]->check && registry[i]->check(p, err) != MC_OK) {
            name_origin(p, err);
            return MC_ERR_PLATFORM;
        }
    return MC_OK;
}

mc_net *mc_net_create(const char *name, const mc_platform *p, int nranks, mc_error *err)
{
    if (!name) /* p NULL: the default model */
        name = mc_platform_str(p, "network.model");
    const mc_net_ops *ops = mc_net_find(name);
    if (!ops) {
        check_model_name(p, name, err);
        return NULL;
    }
    mc_net *n = ops->create(p, nranks, err);
    if (!n)
        name_origin(p, err);
    return n;
}

void mc_net_destroy(mc_net *n)
{
    if (n)
        n->ops->destroy(n);
}

int64_t mc_net_s_to_ps(double seconds)
{
    if (isnan(seconds) || seconds <= 0)
        return 0;
    double ps = seconds * MC_PS_PER_S;
    if (ps >= 9.2e18)
        return INT64_MAX / 4; /* "never", still safe to add a few of */
    return llround(ps);
}

/* Models that know measured collective times (an optional capability, kept
 * out of mc_net_ops so that the models' initialisers stay as they are). */
static const struct {
    const mc_net_ops *ops;
    int64_t (*coll_time)(mc_net *n, const char *op, int comm_size, int64_t bytes);
} coll_timers[] = {
    {&mc_net_table_ops, mc_net_table_coll_time},
};

int64_t mc_net_coll_time(mc_net *n, const char *op, int comm_size, int64_t bytes)
{
    if (!n || !op)
        return -1;
    for (size_t i = 0; i < sizeof coll_timers / sizeof coll_timers[0]; i++)
        if (coll_timers[i].ops == n->ops)
            return coll_timers[i].coll_time(n, op, comm_size, bytes);
    return -1;
}

/* Whether model m declares that it reads key (its own keys, mc_net_ops.keys). */
static int model_reads(const mc_net_ops *m, const char *key)
{
    for (const char *const *k = m && m->keys ? m->keys : NULL; k && *k; k++)
        if (strcmp(*k, key) == 0)
            return 1;
    return 0;
}

static void append(char *buf, size_t len, const char *word)
{
    size_t at = strlen(buf);
    if (at < len)
        snprintf(buf + at, len - at, "%s%s", at ? ", " : "", word);
}

int mc_net_ignored_keys(const mc_platform *p, char *buf, size_t len, char *models, size_t mlen)
{
    if (len)
        buf[0] = 0;
    if (mlen)
        models[0] = 0;
    const char *model = p ? mc_platform_str(p, "network.model") : NULL;
    if (!p || !model)
        return 0;
    const mc_net_ops *chosen = mc_net_find(model);
    int n = 0;
    for (int m = 0; mc_net_at(m); m++) {
        const mc_net_ops *o = mc_net_at(m);
        for (const char *const *k = o != chosen ? o->keys : NULL; k && *k; k++) {
            if (!mc_platform_is_set(p, *k) || model_reads(chosen, *k))
                continue;
            append(buf, len, *k);
            if (mlen && !strstr(models, o->name))
                append(models, mlen, o->name);
            n++;
        }
    }
    return n;
}

int mc_net_warn_ignored(const mc_platform *p, FILE *out, char *seen, size_t seen_len)
{
    char keys[512], models[64], line[700];
    int n = mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models);
    if (n == 0)
        return 0;
    snprintf(line, sizeof line, "mpicast: warning: %s %s ignored by network.model = %s (only %s "
             "%s %s)\n", keys, n > 1 ? "are" : "is", mc_platform_str(p, "network.model"), models,
             strchr(models, ',') ? "read" : "reads", n > 1 ? "them" : "it");
    if (seen && strcmp(seen, line) == 0)
        return n;
    if (seen && seen_len) {
        strncpy(seen, line, seen_len - 1);
        seen[seen_len - 1] = 0;
    }
    fputs(line, out);
    return n;
}
