/* Bad time-independent traces give errors naming FILE:LINE and what is
 * wrong, at open (bad rank, missing file) or when the line is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/tit.h"

static char dir[] = "/tmp/mc_tit_errXXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[4][512];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return p;
}

/* Opening must fail with exactly "PATH<suffix>". */
static void open_fails(const char *path, const char *suffix)
{
    mc_error err = {0};
    CHECK(mc_tit_open(path, &err) == NULL);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    CHECK_EQ_STR(err.msg, want);
}

/* Opening succeeds; reading `rank` ends in an error "PATH<suffix>" after
 * `good` events; later reads keep failing. */
static void read_fails(const char *path, int rank, int good, const char *suffix)
{
    mc_error err = {0};
    mc_source *s = mc_tit_open(path, &err);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(s != NULL);
    mc_event e;
    for (int i = 0; i < good; i++)
        CHECK_EQ_INT(mc_source_next(s, rank, &e, &err), 1);
    CHECK_EQ_INT(mc_source_next(s, rank, &e, &err), -1);
    CHECK_EQ_INT(err.code, MC_ERR_FORMAT);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    CHECK_EQ_STR(err.msg, want);
    mc_error again = {0};
    CHECK_EQ_INT(mc_source_next(s, rank, &e, &again), -1);
    CHECK_EQ_STR(again.msg, want);
    CHECK_EQ_INT(again.code, MC_ERR_FORMAT);
    mc_source_close(s);
}

/* Every action name, in any case, is known: read with far too many
 * arguments, its line fails on them, never as an unknown action; names one
 * letter off each way are unknown (the lookup indexes names by first letter
 * and length). */
static void every_action_known(void)
{
    static const char *names[] = {
        "init", "finalize", "comm_size", "comm_split", "comm_dup", "location", "compute",
        "sleep", "send", "isend", "recv", "irecv", "test", "wait", "waitall", "barrier", "bcast",
        "reduce", "allreduce", "alltoall", "allgather", "gather", "scatter", "gatherv",
        "allgatherv", "scatterv", "alltoallv", "reducescatter", "reduce_scatter"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (int variant = 0; variant < 4; variant++) {
            char name[64], text[4096];
            snprintf(name, sizeof name, "%s%s", names[i], variant == 2 ? "x" : "");
            if (variant == 1) /* upper case */
                for (char *c = name; *c; c++)
                    *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
            if (variant == 3) /* one letter short */
                name[strlen(name) - 1] = 0;
            int n = snprintf(text, sizeof text, "0 init\n0 %s", name);
            for (int k = 0; k < 1000; k++) /* past every argument count but comm_*'s */
                n += snprintf(text + n, sizeof text - (size_t)n, " 1");
            snprintf(text + n, sizeof text - (size_t)n, "\n");
            const char *p = write_file("names.txt", text);
            mc_error err = {0};
            mc_source *s = mc_tit_open(p, &err);
            CHECK(s != NULL);
            mc_event e;
            CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1); /* init */
            int rc = mc_source_next(s, 0, &e, &err);
            int unknown = rc < 0 && strstr(err.msg, "unknown action") != NULL;
            int is_name = 0; /* a near miss may be another name ("reduce" + x is not) */
            for (size_t j = 0; j < sizeof names / sizeof names[0]; j++) {
                char lower[64];
                snprintf(lower, sizeof lower, "%s", name);
                for (char *c = lower; *c; c++)
                    *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
                is_name |= strcmp(lower, names[j]) == 0;
            }
            if (unknown == is_name)
                fprintf(stderr, "action '%s': %s\n", name, rc < 0 ? err.msg : "read");
            CHECK(unknown != is_name);
            mc_source_close(s);
        }
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    const char *p;

    every_action_known();

    p = write_file("unknown.txt", "0 init\n1 init\n# comment\n0 sendd 1 0 10\n");
    read_fails(p, 0, 1, ":4: unknown action 'sendd'");

    /* line numbers stay right across the runs of an interleaved trace */
    p = write_file("late.txt", "0 init\n1 init\n\n0 compute 1\n# c\n1 compute 2\n0 finalize\n1 bogus 3\n");
    read_fails(p, 1, 2, ":8: unknown action 'bogus'");

    p = write_file("range.txt", "0 init\n1 init\n0 send 5 0 10\n");
    read_fails(p, 0, 1, ":3: send: rank 5 out of range (the trace has 2 ranks)");

    p = write_file("number.txt", "0 compute 1e6\n0 compute 12abc\n");
    read_fails(p, 0, 1, ":2: compute: bad number '12abc' (argument 1)");

    p = write_file("negative.txt", "0 init\n0 bcast -5\n");
    read_fails(p, 0, 1, ":2: bcast: negative size '-5' (argument 1)");

    p = write_file("nargs.txt", "0 init\n0 send 1\n1 init\n");
    read_fails(p, 0, 1, ":2: send: expected 2 to 4 arguments, got 1");

    p = write_file("vargs.txt", "0 init\n1 init\n0 alltoallv 10 1 2 10 1\n");
    read_fails(p, 0, 1, ":3: alltoallv: expected 6 to 8 arguments, got 5");

    p = write_file("dtype.txt", "0 init\n0 bcast 5 0 99\n");
    read_fails(p, 0, 1, ":2: bcast: unknown datatype id '99' (argument 3)");

    p = write_file("tag.txt", "0 init\n1 init\n0 send 1 x 10\n");
    read_fails(p, 0, 1, ":3: send: bad integer 'x' (argument 2)");

    p = write_file("wait.txt", "0 init\n0 wait 1 2\n");
    read_fails(p, 0, 1, ":2: wait: expected 0 or 3 arguments, got 2");

    p = write_file("rankonly.txt", "0 init\n0\n");
    read_fails(p, 0, 1, ":2: missing action after the rank");

    /* rank tokens are checked when the merged trace is indexed */
    p = write_file("badrank.txt", "0 init\nq1 init\n");
    open_fails(p, ":2: bad rank 'q1' (expected a rank like 0 or p0)");
    p = write_file("bigrank.txt", "0 init\n99999999 init\n");
    open_fails(p, ":2: rank '99999999' out of range (at most 1048575)");

    p = write_file("hole.txt", "0 init\n2 init\n");
    open_fails(p, ": no line for rank 1 (the trace has ranks up to 2)");

    /* list form: a missing file, and a file holding another rank's lines */
    write_file("r0.txt", "0 init\n0 finalize\n");
    write_file("r1.txt", "0 init\n");
    p = write_file("missing.list", "r0.txt\nnothere.txt\n");
    char suffix[1024];
    snprintf(suffix, sizeof suffix, ":2: %s/nothere.txt: cannot open: No such file or directory", dir);
    open_fails(p, suffix);
    p = write_file("swapped.list", "r0.txt\nr1.txt\n");
    mc_error err = {0};
    mc_source *s = mc_tit_open(p, &err);
    CHECK(s != NULL);
    mc_event e;
    CHECK_EQ_INT(mc_source_next(s, 1, &e, &err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s/r1.txt:1: line of rank 0 in the trace of rank 1", dir);
    CHECK_EQ_STR(err.msg, want);
    CHECK_EQ_INT(mc_source_next(s, 0, &e, &err), 1); /* rank 0 is fine */
    mc_source_close(s);

    p = write_file("empty.txt", "# nothing\n\n");
    open_fails(p, ": empty trace (neither '<rank> <action>' lines nor file names)");

    open_fails("/nonexistent/trace.txt", ": cannot open: No such file or directory");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
    return 0;
}
