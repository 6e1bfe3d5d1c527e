/* Internal to the topo network model: topology shapes and their routes
 * (topo_route.c), used by the flow-sharing model (topo.c).
 *
 * Link ids: 0..N-1 are the nodes' injection links (node -> network),
 * N..2N-1 their ejection links, 2N..3N-1 their shared-memory links (two
 * ranks of one node), 3N.. the topology's own links (t->base). Routes list
 * only topology links; the model adds the NIC links around them.
 */
#ifndef MPICAST_NET_TOPO_IMPL_H
#define MPICAST_NET_TOPO_IMPL_H
#ifndef MPICAST_NET_INTERNAL
#error "topo_impl.h is internal to src/net"
#endif

#include <stddef.h>
#include <stdint.h>
#include "mpicast/error.h"

enum { T_CROSSBAR, T_TORUS, T_MESH, T_HXB, T_FATTREE, T_SWITCHES, T_DRAGONFLY };
#define TOPO_MAXD 8

typedef struct topo_shape {
    int kind;
    int nnodes;               /* compute nodes */
    int D, dims[TOPO_MAXD];   /* torus/mesh/ring/hxb grid; dragonfly G, A, P */
    int64_t nrouters;         /* torus/mesh/hxb: product of dims */
    int k, n, nup;            /* fattree: k-ary n-tree, up ports used per leaf;
                                 switches: k nodes per leaf, n leaves */
    int64_t S;                /* fattree: switches per level (k^(n-1)) */
    int ecmp;
    int32_t base;             /* first topology link id (3 * nnodes) */
    int64_t nlinks;           /* all link ids */
    int maxh;                 /* longest route (topology links) */
} topo_shape;

/* Builds the shape `name` (network.topology) for nnodes nodes. dims: the
 * network.dims text ("" to derive). Fails with MC_ERR_PLATFORM. */
/* The topologies topo_shape_init builds, as network.topology names them. */
#define TOPO_NAMES "crossbar|ring|mesh2d|torus2d|mesh3d|torus3d|fattree|hxb|dragonfly|switches"

mc_err topo_shape_init(topo_shape *t, const char *name, const char *dims, int nnodes, int arity,
                       double taper, int ecmp, mc_error *err);
/* Writes the topology links of the route from node s to node d into path
 * (room for t->maxh) and returns their number (the hop count). salt picks
 * the up ports under ecmp. */
int topo_route(const topo_shape *t, int s, int d, uint64_t salt, int32_t *path);
/* 1 for links that take network.uplink_bandwidth (switches' uplinks).
 * Either every topology link of a shape is an uplink or none is: topo.c
 * derives a link's capacity from its id's class (NIC, shared memory,
 * topology) and asks for t->base only. */
int topo_is_uplink(const topo_shape *t, int32_t id);
/* Human-readable link name (docs/platform.md). */
void topo_link_name(const topo_shape *t, int32_t id, char *buf, size_t len);
/* Balanced factorisation of n into D dims, largest first (MPI_Dims_create). */
void topo_dims_create(int64_t n, int D, int *dims);

#endif
