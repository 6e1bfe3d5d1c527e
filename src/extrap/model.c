/* Building the extrapolation model from small traces: the driver of the
 * steps, each in its own file.
 *
 * 1. Read every rank of every trace into memory (small runs; read.c).
 * 2. Find the process grid: MPI_Cart_create's, else the MPI_Dims_create
 *    grid under which every Comm_split/Cart_sub/Comm_create is a sub-grid,
 *    else a ring (grid.c).
 * 3. Abstract each rank's events: communicators become sub-grid descriptors,
 *    peers become grid offsets or fixed ranks, Comm_split colours and keys
 *    become grid indices (abstract.c).
 * 3b. Coarse levels on fewer ranks (multigrid): a block done once per level
 *    by the ranks whose coordinates are multiples of 2^level is taken out
 *    of every rank's events and described by one rule (depth.c).
 * 4. Group the ranks into classes by position (lower border, interior, upper
 *    border per dimension); the members of a class must agree event by event
 *    (else the pattern is not explained and the build fails naming it);
 *    dimensions along which every position is alike merge their classes
 *    (classes.c).
 * 5. Across traces, the same class must have the same events; each size is
 *    fitted by a law of P (or takes the stated rule) (merge.c).
 * 6. Verify: the model regenerates every rank of every trace exactly
 *    (verify.c).
 */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(xbuild *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(xbuild *b, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (b->nnotes + (size_t)n + 2 > b->capnotes) {
        size_t cap = (b->capnotes + (size_t)n + 2) * 2;
        char *p = realloc(b->notes, cap);
        if (!p)
            return;
        b->notes = p;
        b->capnotes = cap;
    }
    memcpy(b->notes + b->nnotes, line, (size_t)n);
    b->nnotes += (size_t)n;
    b->notes[b->nnotes++] = '\n';
    b->notes[b->nnotes] = '\0';
}

/* Frees the templates and repetition runs of class c (not c itself). */
static void class_free(xclass *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        extrap_tev_free(&c->ev[i]);
    free(c->ev);
    for (int j = 0; j < c->nrep; j++)
        free(c->rep[j].run);
    free(c->dpos);
    free(c->dmidx);
}

static void free_per(const mc_extrap *x, xclass (*per)[NCLASSES])
{
    for (int k = 0; per && k < x->ntraces; k++)
        for (int c = 0; c < NCLASSES; c++) {
            class_free(&per[k][c]);
            memset(&per[k][c], 0, sizeof per[k][c]);
        }
}

static void build_free(xbuild *b)
{
    mc_extrap *x = b->x;
    for (int k = 0; b->raw && k < x->ntraces; k++) {
        for (int r = 0; b->raw[k] && r < x->tP[k]; r++) {
            rawrank *rr = &b->raw[k][r];
            if (b->abs && b->abs[k] && b->abs[k][r]) {
                for (uint32_t i = 0; i < rr->n; i++) {
                    extrap_tev_free(&b->abs[k][r][i].t);
                    free(b->abs[k][r][i].pc);
                }
                free(b->abs[k][r]);
            }
            /* with coarse levels stripped, the events as read own the values */
            rawrank *own = b->full && b->full[k] && b->full[k][r].ev ? &b->full[k][r] : rr;
            for (uint32_t i = 0; i < own->n; i++)
                free(own->ev[i].vals);
            if (own != rr)
                free(own->ev);
            free(rr->ev);
        }
        free(b->raw[k]);
        if (b->abs)
            free(b->abs[k]);
        if (b->full)
            free(b->full[k]);
    }
    free(b->raw);
    free(b->abs);
    free(b->full);
    extrap_depth_free_build(b);
}
static void explain_inference(xbuild *b)
{
    mc_extrap *x = b->x;
    note(b, "grid: %s; %d dimension%s, periodic %s", x->grid_source, x->nd, x->nd > 1 ? "s" : "",
         x->nd == 1 ? (x->periodic[0] ? "yes (offsets wrap)" : "no") : "per dimension below");
    for (int k = 0; k < x->ntraces; k++) {
        char dims[64] = "";
        size_t o = 0;
        for (int d = 0; d < x->nd; d++)
            o += (size_t)snprintf(dims + o, sizeof dims - o, "%s%d", d ? "x" : "",
                                  x->tgrid[k].dims[d]);
        note(b, "trace %s: P=%d, grid %s", x->paths[k], x->tP[k], dims);
    }
    if (x->rules.data_sizes) {
        uint64_t nev = 0, ndata = 0;
        for (int c = 0; c < NCLASSES; c++)
            for (uint32_t i = 0; x->cls[c].present && i < x->cls[c].n; i++) {
                nev++;
                ndata += x->cls[c].ev[i].dmask != 0;
            }
        note(b, "sizes data: %llu of %llu template events take point-to-point sizes from the "
             "traced ranks of %s (a target rank those of the traced rank at its place in a "
             "tiling of that grid, a receive the size its sender sends), scaled by the "
             "size.p2p law", (unsigned long long)ndata, (unsigned long long)nev,
             x->ntraces > 1 ? "the largest trace" : "the trace");
    }
    for (int d = 0; d < x->nd; d++)
        note(b, "dimension %d: %s, %s", d,
             x->periodic[d] ? (strncmp(x->grid_source, "MPI_Cart", 8) == 0 ? "periodic"
                                                                          : "offsets wrap")
                            : "not periodic",
             x->homogeneous[d] ? "every position alike (classes merged)"
                               : "borders differ from the interior");
}

/* What the build of ntraces traces holds, in x and b: 0, or -1 (out of memory). */
static int alloc_build(mc_extrap *x, xbuild *b, const char *const *traces, int ntraces)
{
    x->ntraces = ntraces;
    x->paths = calloc((size_t)ntraces, sizeof *x->paths);
    x->tP = calloc((size_t)ntraces, sizeof *x->tP);
    x->tgrid = calloc((size_t)ntraces, sizeof *x->tgrid);
    b->raw = calloc((size_t)ntraces, sizeof *b->raw);
    b->abs = calloc((size_t)ntraces, sizeof *b->abs);
    if (!x->paths || !x->tP || !x->tgrid || !b->raw || !b->abs)
        return -1;
    for (int k = 0; k < ntraces; k++)
        if (!(x->paths[k] = strdup(traces[k])))
            return -1;
    return 0;
}

/* The class templates of every trace (per), with the classes of the
 * homogeneous dimensions merged. */
static mc_err classify_all(xbuild *b, xclass (*per)[NCLASSES], mc_error *err)
{
    mc_extrap *x = b->x;
    mc_err rc = extrap_classify(b, per, err);
    if (rc)
        return rc;
    extrap_find_homogeneous(x, per);
    int collapse = 0;
    for (int d = 0; d < x->nd; d++)
        collapse |= x->homogeneous[d];
    if (collapse && !x->rules.replicate) {
        /* Merge the position classes of homogeneous dimensions: one class
         * then has members (and sizes to fit) in every trace. */
        free_per(x, per);
        return extrap_classify(b, per, err);
    }
    return MC_OK;
}

/* Every class merged across the traces into the model; per is freed as
 * each class is done with. */
static int merge_classes(xbuild *b, xclass (*per)[NCLASSES], mc_error *err)
{
    int ntraces = b->x->ntraces;
    for (int cls = 0; cls < NCLASSES; cls++) {
        xclass tmp[64];
        int nk = ntraces < 64 ? ntraces : 64;
        for (int k = 0; k < nk; k++)
            tmp[k] = per[k][cls];
        int rc = extrap_merge_class(b, cls, tmp, err);
        for (int k = 0; k < nk; k++) {
            if (tmp[k].present)
                class_free(&tmp[k]);
            memset(&per[k][cls], 0, sizeof per[k][cls]);
        }
        if (rc) {
            mc_error_prefix(err, "extrapolate");
            return -1;
        }
    }
    return 0;
}

mc_extrap *extrap_build_model(const char *const *traces, int ntraces,
                              const mc_extrap_rules *rules, const mc_extrap *inherit,
                              const xfold *folds, int *fold_wanted, mc_error *err)
{
    if (ntraces < 1 || ntraces > 64) {
        mc_error_set(err, MC_ERR_USAGE, "extrapolate: give 1 to 64 traces, not %d", ntraces);
        return NULL;
    }
    if (rules && rules->law[MC_SC_P2P] == MC_LAW_FIT && !rules->data_sizes) {
        mc_error_set(err, MC_ERR_USAGE, "size.p2p=fit fits the sizes that follow the data "
                     "(their mean over the traces): give it with --rule sizes=data");
        return NULL;
    }
    mc_extrap *x = calloc(1, sizeof *x);
    xbuild b = {.max_events = extrap_max_events_held(), .folds = folds};
    if (!folds && extrap_fold_threshold() < b.max_events)
        b.max_events = extrap_fold_threshold();
    xclass (*per)[NCLASSES] = NULL;
    if (!x)
        goto nomem;
    b.x = x;
    b.inherit = inherit;
    if (rules)
        x->rules = *rules;
    else
        mc_extrap_rules_init(&x->rules);
    per = calloc((size_t)ntraces, sizeof *per);
    if (alloc_build(x, &b, traces, ntraces) || !per)
        goto nomem;
    for (int k = 0; k < ntraces; k++)
        if (extrap_read_trace(&b, k, err))
            goto fail;
    if (extrap_find_grid(&b, err))
        goto fail;
    for (int k = 0; k < ntraces; k++)
        if (extrap_abstract_trace(&b, k, err))
            goto fail;
    if (extrap_depth_find(&b, err) || extrap_share_find(&b, err))
        goto fail;
    if (classify_all(&b, per, err) || merge_classes(&b, per, err))
        goto fail;
    if (extrap_verify(&b, err)) {
        if (!x->rules.replicate)
            goto fail;
        /* A stated rule is the user's choice: say where it departs from the traces. */
        note(&b, "stated rule 'replicate' departs from the traces: %s", err->msg);
        memset(err, 0, sizeof *err);
    }
    explain_inference(&b);
    x->notes = b.notes;
    b.notes = NULL;
    build_free(&b);
    free(per);
    return x;
nomem:
    mc_error_set(err, MC_ERR_NOMEM, "out of memory");
fail:
    if (fold_wanted)
        *fold_wanted = b.fold_wanted;
    if (x) {
        free_per(x, per);
        build_free(&b);
    }
    free(b.notes);
    free(per);
    mc_extrap_destroy(x);
    return NULL;
}

void mc_extrap_destroy(mc_extrap *x)
{
    if (!x)
        return;
    for (int c = 0; c < NCLASSES; c++)
        class_free(&x->cls[c]);
    for (int k = 0; x->paths && k < x->ntraces; k++)
        free(x->paths[k]);
    free(x->paths);
    free(x->tP);
    free(x->tgrid);
    free(x->cd);
    free(x->notes);
    for (int k = 0; x->meta && k < x->ntraces; k++)
        mc_meta_destroy(x->meta[k]);
    free(x->meta);
    free(x->share);
    free(x->share_key);
    free(x->share_of);
    extrap_depth_free(&x->depth);
    free(x);
}
