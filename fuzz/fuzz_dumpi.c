/* libFuzzer target: DUMPI traces (src/export/dumpi_read.c, dumpi_import.c)
 * as `mpicast import dumpi` and every command reading DUMPI see them.
 * Byte 0 picks the rank count (1-3); the rest is cut into that many rank
 * files (dumpi-fz-000R.bin) beside a version-13 .meta as SST's tracer
 * writes it. An import that succeeds is then read back event by event
 * through the trace source, whose checks every command relies on. A
 * refusal must be one line. */
#include "fuzz_common.h"
#include "mpicast/export.h"
#include "mpicast/format.h"

static void read_back(const char *dir)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    if (!s) {
        fz_check_message(err.msg);
        return;
    }
    for (int r = 0; r < s->nranks; r++) {
        mc_event e;
        int rc;
        while ((rc = mc_source_next(s, r, &e, &err)) == 1)
            ;
        if (rc < 0)
            fz_check_message(err.msg);
    }
    mc_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n = data[0] % 3 + 1;
    char meta[256];
    snprintf(meta, sizeof meta,
             "hostname=fz\nnumprocs=%d\nusername=<none>\nstartime=1795689485\n"
             "fileprefix=dumpi-fz\nversion=13\nsubversion=0\nsubsubversion=0\n", n);
    const char *mpath = fz_write("dumpi-fz.meta", (const uint8_t *)meta, strlen(meta));
    char metapath[512];
    snprintf(metapath, sizeof metapath, "%s", mpath);
    size_t rest = size - 1, each = rest / (size_t)n;
    for (int r = 0; r < n; r++) {
        char name[64];
        snprintf(name, sizeof name, "dumpi-fz-%04d.bin", r);
        size_t len = r == n - 1 ? rest - each * (size_t)(n - 1) : each;
        fz_write(name, data + 1 + each * (size_t)r, len);
    }
    char out[512];
    snprintf(out, sizeof out, "%s/imported", fz_tmpdir());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd) != 0)
        abort();
    mc_error err = {0};
    if (mc_import_dumpi(metapath, out, NULL, NULL, &err) != MC_OK) {
        fz_check_message(err.msg);
        return 0;
    }
    read_back(out);
    return 0;
}
