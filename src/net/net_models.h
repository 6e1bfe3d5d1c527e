/* Internal to net: the registry rows. One extern per model file. */
#ifndef MPICAST_NET_MODELS_H
#define MPICAST_NET_MODELS_H
#include "mpicast/net.h"

extern const mc_net_ops mc_net_loggp_ops; /* loggp.c */
extern const mc_net_ops mc_net_free_ops;  /* loggp.c: L = o = g = 0, G = 0 */
extern const mc_net_ops mc_net_topo_ops;  /* topo.c: topology + max-min link sharing */
extern const mc_net_ops mc_net_table_ops; /* table.c: measured times */

/* table.c: measured collective time (ps) or -1, behind mc_net_coll_time. */
int64_t mc_net_table_coll_time(mc_net *n, const char *op, int comm_size, int64_t bytes);
/* table.c: piecewise-linear interpolation of t over ascending sizes, linear
 * extrapolation on both sides with the end segments, clamped at 0. */
double mc_net_table_interp(const double *size, const double *t, int n, double s);

#endif
