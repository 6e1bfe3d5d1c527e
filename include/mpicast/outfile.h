/* mpicast — writing outputs safely and opening inputs that cannot hang.
 *
 * An output is written to a temporary made with mkstemp in the target's
 * directory (O_EXCL: never a planted file or symlink) and renamed over the
 * final name only when complete, so an error or an interrupt leaves nothing
 * under the final name, and a symlink at the final name is replaced, never
 * followed. A final name that is a device or FIFO (/dev/null, /dev/stdout)
 * is written directly: there is no file to replace.
 *
 * mc_out_refuse_input refuses an output that is, or is inside, one of the
 * inputs (compared by device and inode, so other spellings and symlinks do
 * not hide it). Inputs are opened with mc_in_open: a FIFO, a device or a
 * directory is refused with a one-line error instead of blocking.
 */
#ifndef MPICAST_OUTFILE_H
#define MPICAST_OUTFILE_H

#include <stdio.h>

#include "mpicast/error.h"

/* How many input files a reader may keep open at once in this process:
 * MPICAST_OPEN_FILES if set (a positive integer), else half the soft
 * RLIMIT_NOFILE (at least 4), leaving the other half for outputs and
 * libraries. Readers of per-rank files past this count close and reopen
 * files instead of failing with "Too many open files". */
size_t mc_in_open_budget(void);

#ifdef __cplusplus
extern "C" {
#endif

#define MC_OUT_PATH_MAX 4096

/* One output being written. Zero-initialise (or mc_out_open) before use;
 * mc_out_abort on a zeroed or finished mc_out is a no-op. */
typedef struct mc_out {
    FILE *f;                      /* the stream to write (binary mode) */
    int fd;                       /* its descriptor; -1 when closed */
    int direct;                   /* writing the final name itself (device, FIFO) */
    char path[MC_OUT_PATH_MAX];   /* the final name */
    char tmp[MC_OUT_PATH_MAX + 32]; /* the temporary ("" when direct) */
} mc_out;

/* Flags of mc_out_open. */
enum {
    MC_OUT_PRIVATE = 1 /* owner-only (0600); default 0666 less the umask */
};

/* Opens `path` for writing as a temporary in its directory; the caller
 * writes o->f, then mc_out_commit or mc_out_abort. */
mc_err mc_out_open(mc_out *o, const char *path, unsigned flags, mc_error *err);

/* Closes the stream and renames the temporary to the final name; on any
 * failure the temporary is removed and the final name left as it was. */
mc_err mc_out_commit(mc_out *o, mc_error *err);

/* Closes and removes the temporary (the final name is untouched). */
void mc_out_abort(mc_out *o);

/* For a program (the CLI, not the tracer): SIGINT, SIGTERM and SIGHUP
 * remove the temporaries still being written, then end the process as the
 * signal would have. A handler installed later (predict's Ctrl-C) takes
 * over that signal; an ignored signal stays ignored. */
void mc_out_cleanup_on_signals(void);

/* Refuses (MC_ERR_USAGE, "OUT: is the input IN" or "OUT: is inside the
 * input IN") an output path that is one of the n inputs or lies inside one
 * of them (any existing directory on the output's path that is an input).
 * Inputs that do not exist are skipped: their own reader reports them. */
mc_err mc_out_refuse_input(const char *out, const char *const *inputs, size_t n,
                           mc_error *err);

/* An output directory to fill: fine when it does not exist or is an empty
 * directory; otherwise MC_ERR_USAGE ("DIR: not empty (holds NAME) ...") so
 * nothing in it is overwritten and two outputs never mix. */
mc_err mc_out_dir_fresh(const char *dir, mc_error *err);

/* A whole output directory written aside: mc_out_dir_open makes an empty
 * temporary directory next to `dir` (mkdtemp, ".NAME.XXXXXX", mode 0777
 * less the umask) into tmp[len]; the caller fills it, then
 * mc_out_dir_commit renames it to `dir` (which must not exist or be empty)
 * or mc_out_dir_abort removes it with the files in it. So a failed
 * command leaves nothing under `dir`. */
mc_err mc_out_dir_open(char *tmp, size_t len, const char *dir, mc_error *err);
mc_err mc_out_dir_commit(const char *tmp, const char *dir, mc_error *err);
void mc_out_dir_abort(const char *tmp);

/* A temporary directory (its path copied; up to 8 at once) that the
 * handlers of mc_out_cleanup_on_signals remove with the files in it; the
 * mc_out_dir_* functions track theirs, importers their private trace
 * directories. Untrack before removing it or keeping it. */
void mc_out_temp_dir_track(const char *path);
void mc_out_temp_dir_untrack(const char *path);
/* A private temporary directory "$TMPDIR/mpicast-KIND-XXXXXX" (/tmp without
 * TMPDIR), tracked as above, into buf[len]; remove it with
 * mc_out_dir_abort. `about` names the input it is for in the error. */
mc_err mc_out_temp_dir_create(char *buf, size_t len, const char *kind, const char *about,
                              mc_error *err);

/* Opens an input read-only with O_CLOEXEC; a FIFO, socket, device or
 * directory is refused ("PATH: not a regular file (a FIFO)") without
 * blocking (MC_ERR_FORMAT). Returns the descriptor, or -1 with err filled
 * (MC_ERR_IO when it cannot be opened). */
int mc_in_open(const char *path, mc_error *err);

/* mc_in_open as a stdio stream ("rb"); NULL with err filled. */
FILE *mc_in_fopen(const char *path, mc_error *err);

/* 0 when `path` names a regular file or does not exist; else -1 with err
 * filled as mc_in_open does. For inputs opened by a library that takes a
 * path (libraries that open the file themselves). */
int mc_in_check(const char *path, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
