/* Internal to mpicast predict: per-link statistics of flow network models
 * (topo) for --json ("links") and the text summary (hottest links). */
#ifndef MPICAST_CLI_PREDICT_LINKS_H
#define MPICAST_CLI_PREDICT_LINKS_H

#include <jansson.h>
#include <stdio.h>

#include "mpicast/net.h"
#include "mpicast/platform.h"

typedef struct predict_links {
    mc_net_link_stat *v; /* every link that carried traffic, busiest first */
    size_t n;
} predict_links;

/* The platform's network model for nranks when it has links (a flow model),
 * to pass as mc_sim_options.net; else NULL (the replay creates its own). */
mc_net *predict_links_net(const mc_platform *p, int nranks);
/* Collects the statistics of net after the replay and destroys it (NULL ok). */
void predict_links_take(predict_links *l, mc_net *net);
/* JSON array of the links (T: predicted time, for utilisation). */
json_t *predict_links_json(const predict_links *l, double T);
/* "hottest links" lines of the text summary (nothing without links). */
void predict_links_print(const predict_links *l, double T, FILE *out);
void predict_links_free(predict_links *l);

#endif
