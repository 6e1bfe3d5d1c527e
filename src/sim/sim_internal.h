/* Internal to the replay simulator: everything its files share, for the
 * files that drive a replay (engine.c: rank state machines, point-to-point
 * semantics; exec.c: collective schedule executors; stuck.c: deadlock
 * report; timeline.c). The parts, each in its own header:
 *   sim_queue.h    the event queue (queue.c)
 *   sim_map.h      the u64 -> i64 hash map (map.c)
 *   sim_match.h    the matching table (match.c)
 *   sim_comm.h     the communicator registry (comms.c)
 *   sim_mem.h      huge pages, prefetch of a record, free-index stacks (mem.c)
 *   sim_objects.h  requests, messages, executors, ranks, the simulator, pools
 *   sim_prefetch.h the prefetch pipeline over the queue's run
 * Not a public interface. */
#ifndef MPICAST_SIM_INTERNAL_H
#define MPICAST_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "mpicast/format.h"
#include "mpicast/sim.h"
#include "sim_comm.h"
#include "sim_objects.h"
#include "sim_prefetch.h"

/* engine.c: requests, messages and the rank state machines. */
int32_t sim_req_new(sim *S, int owner, int kind, int op);
void sim_req_complete(sim *S, int32_t qi, int64_t t);
int sim_post_send(sim *S, int r, int32_t qi);   /* 1 issued now, 0 queued */
void sim_post_recv(sim *S, int r, int32_t qi);
void sim_rank_notify(sim *S, int r, int64_t t);
void sim_cpu_work(sim *S, int r, int64_t start, int64_t len, const char *what);
void sim_push_event(sim *S, int64_t t, uint32_t type, int32_t idx);

/* exec.c: collective schedule executors. start: 0, or -1 (failed). */
int sim_exec_start(sim *S, int r, const mc_event *e, int op, int32_t app_req);
void sim_exec_op_done(sim *S, int32_t xi, int64_t t);
void sim_exec_round_event(sim *S, int32_t xi);
void sim_exec_release_all(sim *S);

/* stuck.c: the report of a replay that cannot complete. */
void sim_report_stuck(sim *S, mc_sim_result *out);
int sim_check_leftovers(sim *S, mc_sim_result *out);

/* timeline.c: the simulated timeline's slices. */
void sim_tl_begin(sim *S);
void sim_tl_slice(sim *S, int r, const char *name, const char *cat, int64_t t0, int64_t t1);
void sim_tl_end(sim *S);

#endif
