/* mpicast — the input registry: every way a trace can come in.
 *
 * Each input kind (a trace directory, SimGrid time-independent text, an OTF2
 * archive, ...) is one row {name, probe, open}. Every subcommand that reads a
 * trace opens it with mc_input_open(), so it accepts every kind, and adding a
 * kind is adding one row: built-in rows live in src/format/input.c; importers
 * that need other libraries register theirs at start-up with
 * mc_input_register() (e.g. mc_import_register_inputs() in export.h).
 *
 * Rule for probes: a probe looks at the path only (stat, a few bytes), never
 * blocks (FIFOs and devices are not inputs) and says how sure it is; the most
 * sure row opens the path.
 */
#ifndef MPICAST_INPUT_H
#define MPICAST_INPUT_H

#include "mpicast/error.h"
#include "mpicast/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How sure a probe is that its kind reads a path. */
typedef enum mc_input_fit {
    MC_INPUT_NO = 0,       /* not this kind */
    MC_INPUT_FALLBACK = 1, /* could be (e.g. any regular file for text traces) */
    MC_INPUT_SURE = 2      /* recognised (a magic name or bytes) */
} mc_input_fit;

typedef struct mc_input_kind {
    const char *name;        /* "trace", "tit", "otf2", ... */
    const char *description; /* one line for --help and errors */
    mc_input_fit (*probe)(const char *path);
    /* Opens path as an event source; NULL with err filled ("PATH: ..."). */
    mc_source *(*open)(const char *path, mc_error *err);
} mc_input_kind;

/* Adds a row (borrowed: must outlive every call below). Registering the same
 * row twice is a no-op. Not thread-safe: call at start-up. MC_ERR_NOMEM when
 * the table (16 rows) is full. */
mc_err mc_input_register(const mc_input_kind *kind);

/* The row that reads path, or NULL with err filled (missing path, or no
 * kind recognises it). */
const mc_input_kind *mc_input_probe(const char *path, mc_error *err);

/* Opens path with the row that reads it. The source's meta data (call sites,
 * communicators), when its kind has any, is mc_source_meta(). */
mc_source *mc_input_open(const char *path, mc_error *err);

/* Row i (0, 1, ...) of the table, NULL past the end: for help texts. */
const mc_input_kind *mc_input_kind_at(int i);

#ifdef __cplusplus
}
#endif
#endif
