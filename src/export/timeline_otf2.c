/* predict --timeline-otf2: the simulator's timeline slices (mc_tl_otf2, a
 * sink fed by the replay, exact picoseconds; or a Chrome timeline file read
 * back) become an OTF2 archive. Slices nest by time on each rank's location:
 * MPI calls (region MPI_<op>), and inside them or alone compute, comm and
 * wait regions. Times: ps rounded to ns. */
#define MPICAST_EXPORT_INTERNAL
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

static slice *grow_slices(slice *s, size_t *cap)
{
    size_t n = *cap ? 2 * *cap : 4096;
    slice *v = realloc(s, n * sizeof *v);
    if (!v)
        return free(s), NULL;
    *cap = n;
    return v;
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

/* The sink (export.h): slices in memory with their (name, category)
 * interned; regions are defined when the archive is written. */
typedef struct tl_name {
    char name[40], cat[12];
} tl_name;

struct mc_tl_otf2 {
    slice *s;         /* region holds the name index until written */
    size_t n, cap;
    tl_name *names;
    uint32_t nnames, capnames;
    int nranks;
    int failed;       /* out of memory: writing reports it */
};

mc_tl_otf2 *mc_tl_otf2_create(void)
{
    return calloc(1, sizeof(mc_tl_otf2));
}

void mc_tl_otf2_destroy(mc_tl_otf2 *t)
{
    if (t) {
        free(t->s);
        free(t->names);
        free(t);
    }
}

static int name_index(mc_tl_otf2 *t, const char *name, const char *cat)
{
    for (uint32_t i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i].name, name) == 0 && strcmp(t->names[i].cat, cat) == 0)
            return (int)i;
    if (t->nnames == t->capnames) {
        uint32_t cap = t->capnames ? 2 * t->capnames : 32;
        tl_name *v = realloc(t->names, cap * sizeof *v);
        if (!v)
            return -1;
        t->names = v;
        t->capnames = cap;
    }
    snprintf(t->names[t->nnames].name, sizeof t->names[0].name, "%s", name);
    snprintf(t->names[t->nnames].cat, sizeof t->names[0].cat, "%s", cat);
    return (int)t->nnames++;
}

/* ps -> ns, rounded (OTF2 timestamps are ns). */
static int64_t ps_to_ns(int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

void mc_tl_otf2_slice(void *ctx, int rank, const char *name, const char *cat, int64_t t0_ps,
                      int64_t t1_ps)
{
    mc_tl_otf2 *t = ctx;
    if (t->failed || rank < 0 || rank >= (1 << 24) || t0_ps < 0 || t1_ps < t0_ps)
        return;
    int k = name_index(t, name, cat);
    if (k < 0 || (t->n == t->cap && !(t->s = grow_slices(t->s, &t->cap)))) {
        t->failed = 1;
        return;
    }
    t->s[t->n++] = (slice){ps_to_ns(t0_ps), ps_to_ns(t1_ps), (uint32_t)k, rank};
    if (rank + 1 > t->nranks)
        t->nranks = rank + 1;
}

mc_err mc_tl_otf2_write(mc_tl_otf2 *t, const char *outdir, int nranks, mc_error *err)
{
    if (t->failed)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory collecting the timeline", outdir);
    if (nranks < t->nranks)
        nranks = t->nranks;
    otf2w w;
    mc_err rc = ow_open(&w, outdir, nranks, 0, err);
    if (rc)
        return rc;
    int fail = 0;
    uint32_t *region = calloc(t->nnames ? t->nnames : 1, sizeof *region);
    for (uint32_t i = 0; region && i < t->nnames; i++) {
        int r = region_of(&w, t->names[i].name, t->names[i].cat);
        fail |= r < 0 || (uint32_t)r == UINT32_MAX;
        region[i] = (uint32_t)r;
    }
    if (!region || fail)
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory defining the timeline's regions", outdir);
    fail |= !region;
    for (size_t i = 0; !fail && i < t->n; i++)
        t->s[i].region = region[t->s[i].region];
    free(region);
    if (!fail && t->n)
        qsort(t->s, t->n, sizeof *t->s, slice_cmp);
    size_t i = 0;
    for (int r = 0; r < nranks && !fail; r++) {
        size_t j = i;
        while (j < t->n && t->s[j].tid == r)
            j++;
        OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w.ar, (uint64_t)r);
        if (!ew || write_rank(&w, ew, t->s + i, j - i)) {
            fail = 1;
            mc_error_set(err, MC_ERR_IO, "%s: writing the events of rank %d failed", outdir, r);
        }
        if (ew) {
            OTF2_EvtWriter_GetNumberOfEvents(ew, &w.nevents[r]);
            OTF2_Archive_CloseEvtWriter(w.ar, ew);
        }
        i = j;
    }
    return ow_close(&w, fail, err);
}

/* A Chrome timeline file (the simulator's layout) fed to the sink. */
static int feed_slice(void *ctx, const char *name, const char *cat, int tid, double ts, double dur)
{
    mc_tl_otf2 *t = ctx;
    if (!(ts >= 0) || !(dur >= 0) || ts > 9e12)
        return 0;
    mc_tl_otf2_slice(t, tid, name, cat, llround(ts * 1e6), llround((ts + dur) * 1e6));
    return t->failed;
}

mc_err mc_timeline_to_otf2(FILE *in, const char *outdir, mc_error *err)
{
    mc_tl_otf2 *t = mc_tl_otf2_create();
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", outdir);
    mc_err rc = MC_OK;
    if (tl_each_slice(in, feed_slice, t, err) < 0)
        rc = err && err->code ? err->code : MC_ERR_FORMAT;
    if (rc == MC_OK)
        rc = mc_tl_otf2_write(t, outdir, 0, err);
    mc_tl_otf2_destroy(t);
    return rc;
}
