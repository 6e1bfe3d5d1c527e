/* Error codes and messages (see include/mpicast/error.h). */
#include "mpicast/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mc_strerror(mc_err code)
{
    switch (code) {
    case MC_OK: return "success";
    case MC_ERR_IO: return "input/output error";
    case MC_ERR_FORMAT: return "malformed input";
    case MC_ERR_TRUNCATED: return "input ends early";
    case MC_ERR_VERSION: return "unsupported format version";
    case MC_ERR_NOMEM: return "out of memory";
    case MC_ERR_USAGE: return "bad argument";
    case MC_ERR_PLATFORM: return "invalid platform description";
    case MC_ERR_DEADLOCK: return "replay cannot complete";
    case MC_ERR_INTERNAL: return "internal error";
    case MC_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown error";
}

/* Messages are one line (the CLI prints them after "mpicast: "), even when
 * they quote input bytes: control characters become '?'. */
static void one_line(char *msg)
{
    for (unsigned char *p = (unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = *p == '\t' ? ' ' : '?';
}

/* Copies a message of any length into dst (cap bytes): one that does not fit
 * keeps its start and its end — the reason comes last ("PATH: cannot open:
 * No such file") — with "..." in the middle, cut between UTF-8 characters. */
static void fit_message(char *dst, size_t cap, const char *src)
{
    size_t len = strlen(src);
    if (len < cap) {
        memcpy(dst, src, len + 1);
        return;
    }
    size_t head = cap / 3, tail = cap - 1 - head - 3;
    while (head > 0 && ((unsigned char)src[head] & 0xC0) == 0x80)
        head--; /* src[head] starts a character: the head ends before it */
    size_t from = len - tail;
    while (from < len && ((unsigned char)src[from] & 0xC0) == 0x80)
        from++;
    memcpy(dst, src, head);
    memcpy(dst + head, "...", 3);
    memcpy(dst + head + 3, src + from, len - from + 1);
}

enum { LONG_MESSAGE = 16384 }; /* longer still: cut at the end, as vsnprintf does */

mc_err mc_error_set(mc_error *err, mc_err code, const char *fmt, ...)
{
    if (err) {
        char full[LONG_MESSAGE];
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(full, sizeof full, fmt, ap);
        va_end(ap);
        fit_message(err->msg, sizeof err->msg, full);
        one_line(err->msg);
    }
    return code;
}

void mc_error_prefix(mc_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char full[LONG_MESSAGE];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(full, sizeof full, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n > sizeof full - 3)
        n = (int)(sizeof full - 3);
    snprintf(full + n, sizeof full - (size_t)n, ": %s", err->msg);
    fit_message(err->msg, sizeof err->msg, full);
    one_line(err->msg);
}

void mc_error_replace(mc_error *err, const char *from, const char *to)
{
    char *at = err && from && *from ? strstr(err->msg, from) : NULL;
    if (!at)
        return;
    char full[LONG_MESSAGE];
    snprintf(full, sizeof full, "%.*s%s%s", (int)(at - err->msg), err->msg, to,
             at + strlen(from));
    fit_message(err->msg, sizeof err->msg, full);
}
