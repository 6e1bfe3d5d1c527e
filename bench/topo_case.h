/* The synthetic topo replays of bench_topo (issue 5), shared with the test
 * that pins their results to the bit (tests/test_topo_bitexact.c):
 *   TC_HALO      3-D halo exchange on a d[0]xd[1]xd[2] grid of ranks: per
 *                iteration a compute burst, 6 Irecv + 6 Isend of 64 KiB to
 *                the grid neighbours, Waitall
 *   TC_ALLTOALL  Alltoall of 4 KiB per peer (pairwise algorithm)
 * on a torus3d of the same dims, 5 GB/s links, 100 ns per hop, L = 1 us,
 * o = 1 us; `extra` ("key=value;key=value", may be empty) sets further
 * platform keys (another topology, ranks per node, network.sharing...). */
#ifndef MPICAST_BENCH_TOPO_CASE_H
#define MPICAST_BENCH_TOPO_CASE_H

#include <stdint.h>

#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"

enum { TC_HALO, TC_ALLTOALL };

typedef struct topo_case {
    mc_source base; /* the synthetic events (first: the mc_source view) */
    int kind, d[3];
    uint32_t iters;
    uint32_t *it;
    uint8_t *step;
    int64_t (*vals)[48];
    mc_platform *plat;
    mc_net *net; /* created from plat, for its link statistics */
} topo_case;

/* Builds the source, the platform (network.model = `model`) and the
 * network; on failure (a bad key in `extra`, no memory) fills err, frees
 * what it made and returns the error. */
mc_err topo_case_open(topo_case *c, int kind, const int d[3], uint32_t iters, const char *model,
                      const char *extra, mc_error *err);
mc_err topo_case_run(topo_case *c, mc_sim_result *res, mc_error *err);
/* FNV-1a over what a model change must not move: every rank's end,
 * communication and wait times, every used link's statistics. */
uint64_t topo_case_digest(const topo_case *c, const mc_sim_result *res);
void topo_case_close(topo_case *c);
/* open + run + digest + close with the topo model, for the tests: the
 * digest, the predicted end (ps) and the number of links used. */
mc_err topo_case_replay(int kind, const int d[3], uint32_t iters, const char *extra,
                        uint64_t *digest, int64_t *end, size_t *links, mc_error *err);

#endif
