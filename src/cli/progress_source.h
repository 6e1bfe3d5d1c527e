/* A progress line for long replays (issue 8, item 6): an mc_source that
 * passes another one's events through and counts them, rewriting
 * "what: N events" on a terminal at most 4 times a second. Internal to the CLI. */
#ifndef MPICAST_PROGRESS_SOURCE_H
#define MPICAST_PROGRESS_SOURCE_H

#include <stdio.h>
#include "mpicast/format.h"

typedef struct progress_source progress_source;

/* Wraps `inner` (borrowed: closing the wrapper does not close it). Returns
 * `inner` itself when `out` is NULL or not a terminal, or on out of memory,
 * so callers can always use the result. */
mc_source *progress_source_wrap(mc_source *inner, FILE *out, const char *what);
/* Ends the progress line and frees a wrapper made by progress_source_wrap;
 * a no-op when `s` is `inner` itself. */
void progress_source_end(mc_source *s, mc_source *inner);

#endif
