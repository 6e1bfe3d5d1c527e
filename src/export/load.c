/* Progress lines, directories and small helpers shared by the exporters. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mpicast/input.h"

double mc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mc_progress_now(void)
{
    return mc_now();
}

void mc_progress_update(mc_progress *p, uint64_t done, uint64_t total)
{
    if (!p || !p->out)
        return;
    /* 4 updates per second; MPICAST_PROGRESS_INTERVAL (seconds) changes it,
     * e.g. 0 in tests so that a short run still shows its line. */
    static double interval = -1;
    if (interval < 0) {
        const char *e = getenv("MPICAST_PROGRESS_INTERVAL");
        interval = e && *e ? atof(e) : 0.25;
    }
    double now = mc_now();
    if (now - p->last < interval)
        return;
    p->last = now;
    if (total)
        fprintf(p->out, "\r%s: %llu/%llu (%.0f %%)\033[K", p->what ? p->what : "working",
                (unsigned long long)done, (unsigned long long)total, 100.0 * (double)done / (double)total);
    else
        fprintf(p->out, "\r%s: %llu\033[K", p->what ? p->what : "working", (unsigned long long)done);
    fflush(p->out);
}

void mc_progress_done(mc_progress *p)
{
    if (!p || !p->out || p->last == 0)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
}

mc_err mc_mkdir(const char *path, mc_error *err)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return MC_OK;
    }
    return mc_error_set(err, MC_ERR_IO, "%s: cannot create the directory: %s", path,
                        strerror(errno ? errno : ENOTDIR));
}

int lt_is_send(int op)
{
    return mc_op_has(op, MC_OPF_SEND);
}
