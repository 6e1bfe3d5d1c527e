/* What `extrapolate --explain` prints, for the extrap tests to search. */
#ifndef MC_TEST_EXTRAP_EXPLAIN_H
#define MC_TEST_EXTRAP_EXPLAIN_H

#include <stdio.h>

#include "check.h"
#include "mpicast/extrap.h"

/* --explain's text for x at P (malloc'd). */
static inline char *explain_text(const mc_extrap *x, int P)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    mc_extrap_explain(x, P, f);
    fclose(f);
    return text;
}

#endif
