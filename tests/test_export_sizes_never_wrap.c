/* Exports never write a wrapped size (issue 26 item 4): an Alltoallv whose
 * per-rank counts (each 2^63 - 1, as a crafted trace may hold) sum past
 * what the format holds is refused with the trace, rank, event and reason —
 * OTF2 (64-bit sent/received totals of a collective) and SimGrid text
 * (signed 64-bit totals) alike — while the same trace with small counts
 * exports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/export.h"
#include "mpicast/format.h"

enum { N = 4 };

static void put(mc_writer *w, int op, int64_t *vals, uint32_t nvals, int64_t t)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = MC_COMM_NULL;
    e.cpu = -1;
    e.comm = MC_COMM_WORLD;
    e.vals = vals;
    e.nvals = nvals;
    e.t_start = t;
    e.t_end = t + 100;
    if (op == MC_OP_ALLTOALLV)
        e.peer2 = N;
    mc_error err = {0};
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
}

static void write_trace(const char *dir, int64_t count)
{
    for (int r = 0; r < N; r++) {
        mc_error err = {0};
        mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
        CHECK(w != NULL);
        int64_t v[2 * N];
        for (int i = 0; i < 2 * N; i++)
            v[i] = count;
        put(w, MC_OP_INIT, NULL, 0, 0);
        put(w, MC_OP_ALLTOALLV, v, 2 * N, 1000);
        put(w, MC_OP_FINALIZE, NULL, 0, 2000);
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
}

int main(void)
{
    char base[] = "/tmp/mpicast-wrap-XXXXXX";
    CHECK(mkdtemp(base) != NULL);
    char small[256], big[256], out[256];
    snprintf(small, sizeof small, "%s/small", base);
    snprintf(big, sizeof big, "%s/big", base);
    CHECK(mkdir(small, 0700) == 0 && mkdir(big, 0700) == 0);
    write_trace(small, 64);
    write_trace(big, INT64_MAX);

    mc_error err = {0};
    snprintf(out, sizeof out, "%s/small.tit", base);
    CHECK(mc_export_tit(small, out, 1e9, NULL, NULL, &err) == MC_OK);
    snprintf(out, sizeof out, "%s/small.otf2", base);
    CHECK(mc_export_otf2(small, out, NULL, NULL, &err) == MC_OK);

    memset(&err, 0, sizeof err);
    snprintf(out, sizeof out, "%s/big.tit", base);
    CHECK(mc_export_tit(big, out, 1e9, NULL, NULL, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "rank 0 event 1 (Alltoallv)") != NULL);
    CHECK(strstr(err.msg, "sum past 2^63") != NULL);

    memset(&err, 0, sizeof err);
    snprintf(out, sizeof out, "%s/big.otf2", base);
    CHECK(mc_export_otf2(big, out, NULL, NULL, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "rank 0 event 1 (Alltoallv)") != NULL);
    CHECK(strstr(err.msg, "exceed 2^64") != NULL);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
    return 0;
}
