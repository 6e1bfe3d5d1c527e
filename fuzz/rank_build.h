/* Builds a rank file around fuzzed chunk payloads: the header and the chunk
 * framing (sizes, CRCs, zstd) are made valid so that the fuzzer's bytes
 * reach the event decoder instead of stopping at a checksum. */
#ifndef MPICAST_FUZZ_RANK_BUILD_H
#define MPICAST_FUZZ_RANK_BUILD_H

#include <zlib.h>
#include <zstd.h>

#include "format/codec.h"
#include "fuzz_common.h"
#include "mpicast/format.h"

/* Writes DIR/name: a valid file header (flags) and one chunk of `nevents`
 * events whose decompressed payload is payload[0..len). */
static const char *fz_rank_file(const char *name, uint32_t flags, uint32_t nevents,
                                const uint8_t *payload, size_t len)
{
    size_t bound = ZSTD_compressBound(len);
    unsigned char *buf = malloc(MC_FILE_HEADER_SIZE + MC_CHUNK_HEADER_SIZE + bound);
    if (!buf)
        abort();
    memset(buf, 0, MC_FILE_HEADER_SIZE);
    memcpy(buf, MC_FILE_MAGIC, 8);
    mc_put_u32(buf + 8, MC_FORMAT_VERSION);
    mc_put_u32(buf + 16, flags);
    unsigned char *h = buf + MC_FILE_HEADER_SIZE, *body = h + MC_CHUNK_HEADER_SIZE;
    size_t comp = ZSTD_compress(body, bound, payload, len, 1);
    if (ZSTD_isError(comp))
        abort();
    mc_put_u32(h, MC_CHUNK_MAGIC);
    mc_put_u32(h + 4, nevents);
    mc_put_u32(h + 8, (uint32_t)len);
    mc_put_u32(h + 12, (uint32_t)comp);
    mc_put_u32(h + 16, (uint32_t)crc32(0L, body, (uInt)comp));
    mc_put_u32(h + 20, (uint32_t)crc32(0L, h, 20));
    const char *path =
        fz_write(name, buf, MC_FILE_HEADER_SIZE + MC_CHUNK_HEADER_SIZE + comp);
    free(buf);
    return path;
}

#endif
