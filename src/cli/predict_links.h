/* Internal to mpicast predict: rendering of the session's per-link
 * statistics (flow network models such as topo): the "links" array of
 * --json and the hottest links of the text summary. */
#ifndef MPICAST_CLI_PREDICT_LINKS_H
#define MPICAST_CLI_PREDICT_LINKS_H

#include <jansson.h>
#include <stdio.h>

#include "mpicast/predict.h"

/* JSON array of the links (T: predicted time, for utilisation). */
json_t *predict_links_json(const mc_predict_links *l, double T);
/* "hottest links" lines of the text summary (nothing without links). */
void predict_links_print(const mc_predict_links *l, double T, FILE *out);

#endif
