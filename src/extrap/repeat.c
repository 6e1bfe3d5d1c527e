/* Repetitions whose count depends on P (SCAMP's NPB-CG: the exchange done
 * log2(ncols) times): found by comparing one class's event sequences in
 * traces at several P, fitted by a law of P, and expanded at generation.
 *
 * The sequences must be prefix + k copies of a block + suffix with the same
 * prefix, block and suffix in every trace (request ids aside: each copy's
 * ids advance by the requests the block creates), and k = a * f(P) exactly
 * for f = log2 P or P. Inserted copies take the block's timings. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 4096 /* runs of one block (outer-loop iterations) in a trace */

static int pdesc_equal(const pdesc *a, const pdesc *b)
{
    return a->kind == b->kind &&
           (a->kind == PD_COMMSIZE || memcmp(a->v, b->v, sizeof a->v) == 0);
}

/* Peer a, and peer b d copies of a repeated block later: the same, or
 * (d > 0) rank XOR 2^k with k advanced by d (the k-th step of NPB-CG's
 * reduction exchange, or of a recursive doubling, talks to rank XOR 2^k). */
static int peer_match(const pdesc *a, const pdesc *b, uint32_t d)
{
    return pdesc_equal(a, b) ||
           (d > 0 && a->xk >= 0 && (b->xk == a->xk + (int32_t)d || b->xk == a->xk - (int32_t)d));
}

/* Tags of an event and of its copy d copies later: the same, or (d > 0)
 * moved by d up or down (a step index as tag). */
static int tag_match(int32_t a, int32_t b, uint32_t d)
{
    return a == b || (d > 0 && a != MC_NONE && b != MC_NONE &&
                      ((int64_t)b - a == (int64_t)d || (int64_t)a - b == (int64_t)d));
}

/* Structure of two abstract events, sizes and request ids aside; b is d
 * copies of a repeated block after a (0: the same copy). */
static int shape_equal_d(const tev *a, const tev *b, uint32_t d)
{
    if (a->e.op != b->e.op || a->e.site != b->e.site || a->comm != b->comm ||
        a->newcomm != b->newcomm || a->npeer != b->npeer || a->nnum != b->nnum ||
        a->color != b->color ||
        a->key != b->key || a->e.tag2 != b->e.tag2 || a->e.nvals != b->e.nvals)
        return 0;
    if (a->e.op != MC_OP_COMM_SPLIT && !tag_match(a->e.tag, b->e.tag, d))
        return 0;
    for (uint32_t s = 0; s < a->npeer; s++)
        if (!peer_match(&a->peer[s], &b->peer[s], d))
            return 0;
    return 1;
}

static int shape_equal(const tev *a, const tev *b)
{
    return shape_equal_d(a, b, 0);
}

/* b, d copies after a, is the same event of the next copy of a block: the
 * shape, and (folded input) the same iteration of the main loop, so a
 * block never spans two of them (runs in different ones are compared by
 * shape alone). */
static int same_copy(const tev *a, const tev *b, uint32_t d)
{
    return a->loop == b->loop && shape_equal_d(a, b, d);
}

/* What moves from copy to copy of the block ev[start .. start+L) of G (two
 * copies or more), found on its first two copies: XOR partners (peer slot
 * s), tags (PROG_TAG) and completed receives' tags (PROG_VTAG + entry),
 * each up or down by one a copy. */
enum { PROG_TAG = 1u << 16, PROG_VTAG = 1u << 17, PROG_SIZE = 1u << 18 };
typedef struct prog {
    uint32_t ev, what;
    int dir;
} prog;

static int add_prog(prog **v, uint32_t *n, uint32_t ev, uint32_t what, int dir)
{
    prog *p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p)
        return -1;
    p[*n] = (prog){ev, what, dir};
    *v = p;
    (*n)++;
    return 0;
}

static int step_of(int64_t a, int64_t b)
{
    return b - a == 1 ? 1 : a - b == 1 ? -1 : 0;
}

static int find_progs(const xclass *G, uint32_t start, uint32_t L, prog **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (start + 2 * L > G->n)
        return 0;
    for (uint32_t i = 0; i < L; i++) {
        const tev *a = &G->ev[start + i], *b = &G->ev[start + L + i];
        for (uint32_t s = 0; s < a->npeer && s < b->npeer; s++) {
            int dir = a->peer[s].xk >= 0 && b->peer[s].xk >= 0
                          ? step_of(a->peer[s].xk, b->peer[s].xk) : 0;
            if (!pdesc_equal(&a->peer[s], &b->peer[s]) && add_prog(out, n, i, s, dir ? dir : 1))
                return -1;
        }
        int dt = a->e.op == MC_OP_COMM_SPLIT || a->e.tag == MC_NONE || b->e.tag == MC_NONE
                     ? 0 : step_of(a->e.tag, b->e.tag);
        if (dt && add_prog(out, n, i, PROG_TAG, dt))
            return -1;
        for (uint32_t q = 0; q < 32 && q < a->nnum && q < b->nnum; q++) {
            int64_t u = a->num[q], w = b->num[q];
            int ds = u > 0 && w == 2 * u ? 1 : w > 0 && u == 2 * w ? -1 : 0;
            if (ds && add_prog(out, n, i, PROG_SIZE + q, ds))
                return -1;
        }
        if (!extrap_is_completion(a->e.op) || a->e.nvals != b->e.nvals)
            continue;
        for (uint32_t q = 0; q < 31 && 4 * q + 3 < a->e.nvals; q++) {
            int dv = step_of(a->e.vals[4 * q + 2], b->e.vals[4 * q + 2]);
            if (dv && add_prog(out, n, i, PROG_VTAG + q, dv))
                return -1;
        }
    }
    return 0;
}

/* Gives every copy c of the run at `at` the same event: XOR partners "rank
 * XOR 2^(k0 + position)", tags "t0 + position" (extrap_copy_pos), so the
 * one kept generates any of them (tev.copy, tev.ncopies). */
static void apply_progs(xclass *C, uint32_t at, uint32_t L, uint32_t copies, const prog *pv,
                        uint32_t n)
{
    for (uint32_t c = 0; c < copies; c++)
        for (uint32_t q = 0; q < n; q++) {
            uint32_t e = at + c * L + pv[q].ev;
            if (e >= C->n)
                continue;
            tev *t = &C->ev[e];
            int pos = extrap_copy_pos(pv[q].dir, c, copies);
            if (pv[q].what < PROG_TAG) {
                if (pv[q].what >= t->npeer)
                    continue;
                pdesc *p = &t->peer[pv[q].what];
                if (p->xk < 0)
                    continue; /* not a XOR partner in this trace: the traces' check says so */
                int32_t k0 = p->xk - pos;
                memset(p->v, 0, sizeof p->v);
                p->kind = PD_XOR;
                p->v[0] = k0;
                p->v[1] = pv[q].dir;
                p->xk = k0;
            } else if (pv[q].what >= PROG_SIZE) {
                uint32_t k = pv[q].what - PROG_SIZE;
                if (k >= t->nnum || c >= 62)
                    continue;
                /* the first copy's size: exact, or left for the traces' check */
                int64_t v = t->num[k];
                int64_t b = pv[q].dir > 0 ? v >> c : v << c;
                if (pv[q].dir > 0 ? (b << c) != v : (b >> c) != v)
                    continue;
                t->num[k] = b;
                if (4 * (k - 2) + 3 < t->e.nvals && k >= 2 && extrap_is_completion(t->e.op))
                    t->e.vals[4 * (k - 2) + 3] = b;
                t->sdir = (int8_t)pv[q].dir;
                t->smask |= 1u << k;
            } else if (pv[q].what == PROG_TAG) {
                t->e.tag -= pos;
                t->tdir = (int8_t)pv[q].dir;
                t->tmask |= 1u;
            } else {
                uint32_t k = pv[q].what - PROG_VTAG;
                if (4 * k + 3 >= t->e.nvals)
                    continue;
                t->e.vals[4 * k + 2] -= pos;
                t->tdir = (int8_t)pv[q].dir;
                t->tmask |= 1u << (k + 1);
            }
        }
}

/* Requests created by ev[from..to) and the lowest id among them. */
static uint32_t count_reqs(const tev *ev, uint32_t from, uint32_t to, uint32_t *first)
{
    uint32_t n = 0;
    *first = 0;
    for (uint32_t i = from; i < to; i++)
        if (ev[i].e.req) {
            if (!n || ev[i].e.req < *first)
                *first = ev[i].e.req;
            n++;
        }
    return n;
}

/* Shifts request ids >= from by delta (created ids and completion ids). */
static void shift_reqs(tev *t, uint32_t from, int64_t delta)
{
    if (t->e.req && t->e.req >= from)
        t->e.req = (uint32_t)((int64_t)t->e.req + delta);
    if (extrap_is_completion(t->e.op))
        for (uint32_t v = 0; v + 3 < t->e.nvals; v += 4)
            if (t->e.vals[v] > 0 && t->e.vals[v] >= (int64_t)from)
                t->e.vals[v] += delta;
}

/* The periodic run of period L around position p: [*a, *a + *c * L). */
static void periodic_run(const tev *ev, uint32_t n, uint32_t p, uint32_t L, uint32_t *a,
                         uint32_t *c)
{
    uint32_t q = p;
    while (q > 0 && q - 1 + L < n && same_copy(&ev[q - 1], &ev[q - 1 + L], 1))
        q--;
    uint32_t e = q;
    while (e + L < n && same_copy(&ev[e], &ev[e + L], 1))
        e++;
    *a = q;
    *c = (e + L - q) / L;
}

static void free_tevs(tev *ev, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        extrap_tev_free(&ev[i]);
}

/* A position and a request id of an earlier block once the events [cut,
 * resume) are removed and the ids from `from` on move down by `gone`. */
static void moved(uint32_t *pos, uint32_t *id, uint32_t cut, uint32_t resume, uint32_t from,
                  uint32_t gone)
{
    if (*pos >= resume)
        *pos -= resume - cut;
    if (gone && *id >= from)
        *id -= gone;
}

/* Keeps prefix, the first copy and the suffix; renumbers the suffix's ids,
 * and moves the blocks found before this one (C->rep) with them. */
static void compress(xclass *C, uint32_t a, uint32_t L, uint32_t copies, uint32_t nreq,
                     uint32_t first_req)
{
    uint32_t cut = a + L, resume = a + copies * L;
    free_tevs(C->ev, cut, resume);
    memmove(&C->ev[cut], &C->ev[resume], (C->n - resume) * sizeof *C->ev);
    C->n -= resume - cut;
    uint32_t gone = copies > 1 ? (copies - 1) * nreq : 0;
    if (gone)
        for (uint32_t i = cut; i < C->n; i++)
            shift_reqs(&C->ev[i], first_req + nreq, -(int64_t)gone);
    for (int j = 0; j < C->nrep; j++) {
        xrep *R = &C->rep[j];
        moved(&R->start, &R->first_req, cut, resume, first_req + nreq, gone);
        for (uint32_t r = 0; r < R->nruns; r++)
            moved(&R->run[r], &R->run[R->nruns + r], cut, resume, first_req + nreq, gone);
    }
}

/* ev[j .. j+L) has the shape of ev[start .. start+L). */
static int block_at(const tev *ev, uint32_t start, uint32_t j, uint32_t L)
{
    for (uint32_t i = 0; i < L; i++)
        if (!shape_equal(&ev[start + i], &ev[j + i]))
            return 0;
    return 1;
}

static uint32_t copies_from(const tev *ev, uint32_t n, uint32_t start, uint32_t L);

/* The runs of the block ev[start .. start+L) from start on (a block inside
 * an outer loop: one run per iteration), each of *count copies. Returns
 * their number (starts in run[0 .. max)), or 0 when two runs differ in
 * length or there are more than max. */
static uint32_t find_runs(const tev *ev, uint32_t n, uint32_t start, uint32_t L, uint32_t *run,
                          uint32_t max, uint32_t *count)
{
    uint32_t nr = 0, c0 = copies_from(ev, n, start, L);
    for (uint32_t j = start; j + L <= n;) {
        if (!block_at(ev, start, j, L)) {
            j++;
            continue;
        }
        uint32_t c = copies_from(ev, n, j, L);
        if (c != c0 || nr == max)
            return 0;
        run[nr++] = j;
        j += c * L;
    }
    *count = c0;
    return nr;
}

/* Compresses every run (starts run[0 .. nr), of c copies each, in the
 * uncompressed C) to one copy; records the runs in B (nruns, run). */
static int compress_runs(xclass *C, xrep *B, const uint32_t *run, uint32_t nr, uint32_t L,
                         uint32_t c, uint32_t *nreq_out)
{
    uint32_t *rr = malloc(2 * (size_t)nr * sizeof *rr);
    if (!rr)
        return -1;
    uint32_t nreq = 0;
    for (uint32_t j = 0; j < nr; j++) {
        uint32_t at = run[j] - j * (c - 1) * L, first = 0; /* earlier runs are one copy now */
        nreq = count_reqs(C->ev, at, at + L, &first);
        compress(C, at, L, c, nreq, first);
        rr[j] = at;
        rr[nr + j] = first;
    }
    free(B->run);
    B->run = rr;
    B->nruns = nr;
    *nreq_out = nreq;
    return 0;
}

/* A block more fits in every trace's class (MAXREP); the new one's record
 * is cleared. */
static int room_for_block(const mc_extrap *x, xclass *per, const char *cname, mc_error *err)
{
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && per[k].nrep >= MAXREP)
            return mc_error_set(err, MC_ERR_USAGE, "%s: more than %d blocks repeated as "
                                "often as P says: not explained", cname, MAXREP), -1;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present)
            memset(&per[k].rep[per[k].nrep], 0, sizeof per[k].rep[0]);
    return 0;
}

/* A candidate block: length L from `start`, `counts` copies in each present
 * trace (P its process count), `nruns` runs per trace when it sits inside
 * an outer loop (0: one run), and the repetition law found. */
typedef struct rcand {
    uint32_t start, L, counts[64], P[64], nk, rest, nruns;
    int relaxed, law, alt[2], nalt;
    double coef, alt_coef[2];
    mc_fit fit; /* law MC_LAW_FIT */
} rcand;

/* The copies of a block of length L at pos (it odd: ending where the
 * shortest sequence leaves the longest; even: starting there) in every
 * present trace, all from the same start: 0, else -1. */
static int block_counts(const mc_extrap *x, const xclass *per, uint32_t pos, rcand *c)
{
    int ok = 1;
    c->nk = 0;
    for (int k = 0; k < x->ntraces && ok && c->nk < 64; k++) {
        if (!per[k].present)
            continue;
        uint32_t a, n;
        periodic_run(per[k].ev, per[k].n, pos, c->L, &a, &n);
        if (c->nk == 0)
            c->start = a;
        ok = a == c->start && n >= 1;
        c->counts[c->nk] = n;
        c->P[c->nk++] = (uint32_t)x->tP[k];
    }
    return ok ? 0 : -1;
}

/* Whether the events outside the copies (prefix + suffix) are as many in
 * every trace; c->rest gets that number. */
static int same_rest(const mc_extrap *x, const xclass *per, rcand *c)
{
    int ok = 1;
    uint32_t nk = 0;
    for (int k = 0; k < x->ntraces && ok; k++) {
        if (!per[k].present)
            continue;
        uint32_t r = per[k].n - c->counts[nk++] * c->L;
        if (nk == 1)
            c->rest = r;
        ok = r == c->rest;
    }
    return ok;
}

/* The block inside an outer loop: one run per iteration, the same number
 * of runs and (unless relaxed) of other events in every trace. Sets
 * c->nruns (0 when not so). */
static int outer_runs(const mc_extrap *x, const xclass *per, rcand *c)
{
    int rok = 1;
    uint32_t nk = 0;
    c->nruns = 0;
    for (int k = 0; k < x->ntraces && rok; k++) {
        if (!per[k].present)
            continue;
        uint32_t run[MAX_RUNS], n = 0;
        uint32_t nr = find_runs(per[k].ev, per[k].n, c->start, c->L, run, MAX_RUNS, &n);
        uint32_t r = per[k].n - nr * n * c->L;
        rok = nr >= 2 && n == c->counts[nk] &&
              (nk == 0 || (nr == c->nruns && (c->relaxed || r == c->rest)));
        c->nruns = nr;
        c->rest = r;
        nk++;
    }
    if (!rok)
        c->nruns = 0;
    return rok;
}

/* The laws a repetition count is tried against, in order. */
static const int rep_laws[] = {MC_LAW_LOG2P, MC_LAW_LOG2COLS, MC_LAW_P};
#define NREP_LAWS (sizeof rep_laws / sizeof *rep_laws)

/* The repetition law of the counts: the first of log2p, log2cols, p that
 * fits every trace (c->law, -1 when none); up to two more that fit go to
 * c->alt (where they differ, the target P decides). Else, from three traces,
 * a model family that gives each count exactly when fitted on the others. */
static void repetition_law(const mc_extrap *x, rcand *c)
{
    c->law = -1, c->alt[0] = c->alt[1] = -1, c->nalt = 0;
    c->coef = c->alt_coef[0] = c->alt_coef[1] = 0;
    for (size_t l = 0; l < NREP_LAWS; l++) {
        double A = c->counts[0] / law_f(rep_laws[l], c->P[0], 1, x->nd);
        int fits = 1;
        for (uint32_t i = 0; i < c->nk && fits; i++)
            fits = fabs(A * law_f(rep_laws[l], c->P[i], 1, x->nd) - c->counts[i]) < 1e-9;
        if (fits && c->law < 0) {
            c->law = rep_laws[l];
            c->coef = A;
        } else if (fits && c->nalt < 2) {
            c->alt[c->nalt] = rep_laws[l];
            c->alt_coef[c->nalt++] = A;
        }
    }
    if (c->law >= 0)
        return;
    double v[64], P[64];
    int other;
    for (uint32_t i = 0; i < c->nk; i++)
        v[i] = c->counts[i], P[i] = c->P[i];
    if (extrap_size_fit(v, P, (int)c->nk, &c->fit, &other) == 1) {
        c->law = MC_LAW_FIT; /* three traces or more: P - 1, log2(P) + 1 ... */
        c->coef = 1;
    }
}

/* Compresses the block in every present trace (its runs, or its copies)
 * and records it as the class's next repeated block. */
static int take_block(mc_extrap *x, xclass *per, const char *cname, const rcand *c,
                      mc_error *err)
{
    const xclass *G = NULL;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && (!G || per[k].n > G->n))
            G = &per[k];
    if (!G) /* no trace has the class (the caller found the block in one) */
        return mc_error_set(err, MC_ERR_INTERNAL, "%s: no trace has the class", cname), -1;
    uint32_t first = 0, nreq = count_reqs(G->ev, c->start, c->start + c->L, &first);
    (void)first;
    if (room_for_block(x, per, cname, err))
        return -1;
    prog *xs = NULL;
    uint32_t nxs = 0;
    if (find_progs(G, c->start, c->L, &xs, &nxs))
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    uint32_t nk = 0;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && c->nruns >= 2) {
            uint32_t run[MAX_RUNS], n = 0, nq = 0;
            uint32_t nr = find_runs(per[k].ev, per[k].n, c->start, c->L, run, MAX_RUNS, &n);
            for (uint32_t j = 0; j < nr; j++)
                apply_progs(&per[k], run[j], c->L, n, xs, nxs);
            if (compress_runs(&per[k], &per[k].rep[per[k].nrep], run, nr, c->L, n, &nq)) {
                free(xs);
                return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
            }
        } else if (per[k].present) {
            uint32_t f2;
            count_reqs(per[k].ev, c->start, c->start + c->L, &f2);
            apply_progs(&per[k], c->start, c->L, c->counts[nk], xs, nxs);
            compress(&per[k], c->start, c->L, c->counts[nk++], nreq, f2);
        }
    free(xs);
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present) {
            xrep *B = &per[k].rep[per[k].nrep++];
            B->start = B->found_at = c->start;
            B->len = c->L;
            B->nreq = nreq;
            count_reqs(per[k].ev, c->start, c->start + c->L, &B->first_req);
            B->law = c->law;
            B->a = c->coef;
            B->fit = c->fit;
            for (int q = 0; q < 2; q++) {
                B->alt_law[q] = c->alt[q];
                B->alt_a[q] = c->alt_coef[q];
            }
        }
    return 0;
}

/* Candidate `it` of the search (its block length and place, relaxed or
 * not) checked in every trace: 1 when it is a repeated block with a law in
 * *c, 0 when not, -1 with err when its counts fit no law. */
static int try_block(const mc_extrap *x, const xclass *per, const char *cname, uint32_t it,
                     uint32_t p, uint32_t D, rcand *c, mc_error *err)
{
    c->relaxed = it >= 2 * (D + 1);
    c->L = (it % (2 * (D + 1))) / 2;
    if (!c->L || D % c->L)
        return 0;
    uint32_t pos = it % 2 ? p : p >= c->L ? p - c->L : 0;
    if (block_counts(x, per, pos, c))
        return 0;
    uint32_t vary = 0;
    for (uint32_t i = 1; i < c->nk; i++)
        vary |= c->counts[i] != c->counts[0];
    if (c->relaxed && !vary) /* relaxed: it must explain some difference */
        return 0;
    int ok = same_rest(x, per, c);
    c->nruns = 0;
    if (!ok || c->relaxed) /* else inside an outer loop; relaxed: one run when none */
        ok = outer_runs(x, per, c) || c->relaxed;
    if (!ok)
        return 0;
    repetition_law(x, c);
    if (c->law >= 0)
        return 1;
    if (c->relaxed)
        return 0;
    mc_error_set(err, MC_ERR_USAGE, "%s: a block of %u events repeats %u times at P=%u "
                 "and %u times at P=%u: no law (log2p, log2cols, p) fits the counts, nor a "
                 "model family exactly (three traces or more): not explained", cname, c->L,
                 c->counts[0], c->P[0], c->counts[c->nk - 1], c->P[c->nk - 1]);
    return -1;
}

int extrap_find_repetition(mc_extrap *x, int cls, xclass *per, const char *cname,
                           mc_error *err)
{
    (void)cls;
    int big = -1, small = -1;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present) {
            if (big < 0 || per[k].n > per[big].n)
                big = k;
            if (small < 0 || per[k].n < per[small].n)
                small = k;
        }
    const xclass *G = &per[big], *S = &per[small];
    /* common prefix of the shortest and the longest sequence */
    uint32_t p = 0;
    while (p < S->n && shape_equal(&S->ev[p], &G->ev[p]))
        p++;
    uint32_t D = 0;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present)
            D = (uint32_t)extrap_gcd(D, per[k].n - S->n);
    /* Per block length L, two places to look for the copies: ending where the
     * shortest sequence leaves the longest (they share the first copy), or
     * starting there (they share the last: steps counted down, as NPB CG's
     * sum does). First a block that explains the whole difference; else
     * (relaxed) one that explains part of it, the rest left to the next
     * block found (NPB CG: two loops of log2 P steps per iteration). */
    rcand c;
    for (uint32_t it = 2; it < 4 * (D + 1); it++) {
        int found = try_block(x, per, cname, it, p, D, &c, err);
        if (found < 0)
            return -1;
        if (found)
            return take_block(x, per, cname, &c, err);
    }
    mc_error_set(err, MC_ERR_USAGE, "%s: %u events at P=%d, %u at P=%d, and the difference is "
                 "not a repeated block: repetition counts that vary with P are not explained",
                 cname, S->n, x->tP[small], G->n, x->tP[big]);
    return -1;
}

/* ------------------------------------------------- loops of fixed count */

/* Whether copy 2 of ev[pos .. pos+L) of G talks to rank XOR 2^(k+-1) where
 * copy 1 talks to rank XOR 2^k: a loop over steps of P's binary digits. */
static int xor_steps(const xclass *G, uint32_t pos, uint32_t L)
{
    for (uint32_t i = 0; i < L; i++) {
        const tev *a = &G->ev[pos + i], *b = &G->ev[pos + L + i];
        for (uint32_t s = 0; s < a->npeer && s < b->npeer; s++) {
            int32_t ka = a->peer[s].xk, kb = b->peer[s].xk;
            if (ka >= 0 && kb >= 0 && step_of(ka, kb))
                return 1;
        }
    }
    return 0;
}

/* A loop at pos of G with XOR steps, as many copies in every trace, whose
 * count a law of P (log2p, log2cols, p) gives as well as a constant: *c
 * with law const and those laws as alternatives (1), else 0. */
static int fixed_loop_at(const mc_extrap *x, const xclass *per, const xclass *G, uint32_t pos,
                         rcand *c)
{
    for (uint32_t L = 1; L <= 64 && pos + 2 * L <= G->n; L++) {
        uint32_t i = 0;
        while (i < L && same_copy(&G->ev[pos + i], &G->ev[pos + L + i], 1))
            i++;
        if (i < L || !xor_steps(G, pos, L))
            continue;
        c->L = L;
        c->relaxed = 0;
        if (block_counts(x, per, pos, c) || c->start != pos || c->nk < 2)
            continue;
        int same = 1;
        for (uint32_t k = 1; k < c->nk; k++)
            same &= c->counts[k] == c->counts[0];
        if (!same)
            continue;
        outer_runs(x, per, c);
        repetition_law(x, c);
        if (c->law < 0 || c->law == MC_LAW_FIT)
            return 0;
        c->alt[1] = c->nalt ? c->alt[0] : -1; /* a third law that fits is not shown */
        c->alt_coef[1] = c->alt_coef[0];
        c->alt[0] = c->law;
        c->alt_coef[0] = c->coef;
        c->nalt = c->alt[1] >= 0 ? 2 : 1;
        c->law = MC_LAW_CONST;
        c->coef = c->counts[0];
        return 1;
    }
    return 0;
}

/* Whether event i talks to rank XOR 2^k (the same k) in every present trace. */
static int xor_everywhere(const mc_extrap *x, const xclass *per, uint32_t i)
{
    int32_t k0 = -1;
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present)
            continue;
        if (i >= per[k].n || !per[k].ev[i].npeer || per[k].ev[i].peer[0].xk < 0 ||
            (k0 >= 0 && per[k].ev[i].peer[0].xk != k0))
            return 0;
        k0 = per[k].ev[i].peer[0].xk;
    }
    return k0 >= 0;
}

/* The first XOR exchange outside every repeated block, done once in every
 * trace, and a law that is 1 at every traced P: kept in G's
 * once_law / once_at for the target's check. */
static void once_law(const mc_extrap *x, xclass *per, int G)
{
    xclass *R = &per[G];
    for (uint32_t i = 0; i < R->n; i++) {
        if (extrap_rep_of(R, i) >= 0 || !xor_everywhere(x, per, i))
            continue;
        for (size_t l = 0; l < NREP_LAWS; l++) {
            double f0 = law_f(rep_laws[l], x->tP[G], 1, x->nd);
            int same = 1;
            for (int k = 0; k < x->ntraces && same; k++)
                same = !per[k].present || fabs(law_f(rep_laws[l], x->tP[k], 1, x->nd) - f0) < 1e-9;
            if (same && fabs(f0 - 1) < 1e-9) { /* one step: the law itself */
                R->once_law = rep_laws[l];
                R->once_at = i;
                return;
            }
        }
        return; /* the first such exchange decides */
    }
}

int extrap_find_fixed_loops(mc_extrap *x, xclass *per, const char *cname, mc_error *err)
{
    int G = -1, ntr = 0;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present) {
            ntr++;
            if (G < 0 || x->tP[k] > x->tP[G])
                G = k;
        }
    if (ntr < 2)
        return 0; /* one trace: its XOR partners are refused as ambiguous (classes.c) */
    int any = 0; /* most codes have no XOR partner: no scan */
    for (uint32_t i = 0; i < per[G].n && !any; i++)
        for (uint32_t s = 0; s < per[G].ev[i].npeer && !any; s++)
            any = per[G].ev[i].peer[s].xk >= 0;
    if (!any)
        return 0;
    rcand c;
    for (uint32_t pos = 0; pos < per[G].n; pos++) {
        if (extrap_rep_of(&per[G], pos) >= 0 || !fixed_loop_at(x, per, &per[G], pos, &c))
            continue;
        if (take_block(x, per, cname, &c, err))
            return -1;
        pos += c.L - 1;
    }
    once_law(x, per, G);
    return 0;
}

/* Copies of ev[start .. start+L) that follow each other from start. */
static uint32_t copies_from(const tev *ev, uint32_t n, uint32_t start, uint32_t L)
{
    uint32_t c = 1;
    for (;;) {
        uint32_t b = start + c * L;
        if (b + L > n)
            return c;
        for (uint32_t i = 0; i < L; i++)
            if (!same_copy(&ev[start + i], &ev[b + i], c))
                return c;
        c++;
    }
}

int extrap_apply_repetition(mc_extrap *x, xclass *per, uint32_t start, uint32_t L, int law,
                            const mc_fit *fit, int all_runs, const char *cname, mc_error *err)
{
    int rep = -1;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && (rep < 0 || x->tP[k] > x->tP[rep]))
            rep = k;
    if (rep < 0)
        return 0;
    const xclass *R = &per[rep];
    int32_t site = start < R->n ? R->ev[start].e.site : 0;
    uint32_t c = start + L <= R->n ? copies_from(R->ev, R->n, start, L) : 0;
    double a = law == MC_LAW_FIT ? 1 : c / law_f(law, x->tP[rep], 1, x->nd);
    if (room_for_block(x, per, cname, err))
        return -1;
    prog *xs = NULL;
        uint32_t nxs = 0;
    if (c >= 2 && find_progs(R, start, L, &xs, &nxs)) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int k = 0; k < x->ntraces; k++) {
        if (!per[k].present)
            continue;
        if (start + L > per[k].n) {
            free(xs);
            mc_error_set(err, MC_ERR_USAGE, "%s: repeat %x: the block is missing at P=%d",
                         cname, (unsigned)site, x->tP[k]);
            return -1;
        }
        uint32_t first = 0, ck = copies_from(per[k].ev, per[k].n, start, L);
        uint32_t nreq = count_reqs(per[k].ev, start, start + L, &first);
        if (all_runs) {
            char at[EXTRAP_OP_AT_MAX]; /* before the runs are compressed */
            extrap_op_at(x, k, &per[k].ev[start].e, at, sizeof at);
            uint32_t *run = malloc(MAX_RUNS * sizeof *run), cr = 0;
            uint32_t nr = run ? find_runs(per[k].ev, per[k].n, start, L, run, MAX_RUNS, &cr) : 0;
            for (uint32_t j = 0; j < nr; j++)
                apply_progs(&per[k], run[j], L, cr, xs, nxs);
            int bad = !nr || compress_runs(&per[k], &per[k].rep[per[k].nrep], run, nr, L, cr,
                                           &nreq);
            free(run);
            if (bad) {
                free(xs);
                mc_error_set(err, MC_ERR_USAGE, "%s: the runs of the block at event %u (%s) "
                             "differ in length at P=%d", cname, start, at, x->tP[k]);
                return -1;
            }
        } else {
            apply_progs(&per[k], start, L, ck, xs, nxs);
            compress(&per[k], start, L, ck, nreq, first);
        }
        xrep *B = &per[k].rep[per[k].nrep++];
        B->start = B->found_at = start;
        B->len = L;
        B->nreq = nreq;
        B->first_req = first;
        B->law = law;
        B->a = a;
        if (law == MC_LAW_FIT)
            B->fit = *fit;
        B->alt_law[0] = B->alt_law[1] = -1; /* stated or inherited */
    }
    free(xs);
    return 0;
}

int extrap_stated_repetition(mc_extrap *x, xclass *per, const char *cname, mc_error *err)
{
    const mc_extrap_rules *ru = &x->rules;
    int rep = -1;
    for (int k = 0; k < x->ntraces; k++)
        if (per[k].present && (rep < 0 || x->tP[k] > x->tP[rep]))
            rep = k;
    for (int q = 0; q < ru->nrepeat && rep >= 0; q++) {
        const xclass *R = &per[rep];
        uint32_t start = 0;
        while (start < R->n && R->ev[start].e.site != ru->repeat[q].site)
            start++;
        if (start == R->n)
            continue; /* the rule is about other classes */
        uint32_t L = ru->repeat[q].len;
        for (uint32_t l = 1; !L && l <= (R->n - start) / 2; l++)
            if (copies_from(R->ev, R->n, start, l) >= 2)
                L = l;
        if (!L || start + L > R->n) {
            mc_error_set(err, MC_ERR_USAGE, "%s: repeat %x: no block repeats from the call at "
                         "that site (state its length: SITE/LEN:LAW)", cname,
                         (unsigned)ru->repeat[q].site);
            return -1;
        }
        /* every run of the block when they repeat alike (NPB CG's sum and dot
         * product through one routine, in every iteration) */
        uint32_t *run = malloc(MAX_RUNS * sizeof *run), cr = 0;
        int all = run && find_runs(R->ev, R->n, start, L, run, MAX_RUNS, &cr) >= 2;
        free(run);
        if (extrap_apply_repetition(x, per, start, L, ru->repeat[q].law, NULL, all, cname,
                                    err))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ expansion */

void extrap_expanded_free(tev *ev, uint32_t n)
{
    for (uint32_t i = 0; ev && i < n; i++)
        if (extrap_is_completion(ev[i].e.op))
            free(ev[i].e.vals);
    free(ev);
}

/* One run of a block in a class's template: where, the lowest id its copy
 * creates, and the block's copies at P, length and ids per copy. */
typedef struct xrun {
    uint32_t pos, first, copies, len, nreq;
} xrun;

/* How far request id v (template numbering) moves at a position after
 * `before` whole runs, inside copy `copy` of the next one (-1: outside). */
static int64_t req_delta(int64_t v, uint32_t before, int32_t copy, const xrun *run)
{
    int64_t d = 0;
    for (uint32_t r = 0; r < before; r++)
        if (v >= (int64_t)run[r].first)
            d += ((int64_t)run[r].copies - 1) * run[r].nreq;
    if (copy > 0 && v >= (int64_t)run[before].first)
        d += (int64_t)copy * run[before].nreq;
    return d;
}

static int run_cmp(const void *a, const void *b)
{
    const xrun *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The runs of every block of C at P, in template order; NULL with err. */
static xrun *class_runs(const mc_extrap *x, const xclass *C, int P, uint32_t *nrun,
                        mc_error *err)
{
    uint32_t total = 0;
    for (int j = 0; j < C->nrep; j++)
        total += C->rep[j].nruns >= 2 ? C->rep[j].nruns : 1;
    xrun *run = calloc(total ? total : 1, sizeof *run);
    if (!run) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    uint32_t k = 0;
    for (int j = 0; j < C->nrep; j++) {
        const xrep *B = &C->rep[j];
        double cf = extrap_rep_copies(x, B, P);
        double copies = floor(cf + 0.5);
        if (fabs(cf - copies) > (B->law == MC_LAW_FIT ? 1e-6 : 1e-9) || copies < 0 ||
            copies > 1e7) {
            free(run);
            char law[200];
            extrap_rep_law_str(B, law, sizeof law);
            mc_error_set(err, MC_ERR_USAGE, "a block of %u events repeats %s times: %.3f at "
                         "P=%d is not a whole number of copies", B->len, law, cf, P);
            return NULL;
        }
        uint32_t nr = B->nruns >= 2 ? B->nruns : 1;
        for (uint32_t r = 0; r < nr; r++)
            run[k++] = (xrun){B->nruns >= 2 ? B->run[r] : B->start,
                              B->nruns >= 2 ? B->run[B->nruns + r] : B->first_req,
                              (uint32_t)copies, B->len, B->nreq};
    }
    qsort(run, k, sizeof *run, run_cmp);
    *nrun = k;
    return run;
}

int extrap_rep_of(const xclass *C, uint32_t i)
{
    for (int j = 0; j < C->nrep; j++) {
        const xrep *B = &C->rep[j];
        uint32_t nr = B->nruns >= 2 ? B->nruns : 1;
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t at = B->nruns >= 2 ? B->run[r] : B->start;
            if (i >= at && i < at + B->len)
                return j;
        }
    }
    return -1;
}

mc_err extrap_expand(const mc_extrap *x, const xclass *C, int P, tev **ev, uint32_t *n,
                     int *owned, mc_error *err)
{
    *owned = 0;
    if (!C->nrep) {
        *ev = C->ev;
        *n = C->n;
        return MC_OK;
    }
    uint32_t nr = 0;
    xrun *run = class_runs(x, C, P, &nr, err);
    if (!run)
        return err->code;
    uint64_t total = C->n;
    for (uint32_t r = 0; r < nr; r++)
        total = total + (uint64_t)run[r].copies * run[r].len - run[r].len;
    if (total > (1u << 28)) {
        free(run);
        return mc_error_set(err, MC_ERR_USAGE, "%llu events per rank at P=%d: too many",
                            (unsigned long long)total, P);
    }
    tev *out = calloc(total ? total : 1, sizeof *out);
    int32_t *where = calloc(total ? total : 1, 2 * sizeof *where); /* run index, copy */
    if (!out || !where) {
        free(out);
        free(where);
        free(run);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    }
    /* where[2o] = runs wholly before (outside a run) or the run's index
     * (inside); where[2o+1] = -1 outside, else the copy */
    uint32_t o = 0, j = 0;
    for (uint32_t i = 0; i < C->n;) {
        if (j < nr && i == run[j].pos) {
            for (uint32_t c = 0; c < run[j].copies; c++)
                for (uint32_t t = 0; t < run[j].len; t++) {
                    where[2 * o] = (int32_t)j;
                    where[2 * o + 1] = (int32_t)c;
                    out[o] = C->ev[i + t];
                    out[o].ncopies = run[j].copies;
                    out[o++].copy = c;
                }
            i += run[j].len;
            j++;
            continue;
        }
        where[2 * o] = (int32_t)j;
        where[2 * o + 1] = -1;
        out[o++] = C->ev[i++];
    }
    /* Completions get their own values (ids may move). */
    for (uint32_t k = 0; k < o; k++)
        if (extrap_is_completion(out[k].e.op) && out[k].e.nvals) {
            int64_t *v = malloc(out[k].e.nvals * sizeof *v);
            if (!v) {
                for (uint32_t q = k; q < o; q++)
                    if (extrap_is_completion(out[q].e.op))
                        out[q].e.vals = NULL;
                extrap_expanded_free(out, o);
                free(where);
                free(run);
                return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
            }
            memcpy(v, out[k].e.vals, out[k].e.nvals * sizeof *v);
            out[k].e.vals = v;
        }
    /* Request ids: copy c of run j moves the ids its block creates by c
     * blocks; after run j, the ids from its block on move by copies - 1. */
    for (uint32_t k = 0; k < o; k++) {
        uint32_t before = (uint32_t)where[2 * k];
        int32_t copy = where[2 * k + 1];
        if (out[k].e.req)
            out[k].e.req = (uint32_t)((int64_t)out[k].e.req +
                                      req_delta(out[k].e.req, before, copy, run));
        if (extrap_is_completion(out[k].e.op))
            for (uint32_t v = 0; v + 3 < out[k].e.nvals; v += 4)
                if (out[k].e.vals[v] > 0)
                    out[k].e.vals[v] += req_delta(out[k].e.vals[v], before, copy, run);
    }
    free(where);
    free(run);
    *ev = out;
    *n = o;
    *owned = 1;
    return MC_OK;
}
