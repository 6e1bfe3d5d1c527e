/* The topo model's sharing solver without the simulator (topo_solver.h):
 * a topo_net holding only links and flows, driven through the model's own
 * functions (topo_flow_open, topo_flow_end, topo_share_rerate). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MPICAST_NET_INTERNAL
#include "topo_model.h"
#include "topo_solver.h"

struct topo_solver {
    topo_net *n;
    int nlinks;
    int32_t *map;   /* caller's link index -> model link id */
    int32_t *route; /* scratch: a route in model ids */
    size_t nd;      /* flows ended since the last rating (n->done) */
};

/* The model's link ids are in capacity classes by range (cap_of): the
 * distinct capacities become classes 0, 1, 2 in order of first appearance
 * and each class's links take consecutive ids. -1 for more than three. */
static int map_links(topo_solver *s, const double *cap, tcaps *c)
{
    int nc = 0, count[3] = {0, 0, 0}, cls[3] = {0, 0, 0};
    for (int i = 0; i < s->nlinks; i++) {
        int k = 0;
        while (k < nc && c->cap[k] != cap[i])
            k++;
        if (k == nc) {
            if (nc == 3)
                return -1;
            c->cap[nc++] = cap[i];
        }
        count[k]++;
    }
    for (int k = nc; k < 3; k++)
        c->cap[k] = c->cap[nc - 1]; /* no link of the class: never read */
    c->nic_end = count[0];
    c->shm_end = count[0] + count[1];
    cls[1] = c->nic_end;
    cls[2] = c->shm_end;
    for (int i = 0; i < s->nlinks; i++) {
        int k = 0;
        while (c->cap[k] != cap[i])
            k++;
        s->map[i] = cls[k]++;
    }
    return 0;
}

static topo_solver *solver_fail(topo_solver *s, mc_error *err, mc_err code, const char *what)
{
    mc_error_set(err, code, "topo solver: %s", what);
    topo_solver_destroy(s);
    return NULL;
}

topo_solver *topo_solver_create(const double *cap, int nlinks, int maxroute, const char *sharing,
                                mc_error *err)
{
    if (nlinks <= 0 || maxroute <= 0) {
        mc_error_set(err, MC_ERR_PLATFORM, "topo solver: no links or no route length");
        return NULL;
    }
    for (int i = 0; i < nlinks; i++)
        if (!(cap[i] > 0)) {
            mc_error_set(err, MC_ERR_PLATFORM, "topo solver: link %d: capacity not > 0", i);
            return NULL;
        }
    topo_solver *s = calloc(1, sizeof *s);
    if (!s) {
        mc_error_set(err, MC_ERR_NOMEM, "topo solver: out of memory");
        return NULL;
    }
    s->nlinks = nlinks;
    s->map = malloc((size_t)nlinks * sizeof *s->map);
    s->route = malloc((size_t)maxroute * sizeof *s->route);
    topo_net *n = s->n = calloc(1, sizeof *n);
    if (!s->map || !s->route || !n)
        return solver_fail(s, err, MC_ERR_NOMEM, "out of memory");
    n->free_fl = -1;
    n->pf = -1;
    n->armed = INT64_MAX;
    n->share = topo_sharing_find(sharing);
    n->nlinks = nlinks;
    n->maxp = maxroute;
    n->links = aligned_alloc(64, (size_t)nlinks * sizeof *n->links);
    n->since = calloc((size_t)nlinks, sizeof *n->since);
    if (!n->links || !n->since)
        return solver_fail(s, err, MC_ERR_NOMEM, "out of memory");
    memset(n->links, 0, (size_t)nlinks * sizeof *n->links);
    if (map_links(s, cap, &n->caps))
        return solver_fail(s, err, MC_ERR_PLATFORM, "more than three distinct capacities");
    return s;
}

static int live(const topo_solver *s, int32_t f)
{
    return f >= 0 && f < s->n->nfl && s->n->fc[f].live;
}

static int pending(const topo_solver *s, int32_t f)
{
    for (size_t i = 0; i < s->n->npend; i++)
        if (s->n->pend[i] == f)
            return 1;
    return 0;
}

int32_t topo_solver_start(topo_solver *s, const int32_t *route, int n)
{
    topo_net *m = s->n;
    if (n <= 0 || n > m->maxp || (s->nd && topo_solver_rate(s)))
        return -1;
    for (int i = 0; i < n; i++) {
        if (route[i] < 0 || route[i] >= s->nlinks)
            return -1;
        s->route[i] = s->map[route[i]];
        for (int j = 0; j < i; j++)
            if (s->route[j] == s->route[i])
                return -1;
    }
    int32_t f = topo_flow_open(m, s->route, n, 1.0, 0);
    if (f < 0 || m->failed || topo_list_add(&m->pend, &m->cappend, &m->npend, f))
        return -1;
    return f;
}

int topo_solver_end(topo_solver *s, int32_t f)
{
    if (!live(s, f) || (pending(s, f) && topo_solver_rate(s)))
        return -1;
    topo_flow_end(s->n, f, 0);
    return topo_list_add(&s->n->done, &s->n->capdone, &s->nd, f);
}

int topo_solver_rate(topo_solver *s)
{
    topo_net *n = s->n;
    if (!s->nd && !n->npend)
        return 0;
    topo_rated r;
    int rc = topo_share_rerate(n, s->nd, n->npend, 0, &r);
    s->nd = 0;
    n->npend = 0;
    return rc || n->failed ? -1 : 0;
}

double topo_solver_rate_of(const topo_solver *s, int32_t f)
{
    return live(s, f) ? s->n->fl[f].rate : NAN;
}

void topo_solver_destroy(topo_solver *s)
{
    if (!s)
        return;
    topo_free(s->n);
    free(s->map);
    free(s->route);
    free(s);
}

mc_err topo_solve(const double *cap, int nlinks, int nflows, const int32_t *const *routes,
                  const int *nroute, const char *sharing, double *rate, mc_error *err)
{
    int maxroute = 1;
    for (int i = 0; i < nflows; i++)
        maxroute = nroute[i] > maxroute ? nroute[i] : maxroute;
    topo_solver *s = topo_solver_create(cap, nlinks, maxroute, sharing, err);
    if (!s)
        return err ? err->code : MC_ERR_PLATFORM;
    int32_t *id = malloc((size_t)(nflows > 0 ? nflows : 1) * sizeof *id);
    mc_err rc = id ? MC_OK : MC_ERR_NOMEM;
    for (int i = 0; i < nflows && rc == MC_OK; i++)
        if ((id[i] = topo_solver_start(s, routes[i], nroute[i])) < 0)
            rc = MC_ERR_PLATFORM;
    if (rc == MC_OK && topo_solver_rate(s))
        rc = MC_ERR_NOMEM;
    for (int i = 0; i < nflows && rc == MC_OK; i++)
        rate[i] = topo_solver_rate_of(s, id[i]);
    if (rc != MC_OK)
        mc_error_set(err, rc, "topo solver: %s",
                     rc == MC_ERR_NOMEM ? "out of memory" : "a route names no link or one twice");
    free(id);
    topo_solver_destroy(s);
    return rc;
}
