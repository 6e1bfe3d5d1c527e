/* mpicast — reader of SimGrid time-independent traces (TIT), the text
 * traces replayed by `smpirun -replay` (SimGrid 3.2x–3.3x action names and
 * arguments; the older two-argument point-to-point form is accepted too).
 *
 * PATH is either one merged trace whose lines are `<rank> <action> args...`
 * (rank written `3` or `p3`), or a list file naming one per-rank trace per
 * line (rank i = i-th name; a relative name is looked up in the list's
 * directory, then in the current directory as SimGrid does). Lines of a
 * per-rank trace start with that rank too. Blank lines and lines starting
 * with '#' are skipped; action names are case-insensitive ("Isend",
 * "allToAllV"). The result is an ordinary mc_source (format.h) whose events
 * follow docs/trace-format.md, with these conventions:
 *  - send/isend/recv/irecv take `PEER TAG SIZE [DATATYPE]` (current SimGrid);
 *    with exactly two arguments, `PEER SIZE` (older SimGrid, tag 0);
 *  - every time is 0, except that `sleep S` advances the rank's clock: it is
 *    delivered as a `compute` event with bytes 0 whose burst is S;
 *  - `compute F` is MC_OP_COMPUTE with bytes = F flops (rounded);
 *  - sizes are counts of the action's datatype (argument ids as in SimGrid's
 *    Datatype::encode: 0 double, 1 int, 2 char, 3 short, 4 long, 5 float,
 *    6 byte, ...), by default MPI_BYTE, or MPI_DOUBLE after an `init` that
 *    has an argument (SimGrid's rule); events carry bytes;
 *  - isend/irecv get request ids 1, 2, ... per rank; `wait SRC DST TAG`
 *    completes the oldest outstanding request with that envelope, a bare
 *    `wait` the most recent one (SimGrid's older LIFO rule), `waitall` all
 *    outstanding ones; `test` never completes anything (a failed Test);
 *    requests still outstanding at `finalize` (or at the end of the stream)
 *    are completed by a Waitall delivered just before it, as SimGrid does at
 *    the end of a replay;
 *  - collectives use MC_COMM_WORLD, peer = root (world rank) or MC_NONE,
 *    peer2 = number of ranks; bytes/bytes2/vals as docs/trace-format.md
 *    (bcast/reduce/allreduce: bytes2 = bytes; gather's bytes2 and
 *    scatter's bytes are 0 off the root, as are gatherv's receive and
 *    scatterv's send counts in vals);
 *  - the compute amount of reduce/allreduce/reducescatter is delivered as a
 *    `compute` event right after the collective (SimGrid runs it after);
 *  - irecv/recv with a negative source or tag give MC_ANY (unresolved);
 *  - comm_size, comm_split, comm_dup and location produce no event.
 * Per-rank files are read lazily with constant memory per rank. A merged
 * file is indexed once on open into, per rank, the byte ranges of its
 * consecutive lines (16 bytes per range: memory grows with the number of
 * rank changes between lines, e.g. per line when ranks alternate); every
 * rank from 0 to the largest one named must have a line.
 *
 * Errors: NULL / -1 with "FILE:LINE: what is wrong" (unknown action, bad
 * number, rank out of range, wrong argument count). Close with
 * mc_source_close. */
#ifndef MPICAST_TIT_H
#define MPICAST_TIT_H

#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens a time-independent trace (merged file or list of per-rank files). */
mc_source *mc_tit_open(const char *path, mc_error *err);

/* Largest number of ranks a time-independent trace may have. */
#define MC_TIT_MAX_RANKS (1 << 20)

#ifdef __cplusplus
}
#endif
#endif
