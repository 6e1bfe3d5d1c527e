/* Checks traces written by libmpicast-trace*.so (driven by test_trace_run.sh).
 *
 *   test_trace_check known DIR [cpu]   the exact events of tests/mpi/trace_known.{c,f90}
 *                                      at 2 ranks, and meta.json
 *   test_trace_check all DIR N         tests/mpi/trace_all.c at N ranks: every op
 *                                      present; request ids, communicator ids and
 *                                      memberships, per-rank vectors consistent;
 *                                      on disk, no newcomm outside communicator
 *                                      management (it cost 10 bytes an event)
 *   test_trace_check prefix DIR N      each of N rank files yields a readable prefix
 *                                      (>= 100 events), then a clean end or
 *                                      MC_ERR_TRUNCATED
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "check.h"
#include "format/codec.h"
#include "mpicast/format.h"

#define MAXEV 64

typedef struct rank_trace {
    mc_event ev[MAXEV];
    int64_t vals[MAXEV][16];
    int n;
} rank_trace;

static void load(rank_trace *t, const char *dir, int rank)
{
    char path[4200];
    mc_rank_path(path, sizeof path, dir, rank);
    mc_error err = {0};
    mc_rank_reader *r = mc_rank_reader_open(path, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    t->n = 0;
    int rc;
    mc_event e;
    while ((rc = mc_rank_reader_next(r, &e, &err)) == 1) {
        CHECK(t->n < MAXEV);
        CHECK(e.nvals <= 16);
        t->ev[t->n] = e;
        memcpy(t->vals[t->n], e.vals, e.nvals * sizeof *e.vals);
        t->ev[t->n].vals = t->vals[t->n];
        t->n++;
    }
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(rc, 0);
    mc_rank_reader_close(r);
}

static int step;
static const mc_event *expect_op(const rank_trace *t, int rank, int op)
{
    if (step >= t->n || t->ev[step].op != op) {
        fprintf(stderr, "rank %d event %d: op %s, expected %s\n", rank, step,
                step < t->n ? mc_op_name(t->ev[step].op) : "<end>", mc_op_name(op));
        exit(1);
    }
    return &t->ev[step++];
}

static void check_vals(const mc_event *e, const int64_t *want, uint32_t n)
{
    CHECK_EQ_INT(e->nvals, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ_INT(e->vals[i], want[i]);
}

/* The sequence of trace_known at 2 ranks, rank r (see tests/mpi/trace_known.c). */
static uint64_t check_known_rank(const rank_trace *t, int r, int cpu)
{
    int o = 1 - r;
    const mc_event *e;
    step = 0;
    expect_op(t, r, MC_OP_INIT);
    if (r == 0) {
        e = expect_op(t, r, MC_OP_SEND);
        CHECK_EQ_INT(e->peer, 1);
        CHECK_EQ_INT(e->tag, 7);
        CHECK_EQ_INT(e->bytes, 16);
    } else {
        e = expect_op(t, r, MC_OP_RECV);
        CHECK_EQ_INT(e->peer, 0); /* matched wildcard source */
        CHECK_EQ_INT(e->tag, 7);  /* matched wildcard tag */
        CHECK_EQ_INT(e->bytes, 32);
        CHECK_EQ_INT(e->bytes2, 16);
    }
    CHECK_EQ_INT(e->comm, MC_COMM_WORLD);

    e = expect_op(t, r, MC_OP_IRECV);
    CHECK_EQ_INT(e->peer, o);
    CHECK_EQ_INT(e->tag, MC_ANY);
    CHECK_EQ_INT(e->bytes, 24);
    CHECK_EQ_INT(e->req, 1);
    e = expect_op(t, r, MC_OP_ISEND);
    CHECK_EQ_INT(e->peer, o);
    CHECK_EQ_INT(e->tag, 10 + r);
    CHECK_EQ_INT(e->bytes, 16);
    CHECK_EQ_INT(e->req, 2);
    e = expect_op(t, r, MC_OP_WAITALL);
    check_vals(e, (int64_t[]){1, o, 10 + o, 16, 2, MC_NONE, MC_NONE, 0}, 8);

    e = expect_op(t, r, MC_OP_ALLREDUCE);
    CHECK_EQ_INT(e->peer, MC_NONE);
    CHECK_EQ_INT(e->bytes, 4);
    CHECK_EQ_INT(e->bytes2, 4);
    CHECK_EQ_INT(e->peer2, 2);

    e = expect_op(t, r, MC_OP_COMM_SPLIT);
    CHECK_EQ_INT(e->tag, 0);
    CHECK_EQ_INT(e->bytes, -r);
    CHECK_EQ_INT(e->peer2, 2);
    check_vals(e, (int64_t[]){1, 0}, 2); /* key -rank reverses the order */
    uint64_t split = e->newcomm;
    CHECK(split == (1ull << 32)); /* seq 1, lowest member 0 */

    e = expect_op(t, r, MC_OP_SENDRECV);
    CHECK(e->comm == split);
    CHECK_EQ_INT(e->peer, o);
    CHECK_EQ_INT(e->tag, 5);
    CHECK_EQ_INT(e->bytes, 4);
    CHECK_EQ_INT(e->peer2, o);
    CHECK_EQ_INT(e->tag2, 5);
    CHECK_EQ_INT(e->bytes2, 4);

    e = expect_op(t, r, MC_OP_SEND_INIT);
    CHECK_EQ_INT(e->peer, o);
    CHECK_EQ_INT(e->tag, 3);
    CHECK_EQ_INT(e->bytes, 4);
    CHECK_EQ_INT(e->req, 3);
    e = expect_op(t, r, MC_OP_RECV_INIT);
    CHECK_EQ_INT(e->peer, o);
    CHECK_EQ_INT(e->req, 4);
    for (int it = 0; it < 2; it++) {
        e = expect_op(t, r, MC_OP_STARTALL);
        check_vals(e, (int64_t[]){4, 3}, 2); /* persistent requests keep their ids */
        e = expect_op(t, r, MC_OP_WAITALL);
        check_vals(e, (int64_t[]){4, o, 3, 4, 3, MC_NONE, MC_NONE, 0}, 8);
    }
    e = expect_op(t, r, MC_OP_REQUEST_FREE);
    check_vals(e, (int64_t[]){4}, 1);
    e = expect_op(t, r, MC_OP_REQUEST_FREE);
    check_vals(e, (int64_t[]){3}, 1);
    e = expect_op(t, r, MC_OP_COMM_FREE);
    CHECK(e->comm == split);

    CHECK_EQ_INT(expect_op(t, r, MC_OP_PCONTROL)->tag, 0);
    CHECK_EQ_INT(expect_op(t, r, MC_OP_PCONTROL)->tag, 1); /* paused barrier absent */
    CHECK_EQ_INT(expect_op(t, r, MC_OP_PCONTROL)->tag, 2);
    CHECK_EQ_INT(expect_op(t, r, MC_OP_BARRIER)->peer2, 2);
    expect_op(t, r, MC_OP_FINALIZE);
    CHECK_EQ_INT(t->n, step);

    /* Times: ordered, the epoch at the end of Init; call sites known. */
    CHECK_EQ_INT(t->ev[0].t_end, 0);
    for (int i = 0; i < t->n; i++) {
        CHECK(t->ev[i].t_start <= t->ev[i].t_end);
        if (i > 0)
            CHECK(t->ev[i - 1].t_end <= t->ev[i].t_start);
        CHECK(t->ev[i].site != 0);
        if (cpu)
            CHECK(t->ev[i].cpu >= 0);
        else
            CHECK_EQ_INT(t->ev[i].cpu, -1);
    }
    return split;
}

static void check_meta(const char *dir, const rank_trace *t0, uint64_t split, int cpu)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_read(dir, &err);
    if (!m)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(m != NULL);
    CHECK_EQ_INT(mc_meta_nranks(m), 2);
    /* CLOCK_MONOTONIC ns, read with clock_gettime or interpolated with the
     * TSC ("CLOCK_MONOTONIC+TSC", src/trace/clock.h) */
    const char *timer = mc_meta_get(m, "timer");
    CHECK(strcmp(timer, "CLOCK_MONOTONIC") == 0 || strcmp(timer, "CLOCK_MONOTONIC+TSC") == 0);
    CHECK_EQ_STR(mc_meta_get(m, "mode"), cpu ? "cpu" : "wall");
    CHECK(strstr(mc_meta_get(m, "command"), "known") != NULL);
    CHECK(strlen(mc_meta_get(m, "mpi_library")) > 0);
    const mc_meta_comm *c = mc_meta_comm_find(m, split);
    CHECK(c != NULL);
    CHECK_EQ_INT(c->size, 2);
    CHECK_EQ_INT(c->members[0], 1);
    CHECK_EQ_INT(c->members[1], 0);
    CHECK(mc_meta_comm_find(m, MC_COMM_WORLD) != NULL);
    for (int i = 0; i < t0->n; i++) {
        const mc_meta_site *s = mc_meta_site_find(m, t0->ev[i].site);
        CHECK(s != NULL);
        CHECK(strlen(s->module) > 0);
        /* symbolised by `mpicast trace` (addr2line; the programs have -g) */
        CHECK(strstr(s->file, "trace_known") != NULL);
        CHECK(s->line > 0);
    }
    mc_meta_destroy(m);
}

static int check_known(const char *dir, int cpu)
{
    static rank_trace t[2];
    uint64_t split[2];
    for (int r = 0; r < 2; r++) {
        load(&t[r], dir, r);
        split[r] = check_known_rank(&t[r], r, cpu);
    }
    CHECK(split[0] == split[1]);
    /* The same call site has the same id on both ranks. */
    CHECK_EQ_INT(t[0].ev[2].site, t[1].ev[2].site);
    check_meta(dir, &t[0], split[0], cpu);
    printf("known: %d + %d events checked\n", t[0].n, t[1].n);
    return 0;
}


/* ---------------------------------------------------------------- all */

typedef struct big_trace {
    mc_event *ev;
    int n, cap;
} big_trace;

static void load_big(big_trace *t, const char *dir, int rank)
{
    char path[4200];
    mc_rank_path(path, sizeof path, dir, rank);
    mc_error err = {0};
    mc_rank_reader *r = mc_rank_reader_open(path, &err);
    if (!r)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(r != NULL);
    mc_event e;
    int rc;
    while ((rc = mc_rank_reader_next(r, &e, &err)) == 1) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 256;
            t->ev = realloc(t->ev, (size_t)t->cap * sizeof *t->ev);
            CHECK(t->ev != NULL);
        }
        int64_t *v = malloc((e.nvals + 1) * sizeof *v);
        CHECK(v != NULL);
        memcpy(v, e.vals, e.nvals * sizeof *v);
        e.vals = v;
        t->ev[t->n++] = e;
    }
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(rc, 0);
    mc_rank_reader_close(r);
}

static int is_completion(int op) { return op >= MC_OP_WAIT && op <= MC_OP_TESTSOME; }
static int is_persistent(int op) { return op >= MC_OP_SEND_INIT && op <= MC_OP_RECV_INIT; }
static int is_newcomm(int op)
{
    return mc_op_kind_of(op) == MC_KIND_M && op != MC_OP_COMM_FREE;
}
static int is_vcoll(int op)
{
    static const int v[] = {MC_OP_GATHERV, MC_OP_SCATTERV, MC_OP_ALLGATHERV,
                            MC_OP_ALLTOALLV, MC_OP_ALLTOALLW, MC_OP_REDUCE_SCATTER,
                            MC_OP_IGATHERV, MC_OP_ISCATTERV, MC_OP_IALLGATHERV,
                            MC_OP_IALLTOALLV, MC_OP_IALLTOALLW, MC_OP_IREDUCE_SCATTER};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] == op)
            return 1;
    return 0;
}

/* Members of a comm-creation event (cart info excluded), as a bit set. */
static uint64_t member_set(const mc_event *e)
{
    uint32_t n = e->nvals;
    if (e->op == MC_OP_CART_CREATE || e->op == MC_OP_CART_SUB)
        n = (uint32_t)e->peer2;
    uint64_t set = 0;
    for (uint32_t i = 0; i < n; i++) {
        CHECK(e->vals[i] >= 0 && e->vals[i] < 64);
        set |= 1ull << e->vals[i];
    }
    return set;
}

#define MAXCOMMS 256
static uint64_t comm_ids[MAXCOMMS], comm_sets[MAXCOMMS];
static int ncomm_ids;

static void note_comm(uint64_t id, uint64_t set, int rank)
{
    CHECK(set & (1ull << rank));
    CHECK_EQ_INT(id & 0xffffffffu, __builtin_ctzll(set)); /* lowest member */
    for (int i = 0; i < ncomm_ids; i++)
        if (comm_ids[i] == id) {
            CHECK(comm_sets[i] == set); /* same id, same members on every rank */
            return;
        }
    CHECK(ncomm_ids < MAXCOMMS);
    comm_ids[ncomm_ids] = id;
    comm_sets[ncomm_ids++] = set;
}

static void check_rank_all(const big_trace *t, int rank, int nranks, long *op_count)
{
    static uint32_t completed[4096], started[4096];
    static int persistent[4096];
    memset(completed, 0, sizeof completed);
    memset(started, 0, sizeof started);
    memset(persistent, 0, sizeof persistent);
    uint32_t last_req = 0;
    uint64_t known[MAXCOMMS];
    int nknown = 0, pcontrol3 = 0;
    for (int i = 0; i < t->n; i++) {
        const mc_event *e = &t->ev[i];
        op_count[e->op]++;
        /* communicator: world, self, or one this rank created before */
        if (e->op != MC_OP_INIT && e->comm != MC_COMM_WORLD &&
            e->comm != (MC_COMM_SELF_BASE | (uint32_t)rank)) {
            int ok = 0;
            for (int k = 0; k < nknown; k++)
                ok |= known[k] == e->comm;
            if (!ok)
                fprintf(stderr, "rank %d event %d (%s): unknown comm %llx\n", rank, i,
                        mc_op_name(e->op), (unsigned long long)e->comm);
            CHECK(ok);
        }
        if (mc_op_kind_of(e->op) == MC_KIND_P) {
            CHECK(e->peer >= MC_ANY && e->peer < nranks);
            CHECK(e->peer2 >= MC_ANY && e->peer2 < nranks);
            CHECK(e->bytes >= 0 && e->bytes2 >= 0);
        }
        if (e->req) {
            CHECK(e->req == last_req + 1); /* ids from 1, increasing, no reuse */
            CHECK(e->req < 4096);
            last_req = e->req;
            persistent[e->req] = is_persistent(e->op);
        }
        if (e->op == MC_OP_START || e->op == MC_OP_STARTALL)
            for (uint32_t k = 0; k < e->nvals; k++) {
                CHECK(e->vals[k] > 0 && e->vals[k] <= last_req);
                started[e->vals[k]]++;
            }
        if (is_completion(e->op)) {
            CHECK(e->nvals % 4 == 0);
            for (uint32_t k = 0; k < e->nvals; k += 4) {
                int64_t id = e->vals[k];
                CHECK(id > 0 && id <= last_req); /* every request was seen */
                completed[id]++;
                CHECK(e->vals[k + 1] >= MC_NONE && e->vals[k + 1] < nranks);
                CHECK(e->vals[k + 3] >= 0);
            }
        }
        if (is_vcoll(e->op))
            CHECK(e->nvals == 0 || e->nvals == (uint32_t)e->peer2 ||
                  e->nvals == 2 * (uint32_t)e->peer2);
        if (is_newcomm(e->op) && e->newcomm != MC_COMM_NULL) {
            note_comm(e->newcomm, member_set(e), rank);
            for (int k = 0; k < nknown; k++)
                CHECK(known[k] != e->newcomm); /* never two comms with one id */
            CHECK(nknown < MAXCOMMS);
            known[nknown++] = e->newcomm;
        }
        if (is_newcomm(e->op) && e->newcomm == MC_COMM_NULL)
            CHECK_EQ_INT(e->nvals, 0);
        if (e->op == MC_OP_PCONTROL && e->tag == 3)
            pcontrol3 = 1;
    }
    for (uint32_t id = 1; id <= last_req; id++) {
        if (persistent[id])
            CHECK_EQ_INT(completed[id], started[id]);
        else if (completed[id] != 1) {
            fprintf(stderr, "rank %d: request %u completed %u times\n", rank, id, completed[id]);
            exit(1);
        }
    }
    CHECK(pcontrol3);
}

/* The rank file's events as stored (no reader in between, which delivers
 * the old tracers' MC_COMM_NULL as 0): the newcomm field is present only
 * in communicator management. Returns the events seen. */
static long stored_newcomm_only_in_management(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    unsigned char hdr[MC_CHUNK_HEADER_SIZE];
    CHECK(fread(hdr, 1, MC_FILE_HEADER_SIZE, f) == MC_FILE_HEADER_SIZE);
    long events = 0;
    while (fread(hdr, 1, MC_CHUNK_HEADER_SIZE, f) == MC_CHUNK_HEADER_SIZE) {
        uint32_t n = mc_get_u32(hdr + 4), rawlen = mc_get_u32(hdr + 8), clen = mc_get_u32(hdr + 12);
        unsigned char *comp = malloc(clen), *raw = malloc(rawlen);
        CHECK(comp && raw && fread(comp, 1, clen, f) == clen);
        CHECK(ZSTD_decompress(raw, rawlen, comp, clen) == rawlen);
        const unsigned char *p = raw, *end = raw + rawlen;
        for (uint32_t i = 0; i < n; i++, events++) {
            uint64_t op, fl, v, nv;
            CHECK(mc_get_uvarint(&p, end, &op) == 0 && mc_get_uvarint(&p, end, &fl) == 0);
            for (int k = 0; k < 2; k++) /* start, duration */
                CHECK(mc_get_uvarint(&p, end, &v) == 0);
            if ((fl & MC_F_NEWCOMM) && mc_op_kind_of((int)op) != MC_KIND_M)
                fprintf(stderr, "%s: event %ld (%s) stores a newcomm\n", path, events,
                        mc_op_name((int)op));
            CHECK(!(fl & MC_F_NEWCOMM) || mc_op_kind_of((int)op) == MC_KIND_M);
            for (unsigned bit = MC_F_SITE; bit <= MC_F_CPU; bit <<= 1)
                if (fl & bit)
                    CHECK(mc_get_uvarint(&p, end, &v) == 0);
            nv = 0;
            if (fl & MC_F_VALS)
                CHECK(mc_get_uvarint(&p, end, &nv) == 0);
            for (uint64_t k = 0; k < nv; k++)
                CHECK(mc_get_uvarint(&p, end, &v) == 0);
            if (fl & MC_F_FOLDED)
                CHECK(mc_get_uvarint(&p, end, &v) == 0);
        }
        CHECK(p == end);
        free(comp);
        free(raw);
    }
    fclose(f);
    return events;
}

static int check_all(const char *dir, int nranks)
{
    static long op_count[MC_OP_COUNT];
    for (int r = 0; r < nranks; r++) {
        big_trace t = {0};
        load_big(&t, dir, r);
        check_rank_all(&t, r, nranks, op_count);
        char path[4200];
        mc_rank_path(path, sizeof path, dir, r);
        CHECK_EQ_INT(stored_newcomm_only_in_management(path), t.n);
        printf("rank %d: %d events\n", r, t.n);
        for (int i = 0; i < t.n; i++)
            free(t.ev[i].vals);
        free(t.ev);
    }
    for (int op = 0; op < MC_OP_COUNT; op++) {
        if (op == MC_OP_COMPUTE)
            continue;
        if (op_count[op] == 0)
            fprintf(stderr, "no %s event\n", mc_op_name(op));
        CHECK(op_count[op] > 0);
    }
    mc_error err = {0};
    mc_meta *m = mc_meta_read(dir, &err);
    CHECK(m != NULL);
    for (int i = 0; i < ncomm_ids; i++) {
        const mc_meta_comm *c = mc_meta_comm_find(m, comm_ids[i]);
        CHECK(c != NULL);
        CHECK_EQ_INT(c->size, __builtin_popcountll(comm_sets[i]));
    }
    mc_meta_destroy(m);
    printf("all: %d communicators consistent\n", ncomm_ids);
    return 0;
}

static int check_prefix(const char *dir, int nranks)
{
    for (int rank = 0; rank < nranks; rank++) {
        char path[4200];
        mc_rank_path(path, sizeof path, dir, rank);
        mc_error err = {0};
        mc_rank_reader *r = mc_rank_reader_open(path, &err);
        if (!r)
            fprintf(stderr, "%s\n", err.msg);
        CHECK(r != NULL);
        long n = 0;
        int rc;
        mc_event e;
        while ((rc = mc_rank_reader_next(r, &e, &err)) == 1)
            n++;
        mc_rank_reader_close(r);
        printf("rank %d: %ld events, then %s\n", rank, n,
               rc == 0 ? "clean end" : mc_strerror(err.code));
        CHECK(rc == 0 || err.code == MC_ERR_TRUNCATED);
        CHECK(n >= 100);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "known") == 0)
        return check_known(argv[2], argc > 3 && strcmp(argv[3], "cpu") == 0);
    if (argc == 4 && strcmp(argv[1], "all") == 0)
        return check_all(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "prefix") == 0)
        return check_prefix(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: test_trace_check known DIR [cpu] | all DIR N | prefix DIR N\n");
    return 2;
}
