/* mpicast model --extrap-json (issue 25 item 4): the series as Extra-P's JSON
 * input. The JSON of a known CSV input, parsed back with jansson, has that
 * input's parameters, coordinates and values (means of repeats); a study over
 * p and n gives two-coordinate points; series of one function and metric
 * fitted per n merge into one region, each point once. */
#include <jansson.h>
#include <math.h>

#include "check.h"
#include "mpicast/model.h"

#ifndef MODEL_DATA
#error "MODEL_DATA: the tests/data/model directory"
#endif

/* The parsed-back document of the series of d (by, metric). */
static json_t *roundtrip(mc_mdata *d, mc_model_var by, const char *metric)
{
    mc_error err = {0};
    mc_series *ser = NULL;
    size_t n = 0;
    CHECK(mc_mdata_series(d, by, metric, &ser, &n, &err) == MC_OK);
    const mc_series *s[64];
    CHECK(n > 0 && n <= 64);
    for (size_t i = 0; i < n; i++)
        s[i] = &ser[i];
    json_t *doc = mc_series_extrap_json(s, n);
    CHECK(doc != NULL);
    char *text = json_dumps(doc, JSON_REAL_PRECISION(17));
    json_decref(doc);
    mc_series_free(ser, n);
    CHECK(text != NULL);
    json_error_t jerr;
    json_t *back = json_loads(text, 0, &jerr);
    free(text);
    CHECK(back != NULL);
    return back;
}

/* The value measured at point (x0[, x1]) of function/metric; NAN if none. */
static double value_at(json_t *doc, const char *fn, const char *metric, double x0, double x1)
{
    json_t *list = json_object_get(json_object_get(json_object_get(doc, "measurements"), fn),
                                   metric);
    size_t i;
    json_t *m;
    json_array_foreach(list, i, m) {
        json_t *pt = json_object_get(m, "point"), *v = json_object_get(m, "values");
        if (json_number_value(json_array_get(pt, 0)) != x0)
            continue;
        if (!isnan(x1) && json_number_value(json_array_get(pt, 1)) != x1)
            continue;
        CHECK_EQ_INT(json_array_size(v), 1);
        return json_number_value(json_array_get(v, 0));
    }
    return NAN;
}

static size_t npoints(json_t *doc, const char *fn, const char *metric)
{
    return json_array_size(json_object_get(
        json_object_get(json_object_get(doc, "measurements"), fn), metric));
}

static void csv_input(void)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    CHECK(mc_mdata_read_csv(d, MODEL_DATA "/calls.csv", &err) == MC_OK);
    json_t *doc = roundtrip(d, MC_VAR_P, "calls");
    json_t *params = json_object_get(doc, "parameters");
    /* n is B in every row: not a parameter */
    CHECK_EQ_INT(json_array_size(params), 1);
    CHECK_EQ_STR(json_string_value(json_array_get(params, 0)), "p");
    CHECK_EQ_INT(json_object_size(json_object_get(doc, "measurements")), 2);
    CHECK_EQ_INT(npoints(doc, "MPI_Send", "calls"), 4);
    static const double p[] = {1, 2, 4, 8}, send[] = {5, 8, 14, 26};
    for (int i = 0; i < 4; i++) {
        CHECK(value_at(doc, "MPI_Send", "calls", p[i], NAN) == send[i]);
        CHECK(value_at(doc, "MPI_Allreduce", "calls", p[i], NAN) == 10);
    }
    /* the point list holds exactly one coordinate per parameter */
    json_t *m = json_array_get(json_object_get(json_object_get(json_object_get(doc,
        "measurements"), "MPI_Send"), "calls"), 0);
    CHECK_EQ_INT(json_array_size(json_object_get(m, "point")), 1);
    json_decref(doc);
    mc_mdata_destroy(d);
}

/* y = p * n over p in {2,4,8}, n in {1,3}; 2 repeats at (4,3): 10 and 14. */
static void two_parameters(void)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    static const double ps[] = {2, 4, 8}, ns[] = {1, 3};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            if (!(ps[i] == 4 && ns[j] == 3))
                CHECK(mc_mdata_add(d, ps[i], ns[j], "MPI_Bcast", "bytes", ps[i] * ns[j],
                                   "t:1", &err) == MC_OK);
    CHECK(mc_mdata_add(d, 4, 3, "MPI_Bcast", "bytes", 10, "t:2", &err) == MC_OK);
    CHECK(mc_mdata_add(d, 4, 3, "MPI_Bcast", "bytes", 14, "t:3", &err) == MC_OK);
    for (int by = 0; by < 2; by++) { /* pn: one series; p: one series per n, merged */
        json_t *doc = roundtrip(d, by ? MC_VAR_P : MC_VAR_PN, "bytes");
        json_t *params = json_object_get(doc, "parameters");
        CHECK_EQ_INT(json_array_size(params), 2);
        CHECK_EQ_STR(json_string_value(json_array_get(params, 0)), "p");
        CHECK_EQ_STR(json_string_value(json_array_get(params, 1)), "n");
        CHECK_EQ_INT(npoints(doc, "MPI_Bcast", "bytes"), 6);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                CHECK(value_at(doc, "MPI_Bcast", "bytes", ps[i], ns[j]) ==
                      (ps[i] == 4 && ns[j] == 3 ? 12 : ps[i] * ns[j]));
        json_decref(doc);
    }
    mc_mdata_destroy(d);
}

int main(void)
{
    csv_input();
    two_parameters();
    puts("ok");
    return 0;
}
