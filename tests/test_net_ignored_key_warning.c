/* A platform key that the chosen network model ignores is named: by
 * mc_net_ignored_keys (the keys set in the platform that only other models
 * read), and on stderr by predict and sweep, once per distinct line (a
 * sweep over network.topology under loggp printed identical rows without
 * saying why). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "check.h"
#include "mpicast/format.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"

static char dir[256];

static void set(mc_platform *p, const char *kv)
{
    mc_error err = {0};
    CHECK(mc_platform_set(p, kv, &err) == MC_OK);
}

static void check_keys(void)
{
    char keys[256], models[64];
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    /* defaults are not "set": nothing to say */
    CHECK_EQ_INT(mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models), 0);
    CHECK(strcmp(keys, "") == 0);
    set(p, "network.topology=torus3d");
    set(p, "network.latency=2us"); /* loggp reads it */
    CHECK_EQ_INT(mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models), 1);
    CHECK(strcmp(keys, "network.topology") == 0);
    CHECK(strcmp(models, "topo") == 0);
    set(p, "network.dims=2x2x2");
    CHECK_EQ_INT(mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models), 2);
    CHECK(strcmp(keys, "network.topology, network.dims") == 0);
    set(p, "network.model=topo");
    CHECK_EQ_INT(mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models), 0);
    set(p, "network.model=table");
    CHECK_EQ_INT(mc_net_ignored_keys(p, keys, sizeof keys, models, sizeof models), 2);
    /* printed once while the line stays the same */
    char seen[1024] = "";
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_EQ_INT(mc_net_warn_ignored(p, f, seen, sizeof seen), 2);
    CHECK_EQ_INT(mc_net_warn_ignored(p, f, seen, sizeof seen), 2);
    rewind(f);
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        CHECK(strcmp(line, "mpicast: warning: network.topology, network.dims are ignored by "
                           "network.model = table (only topo reads them)\n") == 0);
    }
    CHECK_EQ_INT(lines, 1);
    fclose(f);
    mc_platform_destroy(p);
}

/* A two-rank Send/Recv trace to predict. */
static void write_trace(void)
{
    for (int r = 0; r < 2; r++) {
        mc_error err = {0};
        mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
        CHECK(w != NULL);
        mc_event e;
        memset(&e, 0, sizeof e);
        e.op = r == 0 ? MC_OP_SEND : MC_OP_RECV;
        e.peer = 1 - r;
        e.tag = 1;
        e.bytes = e.bytes2 = 1000;
        e.peer2 = e.tag2 = MC_NONE;
        e.newcomm = MC_COMM_NULL;
        e.cpu = -1;
        e.t_start = 1000;
        e.t_end = 2000;
        CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
}

/* Runs `mpicast ARGS`, stderr to a file; returns how many of its lines
 * contain `what`. */
static int stderr_lines(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int stderr_lines(const char *what, const char *fmt, ...)
{
    char args[512], cmd[1200], path[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s.err", dir);
    snprintf(cmd, sizeof cmd, "%s %s > /dev/null 2> %s", MPICAST_BIN, args, path);
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

int main(void)
{
    check_keys();
    snprintf(dir, sizeof dir, "/tmp/mc_ignored_key_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    write_trace();
    const char *w = "network.topology is ignored by network.model = loggp (only topo reads it)";
    CHECK_EQ_INT(stderr_lines(w, "predict %s --set network.topology=ring", dir), 1);
    CHECK_EQ_INT(stderr_lines("warning", "predict %s --set network.topology=ring "
                              "--set network.model=topo", dir), 0);
    CHECK_EQ_INT(stderr_lines("warning", "predict %s", dir), 0);
    CHECK_EQ_INT(stderr_lines(w, "sweep %s --vary network.topology=ring,torus2d", dir), 1);
    /* loggp points warn, topo points do not */
    CHECK_EQ_INT(stderr_lines("warning", "sweep %s --vary network.topology=ring "
                              "--vary network.model=loggp,topo", dir), 1);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.err'", dir, dir);
    CHECK(system(cmd) == 0);
    return 0;
}
