/* Writes the broken trace directories of tests/bad (trace-*): valid
 * programs made invalid in one way each, with the real writer, then some
 * bytes changed. The outputs are committed; run this again only when the
 * format changes:  mkbad tests/bad
 * Every directory has two ranks and, unless the case is about it, a
 * meta.json. The expected messages are in tests/bad/MANIFEST. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "format/codec.h"
#include "mpicast/format.h"

static const char *root;

static void die(const char *what)
{
    fprintf(stderr, "mkbad: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static mc_event ev(int op, int peer, int tag, int64_t bytes, int64_t t)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = peer;
    e.tag = tag;
    e.peer2 = e.tag2 = MC_NONE;
    e.bytes = bytes;
    e.t_start = t;
    e.t_end = t + 100;
    e.cpu = -1;
    return e;
}

typedef void (*tweak_fn)(int rank, int i, mc_event *e);

/* A ping-pong of two ranks: Init, Send/Recv, Recv/Send, Barrier, Finalize.
 * tweak (may be NULL) changes event i of `rank` before it is written. */
static void write_trace(const char *name, int with_meta, tweak_fn tweak)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    mkdir(dir, 0755);
    for (int rank = 0; rank < 2; rank++) {
        mc_error err = {0};
        mc_writer *w = mc_writer_open(dir, rank, 0, 0, &err);
        if (!w)
            die(err.msg);
        int peer = 1 - rank;
        mc_event list[5] = {
            ev(MC_OP_INIT, MC_NONE, MC_NONE, 0, -50),
            ev(rank ? MC_OP_RECV : MC_OP_SEND, peer, 1, 64, 1000),
            ev(rank ? MC_OP_SEND : MC_OP_RECV, peer, 2, 64, 2000),
            ev(MC_OP_BARRIER, MC_NONE, MC_NONE, 0, 3000),
            ev(MC_OP_FINALIZE, MC_NONE, MC_NONE, 0, 4000),
        };
        list[1].bytes2 = list[2].bytes2 = 64;
        list[3].peer2 = 2;
        for (int i = 0; i < 5; i++) {
            if (tweak)
                tweak(rank, i, &list[i]);
            if (list[i].op < 0)
                continue; /* tweak removed it */
            if (mc_writer_add(w, &list[i], &err))
                die(err.msg);
        }
        if (mc_writer_close(w, &err))
            die(err.msg);
    }
    if (with_meta) {
        mc_error err = {0};
        mc_meta *m = mc_meta_create(2);
        mc_meta_set(m, "command", "mpirun -np 2 ./pingpong", &err);
        if (mc_meta_write(m, dir, &err))
            die(err.msg);
        mc_meta_destroy(m);
    }
}

/* Changes byte `off` of rank 0's file (negative: from the end) or cuts the
 * file to `cut` bytes (cut >= 0). */
static void patch_rank0(const char *name, long off, int xor_with, long cut)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/rank-000000.mct", root, name);
    if (cut >= 0) {
        if (truncate(path, cut) != 0)
            die(path);
        return;
    }
    FILE *f = fopen(path, "r+b");
    if (!f || fseek(f, off, off < 0 ? SEEK_END : SEEK_SET) != 0)
        die(path);
    int c = fgetc(f);
    fseek(f, -1, SEEK_CUR);
    fputc(c ^ xor_with, f);
    if (fclose(f) != 0)
        die(path);
}

/* Replaces rank 0's file of `name` with one chunk of `n` events encoded by
 * hand (times the writer cannot produce: the fuzzers' finding of
 * int64 overflow in the time deltas). */
static void raw_rank0(const char *name, const unsigned char *payload, size_t len, uint32_t n)
{
    unsigned char file[512];
    memset(file, 0, MC_FILE_HEADER_SIZE);
    memcpy(file, MC_FILE_MAGIC, 8);
    mc_put_u32(file + 8, MC_FORMAT_VERSION);
    unsigned char *h = file + MC_FILE_HEADER_SIZE, *body = h + MC_CHUNK_HEADER_SIZE;
    size_t comp = ZSTD_compress(body, sizeof file - (size_t)(body - file), payload, len, 1);
    if (ZSTD_isError(comp))
        die("zstd");
    mc_put_u32(h, MC_CHUNK_MAGIC);
    mc_put_u32(h + 4, n);
    mc_put_u32(h + 8, (uint32_t)len);
    mc_put_u32(h + 12, (uint32_t)comp);
    mc_put_u32(h + 16, (uint32_t)crc32(0L, body, (uInt)comp));
    mc_put_u32(h + 20, (uint32_t)crc32(0L, h, 20));
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/rank-000000.mct", root, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file, 1, (size_t)(body - file) + comp, f) == 0 || fclose(f) != 0)
        die(path);
}

/* Init at t = 0, then an event whose start delta wraps past INT64_MAX. */
static void time_overflow(void)
{
    unsigned char p[64];
    size_t n = 0;
    n += mc_put_uvarint(p + n, MC_OP_INIT);
    n += mc_put_uvarint(p + n, 0);
    n += mc_put_uvarint(p + n, mc_zigzag(0));
    n += mc_put_uvarint(p + n, mc_zigzag(100));
    n += mc_put_uvarint(p + n, MC_OP_FINALIZE);
    n += mc_put_uvarint(p + n, 0);
    n += mc_put_uvarint(p + n, mc_zigzag(INT64_MAX - 10));
    n += mc_put_uvarint(p + n, mc_zigzag(0));
    write_trace("trace-time-overflow", 1, NULL);
    raw_rank0("trace-time-overflow", p, n, 2);
}

static void neg_bytes(int rank, int i, mc_event *e) { if (rank == 0 && i == 1) e->bytes = -5; }
static void peer_range(int rank, int i, mc_event *e) { if (rank == 0 && i == 1) e->peer = 7; }
static void bad_comm(int rank, int i, mc_event *e) { if (rank == 1 && i == 3) e->comm = 5ull << 32; }
static void neg_dur(int rank, int i, mc_event *e) { if (rank == 0 && i == 2) e->t_end = e->t_start - 10; }
static void neg_tag(int rank, int i, mc_event *e) { if (rank == 1 && i == 2) e->tag = -7; }
static void root_range(int rank, int i, mc_event *e)
{
    if (i == 3) {
        e->op = MC_OP_BCAST;
        e->peer = rank ? 2 : 0;
        e->bytes = e->bytes2 = 8;
    }
}
static void deadlock(int rank, int i, mc_event *e)
{
    (void)rank;
    if (i == 1)
        e->op = MC_OP_RECV; /* both ranks receive first */
}
static void bad_wait(int rank, int i, mc_event *e)
{
    static int64_t vals[3] = {1, 1, 1};
    if (rank == 0 && i == 1) {
        e->op = MC_OP_WAITALL;
        e->peer = e->tag = MC_NONE;
        e->nvals = 3;
        e->vals = vals;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkbad DIR\n");
        return 2;
    }
    root = argv[1];
    write_trace("ok-trace", 1, NULL); /* valid: the trace of the rules cases */
    write_trace("trace-bad-magic", 1, NULL);
    patch_rank0("trace-bad-magic", 0, 0x20, -1);
    write_trace("trace-version", 1, NULL);
    patch_rank0("trace-version", 8, 0x07, -1);
    write_trace("trace-header-cut", 1, NULL);
    patch_rank0("trace-header-cut", 0, 0, 20);
    write_trace("trace-chunk-header", 1, NULL);
    patch_rank0("trace-chunk-header", 36, 0x01, -1);
    write_trace("trace-checksum", 1, NULL);
    patch_rank0("trace-checksum", -3, 0x10, -1);
    write_trace("trace-truncated", 1, NULL);
    patch_rank0("trace-truncated", 0, 0, 70);
    write_trace("trace-negative-size", 1, neg_bytes);
    write_trace("trace-peer-range", 1, peer_range);
    write_trace("trace-root-range", 1, root_range);
    write_trace("trace-unknown-comm", 1, bad_comm);
    write_trace("trace-negative-duration", 1, neg_dur);
    write_trace("trace-negative-tag", 1, neg_tag);
    write_trace("trace-bad-completion", 1, bad_wait);
    write_trace("trace-deadlock", 1, deadlock);
    time_overflow();
    write_trace("trace-missing-rank", 0, NULL);
    {
        char path[4200];
        mc_error err = {0};
        mc_meta *m = mc_meta_create(3); /* three ranks, two files */
        snprintf(path, sizeof path, "%s/trace-missing-rank", root);
        if (mc_meta_write(m, path, &err))
            die(err.msg);
        mc_meta_destroy(m);
    }
    return 0;
}
