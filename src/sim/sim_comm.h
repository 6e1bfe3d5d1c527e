/* Internal to the replay simulator: the communicator registry (comms.c).
 * A communicator is known by the id the trace gives it (mpicast/format.h):
 * world and the caller's (mc_sim_options.comms) from the start, those that
 * communicator calls create as the replay reaches them, and a rank's
 * MPI_COMM_SELF at its first use. Not a public interface. */
#ifndef MPICAST_SIM_COMM_H
#define MPICAST_SIM_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "mpicast/error.h"
#include "mpicast/format.h"
#include "mpicast/sim.h"

typedef struct sim_comm {
    uint64_t id;
    int32_t size;
    int32_t *members; /* NULL: identity (world) */
    uint32_t *coll_seq; /* next collective's sequence number per member (by comm
                           rank), allocated at the first collective */
    int32_t index;    /* position in the comm array (map keys) */
    int inter;
} sim_comm;

typedef struct sim sim; /* sim_objects.h */

/* World and opt's communicators (a member that is not a rank: err set).
 * 0, or -1 (failed). */
int sim_comm_init(sim *S, const mc_sim_options *opt, mc_error *err);
/* Registers a communicator: members are world ranks by comm rank (NULL:
 * the identity), inter: an intercommunicator's remote group. 0, or -1 (out
 * of memory, S failed). */
int sim_comm_add(sim *S, uint64_t id, const int32_t *members, int32_t size, int inter);
/* The communicator of id (a rank's self communicator made on first use),
 * or NULL if unknown. */
const sim_comm *sim_comm_find(sim *S, uint64_t id);
/* world's rank in c, or -1 if it is not a member. */
int sim_comm_rank_of(sim *S, const sim_comm *c, int world);
/* The communicator rank r's current call e creates (e->newcomm with members
 * e->vals), unless it is known already; a member that is not a rank fails
 * the replay. */
void sim_comm_create(sim *S, int r, const mc_event *e);
/* "world", "self" or "HI.LO" for messages, in buf. */
const char *sim_comm_name(uint64_t comm, char *buf, size_t len);
void sim_comm_free_all(sim *S);

#endif
