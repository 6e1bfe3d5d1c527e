/* Internal to src/stats: the main-loop finder (loops.c), fed one rank's
 * events in order. */
#ifndef MPICAST_STATS_LOOPS_H
#define MPICAST_STATS_LOOPS_H

#include "mpicast/format.h"
#include "mpicast/stats.h"

typedef struct mc_loop_finder mc_loop_finder;

mc_loop_finder *mc_loop_finder_create(void);
void mc_loop_finder_destroy(mc_loop_finder *f);
/* Forgets every event: ready for the next rank (keeps its memory). */
void mc_loop_finder_reset(mc_loop_finder *f);
/* 0, or -1 out of memory. */
int mc_loop_finder_add(mc_loop_finder *f, const mc_event *e);
/* The main loop of the events added (iterations 0: none). */
mc_loop mc_loop_finder_result(const mc_loop_finder *f);

#endif
