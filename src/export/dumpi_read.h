/* Internal to src/export: reading DUMPI traces record by record. */
#ifndef MPICAST_EXPORT_DUMPI_READ_H
#define MPICAST_EXPORT_DUMPI_READ_H

#include <stdint.h>
#include <stdio.h>

#include "dumpi_format.h"
#include "mpicast/error.h"

/* A DUMPI trace: PREFIX.meta and PREFIX-NNNN.bin per rank. */
typedef struct dp_trace {
    char *meta;        /* path of the .meta file */
    char *base;        /* DIR/PREFIX of the rank files */
    int nranks;
    char hostname[256];
} dp_trace;

/* path: a .meta file, or a directory holding exactly one dumpi*.meta. */
mc_err dp_locate(const char *path, dp_trace *t, mc_error *err);
void dp_trace_free(dp_trace *t);
void dp_rank_path(const dp_trace *t, int rank, char *buf, size_t len);
/* True when path is a .meta with a fileprefix= line or a directory holding
 * a dumpi*.meta (cheap: for the input registry's probe). */
int dp_is_trace(const char *path);

typedef struct dp_status {
    int32_t bytes, source, tag;
} dp_status;

/* One record; arrays borrow the reader's buffers until the next record. */
typedef struct dp_rec {
    int label;
    uint8_t mask;
    uint16_t thread;
    int64_t cpu0, cpu1, wall0, wall1; /* ns including the file's offsets; -1 absent */
    int32_t count, count2;            /* (send, receive) counts */
    int type, type2;                  /* their datatypes */
    int32_t peer, tag, peer2, tag2;   /* dest/source (comm ranks) and tags */
    int32_t root, commrank;
    int comm, newcomm;                /* DUMPI communicator indexes */
    int32_t color, key, ndim;
    int32_t req, flag, index;
    const int32_t *reqs;              /* request arrays (Waitall, ...) */
    int32_t nreqs;
    const int32_t *idx;               /* Waitsome / Testsome indices */
    int32_t nidx;
    const int32_t *ints, *ints2;      /* Cart_create dims, periods */
    int32_t nints, nints2;
    const dp_status *st;
    int32_t nst;
} dp_rec;

typedef struct dp_file {
    FILE *f;
    char path[4096];
    int bad;
    int version[3];
    uint32_t cpu_off, wall_off;
    int32_t *sizes;
    int nsizes;
    int32_t *ints, *ints2, *reqs, *idx;
    size_t ints_cap, ints2_cap, reqs_cap, idx_cap;
    dp_status *st;
    size_t st_cap;
} dp_file;

/* Opens a rank file and positions it at the first record. */
mc_err dp_open(dp_file *d, const char *path, mc_error *err);
/* 1: a record; 0: end of stream; -1: error (err names the offset). */
int dp_next(dp_file *d, dp_rec *r, mc_error *err);
void dp_close(dp_file *d);
/* count elements of a datatype in bytes (the file's size table). */
int64_t dp_type_bytes(const dp_file *d, int32_t count, int type);

#endif
