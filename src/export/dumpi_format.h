/* Internal to src/export: the DUMPI binary trace layout (SST DUMPI, format
 * version 13.0.0) that the importer reads and the exporter writes.
 *
 * Written from the layout documented by sst-dumpi (dumpi/common/io.c,
 * iodefs.h, funclabels.h, constants.h) and checked byte for byte against the
 * reference traces in tests/data/dumpi/. Every integer is big-endian.
 *
 * One file per rank, DIR/PREFIX-NNNN.bin, beside PREFIX.meta (key=value):
 *   magic (8 bytes, DP_MAGIC)
 *   body:   cpu time offset (u32 s), wall time offset (u32 s), then records:
 *           label (u16), mask (u8), thread (u16, when mask & DP_MASK_THREAD),
 *           cpu start/stop and wall start/stop (u16 s - offset, u32 ns each,
 *           when the mask says), perf counters (mask & DP_MASK_PERF), then
 *           the call's arguments in the function's own order; the stream
 *           ends with the label DP_END_OF_STREAM.
 *   header: version (3 x u8), start time (u64), host name, user name
 *           (u16 length + bytes), two empty u32 arrays (mesh).
 *   footer: DP_FOOT_MAGIC (u64), call counts and ignored counts (u32 per
 *           label up to DP_ALL_FUNCTIONS included)
 *   keyval record (u32 0), perf counter labels (u32 0),
 *   datatype sizes (u32 n, then n u32), function addresses (u32 0),
 *   index: DP_MAGIC, then the offsets (u64) of the sizes, addresses, perf
 *           labels, header, body, footer and keyval (0) records. */
#ifndef MPICAST_EXPORT_DUMPI_FORMAT_H
#define MPICAST_EXPORT_DUMPI_FORMAT_H

#include <stdint.h>

#ifndef MPICAST_EXPORT_INTERNAL
#error "dumpi_format.h is internal to src/export"
#endif

#define DP_MAGIC 0xffaadd44554d5049ull
#define DP_FOOT_MAGIC 0xf007fee7ull

/* Record mask bits. */
enum {
    DP_MASK_STATUS = 0x3, /* statuses are written (an empty list when ignored) */
    DP_MASK_CPU = 0x4,
    DP_MASK_WALL = 0x8,
    DP_MASK_THREAD = 0x40,
    DP_MASK_PERF = 0x80
};

/* Function labels (the position in DUMPI's function enum) of the calls
 * mpicast reads or writes; the others cannot be skipped (records carry no
 * length), so the importer names them. */
enum {
    DP_Send = 0, DP_Recv = 1, DP_Get_count = 2, DP_Bsend = 3, DP_Ssend = 4, DP_Rsend = 5,
    DP_Isend = 8, DP_Ibsend = 9, DP_Issend = 10, DP_Irsend = 11, DP_Irecv = 12,
    DP_Wait = 13, DP_Test = 14, DP_Request_free = 15, DP_Waitany = 16, DP_Testany = 17,
    DP_Waitall = 18, DP_Testall = 19, DP_Waitsome = 20, DP_Testsome = 21,
    DP_Iprobe = 22, DP_Probe = 23,
    DP_Send_init = 26, DP_Bsend_init = 27, DP_Ssend_init = 28, DP_Rsend_init = 29,
    DP_Recv_init = 30, DP_Start = 31, DP_Startall = 32, DP_Sendrecv = 33,
    DP_Sendrecv_replace = 34, DP_Type_size = 43, DP_Type_commit = 46, DP_Type_free = 47,
    DP_Barrier = 52, DP_Bcast = 53, DP_Gather = 54, DP_Scatter = 56,
    DP_Allgather = 58, DP_Alltoall = 60, DP_Reduce = 62, DP_Allreduce = 65, DP_Scan = 67,
    DP_Comm_size = 81, DP_Comm_rank = 82, DP_Comm_dup = 84, DP_Comm_split = 86,
    DP_Comm_free = 87, DP_Cart_create = 99, DP_Dims_create = 100, DP_Cart_shift = 110,
    DP_Wtime = 122, DP_Init = 124, DP_Finalize = 125, DP_Pcontrol = 128,
    DP_ALL_FUNCTIONS = 290, DP_END_OF_STREAM = 293
};

/* Special values. */
enum {
    DP_COMM_NULL = 1, DP_COMM_WORLD = 2, DP_COMM_SELF = 3, DP_FIRST_USER_COMM = 4,
    DP_REQUEST_NULL = 1, DP_FIRST_USER_REQUEST = 2,
    DP_ANY_SOURCE = -1, DP_ANY_TAG = -1,
    DP_PROC_NULL = -2, /* as Open MPI's libdumpi records MPI_PROC_NULL */
    DP_BYTE = 5, DP_OP_SUM = 3
};

/* Datatype size table the exporter writes (Open MPI on x86-64, as in the
 * reference traces; index = DUMPI datatype). */
#define DP_NSIZES 28
extern const int32_t dp_type_sizes[DP_NSIZES];

#endif
