/* Progress lines for long operations (issue 8, item 6), on a terminal only,
 * rewritten at most 4 times a second. Internal to the CLI.
 * - progress_source: an mc_source that passes another one's events through
 *   and counts them ("what: N"), for replays;
 * - progress_ticker: "what: done/total" for items other threads finish
 *   (sweep points, extrapolated ranks). */
#ifndef MPICAST_CLI_PROGRESS_SOURCE_H
#define MPICAST_CLI_PROGRESS_SOURCE_H

#include <stdint.h>
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

/* A progress line for work counted in whole items (sweep points, ranks
 * written) that other threads finish: a thread rewrites "what: done/total"
 * every quarter second, so the line shows even while one long item runs.
 * Returns NULL (nothing shown; the other calls accept NULL) when `out` is
 * NULL or not a terminal, or when no thread can be started. */
typedef struct progress_ticker progress_ticker;
progress_ticker *progress_ticker_start(FILE *out, const char *what, uint64_t total);
/* Counts one more item done; thread-safe. */
void progress_ticker_add(progress_ticker *t);
/* Stops the thread, clears the line and frees the ticker. */
void progress_ticker_stop(progress_ticker *t);

#endif
