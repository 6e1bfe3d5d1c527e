/* Internal to format: where a rank reader is, for messages about the event
 * it returned last (source.c validates events against the whole trace). */
#ifndef MPICAST_FORMAT_READER_WHERE_H
#define MPICAST_FORMAT_READER_WHERE_H

#include <stdint.h>
#include "mpicast/format.h"

/* Chunk index, the chunk's file offset and the index in the file (from 0)
 * of the event returned last. */
void mc_rank_reader_where(const mc_rank_reader *r, long *chunk, long *offset, uint64_t *event);

/* A hint that r's next event will be read soon: fetches what decoding it
 * touches first (its bytes, the values buffer) into the cache. */
void mc_rank_reader_prefetch(const mc_rank_reader *r);

#endif
