/* mpicast — error codes and messages shared by every module.
 *
 * The rule, written once: a function that can fail returns an mc_err (MC_OK
 * is 0) and, when given a non-NULL `mc_error *`, fills it with a one-line
 * message of the form "FILE:WHERE: what is wrong" that the CLI prints after
 * "mpicast: ". Functions returning pointers return NULL on failure and fill
 * the mc_error the same way. No function prints on its own.
 */
#ifndef MPICAST_ERROR_H
#define MPICAST_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mc_err {
    MC_OK = 0,
    MC_ERR_IO,        /* cannot open, read or write a file */
    MC_ERR_FORMAT,    /* input is malformed (corrupt chunk, bad field) */
    MC_ERR_TRUNCATED, /* input ends early; a readable prefix may exist */
    MC_ERR_VERSION,   /* unknown format version */
    MC_ERR_NOMEM,     /* out of memory */
    MC_ERR_USAGE,     /* bad argument or option value */
    MC_ERR_PLATFORM,  /* unknown or invalid platform key/value */
    MC_ERR_DEADLOCK,  /* replay cannot complete */
    MC_ERR_INTERNAL,  /* a bug: an invariant failed */
    MC_ERR_INTERRUPTED /* stopped on request (SIGINT): partial result */
} mc_err;

#define MC_ERROR_MSG_MAX 1024

/* Holds the detail of the last failure. Zero-initialise before use. */
typedef struct mc_error {
    mc_err code;
    char msg[MC_ERROR_MSG_MAX]; /* "FILE:WHERE: what is wrong", no newline; a longer
                                   message keeps its start and its end (the reason)
                                   with "..." in the middle */
} mc_error;

/* Short description of a code ("corrupt input", ...); static string. */
const char *mc_strerror(mc_err code);

/* Fills `err` (if non-NULL) with code and a printf-style message and returns
 * code, so callers can write `return mc_error_set(err, MC_ERR_IO, ...)`. */
mc_err mc_error_set(mc_error *err, mc_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes an existing message with "prefix: " (e.g. a file name) in place. */
void mc_error_prefix(mc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Replaces the first occurrence of `from` in the message by `to` (a
 * private temporary copy's path by the user's input, say). */
void mc_error_replace(mc_error *err, const char *from, const char *to);

#ifdef __cplusplus
}
#endif
#endif
