/* mpicast — the MPICAST_* environment variables, declared once.
 *
 * Every variable mpicast or its tracer reads is a row of one table (name,
 * kind of value, what it does: src/base/env.c, docs/robustness.md). The CLI
 * checks the environment against it before any command runs, so a value
 * that cannot be parsed is an error naming the variable, not a silently
 * ignored setting, and a misspelt name is a warning. */
#ifndef MPICAST_ENV_H
#define MPICAST_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "mpicast/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a byte count: a positive number with an optional unit B, K/k/KiB
 * (2^10), KB/kB (10^3), M/MiB, MB, G/GiB, GB. 0 and *out set, or -1. */
int mc_env_parse_bytes(const char *s, uint64_t *out);

/* Checks every MPICAST_* variable of the environment: MC_OK, or
 * MC_ERR_USAGE with err naming the first malformed one ("MPICAST_X=v: what
 * it takes"). Variables that are no row of the table are reported through
 * warn (one call each, the message without a trailing newline); warn may
 * be NULL. */
mc_err mc_env_check(mc_error *err, void (*warn)(const char *msg));

#ifdef __cplusplus
}
#endif
#endif
