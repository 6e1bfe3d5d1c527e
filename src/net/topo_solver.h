/* Internal to src/net and its tests: the topo model's sharing solver
 * (topo_share.c) driven without the simulator, over links with capacities
 * and flows with routes (lists of link indices). A thin layer over the
 * model's own functions: the same records, the same refills, so the rates
 * are the model's to the bit. Time stands still (every call is at t = 0):
 * only rates are computed, no flow progresses or ends by itself.
 */
#ifndef MPICAST_NET_TOPO_SOLVER_H
#define MPICAST_NET_TOPO_SOLVER_H
#ifndef MPICAST_NET_INTERNAL
#error "topo_solver.h is internal to src/net"
#endif

#include <stdint.h>
#include "mpicast/error.h"

typedef struct topo_solver topo_solver;

/* A solver over nlinks links, link i of capacity cap[i] (> 0, INFINITY for
 * infinite; any unit of bytes per time, rates come out in it), routes of at
 * most maxroute links, re-rating as network.sharing=`sharing` does (local,
 * bottleneck, route, exact). At most three distinct capacities: the model
 * has three classes of link (NIC, shared memory, topology) and the links
 * are mapped onto them. NULL with err set (MC_ERR_PLATFORM, MC_ERR_NOMEM). */
topo_solver *topo_solver_create(const double *cap, int nlinks, int maxroute, const char *sharing,
                                mc_error *err);
/* Starts a flow over route[0..n) (distinct link indices): its id, or -1
 * (bad route, out of memory). It is rated at the next topo_solver_rate,
 * with every start and end since, as the model rates an instant's changes
 * together (ends pending before it are rated first: a start may take the
 * id of a flow ended). */
int32_t topo_solver_start(topo_solver *s, const int32_t *route, int n);
/* Ends flow f (rated first if it was not yet): 0, or -1 (no such flow). */
int topo_solver_end(topo_solver *s, int32_t f);
/* Re-rates after the starts and ends since the last call: 0, or -1 (out of
 * memory). */
int topo_solver_rate(topo_solver *s);
/* Flow f's rate (0 before its first rating), NAN for no flow in flight. */
double topo_solver_rate_of(const topo_solver *s, int32_t f);
void topo_solver_destroy(topo_solver *s);

/* One shot: flows 0..nflows-1, flow i over routes[i][0..nroute[i]),
 * started together and rated once (exact: the max-min fair rates):
 * rate[i]. */
mc_err topo_solve(const double *cap, int nlinks, int nflows, const int32_t *const *routes,
                  const int *nroute, const char *sharing, double *rate, mc_error *err);

#endif
