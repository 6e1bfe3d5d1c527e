/* Random bytes and randomly assembled action lines never crash or hang the
 * time-independent reader: open either fails with a message or every rank
 * reads to its end or to an error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/tit.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const actions[] = {
    "init", "finalize", "compute", "send", "isend", "recv", "irecv", "wait", "waitall",
    "test", "barrier", "bcast", "reduce", "allreduce", "alltoall", "alltoallv", "gather",
    "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "reducescatter", "sleep",
    "comm_size", "x", "#",
};
/* mostly valid arguments, some not */
static const char *const args[] = {
    "0", "1", "2", "3", "0", "1", "2", "3", "1e3", "64", "0", "1", "-1", "1e400", "nan", "x", "p1", "99", "0.5",
};
#define COUNT(a) (sizeof a / sizeof a[0])

static void random_bytes(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc((int)(next_rand() & 0xff), f);
}

static void random_lines(FILE *f, int nlines)
{
    for (int i = 0; i < nlines; i++) {
        fprintf(f, "%d %s", i < 4 ? i : (int)(next_rand() % 4), actions[next_rand() % COUNT(actions)]);
        int n = (int)(next_rand() % 9);
        for (int k = 0; k < n; k++)
            fprintf(f, " %s", args[next_rand() % COUNT(args)]);
        fputc(next_rand() % 10 ? '\n' : '\r', f);
    }
}

/* Drains a source; every call returns 1, 0 or -1 and stops. */
static int drain(mc_source *s)
{
    int events = 0;
    for (int r = 0; r < s->nranks; r++) {
        mc_event e;
        mc_error err = {0};
        int rc, guard = 0;
        while ((rc = mc_source_next(s, r, &e, &err)) == 1) {
            CHECK(e.nvals == 0 || e.vals != NULL);
            for (uint32_t i = 0; i < e.nvals; i++)
                (void)e.vals[i];
            CHECK(++guard < 1000000);
            events++;
        }
        CHECK(rc == 0 || rc == -1);
        if (rc < 0)
            CHECK(err.msg[0] != '\0');
    }
    return events;
}

/* A valid trace with a few bytes changed. */
static void mutated(FILE *f, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tit/%s", MC_TEST_DATA, name);
    FILE *in = fopen(path, "r");
    CHECK(in != NULL);
    char text[8192];
    size_t n = fread(text, 1, sizeof text, in);
    fclose(in);
    CHECK(n > 0);
    for (int k = 1 + (int)(next_rand() % 3); k > 0; k--)
        text[next_rand() % n] = "0123456789 \n#xp-e."[next_rand() % 19];
    fwrite(text, 1, n, f);
}

int main(void)
{
    char path[] = "/tmp/mc_tit_garbageXXXXXX";
    int opened = 0, failed = 0, events = 0;
    for (int round = 0; round < 300; round++) {
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        FILE *f = fdopen(fd, "w");
        CHECK(f != NULL);
        if (round % 4 == 0)
            random_bytes(f, next_rand() % 4096);
        else if (round % 4 == 1)
            random_lines(f, 1 + (int)(next_rand() % 60));
        else
            mutated(f, round % 8 < 4 ? "coll.txt" : "pingpong.txt");
        fclose(f);
        mc_error err = {0};
        mc_source *s = mc_tit_open(path, &err);
        if (s) {
            opened++;
            events += drain(s);
            mc_source_close(s);
        } else {
            failed++;
            CHECK(err.msg[0] != '\0');
        }
        remove(path);
        strcpy(path, "/tmp/mc_tit_garbageXXXXXX");
    }
    /* Both outcomes must have been exercised for the test to mean anything. */
    CHECK(opened > 50 && failed > 50 && events > 1000);
    return 0;
}
