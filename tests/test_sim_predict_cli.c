/* mpicast predict end to end on hand-written time-independent traces:
 * the golden ping-pong of test_sim_p2p_golden (compute given in flops),
 * the JSON keys of docs/json.md, the free-network breakdown, the timeline,
 * the deadlock report (exit 1) and --ranks on a text trace (exit 1). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

static char dir[] = "/tmp/mc_predict_XXXXXX";

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static int sh(const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, MPICAST_BIN, dir, arg);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double num(json_t *o, const char *path)
{
    /* "a.b" lookups */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *dot = strchr(buf, '.');
    if (dot) {
        *dot = 0;
        o = json_object_get(o, buf);
        path = dot + 1;
        CHECK(o != NULL);
    } else {
        path = buf;
    }
    json_t *v = json_object_get(o, path);
    if (!v)
        fprintf(stderr, "missing key %s\n", path);
    CHECK(json_is_number(v));
    return json_number_value(v);
}

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-15)

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    write_file("pp.txt", "0 init\n1 init\n"
                         "0 compute 500\n0 send 1 7 101\n0 recv 1 7 101\n"
                         "1 recv 0 7 101\n1 compute 200\n1 send 0 7 101\n"
                         "0 finalize\n1 finalize\n");
    const char *G1 = "--set network.latency=1us --set network.overhead=100ns "
                     "--set network.gap=150ns --set network.bandwidth=1GB/s "
                     "--set network.eager_limit=1000 --set cpu.flops=1e9";
    char args[512];
    snprintf(args, sizeof args, "%s --json --timeline %s/tl.json > %s/out.json", G1, dir, dir);
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s", args), 0);

    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    NEAR(num(doc, "predicted_time"), 3.3e-6);
    json_t *pr = json_object_get(doc, "per_rank");
    CHECK(json_array_size(pr) == 2);
    NEAR(num(json_array_get(pr, 0), "end"), 3.3e-6);
    NEAR(num(json_array_get(pr, 1), "end"), 2.1e-6);
    NEAR(num(json_array_get(pr, 0), "compute"), 0.5e-6);
    NEAR(num(json_array_get(pr, 0), "comm"), 0.3e-6);
    NEAR(num(json_array_get(pr, 0), "wait"), 2.5e-6);
    NEAR(num(doc, "compute_time.max"), 0.5e-6);
    NEAR(num(doc, "compute_time.mean"), 0.35e-6);
    CHECK(num(doc, "comm_time.max") > 0 && num(doc, "wait_time.mean") > 0);
    CHECK_EQ_INT(num(doc, "messages.count"), 2);
    CHECK_EQ_INT(num(doc, "messages.bytes"), 202);
    CHECK_EQ_INT(num(doc, "events"), 10);
    CHECK(num(doc, "sim_wall_seconds") >= 0);
    /* free network: r1 receives at 500, computes to 700, r0 gets it at 700 */
    NEAR(num(doc, "breakdown.free_network_time"), 0.7e-6);
    NEAR(num(doc, "breakdown.communication"), 2.6e-6);
    json_decref(doc);

    snprintf(path, sizeof path, "%s/tl.json", dir);
    doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    json_t *evs = json_object_get(doc, "traceEvents");
    size_t i, compute = 0, mpi = 0, wait = 0;
    json_t *ev;
    json_array_foreach(evs, i, ev) {
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        if (!cat)
            continue;
        compute += strcmp(cat, "compute") == 0;
        mpi += strcmp(cat, "mpi") == 0;
        wait += strcmp(cat, "wait") == 0;
    }
    CHECK(compute == 2 && mpi == 8 && wait >= 2);
    json_decref(doc);

    /* text output works too */
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s > /dev/null", G1), 0);

    /* deadlock: both receive first */
    write_file("dl.txt", "0 recv 1 3 8\n0 send 1 3 8\n1 recv 0 3 8\n1 send 0 3 8\n");
    snprintf(args, sizeof args, "2> %s/err.txt", dir);
    CHECK_EQ_INT(sh("%s predict %s/dl.txt %s", args), 1);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    FILE *f = fopen(path, "r");
    char err[4096] = "";
    size_t n = fread(err, 1, sizeof err - 1, f);
    err[n] = 0;
    fclose(f);
    CHECK(strstr(err, "mpicast: ") == err);
    CHECK(strstr(err, "rank 0: Recv from rank 1 tag 3 comm world") != NULL);
    CHECK(strstr(err, "rank 1: Recv from rank 0 tag 3 comm world") != NULL);

    /* extrapolation needs a trace directory: a text trace is bad input */
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s 2>/dev/null", "--ranks 64"), 1);
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s 2>/dev/null", "--ranks 0"), 2);
    CHECK_EQ_INT(sh("%s predict %s/nosuch %s 2>/dev/null", ""), 1);
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s 2>/dev/null", "--set network.latency=fast"), 1);
    CHECK_EQ_INT(sh("%s predict %s/pp.txt %s >/dev/null", "--help"), 0);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
