/* Internal to format: where a rank reader is, for messages about the event
 * it returned last (source.c validates events against the whole trace). */
#ifndef MPICAST_FORMAT_READER_WHERE_H
#define MPICAST_FORMAT_READER_WHERE_H

#include <stdint.h>
#include "mpicast/format.h"

/* Chunk index, the chunk's file offset and the index in the file (from 0)
 * of the event returned last. */
void mc_rank_reader_where(const mc_rank_reader *r, long *chunk, long *offset, uint64_t *event);

/* What reading r's next event touches first (its bytes, or a loop body's
 * record), or NULL: a caller keeps it beside its own state, so that a
 * prefetch hint need not first fetch the reader (a second cache miss). */
const void *mc_rank_reader_ahead(const mc_rank_reader *r);

/* Frees the values array of the event returned last (the caller no longer
 * uses it: source.c gave the event a copy shared by the ranks). */
void mc_rank_reader_drop_vals(mc_rank_reader *r);

#endif
