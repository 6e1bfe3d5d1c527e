/* The time-independent export of a trace with communicator management
 * calls predicts exactly what the trace predicts with cpu.comm_setup =
 * recorded: the calls' recorded durations become `sleep` lines (the
 * default, model, prices the calls' collectives, which the export does not
 * write: there the two differ). Checked on the default platform, with the handshake
 * rendezvous and at cpu.speed = 3, on a 2-rank trace written here:
 *   r0: compute 1000, Comm_dup (4000 ns), compute 500, Send 100 B on the
 *       dup, compute 300, Recv 100000 B (rendezvous), compute 100,
 *       Comm_free (700 ns);
 *   r1: compute 2000, Comm_dup (3000 ns), Recv 100 B, compute 1000, Send
 *       100000 B, Comm_free (200 ns). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/export.h"
#include "mpicast/format.h"
#include "mpicast/sim.h"
#include "mpicast/tit.h"

#define DUP ((1ull << 32) | 7u)

static mc_writer *w;
static int64_t now;

static mc_event ev(int op)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = MC_COMM_NULL;
    e.cpu = -1;
    return e;
}

static void put(mc_event e, int64_t burst, int64_t dur)
{
    mc_error err = {0};
    e.t_start = now + burst;
    e.t_end = e.t_start + dur;
    now = e.t_end;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
}

static void p2p(int op, int peer, int64_t bytes, int64_t burst)
{
    mc_event e = ev(op);
    e.peer = peer;
    e.tag = 4;
    e.bytes = bytes;
    e.bytes2 = op == MC_OP_RECV ? bytes : 0;
    e.comm = DUP;
    put(e, burst, 300);
}

static void write_trace(const char *dir)
{
    int64_t members[2] = {0, 1};
    for (int r = 0; r < 2; r++) {
        mc_error err = {0};
        w = mc_writer_open(dir, r, 0, 2, &err);
        CHECK(w != NULL);
        now = -1000;
        put(ev(MC_OP_INIT), 0, 1000);
        mc_event e = ev(MC_OP_COMM_DUP);
        e.newcomm = DUP;
        e.peer2 = 2;
        e.vals = members;
        e.nvals = 2;
        put(e, r ? 2000 : 1000, r ? 3000 : 4000);
        if (r == 0) {
            p2p(MC_OP_SEND, 1, 100, 500);
            p2p(MC_OP_RECV, 1, 100000, 300);
        } else {
            p2p(MC_OP_RECV, 0, 100, 0);
            p2p(MC_OP_SEND, 0, 100000, 1000);
        }
        e = ev(MC_OP_COMM_FREE);
        e.comm = DUP;
        put(e, r ? 0 : 100, r ? 200 : 700);
        put(ev(MC_OP_FINALIZE), 0, 1000);
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
}

static void predict(mc_source *src, const char *const *sets, mc_sim_result *res)
{
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    for (int i = 0; sets && sets[i]; i++)
        CHECK(mc_platform_set(p, sets[i], &err) == MC_OK);
    mc_err rc = mc_sim_run(src, p, NULL, res, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == MC_OK);
    mc_platform_destroy(p);
}

static int64_t absdiff(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

/* The trace replayed with `sets`, its export with `tit_sets`: ends equal to
 * within `tol` ps. */
static void compare(const char *dir, const char *list, const char *const *sets,
                    const char *const *tit_sets, int64_t tol)
{
    mc_error err = {0};
    mc_source *a = mc_trace_open(dir, &err);
    mc_source *b = mc_tit_open(list, &err);
    CHECK(a != NULL && b != NULL);
    mc_sim_result ra = {0}, rb = {0};
    predict(a, sets, &ra);
    predict(b, tit_sets, &rb);
    CHECK(ra.end > 7000 * 1000 / 3); /* the two calls' 7 us are in it */
    if (absdiff(rb.end, ra.end) > tol)
        CHECK_EQ_INT(rb.end, ra.end);
    for (int r = 0; r < 2; r++)
        if (absdiff(rb.ranks[r].end, ra.ranks[r].end) > tol)
            CHECK_EQ_INT(rb.ranks[r].end, ra.ranks[r].end);
    mc_sim_result_free(&ra);
    mc_sim_result_free(&rb);
    mc_source_close(a);
    mc_source_close(b);
}

int main(void)
{
    char dir[] = "/tmp/mc_commsetup_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char trace[128], out[128], list[160], rank0[160];
    snprintf(trace, sizeof trace, "%s/trace", dir);
    snprintf(out, sizeof out, "%s/tit", dir);
    snprintf(list, sizeof list, "%s/traces.txt", out);
    snprintf(rank0, sizeof rank0, "%s/rank-0.txt", out);
    write_trace(trace);
    mc_error err = {0};
    mc_export_info info;
    CHECK(mc_export_tit(trace, out, 1e9, &info, NULL, &err) == MC_OK);
    CHECK_EQ_INT(info.dropped, 0);
    /* the Comm_dup's 4000 ns, written exactly */
    FILE *f = fopen(rank0, "r");
    CHECK(f != NULL);
    char line[256];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found += strcmp(line, "0 sleep 0.000004000\n") == 0;
    if (f)
        fclose(f);
    CHECK_EQ_INT(found, 1);

    const char *rec[] = {"cpu.comm_setup=recorded", NULL};
    compare(trace, list, rec, NULL, 0);
    const char *hs[] = {"network.rendezvous=handshake", "network.rendezvous_overhead=1us", NULL};
    const char *hs_rec[] = {"network.rendezvous=handshake", "network.rendezvous_overhead=1us",
                            "cpu.comm_setup=recorded", NULL};
    compare(trace, list, hs_rec, hs, 0);
    /* 3 times faster: the trace's bursts and calls and the export's sleeps
     * are divided by cpu.speed, its `compute` flops need cpu.flops (to within
     * the rounding of a third of a ns per burst) */
    const char *fast[] = {"cpu.speed=3", "cpu.comm_setup=recorded", NULL};
    const char *fast_tit[] = {"cpu.speed=3", "cpu.flops=3e9", NULL};
    compare(trace, list, fast, fast_tit, 10);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
