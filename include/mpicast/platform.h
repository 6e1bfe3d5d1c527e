/* mpicast — platform description: an INI file of [section] key = value with
 * units, plus --set overrides, validated against a table of known keys
 * (docs/platform.md). Every key has a default, so an empty platform is the
 * default shared-memory-like machine.
 *
 * Ownership: mc_platform_* objects are freed by mc_platform_destroy (NULL is
 * a no-op). Strings returned by getters belong to the platform.
 */
#ifndef MPICAST_PLATFORM_H
#define MPICAST_PLATFORM_H

#include <stdint.h>
#include "mpicast/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_platform mc_platform;

/* Unit kinds of values. */
typedef enum mc_unit {
    MC_UNIT_NONE,      /* plain number: 2, 1e9 */
    MC_UNIT_TIME,      /* seconds: 1.5us, 250ns, 2ms, 1s; bare number = s */
    MC_UNIT_BYTES,     /* bytes: 64KiB, 1MB, 16MiB; bare number = B */
    MC_UNIT_BANDWIDTH, /* bytes/s: 5GB/s, 100MB/s, 10Gb/s (bits); bare = B/s */
    MC_UNIT_STRING,    /* a name: loggp, torus3d, 4x4x4 */
    MC_UNIT_FREQUENCY  /* Hz: 2.5GHz, 800MHz; bare number = Hz */
} mc_unit;

/* A platform with every key at its default. */
mc_platform *mc_platform_create(void);
/* Reads an INI file over the defaults. Unknown sections/keys and bad values
 * are errors naming "FILE:LINE: section.key: what is wrong". */
mc_platform *mc_platform_load(const char *path, mc_error *err);
void mc_platform_destroy(mc_platform *p);
/* The platform of FILE (NULL: the defaults) with each "section.key=value" of
 * sets applied in order; an error names the file and line, or "--set A". */
mc_platform *mc_platform_open(const char *file, const char *const *sets, int nsets,
                              mc_error *err);

/* Overrides one key from "section.key=value" (the --set syntax). */
mc_err mc_platform_set(mc_platform *p, const char *assignment, mc_error *err);
/* Overrides one key from separate key ("section.key") and value. */
mc_err mc_platform_set_kv(mc_platform *p, const char *key, const char *value, mc_error *err);
/* The same, given by option `from` ("--vary"): the value's origin is then
 * "--vary KEY=VALUE" (mc_platform_set_kv's is "--set KEY=VALUE"). */
mc_err mc_platform_set_from(mc_platform *p, const char *key, const char *value, const char *from,
                            mc_error *err);

/* Typed getters for keys of the table; the key must be known (programming
 * error otherwise: returns NaN / NULL). `inf` is returned as INFINITY.
 * p == NULL gives the key's default (the one table of defaults: callers
 * never repeat a default). */
double mc_platform_num(const mc_platform *p, const char *key);
const char *mc_platform_str(const mc_platform *p, const char *key);
/* True if the key was set by the file or --set (not a default). */
int mc_platform_is_set(const mc_platform *p, const char *key);
/* Where a set key's value came from: "FILE:LINE" or "--set KEY=VALUE"; NULL for a
 * default. Owned by the platform. For errors found later (by a network
 * model) to name the place the user can fix. */
const char *mc_platform_origin(const mc_platform *p, const char *key);

/* MC_OK if value is one of choices ('|'-separated), else MC_ERR_PLATFORM
 * "unknown value 'V' (expected one of A, B; did you mean A?)": for modules
 * that own a key's values (the network models' and topologies' names). */
mc_err mc_platform_check_choice(const char *value, const char *choices, mc_error *err);

/* Parses a value with units into SI (s, B, B/s, Hz); returns MC_ERR_PLATFORM
 * with a message naming the value on failure. */
mc_err mc_parse_value(const char *text, mc_unit unit, double *out, mc_error *err);

/* Writes the effective platform as INI (all keys, defaults included). */
mc_err mc_platform_write(const mc_platform *p, const char *path, mc_error *err);

/* Iterates the known keys: returns the name of key i ("network.latency") or
 * NULL past the end; *unit and *help are filled when non-NULL. */
const char *mc_platform_key_at(int i, mc_unit *unit, const char **help);

/* Measured data (sections [table] and [measured], written by mpicast-bench;
 * docs/platform.md). Their key names are open-ended, so they are not in the
 * key table above; every name is still validated on load and --set.
 *
 * mc_platform_table: the points of table `name` — "pingpong" (T_comm(size),
 * the time MPI_Recv takes in a ping-pong), "send" (the time MPI_Send takes in
 * it) or "<op>.<ranks>" ("allreduce.4": one collective at 4 ranks) — sorted
 * by size, as newly allocated arrays of sizes (B) and times (s) that the
 * caller frees. Returns the number of points: 0 (arrays NULL) when the table
 * is absent, -1 when out of memory. */
int mc_platform_table(const mc_platform *p, const char *name, double **sizes, double **times);
/* Iterates the [measured] and [table] entries in order of definition: the key
 * of entry i ("measured.host", "table.pingpong.1KiB") or NULL past the end;
 * *value (when non-NULL) gets its text. Both strings belong to the platform. */
const char *mc_platform_entry_at(const mc_platform *p, int i, const char **value);

#ifdef __cplusplus
}
#endif
#endif
