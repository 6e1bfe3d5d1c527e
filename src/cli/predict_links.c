/* Rendering of per-link statistics for mpicast predict (predict_links.h). */
#include "predict_links.h"

#include <math.h>

json_t *predict_links_json(const mc_predict_links *l, double T)
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

void predict_links_print(const mc_predict_links *l, double T, FILE *out)
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
