/* libFuzzer target: model inputs (src/model/data.c, scaling.c) and what
 * `mpicast model` / `mpicast scaling` do with them. Byte 0: bits 0-1 pick
 * the reader (CSV, Extra-P text, stats JSON, scaling CSV), bit 4 a TAU
 * profile file instead (profile.0.0.0, src/model/tau.c), bits 2-3 the
 * parameter (p, n, pn); the rest is the file. Whatever reads is grouped
 * into series and fitted, as the commands do, so garbage numbers (huge,
 * zero, negative, repeated) reach the fitting code too. */
#include <math.h>

#include "fuzz_common.h"
#include "mpicast/model.h"

static void fit_series(const mc_series *s, mc_model_var by)
{
    double x[64], x2[64], y[64];
    size_t m = s->npts < 64 ? s->npts : 64;
    for (size_t i = 0; i < m; i++) {
        x[i] = by == MC_VAR_N ? s->pts[i].n : s->pts[i].p;
        x2[i] = s->pts[i].n;
        y[i] = s->pts[i].value;
    }
    mc_fit_opts opts = mc_fit_opts_default();
    mc_fit best;
    mc_select used;
    mc_error err = {0};
    if (mc_model_select(by, x, by == MC_VAR_PN ? x2 : NULL, y, m, &opts, &best, NULL, &used,
                        &err) != MC_OK) {
        fz_check_message(err.msg);
        return;
    }
    char formula[512];
    mc_fit_formula(&best, by == MC_VAR_N ? "n" : "p", formula, sizeof formula);
    (void)mc_fit_eval(&best, 1024, 1e6);
}

static void model_inputs(int kind, mc_model_var by, const char *path)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    mc_run_label label = {0};
    mc_err rc = kind == 4   ? mc_mdata_read_tau(d, path, &label, &err)
                : kind == 0 ? mc_mdata_read_csv(d, path, &err)
                : kind == 1 ? mc_mdata_read_extrap(d, path, by, &err)
                            : mc_mdata_read_stats(d, path, &label, &err);
    if (rc != MC_OK) {
        fz_check_message(err.msg);
        mc_mdata_destroy(d);
        return;
    }
    mc_series *ser = NULL;
    size_t n = 0;
    if (mc_mdata_series(d, by, NULL, &ser, &n, &err) != MC_OK) {
        fz_check_message(err.msg);
    } else {
        for (size_t i = 0; i < n && i < 8; i++)
            fit_series(&ser[i], by);
        mc_series_free(ser, n);
    }
    size_t nruns;
    (void)mc_mdata_cost(d, NAN, NAN, &nruns);
    mc_mdata_destroy(d);
}

static void scaling_input(const char *path)
{
    mc_scaling_obs *obs = NULL;
    size_t nobs = 0;
    mc_error err = {0};
    if (mc_scaling_read_csv(path, &obs, &nobs, &err) != MC_OK) {
        fz_check_message(err.msg);
        free(obs);
        return;
    }
    mc_scaling_opts opts = mc_scaling_opts_default();
    mc_scaling_model m;
    memset(&m, 0, sizeof m);
    if (mc_scaling_fit(obs, nobs, &opts, &m, &err) != MC_OK) {
        fz_check_message(err.msg);
    } else {
        (void)mc_scaling_eval(&m, 64, 1e6);
        (void)mc_scaling_p_at_efficiency(&m, 1e6, 0, 0.5, 1e9);
        (void)mc_scaling_p_at_efficiency(&m, 1e4, 1, 0.5, 1e9);
        char buf[512];
        mc_law_formula(&m.a, buf, sizeof buf);
    }
    mc_scaling_model_free(&m);
    free(obs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int kind = data[0] & 3;
    int v = data[0] >> 2 & 3;
    mc_model_var by = v == 1 ? MC_VAR_N : v == 2 ? MC_VAR_PN : MC_VAR_P;
    if (data[0] & 16) { /* TAU reads a profile by its name */
        model_inputs(4, by, fz_write("profile.0.0.0", data + 1, size - 1));
        return 0;
    }
    const char *path = fz_write("input.txt", data + 1, size - 1);
    if (kind == 3)
        scaling_input(path);
    else
        model_inputs(kind, by, path);
    return 0;
}
