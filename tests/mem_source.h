/* Tests only: an in-memory mc_source built from events, and a runner that
 * replays it on a platform given as "section.key=value" strings. Builders
 * keep a per-rank clock so that bursts and recorded durations are explicit:
 *   ms_compute(m, r, ns)        compute before rank r's next event
 *   e = ms_add(m, r, op)        appends an event (fields then set on *e)
 *   ms_vals(m, e, n, v...)      sets its vals (copied)
 * Events are owned by the source; mem_source_destroy frees them. */
#ifndef MPICAST_TEST_MEM_SOURCE_H
#define MPICAST_TEST_MEM_SOURCE_H

#include <stdio.h>
#include "check.h"
#include "mpicast/format.h"
#include "mpicast/sim.h"

typedef struct mem_source mem_source;

mem_source *mem_source_create(int nranks);
void mem_source_destroy(mem_source *m);
/* The mc_source view (rewound to the start of every rank by mem_run). */
mc_source *mem_source_base(mem_source *m);
void mem_source_rewind(mem_source *m);

void ms_compute(mem_source *m, int rank, int64_t ns);
/* Appends an event with burst = the pending compute, duration `dur_ns`;
 * comm = world, peer/peer2 = MC_NONE, tags 0. Returns it for editing. */
mc_event *ms_add(mem_source *m, int rank, int op, int64_t dur_ns);
void ms_vals(mem_source *m, mc_event *e, int n, ...); /* n int64_t values */

/* Shorthands. */
mc_event *ms_p2p(mem_source *m, int rank, int op, int peer, int tag, int64_t bytes, uint32_t req);
/* A Wait* with one completion quadruple per request id (bytes 0). */
mc_event *ms_wait(mem_source *m, int rank, int op, int nreq, ...); /* nreq uint32 ids */

/* Replays on a default platform with `sets` (NULL-terminated list of
 * "section.key=value") applied; net_model NULL or "free". */
mc_err mem_run(mem_source *m, const char *const *sets, const char *net_model,
               mc_sim_result *res, mc_error *err);
/* mc_sim_options.prefetch for mem_run (0, auto, unless a test sets it). */
extern int mem_run_prefetch;


/* Platform assignments for loggp with every cost zero: the same times as
 * the "free" model, but through loggp (and so through every collective's
 * schedule, which "free" may skip). A list to start an array with:
 *   const char *const sets[] = {MS_ZERO_COST_SETS, "more=...", NULL}; */
#define MS_ZERO_COST_SETS                                                                   \
    "network.model=loggp", "network.latency=0", "network.overhead=0", "network.gap=0",      \
        "network.bandwidth=inf", "intranode.latency=0", "intranode.overhead=0",              \
        "intranode.bandwidth=inf"

/* Replays m with the platform assignments `sets` on loggp; the test fails
 * with the simulator's message if the replay does. */
static inline void mem_run_ok(mem_source *m, const char *const *sets, mc_sim_result *res)
{
    mc_error err = {0};
    mc_err rc = mem_run(m, sets, NULL, res, &err);
    if (rc)
        fprintf(stderr, "replay failed: %s\n", err.msg);
    CHECK(rc == MC_OK);
}

/* Checks every rank's end (ns, exact) and the predicted time (the latest). */
static inline void mem_check_ends(const mc_sim_result *res, int n, const int64_t *ns)
{
    CHECK_EQ_INT(res->nranks, n);
    int64_t mx = 0;
    for (int i = 0; i < n; i++) {
        if (res->ranks[i].end != ns[i] * 1000)
            fprintf(stderr, "rank %d ends at %lld ps, expected %lld ns\n", i,
                    (long long)res->ranks[i].end, (long long)ns[i]);
        CHECK_EQ_INT(res->ranks[i].end, ns[i] * 1000);
        mx = ns[i] > mx ? ns[i] : mx;
    }
    CHECK_EQ_INT(res->end, mx * 1000);
}

#endif
