/* Internal to format: the on-disk encoding shared by writer and reader
 * (docs/trace-format.md, "Rank file layout"). */
#ifndef MPICAST_FORMAT_CODEC_H
#define MPICAST_FORMAT_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MC_FILE_MAGIC "MCTRACE"  /* 8 bytes with the NUL */
#define MC_FILE_HEADER_SIZE 32
#define MC_CHUNK_MAGIC 0x4b43434du
#define MC_CHUNK_HEADER_SIZE 24
/* Upper bounds a reader accepts, so a corrupt length cannot make it allocate
 * gigabytes: the writer never produces more than this. */
#define MC_CHUNK_MAX_RAW (64u << 20)
#define MC_CHUNK_MAX_EVENTS (1u << 22)
#define MC_EVENT_MAX_VALS (1u << 24)
/* An event with more values than this (a communicator's members at many
 * ranks) ends its chunk, and readers keep neither the array nor that chunk
 * once it is read: P ranks each holding P members would be P^2. */
#define MC_LARGE_VALS 1024u

/* The operation code of a loop record (docs/trace-format.md, "Loop
 * records"), outside the MC_OPS range: readers expand it, never deliver it.
 * Its fields: bytes = iterations, peer = period (events in the body that
 * follows), req = first request id the body creates, peer2 = requests it
 * creates, tag = MC_LOOP_* flags, bytes2 = the original loop's end (ns),
 * vals = burst, duration [, cpu] per body event: one row per event (means),
 * or with MC_LOOP_EXACT one per event of iterations 1 .. N-1. */
#define MC_FILE_OP_LOOP 127u
#define MC_LOOP_EXACT 1
#define MC_LOOP_CPU 2

/* Field presence bits (bit i = field i follows). */
enum {
    MC_F_SITE = 1u << 0, MC_F_COMM = 1u << 1, MC_F_PEER = 1u << 2, MC_F_TAG = 1u << 3,
    MC_F_BYTES = 1u << 4, MC_F_PEER2 = 1u << 5, MC_F_TAG2 = 1u << 6, MC_F_BYTES2 = 1u << 7,
    MC_F_REQ = 1u << 8, MC_F_NEWCOMM = 1u << 9, MC_F_CPU = 1u << 10, MC_F_VALS = 1u << 11,
    MC_F_FOLDED = 1u << 12,
    /* vals stored as differences from the value before (the first from 0):
     * a communicator's members 0..P-1 are then 0,1,1,1..., which the
     * chunk's compressor takes to almost nothing */
    MC_F_VALS_DELTA = 1u << 13, MC_F_ALL = (1u << 14) - 1
};

/* The optional fields of an event, in bit order, each once: X(field, bit,
 * encoding, default). A field equal to its default is not stored. The
 * encodings: U31 and U32 unsigned varints of at most 2^31 - 1 and 2^32 - 1,
 * U64 an unsigned varint, S32 and S64 zig-zag varints. vals and folded
 * follow them (bits 11 and 12). writer.c and reader.c expand this list. */
#define MC_EVENT_FIELDS(X)                     \
    X(site, MC_F_SITE, U31, 0)                 \
    X(comm, MC_F_COMM, U64, 0)                 \
    X(peer, MC_F_PEER, S32, MC_NONE)           \
    X(tag, MC_F_TAG, S32, MC_NONE)             \
    X(bytes, MC_F_BYTES, S64, 0)               \
    X(peer2, MC_F_PEER2, S32, MC_NONE)         \
    X(tag2, MC_F_TAG2, S32, MC_NONE)           \
    X(bytes2, MC_F_BYTES2, S64, 0)             \
    X(req, MC_F_REQ, U32, 0)                   \
    X(newcomm, MC_F_NEWCOMM, U64, 0)           \
    X(cpu, MC_F_CPU, S64, -1)

static inline void mc_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t mc_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* LEB128. `put` needs 10 bytes of room. */
static inline size_t mc_put_uvarint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}
/* Zig-zag without shifting a negative value (implementation-defined in C). */
static inline uint64_t mc_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63)); }

/* The value an MC_EVENT_FIELDS encoding stores. */
#define MC_ENC_U31(v) ((uint64_t)(uint32_t)(v))
#define MC_ENC_U32(v) ((uint64_t)(uint32_t)(v))
#define MC_ENC_U64(v) ((uint64_t)(v))
#define MC_ENC_S32(v) mc_zigzag(v)
#define MC_ENC_S64(v) mc_zigzag(v)
static inline int64_t mc_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Decodes one uvarint from [*p, end); 0 on success, -1 if it runs past end
 * or is longer than 10 bytes. Most fields fit in one byte: that path is
 * first and short. */
static inline int mc_get_uvarint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    const unsigned char *q = *p;
    if (q < end && *q < 0x80) {
        *out = *q;
        *p = q + 1;
        return 0;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 70 && q < end; shift += 7) {
        unsigned char b = *q++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            *p = q;
            return 0;
        }
    }
    *p = q;
    return -1;
}

#endif
