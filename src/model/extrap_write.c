/* The series a model was fitted to, as Extra-P's text input: the form
 * Extra-P users load (and `mpicast model` reads back, data.c). */
#include "mpicast/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xw_point {
    double p, n;
} xw_point;

static int xw_cmp(const void *a, const void *b)
{
    const xw_point *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->n > y->n) - (x->n < y->n);
}

/* Index of (p, n) in the sorted points, or -1. */
static long xw_find(const xw_point *pts, size_t n, double p, double nn)
{
    xw_point key = {p, nn};
    const xw_point *hit = bsearch(&key, pts, n, sizeof *pts, xw_cmp);
    return hit ? (long)(hit - pts) : -1;
}

static int same_region(const mc_series *a, const mc_series *b)
{
    return strcmp(a->function, b->function) == 0 && strcmp(a->metric, b->metric) == 0;
}

/* The values of region (function, metric) of ser[k] at the points, from
 * every series of that region (--by p fits one per n; Extra-P has one
 * region over (p, n)). Returns how many points got a value. */
static size_t xw_fill(const mc_series *const *ser, size_t nser, size_t k, const xw_point *pts,
                      size_t npts, int with_p, int with_n, double *v, unsigned char *set)
{
    size_t got = 0;
    for (size_t m = k; m < nser; m++) {
        if (!same_region(ser[m], ser[k]))
            continue;
        for (size_t i = 0; i < ser[m]->npts; i++) {
            const mc_point *q = &ser[m]->pts[i];
            long at = xw_find(pts, npts, with_p ? q->p : 0, with_n ? q->n : 0);
            if (at >= 0 && !set[at]) {
                set[at] = 1, v[at] = q->value;
                got++;
            }
        }
    }
    return got;
}

size_t mc_series_write_extrap(FILE *out, const mc_series *const *ser, size_t nser,
                              const char **skipped)
{
    /* parameters: p, and n when every point has one (then --by p or n
     * models read back per value of the other, as they were fitted) */
    int with_p = 1, with_n = 1;
    size_t cap = 0;
    for (size_t k = 0; k < nser; k++)
        for (size_t i = 0; i < ser[k]->npts; i++) {
            with_p &= !isnan(ser[k]->pts[i].p);
            with_n &= !isnan(ser[k]->pts[i].n);
            cap++;
        }
    xw_point *pts = malloc((cap ? cap : 1) * sizeof *pts);
    if (!pts)
        return (size_t)-1;
    size_t npts = 0;
    for (size_t k = 0; k < nser; k++)
        for (size_t i = 0; i < ser[k]->npts; i++)
            pts[npts++] = (xw_point){with_p ? ser[k]->pts[i].p : 0,
                                     with_n ? ser[k]->pts[i].n : 0};
    qsort(pts, npts, sizeof *pts, xw_cmp);
    size_t u = 0;
    for (size_t i = 0; i < npts; i++)
        if (u == 0 || xw_cmp(&pts[i], &pts[u - 1]) != 0)
            pts[u++] = pts[i];
    npts = u;
    if (with_p)
        fputs("PARAMETER p\n", out);
    if (with_n)
        fputs("PARAMETER n\n", out);
    fputs("\nPOINTS", out);
    for (size_t i = 0; i < npts; i++) {
        if (with_p && with_n)
            fprintf(out, " ( %.17g %.17g )", pts[i].p, pts[i].n);
        else
            fprintf(out, " %.17g", with_p ? pts[i].p : pts[i].n);
    }
    fputc('\n', out);
    /* Extra-P wants a value at every point of the file for every region:
     * a series measured at fewer points is left out (its name returned) */
    size_t left = 0;
    double *v = malloc((npts ? npts : 1) * sizeof *v);
    unsigned char *set = malloc(npts ? npts : 1);
    for (size_t k = 0; v && set && k < nser; k++) {
        int done = 0; /* written with an earlier series of its region */
        for (size_t m = 0; m < k && !done; m++)
            done = same_region(ser[m], ser[k]);
        if (done)
            continue;
        memset(set, 0, npts);
        if (xw_fill(ser, nser, k, pts, npts, with_p, with_n, v, set) != npts) {
            if (skipped && !left)
                *skipped = ser[k]->function;
            left++;
            continue;
        }
        fprintf(out, "\nREGION %s\nMETRIC %s\n", ser[k]->function, ser[k]->metric);
        for (size_t i = 0; i < npts; i++)
            fprintf(out, "DATA %.17g\n", v[i]);
    }
    if (!v || !set)
        left = (size_t)-1;
    free(v);
    free(set);
    free(pts);
    return left;
}
