/* Per-link statistics for mpicast predict (predict_links.h). */
#include "predict_links.h"

#include <math.h>
#include <stdlib.h>

mc_net *predict_links_net(const mc_platform *p, int nranks)
{
    mc_error err = {0};
    mc_net *n = mc_net_create(NULL, p, nranks, &err);
    if (n && !n->ops->flow) {
        mc_net_destroy(n);
        n = NULL;
    }
    return n; /* on failure the replay reports the same error itself */
}

void predict_links_take(predict_links *l, mc_net *net)
{
    if (!l || !net) {
        mc_net_destroy(net);
        return;
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
    size_t n = mc_net_link_stats(net, NULL, 0);
    if (n && (l->v = calloc(n, sizeof *l->v)))
        l->n = mc_net_link_stats(net, l->v, n);
    mc_net_destroy(net);
}

json_t *predict_links_json(const predict_links *l, double T)
{
    json_t *a = json_array();
    for (size_t i = 0; l && i < l->n; i++) {
        const mc_net_link_stat *s = &l->v[i];
        json_array_append_new(
            a, json_pack("{s:s,s:o,s:f,s:f,s:f,s:i}", "name", s->name, "bandwidth",
                         isinf(s->bandwidth) ? json_null() : json_real(s->bandwidth), "bytes",
                         s->bytes, "busy_time", s->busy, "utilization", T > 0 ? s->busy / T : 0.0,
                         "peak_flows", (int)s->peak_flows));
    }
    return a;
}

void predict_links_print(const predict_links *l, double T, FILE *out)
{
    if (!l || !l->n)
        return;
    size_t k = l->n < 5 ? l->n : 5;
    fprintf(out, "hottest links    (%zu links carried traffic; busy = at least one message on it)\n",
            l->n);
    for (size_t i = 0; i < k; i++) {
        const mc_net_link_stat *s = &l->v[i];
        fprintf(out, "  %-24s busy %.9f s (%5.1f %%)  %.6g bytes  peak %d flows\n", s->name,
                s->busy, T > 0 ? 100.0 * s->busy / T : 0.0, s->bytes, (int)s->peak_flows);
    }
}

void predict_links_free(predict_links *l)
{
    if (!l)
        return;
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
