/* Internal to net: the registry rows. One extern per model file. */
#ifndef MPICAST_NET_MODELS_H
#define MPICAST_NET_MODELS_H
#include "mpicast/net.h"

extern const mc_net_ops mc_net_loggp_ops; /* loggp.c */
extern const mc_net_ops mc_net_free_ops;  /* loggp.c: L = o = g = 0, G = 0 */

#endif
