/* The series a model was fitted to as Extra-P's JSON input (the newer,
 * recommended form of Extra-P's docs/file-formats.md: "parameters" and
 * "measurements" callpath -> metric -> [{point, values}]), so that an
 * Extra-P user loads the same data and compares Extra-P's model with ours.
 * Unlike the text form, each region keeps its own points: no series is
 * left out. */
#include "mpicast/model.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* The parameters: p and n each when every point has it and it takes more
 * than one value (a constant n of a --by p study is no parameter to
 * Extra-P); p alone when neither varies. */
static void xj_params(const mc_series *const *ser, size_t nser, int *with_p, int *with_n)
{
    int all_p = 1, all_n = 1, vary_p = 0, vary_n = 0;
    double p0 = NAN, n0 = NAN;
    for (size_t k = 0; k < nser; k++)
        for (size_t i = 0; i < ser[k]->npts; i++) {
            const mc_point *q = &ser[k]->pts[i];
            all_p &= !isnan(q->p);
            all_n &= !isnan(q->n);
            if (isnan(p0))
                p0 = q->p;
            if (isnan(n0))
                n0 = q->n;
            vary_p |= !isnan(q->p) && q->p != p0;
            vary_n |= !isnan(q->n) && q->n != n0;
        }
    *with_p = all_p && vary_p;
    *with_n = all_n && vary_n;
    if (!*with_p && !*with_n) {
        *with_p = all_p || !all_n;
        *with_n = !*with_p;
    }
}

static json_t *xj_point(const mc_point *q, int with_p, int with_n)
{
    json_t *pt = json_array();
    if (with_p)
        json_array_append_new(pt, json_real(isnan(q->p) ? 0 : q->p));
    if (with_n)
        json_array_append_new(pt, json_real(isnan(q->n) ? 0 : q->n));
    return pt;
}

/* 1 when the metric's list already holds a measurement at point pt (a
 * --by p series per n shares its region with the others). */
static int xj_has(json_t *list, json_t *pt)
{
    size_t i;
    json_t *m;
    json_array_foreach(list, i, m)
        if (json_equal(json_object_get(m, "point"), pt))
            return 1;
    return 0;
}

struct json_t *mc_series_extrap_json(const mc_series *const *ser, size_t nser)
{
    int with_p, with_n;
    xj_params(ser, nser, &with_p, &with_n);
    json_t *doc = json_object(), *params = json_array(), *meas = json_object();
    if (!doc || !params || !meas) {
        json_decref(doc), json_decref(params), json_decref(meas);
        return NULL;
    }
    if (with_p)
        json_array_append_new(params, json_string("p"));
    if (with_n)
        json_array_append_new(params, json_string("n"));
    json_object_set_new(doc, "parameters", params);
    json_object_set_new(doc, "measurements", meas);
    for (size_t k = 0; k < nser; k++) {
        json_t *region = json_object_get(meas, ser[k]->function);
        if (!region) {
            region = json_object();
            json_object_set_new(meas, ser[k]->function, region);
        }
        json_t *list = json_object_get(region, ser[k]->metric);
        if (!list) {
            list = json_array();
            json_object_set_new(region, ser[k]->metric, list);
        }
        for (size_t i = 0; i < ser[k]->npts; i++) {
            const mc_point *q = &ser[k]->pts[i];
            json_t *pt = xj_point(q, with_p, with_n);
            if (!pt || xj_has(list, pt)) {
                json_decref(pt);
                continue;
            }
            /* the mean of the repeats: the value the model was fitted to */
            json_array_append_new(list, json_pack("{s:o,s:[f]}", "point", pt, "values",
                                                  q->value));
        }
    }
    return doc;
}
