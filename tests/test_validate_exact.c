/* mpicast validate (issue 21 item 7): measured vs predicted, MPIETE Eq. 8.
 *
 * A two-rank trace written to match the replay exactly on a LogGP platform
 * with L = 1 us, o = g = 0 and infinite bandwidth (times in ns):
 *   rank 0: Init [0,0] | 1000 | Send 100 B to 1 [1000,1000] | Finalize [1000,1000]
 *   rank 1: Init [0,0] | Recv from 0 [0,2000] | Finalize [2000,2000]
 * The eager send costs the sender nothing and arrives at 1000 + 1000, so
 * the replay predicts rank 0: 1000 ns of computation, rank 1: 2000 ns of
 * waiting — every error is 0 %. With L = 2 us, rank 1 ends at 3000 ns:
 * run time +50 %, mean communication (0 + 2000 -> 0 + 3000) +50 %,
 * computation 0 %. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "rankfile_util.h"

static char dir[256];

static void write_rank(int rank, const mc_event *ev, int n)
{
    char tdir[512];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    mc_error err = {0};
    mc_writer *w = mc_writer_open(tdir, rank, 0, 0, &err);
    CHECK(w != NULL);
    for (int i = 0; i < n; i++)
        CHECK(mc_writer_add(w, &ev[i], &err) == MC_OK);
    CHECK(mc_writer_close(w, &err) == MC_OK);
}

static json_t *validate(const char *sets)
{
    char cmd[2048], path[512];
    snprintf(path, sizeof path, "%s/v.json", dir);
    snprintf(cmd, sizeof cmd,
             "%s validate %s/trace --set network.overhead=0 --set network.gap=0 "
             "--set network.bandwidth=inf %s --json > %s",
             MPICAST_BIN, dir, sets, path);
    CHECK_EQ_INT(system(cmd), 0);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    return doc;
}

static double get(json_t *o, const char *which, const char *what)
{
    json_t *v = json_object_get(json_object_get(o, which), what);
    return json_is_null(v) ? NAN : json_number_value(v);
}

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-12)

int main(void)
{
    make_tmpdir(dir, sizeof dir, "validate");
    char tdir[512];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    mc_event r0[3] = {ev_make(MC_OP_INIT, 0, 0), ev_make(MC_OP_SEND, 1000, 1000),
                      ev_make(MC_OP_FINALIZE, 1000, 1000)};
    r0[1].peer = 1, r0[1].tag = 7, r0[1].bytes = 100;
    mc_event r1[3] = {ev_make(MC_OP_INIT, 0, 0), ev_make(MC_OP_RECV, 0, 2000),
                      ev_make(MC_OP_FINALIZE, 2000, 2000)};
    r1[1].peer = 0, r1[1].tag = 7, r1[1].bytes = 100;
    write_rank(0, r0, 3);
    write_rank(1, r1, 3);

    json_t *doc = validate("--set network.latency=1us");
    NEAR(get(doc, "measured", "time"), 2000e-9);
    NEAR(get(doc, "predicted", "time"), 2000e-9);
    NEAR(get(doc, "error_percent", "time"), 0.0);
    NEAR(get(doc, "error_percent", "computation"), 0.0);
    NEAR(get(doc, "error_percent", "communication"), 0.0);
    json_t *pr = json_object_get(doc, "per_rank");
    CHECK_EQ_INT(json_array_size(pr), 2);
    NEAR(get(json_array_get(pr, 0), "measured", "computation"), 1000e-9);
    CHECK(isnan(get(json_array_get(pr, 0), "error_percent", "communication"))); /* 0 measured */
    NEAR(get(json_array_get(pr, 1), "predicted", "communication"), 2000e-9);
    NEAR(get(json_array_get(pr, 1), "error_percent", "time"), 0.0);
    json_decref(doc);

    doc = validate("--set network.latency=2us");
    NEAR(get(doc, "predicted", "time"), 3000e-9);
    NEAR(get(doc, "error_percent", "time"), 50.0);
    NEAR(get(doc, "error_percent", "communication"), 50.0);
    NEAR(get(doc, "error_percent", "computation"), 0.0);
    json_decref(doc);

    /* a time-independent trace has nothing measured: refused */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "printf '0 init\\n0 compute 10\\n0 finalize\\n' > %s/t.txt && "
             "%s validate %s/t.txt 2>%s/err.txt", dir, MPICAST_BIN, dir, dir);
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    rm_tree(dir);
    return 0;
}
