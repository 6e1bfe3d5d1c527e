/* libFuzzer target: extrapolation rules files (src/extrap/rules.c). A file
 * that loads must give a grid MPI_Dims_create can fill for a few rank
 * counts (what `extrapolate --ranks P` does with it next), and describe
 * itself in one line (the unchecked-rules warning). */
#include "fuzz_common.h"
#include "mpicast/extrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("rules.txt", data, size);
    mc_extrap_rules r;
    mc_extrap_rules_init(&r);
    mc_error err = {0};
    if (mc_extrap_rules_load(&r, path, &err) != MC_OK) {
        fz_check_message(err.msg);
        return 0;
    }
    if (r.ndims < 0 || r.ndims > MC_EXTRAP_MAXDIMS) {
        fprintf(stderr, "fuzz: rules loaded with ndims %d\n", r.ndims);
        abort();
    }
    static const int ps[] = {1, 7, 64, 1000};
    for (size_t i = 0; i < sizeof ps / sizeof *ps && r.ndims > 0; i++) {
        int dims[MC_EXTRAP_MAXDIMS] = {0};
        mc_extrap_dims_create(ps[i], r.ndims, dims);
    }
    /* the description of the stated rules (warnings, refusals) is one
     * terminated line whatever the buffer */
    char small[24], big[256];
    mc_extrap_rules_describe(&r, small, sizeof small);
    mc_extrap_rules_unchecked(&r, big, sizeof big);
    if (strlen(small) >= sizeof small || strchr(big, '\n')) {
        fprintf(stderr, "fuzz: rules description not one terminated line\n");
        abort();
    }
    return 0;
}
