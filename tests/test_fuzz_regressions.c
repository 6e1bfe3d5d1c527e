/* Findings of the fuzzers (fuzz/, docs/robustness.md), kept as unit tests:
 *  - a platform string value longer than 127 bytes was cut by
 *    mc_platform_write, so a written platform did not read back;
 *  - a string value that fit its line as "key =value" was written back as
 *    "key = value", one character over the reader's line length (session 20):
 *    a value too long to be written back is now refused when set or loaded;
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

static void value_too_long_to_write_back_refused(void)
{
    char dir[] = "/tmp/mpicast-fuzzreg-XXXXXX", path[64], set[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/p.ini", dir);
    mc_error err = {0};
    /* "bcast =" and 191 characters: 198 and the newline, the longest line the
     * reader takes */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "[collectives]\nbcast =");
    for (int i = 0; i < 191; i++)
        fputc('Z', f);
    fputc('\n', f);
    fclose(f);
    CHECK(mc_platform_load(path, &err) == NULL);
    CHECK(strstr(err.msg, "p.ini:2") != NULL);
    CHECK(strstr(err.msg, "value of 191 characters: at most 188") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    /* the same through --set; the longest value allowed reads back */
    mc_platform *p = mc_platform_create();
    memset(set, 0, sizeof set);
    strcpy(set, "collectives.bcast=");
    memset(set + strlen(set), 'Z', 189);
    CHECK(mc_platform_set(p, set, &err) != MC_OK);
    set[strlen(set) - 1] = '\0';
    CHECK_EQ_INT(mc_platform_set(p, set, &err), MC_OK);
    CHECK_EQ_INT(mc_platform_write(p, path, &err), MC_OK);
    mc_platform *back = mc_platform_load(path, &err);
    CHECK(back != NULL);
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
    value_too_long_to_write_back_refused();
    messages_are_one_line();
    return 0;
}
