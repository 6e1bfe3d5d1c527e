/* An extrapolation that cannot explain a pattern stops at it, and the one-line
 * refusal names the rank, its event (as `mpicast dump` counts them, from 0),
 * the operation and the call site with its source file and line where the
 * trace resolved them (issue 20, item 1's last rule). No MPI needed: the
 * traces are written here, each with a meta.json of call sites.
 *
 *  1. A task farm: ranks of one position class with other event counts. The
 *     refusal says where they part: rank 1's event 3 is a Finalize at
 *     farm.c:90 in main, rank 2's a Recv at farm.c:40 in worker.
 *  2. hpcc's permuted split: the world split with keys that permute its
 *     ranks. The refusal names the rank and event of the first such
 *     Comm_split, its site and its members.
 *  3. A trace without meta data: the site is named by its id alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"

#define MAXEV 16
#define SITE_RECV 7001
#define SITE_SEND 7002
#define SITE_FIN 7003
#define SITE_SPLIT 7004

typedef struct evlist {
    mc_event e[MAXEV];
    int64_t vals[MAXEV][16];
    int n;
    int64_t t;
} evlist;

static mc_event *add(evlist *l, int op, int32_t site)
{
    mc_event *e = &l->e[l->n];
    mc_event_clear(e);
    e->op = op;
    e->site = site;
    e->peer = e->peer2 = e->tag = e->tag2 = MC_NONE;
    e->t_start = l->t + 1000;
    e->t_end = e->t_start + 100;
    e->burst = l->n ? 1000 : 0;
    l->t = e->t_end;
    e->vals = l->vals[l->n];
    l->n++;
    return e;
}

static void write_rank(const char *dir, int r, const evlist *l)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w);
    for (int i = 0; i < l->n; i++)
        CHECK(mc_writer_add(w, &l->e[i], &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static void write_sites(const char *dir, int P)
{
    static const struct {
        int32_t id;
        const char *fn, *file;
        int line;
    } sites[] = {{SITE_RECV, "worker", "/src/app/farm.c", 40},
                 {SITE_SEND, "master", "/src/app/farm.c", 20},
                 {SITE_FIN, "main", "/src/app/farm.c", 90},
                 {SITE_SPLIT, "HPCC_Init", "/src/hpcc/io.c", 321}};
    mc_error err = {0};
    mc_meta *m = mc_meta_create(P);
    CHECK(m);
    for (size_t i = 0; i < sizeof sites / sizeof *sites; i++) {
        mc_meta_site s = {.id = sites[i].id, .module = "/src/app/a.out", .offset = 16 * i,
                          .function = sites[i].fn, .file = sites[i].file, .line = sites[i].line};
        CHECK(mc_meta_add_site(m, &s, &err) == MC_OK);
    }
    CHECK(mc_meta_write(m, dir, &err) == MC_OK);
    mc_meta_destroy(m);
}

static char tmp[256];

static const char *trace_dir(const char *name)
{
    static char path[4][512];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 512, "%s/%s", tmp, name);
    return p;
}

static void refused(const char *dir, mc_error *err)
{
    mc_extrap_rules ru;
    mc_extrap_rules_init(&ru);
    memset(err, 0, sizeof *err);
    CHECK(mc_extrap_build(&dir, 1, &ru, err) == NULL);
    fprintf(stderr, "refusal: %s\n", err->msg);
}

/* Rank 0 hands out 6 tasks; ranks 1..3 take 2, 3 and 1 of them. */
static void write_farm(const char *dir, int sites)
{
    evlist *l = malloc(sizeof *l);
    CHECK(l);
    int tasks[4] = {6, 2, 3, 1};
    for (int r = 0; r < 4; r++) {
        memset(l, 0, sizeof *l);
        add(l, MC_OP_INIT, 0);
        for (int k = 0; k < tasks[r]; k++) {
            mc_event *e = add(l, r ? MC_OP_RECV : MC_OP_SEND, r ? SITE_RECV : SITE_SEND);
            e->peer = r ? 0 : 1 + k % 3;
            e->tag = 5;
            e->bytes = 64;
        }
        add(l, MC_OP_FINALIZE, SITE_FIN);
        write_rank(dir, r, l);
    }
    free(l);
    if (sites)
        write_sites(dir, 4);
}

static void test_task_farm_names_where_ranks_part(void)
{
    const char *dir = trace_dir("farm");
    write_farm(dir, 1);
    mc_error err;
    refused(dir, &err);
    /* ranks 1 and 2 (class (int)) have 4 and 5 events: they part at event 3 */
    CHECK(strstr(err.msg, "class (int): rank 1 has 4 events, rank 2 has 5") != NULL);
    CHECK(strstr(err.msg, "they part at rank 1 event 3 (Finalize, site 1b5b, farm.c:90 in "
                          "main) and rank 2 event 3 (Recv, site 1b59, farm.c:40 in worker)") !=
          NULL);
    CHECK(strstr(err.msg, "not explained") != NULL);
}

static void test_site_without_meta_is_its_id(void)
{
    const char *dir = trace_dir("farm-nometa");
    write_farm(dir, 0);
    mc_error err;
    refused(dir, &err);
    CHECK(strstr(err.msg, "they part at rank 1 event 3 (Finalize, site 1b5b) and rank 2 event "
                          "3 (Recv, site 1b59))") != NULL);
    CHECK(strstr(err.msg, "farm.c") == NULL);
}

/* hpcc: MPI_Comm_split(world, 0, key) with the keys of a permutation, so the
 * new communicator holds the world in the order 2,3,6,1,7,5,4,0. */
static void test_permuted_split_names_rank_event_members(void)
{
    static const int order[8] = {2, 3, 6, 1, 7, 5, 4, 0};
    const char *dir = trace_dir("split");
    evlist *l = malloc(sizeof *l);
    CHECK(l);
    for (int r = 0; r < 8; r++) {
        memset(l, 0, sizeof *l);
        add(l, MC_OP_INIT, 0);
        mc_event *e = add(l, MC_OP_COMM_SPLIT, SITE_SPLIT);
        e->comm = MC_COMM_WORLD;
        e->tag = 0; /* colour */
        int key = 0;
        while (order[key] != r)
            key++;
        e->bytes = key;
        e->newcomm = (1ull << 32) | 0u; /* lowest member 0 */
        e->nvals = 8;
        for (int j = 0; j < 8; j++)
            e->vals[j] = order[j];
        add(l, MC_OP_FINALIZE, SITE_FIN);
        write_rank(dir, r, l);
    }
    free(l);
    write_sites(dir, 8);
    mc_error err;
    refused(dir, &err);
    CHECK(strstr(err.msg, "not rows, columns or planes of an MPI_Dims_create grid") != NULL);
    CHECK(strstr(err.msg, "(rank 0 event 1, Comm_split, site 1b5c, io.c:321 in HPCC_Init, makes "
                          "one of members 2,3,6,1,7,5,4,0)") != NULL);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/mc_extrap_sites_XXXXXX");
    CHECK(mkdtemp(tmp));
    test_task_farm_names_where_ranks_part();
    test_site_without_meta_is_its_id();
    test_permuted_split_names_rank_event_members();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK(system(cmd) == 0);
    return 0;
}
