/* mpicast — network models behind one interface.
 *
 * A network model prices one point-to-point transfer: how long the sender's
 * CPU and NIC are busy, when the message reaches the receiver, and how long
 * the receiver's CPU and NIC are busy with it. The simulator (src/sim) owns
 * time, queues and MPI semantics; a model only prices. Models are rows of a
 * static registry (name -> ops), so adding one is one file and one row.
 *
 * Times are integer picoseconds (int64_t): exact for every value written in
 * ns, and 2^63 ps is 106 days of simulated time. Durations that come from a
 * per-byte rate are rounded once per transfer ((s-1)*G rounded to the nearest
 * ps), never accumulated per byte, so they cannot drift.
 *
 * Ownership: mc_net_create returns an object freed by mc_net_destroy (NULL is
 * a no-op). The platform must outlive nothing: models copy what they need.
 */
#ifndef MPICAST_NET_H
#define MPICAST_NET_H

#include <stdint.h>
#include "mpicast/error.h"
#include "mpicast/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Picoseconds per second, for conversions. */
#define MC_PS_PER_S 1000000000000.0

/* The price of one transfer of `bytes` started at t (sender CPU and NIC free).
 * All durations are relative: to t for the send side and the arrival, to the
 * start of the receiver's processing for the receive side. */
typedef struct mc_net_cost {
    int64_t send_cpu; /* sender CPU busy for this long (LogGP: o) */
    int64_t send_nic; /* sender NIC busy for this long (g + (s-1)G) */
    int64_t arrive;   /* message reaches the receiver this long after t (o + L) */
    int64_t recv_cpu; /* receiver CPU busy processing it (o + (s-1)G) */
    int64_t recv_nic; /* receiver NIC busy (g + (s-1)G) */
} mc_net_cost;

typedef struct mc_net mc_net;

typedef struct mc_net_ops {
    const char *name;    /* "loggp", "free" */
    const char *summary; /* one line for --help and docs */
    /* Builds the model from the platform keys for nranks ranks. */
    mc_net *(*create)(const mc_platform *p, int nranks, mc_error *err);
    /* Prices a transfer src -> dst (world ranks) of `bytes` started at t_ps. */
    void (*transfer)(mc_net *n, int64_t t_ps, int src, int dst, int64_t bytes,
                     mc_net_cost *out);
    void (*destroy)(mc_net *n);
} mc_net_ops;

/* Every model object starts with this header. */
struct mc_net {
    const mc_net_ops *ops;
};

/* Registry: the model called `name`, or NULL. */
const mc_net_ops *mc_net_find(const char *name);
/* Registry rows for listings: model i or NULL past the end. */
const mc_net_ops *mc_net_at(int i);

/* Creates model `name` (NULL: the platform's network.model). Unknown names
 * fail with MC_ERR_PLATFORM listing the known models. */
mc_net *mc_net_create(const char *name, const mc_platform *p, int nranks, mc_error *err);
static inline void mc_net_transfer(mc_net *n, int64_t t_ps, int src, int dst, int64_t bytes,
                                   mc_net_cost *out)
{
    n->ops->transfer(n, t_ps, src, dst, bytes, out);
}
void mc_net_destroy(mc_net *n);

/* Seconds (double, may be +inf for "never") to picoseconds, rounded. */
int64_t mc_net_s_to_ps(double seconds);

#ifdef __cplusplus
}
#endif
#endif
