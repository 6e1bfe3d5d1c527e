/* Building the extrapolation model from small traces.
 *
 * 1. Read every rank of every trace into memory (small runs).
 * 2. Find the process grid: MPI_Cart_create's, else the MPI_Dims_create
 *    grid under which every Comm_split/Cart_sub/Comm_create is a sub-grid, else a ring.
 * 3. Abstract each rank's events: communicators become sub-grid descriptors,
 *    peers become grid offsets or fixed ranks, Comm_split colours and keys
 *    become grid indices.
 * 4. Group the ranks into classes by position (lower border, interior, upper
 *    border per dimension); the members of a class must agree event by event
 *    (else the pattern is not explained and the build fails naming it).
 * 5. Across traces, the same class must have the same events; each size is
 *    fitted by a law of P (or takes the stated rule).
 * 6. Verify: the model regenerates every rank of every trace exactly.
 */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <math.h>
#include <stdarg.h>

#include "mpicast/input.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EVENTS_IN_MEMORY (1u << 26) /* all input events: keeps RAM bounded */
/* What inference holds per input event (the event, its values, its
 * template and its class), measured: 1.08 GB peak for 10^6 events and
 * 4.3 GB for 4·10^6 (bench_bigtrace, docs/performance.md). */
#define BYTES_PER_EVENT_HELD 1100u

/* Input events inference may hold: half the RAM at BYTES_PER_EVENT_HELD
 * each, so a trace too long is refused with the reason instead of the
 * process being killed for memory (2·10^7 events took 21 GB). */
static uint64_t max_events_held(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t half = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)1 << 32;
    uint64_t n = half / BYTES_PER_EVENT_HELD;
    return n < MAX_EVENTS_IN_MEMORY ? n : MAX_EVENTS_IN_MEMORY;
}

typedef struct rawrank {
    mc_event *ev;
    uint32_t n, cap;
} rawrank;

typedef struct pcand {
    int32_t lit;
    int isrank, far, amb;
    int32_t rel[MAXD];
    int32_t xr;         /* rank XOR peer */
    uint32_t ambd;      /* the dimensions where the offset is ambiguous (amb) */
} pcand;

/* An event of one rank, abstracted, before the class decides. */
typedef struct aev {
    tev t;
    pcand *pc;          /* t.npeer candidates */
    unsigned colmask, keymask;
} aev;

typedef struct build {
    mc_extrap *x;
    rawrank **raw;      /* [trace][rank] */
    aev ***abs;         /* [trace][rank] -> array */
    uint64_t total, max_events; /* input events read, and the most held */
    /* A leave-one-out rebuild (check.c): the model of every trace, whose
     * inferred laws and repetitions the rebuild takes as stated. */
    const mc_extrap *inherit;
    const xfold *folds; /* one per trace, or NULL */
    int fold_wanted;    /* unfolded input past extrap_fold_threshold() */
    char *notes;
    size_t nnotes, capnotes;
} build;

/* ------------------------------------------------------------ helpers */

static void note(build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(build *b, const char *fmt, ...)
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

static int is_vcoll(int op)
{
    switch (op) {
    case MC_OP_GATHERV: case MC_OP_SCATTERV: case MC_OP_ALLGATHERV: case MC_OP_ALLTOALLV:
    case MC_OP_ALLTOALLW: case MC_OP_REDUCE_SCATTER: case MC_OP_IGATHERV:
    case MC_OP_ISCATTERV: case MC_OP_IALLGATHERV: case MC_OP_IALLTOALLV:
    case MC_OP_IALLTOALLW: case MC_OP_IREDUCE_SCATTER:
        return 1;
    default:
        return 0;
    }
}

static int is_completion(int op)
{
    return mc_op_has(op, MC_OPF_COMPLETION);
}

static int is_creation(int op)
{
    return mc_op_kind_of(op) == MC_KIND_M && op != MC_OP_COMM_FREE;
}

static int has_peer2(int op)
{
    return op == MC_OP_SENDRECV || op == MC_OP_SENDRECV_REPLACE || op == MC_OP_IPROBE;
}

/* Size class of a collective (blocking form). */
static int coll_sizeclass(int op)
{
    if (mc_op_is_nonblocking_coll(op))
        op -= MC_OP_IBARRIER - MC_OP_BARRIER;
    switch (op) {
    case MC_OP_ALLTOALL: case MC_OP_SCATTER: case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW:
    case MC_OP_SCATTERV:
        return MC_SC_BLOCK;
    default:
        return MC_SC_REDUCE;
    }
}

static void tev_free(tev *t)
{
    free(t->e.vals);
    free(t->peer);
    free(t->num);
    free(t->law);
    free(t->sclass);
    free(t->alt);
}

/* Deep copy (the abstract events stay for a second classification). */
static int tev_copy(tev *d, const tev *s)
{
    *d = *s;
    d->e.vals = NULL;
    d->peer = NULL;
    d->num = NULL;
    d->law = NULL;
    d->sclass = NULL;
    d->alt = NULL;
    if (s->e.nvals && !(d->e.vals = malloc(s->e.nvals * sizeof *d->e.vals)))
        return -1;
    if (s->e.nvals)
        memcpy(d->e.vals, s->e.vals, s->e.nvals * sizeof *d->e.vals);
    d->peer = malloc((s->npeer ? s->npeer : 1) * sizeof *d->peer);
    d->num = malloc((s->nnum ? s->nnum : 1) * sizeof *d->num);
    d->law = malloc(s->nnum ? s->nnum : 1);
    d->sclass = malloc(s->nnum ? s->nnum : 1);
    d->alt = malloc((s->nnum ? s->nnum : 1) * sizeof *d->alt);
    if (!d->peer || !d->num || !d->law || !d->sclass || !d->alt)
        return -1;
    memcpy(d->peer, s->peer, s->npeer * sizeof *d->peer);
    memcpy(d->num, s->num, s->nnum * sizeof *d->num);
    memcpy(d->law, s->law, s->nnum);
    memcpy(d->sclass, s->sclass, s->nnum);
    memcpy(d->alt, s->alt, s->nnum * sizeof *d->alt);
    return 0;
}

/* ------------------------------------------------------------ reading */

/* Trace k's source: its folded copy's, two iterations per loop, if any. */
static mc_source *open_trace(build *b, int k, const xfold **fold, mc_error *err)
{
    mc_extrap *x = b->x;
    *fold = b->folds && b->folds[k].dir[0] ? &b->folds[k] : NULL;
    mc_source *s = mc_input_open(*fold ? (*fold)->dir : x->paths[k], err);
    if (s && *fold && mc_trace_set_loop_cap(s, 2, err)) {
        mc_source_close(s);
        s = NULL;
    }
    if (!s && *fold)
        mc_error_replace(err, (*fold)->dir, x->paths[k]);
    if (s && mc_source_check_replayable(s, x->paths[k], err)) {
        mc_source_close(s);
        s = NULL;
    }
    return s;
}

/* Past the events inference holds: refused, or (unfolded) a fold wanted. */
static mc_err too_many(build *b, int k, const xfold *fold, mc_error *err)
{
    if (!b->folds) {
        b->fold_wanted = 1;
        return mc_error_set(err, MC_ERR_USAGE, "%s: more than %llu input events: folding "
                            "each rank's main loop", b->x->paths[k],
                            (unsigned long long)b->max_events);
    }
    return mc_error_set(err, MC_ERR_USAGE, "%s: more than %llu input events%s: extrapolation "
                        "holds each in memory (about %u B), and that many fill half of this "
                        "machine's RAM; trace a shorter run (fewer iterations) to extrapolate "
                        "from", b->x->paths[k], (unsigned long long)b->max_events,
                        fold ? " with each rank's main loop folded to two iterations" : "",
                        BYTES_PER_EVENT_HELD);
}

static mc_err read_trace(build *b, int k, mc_error *err)
{
    mc_extrap *x = b->x;
    const xfold *fold;
    mc_source *s = open_trace(b, k, &fold, err);
    if (!s)
        return err->code ? err->code : MC_ERR_IO;
    int P = s->nranks;
    x->tP[k] = P;
    b->raw[k] = calloc((size_t)P, sizeof **b->raw);
    if (!b->raw[k]) {
        mc_source_close(s);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", x->paths[k]);
    }
    for (int r = 0; r < P; r++) {
        rawrank *rr = &b->raw[k][r];
        mc_event e;
        int rc;
        while ((rc = mc_source_next(s, r, &e, err)) == 1) {
            if (++b->total > b->max_events) {
                mc_source_close(s);
                return too_many(b, k, fold, err);
            }
            if (rr->n == rr->cap) {
                uint32_t cap = rr->cap ? rr->cap * 2 : 64;
                mc_event *ev = realloc(rr->ev, cap * sizeof *ev);
                if (!ev)
                    goto nomem;
                rr->ev = ev;
                rr->cap = cap;
            }
            mc_event *d = &rr->ev[rr->n++];
            *d = e;
            d->vals = NULL;
            if (e.nvals) {
                d->vals = malloc(e.nvals * sizeof *d->vals);
                if (!d->vals)
                    goto nomem;
                memcpy(d->vals, e.vals, e.nvals * sizeof *d->vals);
            }
            extrap_fold_renumber(fold, r, rr->n - 1, d);
        }
        if (rc < 0) {
            if (fold)
                mc_error_replace(err, fold->dir, x->paths[k]);
            mc_source_close(s);
            return err->code ? err->code : MC_ERR_FORMAT;
        }
    }
    mc_source_close(s);
    return MC_OK;
nomem:
    mc_source_close(s);
    return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", x->paths[k]);
}

/* ------------------------------------------------------------ grid */

/* The first Cart_create over the whole world in rank 0's events. */
static const mc_event *find_cart(const rawrank *r0)
{
    for (uint32_t i = 0; i < r0->n; i++) {
        const mc_event *e = &r0->ev[i];
        if (e->op == MC_OP_CART_CREATE && e->peer2 > 0 && (uint32_t)e->peer2 < e->nvals)
            return e;
    }
    return NULL;
}

static int has_split(const build *b)
{
    for (int k = 0; k < b->x->ntraces; k++)
        for (int r = 0; r < b->x->tP[k]; r++)
            for (uint32_t i = 0; i < b->raw[k][r].n; i++) {
                int op = b->raw[k][r].ev[i].op;
                if (op == MC_OP_COMM_SPLIT || op == MC_OP_CART_SUB || op == MC_OP_COMM_CREATE)
                    return 1;
            }
    return 0;
}

/* Keep mask under which members are r's sub-grid, or -1. */
static int find_keep(const xgrid *g, int r, const int64_t *m, int n)
{
    for (unsigned keep = (1u << g->nd) - 1;; keep--) {
        if (grid_sub_size(g, keep) == n) {
            int ok = 1;
            for (int i = 0; i < n && ok; i++)
                ok = m[i] == grid_sub_member(g, keep, r, i);
            if (ok)
                return (int)keep;
        }
        if (keep == 0)
            break;
    }
    return -1;
}

static int members_count(const mc_event *e)
{
    return e->peer2 > 0 && (uint32_t)e->peer2 <= e->nvals ? e->peer2 : (int)e->nvals;
}

/* Do all comm creations of all traces form sub-grids of dims_create(P, nd)? */
static int splits_fit(build *b, int nd)
{
    for (int k = 0; k < b->x->ntraces; k++) {
        xgrid g = {.nd = nd, .P = b->x->tP[k]};
        mc_extrap_dims_create(g.P, nd, g.dims);
        for (int r = 0; r < g.P; r++)
            for (uint32_t i = 0; i < b->raw[k][r].n; i++) {
                const mc_event *e = &b->raw[k][r].ev[i];
                if (!is_creation(e->op) || e->newcomm == MC_COMM_NULL || !e->nvals)
                    continue;
                if (find_keep(&g, r, e->vals, members_count(e)) < 0)
                    return 0;
            }
    }
    return 1;
}

static mc_err find_grid(build *b, mc_error *err)
{
    mc_extrap *x = b->x;
    const mc_extrap_rules *ru = &x->rules;
    int big = 0;
    for (int k = 1; k < x->ntraces; k++)
        if (x->tP[k] > x->tP[big])
            big = k;
    const mc_event *cart = find_cart(&b->raw[big][0]);
    int nd = 1, periodic[MAXD] = {1, 1, 1, 1};
    if (ru->replicate) {
        snprintf(x->grid_source, sizeof x->grid_source, "replicate (every rank like rank %d)",
                 ru->rep);
    } else if (cart) {
        int n = cart->peer2;
        nd = (int)cart->vals[n];
        if (nd < 1 || nd > MAXD || (uint32_t)(n + 1 + 2 * nd) > cart->nvals)
            return mc_error_set(err, MC_ERR_USAGE, "%s: rank 0: MPI_Cart_create with %d "
                                "dimensions: at most %d are extrapolated", x->paths[big], nd,
                                MAXD);
        for (int d = 0; d < nd; d++)
            periodic[d] = cart->vals[n + 1 + nd + d] != 0;
        snprintf(x->grid_source, sizeof x->grid_source, "MPI_Cart_create (%d-D)", nd);
    } else if (has_split(b)) {
        nd = 0;
        for (int t = 2; t <= MAXD && !nd; t++)
            if (splits_fit(b, t))
                nd = t;
        if (!nd)
            return mc_error_set(err, MC_ERR_USAGE, "%s: the communicators created by "
                                "Comm_split/Cart_sub/Comm_create are not rows, columns or "
                                "planes of an MPI_Dims_create grid: their pattern is not "
                                "explained", x->paths[big]);
        snprintf(x->grid_source, sizeof x->grid_source,
                 "MPI_Dims_create(P, %d) (rows/columns of the created communicators)", nd);
    } else {
        snprintf(x->grid_source, sizeof x->grid_source, "1-D ring of the ranks");
    }
    if (ru->ndims && !ru->replicate) {
        if (cart && ru->ndims != nd)
            return mc_error_set(err, MC_ERR_USAGE, "grid: %d dimensions given, but the "
                                "trace's MPI_Cart_create has %d", ru->ndims, nd);
        nd = ru->ndims;
    }
    for (int d = 0; d < nd; d++)
        if (ru->periods[d] >= 0)
            periodic[d] = ru->periods[d];
    x->nd = nd;
    memcpy(x->periodic, periodic, sizeof periodic);
    x->from_dims_create = 1;
    for (int k = 0; k < x->ntraces; k++) {
        xgrid *g = &x->tgrid[k];
        memset(g, 0, sizeof *g);
        g->nd = nd;
        g->P = x->tP[k];
        for (int d = 0; d < nd; d++)
            g->wrap[d] = periodic[d];
        mc_extrap_dims_create(g->P, nd, g->dims);
        const mc_event *c = cart ? find_cart(&b->raw[k][0]) : NULL;
        if (c && !ru->replicate) {
            int n = c->peer2;
            if ((int)c->vals[n] != nd)
                return mc_error_set(err, MC_ERR_USAGE, "%s: MPI_Cart_create has %d dimensions, "
                                    "%d in %s", x->paths[k], (int)c->vals[n], nd,
                                    x->paths[big]);
            for (int d = 0; d < nd; d++) {
                if (g->dims[d] != (int)c->vals[n + 1 + d])
                    x->from_dims_create = 0;
                g->dims[d] = (int)c->vals[n + 1 + d];
            }
        }
        long prod = 1;
        for (int d = 0; d < nd; d++) {
            if (g->dims[d] < 1 || g->dims[d] > g->P)
                return mc_error_set(err, MC_ERR_FORMAT, "%s: MPI_Cart_create dimension %d has "
                                    "%d ranks", x->paths[k], d, g->dims[d]);
            prod *= g->dims[d];
        }
        if (prod != g->P)
            return mc_error_set(err, MC_ERR_USAGE, "%s: the process grid has %ld ranks, the "
                                "trace %d", x->paths[k], prod, g->P);
    }
    return MC_OK;
}

/* ------------------------------------------------------------ abstraction */

static pcand peer_cand(const xgrid *g, int r, int32_t q)
{
    pcand p;
    memset(&p, 0, sizeof p);
    p.lit = q;
    p.isrank = q >= 0 && q < g->P;
    if (!p.isrank)
        return p;
    p.xr = r ^ q;
    int cr[MAXD], cq[MAXD];
    grid_coords(g, r, cr);
    grid_coords(g, q, cq);
    for (int d = 0; d < g->nd; d++) {
        int n = g->dims[d], o = cq[d] - cr[d];
        if (g->wrap[d]) {
            o = ((o % n) + n) % n;
            if (2 * o > n)
                o -= n;
            if (n % 2 == 0 && 2 * o == n) {
                p.amb = 1;
                p.ambd |= 1u << d;
            }
        }
        p.rel[d] = o;
        if (o > 1 || o < -1)
            p.far = 1;
    }
    return p;
}

typedef struct commmap {
    uint64_t *id;
    int *cd;
    int n, cap;
} commmap;

static int cd_intern(mc_extrap *x, const cdesc *c)
{
    for (int i = 0; i < x->ncd; i++)
        if (x->cd[i].kind == c->kind && x->cd[i].keep == c->keep && x->cd[i].seq == c->seq)
            return i;
    cdesc *a = realloc(x->cd, (size_t)(x->ncd + 1) * sizeof *a);
    if (!a)
        return -1;
    x->cd = a;
    x->cd[x->ncd] = *c;
    return x->ncd++;
}

static int cm_find(const commmap *m, uint64_t id)
{
    for (int i = m->n - 1; i >= 0; i--)
        if (m->id[i] == id)
            return m->cd[i];
    return -1;
}

static int cm_add(commmap *m, uint64_t id, int cd)
{
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        uint64_t *a = realloc(m->id, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        m->id = a;
        int *c = realloc(m->cd, (size_t)cap * sizeof *c);
        if (!c)
            return -1;
        m->cd = c;
        m->cap = cap;
    }
    m->id[m->n] = id;
    m->cd[m->n++] = cd;
    return 0;
}

static int comm_of(mc_extrap *x, const commmap *m, uint64_t id, int r)
{
    if (id == MC_COMM_WORLD) {
        cdesc c = {CD_WORLD, 0, 0};
        return cd_intern(x, &c);
    }
    if (id == (MC_COMM_SELF_BASE | (uint32_t)r)) {
        cdesc c = {CD_SELF, 0, 0};
        return cd_intern(x, &c);
    }
    return cm_find(m, id);
}

#define FAIL(...) return (mc_error_set(err, MC_ERR_USAGE, __VA_ARGS__), -1)

/* A per-rank-count collective (Alltoallv, Gatherv, ...): its vals are one or
 * two arrays (send, receive) of a count per comm rank. Only arrays whose
 * counts are all equal are extrapolated: one value per array, which scales
 * like the op's fixed-count form; the arrays are regenerated at the new
 * comm size. Sets t->varr and leaves t->e.vals empty. */
static int vcoll_arrays(const mc_extrap *x, const xgrid *g, const char *path, int r,
                        uint32_t i, const mc_event *e, tev *t, mc_error *err)
{
    int c = cdesc_size(&x->cd[t->comm], g);
    const char *op = mc_op_name(e->op);
    if (c <= 0 || e->nvals % (uint32_t)c || e->nvals / (uint32_t)c > 2)
        FAIL("%s: rank %d event %u: %s: %u counts for a communicator of %d ranks: not "
             "explained", path, r, i, op, e->nvals, c);
    t->varr = e->nvals / (uint32_t)c;
    for (uint32_t a = 0; a < t->varr; a++) {
        const int64_t *v = e->vals + a * (uint32_t)c;
        for (int k = 1; k < c; k++)
            if (v[k] != v[0])
                FAIL("%s: rank %d event %u: %s: per-rank counts differ (array %u of %u: "
                     "comm rank %d %lld bytes, comm rank 0 %lld): only equal counts are "
                     "extrapolated", path, r, i, op, a + 1, t->varr, k, (long long)v[k],
                     (long long)v[0]);
    }
    t->e.nvals = 0;
    return 0;
}

/* Abstracts event e of rank r into a; registers created communicators. */
static int abstract_event(build *b, int k, int r, uint32_t i, const mc_event *e, commmap *cm,
                          aev *a, mc_error *err)
{
    mc_extrap *x = b->x;
    const xgrid *g = &x->tgrid[k];
    const char *path = x->paths[k];
    memset(a, 0, sizeof *a);
    tev *t = &a->t;
    t->e = *e;
    t->e.vals = NULL;
    t->newcomm = -1;
    t->loop = (uint8_t)extrap_fold_tag(b->folds ? &b->folds[k] : NULL, r, i);
    if (e->op < 0 || e->op >= MC_OP_COUNT)
        FAIL("%s: rank %d event %u: unknown operation %d", path, r, i, e->op);
    if (e->op == MC_OP_GRAPH_CREATE || e->op == MC_OP_DIST_GRAPH_CREATE_ADJACENT ||
        e->op == MC_OP_INTERCOMM_CREATE)
        FAIL("%s: rank %d event %u: %s: only Cartesian, split and created sub-grid "
             "communicators are extrapolated", path, r, i, mc_op_name(e->op));
    if (e->nvals && !is_vcoll(e->op)) {
        t->e.vals = malloc(e->nvals * sizeof *e->vals);
        if (!t->e.vals)
            FAIL("out of memory");
        memcpy(t->e.vals, e->vals, e->nvals * sizeof *e->vals);
    }
    t->comm = comm_of(x, cm, e->comm, r);
    if (t->comm < 0)
        FAIL("%s: rank %d event %u: %s on communicator %llx, which no traced call created: "
             "not extrapolated", path, r, i, mc_op_name(e->op), (unsigned long long)e->comm);
    mc_op_kind kind = mc_op_kind_of(e->op);
    int wait = is_completion(e->op);
    if (wait && e->nvals % 4)
        FAIL("%s: rank %d event %u: %s with %u values", path, r, i, mc_op_name(e->op),
             e->nvals);
    uint32_t nreq = wait ? e->nvals / 4 : 0;
    if (is_vcoll(e->op) && vcoll_arrays(x, g, path, r, i, e, t, err))
        return -1;
    t->npeer = 2 + nreq;
    t->nnum = 2 + nreq + t->varr;
    t->peer = calloc(t->npeer, sizeof *t->peer);
    a->pc = calloc(t->npeer, sizeof *a->pc);
    t->num = calloc(t->nnum, sizeof *t->num);
    t->law = calloc(t->nnum, 1);
    t->sclass = calloc(t->nnum, 1);
    t->alt = calloc(t->nnum, sizeof *t->alt);
    if (!t->peer || !a->pc || !t->num || !t->law || !t->sclass || !t->alt)
        FAIL("out of memory");
    t->csize = cdesc_size(&x->cd[t->comm], g);
    for (uint32_t s = 0; s < t->npeer; s++) {
        a->pc[s].lit = s == 0 ? e->peer : s == 1 ? e->peer2 : (int32_t)e->vals[4 * (s - 2) + 1];
        t->peer[s].kind = PD_LIT;
        t->peer[s].v[0] = a->pc[s].lit;
        t->peer[s].xk = -1;
    }
    t->num[0] = e->bytes;
    t->num[1] = e->bytes2;
    for (uint32_t q = 0; q < nreq; q++)
        t->num[2 + q] = e->vals[4 * q + 3];
    for (uint32_t q = 0; q < t->varr; q++)
        t->num[2 + q] = e->vals[q * (e->nvals / t->varr)];
    int sc = kind == MC_KIND_C ? coll_sizeclass(e->op)
             : e->op == MC_OP_COMPUTE ? MC_SC_COMPUTE : MC_SC_P2P;
    for (uint32_t s = 0; s < t->nnum; s++)
        t->sclass[s] = (uint8_t)sc;
    if (kind == MC_KIND_P) {
        a->pc[0] = peer_cand(g, r, e->peer);
        if (has_peer2(e->op))
            a->pc[1] = peer_cand(g, r, e->peer2);
    } else if (kind == MC_KIND_C) {
        if (e->peer >= 0) {
            const cdesc *c = &x->cd[t->comm];
            int size = cdesc_size(c, g), kr = -1;
            for (int m = 0; m < size && kr < 0; m++)
                if (cdesc_member(c, g, r, m) == e->peer)
                    kr = m;
            if (kr < 0)
                FAIL("%s: rank %d event %u: %s root %d is not a member of the communicator",
                     path, r, i, mc_op_name(e->op), e->peer);
            t->peer[0].kind = kr == size - 1 && size > 1 ? PD_CROOT_END : PD_CROOT;
            t->peer[0].v[0] = kr == size - 1 && size > 1 ? 0 : kr;
        }
        t->peer[1].kind = PD_COMMSIZE;
    } else if (wait) {
        for (uint32_t q = 0; q < nreq; q++)
            a->pc[2 + q] = peer_cand(g, r, (int32_t)e->vals[4 * q + 1]);
    } else if (is_creation(e->op)) {
        if (e->newcomm != MC_COMM_NULL && e->nvals) {
            int n = members_count(e);
            int keep = find_keep(g, r, e->vals, n);
            if (keep < 0)
                FAIL("%s: rank %d event %u: %s: the new communicator's members are not a row, "
                     "column or plane of the %d-D process grid: not explained", path, r, i,
                     mc_op_name(e->op), g->nd);
            if ((e->newcomm & 0xffffffffull) != (uint64_t)grid_sub_lowest(g, (unsigned)keep, r))
                FAIL("%s: rank %d event %u: %s: communicator id %llx does not name its lowest "
                     "member", path, r, i, mc_op_name(e->op), (unsigned long long)e->newcomm);
            cdesc c = {CD_GRID, (unsigned)keep, (uint32_t)(e->newcomm >> 32)};
            t->newcomm = cd_intern(x, &c);
            if (t->newcomm < 0 || cm_add(cm, e->newcomm, t->newcomm))
                FAIL("out of memory");
            t->cart = e->op == MC_OP_CART_CREATE || e->op == MC_OP_CART_SUB;
            t->peer[1].kind = PD_COMMSIZE; /* member count, regenerated */
            if (e->op == MC_OP_COMM_SPLIT) {
                a->colmask = 1u << SK_LIT;
                if (e->tag == grid_fixed_index(g, (unsigned)keep, r))
                    a->colmask |= 1u << SK_FIXED_INDEX;
                a->keymask = 1u << SK_LIT;
                if (e->bytes == grid_sub_index(g, (unsigned)keep, r))
                    a->keymask |= 1u << SK_KEPT_INDEX;
                if (e->bytes == r)
                    a->keymask |= 1u << SK_WORLD_RANK;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ classes */

static void class_str(const mc_extrap *x, int cls, char *buf, size_t len)
{
    char n[64];
    if (cls == ORIGIN) {
        snprintf(buf, len, "class (rank 0)");
        return;
    }
    class_name(x->nd, cls, n, sizeof n);
    snprintf(buf, len, "class (%s)", n);
}

/* Decides peer slot s of event i over the class members. */
#define AMBIGUOUS                                                                         \
    "the peer offset is ambiguous on a periodic dimension with an even number of ranks "     \
    "(+n/2 = -n/2): trace a run with at least 3 (and an odd number of) ranks along each "    \
    "periodic dimension"

static int decide_peer(build *b, int k, const int *mem, int nm, uint32_t i, uint32_t s,
                       pdesc *out, const char *cname, mc_error *err)
{
    const mc_extrap *x = b->x;
    const pcand *p0 = &b->abs[k][mem[0]][i].pc[s];
    if (b->abs[k][mem[0]][i].t.peer[s].kind != PD_LIT)
        return 0; /* decided at abstraction (roots, comm sizes) */
    int all_rank = 1, any_rank = 0, rel_eq = 1, lit_eq = 1, amb = 0, xor_eq = 1;
    uint32_t ambd = 0;
    for (int j = 0; j < nm; j++) {
        const pcand *p = &b->abs[k][mem[j]][i].pc[s];
        all_rank &= p->isrank;
        any_rank |= p->isrank;
        amb |= p->amb;
        ambd |= p->ambd;
        lit_eq &= p->lit == p0->lit;
        rel_eq &= memcmp(p->rel, p0->rel, sizeof p->rel) == 0;
        xor_eq &= p->xr == p0->xr;
    }
    /* rank XOR 2^k on every member */
    int xk = all_rank && xor_eq && p0->xr > 0 && (p0->xr & (p0->xr - 1)) == 0
                 ? __builtin_ctz((unsigned)p0->xr) : -1;
    out->xk = xk;
    const char *op = mc_op_name(b->abs[k][mem[0]][i].t.e.op);
    if (!all_rank) {
        if (any_rank || !lit_eq)
            FAIL("%s: %s, event %u (%s): the peer is a rank on some members and none on "
                 "others (%d on rank %d): pattern not explained", x->paths[k], cname, i, op,
                 p0->lit, mem[0]);
        out->kind = PD_LIT;
        out->v[0] = p0->lit;
        return 0;
    }
    int use_rel = nm > 1 ? rel_eq : !p0->far;
    if (!use_rel && !lit_eq && rel_eq)
        use_rel = 1;
    /* Members at different offsets, or at +n/2 on a periodic dimension of n
     * (= -n/2), that all talk to their rank XOR 2^k. One trace cannot tell
     * this from other rules (rank + P/2 is rank XOR P/2 at that P only): it
     * takes two process counts, or the model of several (a rebuild). */
    if (xk >= 0 && nm > 1 && (!use_rel || amb) && !lit_eq) {
        if (x->ntraces < 2 && !b->inherit)
            FAIL("%s: %s, event %u (%s): every member talks to its rank XOR %d, which one "
                 "trace cannot tell from other rules (rank + P/2): trace a second process "
                 "count", x->paths[k], cname, i, op, 1 << xk);
        out->kind = PD_XOR;
        memset(out->v, 0, sizeof out->v);
        out->v[0] = xk;
        return 0;
    }
    /* NPB CG's transpose exchange on its nprows x npcols grid (P = 2^k) */
    int tr_eq = nm > 1 && !lit_eq && (!use_rel || amb);
    for (int j = 0; tr_eq && j < nm; j++)
        tr_eq = b->abs[k][mem[j]][i].pc[s].lit == extrap_npb_transpose(mem[j], x->tP[k]);
    if (tr_eq) {
        if (x->ntraces < 2 && !b->inherit)
            FAIL("%s: %s, event %u (%s): the members talk to their transpose on NPB CG's "
                 "process grid, whose shape one trace cannot tell from other grids: trace a "
                 "second process count", x->paths[k], cname, i, op);
        out->kind = PD_NPB_TRANSPOSE;
        memset(out->v, 0, sizeof out->v);
        return 0;
    }
    if (use_rel && amb && x->ntraces < 2 && !b->inherit)
        FAIL("%s: %s, event %u (%s): %s", x->paths[k], cname, i, op, AMBIGUOUS);
    if (use_rel) {
        out->kind = PD_REL;
        memcpy(out->v, p0->rel, sizeof out->v);
        out->amb = amb ? ambd : 0; /* another trace decides (resolve_ambiguous) */
    } else if (lit_eq) {
        int P = x->tP[k];
        out->kind = 2 * p0->lit > P ? PD_ABS_END : PD_ABS;
        out->v[0] = 2 * p0->lit > P ? P - 1 - p0->lit : p0->lit;
    } else {
        FAIL("%s: %s, event %u (%s): members talk to peers that are neither at one grid "
             "offset nor one fixed rank (rank %d -> %d, rank %d -> %d): pattern not explained",
             x->paths[k], cname, i, op, mem[0], p0->lit, mem[nm - 1],
             b->abs[k][mem[nm - 1]][i].pc[s].lit);
    }
    return 0;
}

static int pick_sk(unsigned mask, const int *pref, int npref)
{
    for (int i = 0; i < npref; i++)
        if (mask & (1u << pref[i]))
            return pref[i];
    return -1;
}

/* Literal parts two members of a class must share. */
static int same_literal(const tev *a, const tev *b, int split)
{
    const mc_event *x = &a->e, *y = &b->e;
    if (x->op != y->op || x->site != y->site || x->tag2 != y->tag2 || x->req != y->req ||
        a->comm != b->comm || a->newcomm != b->newcomm || x->nvals != y->nvals ||
        a->loop != b->loop)
        return 0;
    if (!split && (x->tag != y->tag || x->bytes != y->bytes))
        return 0;
    for (uint32_t s = 1; s < a->nnum; s++)
        if (a->num[s] != b->num[s])
            return 0;
    if (!is_completion(x->op) && !is_creation(x->op))
        for (uint32_t v = 0; v < x->nvals; v++)
            if (x->vals[v] != y->vals[v])
                return 0;
    if (is_completion(x->op))
        for (uint32_t v = 0; v < x->nvals; v += 4)
            if (x->vals[v] != y->vals[v] || x->vals[v + 2] != y->vals[v + 2])
                return 0;
    return 1;
}

/* Builds the template of class cls of trace k from its members. */
static int build_class(build *b, int k, int cls, const int *mem, int nm, xclass *out,
                       mc_error *err)
{
    mc_extrap *x = b->x;
    char cname[96];
    class_str(x, cls, cname, sizeof cname);
    const rawrank *r0 = &b->raw[k][mem[0]];
    const xfold *f = b->folds && b->folds[k].dir[0] ? &b->folds[k] : NULL;
    for (int j = 1; f && j < nm; j++)
        if (f->rank[mem[j]].iterations != f->rank[mem[0]].iterations ||
            f->rank[mem[j]].first != f->rank[mem[0]].first)
            FAIL("%s: %s: rank %d's main loop runs %llu iterations from event %llu, rank %d's "
                 "%llu from event %llu: the ranks of one position class differ, so their "
                 "loops cannot be folded alike", x->paths[k], cname, mem[0],
                 (unsigned long long)f->rank[mem[0]].iterations,
                 (unsigned long long)f->rank[mem[0]].first, mem[j],
                 (unsigned long long)f->rank[mem[j]].iterations,
                 (unsigned long long)f->rank[mem[j]].first);
    for (int j = 1; j < nm; j++)
        if (b->raw[k][mem[j]].n != r0->n)
            FAIL("%s: %s: rank %d has %u events, rank %d has %u: the ranks of one position "
                 "class behave differently (data-dependent pattern?): not explained",
                 x->paths[k], cname, mem[0], r0->n, mem[j], b->raw[k][mem[j]].n);
    aev *A = b->abs[k][mem[0]];
    for (uint32_t i = 0; i < r0->n; i++) {
        int split = A[i].t.e.op == MC_OP_COMM_SPLIT;
        for (int j = 1; j < nm; j++)
            if (!same_literal(&A[i].t, &b->abs[k][mem[j]][i].t, split))
                FAIL("%s: %s, event %u: rank %d calls %s, rank %d calls %s with other "
                     "arguments (tag, size, communicator or site): not explained",
                     x->paths[k], cname, i, mem[0], mc_op_name(A[i].t.e.op), mem[j],
                     mc_op_name(b->abs[k][mem[j]][i].t.e.op));
        for (uint32_t s = 0; s < A[i].t.npeer; s++)
            if (decide_peer(b, k, mem, nm, i, s, &A[i].t.peer[s], cname, err))
                return -1;
        if (split && A[i].t.newcomm >= 0) {
            unsigned cm = ~0u, km = ~0u;
            for (int j = 0; j < nm; j++) {
                cm &= b->abs[k][mem[j]][i].colmask;
                km &= b->abs[k][mem[j]][i].keymask;
            }
            static const int cpref[] = {SK_FIXED_INDEX, SK_LIT};
            static const int kpref[] = {SK_KEPT_INDEX, SK_WORLD_RANK, SK_LIT};
            A[i].t.color = pick_sk(cm, cpref, 2);
            A[i].t.key = pick_sk(km, kpref, 3);
            if (A[i].t.color < 0 || A[i].t.key < 0)
                FAIL("%s: %s, event %u (Comm_split): colour or key is neither a constant nor "
                     "a grid index: not explained", x->paths[k], cname, i);
        }
    }
    /* Move the representative's abstract events into the template. */
    out->present = 1;
    out->trace = k;
    out->rank = mem[0];
    out->nmembers = nm;
    out->loop_n = f && f->rank[mem[0]].iterations >= 2 ? f->rank[mem[0]].iterations : 0;
    out->n = r0->n;
    out->ev = calloc(r0->n ? r0->n : 1, sizeof *out->ev);
    if (!out->ev)
        FAIL("out of memory");
    for (uint32_t i = 0; i < r0->n; i++)
        if (tev_copy(&out->ev[i], &A[i].t))
            FAIL("out of memory");
    return 0;
}

/* ------------------------------------------------------------ laws */

static int law_fits(int law, const double *v, const double *P, const double *c, int n, int d)
{
    double a = v[0] / law_f(law, P[0], c[0], d);
    for (int i = 0; i < n; i++) {
        double want = a * law_f(law, P[i], c[i], d);
        if (fabs(want - v[i]) > 0.5 + 1e-9 * fabs(v[i]))
            return 0;
    }
    return 1;
}

static int default_law(const mc_extrap_rules *ru, int sc)
{
    if (ru->law[sc] != MC_LAW_AUTO)
        return ru->law[sc];
    static const int weak[MC_SC_COUNT] = {MC_LAW_CONST, MC_LAW_CONST, MC_LAW_INV_COMM,
                                          MC_LAW_CONST};
    static const int strong[MC_SC_COUNT] = {MC_LAW_SURFACE, MC_LAW_CONST,
                                            MC_LAW_VOLUME_PER_COMM, MC_LAW_VOLUME};
    return ru->strong ? strong[sc] : weak[sc];
}

/* The law the model of every trace chose for slot s of event i, when this
 * class's template is that model's event for event (op, site, slots). */
static int inherited_law(const xclass *I, const xclass *R, uint32_t i, uint32_t s)
{
    if (!I || I->n != R->n)
        return 0;
    const tev *a = &I->ev[i], *c = &R->ev[i];
    return a->e.op == c->e.op && a->e.site == c->e.site && a->nnum == c->nnum && s < a->nnum;
}

/* One block of a rebuilt class C (BC), its model's (BI of I). */
static void inherit_block_steps(const xrep *BI, const xclass *I, const xrep *BC, xclass *C)
{
    if (!C->present || BC->len != BI->len)
        return;
    uint32_t nr = BC->nruns >= 2 ? BC->nruns : 1;
    for (uint32_t j = 0; j < nr; j++) {
        uint32_t at = BC->nruns >= 2 ? BC->run[j] : BC->start;
        for (uint32_t i = 0; i < BC->len && at + i < C->n && BI->start + i < I->n; i++) {
            const tev *a = &I->ev[BI->start + i];
            tev *t = &C->ev[at + i];
            for (uint32_t s = 0; s < t->npeer && s < a->npeer; s++) {
                pdesc *p = &t->peer[s];
                if (a->peer[s].kind != PD_XOR || !a->peer[s].v[1] || p->xk < 0)
                    continue;
                memset(p->v, 0, sizeof p->v);
                p->kind = PD_XOR;
                p->v[0] = p->xk;
                p->v[1] = a->peer[s].v[1];
            }
            if (a->tmask && !t->tmask) { /* tags: one copy kept its own */
                t->tdir = a->tdir;
                t->tmask = a->tmask;
            }
            if (a->smask && !t->smask) { /* sizes likewise */
                t->sdir = a->sdir;
                t->smask = a->smask;
            }
        }
    }
}

/* A rebuild whose traces hold one copy of a repeated block cannot see a
 * partner rank XOR 2^(k0 + copy) advance from copy to copy; the model of
 * every trace saw it, and like the block itself it is taken as stated: the
 * slots it marks become that rule (k0 from the copy's own partner), in every
 * run's copy. A partner that is not XOR 2^k0 stays, and the check reports it. */
static void inherit_xor_steps(const xclass *I, xclass *per, int ntraces)
{
    for (int k = 0; k < ntraces; k++)
        for (int b = 0; b < per[k].nrep && b < I->nrep; b++)
            inherit_block_steps(&I->rep[b], I, &per[k].rep[b], &per[k]);
}

/* Offsets a and b are the same peers on grid g's dimensions `dims` (mod n). */
static int same_mod(const xgrid *g, uint32_t dims, const int32_t *a, const int32_t *b)
{
    for (int d = 0; d < g->nd; d++) {
        int n = g->dims[d];
        if ((dims >> d & 1u) ? (((a[d] - b[d]) % n) + n) % n != 0 : a[d] != b[d])
            return 0;
    }
    return 1;
}

/* A peer offset that is ambiguous in one trace (n/2 of a periodic dimension
 * of even n: 2x2x2 runs) is taken from a trace where it is not (or, in a
 * rebuild, from the model of every trace), if that offset gives the same
 * peers in the ambiguous trace; refused when no trace decides it. */
static int resolve_ambiguous(build *b, xclass *per, int rep, const xclass *I, const char *cname,
                             mc_error *err)
{
    mc_extrap *x = b->x;
    xclass *R = &per[rep];
    for (uint32_t i = 0; i < R->n; i++)
        for (uint32_t s = 0; s < R->ev[i].npeer; s++) {
            const pdesc *good = NULL;
            for (int k = 0; k < x->ntraces && !good; k++) {
                const pdesc *q = per[k].present && per[k].n == R->n &&
                                         s < per[k].ev[i].npeer ? &per[k].ev[i].peer[s] : NULL;
                if (q && q->kind == PD_REL && !q->amb)
                    good = q;
            }
            if (!good && I && i < I->n && s < I->ev[i].npeer && I->ev[i].peer[s].kind == PD_REL)
                good = &I->ev[i].peer[s];
            for (int k = 0; k < x->ntraces; k++) {
                pdesc *q = per[k].present && per[k].n == R->n && s < per[k].ev[i].npeer
                               ? &per[k].ev[i].peer[s] : NULL;
                if (!q || q->kind != PD_REL || !q->amb)
                    continue;
                if (!good)
                    FAIL("%s: %s, event %u (%s): %s", x->paths[k], cname, i,
                         mc_op_name(per[k].ev[i].e.op), AMBIGUOUS);
                if (same_mod(&x->tgrid[k], q->amb, q->v, good->v)) {
                    memcpy(q->v, good->v, sizeof q->v);
                    q->amb = 0;
                }
            }
        }
    return 0;
}

/* Same class in several traces: same events; fit every size. */
static int merge_class(build *b, int cls, xclass *per, mc_error *err)
{
    mc_extrap *x = b->x;
    char cname[96];
    class_str(x, cls, cname, sizeof cname);
    int rep = -1, ntr = 0;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present) {
            ntr++;
            if (rep < 0 || x->tP[k] > x->tP[rep])
                rep = k;
        }
    if (rep < 0)
        return 0;
    xclass *R = &per[rep];
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && per[k].loop_n != R->loop_n)
            FAIL("%s: the main loop runs %llu iterations at P=%d, %llu at P=%d: a folded loop "
                 "is extrapolated only with the same count in every trace (trace runs of "
                 "equal iterations)", cname, (unsigned long long)per[k].loop_n, x->tP[k],
                 (unsigned long long)R->loop_n, x->tP[rep]);
    if (x->rules.nrepeat && extrap_stated_repetition(x, per, cname, err))
        return -1;
    const xclass *I = b->inherit && b->inherit->cls[cls].present ? &b->inherit->cls[cls] : NULL;
    int inherit = I && !R->nrep; /* the model's blocks, in the order they were found */
    for (int j = 0; inherit && j < I->nrep; j++)
        if (extrap_apply_repetition(x, per, I->rep[j].found_at, I->rep[j].len, I->rep[j].law,
                                    I->rep[j].nruns > 1, cname, err))
            return -1;
    if (I && I->nrep && R->nrep)
        inherit_xor_steps(I, per, x->ntraces);
    /* Blocks repeated as often as P says, one after the other, until the
     * traces' templates are alike (NPB CG: the sum's steps, then the dot
     * product's), unless stated or inherited. */
    for (int found = !R->nrep; found;) {
        int differ = 0;
        for (int k = 0; k < x->ntraces; k++)
            differ |= per[k].present && per[k].n != R->n;
        if (!differ)
            break;
        if (extrap_find_repetition(x, cls, per, cname, err))
            return -1;
    }
    if (resolve_ambiguous(b, per, rep, I, cname, err))
        return -1;
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present || k == rep)
            continue;
        if (per[k].n != R->n)
            FAIL("%s: %d events at P=%d, %d at P=%d: repetition counts that vary with P are "
                 "not explained (state the run's events per class, or trace runs with equal "
                 "iterations)", cname, per[k].n, x->tP[k], R->n, x->tP[rep]);
        for (uint32_t i = 0; i < R->n; i++) {
            const tev *a = &per[k].ev[i], *c = &R->ev[i];
            int same = a->e.op == c->e.op && a->e.site == c->e.site && a->comm == c->comm &&
                       a->newcomm == c->newcomm && a->e.tag2 == c->e.tag2 &&
                       (a->e.op == MC_OP_COMM_SPLIT || a->e.tag == c->e.tag) &&
                       a->npeer == c->npeer && a->nnum == c->nnum && a->color == c->color &&
                       a->key == c->key && a->loop == c->loop && a->tdir == c->tdir &&
                       a->tmask == c->tmask && a->sdir == c->sdir && a->smask == c->smask;
            for (uint32_t s = 0; same && s < a->npeer; s++)
                same = a->peer[s].kind == c->peer[s].kind &&
                       (a->peer[s].kind == PD_COMMSIZE ||
                        memcmp(a->peer[s].v, c->peer[s].v, sizeof a->peer[s].v) == 0);
            if (!same)
                FAIL("%s, event %u: %s at P=%d, %s at P=%d with another peer, tag or "
                     "communicator: the change with P is not explained", cname, i,
                     mc_op_name(a->e.op), x->tP[k], mc_op_name(c->e.op), x->tP[rep]);
        }
    }
    for (uint32_t i = 0; i < R->n; i++) {
        tev *t = &R->ev[i];
        for (uint32_t s = 0; s < t->nnum; s++) {
            int sc = t->sclass[s];
            if (t->e.op == MC_OP_COMM_SPLIT || mc_op_kind_of(t->e.op) == MC_KIND_M ||
                (mc_op_kind_of(t->e.op) == MC_KIND_X && t->e.op != MC_OP_COMPUTE)) {
                t->law[s] = MC_LAW_CONST;
                continue;
            }
            if (x->rules.law[sc] == MC_LAW_AUTO && x->rules.infer && inherited_law(I, R, i, s)) {
                t->law[s] = I->ev[i].law[s];
                continue;
            }
            if (x->rules.law[sc] != MC_LAW_AUTO || ntr < 2 || !x->rules.infer) {
                t->law[s] = (uint8_t)default_law(&x->rules, sc);
                continue;
            }
            double v[64], P[64], c[64];
            int n = 0;
            for (int k = 0; k < x->ntraces && n < 64; k++)
                if (per[k].present) {
                    v[n] = (double)per[k].ev[i].num[s];
                    P[n] = x->tP[k];
                    c[n] = (double)per[k].ev[i].csize;
                    n++;
                }
            /* every law of docs/extrapolation.md; each is scaled on the
             * first trace and must reproduce every other one, which it was
             * not fitted on */
            static const int order[] = {MC_LAW_CONST, MC_LAW_P_PER_COMM, MC_LAW_INV_COMM,
                                        MC_LAW_COMM, MC_LAW_P, MC_LAW_INV_P, MC_LAW_SURFACE,
                                        MC_LAW_VOLUME, MC_LAW_VOLUME_PER_COMM, MC_LAW_LOG2P};
            int law = -1;
            for (size_t o = 0; o < sizeof order / sizeof *order; o++)
                if (law_fits(order[o], v, P, c, n, x->nd)) {
                    if (law < 0)
                        law = order[o];
                    t->alt[s] |= (uint16_t)(1u << order[o]);
                }
            if (law < 0)
                FAIL("%s, event %u (%s): %s %g at P=%g, %g at P=%g: no law (const, p/comm, "
                     "1/comm, comm, p, 1/p, surface, volume, volume/comm, log2p) fits: not explained",
                     cname, i, mc_op_name(t->e.op), extrap_slot_name(t, s), v[0],
                     P[0], v[n - 1], P[n - 1]);
            t->law[s] = (uint8_t)law;
        }
    }
    for (uint32_t i = 0; i < R->n; i++)
        R->ev[i].baseP = x->tP[rep];
    /* Report how the compute per rank changed with P (log-log slope). */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int npts = 0;
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present)
            continue;
        double tot = 0;
        for (uint32_t i = 0; i < per[k].n; i++)
            tot += per[k].ev[i].e.burst > 0 ? (double)per[k].ev[i].e.burst : 0;
        if (tot <= 0)
            continue;
        double lx = log((double)x->tP[k]), ly = log(tot);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
        npts++;
    }
    if (npts >= 2 && npts * sxx - sx * sx > 1e-12) {
        R->burst_alpha = (npts * sxy - sx * sy) / (npts * sxx - sx * sx);
        R->burst_npts = npts;
    }
    x->cls[cls] = *R;
    x->cls[cls].burst_law = default_law(&x->rules, MC_SC_COMPUTE);
    memset(R, 0, sizeof *R);
    return 0;
}

/* ------------------------------------------------------------ homogeneity */

/* Two templates of one trace alike in everything the generator uses. */
static int tmpl_equal(const xclass *ca, const xclass *cb)
{
    if (ca->n != cb->n || ca->loop_n != cb->loop_n)
        return 0;
    for (uint32_t i = 0; i < ca->n; i++) {
        const tev *a = &ca->ev[i], *b = &cb->ev[i];
        int split = a->e.op == MC_OP_COMM_SPLIT; /* colour and key per rank */
        if (!same_literal(a, b, split) || a->color != b->color || a->key != b->key ||
            a->npeer != b->npeer || a->cart != b->cart || a->tdir != b->tdir ||
            a->tmask != b->tmask || a->sdir != b->sdir || a->smask != b->smask)
            return 0;
        for (uint32_t s = 0; s < a->npeer; s++)
            if (a->peer[s].kind != b->peer[s].kind ||
                memcmp(a->peer[s].v, b->peer[s].v, sizeof a->peer[s].v) != 0)
                return 0;
        if (!split && a->num[0] != b->num[0])
            return 0;
    }
    return 1;
}

static int cat_of(int cls, int d)
{
    for (int i = 0; i < d; i++)
        cls /= NCAT;
    return cls % NCAT;
}

/* A dimension is homogeneous when, in every trace, the classes that differ
 * only by their position along it have equal templates (and some do). */
static void find_homogeneous(mc_extrap *x, xclass (*per)[NCLASSES])
{
    int ncls = 1;
    for (int d = 0; d < x->nd; d++)
        ncls *= NCAT;
    for (int d = 0; d < x->nd; d++) {
        int pairs = 0, ok = 1, mul = 1;
        for (int i = 0; i < d; i++)
            mul *= NCAT;
        for (int k = 0; k < x->ntraces && ok; k++)
            for (int a = 0; a < ncls && ok; a++) {
                if (!per[k][a].present)
                    continue;
                for (int cb = cat_of(a, d) + 1; cb < NCAT && ok; cb++) {
                    int bcls = a + (cb - cat_of(a, d)) * mul;
                    if (!per[k][bcls].present)
                        continue;
                    pairs++;
                    ok = tmpl_equal(&per[k][a], &per[k][bcls]);
                }
            }
        x->homogeneous[d] = ok && pairs > 0;
    }
}

int extrap_class_key(const mc_extrap *x, const xgrid *g, int r)
{
    if (x->rules.replicate)
        return 0;
    if (r == 0)
        return ORIGIN;
    int cls = grid_class(g, r), mul = 1, key = 0;
    for (int d = 0; d < g->nd; d++) {
        int cat = cls % NCAT;
        cls /= NCAT;
        if (x->homogeneous[d] && cat != CAT_SINGLE)
            cat = CAT_LO;
        key += cat * mul;
        mul *= NCAT;
    }
    return key;
}

int extrap_class_for(const mc_extrap *x, const xgrid *g, int r)
{
    int key = extrap_class_key(x, g, r);
    return x->cls[key].present ? key : -1;
}

/* ------------------------------------------------------------ verify */

static mc_err verify(build *b, mc_error *err)
{
    mc_extrap *x = b->x;
    genbuf vb = {0};
    mc_err rc = MC_OK;
    x->explained = 0;
    for (int k = 0; k < x->ntraces && !rc; k++) {
        const xgrid *g = &x->tgrid[k];
        tev *xev[NCLASSES] = {0};
        uint32_t xn[NCLASSES] = {0};
        int xown[NCLASSES] = {0};
        for (int c = 0; c < NCLASSES && !rc; c++)
            if (x->cls[c].present)
                rc = extrap_expand(x, &x->cls[c], g->P, &xev[c], &xn[c], &xown[c], err);
        for (int r = 0; r < g->P && !rc; r++) {
            int c = extrap_class_for(x, g, r);
            char cname[96];
            class_str(x, grid_class(g, r), cname, sizeof cname);
            const rawrank *rr = &b->raw[k][r];
            if (c < 0) {
                rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d, %s: no template", x->paths[k],
                                  r, cname);
                break;
            }
            const xclass *C = &x->cls[c];
            if (xn[c] != rr->n) {
                rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s) has %u events, its "
                                  "class template (P=%d rank %d) %u: not explained",
                                  x->paths[k], r, cname, rr->n, x->tP[C->trace], C->rank,
                                  xn[c]);
                break;
            }
            for (uint32_t i = 0; i < rr->n && !rc; i++) {
                mc_event out;
                rc = extrap_gen(x, g, r, &xev[c][i], C->burst_law, 0, &out, &vb, NULL, err);
                char why[256];
                if (!rc && !extrap_event_equal(&out, &rr->ev[i], why, sizeof why))
                    rc = mc_error_set(err, MC_ERR_USAGE, "%s: rank %d (%s, template P=%d rank "
                                      "%d) event %u (%s): %s: not explained", x->paths[k], r,
                                      cname, x->tP[C->trace], C->rank, i,
                                      mc_op_name(rr->ev[i].op), why);
                else
                    x->explained++;
            }
        }
        for (int c = 0; c < NCLASSES; c++)
            if (xown[c])
                extrap_expanded_free(xev[c], xn[c]);
    }
    free(vb.v);
    return rc;
}

/* ------------------------------------------------------------ build */

static void free_per(const mc_extrap *x, xclass (*per)[NCLASSES])
{
    for (int k = 0; per && k < x->ntraces; k++)
        for (int c = 0; c < NCLASSES; c++) {
            for (uint32_t i = 0; i < per[k][c].n; i++)
                tev_free(&per[k][c].ev[i]);
            free(per[k][c].ev);
            for (int j = 0; j < per[k][c].nrep; j++)
                free(per[k][c].rep[j].run);
            memset(&per[k][c], 0, sizeof per[k][c]);
        }
}

static void build_free(build *b)
{
    mc_extrap *x = b->x;
    for (int k = 0; b->raw && k < x->ntraces; k++) {
        for (int r = 0; b->raw[k] && r < x->tP[k]; r++) {
            rawrank *rr = &b->raw[k][r];
            if (b->abs && b->abs[k] && b->abs[k][r]) {
                for (uint32_t i = 0; i < rr->n; i++) {
                    tev_free(&b->abs[k][r][i].t);
                    free(b->abs[k][r][i].pc);
                }
                free(b->abs[k][r]);
            }
            for (uint32_t i = 0; i < rr->n; i++)
                free(rr->ev[i].vals);
            free(rr->ev);
        }
        free(b->raw[k]);
        if (b->abs)
            free(b->abs[k]);
    }
    free(b->raw);
    free(b->abs);
}

static mc_err abstract_trace(build *b, int k, mc_error *err)
{
    mc_extrap *x = b->x;
    int P = x->tP[k];
    b->abs[k] = calloc((size_t)P, sizeof **b->abs);
    if (!b->abs[k])
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (int r = 0; r < P; r++) {
        rawrank *rr = &b->raw[k][r];
        b->abs[k][r] = calloc(rr->n ? rr->n : 1, sizeof ***b->abs);
        if (!b->abs[k][r])
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        commmap cm = {0};
        int bad = 0;
        for (uint32_t i = 0; i < rr->n && !bad; i++)
            bad = abstract_event(b, k, r, i, &rr->ev[i], &cm, &b->abs[k][r][i], err);
        free(cm.id);
        free(cm.cd);
        if (bad)
            return err->code ? err->code : MC_ERR_USAGE;
    }
    return MC_OK;
}

static mc_err classify(build *b, xclass (*per)[NCLASSES], mc_error *err)
{
    mc_extrap *x = b->x;
    for (int k = 0; k < x->ntraces; k++) {
        const xgrid *g = &x->tgrid[k];
        int *members = malloc((size_t)g->P * sizeof *members);
        if (!members)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        for (int cls = 0; cls < NCLASSES; cls++) {
            int nm = 0;
            for (int r = 0; r < g->P; r++) {
                int c = extrap_class_key(x, g, r);
                if (c == cls)
                    members[nm++] = r;
            }
            if (x->rules.replicate && cls == 0 && nm) {
                /* the stated representative first; the others are not compared */
                if (x->rules.rep >= g->P) {
                    free(members);
                    return mc_error_set(err, MC_ERR_USAGE, "replicate %d: %s has %d ranks",
                                        x->rules.rep, x->paths[k], g->P);
                }
                members[0] = x->rules.rep;
                nm = 1;
            }
            if (nm && build_class(b, k, cls, members, nm, &per[k][cls], err)) {
                free(members);
                return err->code ? err->code : MC_ERR_USAGE;
            }
        }
        free(members);
    }
    return MC_OK;
}

static void explain_inference(build *b)
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
    for (int d = 0; d < x->nd; d++)
        note(b, "dimension %d: %s, %s", d,
             x->periodic[d] ? (strncmp(x->grid_source, "MPI_Cart", 8) == 0 ? "periodic"
                                                                          : "offsets wrap")
                            : "not periodic",
             x->homogeneous[d] ? "every position alike (classes merged)"
                               : "borders differ from the interior");
}

mc_extrap *extrap_build_model(const char *const *traces, int ntraces,
                              const mc_extrap_rules *rules, const mc_extrap *inherit,
                              const xfold *folds, int *fold_wanted, mc_error *err)
{
    if (ntraces < 1 || ntraces > 64) {
        mc_error_set(err, MC_ERR_USAGE, "extrapolate: give 1 to 64 traces, not %d", ntraces);
        return NULL;
    }
    mc_extrap *x = calloc(1, sizeof *x);
    build b = {.max_events = max_events_held(), .folds = folds};
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
    x->ntraces = ntraces;
    x->paths = calloc((size_t)ntraces, sizeof *x->paths);
    x->tP = calloc((size_t)ntraces, sizeof *x->tP);
    x->tgrid = calloc((size_t)ntraces, sizeof *x->tgrid);
    b.raw = calloc((size_t)ntraces, sizeof *b.raw);
    b.abs = calloc((size_t)ntraces, sizeof *b.abs);
    per = calloc((size_t)ntraces, sizeof *per);
    if (!x->paths || !x->tP || !x->tgrid || !b.raw || !b.abs || !per)
        goto nomem;
    for (int k = 0; k < ntraces; k++)
        if (!(x->paths[k] = strdup(traces[k])))
            goto nomem;
    for (int k = 0; k < ntraces; k++)
        if (read_trace(&b, k, err))
            goto fail;
    if (find_grid(&b, err))
        goto fail;
    for (int k = 0; k < ntraces; k++)
        if (abstract_trace(&b, k, err))
            goto fail;
    if (classify(&b, per, err))
        goto fail;
    find_homogeneous(x, per);
    int collapse = 0;
    for (int d = 0; d < x->nd; d++)
        collapse |= x->homogeneous[d];
    if (collapse && !x->rules.replicate) {
        /* Merge the position classes of homogeneous dimensions: one class
         * then has members (and sizes to fit) in every trace. */
        free_per(x, per);
        if (classify(&b, per, err))
            goto fail;
    }
    for (int cls = 0; cls < NCLASSES; cls++) {
        xclass tmp[64];
        int nk = ntraces < 64 ? ntraces : 64;
        for (int k = 0; k < nk; k++)
            tmp[k] = per[k][cls];
        int rc = merge_class(&b, cls, tmp, err);
        for (int k = 0; k < nk; k++) {
            if (tmp[k].present) {
                for (uint32_t i = 0; i < tmp[k].n; i++)
                    tev_free(&tmp[k].ev[i]);
                free(tmp[k].ev);
                for (int j = 0; j < tmp[k].nrep; j++)
                    free(tmp[k].rep[j].run);
            }
            memset(&per[k][cls], 0, sizeof per[k][cls]);
        }
        if (rc) {
            mc_error_prefix(err, "extrapolate");
            goto fail;
        }
    }
    if (verify(&b, err)) {
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
    for (int c = 0; c < NCLASSES; c++) {
        for (uint32_t i = 0; i < x->cls[c].n; i++)
            tev_free(&x->cls[c].ev[i]);
        free(x->cls[c].ev);
        for (int j = 0; j < x->cls[c].nrep; j++)
            free(x->cls[c].rep[j].run);
    }
    for (int k = 0; x->paths && k < x->ntraces; k++)
        free(x->paths[k]);
    free(x->paths);
    free(x->tP);
    free(x->tgrid);
    free(x->cd);
    free(x->notes);
    free(x);
}
