/* Test helpers: synthetic events and temporary trace directories. */
#ifndef MPICAST_TEST_RANKFILE_UTIL_H
#define MPICAST_TEST_RANKFILE_UTIL_H
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "mpicast/format.h"

static inline mc_event ev_make(int op, int64_t start, int64_t end)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.cpu = -1;
    e.t_start = start;
    e.t_end = end;
    return e;
}

/* A fresh empty directory under /tmp; the caller removes it with rm_tree. */
static inline void make_tmpdir(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/mpicast-test-%s-XXXXXX", tag);
    CHECK(mkdtemp(buf) != NULL);
}

static inline void rm_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static inline long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}
#endif
