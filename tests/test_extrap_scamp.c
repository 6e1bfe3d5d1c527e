/* Extrapolation of synthetic traces (no MPI needed): the SCAMP study's
 * examples by hand rules and by inference, and patterns that must be refused.
 *
 *  1. 4x4 non-periodic 2-D stencil -> 8x8: every event of every rank equals
 *     what the program does at 64 ranks (rank 0's neighbours become 1 and 8).
 *  2. Replicated allreduce program 4 -> 4096 ranks (rule: replicate).
 *  3. Strong scaling inferred from P=9 and P=16 (face ∝ P^-1/2) -> P=64.
 *  4. Refusals: ranks of one class that differ (task farm), sizes no law
 *     fits, repetitions that change with P; each names the class/event.
 *  5. Per-rank-count collectives with equal counts (Alltoallv, Allgatherv)
 *     inferred from P=4, 8 and generated at 32; unequal counts refused.
 *  6. Partners rank XOR 2^k over log2 P steps per iteration, inferred from
 *     P=4, 8 and generated at 16..64; one trace and rank + P/2 refused.
 *  7. Sizes that follow the data (rule sizes data): refused by default with
 *     the hint; exact at the traced P, consistent at 64, 36 and 25. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "extrap_explain.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"

#define MAXEV 256

typedef struct evlist {
    mc_event e[MAXEV];
    int64_t vals[MAXEV][112]; /* a Cart_create's: P + 5 */
    int n;
    int64_t t;
} evlist;

static mc_event *add(evlist *l, int op)
{
    mc_event *e = &l->e[l->n];
    memset(e, 0, sizeof *e);
    e->op = op;
    e->site = 100 + op;
    e->peer = e->peer2 = e->tag = e->tag2 = MC_NONE;
    e->newcomm = 0;
    e->cpu = -1;
    e->t_start = l->t + 1000;
    e->t_end = e->t_start + 100;
    e->burst = l->n ? 1000 : 0;
    l->t = e->t_end;
    e->vals = l->vals[l->n];
    l->n++;
    return e;
}

/* 0: every face has the size given to stencil(); else the cells along each
 * dimension of a fixed global grid, dealt out in blocks (the first N mod n
 * coordinates one more), so that a face has 8 bytes per cell of the rank's
 * block along the other dimension. */
static int64_t stencil_cells;
static int stencil_last; /* 1: the remainder on the last coordinates; 2: ceil(N/n) blocks */

/* Sizes that follow the data (rule sizes data): each rank sends faces of its
 * own size, which changes with the direction and the iteration, and
 * receives what its neighbour sends. */
static int stencil_data;
static int64_t data_face(int a, int d, int dir, int it)
{
    return 8 * (1 + (a * 7 + d * 3 + dir * 5 + it) % 5);
}

/* Faces of a ghost shell (rule size.p2p=fit): 2000/sqrt(P) + 400 bytes on
 * average, 10 % more on even rows of the grid and 10 % less on odd ones. */
static int stencil_shell;
static int64_t shell_face(int a, int P, const int *dims)
{
    return llround((2000 / sqrt(P) + 400) * ((a / dims[1]) % 2 ? 0.9 : 1.1));
}

static int64_t block_of(int64_t N, int n, int c)
{
    if (stencil_last == 2) {
        int64_t B = (N + n - 1) / n, left = N - c * B;
        return left < 0 ? 0 : left < B ? left : B;
    }
    return N / n + (stencil_last ? c >= n - N % n : c < N % n);
}

/* The 2-D halo program: Cart_create, per iteration 4 Sendrecv + Allreduce. */
static void stencil(int P, const int *dims, int periodic, int64_t face, int iters, int r,
                    evlist *l)
{
    memset(l, 0, sizeof *l);
    uint64_t cart = 1ull << 32;
    add(l, MC_OP_INIT);
    mc_event *c = add(l, MC_OP_CART_CREATE);
    for (int i = 0; i < P; i++)
        c->vals[i] = i;
    c->vals[P] = 2;
    c->vals[P + 1] = dims[0];
    c->vals[P + 2] = dims[1];
    c->vals[P + 3] = c->vals[P + 4] = periodic;
    c->nvals = (uint32_t)P + 5;
    c->peer2 = P;
    c->newcomm = cart;
    int co[2] = {r / dims[1], r % dims[1]};
    for (int it = 0; it < iters; it++) {
        for (int d = 0; d < 2; d++) {
            int lo[2] = {co[0], co[1]}, hi[2] = {co[0], co[1]};
            lo[d]--;
            hi[d]++;
            int plo = -1, phi = -1;
            if (periodic) {
                lo[d] = (lo[d] + dims[d]) % dims[d];
                hi[d] %= dims[d];
            }
            if (lo[d] >= 0)
                plo = lo[0] * dims[1] + lo[1];
            if (hi[d] < dims[d])
                phi = hi[0] * dims[1] + hi[1];
            if (stencil_cells)
                face = 8 * block_of(stencil_cells, dims[1 - d], co[1 - d]);
            for (int dir = 0; dir < 2; dir++) {
                mc_event *e = add(l, MC_OP_SENDRECV);
                e->comm = cart;
                e->peer = dir ? plo : phi;
                e->peer2 = dir ? phi : plo;
                e->tag = 2 * d + dir;
                e->tag2 = e->peer2 >= 0 ? e->tag : MC_NONE;
                e->bytes = stencil_shell ? shell_face(r, P, dims)
                           : stencil_data ? data_face(r, d, dir, it)
                                          : face;
                e->bytes2 = e->peer2 < 0    ? 0
                            : stencil_shell ? shell_face(e->peer2, P, dims)
                            : stencil_data  ? data_face(e->peer2, d, dir, it)
                                            : face;
            }
        }
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->comm = cart;
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    mc_event *f = add(l, MC_OP_COMM_FREE);
    f->comm = cart;
    add(l, MC_OP_FINALIZE);
}

static void allreduce_loop(int P, int r, evlist *l)
{
    (void)r;
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    for (int i = 0; i < 4; i++) {
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    add(l, MC_OP_FINALIZE);
}

static void write_rank(const char *dir, int r, const evlist *l)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    if (!w)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(w);
    for (int i = 0; i < l->n; i++)
        CHECK(mc_writer_add(w, &l->e[i], &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static char tmp[256];

static const char *mkdir_trace(const char *name)
{
    static char path[4][512];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 512, "%s/%s", tmp, name);
    return p;
}

static void write_stencil_iters(const char *dir, int P, const int *dims, int periodic,
                                int64_t face, int iters)
{
    evlist *l = malloc(sizeof *l);
    for (int r = 0; r < P; r++) {
        stencil(P, dims, periodic, face, iters, r, l);
        write_rank(dir, r, l);
    }
    free(l);
}

static void write_stencil(const char *dir, int P, const int *dims, int periodic, int64_t face)
{
    write_stencil_iters(dir, P, dims, periodic, face, 2);
}

static int same(const mc_event *a, const mc_event *b)
{
    if (a->op != b->op || a->comm != b->comm || a->peer != b->peer || a->tag != b->tag ||
        a->bytes != b->bytes || a->peer2 != b->peer2 || a->tag2 != b->tag2 ||
        a->bytes2 != b->bytes2 || a->newcomm != b->newcomm || a->nvals != b->nvals)
        return 0;
    for (uint32_t i = 0; i < a->nvals; i++)
        if (a->vals[i] != b->vals[i])
            return 0;
    return 1;
}

/* Every rank of the source equals the program's events at P. */
static void check_stencil_source(mc_source *s, int P, const int *dims, int64_t face)
{
    evlist *l = malloc(sizeof *l);
    mc_error err = {0};
    for (int r = 0; r < P; r++) {
        stencil(P, dims, 0, face, 2, r, l);
        for (int i = 0; i < l->n; i++) {
            mc_event e;
            CHECK_EQ_INT(mc_source_next(s, r, &e, &err), 1);
            if (!same(&e, &l->e[i])) {
                fprintf(stderr, "rank %d event %d:\n", r, i);
                mc_event_print(stderr, r, &e, 0);
                mc_event_print(stderr, r, &l->e[i], 0);
            }
            CHECK(same(&e, &l->e[i]));
        }
        mc_event e;
        CHECK_EQ_INT(mc_source_next(s, r, &e, &err), 0);
    }
    free(l);
}

static void test_stencil_4x4_to_8x8(void)
{
    const char *dir = mkdir_trace("st16");
    int d4[2] = {4, 4}, d8[2] = {8, 8};
    write_stencil(dir, 16, d4, 0, 512);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(&dir, 1, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 64, &err);
    CHECK(s);
    CHECK_EQ_INT(s->nranks, 64);
    /* SCAMP's example: rank 0's right and lower neighbours 1, 4 -> 1, 8. */
    mc_event e;
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1); /* Init */
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1); /* Cart_create */
    CHECK_EQ_INT(e.nvals, 64 + 5);
    CHECK_EQ_INT(e.vals[65], 8);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1);
    CHECK_EQ_INT(e.peer, 8);
    CHECK_EQ_INT(e.peer2, MC_NONE);
    mc_source_close(s);
    s = mc_extrap_source(x, 64, &err);
    check_stencil_source(s, 64, d8, 512);
    mc_source_close(s);
    /* Written out: the directory reads back the same events. */
    char out[512];
    snprintf(out, sizeof out, "%s/out64", tmp);
    CHECK(mc_extrap_write(x, 64, out, &err) == MC_OK);
    s = mc_trace_open(out, &err);
    CHECK(s);
    check_stencil_source(s, 64, d8, 512);
    mc_source_close(s);
    /* Strong scaling by hand rule: faces ∝ P^-1/2, compute ∝ 1/P. */
    mc_extrap_rules st;
    mc_extrap_rules_init(&st);
    CHECK(mc_extrap_rules_set(&st, "scaling", "strong", &err) == MC_OK);
    mc_extrap *xs = mc_extrap_build(&dir, 1, &st, &err);
    CHECK(xs);
    s = mc_extrap_source(xs, 64, &err);
    CHECK(s);
    int sendrecvs = 0;
    while (mc_source_next(s, 9, &e, &err) == 1) {
        if (e.op == MC_OP_SENDRECV) {
            CHECK_EQ_INT(e.bytes, 256);
            CHECK_EQ_INT(e.bytes2, 256); /* rank 9 is interior: every source real */
            CHECK_EQ_INT(e.burst, 250);
            sendrecvs++;
        }
        if (e.op == MC_OP_ALLREDUCE)
            CHECK_EQ_INT(e.bytes, 8); /* size.reduce stays const */
    }
    CHECK_EQ_INT(sendrecvs, 8);
    mc_source_close(s);
    mc_extrap_destroy(xs);
    /* Any P: 63 ranks are a 9x7 grid. */
    s = mc_extrap_source(x, 63, &err);
    CHECK(s);
    mc_source_close(s);
    mc_extrap_destroy(x);
}

/* A fixed global grid of 10 x 10 cells that the process grid does not
 * divide (issue 20): faces of 8 bytes per cell of the rank's block, so the
 * ranks of a class send other sizes (4 x 4: blocks 3, 3, 2, 2). From 4, 9
 * and 16 ranks to 36 and 24 (6 x 4), and from 4 and 9 to 16, every event
 * equals the program's; one trace shows the global size under strong
 * scaling only. */
static void test_block_shares(void)
{
    stencil_cells = 10;
    const char *t4 = mkdir_trace("bs4"), *t9 = mkdir_trace("bs9"), *t16 = mkdir_trace("bs16");
    int d2[2] = {2, 2}, d3[2] = {3, 3}, d4[2] = {4, 4}, d6[2] = {6, 6}, d64[2] = {6, 4};
    write_stencil(t4, 4, d2, 0, 0);
    write_stencil(t9, 9, d3, 0, 0);
    write_stencil(t16, 16, d4, 0, 0);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    const char *three[3] = {t4, t9, t16};
    mc_extrap *x = mc_extrap_build(three, 3, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 3); /* each trace rebuilt from the other two */
    mc_source *s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    check_stencil_source(s, 36, d6, 0); /* blocks 2, 2, 2, 2, 1, 1 */
    mc_source_close(s);
    s = mc_extrap_source(x, 24, &err);
    CHECK(s);
    check_stencil_source(s, 24, d64, 0); /* 6 x 4: 2, 2, 2, 2, 1, 1 and 3, 3, 2, 2 */
    mc_source_close(s);
    char *text = explain_text(x, 36);
    CHECK(strstr(text, "size 8 B x the rank's block of N=10 items along dimension 1 (the "
                       "first N mod n one more)"));
    free(text);
    mc_extrap_destroy(x);

    /* 4 (which divides 10) and 9 to 16 */
    const char *two[2] = {t4, t9};
    x = mc_extrap_build(two, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    /* 4 rebuilt from 9 with the shares; 9 cannot be from 4 (a 2 x 2 grid has no
     * interior ranks) */
    CHECK_EQ_INT(mc_extrap_checked(x), 1);
    s = mc_extrap_source(x, 16, &err);
    CHECK(s);
    check_stencil_source(s, 16, d4, 0);
    mc_source_close(s);
    mc_extrap_destroy(x);

    /* one trace: strong scaling keeps the global size... */
    mc_extrap_rules st;
    mc_extrap_rules_init(&st);
    CHECK(mc_extrap_rules_set(&st, "scaling", "strong", &err) == MC_OK);
    x = mc_extrap_build(&t9, 1, &st, &err);
    CHECK(x);
    s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    check_stencil_source(s, 36, d6, 0);
    mc_source_close(s);
    mc_extrap_destroy(x);
    /* ... weak scaling keeps each class's sizes (the interior's blocks of 3) */
    x = mc_extrap_build(&t9, 1, &ru, &err);
    CHECK(x);
    s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    mc_event e;
    int seen = 0;
    while (mc_source_next(s, 7, &e, &err) == 1) /* rank 7 = (1, 1) */
        if (e.op == MC_OP_SENDRECV) {
            CHECK_EQ_INT(e.bytes, 24);
            seen++;
        }
    CHECK_EQ_INT(seen, 8);
    mc_source_close(s);
    mc_extrap_destroy(x);
    /* ... and refuses interior ranks whose blocks differ */
    CHECK(mc_extrap_build(&t16, 1, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "differ in size 24 against 16"));

    /* the remainder on the last coordinates (4 x 4: 2, 2, 3, 3), from 9 and 16 */
    stencil_last = 1;
    const char *l9 = mkdir_trace("bl9"), *l16 = mkdir_trace("bl16");
    write_stencil(l9, 9, d3, 0, 0);
    write_stencil(l16, 16, d4, 0, 0);
    const char *lt[2] = {l9, l16};
    x = mc_extrap_build(lt, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 2);
    s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    check_stencil_source(s, 36, d6, 0);
    mc_source_close(s);
    mc_extrap_destroy(x);
    stencil_last = 0;
    stencil_cells = 0;
}

/* Blocks of ceil(N/n) cells (FFTW's, and many a Fortran code's): 14 cells
 * over 3 are 5 5 4, over 4 4 4 4 2, over 8 2 x 7 and an empty block. From 9
 * and 16 ranks the only reading is 14 items of 8 B, and 36 ranks (3 3 3 3 2
 * 0) equal the program's. A 4 x 4 trace alone also reads as 7 items of 16 B
 * balanced (2 2 2 1) or in ceil blocks, and 16 with 64 cannot tell these
 * apart either: a target where they part is refused, naming two of them
 * (the traces once gave an exit-0 pseudo-trace read as balanced). */
static void test_ceil_block_shares(void)
{
    stencil_cells = 14;
    stencil_last = 2;
    const char *t9 = mkdir_trace("cb9"), *t16 = mkdir_trace("cb16"), *t64 = mkdir_trace("cb64");
    int d3[2] = {3, 3}, d4[2] = {4, 4}, d8[2] = {8, 8}, d6[2] = {6, 6};
    write_stencil(t9, 9, d3, 0, 0);
    write_stencil(t16, 16, d4, 0, 0);
    write_stencil(t64, 64, d8, 0, 0);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    const char *a[2] = {t9, t16};
    mc_extrap *x = mc_extrap_build(a, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    check_stencil_source(s, 36, d6, 0);
    mc_source_close(s);
    char *text = explain_text(x, 36);
    CHECK(strstr(text, "size 8 B x the rank's block of N=14 items along dimension 1 (blocks "
                       "of ceil(N/n)), received 8 B"));
    free(text);
    mc_extrap_destroy(x);

    const char *b[2] = {t16, t64};
    x = mc_extrap_build(b, 2, &ru, &err);
    CHECK(x);
    CHECK(!mc_extrap_source(x, 36, &err));
    CHECK(strstr(err.msg, "Sendrecv, site "));
    CHECK(strstr(err.msg, "16 B x the rank's block of N=7 items along dimension 0 (the first "
                          "N mod n one more), or 16 B x the rank's block of N=7 items along "
                          "dimension 0 (blocks of ceil(N/n))"));
    CHECK(strstr(err.msg, "differ at P=36 (rank 6: 16 bytes against 32)"));
    CHECK(strstr(err.msg, "--rule blocks="));
    s = mc_extrap_source(x, 64 * 4, &err); /* 16 x 16: 7 x 16 B, or 14 x 8 B */
    CHECK(!s);
    mc_extrap_destroy(x);
    /* stated, the distribution narrows them: ceil leaves the item size open */
    mc_extrap_rules st;
    mc_extrap_rules_init(&st);
    CHECK(mc_extrap_rules_set(&st, "blocks", "ceil", &err) == MC_OK);
    x = mc_extrap_build(b, 2, &st, &err);
    CHECK(x);
    CHECK(!mc_extrap_source(x, 36, &err));
    CHECK(strstr(err.msg, "16 B x the rank's block of N=7 items along dimension 0 (blocks of "
                          "ceil(N/n)), or 8 B x the rank's block of N=14"));
    CHECK(!strstr(err.msg, "--rule blocks="));
    mc_extrap_destroy(x);
    /* ... and first leaves one reading: 7 items of 16 B, balanced */
    CHECK(mc_extrap_rules_set(&st, "blocks", "first", &err) == MC_OK);
    x = mc_extrap_build(b, 2, &st, &err);
    CHECK(x);
    s = mc_extrap_source(x, 36, &err);
    CHECK(s);
    mc_event e;
    int seen = 0;
    while (mc_source_next(s, 1, &e, &err) == 1) /* (0, 1): 1 of 7 over 6 */
        seen += e.op == MC_OP_SENDRECV && e.tag == 0 && e.bytes == 16;
    CHECK_EQ_INT(seen, 2);
    mc_source_close(s);
    mc_extrap_destroy(x);

    /* one trace under strong scaling: refused where the readings part (3 x 3),
     * extrapolated where they agree (8 x 8) */
    mc_extrap_rules sc;
    mc_extrap_rules_init(&sc);
    CHECK(mc_extrap_rules_set(&sc, "scaling", "strong", &err) == MC_OK);
    x = mc_extrap_build(&t16, 1, &sc, &err);
    CHECK(x);
    CHECK(!mc_extrap_source(x, 9, &err));
    CHECK(strstr(err.msg, "differ at P=9"));
    s = mc_extrap_source(x, 64, &err);
    CHECK(s);
    check_stencil_source(s, 64, d8, 0);
    mc_source_close(s);
    mc_extrap_destroy(x);
    stencil_last = 0;
    stencil_cells = 0;
}

static void test_replicate_4_to_4096(void)
{
    const char *dir = mkdir_trace("ar4");
    evlist *l = malloc(sizeof *l);
    for (int r = 0; r < 4; r++) {
        allreduce_loop(4, r, l);
        write_rank(dir, r, l);
    }
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    CHECK(mc_extrap_rules_set(&ru, "replicate", "2", &err) == MC_OK);
    mc_extrap *x = mc_extrap_build(&dir, 1, &ru, &err);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 4096, &err);
    CHECK(s);
    long events = 0, allreduces = 0;
    for (int r = 0; r < 4096; r++) {
        mc_event e;
        int rc;
        while ((rc = mc_source_next(s, r, &e, &err)) == 1) {
            events++;
            if (e.op == MC_OP_ALLREDUCE) {
                allreduces++;
                CHECK_EQ_INT(e.peer2, 4096);
                CHECK_EQ_INT(e.peer, MC_NONE);
                CHECK_EQ_INT(e.comm, MC_COMM_WORLD);
                CHECK_EQ_INT(e.bytes, 8);
            }
        }
        CHECK_EQ_INT(rc, 0);
    }
    CHECK_EQ_INT(events, 4096L * 6);
    CHECK_EQ_INT(allreduces, 4096L * 4);
    mc_source_close(s);
    mc_extrap_destroy(x);
    free(l);
}

static void test_strong_scaling_inferred(void)
{
    const char *d9 = mkdir_trace("st9"), *d16 = mkdir_trace("st16b");
    int g3[2] = {3, 3}, g4[2] = {4, 4}, g8[2] = {8, 8};
    /* a 48x48 grid of doubles: faces of 16 and 12 cells, 6 at 8x8 */
    write_stencil(d9, 9, g3, 0, 16 * 8);
    write_stencil(d16, 16, g4, 0, 12 * 8);
    const char *t[2] = {d9, d16};
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 64, &err);
    CHECK(s);
    check_stencil_source(s, 64, g8, 6 * 8);
    mc_source_close(s);
    /* the explanation names the fitted law */
    char *buf = explain_text(x, 64);
    CHECK(strstr(buf, "size surface") != NULL);
    CHECK(strstr(buf, "grid 8x8") != NULL);
    free(buf);
    mc_extrap_destroy(x);

    /* no law fits sizes 128, 96, 100 at P = 9, 16, 25 */
    const char *d25 = mkdir_trace("st25");
    int g5[2] = {5, 5};
    write_stencil(d25, 25, g5, 0, 100);
    const char *t3[3] = {d9, d16, d25};
    memset(&err, 0, sizeof err);
    CHECK(mc_extrap_build(t3, 3, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "no law") != NULL);
    CHECK(strstr(err.msg, "Sendrecv") != NULL);
}

/* A task farm: rank 0 hands out tasks, the workers' counts differ. */
static void test_refuse_task_farm(void)
{
    const char *dir = mkdir_trace("farm");
    evlist *l = malloc(sizeof *l);
    int tasks[4] = {0, 3, 1, 2};
    for (int r = 0; r < 4; r++) {
        memset(l, 0, sizeof *l);
        add(l, MC_OP_INIT);
        for (int k = 0; k < (r ? tasks[r] : 6); k++) {
            mc_event *e = add(l, r ? MC_OP_RECV : MC_OP_SEND);
            e->peer = r ? 0 : 1 + k % 3;
            e->tag = 5;
            e->bytes = 64;
        }
        add(l, MC_OP_FINALIZE);
        write_rank(dir, r, l);
    }
    free(l);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    CHECK(mc_extrap_build(&dir, 1, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "class (int)") != NULL);
    CHECK(strstr(err.msg, "not explained") != NULL);
}

/* The same class with more events at the larger P: repetitions vary. */
static void test_refuse_repetitions(void)
{
    const char *a = mkdir_trace("rep4"), *b = mkdir_trace("rep8");
    evlist *l = malloc(sizeof *l);
    for (int k = 0; k < 2; k++) {
        int P = k ? 8 : 4;
        for (int r = 0; r < P; r++) {
            memset(l, 0, sizeof *l);
            add(l, MC_OP_INIT);
            for (int i = 0; i < (k ? 5 : 2); i++) { /* 2 then 5: no law */
                mc_event *e = add(l, MC_OP_ALLREDUCE);
                e->peer2 = P;
                e->bytes = e->bytes2 = 8;
            }
            add(l, MC_OP_FINALIZE);
            write_rank(k ? b : a, r, l);
        }
    }
    free(l);
    const char *t[2] = {a, b};
    mc_error err = {0};
    CHECK(mc_extrap_build(t, 2, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "repeats 2 times at P=4 and 5 times at P=8") != NULL);
    CHECK(strstr(err.msg, "not explained") != NULL);
}

/* NPB-CG-like: an exchange done log2(P) times, request ids advancing. */
static void cg_like(int P, int r, evlist *l)
{
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    int reps = 0;
    for (int q = P; q > 1; q /= 2)
        reps++;
    uint32_t id = 1;
    for (int it = 0; it < 2; it++) {
        for (int k = 0; k < reps; k++) {
            mc_event *e = add(l, MC_OP_IRECV);
            e->peer = (r + P - 1) % P;
            e->tag = 3;
            e->bytes = 64;
            e->req = id;
            e = add(l, MC_OP_SEND);
            e->peer = (r + 1) % P;
            e->tag = 3;
            e->bytes = 64;
            e = add(l, MC_OP_WAIT);
            e->vals[0] = id++;
            e->vals[1] = (r + P - 1) % P;
            e->vals[2] = 3;
            e->vals[3] = 64;
            e->nvals = 4;
        }
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    add(l, MC_OP_FINALIZE);
}

static void check_source_against(mc_source *s, int P, void (*prog)(int, int, evlist *))
{
    evlist *l = malloc(sizeof *l);
    mc_error err = {0};
    for (int r = 0; r < P; r++) {
        prog(P, r, l);
        for (int i = 0; i < l->n; i++) {
            mc_event e;
            CHECK_EQ_INT(mc_source_next(s, r, &e, &err), 1);
            if (!same(&e, &l->e[i]) || e.req != l->e[i].req) {
                fprintf(stderr, "P=%d rank %d event %d:\n", P, r, i);
                mc_event_print(stderr, r, &e, 0);
                mc_event_print(stderr, r, &l->e[i], 0);
            }
            CHECK(same(&e, &l->e[i]));
            CHECK_EQ_INT(e.req, l->e[i].req);
        }
        mc_event e;
        CHECK_EQ_INT(mc_source_next(s, r, &e, &err), 0);
    }
    free(l);
}

/* One repetition phase inserted per doubling of P (SCAMP, NPB-CG), in a
 * one-iteration variant: "prefix + k copies + suffix" (the two-iteration
 * program, one run per iteration: test_repetitions_in_outer_loop). */
static void cg_like1(int P, int r, evlist *l)
{
    cg_like(P, r, l);
    /* keep Init, the first iteration's block and Allreduce, then Finalize */
    int reps = 0;
    for (int q = P; q > 1; q /= 2)
        reps++;
    int keep = 1 + 3 * reps + 1;
    l->e[keep] = l->e[l->n - 1];
    l->n = keep + 1;
}

/* Traces of prog at P = pa into a and P = pb into b. */
static void write_two(const char *a, int pa, const char *b, int pb,
                      void (*prog)(int, int, evlist *))
{
    evlist *l = malloc(sizeof *l);
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < (k ? pb : pa); r++) {
            prog(k ? pb : pa, r, l);
            write_rank(k ? b : a, r, l);
        }
    free(l);
}

static void test_repetitions_inferred(void)
{
    const char *a = mkdir_trace("cg4"), *b = mkdir_trace("cg8");
    write_two(a, 4, b, 8, cg_like1);
    const char *t[2] = {a, b};
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    for (int P = 16; P <= 64; P *= 2) {
        mc_source *s = mc_extrap_source(x, P, &err);
        CHECK(s);
        check_source_against(s, P, cg_like1);
        mc_source_close(s);
    }
    /* 24 ranks: log2(24) copies is not a whole number */
    CHECK(mc_extrap_source(x, 24, &err) == NULL);
    CHECK(strstr(err.msg, "whole number") != NULL);
    mc_extrap_destroy(x);

    /* The same from the 4-rank trace alone, by a stated rule (SCAMP did CG
     * by hand): the block starting at the Irecv repeats log2(P) times. */
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    char rule[64];
    snprintf(rule, sizeof rule, "%x:log2p", 100 + MC_OP_IRECV);
    CHECK(mc_extrap_rules_set(&ru, "repeat", rule, &err) == MC_OK);
    CHECK(mc_extrap_rules_set(&ru, "repeat", "zz:log2p", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "repeat", "12/0:log2p", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "repeat", "12:cubic", &err) == MC_ERR_USAGE);
    x = mc_extrap_build(&a, 1, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 32, &err);
    CHECK(s);
    check_source_against(s, 32, cg_like1);
    mc_source_close(s);
    mc_extrap_destroy(x);
    /* without the rule one trace cannot know: P=16 gets 2 copies, not 4 */
    x = mc_extrap_build(&a, 1, NULL, &err);
    CHECK(x);
    s = mc_extrap_source(x, 16, &err);
    mc_event e;
    int irecvs = 0;
    while (mc_source_next(s, 3, &e, &err) == 1)
        irecvs += e.op == MC_OP_IRECV;
    CHECK_EQ_INT(irecvs, 2);
    mc_source_close(s);
    mc_extrap_destroy(x);
}

/* The two-iteration cg_like itself (issue 20): the block recurs in both
 * iterations, log2(P) copies in each. Inferred from P = 4 and 8, every
 * event of P = 16, 32, 64 (request ids included) is the program's, and
 * the leave-one-out check rebuilt both traces. The stated `repeat` rule
 * log2p takes every run too, and gives the program's events; a wrong law
 * (p) is refused on the same two traces, naming the first differing event:
 * P=8 rebuilt from P=4 has P copies in the first run, so at rank 0 event 10
 * (after one event and 3 copies of 3) it has a fourth Irecv where the program does its
 * Allreduce. */
static void test_repetitions_in_outer_loop(void)
{
    const char *a = mkdir_trace("cgloop4"), *b = mkdir_trace("cgloop8");
    write_two(a, 4, b, 8, cg_like);
    const char *t[2] = {a, b};
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 2);
    CHECK_EQ_STR(mc_extrap_unchecked(x), "");
    for (int P = 16; P <= 64; P *= 2) {
        mc_source *s = mc_extrap_source(x, P, &err);
        CHECK(s);
        check_source_against(s, P, cg_like);
        mc_source_close(s);
    }
    mc_extrap_destroy(x);

    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    char rule[64];
    snprintf(rule, sizeof rule, "%x:log2p", 100 + MC_OP_IRECV);
    CHECK(mc_extrap_rules_set(&ru, "repeat", rule, &err) == MC_OK);
    x = mc_extrap_build(t, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    for (int P = 16; P <= 32; P *= 2) {
        mc_source *s = mc_extrap_source(x, P, &err);
        CHECK(s);
        check_source_against(s, P, cg_like);
        mc_source_close(s);
    }
    mc_extrap_destroy(x);
    mc_extrap_rules wrong;
    mc_extrap_rules_init(&wrong);
    snprintf(rule, sizeof rule, "%x:p", 100 + MC_OP_IRECV);
    CHECK(mc_extrap_rules_set(&wrong, "repeat", rule, &err) == MC_OK);
    memset(&err, 0, sizeof err);
    CHECK(mc_extrap_build(t, 2, &wrong, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_USAGE);
    char want[600];
    snprintf(want, sizeof want, "extrapolate: leave-one-out check: %s (P=8) rebuilt from %s "
             "(P=4) differs at rank 0, event 10 (Allreduce, site %x): Irecv in the model, "
             "Allreduce in the trace: the rules (stated: repeat %x:p) do not reproduce "
             "the traces", b, a, 100 + MC_OP_ALLREDUCE, 100 + MC_OP_IRECV);
    CHECK_EQ_STR(err.msg, want);
    /* one trace: built, unchecked, and the rule named */
    x = mc_extrap_build(&a, 1, &ru, &err);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 0);
    snprintf(want, sizeof want, "one trace: repeat %x:log2p not checked against another "
             "process count", 100 + MC_OP_IRECV);
    CHECK_EQ_STR(mc_extrap_unchecked(x), want);
    mc_extrap_destroy(x);
}

/* NPB CG's row reduction: ceil(log2(P) / 2) steps with rank XOR 2^k, in
 * each of two iterations, then an Allreduce. */
static void row_xor(int P, int r, evlist *l)
{
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    int steps = 0;
    while ((1 << (2 * steps)) < P)
        steps++;
    uint32_t id = 1;
    for (int it = 0; it < 2; it++) {
        for (int k = 0; k < steps; k++) {
            int peer = r ^ (1 << k);
            mc_event *e = add(l, MC_OP_IRECV);
            e->peer = peer;
            e->tag = 1;
            e->bytes = 64;
            e->req = id;
            e = add(l, MC_OP_SEND);
            e->peer = peer;
            e->tag = 1;
            e->bytes = 64;
            e = add(l, MC_OP_WAIT);
            e->vals[0] = id++;
            e->vals[1] = peer;
            e->vals[2] = 1;
            e->vals[3] = 64;
            e->nvals = 4;
        }
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    add(l, MC_OP_FINALIZE);
}

/* A loop of XOR steps as long at P=8 as at P=16 (2 steps: log2cols(P) is 2
 * at both) is a constant or log2cols(P): P=12, where both give 2, is the
 * program's; P=32, where they part, is refused naming both; the law stated
 * gives the program at 32 and 64. Traced at 2 and 4 (one step), 8 is
 * refused. */
static void test_fixed_loop_count_hides_law(void)
{
    const char *a = mkdir_trace("rowxor8"), *b = mkdir_trace("rowxor16");
    write_two(a, 8, b, 16, row_xor);
    const char *t[2] = {a, b};
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 12, &err);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s);
    check_source_against(s, 12, row_xor);
    mc_source_close(s);
    memset(&err, 0, sizeof err);
    CHECK(mc_extrap_source(x, 32, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_USAGE);
    CHECK(strstr(err.msg, "repeats as often as both 2 x const(P) and 1 x log2cols(P) in the "
                          "traces, which give 2 and 3 copies at P=32") != NULL);
    char want[64];
    snprintf(want, sizeof want, "--rule repeat=%x:LAW", 100 + MC_OP_IRECV);
    CHECK(strstr(err.msg, want) != NULL);
    mc_extrap_destroy(x);

    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    snprintf(want, sizeof want, "%x:log2cols", 100 + MC_OP_IRECV);
    CHECK(mc_extrap_rules_set(&ru, "repeat", want, &err) == MC_OK);
    x = mc_extrap_build(t, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    for (int P = 32; P <= 64; P *= 2) {
        s = mc_extrap_source(x, P, &err);
        CHECK(s);
        check_source_against(s, P, row_xor);
        mc_source_close(s);
    }
    mc_extrap_destroy(x);

    /* at P=2 and 4 the loop has one step (log2cols is 1 at both): no copy
     * to see, so one exchange with rank XOR 1; 8 (2 steps) is refused */
    const char *c2 = mkdir_trace("rowxor2"), *c4 = mkdir_trace("rowxor4");
    write_two(c2, 2, c4, 4, row_xor);
    const char *t2[2] = {c2, c4};
    x = mc_extrap_build(t2, 2, NULL, &err);
    CHECK(x);
    memset(&err, 0, sizeof err);
    CHECK(mc_extrap_source(x, 8, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_USAGE);
    CHECK(strstr(err.msg, "one exchange with rank XOR 1 in every trace, where log2cols(P) is 1 "
                          "at every traced P: a loop of log2cols(P) steps (NPB CG's row "
                          "reduction) would do 2 at P=8") != NULL);
    mc_extrap_destroy(x);
}

/* Well-formed files with nonsense in them: the build fails cleanly or the
 * source generates; never a crash (run under the sanitizers too). */
static void test_garbage_never_crashes(void)
{
    unsigned seed = 12345;
    int built = 0;
    evlist *l = malloc(sizeof *l);
    for (int round = 0; round < 60; round++) {
        char name[32];
        snprintf(name, sizeof name, "junk%d", round);
        const char *dir = mkdir_trace(name);
        int P = 2 + round % 7;
        unsigned base = seed;
        for (int r = 0; r < P; r++) {
            memset(l, 0, sizeof *l);
            if (round % 2 == 0)
                seed = base; /* every rank alike: models get built and generate */
            int n = 1 + (int)(rand_r(&seed) % 12);
            for (int i = 0; i < n; i++) {
                int op = round % 2 == 0 ? (int)(rand_r(&seed) % MC_OP_COUNT)
                                        : (int)(rand_r(&seed) % (MC_OP_COUNT + 2)) - 1;
                mc_event *e = add(l, op < 0 ? MC_OP_SEND : op);
                e->op = op;
                e->peer = (int32_t)(rand_r(&seed) % (unsigned)(P + 3)) - 2;
                e->peer2 = (int32_t)(rand_r(&seed) % (unsigned)(P + 8)) - 2;
                e->comm = rand_r(&seed) % 4 == 0 ? (1ull << 32) | (rand_r(&seed) % 3) : 0;
                e->newcomm = rand_r(&seed) % 3 == 0 ? (1ull << 32) : MC_COMM_NULL;
                e->bytes = (int64_t)(rand_r(&seed) % 100) - 3;
                e->tag = (int32_t)(rand_r(&seed) % 5) - 1;
                e->nvals = rand_r(&seed) % 3 == 0 ? (uint32_t)(rand_r(&seed) % 14) : 0;
                for (uint32_t v = 0; v < e->nvals; v++)
                    e->vals[v] = (int64_t)(rand_r(&seed) % (unsigned)(P + 4)) - 2;
            }
            write_rank(dir, r, l);
        }
        mc_error err = {0};
        mc_extrap *x = mc_extrap_build(&dir, 1, NULL, &err);
        if (!x) {
            CHECK(err.msg[0] != '\0');
            continue;
        }
        built++;
        FILE *f = fopen("/dev/null", "w");
        mc_extrap_explain(x, 50, f);
        fclose(f);
        mc_source *s = mc_extrap_source(x, 50, &err);
        for (int r = 0; s && r < 50; r++) {
            mc_event e;
            int guard = 0;
            while (mc_source_next(s, r, &e, &err) == 1 && guard++ < 10000)
                ;
        }
        mc_source_close(s);
        mc_extrap_destroy(x);
    }
    free(l);
    if (getenv("MC_TEST_VERBOSE"))
        fprintf(stderr, "garbage: %d of 60 models built\n", built);
}

/* Per-rank-count collectives (issue 20): Alltoallv with a 64-byte block per
 * peer and Allgatherv of 16 bytes per rank, equal counts; `skew` makes comm
 * rank 1's Alltoallv count differ. */
static void vcoll_prog(int P, int r, evlist *l, int skew)
{
    (void)r;
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    for (int it = 0; it < 2; it++) {
        mc_event *a = add(l, MC_OP_ALLTOALLV);
        a->peer2 = P;
        for (int k = 0; k < 2 * P; k++)
            a->vals[k] = k % P == 1 && skew ? 32 : 64;
        a->nvals = 2u * (uint32_t)P;
        mc_event *g = add(l, MC_OP_ALLGATHERV);
        g->peer2 = P;
        g->bytes = 16;
        for (int k = 0; k < P; k++)
            g->vals[k] = 16;
        g->nvals = (uint32_t)P;
    }
    add(l, MC_OP_FINALIZE);
}

static void vcoll_prog_even(int P, int r, evlist *l)
{
    vcoll_prog(P, r, l, 0);
}

static void write_vcoll(const char *dir, int P, int skew)
{
    evlist *l = malloc(sizeof *l);
    for (int r = 0; r < P; r++) {
        vcoll_prog(P, r, l, skew);
        write_rank(dir, r, l);
    }
    free(l);
}

static void test_vector_collectives(void)
{
    const char *d4 = mkdir_trace("v4"), *d8 = mkdir_trace("v8"), *dk = mkdir_trace("vskew");
    write_vcoll(d4, 4, 0);
    write_vcoll(d8, 8, 0);
    write_vcoll(dk, 4, 1);
    mc_error err = {0};
    /* inferred from two traces: per-peer counts constant, arrays regrown to P */
    const char *t[2] = {d4, d8};
    mc_extrap *x = mc_extrap_build(t, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 32, &err);
    CHECK(s);
    check_source_against(s, 32, vcoll_prog_even);
    mc_source_close(s);
    mc_extrap_destroy(x);
    /* one trace: the weak default splits an all-to-all's fixed amount (1/comm),
     * so the 64-byte blocks of 4 ranks are 8 bytes at 32; Allgatherv stays 16 */
    x = mc_extrap_build(&d4, 1, NULL, &err);
    CHECK(x);
    s = mc_extrap_source(x, 32, &err);
    CHECK(s);
    mc_event e;
    int n = 0;
    while (mc_source_next(s, 5, &e, &err) == 1) {
        if (e.op == MC_OP_ALLTOALLV) {
            CHECK_EQ_INT(e.nvals, 64);
            CHECK_EQ_INT(e.vals[0], 8);
            CHECK_EQ_INT(e.vals[63], 8);
            n++;
        } else if (e.op == MC_OP_ALLGATHERV) {
            CHECK_EQ_INT(e.nvals, 32);
            CHECK_EQ_INT(e.vals[31], 16);
            CHECK_EQ_INT(e.bytes, 16);
        }
    }
    CHECK_EQ_INT(n, 2);
    mc_source_close(s);
    mc_extrap_destroy(x);
    /* counts that differ between peers are refused, naming the event and the rank */
    CHECK(mc_extrap_build(&dk, 1, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "Alltoallv") != NULL);
    CHECK(strstr(err.msg, ": per-rank counts differ") != NULL);
    CHECK(strstr(err.msg, "nor the transpose of one") != NULL);
    CHECK(strstr(err.msg, "comm rank 1 32 bytes, comm rank 0 64") != NULL);
    CHECK(strstr(err.msg, "rank 0 event 1") != NULL);
}

/* Block distributions (issue 20): ITEMS values of 8 bytes dealt out over
 * the world, the first ITEMS mod P ranks one more: Reduce_scatter's counts,
 * Allgatherv's counts with the rank's own block as its send size, and
 * Scatterv and Gatherv from and to rank 0 (the only rank with counts);
 * `items` may vary, to check that a number of items is followed. */
static int block_items = 10, block_last = 0; /* remainder on the last ranks; 2: ceil blocks */

static int64_t block_share(int n, int P, int k)
{
    if (block_last == 2) { /* FFTW-MPI: blocks of ceil(n / P) from rank 0 on */
        int b = (n + P - 1) / P, left = n - k * b;
        return 8 * (int64_t)(left < 0 ? 0 : left < b ? left : b);
    }
    return 8 * (int64_t)(n / P + (block_last ? k >= P - n % P : k < n % P));
}

static void block_prog(int P, int r, evlist *l)
{
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    for (int it = 0; it < 2; it++) {
        mc_event *rs = add(l, MC_OP_REDUCE_SCATTER);
        rs->peer2 = P;
        for (int k = 0; k < P; k++)
            rs->vals[k] = block_share(block_items, P, k);
        rs->nvals = (uint32_t)P;
        mc_event *g = add(l, MC_OP_ALLGATHERV);
        g->peer2 = P;
        g->bytes = block_share(block_items, P, r);
        for (int k = 0; k < P; k++)
            g->vals[k] = block_share(block_items, P, k);
        g->nvals = (uint32_t)P;
        /* rank 0 deals the items out and gathers them back: the other ranks
         * pass their own block only */
        mc_event *sc = add(l, MC_OP_SCATTERV);
        sc->peer = 0;
        sc->peer2 = P;
        sc->bytes2 = block_share(block_items, P, r);
        mc_event *ga = add(l, MC_OP_GATHERV);
        ga->peer = 0;
        ga->peer2 = P;
        ga->bytes = block_share(block_items, P, r);
        for (int k = 0; r == 0 && k < P; k++)
            sc->vals[k] = ga->vals[k] = block_share(block_items, P, k);
        sc->nvals = ga->nvals = r == 0 ? (uint32_t)P : 0;
    }
    add(l, MC_OP_FINALIZE);
}

/* Writes program prog's events at P as a trace in dir. */
static void write_prog(const char *dir, int P, void (*prog)(int, int, evlist *))
{
    evlist *l = malloc(sizeof *l);
    for (int r = 0; r < P; r++) {
        prog(P, r, l);
        write_rank(dir, r, l);
    }
    free(l);
}

static void write_block(const char *dir, int P)
{
    write_prog(dir, P, block_prog);
}

/* Extrapolates the traces t (at block_items) to P and compares with the
 * program there at `want` items. */
static void check_block(const char **t, int n, const mc_extrap_rules *ru, int P, int want)
{
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, n, ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = x ? mc_extrap_source(x, P, &err) : NULL;
    if (x && !s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s);
    if (s) {
        int keep = block_items;
        block_items = want;
        check_source_against(s, P, block_prog);
        block_items = keep;
        mc_source_close(s);
    }
    mc_extrap_destroy(x);
}

/* FFTW-MPI's ceil blocks (issue 20): 13 items are 4 4 4 1 on 4 ranks, which
 * no balanced split gives, and 2 2 2 2 2 2 1 0 on 8; 10 items on 8 ranks,
 * 2 2 2 2 2 0 0 0, are also 5 items of 16 bytes dealt out first or in
 * ceil blocks, which one trace cannot tell apart. */
static void test_ceil_blocks(void)
{
    char c4[512], c8[512];
    mc_error err = {0};
    block_last = 2, block_items = 13;
    snprintf(c4, sizeof c4, "%s", mkdir_trace("bc4"));
    snprintf(c8, sizeof c8, "%s", mkdir_trace("bc8"));
    write_block(c4, 4);
    write_block(c8, 8);
    const char *t[2] = {c4, c8};
    check_block(t, 2, NULL, 7, 13);  /* 2 2 2 2 2 2 1 */
    check_block(t, 2, NULL, 16, 13); /* 1 x 13, then none */
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    CHECK(mc_extrap_rules_set(&ru, "scaling", "strong", &err) == MC_OK);
    check_block(&t[0], 1, &ru, 3, 13); /* 4 4 4 1 over 4 has one reading only */
    /* one trace at 8 ranks of 10 items: the readings part at 16 ranks */
    block_items = 10;
    snprintf(c8, sizeof c8, "%s", mkdir_trace("bc8b"));
    write_block(c8, 8);
    mc_extrap *x = mc_extrap_build(&t[1], 1, &ru, &err);
    CHECK(x);
    CHECK(x && mc_extrap_source(x, 16, &err) == NULL);
    if (!strstr(err.msg, "5 items of 16 bytes dealt out first, or 10 items of 8 bytes dealt "
                         "out ceil, and these differ at P=16"))
        fprintf(stderr, "%s\n", err.msg);
    CHECK(strstr(err.msg, "5 items of 16 bytes dealt out first, or 10 items of 8 bytes dealt "
                          "out ceil, and these differ at P=16") != NULL);
    CHECK(strstr(err.msg, "--rule blocks=first|last|ceil") != NULL);
    mc_extrap_destroy(x);
    /* stated, the distribution leaves 5 x 16 B and 10 x 8 B in ceil blocks (1 or 2 items
     * for the first 5 ranks at 8), which part at 16 too; a stated first split has one */
    CHECK(mc_extrap_rules_set(&ru, "blocks", "ceil", &err) == MC_OK);
    x = mc_extrap_build(&t[1], 1, &ru, &err);
    CHECK(x && mc_extrap_source(x, 16, &err) == NULL);
    CHECK(strstr(err.msg, "5 items of 16 bytes dealt out ceil, or 10 items of 8 bytes dealt "
                          "out ceil, and these differ at P=16") != NULL);
    CHECK(strstr(err.msg, "--rule blocks") == NULL);
    mc_extrap_destroy(x);
    CHECK(mc_extrap_rules_set(&ru, "blocks", "first", &err) == MC_OK);
    x = mc_extrap_build(&t[1], 1, &ru, &err);
    mc_source *src = x ? mc_extrap_source(x, 16, &err) : NULL;
    CHECK(src); /* 5 items of 16 bytes: 16 for ranks 0-4 (check_block's items are 8 B) */
    mc_event e;
    while (src && mc_source_next(src, 0, &e, &err) == 1 && e.op != MC_OP_REDUCE_SCATTER)
        ;
    CHECK(src && e.op == MC_OP_REDUCE_SCATTER && e.nvals == 16 && e.vals[4] == 16 &&
          e.vals[5] == 0);
    if (src)
        mc_source_close(src);
    mc_extrap_destroy(x);
    CHECK(mc_extrap_rules_set(&ru, "blocks", "half", &err) == MC_ERR_USAGE);
    CHECK(strstr(err.msg, "expected first, last, ceil or any") != NULL);
    block_last = 0, block_items = 10;
}

static void test_block_distributions(void)
{
    const char *d4 = mkdir_trace("b4"), *d5 = mkdir_trace("b5"), *d8 = mkdir_trace("b8");
    write_block(d4, 4); /* 24 24 16 16 */
    write_block(d5, 5); /* 16 x 5: equal, the same 10 items */
    write_block(d8, 8); /* 16 16 8 8 8 8 8 8 */
    char f8[512]; /* mkdir_trace's buffers are reused */
    snprintf(f8, sizeof f8, "%s", d8);
    /* inferred: 10 items whatever P, the own block as Allgatherv's size */
    const char *t[3] = {d4, d8, d5};
    check_block(t, 2, NULL, 7, 10);
    check_block(t, 3, NULL, 32, 10);
    /* an equal trace first (5 ranks) takes the distribution from the other */
    const char *t2[2] = {d5, d4};
    check_block(t2, 2, NULL, 3, 10);
    /* one trace: strong scaling keeps the 10 items, weak deals out 10 per 4 ranks */
    mc_extrap_rules ru;
    mc_error err = {0};
    mc_extrap_rules_init(&ru);
    CHECK(mc_extrap_rules_set(&ru, "scaling", "strong", &err) == MC_OK);
    check_block(&d4, 1, &ru, 6, 10);
    mc_extrap_rules_init(&ru);
    check_block(&d4, 1, &ru, 8, 20);
    /* ... and 15 at 6 ranks, but 7.5 at 3: no whole number, refused */
    check_block(&d4, 1, &ru, 6, 15);
    mc_extrap *xw = mc_extrap_build(&d4, 1, &ru, &err);
    CHECK(xw);
    CHECK(mc_extrap_source(xw, 3, &err) == NULL);
    CHECK(strstr(err.msg, "10 items dealt out at P=4 become 7.5 at P=3") != NULL);
    mc_extrap_destroy(xw);
    /* 10 items at 4 ranks, 13 at 8: no law gives both numbers of items */
    const char *d8b = mkdir_trace("b8b");
    block_items = 13;
    write_block(d8b, 8);
    block_items = 10;
    const char *t3[2] = {d4, d8b};
    mc_extrap *x = mc_extrap_build(t3, 2, NULL, &err);
    CHECK(x == NULL);
    CHECK(strstr(err.msg, "Reduce_scatter") != NULL);
    CHECK(strstr(err.msg, "number of items dealt out") != NULL);
    /* fewer items than ranks: 3 over 4 and 7 ranks, the last ones send nothing */
    char q4[512], q5[512];
    block_items = 3;
    snprintf(q4, sizeof q4, "%s", mkdir_trace("bq4"));
    snprintf(q5, sizeof q5, "%s", mkdir_trace("bq7"));
    write_block(q4, 4);
    write_block(q5, 7);
    const char *t4[2] = {q4, q5};
    check_block(t4, 2, NULL, 8, 3);
    block_items = 10;
    /* the remainder on the last ranks (2DECOMP&FFT): 16 16 24 24 at 4 ranks */
    char l4[512], l5[512], l8[512];
    block_last = 1;
    snprintf(l4, sizeof l4, "%s", mkdir_trace("bl4"));
    snprintf(l5, sizeof l5, "%s", mkdir_trace("bl5"));
    snprintf(l8, sizeof l8, "%s", mkdir_trace("bl8"));
    write_block(l4, 4);
    write_block(l5, 5);
    write_block(l8, 8);
    const char *tl[3] = {l5, l4, l8};
    check_block(tl, 3, NULL, 7, 10);
    /* a first-remainder trace with a last-remainder one: refused */
    block_last = 0;
    const char *tm[2] = {f8, l4};
    CHECK(mc_extrap_build(tm, 2, NULL, &err) == NULL);
    if (!strstr(err.msg, "fit no reading the P=8 counts have"))
        fprintf(stderr, "%s\n", err.msg);
    CHECK(strstr(err.msg, "fit no reading the P=8 counts have") != NULL);
    test_ceil_blocks();
}

/* A transpose of xA x xB items of 8 bytes over the world (issue 20): rank
 * me holds the rows share(xA, me) and sends rank k its columns share(xB, k),
 * as FFT codes whose sizes need not divide call Alltoallv. */
static int xA = 10, xB = 11;

static void xpose_prog(int P, int r, evlist *l)
{
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    for (int it = 0; it < 2; it++) {
        mc_event *a = add(l, MC_OP_ALLTOALLV);
        a->peer2 = P;
        for (int k = 0; k < P; k++) {
            a->vals[k] = block_share(xA, P, r) * block_share(xB, P, k) / 8;
            a->vals[P + k] = block_share(xA, P, k) * block_share(xB, P, r) / 8;
        }
        a->nvals = 2u * (uint32_t)P;
    }
    add(l, MC_OP_FINALIZE);
}

static void write_xpose(const char *dir, int P)
{
    write_prog(dir, P, xpose_prog);
}

/* blocks: the rule stating how the items are dealt out, or NULL */
static void check_xpose(const char **t, int n, int P, const char *blocks)
{
    mc_error err = {0};
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    if (blocks)
        CHECK(mc_extrap_rules_set(&ru, "blocks", blocks, &err) == MC_OK);
    mc_extrap *x = mc_extrap_build(t, n, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = x ? mc_extrap_source(x, P, &err) : NULL;
    if (x && !s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s);
    if (s) {
        check_source_against(s, P, xpose_prog);
        mc_source_close(s);
    }
    mc_extrap_destroy(x);
}

static void test_transposes(void)
{
    /* 10 x 11: at 2 ranks only the columns show (5 5 rows), at 4 both */
    const char *d2 = mkdir_trace("tx2"), *d4 = mkdir_trace("tx4");
    write_xpose(d2, 2);
    write_xpose(d4, 4);
    /* 11 columns are 3 3 3 2 on 4 ranks (6 5 on 2) dealt out first or in ceil(11/c)
     * blocks alike, which part at 7 and 8 ranks: refused unless stated */
    mc_error err = {0};
    mc_extrap *xo = mc_extrap_build(&d4, 1, NULL, &err);
    CHECK(xo && mc_extrap_source(xo, 7, &err) == NULL);
    CHECK(strstr(err.msg, "columns first, or 10 x 11 items of 8 bytes, rows dealt out first, "
                          "columns ceil, and these differ at P=7") != NULL);
    mc_extrap_destroy(xo);
    check_xpose(&d4, 1, 7, "first");
    const char *t[2] = {d2, d4};
    check_xpose(t, 2, 8, "first");
    CHECK(mc_extrap_build(&d2, 1, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "divides the transpose's number of rows") != NULL);
    /* 12 x 10: both equal at 2, the columns only at 4, the rows only at 5: the
     * item size comes from a side that one trace shows */
    xA = 12, xB = 10;
    const char *e2 = mkdir_trace("ty2"), *e4 = mkdir_trace("ty4"), *e5 = mkdir_trace("ty5");
    write_xpose(e2, 2);
    write_xpose(e4, 4);
    write_xpose(e5, 5);
    const char *t3[3] = {e2, e4, e5};
    check_xpose(t3, 3, 7, NULL);
    /* traces of two global sizes: refused */
    char p4[512], p7[512];
    snprintf(p4, sizeof p4, "%s", e5); /* shows 12 rows, 7 ranks 11 */
    xA = 11;
    snprintf(p7, sizeof p7, "%s", mkdir_trace("ty7"));
    write_xpose(p7, 7);
    const char *t2[2] = {p4, p7};
    CHECK(mc_extrap_build(t2, 2, NULL, &err) == NULL);
    if (!strstr(err.msg, "only a fixed global size"))
        fprintf(stderr, "%s\n", err.msg);
    CHECK(strstr(err.msg, "only a fixed global size") != NULL);
    /* remainders on the last ranks: 10 x 11 from 2 and 4 ranks to 7 */
    xA = 10, xB = 11, block_last = 1;
    char l2[512], l4[512];
    snprintf(l2, sizeof l2, "%s", mkdir_trace("tl2"));
    snprintf(l4, sizeof l4, "%s", mkdir_trace("tl4"));
    write_xpose(l2, 2);
    write_xpose(l4, 4);
    const char *tl[2] = {l2, l4};
    check_xpose(tl, 2, 7, NULL);
    /* FFTW's ceil blocks: 13 x 14 from 2 and 4 ranks (4 4 4 1 x 4 4 4 2) to 7 and 16
     * (1 x 13 and 1 x 14, the last ranks none) */
    xA = 13, xB = 14, block_last = 2;
    snprintf(l2, sizeof l2, "%s", mkdir_trace("tc2"));
    snprintf(l4, sizeof l4, "%s", mkdir_trace("tc4"));
    write_xpose(l2, 2);
    write_xpose(l4, 4);
    check_xpose(tl, 2, 7, NULL);
    check_xpose(tl, 2, 16, NULL);
    xA = 10, xB = 11, block_last = 0;
}

/* Recursive doubling by hand (issue 20): in each of two iterations, log2 P
 * Sendrecv steps with rank XOR 2^k, then an Allreduce. `half` instead pairs
 * rank r with r + P/2 (mod P), which is rank XOR P/2 at one P only. */
static void xor_prog(int P, int r, evlist *l, int half)
{
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    for (int it = 0; it < 2; it++) {
        for (int k = 0; (1 << k) < P && (!half || k == 0); k++) {
            mc_event *e = add(l, MC_OP_SENDRECV);
            e->peer = e->peer2 = half ? (r + P / 2) % P : r ^ (1 << k);
            e->tag = e->tag2 = 9;
            e->bytes = e->bytes2 = 64;
        }
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    add(l, MC_OP_FINALIZE);
}

static void xor_prog_doubling(int P, int r, evlist *l)
{
    xor_prog(P, r, l, 0);
}

static void write_xor(const char *dir, int P, int half)
{
    evlist *l = malloc(sizeof *l);
    for (int r = 0; r < P; r++) {
        xor_prog(P, r, l, half);
        write_rank(dir, r, l);
    }
    free(l);
}

static void test_xor_partners(void)
{
    const char *d4 = mkdir_trace("x4"), *d8 = mkdir_trace("x8");
    write_xor(d4, 4, 0);
    write_xor(d8, 8, 0);
    const char *t[2] = {d4, d8};
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(t, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 2); /* each trace rebuilt from the other */
    for (int P = 16; P <= 64; P *= 2) {
        mc_source *s = mc_extrap_source(x, P, &err);
        CHECK(s);
        check_source_against(s, P, xor_prog_doubling);
        mc_source_close(s);
    }
    /* log2 24 steps is not a whole number */
    CHECK(mc_extrap_source(x, 24, &err) == NULL);
    CHECK(strstr(err.msg, "not a whole number") != NULL);
    mc_extrap_destroy(x);
    /* one trace: rank XOR 1 cannot be told from rank + P/2 */
    CHECK(mc_extrap_build(&d8, 1, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "rank XOR 1, which one trace cannot tell") != NULL);
    /* rank + P/2 at two counts: XOR 2 at P=4, XOR 4 at P=8: refused, not guessed */
    const char *h4 = mkdir_trace("h4"), *h8 = mkdir_trace("h8");
    write_xor(h4, 4, 1);
    write_xor(h8, 8, 1);
    const char *h[2] = {h4, h8};
    CHECK(mc_extrap_build(h, 2, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "not explained") != NULL);

}

/* Allreduce steps repeated log2 P times between a Barrier and a Bcast. */
static void steps_prog(int P, int r, evlist *l)
{
    (void)r;
    memset(l, 0, sizeof *l);
    add(l, MC_OP_INIT);
    mc_event *b = add(l, MC_OP_BARRIER);
    b->peer2 = P;
    for (int q = P; q > 1; q /= 2) {
        mc_event *a = add(l, MC_OP_ALLREDUCE);
        a->peer2 = P;
        a->bytes = a->bytes2 = 8;
    }
    mc_event *c = add(l, MC_OP_BCAST);
    c->peer = 0;
    c->peer2 = P;
    c->bytes = c->bytes2 = 8;
    add(l, MC_OP_FINALIZE);
}

/* 1 step at P=2, 2 at P=4: log2 P and P/2 both fit the counts; they agree
 * at 4 and differ at 8 (3 and 4 steps), where choosing would be a guess. */
static void test_repetition_laws_ambiguous(void)
{
    const char *d[2] = {mkdir_trace("y2"), mkdir_trace("y4")};
    evlist *l = malloc(sizeof *l);
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < 2 * (k + 1); r++) {
            steps_prog(2 * (k + 1), r, l);
            write_rank(d[k], r, l);
        }
    free(l);
    mc_error err = {0};
    mc_extrap *x = mc_extrap_build(d, 2, NULL, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    mc_source *s = mc_extrap_source(x, 4, &err);
    CHECK(s);
    check_source_against(s, 4, steps_prog);
    mc_source_close(s);
    CHECK(mc_extrap_source(x, 8, &err) == NULL);
    if (!strstr(err.msg, "give 3 and 4 copies at P=8"))
        fprintf(stderr, "unexpected: %s\n", err.msg);
    CHECK(strstr(err.msg, "log2p(P) and") && strstr(err.msg, "x p(P)") &&
          strstr(err.msg, "give 3 and 4 copies at P=8: trace one more process count"));
    mc_extrap_destroy(x);
}

/* Reads every rank of s: sizes and sources of its events. */
typedef struct sizes_of {
    int n;
    int64_t bytes[MAXEV], bytes2[MAXEV];
    int32_t peer2[MAXEV];
    int op[MAXEV];
} sizes_of;
static sizes_of *read_sizes(mc_source *s, int P)
{
    sizes_of *z = calloc((size_t)P, sizeof *z);
    mc_error err = {0};
    mc_event e;
    for (int r = 0; r < P; r++)
        while (z[r].n < MAXEV && mc_source_next(s, r, &e, &err) == 1) {
            z[r].bytes[z[r].n] = e.bytes;
            z[r].bytes2[z[r].n] = e.bytes2;
            z[r].peer2[z[r].n] = e.peer2;
            z[r].op[z[r].n++] = e.op;
        }
    return z;
}

/* Every Sendrecv of z receives what its source sends; the bytes sent. */
static int64_t check_data_channels(const sizes_of *z, int P)
{
    int64_t sum = 0;
    for (int r = 0; r < P; r++)
        for (int i = 0; i < z[r].n; i++) {
            sum += z[r].bytes[i];
            if (z[r].op[i] != MC_OP_SENDRECV)
                continue;
            int q = z[r].peer2[i];
            CHECK(q >= 0 && q < P && z[q].n == z[r].n);
            CHECK(z[r].bytes2[i] == z[q].bytes[i]);
        }
    return sum;
}

/* The same stencil, 8 iterations whose sizes differ, folded (a long run):
 * iterations alike but for sizes fold into one loop of mean sizes, which
 * every receive gets as its sender sends them; the bytes are the traced
 * ones to rounding at the traced P, four times them at 8x8. */
static void test_data_sizes_folded(void)
{
    const char *t9 = mkdir_trace("dsf9"), *t16 = mkdir_trace("dsf16");
    int d3[2] = {3, 3}, d4[2] = {4, 4};
    write_stencil_iters(t9, 9, d3, 1, 0, 8);
    write_stencil_iters(t16, 16, d4, 1, 0, 8);
    setenv("MPICAST_EXTRAP_FOLD", "1", 1);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    const char *one[1] = {t16}, *two[2] = {t9, t16};
    CHECK(mc_extrap_build(one, 1, &ru, &err) == NULL); /* still refused by default */
    CHECK(strstr(err.msg, "--rule sizes=data"));
    CHECK(mc_extrap_rules_set(&ru, "sizes", "data", &err) == MC_OK);
    mc_extrap *x = mc_extrap_build(one, 1, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x && mc_extrap_folded(x) == 1);
    char *text = explain_text(x, 64);
    CHECK(strstr(text, "read as two iterations (16 of 16 ranks have one"));
    free(text);
    mc_source *s = mc_trace_open(t16, &err);
    sizes_of *z = read_sizes(s, 16);
    int64_t traced = check_data_channels(z, 16);
    int n0 = z[0].n;
    free(z);
    mc_source_close(s);
    s = mc_extrap_source(x, 16, &err);
    z = read_sizes(s, 16);
    CHECK_EQ_INT(z[0].n, n0);
    int64_t at16 = check_data_channels(z, 16);
    printf("folded data sizes: %lld bytes traced, %lld rebuilt\n", (long long)traced,
           (long long)at16);
    CHECK(at16 - traced <= 16 * 4 * 4 && traced - at16 <= 16 * 4 * 4); /* <= 4 B a face */
    free(z);
    mc_source_close(s);
    s = mc_extrap_source(x, 64, &err);
    CHECK(s);
    z = read_sizes(s, 64);
    CHECK_EQ_INT(check_data_channels(z, 64), 4 * at16);
    free(z);
    mc_source_close(s);
    mc_extrap_destroy(x);
    x = mc_extrap_build(two, 2, &ru, &err); /* both folded, each rebuilt from the other */
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x && mc_extrap_folded(x) == 2 && mc_extrap_checked(x) == 2);
    mc_extrap_destroy(x);
    unsetenv("MPICAST_EXTRAP_FOLD");
}

/* A stencil whose face sizes follow the data: refused by default with a hint;
 * with rule sizes=data regenerated exactly at the traced P, and at other P
 * every receive gets the size its sender sends, from the traced sizes. */
static void test_data_sizes(void)
{
    stencil_data = 1;
    const char *t9 = mkdir_trace("ds9"), *t16 = mkdir_trace("ds16");
    int d3[2] = {3, 3}, d4[2] = {4, 4};
    write_stencil(t9, 9, d3, 1, 0);
    write_stencil(t16, 16, d4, 1, 0);
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    const char *one[1] = {t16}, *two[2] = {t9, t16};
    CHECK(mc_extrap_build(one, 1, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "differ in size") && strstr(err.msg, "--rule sizes=data"));
    CHECK(mc_extrap_rules_set(&ru, "sizes", "fuzzy", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "sizes", "data", &err) == MC_OK);
    mc_extrap *x = mc_extrap_build(one, 1, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    /* the traced P: every event as traced */
    evlist *l = malloc(sizeof *l);
    mc_source *s = mc_extrap_source(x, 16, &err);
    sizes_of *z = read_sizes(s, 16);
    for (int r = 0; r < 16; r++) {
        stencil(16, d4, 1, 0, 2, r, l);
        CHECK_EQ_INT(z[r].n, l->n);
        for (int i = 0; i < l->n && i < z[r].n; i++)
            CHECK(z[r].bytes[i] == l->e[i].bytes && z[r].bytes2[i] == l->e[i].bytes2);
    }
    int64_t traced[MAXEV] = {0};
    for (int r = 0; r < 16; r++)
        for (int i = 0; i < z[r].n; i++)
            traced[i] += z[r].bytes[i];
    free(z);
    mc_source_close(s);
    /* 8x8 tiles the traced 4x4 four times; 6x6 and 5x5 cut the tiling */
    int Ps[3] = {64, 36, 25};
    for (int p = 0; p < 3; p++) {
        int P = Ps[p];
        s = mc_extrap_source(x, P, &err);
        CHECK(s);
        z = read_sizes(s, P);
        int64_t sum[MAXEV] = {0};
        for (int r = 0; r < P; r++)
            for (int i = 0; i < z[r].n; i++) {
                sum[i] += z[r].bytes[i];
                if (z[r].op[i] != MC_OP_SENDRECV)
                    continue;
                int q = z[r].peer2[i];
                CHECK(q >= 0 && q < P && z[q].n == z[r].n);
                CHECK(z[r].bytes2[i] == z[q].bytes[i]); /* what the sender sends */
                CHECK(z[r].bytes[i] >= 8 && z[r].bytes[i] <= 40 && z[r].bytes[i] % 8 == 0);
            }
        for (int i = 0; P == 64 && i < z[0].n; i++)
            CHECK(sum[i] == 4 * traced[i]);
        free(z);
        mc_source_close(s);
    }
    mc_extrap_destroy(x);
    /* two traces: each rebuilt from the other, sizes aside, and said so */
    x = mc_extrap_build(two, 2, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 2);
    char *text = explain_text(x, 36);
    CHECK(strstr(text, "sizes data: "));
    CHECK(strstr(text, "but for point-to-point sizes (the data's"));
    CHECK(strstr(text, "size data x const"));
    free(text);
    mc_extrap_destroy(x);
    free(l);
    test_data_sizes_folded();
    stencil_data = 0;
}

/* Mean Sendrecv bytes sent at P, every receive checked against its sender. */
static double mean_sendrecv_bytes(const mc_extrap *x, int P)
{
    mc_error err = {0};
    mc_source *s = mc_extrap_source(x, P, &err);
    CHECK(s);
    sizes_of *z = read_sizes(s, P);
    check_data_channels(z, P);
    double sum = 0;
    long n = 0;
    for (int r = 0; r < P; r++)
        for (int i = 0; i < z[r].n; i++)
            if (z[r].op[i] == MC_OP_SENDRECV)
                sum += (double)z[r].bytes[i], n++;
    free(z);
    mc_source_close(s);
    return n ? sum / (double)n : 0;
}

/* Sizes that follow the data and shrink like a ghost shell as P grows
 * (2000/sqrt(P) + 400 on average): size.p2p=fit fits their mean over four
 * traces (the ghost-shell family of a 2-D grid) and scales each member's
 * sizes by it, so the mean at 16x16 is the shell's, which no one-factor law
 * gives; refused without sizes data or with fewer than three traces. */
static void test_data_sizes_fitted(void)
{
    stencil_shell = 1;
    static char dirs[4][600];
    const char *t[4];
    int n[4] = {4, 6, 8, 10};
    for (int k = 0; k < 4; k++) {
        int dims[2] = {n[k], n[k]};
        snprintf(dirs[k], sizeof dirs[k], "%s/shell%d", tmp, n[k] * n[k]);
        write_stencil(dirs[k], n[k] * n[k], dims, 1, 0);
        t[k] = dirs[k];
    }
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    CHECK(mc_extrap_rules_set(&ru, "size.reduce", "fit", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "size.p2p", "fit", &err) == MC_OK);
    CHECK(mc_extrap_build(t, 4, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "size.p2p=fit") && strstr(err.msg, "--rule sizes=data"));
    CHECK(mc_extrap_rules_set(&ru, "sizes", "data", &err) == MC_OK);
    CHECK(mc_extrap_build(t + 2, 2, &ru, &err) == NULL);
    CHECK(strstr(err.msg, "three traces or more (it is in 2)"));
    mc_extrap *x = mc_extrap_build(t, 4, &ru, &err);
    if (!x)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(x);
    CHECK_EQ_INT(mc_extrap_checked(x), 4); /* each trace rebuilt from the others */
    char *text = explain_text(x, 256);
    CHECK(strstr(text, "size data x fit (ghost-shell: 400.0"));
    CHECK(strstr(text, " + 2000.0") && strstr(text, "*P^(-1/2), held-out error 0.0"));
    free(text);
    double at100 = mean_sendrecv_bytes(x, 100), at256 = mean_sendrecv_bytes(x, 256);
    printf("shell sizes fitted: mean %.2f at P=100 (traced 600), %.2f at P=256 (shell 525)\n",
           at100, at256);
    CHECK(fabs(at100 - 600) < 0.5);
    CHECK(fabs(at256 - 525) < 0.01 * 525);
    mc_extrap_destroy(x);
    /* without the fit the data keep the largest trace's scale (weak: const) */
    mc_extrap_rules_init(&ru);
    CHECK(mc_extrap_rules_set(&ru, "sizes", "data", &err) == MC_OK);
    x = mc_extrap_build(t, 4, &ru, &err);
    CHECK(x);
    CHECK(fabs(mean_sendrecv_bytes(x, 256) - 600) < 0.5);
    mc_extrap_destroy(x);
    stencil_shell = 0;
}

static void test_rules_syntax(void)
{
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    mc_error err = {0};
    CHECK(mc_extrap_rules_set(&ru, "grid", "8x4", &err) == MC_OK);
    CHECK_EQ_INT(ru.ndims, 2);
    CHECK_EQ_INT(ru.dims[1], 4);
    CHECK(mc_extrap_rules_set(&ru, "size.p2p", "surface", &err) == MC_OK);
    CHECK_EQ_INT(ru.law[MC_SC_P2P], MC_LAW_SURFACE);
    CHECK(mc_extrap_rules_set(&ru, "size.p2p", "cubic", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "grid", "8x", &err) == MC_OK); /* trailing x tolerated */
    CHECK(mc_extrap_rules_set(&ru, "grid", "0x4", &err) == MC_ERR_USAGE);
    CHECK(mc_extrap_rules_set(&ru, "nonsense", "1", &err) == MC_ERR_USAGE);
    char path[600];
    snprintf(path, sizeof path, "%s/rules.txt", tmp);
    FILE *f = fopen(path, "w");
    fputs("# SCAMP CG\nscaling strong\ncompute = volume\nperiodic 1,0\n", f);
    fclose(f);
    CHECK(mc_extrap_rules_load(&ru, path, &err) == MC_OK);
    CHECK_EQ_INT(ru.strong, 1);
    CHECK_EQ_INT(ru.law[MC_SC_COMPUTE], MC_LAW_VOLUME);
    CHECK_EQ_INT(ru.periods[0], 1);
    f = fopen(path, "w");
    fputs("scaling sideways\n", f);
    fclose(f);
    CHECK(mc_extrap_rules_load(&ru, path, &err) == MC_ERR_FORMAT); /* bad input, not usage */
    CHECK(strstr(err.msg, "rules.txt:1") != NULL);
    int dims[3];
    mc_extrap_dims_create(36, 3, dims);
    CHECK(dims[0] == 4 && dims[1] == 3 && dims[2] == 3);
    mc_extrap_dims_create(1048576, 2, dims);
    CHECK(dims[0] == 1024 && dims[1] == 1024);
    mc_extrap_dims_create(8, 2, dims);
    CHECK(dims[0] == 4 && dims[1] == 2);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/mc_extrap_scamp_XXXXXX");
    CHECK(mkdtemp(tmp));
    test_rules_syntax();
    test_stencil_4x4_to_8x8();
    test_block_shares();
    test_ceil_block_shares();
    test_data_sizes();
    test_data_sizes_fitted();
    test_replicate_4_to_4096();
    test_strong_scaling_inferred();
    test_refuse_task_farm();
    test_refuse_repetitions();
    test_repetitions_inferred();
    test_repetitions_in_outer_loop();
    test_fixed_loop_count_hides_law();
    test_vector_collectives();
    test_block_distributions();
    test_transposes();
    test_xor_partners();
    test_repetition_laws_ambiguous();
    test_garbage_never_crashes();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK(system(cmd) == 0);
    return 0;
}
