/* Position classes: the ranks of one trace grouped by their position on the
 * grid (lower border, interior, upper border per dimension; rank 0 apart),
 * whose members must agree event by event; the class template is then the
 * representative's abstract events with every peer decided. The dimensions
 * along which every position is alike are found here too (homogeneity), so
 * that their classes merge. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ templates */

void extrap_tev_free(tev *t)
{
    free(t->e.vals);
    free(t->peer);
    free(t->num);
    free(t->law);
    free(t->sclass);
    free(t->alt);
    free(t->fit);
    free(t->share);
    free(t->dsz);
    free(t->rd);
}

/* Deep copy (the abstract events stay for a second classification). */
int extrap_tev_copy(tev *d, const tev *s)
{
    *d = *s;
    d->e.vals = NULL;
    d->peer = NULL;
    d->num = NULL;
    d->law = NULL;
    d->sclass = NULL;
    d->alt = NULL;
    d->fit = NULL;
    d->share = NULL;
    d->dsz = NULL;
    d->rd = NULL;
    if (s->nrd && !(d->rd = malloc(s->nrd * sizeof *d->rd)))
        return -1;
    if (s->nrd)
        memcpy(d->rd, s->rd, s->nrd * sizeof *d->rd);
    if (s->dsz) {
        size_t nd = (size_t)s->dnm * s->nnum;
        if (!(d->dsz = malloc(nd * sizeof *d->dsz)))
            return -1;
        memcpy(d->dsz, s->dsz, nd * sizeof *d->dsz);
    }
    if (s->share && !(d->share = malloc(s->nnum * sizeof *d->share)))
        return -1;
    if (s->share)
        memcpy(d->share, s->share, s->nnum * sizeof *d->share);
    if (s->fit && !(d->fit = malloc(s->nnum * sizeof *d->fit)))
        return -1;
    if (s->fit)
        memcpy(d->fit, s->fit, s->nnum * sizeof *d->fit);
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

/* ------------------------------------------------------------ classes */

void extrap_class_str(const mc_extrap *x, int cls, char *buf, size_t len)
{
    char n[64];
    if (cls == ORIGIN) {
        snprintf(buf, len, "class (rank 0)");
        return;
    }
    class_name(x->nd, cls, n, sizeof n);
    snprintf(buf, len, "class (%s)", n);
}

/* For messages about event i of the representative mem[0] of trace k (formatted
 * only when one is made). */
#define OP_AT OPAT(x, k, &b->abs[k][mem[0]][i].t.e)
#define NO_AT ((unsigned long long)extrap_event_no(b, k, mem[0], i))

/* What the candidates of the members of a class have in common for one
 * peer slot. */
typedef struct psurvey {
    int all_rank, any_rank, rel_eq, lit_eq, amb, xor_eq;
    uint32_t ambd;
    int xk;      /* every member's peer is its rank XOR 2^xk, else -1 */
    int use_rel; /* a grid offset describes them */
} psurvey;

static psurvey survey_peers(const xbuild *b, int k, const int *mem, int nm, uint32_t i,
                            uint32_t s)
{
    const pcand *p0 = &b->abs[k][mem[0]][i].pc[s];
    psurvey v = {.all_rank = 1, .rel_eq = 1, .lit_eq = 1, .xor_eq = 1};
    for (int j = 0; j < nm; j++) {
        const pcand *p = &b->abs[k][mem[j]][i].pc[s];
        v.all_rank &= p->isrank;
        v.any_rank |= p->isrank;
        v.amb |= p->amb;
        v.ambd |= p->ambd;
        v.lit_eq &= p->lit == p0->lit;
        v.rel_eq &= memcmp(p->rel, p0->rel, sizeof p->rel) == 0;
        v.xor_eq &= p->xr == p0->xr;
    }
    /* rank XOR 2^k on every member */
    v.xk = v.all_rank && v.xor_eq && p0->xr > 0 && (p0->xr & (p0->xr - 1)) == 0
               ? __builtin_ctz((unsigned)p0->xr) : -1;
    v.use_rel = nm > 1 ? v.rel_eq : !p0->far;
    if (!v.use_rel && !v.lit_eq && v.rel_eq)
        v.use_rel = 1;
    return v;
}

/* Every member talks to its transpose on NPB CG's nprows x npcols grid. */
static int all_transpose(const xbuild *b, int k, const int *mem, int nm, uint32_t i, uint32_t s)
{
    for (int j = 0; j < nm; j++)
        if (b->abs[k][mem[j]][i].pc[s].lit != extrap_npb_transpose(mem[j], b->x->tP[k]))
            return 0;
    return 1;
}

/* The peer as one grid offset (an ambiguous one decided by another trace)
 * or as one fixed rank (counted from the end in the upper half). */
static int offset_or_rank(const xbuild *b, int k, const int *mem, int nm, uint32_t i,
                          uint32_t s, const psurvey *v, pdesc *out, const char *cname,
                          mc_error *err)
{
    const mc_extrap *x = b->x;
    const pcand *p0 = &b->abs[k][mem[0]][i].pc[s];
    if (v->use_rel && v->amb && x->ntraces < 2 && !b->inherit)
        FAIL("%s: %s, rank %d event %llu (%s): %s", x->paths[k], cname, mem[0], NO_AT, OP_AT,
             EXTRAP_AMBIGUOUS);
    if (v->use_rel) {
        out->kind = PD_REL;
        memcpy(out->v, p0->rel, sizeof out->v);
        out->amb = v->amb ? v->ambd : 0; /* another trace decides (resolve_ambiguous) */
    } else if (v->lit_eq) {
        int P = x->tP[k];
        out->kind = 2 * p0->lit > P ? PD_ABS_END : PD_ABS;
        out->v[0] = 2 * p0->lit > P ? P - 1 - p0->lit : p0->lit;
    } else {
        FAIL("%s: %s, rank %d event %llu (%s): members talk to peers that are neither at one "
             "grid offset nor one fixed rank (rank %d -> %d, rank %d -> %d): pattern not "
             "explained", x->paths[k], cname, mem[0], NO_AT, OP_AT, mem[0], p0->lit,
             mem[nm - 1],
             b->abs[k][mem[nm - 1]][i].pc[s].lit);
    }
    return 0;
}

/* Decides peer slot s of event i over the class members. */
static int decide_peer(xbuild *b, int k, const int *mem, int nm, uint32_t i, uint32_t s,
                       pdesc *out, const char *cname, mc_error *err)
{
    const mc_extrap *x = b->x;
    const pcand *p0 = &b->abs[k][mem[0]][i].pc[s];
    if (b->abs[k][mem[0]][i].t.peer[s].kind != PD_LIT)
        return 0; /* decided at abstraction (roots, comm sizes) */
    psurvey v = survey_peers(b, k, mem, nm, i, s);
    out->xk = v.xk;
    if (!v.all_rank) {
        if (v.any_rank || !v.lit_eq)
            FAIL("%s: %s, rank %d event %llu (%s): the peer is a rank on some members and "
                 "none on others (%d on rank %d): pattern not explained", x->paths[k], cname,
                 mem[0], NO_AT, OP_AT, p0->lit, mem[0]);
        out->kind = PD_LIT;
        out->v[0] = p0->lit;
        return 0;
    }
    /* Members at different offsets, or at +n/2 on a periodic dimension of n
     * (= -n/2), that all talk to their rank XOR 2^k. One trace cannot tell
     * this from other rules (rank + P/2 is rank XOR P/2 at that P only): it
     * takes two process counts, or the model of several (a rebuild). */
    int no_offset = nm > 1 && !v.lit_eq && (!v.use_rel || v.amb);
    if (no_offset && v.xk >= 0) {
        if (x->ntraces < 2 && !b->inherit)
            FAIL("%s: %s, rank %d event %llu (%s): every member talks to its rank XOR %d, "
                 "which one trace cannot tell from other rules (rank + P/2): trace a second "
                 "process count", x->paths[k], cname, mem[0], NO_AT, OP_AT, 1 << v.xk);
        out->kind = PD_XOR;
        memset(out->v, 0, sizeof out->v);
        out->v[0] = v.xk;
        return 0;
    }
    /* NPB CG's transpose exchange on its nprows x npcols grid (P = 2^k) */
    if (no_offset && all_transpose(b, k, mem, nm, i, s)) {
        if (x->ntraces < 2 && !b->inherit)
            FAIL("%s: %s, rank %d event %llu (%s): the members talk to their transpose on "
                 "NPB CG's process grid, whose shape one trace cannot tell from other grids: "
                 "trace a second process count", x->paths[k], cname, mem[0], NO_AT, OP_AT);
        out->kind = PD_NPB_TRANSPOSE;
        memset(out->v, 0, sizeof out->v);
        return 0;
    }
    return offset_or_rank(b, k, mem, nm, i, s, &v, out, cname, err);
}

static int pick_sk(unsigned mask, const int *pref, int npref)
{
    for (int i = 0; i < npref; i++)
        if (mask & (1u << pref[i]))
            return pref[i];
    return -1;
}

/* Literal parts two members of a class must share: 0 when they do, else 1
 * with what differs in why (may be NULL). data: sizes that may follow the
 * data (rule `sizes data`) are not compared. */
static int literal_diff(const tev *a, const tev *b, int split, int data, char *why, size_t len)
{
    const mc_event *x = &a->e, *y = &b->e;
    /* the reason is formatted only when asked: the homogeneity check compares
     * every pair of classes, most of which differ */
#define DIFF(cond, ...)                               \
    do {                                              \
        if (cond) {                                   \
            if (why)                                  \
                snprintf(why, len, __VA_ARGS__);      \
            return 1;                                 \
        }                                             \
    } while (0)
    DIFF(x->op != y->op || x->site != y->site, "operation or call site");
    DIFF(a->comm != b->comm, "communicator");
    DIFF(!split && x->tag != y->tag, "tag %d against %d", x->tag, y->tag);
    DIFF(x->tag2 != y->tag2, "receive tag %d against %d", x->tag2, y->tag2);
    DIFF(!split && !(data && extrap_data_slot(a, 0)) && x->bytes != y->bytes,
         "size %lld against %lld", (long long)x->bytes, (long long)y->bytes);
    for (uint32_t s = 1; s < a->nnum; s++)
        DIFF(!(data && extrap_data_slot(a, s)) && a->num[s] != b->num[s], "%s %lld against %lld",
             extrap_slot_name(a, s), (long long)a->num[s], (long long)b->num[s]);
    DIFF(!extrap_same_shares(a, b), "block shares");
    DIFF(x->req != y->req, "request id %u against %u", x->req, y->req);
    DIFF(a->newcomm != b->newcomm, "the communicator it creates");
    DIFF(x->nvals != y->nvals || memcmp(a->vkind, b->vkind, sizeof a->vkind) ||
             memcmp(a->own, b->own, sizeof a->own) || a->vhide != b->vhide ||
             memcmp(a->vlast, b->vlast, sizeof a->vlast) || !extrap_same_readings(a, b),
         "number or shape of values");
    DIFF(a->loop != b->loop, "place in the main loop");
    if (!extrap_is_completion(x->op) && !extrap_is_creation(x->op))
        for (uint32_t v = 0; v < x->nvals; v++)
            DIFF(x->vals[v] != y->vals[v], "value %u", v);
    if (extrap_is_completion(x->op))
        for (uint32_t v = 0; v < x->nvals; v += 4)
            DIFF(x->vals[v] != y->vals[v] || x->vals[v + 2] != y->vals[v + 2],
                 "completed request %u", v / 4);
#undef DIFF
    return 0;
}

static int same_literal(const tev *a, const tev *b, int split, int data)
{
    return !literal_diff(a, b, split, data, NULL, 0);
}

/* Where rank r's folded loop starts among the events the classes see (its
 * coarse levels taken out, depth.c): its first event tagged in the loop
 * (0 without one, as xfold_rank.first). */
static uint64_t loop_start(const xbuild *b, int k, int r)
{
    const aev *A = b->abs[k][r];
    uint32_t n = b->raw[k][r].n, i = 0;
    while (i < n && !A[i].t.loop)
        i++;
    return i < n ? i : 0;
}

/* The members of a class have as many events (and, folded, the same main
 * loop, from the same event once their coarse levels are out). */
static int members_alike(const xbuild *b, int k, const int *mem, int nm, const xfold *f,
                         const char *cname, mc_error *err)
{
    const mc_extrap *x = b->x;
    const rawrank *r0 = &b->raw[k][mem[0]];
    uint64_t start0 = f ? loop_start(b, k, mem[0]) : 0;
    for (int j = 1; f && j < nm; j++)
        if (f->rank[mem[j]].iterations != f->rank[mem[0]].iterations ||
            loop_start(b, k, mem[j]) != start0)
            FAIL("%s: %s: rank %d's main loop runs %llu iterations from event %llu, rank %d's "
                 "%llu from event %llu: the ranks of one position class differ, so their "
                 "loops cannot be folded alike", x->paths[k], cname, mem[0],
                 (unsigned long long)f->rank[mem[0]].iterations,
                 (unsigned long long)start0, mem[j],
                 (unsigned long long)f->rank[mem[j]].iterations,
                 (unsigned long long)loop_start(b, k, mem[j]));
    for (int j = 1; j < nm; j++) {
        const rawrank *rj = &b->raw[k][mem[j]];
        if (rj->n == r0->n)
            continue;
        /* where they part: the first event of another operation or site */
        uint32_t i = 0, n = rj->n < r0->n ? rj->n : r0->n;
        while (i < n && r0->ev[i].op == rj->ev[i].op && r0->ev[i].site == rj->ev[i].site)
            i++;
        const rawrank *lr = rj->n > r0->n ? rj : r0; /* the longer goes on */
        int lrank = lr == rj ? mem[j] : mem[0];
        char at[2 * EXTRAP_OP_AT_MAX + 96];
        if (i < n)
            snprintf(at, sizeof at, "they part at rank %d event %llu (%s) and rank %d event "
                     "%llu (%s)", mem[0], (unsigned long long)extrap_event_no(b, k, mem[0], i),
                     OPAT(x, k, &r0->ev[i]), mem[j],
                     (unsigned long long)extrap_event_no(b, k, mem[j], i),
                     OPAT(x, k, &rj->ev[i]));
        else
            snprintf(at, sizeof at, "rank %d goes on at event %llu (%s)", lrank,
                     (unsigned long long)extrap_event_no(b, k, lrank, i), OPAT(x, k, &lr->ev[i]));
        FAIL("%s: %s: rank %d has %u events, rank %d has %u (%s): the ranks of one position "
             "class behave differently (data-dependent pattern?): not explained",
             x->paths[k], cname, mem[0], r0->n, mem[j], rj->n, at);
    }
    return 0;
}

/* Event i of the representative (mem[0]) as the class's: its literals
 * shared by every member, its peers and Comm_split's colour and key
 * decided over them. */
static int decide_event(xbuild *b, int k, const int *mem, int nm, uint32_t i,
                        const char *cname, mc_error *err)
{
    const mc_extrap *x = b->x;
    aev *A = b->abs[k][mem[0]];
    int split = A[i].t.e.op == MC_OP_COMM_SPLIT;
    char why[96];
    int data = x->rules.data_sizes;
    for (int j = 1; j < nm; j++)
        if (literal_diff(&A[i].t, &b->abs[k][mem[j]][i].t, split, data, why, sizeof why))
            FAIL("%s: %s: rank %d event %llu (%s) and rank %d event %llu (%s) differ in %s: "
                 "not explained%s", x->paths[k], cname, mem[0],
                 (unsigned long long)extrap_event_no(b, k, mem[0], i), OPAT(x, k, &A[i].t.e),
                 mem[j], (unsigned long long)extrap_event_no(b, k, mem[j], i),
                 OPAT(x, k, &b->abs[k][mem[j]][i].t.e), why,
                 !data && extrap_data_slot(&A[i].t, 0) && strstr(why, "size")
                     ? " (sizes that follow the data, such as particles moving between "
                       "ranks, are taken from the traced ranks with --rule sizes=data)"
                     : "");
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
            FAIL("%s: %s, rank %d event %llu (%s): colour or key is neither a constant nor "
                 "a grid index: not explained", x->paths[k], cname, mem[0],
                 (unsigned long long)extrap_event_no(b, k, mem[0], i), OPAT(x, k, &A[i].t.e));
    }
    return 0;
}

/* Rule `sizes data`: the sizes that differ between the members (mem[0 ..
 * nm)) kept per member in the representative's events (tev.dsz), and the row
 * of each rank of trace k (out->dmidx, -1: none). The tiling of the traced
 * grid (gen.c) may put a target rank of this class at rank 0's place, or
 * target rank 0 beside ranks at other classes' places, and a receive takes
 * the size its sender sends: so a class also gets a row for rank 0 (a class
 * of its own), and rank 0's class one for every rank, each where it has as
 * many events (another call than the representative's leaves its row
 * the representative's). 0, or -1 out of memory. */
static int data_tables(xbuild *b, int k, int cls, const int *mem, int nm, xclass *out)
{
    int P = b->x->tP[k], nr = 0;
    uint32_t n = b->raw[k][mem[0]].n;
    int *rows = malloc((size_t)P * sizeof *rows);
    if (!rows || !(out->dmidx = malloc((size_t)P * sizeof *out->dmidx)))
        return free(rows), -1;
    for (int r = 0; r < P; r++)
        out->dmidx[r] = -1;
    for (int j = 0; j < nm; j++)
        out->dmidx[mem[j]] = nr, rows[nr++] = mem[j];
    for (int r = 0; r < P; r++)
        if ((r == 0 || cls == ORIGIN) && out->dmidx[r] < 0 && b->raw[k][r].n == n)
            out->dmidx[r] = nr, rows[nr++] = r;
    out->dnrows = nr;
    aev *A = b->abs[k][mem[0]];
    for (uint32_t i = 0; i < n; i++) {
        tev *t = &A[i].t;
        free(t->dsz); /* a first classification's, before classes merged */
        t->dsz = NULL;
        t->dmask = t->dnm = 0;
        uint32_t mask = 0;
        for (int j = 1; j < nr; j++) {
            const tev *z = &b->abs[k][rows[j]][i].t;
            if (z->e.op != t->e.op || z->e.site != t->e.site || z->nnum != t->nnum)
                continue;
            for (uint32_t s = 0; s < t->nnum && s < 32; s++)
                if (extrap_data_slot(t, s) && z->num[s] != t->num[s])
                    mask |= 1u << s;
        }
        if (!mask)
            continue;
        size_t w = t->nnum;
        if (!(t->dsz = malloc((size_t)nr * w * sizeof *t->dsz)))
            return free(rows), -1;
        for (int j = 0; j < nr; j++) {
            const tev *z = &b->abs[k][rows[j]][i].t;
            int same = z->e.op == t->e.op && z->e.site == t->e.site && z->nnum == t->nnum;
            memcpy(t->dsz + (size_t)j * w, same ? z->num : t->num, w * sizeof *t->dsz);
        }
        t->dmask = mask;
        t->dnm = (uint32_t)nr;
    }
    free(rows);
    return 0;
}

/* Builds the template of class cls of trace k from its members. */
static int build_class(xbuild *b, int k, int cls, const int *mem, int nm, xclass *out,
                       mc_error *err)
{
    mc_extrap *x = b->x;
    char cname[96];
    extrap_class_str(x, cls, cname, sizeof cname);
    const rawrank *r0 = &b->raw[k][mem[0]];
    const xfold *f = b->folds && b->folds[k].dir[0] ? &b->folds[k] : NULL;
    if (members_alike(b, k, mem, nm, f, cname, err))
        return -1;
    for (uint32_t i = 0; i < r0->n; i++)
        if (decide_event(b, k, mem, nm, i, cname, err))
            return -1;
    if (x->rules.data_sizes && data_tables(b, k, cls, mem, nm, out))
        FAIL("out of memory");
    if (extrap_depth_class(b, k, mem, nm, out, cname, err))
        return -1;
    /* Move the representative's abstract events into the template. */
    aev *A = b->abs[k][mem[0]];
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
        if (extrap_tev_copy(&out->ev[i], &A[i].t))
            FAIL("out of memory");
    return 0;
}

mc_err extrap_classify(xbuild *b, xclass (*per)[NCLASSES], mc_error *err)
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

/* ------------------------------------------------------------ homogeneity */

/* Two templates of one trace alike in everything the generator uses. */
static int tmpl_equal(const xclass *ca, const xclass *cb, int data)
{
    if (ca->n != cb->n || ca->loop_n != cb->loop_n || ca->dknown != cb->dknown ||
        ca->ndpos != cb->ndpos ||
        (ca->ndpos && memcmp(ca->dpos, cb->dpos, ca->ndpos * sizeof *ca->dpos) != 0))
        return 0;
    for (uint32_t i = 0; i < ca->n; i++) {
        const tev *a = &ca->ev[i], *b = &cb->ev[i];
        int split = a->e.op == MC_OP_COMM_SPLIT; /* colour and key per rank */
        if (!same_literal(a, b, split, data) || a->color != b->color || a->key != b->key ||
            a->npeer != b->npeer || a->cart != b->cart || a->tdir != b->tdir ||
            a->tmask != b->tmask || a->sdir != b->sdir || a->smask != b->smask)
            return 0;
        for (uint32_t s = 0; s < a->npeer; s++)
            if (a->peer[s].kind != b->peer[s].kind ||
                memcmp(a->peer[s].v, b->peer[s].v, sizeof a->peer[s].v) != 0)
                return 0;
        if (!split && !(data && extrap_data_slot(a, 0)) && a->num[0] != b->num[0])
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
void extrap_find_homogeneous(mc_extrap *x, xclass (*per)[NCLASSES])
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
                    ok = tmpl_equal(&per[k][a], &per[k][bcls], x->rules.data_sizes);
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
