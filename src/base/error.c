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

mc_err mc_error_set(mc_error *err, mc_err code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        one_line(err->msg);
    }
    return code;
}

void mc_error_prefix(mc_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[MC_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t n = strlen(prefix);
    if (n + 2 >= sizeof err->msg)
        n = sizeof err->msg - 3;
    size_t keep = strnlen(err->msg, sizeof err->msg - 1);
    if (n + 2 + keep >= sizeof err->msg)
        keep = sizeof err->msg - 1 - n - 2;
    memmove(err->msg + n + 2, err->msg, keep);
    memcpy(err->msg, prefix, n);
    memcpy(err->msg + n, ": ", 2);
    err->msg[n + 2 + keep] = '\0';
    one_line(err->msg);
}
