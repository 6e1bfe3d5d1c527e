/* The statistics of a trace (include/mpicast/stats.h): one pass over the
 * events, bounded memory (per rank and per function counters, a table of
 * call sites), used by `stats`, `report` and `validate`-like analyses. */
#include "mpicast/stats.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef mc_stats_counts counts;

typedef struct rank_stats {
    mc_app_window win;
    int64_t mpi_ns; /* inside MPI, Init and Finalize excluded */
    int64_t calls, bytes, sends, send_bytes, polls;
} rank_stats;

typedef struct site_stats {
    int32_t site, op;
    counts c;
} site_stats;

/* A persistent send request: where each Start of it sends. */
typedef struct psend {
    uint32_t req;
    int32_t peer;
    int64_t bytes;
} psend;

struct mc_stats {
    const char *dir;    /* the source's name, for messages */
    int nranks;
    const mc_meta *meta;
    counts *per_op[MC_OP_COUNT]; /* nranks entries each; NULL until seen */
    rank_stats *ranks;
    site_stats *sites; /* open-addressing table keyed by (site, op) */
    size_t sites_cap, nsites;
    psend *psends; /* this rank's persistent sends, sorted by req */
    size_t npsends, psends_cap;
    int64_t sends, send_bytes;
    int truncated;
    json_t *warnings; /* array of strings */
    mc_error overflow; /* a total past 2^63 - 1: the collection fails with it */
    int bad_ops_warned;
    int overflowed;    /* a message total overflowed */
    mc_loop_finder *finder; /* reused rank after rank */
    mc_loop *loops;         /* each rank's main loop */
    struct ring_ev *ring;   /* the rank's last LOOP_RING events given to the finder */
    uint64_t npos;          /* events given to the finder on this rank */
    unsigned char *loop_counted; /* per rank: its main loop's calls were counted */
    int64_t *loop_calls[MC_OP_COUNT], *loop_bytes[MC_OP_COUNT]; /* per rank, inside the
                                   main loop; -1: not known (polls); NULL: 0 everywhere */
    mc_stats_grid grid;     /* the first Cart_create of MPI_COMM_WORLD */
};
typedef struct mc_stats stats;

/* What the main loop calls (issue 27, model --per-iteration): every
 * iteration of the loop the finder reports is alike, so its calls and bytes
 * per function are the iterations times those of one. The finder knows the
 * loop only at the end of the stream, so the last LOOP_RING events are kept
 * and the loop's last iteration is counted there; a loop that ended earlier
 * (or an iteration longer than the ring) is not counted. */
#define LOOP_RING (1u << 16)
typedef struct ring_ev {
    int32_t op;
    uint32_t calls;
    int64_t bytes;
} ring_ev;

/* Sums in signed 64 bits with the overflow caught: a total past 2^63 - 1
 * is an error, never a wrapped number. 1 on overflow. */
static int add64(int64_t *a, int64_t b)
{
    return __builtin_add_overflow(*a, b, a);
}

static int add_counts(mc_stats_counts *c, int64_t calls, int64_t bytes, int64_t ns, int64_t polls)
{
    return add64(&c->calls, calls) | add64(&c->bytes, bytes) | add64(&c->time_ns, ns) |
           add64(&c->polls, polls);
}

/* Records the overflow error; returns 1 (add_event's "overflow"). */
static int overflow(stats *s, int rank, int op)
{
    if (!s->overflow.code)
        mc_error_set(&s->overflow, MC_ERR_FORMAT, "%s: rank %d: a total of MPI_%s (calls, bytes "
                     "or time) passes 2^63 - 1: a corrupt trace, or one no 64-bit count holds",
                     s->dir, rank, op >= 0 && op < MC_OP_COUNT ? mc_op_name(op) : "?");
    return 1;
}

/* ---------------------------------------------------------------- sites */

static size_t site_hash(int32_t site, int32_t op)
{
    uint64_t k = (uint64_t)(uint32_t)site << 8 ^ (uint64_t)(uint32_t)op;
    k *= 0x9e3779b97f4a7c15ull;
    return (size_t)(k >> 17);
}

/* Slot of (site, op): found or empty (op == -1 marks empty slots). */
static site_stats *site_slot(site_stats *tab, size_t cap, int32_t site, int32_t op)
{
    for (size_t i = site_hash(site, op) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (tab[i].op == -1 || (tab[i].site == site && tab[i].op == op))
            return &tab[i];
}

static int sites_grow(stats *s)
{
    size_t cap = s->sites_cap ? 2 * s->sites_cap : 64;
    site_stats *tab = malloc(cap * sizeof *tab);
    if (!tab)
        return -1;
    for (size_t i = 0; i < cap; i++)
        tab[i].op = -1;
    for (size_t i = 0; i < s->sites_cap; i++)
        if (s->sites[i].op != -1)
            *site_slot(tab, cap, s->sites[i].site, s->sites[i].op) = s->sites[i];
    free(s->sites);
    s->sites = tab;
    s->sites_cap = cap;
    return 0;
}

/* 0, -1 out of memory, 1 on overflow. */
static int site_add(stats *s, const mc_event *e, int64_t bytes)
{
    if (2 * (s->nsites + 1) > s->sites_cap && sites_grow(s) != 0)
        return -1;
    site_stats *slot = site_slot(s->sites, s->sites_cap, e->site, e->op);
    if (slot->op == -1) {
        *slot = (site_stats){e->site, e->op, {0, 0, 0, 0}};
        s->nsites++;
    }
    return add_counts(&slot->c, (int64_t)mc_event_calls(e), bytes, mc_event_duration(e), 0);
}

/* ---------------------------------------------------------------- persistent sends */

static psend *psend_find(stats *s, uint32_t req)
{
    size_t lo = 0, hi = s->npsends;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->psends[mid].req < req)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->npsends && s->psends[lo].req == req ? &s->psends[lo] : NULL;
}

/* Request ids increase, so appending keeps the array sorted; an id out of
 * order (a foreign trace) is inserted in place. */
static int psend_add(stats *s, uint32_t req, int32_t peer, int64_t bytes)
{
    if (s->npsends == s->psends_cap) {
        size_t cap = s->psends_cap ? 2 * s->psends_cap : 16;
        psend *p = realloc(s->psends, cap * sizeof *p);
        if (!p)
            return -1;
        s->psends = p;
        s->psends_cap = cap;
    }
    size_t at = s->npsends;
    while (at > 0 && s->psends[at - 1].req >= req)
        at--;
    if (at < s->npsends && s->psends[at].req == req) {
        s->psends[at] = (psend){req, peer, bytes};
        return 0;
    }
    memmove(&s->psends[at + 1], &s->psends[at], (s->npsends - at) * sizeof *s->psends);
    s->psends[at] = (psend){req, peer, bytes};
    s->npsends++;
    return 0;
}

static void psend_remove(stats *s, uint32_t req)
{
    psend *p = psend_find(s, req);
    if (!p)
        return;
    size_t at = (size_t)(p - s->psends);
    memmove(p, p + 1, (s->npsends - at - 1) * sizeof *p);
    s->npsends--;
}

/* ---------------------------------------------------------------- one event */

static int is_send(int op)
{
    return mc_op_has(op, MC_OPF_SEND);
}

static int is_send_init(int op)
{
    return mc_op_has(op, MC_OPF_SEND_INIT);
}

/* Counts one point-to-point message (the EXCIT/INSPIRE statistic); messages
 * to MPI_PROC_NULL (MC_NONE) move nothing and are skipped. */
static void count_message(stats *s, rank_stats *r, int32_t peer, int64_t bytes)
{
    if (peer < 0)
        return;
    if (add64(&r->sends, 1) || add64(&r->send_bytes, bytes) || add64(&s->sends, 1) ||
        add64(&s->send_bytes, bytes))
        s->overflowed = 1;
}

/* Messages of this event: a send, the send half of a Sendrecv, or each
 * started persistent send request. */
static int event_messages(stats *s, rank_stats *r, const mc_event *e)
{
    if (is_send(e->op)) {
        count_message(s, r, e->peer, e->bytes);
    } else if (is_send_init(e->op) && e->req != MC_NO_REQ) {
        if (psend_add(s, e->req, e->peer, e->bytes) != 0)
            return -1;
    } else if (e->op == MC_OP_START || e->op == MC_OP_STARTALL) {
        for (uint32_t i = 0; i < e->nvals; i++) {
            psend *p = e->vals[i] > 0 && e->vals[i] <= UINT32_MAX
                           ? psend_find(s, (uint32_t)e->vals[i])
                           : NULL;
            if (p)
                count_message(s, r, p->peer, p->bytes);
        }
    } else if (e->op == MC_OP_REQUEST_FREE) {
        for (uint32_t i = 0; i < e->nvals; i++)
            if (e->vals[i] > 0 && e->vals[i] <= UINT32_MAX)
                psend_remove(s, (uint32_t)e->vals[i]);
    }
    return 0;
}

static int64_t sum_vals(const mc_event *e, uint32_t from, uint32_t n)
{
    int64_t t = 0;
    for (uint32_t i = from; i < from + n && i < e->nvals; i++)
        t += e->vals[i] > 0 ? e->vals[i] : 0;
    return t;
}

/* The bytes a collective counts for: what the rank sends — its block, or
 * for per-rank counts the sum of its send side, which the trace keeps in
 * `vals` and not in `bytes` (docs/trace-format.md) — and where it sends
 * nothing (a non-root of Scatter/Scatterv) the block it receives. */
static int64_t coll_bytes(const mc_event *e)
{
    int op = mc_op_is_nonblocking_coll(e->op) ? e->op - (MC_OP_IBARRIER - MC_OP_BARRIER) : e->op;
    uint32_t size = e->peer2 > 0 ? (uint32_t)e->peer2 : 0;
    switch (op) {
    case MC_OP_ALLTOALLV: case MC_OP_ALLTOALLW:
        /* the send side, then the receive side; in place only the latter,
         * which then holds what is sent */
        return size && e->nvals >= 2 * size ? sum_vals(e, 0, size) : sum_vals(e, 0, e->nvals);
    case MC_OP_REDUCE_SCATTER: /* each rank contributes the whole vector */
        return e->nvals ? sum_vals(e, 0, e->nvals) : e->bytes;
    case MC_OP_SCATTERV:
        if (e->nvals) /* the root's send side */
            return sum_vals(e, 0, e->nvals);
        return e->bytes > 0 ? e->bytes : e->bytes2;
    case MC_OP_SCATTER:
        return e->bytes > 0 ? e->bytes : e->bytes2;
    default: /* Gatherv, Allgatherv: the send block is a scalar */
        return e->bytes;
    }
}

/* Bytes a call counts for: the `bytes` field (count × type size as passed)
 * of point-to-point operations, the send side of collectives; other fields
 * reuse `bytes` for other things (Comm_split's key, compute's flops). */
static int64_t event_bytes(const mc_event *e)
{
    mc_op_kind k = mc_op_kind_of(e->op);
    return k == MC_KIND_P ? e->bytes : k == MC_KIND_C ? coll_bytes(e) : 0;
}

/* Test, Testall, Testany, Testsome and Iprobe: the calls a polling loop
 * makes. */
int mc_stats_is_poll_op(int op)
{
    return mc_op_has(op, MC_OPF_POLL);
}

void mc_app_window_add(mc_app_window *w, const mc_event *e)
{
    if (e->op < 0 || e->op >= MC_OP_COUNT || e->op == MC_OP_COMPUTE)
        return;
    if (!w->have_events) {
        w->first_start = e->t_start;
        w->have_events = 1;
    }
    w->last_end = e->t_end;
    if (e->op == MC_OP_INIT && !w->have_init) {
        w->init_end = e->t_end;
        w->have_init = 1;
    } else if (e->op == MC_OP_FINALIZE && !w->have_fin) {
        w->fin_start = e->t_start;
        w->have_fin = 1;
    }
}

int64_t mc_app_window_start(const mc_app_window *w)
{
    return !w->have_events ? 0 : w->have_init ? w->init_end : w->first_start;
}

int64_t mc_app_window_end(const mc_app_window *w)
{
    return !w->have_events ? 0 : w->have_fin ? w->fin_start : w->last_end;
}

int64_t mc_app_window_ns(const mc_app_window *w)
{
    int64_t from = mc_app_window_start(w), to = mc_app_window_end(w);
    return to > from ? to - from : 0;
}

/* The process grid of a Cart_create of MPI_COMM_WORLD: its vals are the
 * members (peer2 of them), then ndims, dims..., periods...
 * (docs/trace-format.md). A grid of a sub-communicator is not the run's. */
static void note_grid(mc_stats_grid *g, const mc_event *e)
{
    if (e->comm != MC_COMM_WORLD || e->peer2 < 0 || (uint32_t)e->peer2 >= e->nvals)
        return;
    const int64_t *v = e->vals + e->peer2;
    int64_t nd = v[0];
    if (nd < 1 || nd > MC_STATS_MAXDIMS || e->nvals != (uint32_t)e->peer2 + 1 + 2 * (uint32_t)nd)
        return;
    for (int d = 0; d < nd; d++) {
        if (v[1 + d] < 1 || v[1 + d] > INT32_MAX)
            return;
        g->dims[d] = (int)v[1 + d];
        g->periods[d] = v[1 + nd + d] != 0;
    }
    g->ndims = (int)nd;
}

static int add_event(stats *s, int rank, const mc_event *e)
{
    if (e->op < 0 || e->op >= MC_OP_COUNT || e->op == MC_OP_COMPUTE) {
        if (e->op != MC_OP_COMPUTE && !s->bad_ops_warned) {
            s->bad_ops_warned = 1;
            json_array_append_new(s->warnings,
                                  json_sprintf("%s: rank %d: events with unknown operation "
                                               "%d ignored",
                                               s->dir, rank, (int)e->op));
        }
        return 0;
    }
    if (e->op == MC_OP_CART_CREATE && !s->grid.ndims)
        note_grid(&s->grid, e);
    rank_stats *r = &s->ranks[rank];
    int64_t bytes = event_bytes(e), dur = mc_event_duration(e);
    if (!s->per_op[e->op] && !(s->per_op[e->op] = calloc((size_t)s->nranks, sizeof(counts))))
        return -1;
    counts *c = &s->per_op[e->op][rank];
    /* a folded run of failed polls counts every call (the replay folds such
     * runs into a wait: engine.c) */
    int64_t calls = (int64_t)mc_event_calls(e), poll = mc_event_is_failed_poll(e) ? calls : 0;
    if (add_counts(c, calls, bytes, dur, poll) || add64(&r->calls, calls) ||
        add64(&r->bytes, bytes) || add64(&r->polls, poll))
        return overflow(s, rank, e->op);
    mc_app_window_add(&r->win, e);
    if (e->op != MC_OP_INIT && e->op != MC_OP_FINALIZE) {
        if (add64(&r->mpi_ns, dur))
            return overflow(s, rank, e->op);
        int k = site_add(s, e, bytes);
        if (k)
            return k > 0 ? overflow(s, rank, e->op) : -1;
    }
    return event_messages(s, r, e);
}

/* The calls and bytes of rank's main loop per function, from one of its
 * iterations in the ring (LOOP_RING): the last of the N - 1 the finder saw
 * equal (it counts N iterations from them: the first's part before the
 * cut and the last's after it are one more). Polls (Test*, Iprobe) are not
 * known: iterations alike in their calls' shapes may poll more or fewer
 * times; nor is a count above the function's own (a loop whose extra
 * iteration is not there). -1: out of memory. */
static int count_loop(stats *s, int rank)
{
    const mc_loop *l = &s->loops[rank];
    if (l->iterations < 2 || !l->period)
        return 0;
    uint64_t a = l->first + (l->iterations - 2) * l->period, b = a + l->period;
    if (b > s->npos || s->npos - a > LOOP_RING)
        return 0;
    int64_t calls[MC_OP_COUNT] = {0}, bytes[MC_OP_COUNT] = {0};
    for (uint64_t i = a; i < b; i++) {
        const ring_ev *r = &s->ring[i % LOOP_RING];
        if (r->op < 0 || r->op >= MC_OP_COUNT || r->op == MC_OP_COMPUTE)
            continue; /* not counted by stats either */
        calls[r->op] += r->calls;
        bytes[r->op] += r->bytes;
    }
    int64_t it = (int64_t)l->iterations;
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!calls[op])
            continue;
        for (int k = 0; k < 2; k++) {
            int64_t **arr = k ? &s->loop_bytes[op] : &s->loop_calls[op];
            if (!*arr && !(*arr = calloc((size_t)s->nranks, sizeof **arr)))
                return -1;
            int64_t v, per = k ? bytes[op] : calls[op];
            int64_t all = k ? s->per_op[op][rank].bytes : s->per_op[op][rank].calls;
            if (mc_stats_is_poll_op(op) || __builtin_mul_overflow(per, it, &v) || v > all)
                v = -1;
            (*arr)[rank] = v;
        }
    }
    s->loop_counted[rank] = 1;
    return 0;
}

/* Reads one rank: a truncated stream is a warning (its prefix counts), any
 * other error is fatal. */
static mc_err read_rank(stats *s, mc_source *src, int rank, mc_error *err)
{
    mc_event e;
    int rc;
    s->npsends = 0; /* request ids are per rank */
    s->npos = 0;
    mc_loop_finder_reset(s->finder);
    while ((rc = mc_source_next(src, rank, &e, err)) == 1) {
        /* MPI calls only: a time-independent trace's compute amounts vary */
        if (e.op != MC_OP_COMPUTE) {
            if (mc_loop_finder_add(s->finder, &e) != 0)
                return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->dir);
            s->ring[s->npos++ % LOOP_RING] =
                (ring_ev){e.op, (uint32_t)mc_event_calls(&e), event_bytes(&e)};
        }
        int k = add_event(s, rank, &e);
        if (k < 0)
            return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->dir);
        if (k > 0 || s->overflowed) {
            if (!s->overflow.code)
                overflow(s, rank, e.op);
            *err = s->overflow;
            return err->code;
        }
    }
    s->loops[rank] = mc_loop_finder_result(s->finder);
    if (count_loop(s, rank))
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->dir);
    if (rc == 0)
        return MC_OK;
    if (err->code != MC_ERR_TRUNCATED)
        return err->code ? err->code : MC_ERR_FORMAT;
    s->truncated = 1;
    json_array_append_new(s->warnings, json_string(err->msg));
    memset(err, 0, sizeof *err);
    return MC_OK;
}



static int site_cmp(const void *a, const void *b)
{
    const site_stats *x = a, *y = b;
    if (x->c.time_ns != y->c.time_ns)
        return x->c.time_ns > y->c.time_ns ? -1 : 1;
    if (x->c.calls != y->c.calls)
        return x->c.calls > y->c.calls ? -1 : 1;
    if (x->site != y->site)
        return (uint32_t)x->site < (uint32_t)y->site ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

/* ---------------------------------------------------------------- public */

void mc_stats_destroy(mc_stats *s)
{
    if (!s)
        return;
    for (int op = 0; op < MC_OP_COUNT; op++)
        free(s->per_op[op]);
    free(s->ranks);
    free(s->sites);
    free(s->psends);
    mc_loop_finder_destroy(s->finder);
    free(s->loops);
    free(s->ring);
    free(s->loop_counted);
    for (int op = 0; op < MC_OP_COUNT; op++) {
        free(s->loop_calls[op]);
        free(s->loop_bytes[op]);
    }
    json_decref(s->warnings);
    free(s);
}

static int totals_overflow(const mc_stats *s)
{
    int bad = mc_stats_total(s).overflow;
    for (int op = 0; op < MC_OP_COUNT; op++) {
        mc_stats_counts t = {0, 0, 0, 0};
        for (int r = 0; s->per_op[op] && r < s->nranks; r++)
            bad |= add_counts(&t, s->per_op[op][r].calls, s->per_op[op][r].bytes,
                              s->per_op[op][r].time_ns, s->per_op[op][r].polls);
    }
    return bad;
}

mc_stats *mc_stats_collect(mc_source *src, mc_error *err)
{
    mc_stats *s = calloc(1, sizeof *s);
    if (!s) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", src->name ? src->name : "trace");
        return NULL;
    }
    s->dir = src->name ? src->name : "trace";
    s->nranks = src->nranks;
    s->ranks = calloc(s->nranks > 0 ? (size_t)s->nranks : 1, sizeof *s->ranks);
    s->warnings = json_array();
    s->finder = mc_loop_finder_create();
    s->loops = calloc(s->nranks > 0 ? (size_t)s->nranks : 1, sizeof *s->loops);
    s->ring = malloc(LOOP_RING * sizeof *s->ring);
    s->loop_counted = calloc(s->nranks > 0 ? (size_t)s->nranks : 1, 1);
    if (!s->ranks || !s->warnings || !s->finder || !s->loops || !s->ring || !s->loop_counted ||
        sites_grow(s) != 0) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", s->dir);
        mc_stats_destroy(s);
        return NULL;
    }
    for (int r = 0; r < s->nranks; r++)
        if (read_rank(s, src, r, err) != MC_OK) {
            mc_stats_destroy(s);
            return NULL;
        }
    if (totals_overflow(s)) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: a total over all ranks (calls, bytes or time) "
                     "passes 2^63 - 1: a corrupt trace, or one no 64-bit count holds", s->dir);
        mc_stats_destroy(s);
        return NULL;
    }
    return s;
}

int mc_stats_nranks(const mc_stats *s) { return s->nranks; }
mc_stats_grid mc_stats_process_grid(const mc_stats *s) { return s->grid; }

mc_loop mc_stats_main_loop(const mc_stats *s, int rank)
{
    mc_loop none = {0};
    return rank >= 0 && rank < s->nranks ? s->loops[rank] : none;
}

int mc_stats_loop_iterations(const mc_stats *s, uint64_t *iterations, int *ranks_with)
{
    uint64_t it = 0;
    int with = 0, same = 1;
    for (int r = 0; r < s->nranks; r++) {
        if (!s->loops[r].iterations)
            continue;
        if (with++ && s->loops[r].iterations != it)
            same = 0;
        it = s->loops[r].iterations;
    }
    *ranks_with = with;
    *iterations = with && same ? it : 0;
    return with && same;
}
int mc_stats_loop_op(const mc_stats *s, int op, int rank, int64_t *calls, int64_t *bytes)
{
    uint64_t it;
    int with;
    *calls = *bytes = 0;
    if (op < 0 || op >= MC_OP_COUNT || rank >= s->nranks || !mc_stats_loop_iterations(s, &it, &with))
        return 0;
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? s->nranks : rank + 1); r++) {
        if (!s->loops[r].iterations)
            continue; /* no loop: nothing of it inside one */
        if (!s->loop_counted[r])
            return 0;
        int64_t c = s->loop_calls[op] ? s->loop_calls[op][r] : 0;
        int64_t b = s->loop_bytes[op] ? s->loop_bytes[op][r] : 0;
        if (c < 0 || b < 0 || __builtin_add_overflow(*calls, c, calls) ||
            __builtin_add_overflow(*bytes, b, bytes))
            return 0;
    }
    return 1;
}

int mc_stats_truncated(const mc_stats *s) { return s->truncated; }
size_t mc_stats_nwarnings(const mc_stats *s) { return json_array_size(s->warnings); }

const char *mc_stats_warning(const mc_stats *s, size_t i)
{
    return json_string_value(json_array_get(s->warnings, i));
}

int mc_stats_op_seen(const mc_stats *s, int op)
{
    return op >= 0 && op < MC_OP_COUNT && s->per_op[op] != NULL;
}

mc_stats_counts mc_stats_op(const mc_stats *s, int op, int rank)
{
    mc_stats_counts t = {0, 0, 0, 0};
    if (!mc_stats_op_seen(s, op))
        return t;
    if (rank >= 0)
        return rank < s->nranks ? s->per_op[op][rank] : t;
    for (int r = 0; r < s->nranks; r++) /* checked in mc_stats_collect */
        add_counts(&t, s->per_op[op][r].calls, s->per_op[op][r].bytes, s->per_op[op][r].time_ns,
                   s->per_op[op][r].polls);
    return t;
}

mc_stats_rank mc_stats_rank_at(const mc_stats *s, int r)
{
    mc_stats_rank x = {0, 0, 0, 0, 0, 0, 0, 0};
    if (r < 0 || r >= s->nranks)
        return x;
    const rank_stats *k = &s->ranks[r];
    x.app_ns = mc_app_window_ns(&k->win);
    x.mpi_ns = k->mpi_ns;
    x.calls = k->calls;
    x.bytes = k->bytes;
    x.sends = k->sends;
    x.send_bytes = k->send_bytes;
    x.polls = k->polls;
    x.finalized = k->win.have_fin;
    return x;
}

mc_stats_totals mc_stats_total(const mc_stats *s)
{
    mc_stats_totals t;
    memset(&t, 0, sizeof t);
    for (int r = 0; r < s->nranks; r++) {
        mc_stats_rank x = mc_stats_rank_at(s, r);
        t.app_max_ns = x.app_ns > t.app_max_ns ? x.app_ns : t.app_max_ns;
        /* no overflow here: mc_stats_collect refused a trace whose totals pass 2^63 - 1 */
        t.overflow |= add64(&t.app_sum_ns, x.app_ns) | add64(&t.mpi_ns, x.mpi_ns) |
                      add64(&t.calls, x.calls) | add64(&t.bytes, x.bytes) |
                      add64(&t.polls, x.polls);
    }
    t.sends = s->sends;
    t.send_bytes = s->send_bytes;
    return t;
}

size_t mc_stats_top_sites(const mc_stats *s, mc_stats_site *out, size_t max)
{
    site_stats *all = malloc((s->nsites ? s->nsites : 1) * sizeof *all);
    if (!all)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < s->sites_cap; i++)
        if (s->sites[i].op != -1)
            all[k++] = s->sites[i];
    qsort(all, k, sizeof *all, site_cmp);
    size_t n = k < max ? k : max;
    for (size_t i = 0; i < n; i++)
        out[i] = (mc_stats_site){all[i].site, all[i].op, all[i].c};
    free(all);
    return n;
}
