/* Findings of the fuzzers (fuzz/, docs/robustness.md), kept as unit tests:
 *  - a platform string value longer than 127 bytes was cut by
 *    mc_platform_write, so a written platform did not read back;
 *  - error messages quoting input kept its newlines, breaking the one-line
 *    "mpicast: FILE:WHERE: ..." contract.
 * (The int64 overflow of rank-file time deltas is tests/bad/trace-time-overflow.) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/platform.h"

static void long_string_value_reads_back(void)
{
    char dir[] = "/tmp/mpicast-fuzzreg-XXXXXX", path[64], value[181], set[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/p.ini", dir);
    memset(value, 'Z', 170);
    strcpy(value + 170, " auto");
    snprintf(set, sizeof set, "collectives.bcast=%s", value);
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    CHECK_EQ_INT(mc_platform_set(p, set, &err), MC_OK);
    CHECK_EQ_INT(mc_platform_write(p, path, &err), MC_OK);
    mc_platform *back = mc_platform_load(path, &err);
    CHECK(back != NULL);
    CHECK_EQ_STR(mc_platform_str(back, "collectives.bcast"), value);
    mc_platform_destroy(back);
    mc_platform_destroy(p);
    unlink(path);
    rmdir(dir);
}

static void messages_are_one_line(void)
{
    mc_error err = {0};
    double v;
    CHECK(mc_parse_value("1\n2\rx\ty", MC_UNIT_TIME, &v, &err) != MC_OK);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(strchr(err.msg, '\r') == NULL);
    CHECK(strstr(err.msg, "'1?2?x y'") != NULL);
    mc_error_prefix(&err, "a\nb");
    CHECK(strncmp(err.msg, "a?b: ", 5) == 0);
}

int main(void)
{
    long_string_value_reads_back();
    messages_are_one_line();
    return 0;
}
