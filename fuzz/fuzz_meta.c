/* libFuzzer target: meta.json (src/format/meta.c). The input is the file;
 * a document that reads must also write and read back with the same
 * ranks, communicators and sites (the tracer writes what `stats` reads). */
#include "fuzz_common.h"
#include "mpicast/format.h"

static void check_roundtrip(const mc_meta *m)
{
    char out[600];
    snprintf(out, sizeof out, "%s/out", fz_tmpdir());
    mc_error err = {0};
    if (mkdir(out, 0700) != 0 && access(out, W_OK) != 0)
        abort();
    if (mc_meta_write(m, out, &err) != MC_OK) {
        fz_check_message(err.msg);
        return;
    }
    mc_meta *back = mc_meta_read(out, &err);
    if (!back || mc_meta_nranks(back) != mc_meta_nranks(m) ||
        mc_meta_ncomms(back) != mc_meta_ncomms(m) || mc_meta_nsites(back) != mc_meta_nsites(m)) {
        fprintf(stderr, "fuzz: meta.json does not read back: %s\n", back ? "counts differ" : err.msg);
        abort();
    }
    for (size_t i = 0; i < mc_meta_ncomms(m); i++) {
        const mc_meta_comm *a = mc_meta_comm_at(m, i), *b = mc_meta_comm_find(back, a->id);
        if (!b || b->size != a->size || b->local_size != a->local_size ||
            memcmp(a->members, b->members, (size_t)a->size * sizeof *a->members) != 0) {
            fprintf(stderr, "fuzz: communicator %zu does not read back\n", i);
            abort();
        }
    }
    mc_meta_destroy(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_write("meta.json", data, size);
    mc_error err = {0};
    mc_meta *m = mc_meta_read(fz_tmpdir(), &err);
    if (!m) {
        fz_check_message(err.msg);
        return 0;
    }
    check_roundtrip(m);
    mc_meta_destroy(m);
    return 0;
}
