/* Large value arrays (codec.h, MC_LARGE_VALS): a communicator's members at
 * many ranks. A trace of 1100 ranks, each creating a communicator of all of
 * them in order (0..1099, then ndims, dims, periods as Cart_create has
 * them); rank 0 then creates one of its members in a scrambled order and
 * rank 1 one in reverse order (differences of -1), then a Barrier and
 * Finalize.
 * - every value reads back as written, whichever encoding the writer chose;
 * - members in order are stored as differences: the rank file of rank 2
 *   (that array alone) stays under 600 bytes, where 1100 plain values take
 *   2 bytes each before compression;
 * - the events after a large array (which ends its chunk, released by the
 *   reader once read) read on;
 * - two ranks that read the same member array get one copy of it (the
 *   ranks of a communicator of all of them wait in its collective together,
 *   P^2 values if each kept its own), and a rank's array that no other has
 *   stays its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/format.h"

#define MEMBERS 1100
#define ODD MEMBERS
#define NRANKS MEMBERS

static int64_t members_val(uint32_t i)
{
    return i < MEMBERS ? (int64_t)i : i == MEMBERS ? 1 : i == MEMBERS + 1 ? MEMBERS : 0;
}

static int64_t odd_val(int r, uint32_t i)
{
    if (r == 1)
        return MEMBERS - 1 - (int64_t)i;
    return (int64_t)((i * 7919u + 13u) % MEMBERS); /* 7919 is prime to 1100 */
}

static mc_event plain(int op, int64_t *now)
{
    mc_event e = {.op = op, .peer = MC_NONE, .tag = MC_NONE, .peer2 = MC_NONE,
                  .tag2 = MC_NONE, .cpu = -1};
    e.t_start = *now + 100;
    e.t_end = e.t_start + 10;
    *now = e.t_end;
    return e;
}

static void write_rank(const char *dir, int r)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
    CHECK(w != NULL);
    int64_t now = 0, *v = malloc((MEMBERS + 3) * sizeof *v);
    CHECK(v != NULL);
    mc_event e = plain(MC_OP_INIT, &now);
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    for (uint32_t i = 0; i < MEMBERS + 3; i++)
        v[i] = members_val(i);
    e = plain(MC_OP_CART_CREATE, &now);
    e.peer2 = MEMBERS;
    e.newcomm = (1ull << 32);
    e.nvals = MEMBERS + 3;
    e.vals = v;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    if (r < 2) {
        for (uint32_t i = 0; i < ODD; i++)
            v[i] = odd_val(r, i);
        e = plain(MC_OP_COMM_CREATE, &now);
        e.peer2 = ODD;
        e.newcomm = (2ull << 32);
        e.nvals = ODD;
        e.vals = v;
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    }
    e = plain(MC_OP_BARRIER, &now);
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    e = plain(MC_OP_FINALIZE, &now);
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
    free(v);
}

static void next(mc_source *s, int r, int op, mc_event *e)
{
    mc_error err = {0};
    int rc = mc_source_next(s, r, e, &err);
    if (rc != 1 || e->op != op)
        fprintf(stderr, "rank %d: got %d (%s), expected %s: %s\n", r, rc,
                rc == 1 ? mc_op_name(e->op) : "-", mc_op_name(op), err.msg);
    CHECK(rc == 1 && e->op == op);
}

int main(void)
{
    char dir[] = "/tmp/mc_large_vals_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (int r = 0; r < NRANKS; r++)
        write_rank(dir, r);

    char path[400];
    struct stat st;
    mc_rank_path(path, sizeof path, dir, 2);
    CHECK(stat(path, &st) == 0);
    printf("rank 2 (1100 members in order): %lld bytes\n", (long long)st.st_size);
    CHECK(st.st_size < 600);

    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    mc_event e0, e1, e;
    next(s, 0, MC_OP_INIT, &e);
    next(s, 0, MC_OP_CART_CREATE, &e0);
    next(s, 1, MC_OP_INIT, &e);
    next(s, 1, MC_OP_CART_CREATE, &e1); /* rank 0's event still held */
    CHECK_EQ_INT(e0.nvals, MEMBERS + 3);
    CHECK(e0.vals == e1.vals); /* one copy */
    for (uint32_t i = 0; i < e0.nvals; i++)
        CHECK_EQ_INT(e0.vals[i], members_val(i));
    for (int r = 0; r < 2; r++) {
        next(s, r, MC_OP_COMM_CREATE, &e);
        CHECK_EQ_INT(e.nvals, ODD);
        for (uint32_t i = 0; i < ODD; i++)
            CHECK(e.vals[i] == odd_val(r, i));
        next(s, r, MC_OP_BARRIER, &e);
        next(s, r, MC_OP_FINALIZE, &e);
        CHECK_EQ_INT(mc_source_next(s, r, &e, &err), 0);
    }
    for (int r = 2; r < NRANKS; r++) {
        next(s, r, MC_OP_INIT, &e);
        next(s, r, MC_OP_CART_CREATE, &e);
        CHECK(e.vals == e0.vals);
        next(s, r, MC_OP_BARRIER, &e);
        next(s, r, MC_OP_FINALIZE, &e);
    }
    mc_source_close(s);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
