/* mpicast stats DIR [--json]: calls, bytes and time per MPI function and per
 * rank, the message statistics of the EXCIT/INSPIRE study, and the top call
 * sites by MPI time (like mpiP's report). The definitions are in docs/json.md;
 * they are summarised where each value is computed.
 *
 * One pass over each rank's events; memory is O(ranks × functions seen +
 * call sites + live persistent send requests of one rank).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "mpicast/format.h"
#include "mpicast/input.h"

enum { TOP_SITES = 20 };

static const char stats_usage[] =
    "usage: mpicast stats TRACE [--json]\n"
    "\n"
    "Statistics of TRACE (any input kind: a trace directory, an OTF2 archive,\n"
    "a time-independent text trace): per MPI function and per rank the calls,\n"
    "bytes and time inside MPI; per rank the application time, MPI time and\n"
    "MPI %; point-to-point message statistics (messages sent per rank, average\n"
    "length, total volume); the top call sites by MPI time.\n"
    "\n"
    "  --json   one JSON document on stdout (keys: docs/json.md)\n"
    "\n"
    "A truncated trace (a run that crashed) is summarised from its readable\n"
    "prefix, with a warning on stderr and \"truncated\": true; exit status 0.\n"
    "\n"
    "Example:\n"
    "  mpicast stats run9/ --json > run9.json\n"
    "Exit status: 0 ok; 1 unreadable or corrupt trace; 2 usage error.\n";

/* ---------------------------------------------------------------- data */

typedef struct counts {
    int64_t calls, bytes, time_ns;
    int64_t polls; /* calls that completed or found nothing (Test*, Iprobe) */
} counts;

typedef struct rank_stats {
    int64_t first_start, last_end; /* over all events */
    int64_t init_end, fin_start;   /* of Init / Finalize, when seen */
    int have_events, have_init, have_fin;
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

typedef struct stats {
    const char *dir;
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
    int bad_ops_warned;
} stats;

static int oom(void)
{
    fputs("mpicast: stats: out of memory\n", stderr);
    return CLI_BAD_INPUT;
}

static void stats_free(stats *s)
{
    for (int op = 0; op < MC_OP_COUNT; op++)
        free(s->per_op[op]);
    free(s->ranks);
    free(s->sites);
    free(s->psends);
    json_decref(s->warnings);
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

static int site_add(stats *s, const mc_event *e, int64_t bytes)
{
    if (2 * (s->nsites + 1) > s->sites_cap && sites_grow(s) != 0)
        return -1;
    site_stats *slot = site_slot(s->sites, s->sites_cap, e->site, e->op);
    if (slot->op == -1) {
        *slot = (site_stats){e->site, e->op, {0, 0, 0, 0}};
        s->nsites++;
    }
    slot->c.calls++;
    slot->c.bytes += bytes;
    slot->c.time_ns += mc_event_duration(e);
    return 0;
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
    switch (op) {
    case MC_OP_SEND: case MC_OP_SSEND: case MC_OP_BSEND: case MC_OP_RSEND:
    case MC_OP_ISEND: case MC_OP_ISSEND: case MC_OP_IBSEND: case MC_OP_IRSEND:
    case MC_OP_SENDRECV: case MC_OP_SENDRECV_REPLACE:
        return 1;
    default:
        return 0;
    }
}

static int is_send_init(int op)
{
    return op == MC_OP_SEND_INIT || op == MC_OP_SSEND_INIT || op == MC_OP_BSEND_INIT ||
           op == MC_OP_RSEND_INIT;
}

/* Counts one point-to-point message (the EXCIT/INSPIRE statistic); messages
 * to MPI_PROC_NULL (MC_NONE) move nothing and are skipped. */
static void count_message(stats *s, rank_stats *r, int32_t peer, int64_t bytes)
{
    if (peer < 0)
        return;
    r->sends++;
    r->send_bytes += bytes;
    s->sends++;
    s->send_bytes += bytes;
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
static int is_poll_op(int op)
{
    return (op >= MC_OP_TEST && op <= MC_OP_TESTSOME) || op == MC_OP_IPROBE;
}

/* A poll that found nothing: a test that completed no request, an Iprobe
 * without a message (the replay folds runs of them into a wait: engine.c). */
static int is_failed_poll(const mc_event *e)
{
    return (e->op == MC_OP_IPROBE && e->bytes2 == 0 && e->peer != MC_NONE) ||
           (e->op != MC_OP_IPROBE && is_poll_op(e->op) && e->nvals == 0);
}

/* Time window of the application, as mpiP: from the end of MPI_Init to the
 * start of MPI_Finalize (first/last event when they are missing). */
static void event_window(rank_stats *r, const mc_event *e)
{
    if (!r->have_events) {
        r->first_start = e->t_start;
        r->have_events = 1;
    }
    r->last_end = e->t_end;
    if (e->op == MC_OP_INIT && !r->have_init) {
        r->init_end = e->t_end;
        r->have_init = 1;
    } else if (e->op == MC_OP_FINALIZE && !r->have_fin) {
        r->fin_start = e->t_start;
        r->have_fin = 1;
    }
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
    rank_stats *r = &s->ranks[rank];
    int64_t bytes = event_bytes(e), dur = mc_event_duration(e);
    if (!s->per_op[e->op] && !(s->per_op[e->op] = calloc((size_t)s->nranks, sizeof(counts))))
        return -1;
    counts *c = &s->per_op[e->op][rank];
    c->calls++;
    c->bytes += bytes;
    c->time_ns += dur;
    r->calls++;
    r->bytes += bytes;
    if (is_failed_poll(e)) {
        c->polls++;
        r->polls++;
    }
    event_window(r, e);
    if (e->op != MC_OP_INIT && e->op != MC_OP_FINALIZE) {
        r->mpi_ns += dur;
        if (site_add(s, e, bytes) != 0)
            return -1;
    }
    return event_messages(s, r, e);
}

/* Reads one rank. Returns 0, or an exit code after reporting: a truncated
 * stream is a warning (its prefix counts), any other error is fatal. */
static int read_rank(stats *s, mc_source *src, int rank)
{
    mc_event e;
    mc_error err = {0};
    int rc;
    s->npsends = 0; /* request ids are per rank */
    while ((rc = mc_source_next(src, rank, &e, &err)) == 1)
        if (add_event(s, rank, &e) != 0)
            return oom();
    if (rc == 0)
        return 0;
    if (err.code != MC_ERR_TRUNCATED)
        return cli_fail(&err);
    s->truncated = 1;
    fprintf(stderr, "mpicast: warning: %s (statistics cover the readable prefix)\n", err.msg);
    json_array_append_new(s->warnings, json_string(err.msg));
    return 0;
}

/* ---------------------------------------------------------------- derived values */

static double seconds(int64_t ns) { return (double)ns / 1e9; }

static int64_t app_ns(const rank_stats *r)
{
    if (!r->have_events)
        return 0;
    int64_t from = r->have_init ? r->init_end : r->first_start;
    int64_t to = r->have_fin ? r->fin_start : r->last_end;
    return to > from ? to - from : 0;
}

static double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

typedef struct totals {
    int64_t app_max_ns, app_sum_ns, mpi_ns, calls, bytes, polls;
} totals;

static totals compute_totals(const stats *s)
{
    totals t = {0, 0, 0, 0, 0, 0};
    for (int r = 0; r < s->nranks; r++) {
        int64_t a = app_ns(&s->ranks[r]);
        t.app_max_ns = a > t.app_max_ns ? a : t.app_max_ns;
        t.app_sum_ns += a;
        t.mpi_ns += s->ranks[r].mpi_ns;
        t.calls += s->ranks[r].calls;
        t.bytes += s->ranks[r].bytes;
        t.polls += s->ranks[r].polls;
    }
    return t;
}

static counts op_total(const stats *s, int op)
{
    counts t = {0, 0, 0, 0};
    for (int r = 0; s->per_op[op] && r < s->nranks; r++) {
        t.polls += s->per_op[op][r].polls;
        t.calls += s->per_op[op][r].calls;
        t.bytes += s->per_op[op][r].bytes;
        t.time_ns += s->per_op[op][r].time_ns;
    }
    return t;
}

static double sends_per_rank(const stats *s) { return s->nranks ? (double)s->sends / s->nranks : 0; }
static double avg_bytes(const stats *s) { return s->sends ? (double)s->send_bytes / (double)s->sends : 0; }

/* Management ops by range, not by kind letter (see print.c). */
static const char *kind_name(int op)
{
    if (op >= MC_OP_COMM_DUP && op <= MC_OP_INTERCOMM_CREATE)
        return "communicator";
    switch (mc_op_kind_of(op)) {
    case MC_KIND_P: return "p2p";
    case MC_KIND_C: return "collective";
    case MC_KIND_W: return "completion";
    default: return "other";
    }
}

/* "MPI_Send": the name users know from their code. */
static void mpi_name(char *buf, size_t len, int op)
{
    snprintf(buf, len, "MPI_%s", mc_op_name(op));
}

/* The top sites by MPI time, ties broken by calls then ids (stable output). */
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

/* Sorted copy of the top sites; *n gets the count. */
static site_stats *top_sites(const stats *s, size_t *n)
{
    site_stats *all = malloc((s->nsites ? s->nsites : 1) * sizeof *all);
    if (!all)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->sites_cap; i++)
        if (s->sites[i].op != -1)
            all[k++] = s->sites[i];
    qsort(all, k, sizeof *all, site_cmp);
    *n = k < TOP_SITES ? k : TOP_SITES;
    return all;
}

static const mc_meta_site *site_info(const stats *s, int32_t id)
{
    return s->meta && id != 0 ? mc_meta_site_find(s->meta, id) : NULL;
}

/* ---------------------------------------------------------------- JSON */

static json_t *function_json(const stats *s, int op)
{
    counts t = op_total(s, op);
    json_t *per_rank = json_array();
    for (int r = 0; per_rank && r < s->nranks; r++) {
        const counts *c = &s->per_op[op][r];
        json_t *o = json_pack("{sisIsIsf}", "rank", r, "calls", (json_int_t)c->calls, "bytes",
                              (json_int_t)c->bytes, "time", seconds(c->time_ns));
        if (o && is_poll_op(op))
            json_object_set_new(o, "polls", json_integer((json_int_t)c->polls));
        if (json_array_append_new(per_rank, o)) {
            json_decref(per_rank);
            return NULL;
        }
    }
    json_t *o = json_pack("{sssIsIsfso}", "kind", kind_name(op), "calls", (json_int_t)t.calls,
                          "bytes", (json_int_t)t.bytes, "time", seconds(t.time_ns), "per_rank",
                          per_rank);
    if (o && is_poll_op(op))
        json_object_set_new(o, "polls", json_integer((json_int_t)t.polls));
    return o;
}

static json_t *functions_json(const stats *s)
{
    json_t *fns = json_object();
    for (int op = 0; fns && op < MC_OP_COUNT; op++) {
        if (!s->per_op[op])
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        if (json_object_set_new(fns, name, function_json(s, op))) {
            json_decref(fns);
            return NULL;
        }
    }
    return fns;
}

static json_t *per_rank_json(const stats *s)
{
    json_t *arr = json_array();
    for (int r = 0; arr && r < s->nranks; r++) {
        const rank_stats *x = &s->ranks[r];
        int64_t app = app_ns(x);
        json_t *o = json_pack("{sisfsfsfsIsIsIsI}", "rank", r, "app_time", seconds(app),
                              "mpi_time", seconds(x->mpi_ns), "mpi_percent",
                              percent((double)x->mpi_ns, (double)app), "calls",
                              (json_int_t)x->calls, "bytes", (json_int_t)x->bytes, "sends",
                              (json_int_t)x->sends, "send_bytes", (json_int_t)x->send_bytes);
        if (o)
            json_object_set_new(o, "polls", json_integer((json_int_t)x->polls));
        if (json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *site_json(const stats *s, const site_stats *x, const totals *t)
{
    const mc_meta_site *info = site_info(s, x->site);
    char name[64];
    mpi_name(name, sizeof name, x->op);
    return json_pack("{sisssIsIsfsfsfsssssiss}", "id", (int)x->site, "mpi", name, "calls",
                     (json_int_t)x->c.calls, "bytes", (json_int_t)x->c.bytes, "time",
                     seconds(x->c.time_ns), "app_percent",
                     percent((double)x->c.time_ns, (double)t->app_sum_ns), "mpi_percent",
                     percent((double)x->c.time_ns, (double)t->mpi_ns), "caller",
                     info ? info->function : "", "file", info ? info->file : "", "line",
                     info ? info->line : 0, "module", info ? info->module : "");
}

static json_t *sites_json(const stats *s, const totals *t)
{
    size_t n = 0;
    site_stats *top = top_sites(s, &n);
    json_t *arr = top ? json_array() : NULL;
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, site_json(s, &top[i], t))) {
            json_decref(arr);
            arr = NULL;
        }
    free(top);
    return arr;
}

static int print_json(const stats *s)
{
    totals t = compute_totals(s);
    json_t *doc = json_pack(
        "{sssisbsOsfsfsfsIsIsos{sIsfsfsI}soso}", "trace", s->dir, "ranks", s->nranks,
        "truncated", s->truncated, "warnings", s->warnings, "app_time", seconds(t.app_max_ns),
        "mpi_time", seconds(t.mpi_ns), "mpi_percent",
        percent((double)t.mpi_ns, (double)t.app_sum_ns), "calls", (json_int_t)t.calls, "bytes",
        (json_int_t)t.bytes, "functions", functions_json(s), "messages", "sends",
        (json_int_t)s->sends, "sends_per_rank", sends_per_rank(s), "avg_bytes", avg_bytes(s),
        "total_bytes", (json_int_t)s->send_bytes, "per_rank", per_rank_json(s), "sites",
        sites_json(s, &t));
    if (doc) /* after "bytes", where the keys of the document are listed */
        json_object_set_new(doc, "polls", json_integer((json_int_t)t.polls));
    if (!doc) {
        /* jansson refuses strings that are not UTF-8, e.g. such a DIR name */
        fprintf(stderr, "mpicast: %s: cannot build the JSON document (out of memory, or a "
                        "name that is not UTF-8)\n", s->dir);
        return CLI_BAD_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

/* ---------------------------------------------------------------- text */

static void print_ranks_text(const stats *s, const totals *t)
{
    printf("Per rank        %14s %14s %7s %12s %16s %10s\n", "app time (s)", "MPI time (s)",
           "MPI %", "calls", "bytes", "sends");
    for (int r = 0; r < s->nranks; r++) {
        const rank_stats *x = &s->ranks[r];
        int64_t app = app_ns(x);
        printf("%-15d %14.6f %14.6f %7.2f %12" PRId64 " %16" PRId64 " %10" PRId64 "\n", r,
               seconds(app), seconds(x->mpi_ns), percent((double)x->mpi_ns, (double)app),
               x->calls, x->bytes, x->sends);
    }
    printf("%-15s %14.6f %14.6f %7.2f %12" PRId64 " %16" PRId64 " %10" PRId64 "\n",
           "all (max/sum)", seconds(t->app_max_ns), seconds(t->mpi_ns),
           percent((double)t->mpi_ns, (double)t->app_sum_ns), t->calls, t->bytes, s->sends);
}

static void print_functions_text(const stats *s, const totals *t)
{
    printf("\nFunctions (all ranks)   %12s %16s %14s %7s\n", "calls", "bytes", "time (s)",
           "MPI %");
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!s->per_op[op])
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        counts c = op_total(s, op);
        printf("%-23s %12" PRId64 " %16" PRId64 " %14.6f ", name, c.calls, c.bytes,
               seconds(c.time_ns));
        /* Init and Finalize lie outside the MPI time (see docs/json.md). */
        if (op == MC_OP_INIT || op == MC_OP_FINALIZE)
            printf("%7s\n", "-");
        else
            printf("%7.2f\n", percent((double)c.time_ns, (double)t->mpi_ns));
    }
    printf("\nFunctions per rank      %6s %12s %16s %14s\n", "rank", "calls", "bytes",
           "time (s)");
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (!s->per_op[op])
            continue;
        char name[64];
        mpi_name(name, sizeof name, op);
        for (int r = 0; r < s->nranks; r++) {
            const counts *c = &s->per_op[op][r];
            if (c->calls)
                printf("%-23s %6d %12" PRId64 " %16" PRId64 " %14.6f\n", name, r, c->calls,
                       c->bytes, seconds(c->time_ns));
        }
    }
}

static void print_messages_text(const stats *s)
{
    printf("\nPoint-to-point messages sent\n");
    printf("  messages          %" PRId64 "\n", s->sends);
    printf("  per rank          %.2f\n", sends_per_rank(s));
    printf("  average length    %.2f bytes\n", avg_bytes(s));
    printf("  total volume      %" PRId64 " bytes\n", s->send_bytes);
}

/* Polls: Test* and Iprobe calls that found nothing (a polling loop's). */
static void print_polls_text(const stats *s, const totals *t)
{
    printf("\nPolls (Test*/Iprobe calls that completed or found nothing)\n");
    printf("  polls             %" PRId64 "\n", t->polls);
    for (int op = 0; op < MC_OP_COUNT; op++)
        if (s->per_op[op] && is_poll_op(op)) {
            char name[64];
            mpi_name(name, sizeof name, op);
            printf("  %-17s %" PRId64 " of %" PRId64 " calls\n", name, op_total(s, op).polls,
                   op_total(s, op).calls);
        }
}

static void print_sites_text(const stats *s, const totals *t)
{
    size_t n = 0;
    site_stats *top = top_sites(s, &n);
    if (!top)
        return;
    printf("\nTop call sites by MPI time\n  %-8s %-22s %10s %14s %7s %7s  %s\n", "site", "call",
           "calls", "time (s)", "App %", "MPI %", "location");
    for (size_t i = 0; i < n; i++) {
        const site_stats *x = &top[i];
        const mc_meta_site *info = site_info(s, x->site);
        char name[64], where[512];
        snprintf(where, sizeof where, "%s", x->site == 0 ? "(unknown site)" : "?");
        mpi_name(name, sizeof name, x->op);
        if (info && info->file[0])
            snprintf(where, sizeof where, "%s (%s:%d)", info->function[0] ? info->function : "?",
                     info->file, info->line);
        else if (info)
            snprintf(where, sizeof where, "%s (%s+0x%" PRIx64 ")",
                     info->function[0] ? info->function : "?", info->module, info->offset);
        printf("  %-8" PRIx32 " %-22s %10" PRId64 " %14.6f %7.2f %7.2f  %s\n", (uint32_t)x->site,
               name, x->c.calls, seconds(x->c.time_ns),
               percent((double)x->c.time_ns, (double)t->app_sum_ns),
               percent((double)x->c.time_ns, (double)t->mpi_ns), where);
    }
    free(top);
}

static int print_text(const stats *s)
{
    totals t = compute_totals(s);
    printf("Trace %s: %d ranks%s\n\n", s->dir, s->nranks,
           s->truncated ? " (truncated: readable prefix only)" : "");
    print_ranks_text(s, &t);
    print_functions_text(s, &t);
    print_messages_text(s);
    print_polls_text(s, &t);
    print_sites_text(s, &t);
    return CLI_OK;
}

/* ---------------------------------------------------------------- command */

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, const char **dir, int *json)
{
    *dir = NULL;
    *json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            fputs(stats_usage, stdout);
            return CLI_OK;
        } else if (strcmp(a, "--json") == 0) {
            *json = 1;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("stats: unknown option '%s'; see 'mpicast stats --help'", a);
        } else if (*dir) {
            return cli_usage_error("stats: one trace directory expected, got '%s' and '%s'",
                                   *dir, a);
        } else {
            *dir = a;
        }
    }
    if (!*dir)
        return cli_usage_error("stats: missing trace directory; see 'mpicast stats --help'");
    return -1;
}

static int collect(stats *s, mc_source *src)
{
    s->nranks = src->nranks;
    s->meta = mc_trace_meta(src);
    s->ranks = calloc(s->nranks > 0 ? (size_t)s->nranks : 1, sizeof *s->ranks);
    s->warnings = json_array();
    if (!s->ranks || !s->warnings || sites_grow(s) != 0)
        return oom();
    for (int r = 0; r < s->nranks; r++) {
        int rc = read_rank(s, src, r);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int cmd_stats(int argc, char **argv)
{
    const char *dir;
    int json;
    int rc = parse_args(argc, argv, &dir, &json);
    if (rc >= 0)
        return rc;
    mc_error err = {0};
    mc_source *src = mc_input_open(dir, &err);
    if (!src)
        return cli_fail(&err);
    stats s;
    memset(&s, 0, sizeof s);
    s.dir = dir;
    rc = collect(&s, src);
    if (rc == 0)
        rc = json ? print_json(&s) : print_text(&s);
    stats_free(&s);
    mc_source_close(src); /* after printing: the meta data belongs to the source */
    return rc;
}
