/* Bad CPU profiles are refused with FILE:LINE and the reason (library), and
 * with exit 1 by predict, sweep and blocks: truncated, negative counts,
 * non-increasing buckets, unknown records, and the rest of the format's
 * rules (docs/cpu-profile.md). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "mpicast/cpu.h"
#include "test_blocks_synth.h"

static char dir[256];

static const char *good =
    "# mpicast cpu profile 1\n"
    "meta\ttool\thand made\n"
    "meta\tsample_rate\t0.5\n"
    "block\t0x20\t0x30\t0\t2\t4000\t1000\t80\n"
    "rd\t0x20\t0x30\t0\td\t64\t10\t1:1000,100:0,101:50\n"
    "rd\t0x20\t0x30\t0\ti\t64\t5\t1:100\n";

static const char *write_file(const char *name, const char *text)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loading `text` fails with "PATH:LINE: ..." containing `why`. */
static void refused(const char *text, int line, const char *why)
{
    const char *path = write_file("bad.prof", text);
    mc_error err = {0};
    mc_cpu_profile *p = mc_cpu_profile_load(path, &err);
    if (p) {
        fprintf(stderr, "accepted:\n%s", text);
        exit(1);
    }
    char want[700];
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, why)) {
        fprintf(stderr, "got '%s', want '%s...%s'\n", err.msg, want, why);
        exit(1);
    }
    CHECK_EQ_INT(err.code, MC_ERR_FORMAT);
}

/* `good` with line `n` (1-based) replaced by `line` (NULL: removed). */
static const char *edit(int n, const char *line)
{
    static char buf[4096];
    buf[0] = 0;
    const char *s = good;
    for (int k = 1; *s; k++) {
        const char *e = strchr(s, '\n') + 1;
        if (k != n)
            strncat(buf, s, (size_t)(e - s));
        else if (line)
            strcat(buf, line);
        s = e;
    }
    return buf;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "cpu-bad");
    mc_error err = {0};
    mc_cpu_profile *p = mc_cpu_profile_load(write_file("good.prof", good), &err);
    CHECK(p != NULL);
    CHECK_EQ_INT(mc_cpu_profile_count(p), 1);
    CHECK(mc_cpu_accesses(p, 0, MC_CPU_STREAM_D, 64) == 1060);
    mc_cpu_profile_destroy(p);

    /* truncated: cut inside the last line, and cut before a block's rd */
    char cut[4096];
    snprintf(cut, sizeof cut, "%.*s", (int)strlen(good) - 9, good);
    refused(cut, 6, "truncated");
    refused(edit(6, NULL), 4, "no rd record for i at 64 B lines");
    /* negative and malformed counts */
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t64\t-10\t1:1000\n"), 5, "bad COLD");
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t64\t10\t1:-1000\n"), 5, "bad HIST pair");
    refused(edit(4, "block\t0x20\t0x30\t0\t2\t-4000\t1000\t80\n"), 4, "bad INSTR");
    refused(edit(4, "block\t0x20\t0x30\t0\t0\t4000\t1000\t80\n"), 4, "bad BURSTS");
    /* non-increasing buckets */
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t64\t10\t1:1000,1:5\n"), 5, "must increase");
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t64\t10\t4:1000,2:5\n"), 5, "must increase");
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t64\t10\t0:1000\n"), 5, "must increase");
    /* unknown record, bad fields */
    refused(edit(3, "sample\t0.5\n"), 3, "unknown record");
    refused(edit(3, "meta\tsample_rate\t2\n"), 3, "bad sample_rate");
    refused(edit(5, "rd\t0x20\t0x30\t0\tu\t64\t10\t1:1000\n"), 5, "bad KIND");
    refused(edit(5, "rd\t0x20\t0x30\t0\td\t48\t10\t1:1000\n"), 5, "bad LINE");
    refused(edit(5, "rd\t0x20\t0x30\t1\td\t64\t10\t1:1000\n"), 5, "without a 'block' record");
    refused(edit(4, "block\t0x20\tcg.c\t0\t2\t4000\t1000\t80\n"), 4, "bad site key");
    refused(edit(4, "block\t0x20\t0x30\t*\t2\t4000\t1000\t80\n"), 4, "bad RANK");
    refused(edit(4, "block 0x20 0x30 0 2 4000 1000 80\n"), 4, "separated by tabs");
    refused(edit(4, "block\t0x20\t0x30\t0\t2\t4000\t1000\n"), 4, "expected: block");
    refused(edit(1, "# mpicast cpu profile 2\n"), 1, "not a CPU profile");
    char twice[4096];
    snprintf(twice, sizeof twice, "%s%s", good, "rd\t0x20\t0x30\t0\ti\t64\t5\t1:100\n");
    refused(twice, 7, "second rd record");
    snprintf(twice, sizeof twice, "%s%s", good, "block\t0x20\t0x30\t0\t2\t4000\t1000\t80\n");
    refused(twice, 7, "block given twice");

    /* the commands: exit 1, "mpicast: FILE:LINE: why" on stderr */
    char tdir[512];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    synth_trace(tdir);
    const char *bad = write_file("bad.prof", edit(5, "rd\t0x20\t0x30\t0\td\t64\t10\t4:1,2:5\n"));
    const char *cmds[] = {"predict", "sweep", "blocks"};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(sh("%s %s %s --profile %s > /dev/null 2> %s/err.txt", MPICAST_BIN, cmds[i],
                        tdir, bad, dir), 1);
        CHECK_EQ_INT(sh("grep -q '^mpicast: %s:5: HIST buckets must increase' %s/err.txt", bad,
                        dir), 0);
    }
    rm_tree(dir);
    return 0;
}
