/* predict --timeline-otf2: the simulator's Chrome timeline (written by
 * src/sim/timeline.c, read back here rather than duplicating its logic)
 * becomes an OTF2 archive. Slices nest by time on each rank's location:
 * MPI calls (region MPI_<op>), and inside them or alone compute, comm and
 * wait regions. Times: the simulator's µs with ps precision → ns. */
#define MC_EXPORT_INTERNAL
#include "otf2_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct slice {
    int64_t t0, t1; /* ns */
    uint32_t region;
    int tid;
} slice;

static int slice_cmp(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1) /* the enclosing (longer) slice first */
        return x->t1 > y->t1 ? -1 : 1;
    return 0;
}

static int region_of(otf2w *w, const char *name, const char *cat)
{
    char buf[96];
    if (strcmp(cat, "mpi") == 0) {
        snprintf(buf, sizeof buf, "MPI_%s", name);
        int op = mc_op_from_name(name);
        int role = op >= 0 && mc_op_kind_of(op) == MC_KIND_C ? OTF2_REGION_ROLE_COLL_ALL2ALL
                   : op >= 0 && mc_op_kind_of(op) == MC_KIND_P ? OTF2_REGION_ROLE_POINT2POINT
                                                                : OTF2_REGION_ROLE_FUNCTION;
        return (int)ow_region(w, buf, role, OTF2_PARADIGM_MPI);
    }
    if (strcmp(cat, "compute") == 0)
        return (int)ow_region(w, "compute", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    snprintf(buf, sizeof buf, "%s: %s", cat, name);
    return (int)ow_region(w, strcmp(cat, "wait") == 0 ? "wait" : buf, OTF2_REGION_ROLE_ARTIFICIAL,
                          OTF2_PARADIGM_MEASUREMENT_SYSTEM);
}

/* Writes one rank's slices (sorted) as properly nested Enter/Leave. */
static int write_rank(otf2w *w, OTF2_EvtWriter *ew, const slice *s, size_t n)
{
    slice stack[64];
    int depth = 0, ok = 1;
    for (size_t i = 0; i <= n; i++) {
        int64_t t = i < n ? s[i].t0 : INT64_MAX;
        while (depth > 0 && (stack[depth - 1].t1 <= t || i == n)) {
            depth--;
            ok &= OTF2_EvtWriter_Leave(ew, NULL, ow_ts(w, stack[depth].t1), stack[depth].region) ==
                  OTF2_SUCCESS;
        }
        if (i == n)
            break;
        slice c = s[i];
        if (depth > 0 && c.t1 > stack[depth - 1].t1)
            c.t1 = stack[depth - 1].t1; /* rounding: keep it nested */
        if (depth == (int)(sizeof stack / sizeof stack[0]))
            continue;
        ok &= OTF2_EvtWriter_Enter(ew, NULL, ow_ts(w, c.t0), c.region) == OTF2_SUCCESS;
        stack[depth++] = c;
    }
    return ok ? 0 : -1;
}

typedef struct collect {
    slice *s;
    size_t n, cap;
    int nranks;
    otf2w *w;       /* NULL in the first pass (ranks only) */
} collect;

static int count_rank(void *ctx, const char *name, const char *cat, int tid, double ts, double dur)
{
    collect *c = ctx;
    (void)name; (void)cat; (void)ts; (void)dur;
    if (tid >= 0 && tid < (1 << 24) && tid + 1 > c->nranks)
        c->nranks = tid + 1;
    return 0;
}

static int add_slice(void *ctx, const char *name, const char *cat, int tid, double ts, double dur)
{
    collect *c = ctx;
    if (tid < 0 || tid >= c->nranks || !(ts >= 0) || !(dur >= 0))
        return 0;
    int reg = region_of(c->w, name, cat);
    if (reg < 0 || (uint32_t)reg == UINT32_MAX)
        return 1;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4096;
        slice *v = realloc(c->s, cap * sizeof *v);
        if (!v)
            return 1;
        c->s = v;
        c->cap = cap;
    }
    int64_t t0 = llround(ts * 1e3), t1 = llround((ts + dur) * 1e3);
    c->s[c->n++] = (slice){t0, t1 < t0 ? t0 : t1, (uint32_t)reg, tid};
    return 0;
}

mc_err mc_timeline_to_otf2(FILE *in, const char *outdir, mc_error *err)
{
    collect c = {0};
    otf2w w;
    /* pass 1: the ranks, to open the archive for them */
    if (tl_each_slice(in, count_rank, &c, err) < 0)
        return err && err->code ? err->code : MC_ERR_FORMAT;
    mc_err rc = ow_open(&w, outdir, c.nranks, 0, err);
    if (rc)
        return rc;
    c.w = &w;
    int fail = tl_each_slice(in, add_slice, &c, err) != 0;
    if (fail)
        mc_error_set(err, MC_ERR_NOMEM, "out of memory reading the timeline");
    if (c.n)
        qsort(c.s, c.n, sizeof *c.s, slice_cmp);
    size_t i = 0;
    for (int r = 0; r < c.nranks && !fail; r++) {
        size_t j = i;
        while (j < c.n && c.s[j].tid == r)
            j++;
        OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w.ar, (uint64_t)r);
        if (!ew || write_rank(&w, ew, c.s + i, j - i)) {
            fail = 1;
            mc_error_set(err, MC_ERR_IO, "%s: writing the events of rank %d failed", outdir, r);
        }
        if (ew) {
            OTF2_EvtWriter_GetNumberOfEvents(ew, &w.nevents[r]);
            OTF2_Archive_CloseEvtWriter(w.ar, ew);
        }
        i = j;
    }
    free(c.s);
    return ow_close(&w, fail, err);
}
