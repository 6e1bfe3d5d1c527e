/* `mpicast trace --mode profile`: the command rewritten so that every rank
 * runs under Valgrind lackey through `mpicast _profile-rank`, and the
 * ranks' profiles joined with the trace's site keys into cpu-profile.txt
 * (docs/compute-data.md, "CPU profiles"). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mpicast/blocks.h"
#include "mpicast/format.h"
#include "mpicast/outfile.h"
#include "mpicast/profile.h"
#include "trace_profile.h"

static int executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A word without '/' that names an executable file in a directory of PATH
 * (as execvp and valgrind find it). */
static int in_path(const char *word)
{
    const char *path = getenv("PATH");
    if (!path || strchr(word, '/') || !*word)
        return 0;
    char buf[PATH_MAX];
    for (const char *d = path; *d;) {
        size_t n = strcspn(d, ":");
        if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, d, word) < (int)sizeof buf &&
            executable_file(buf))
            return 1;
        d += n + (d[n] == ':');
    }
    return 0;
}

/* The word of the command that is the program: the first later word of a
 * launcher's command that is an executable regular file, else the first
 * that PATH finds (`mpirun -np 2 lmp`; the launcher's option values are
 * rarely commands); the first word of any other command. -1 if a
 * launcher's program is not found. */
static int program_word(char **cmd, int launcher)
{
    if (!launcher)
        return 0;
    for (int i = 1; cmd[i]; i++)
        if (cmd[i][0] != '-' && executable_file(cmd[i]))
            return i;
    for (int i = 1; cmd[i]; i++)
        if (cmd[i][0] != '-' && in_path(cmd[i]))
            return i;
    return -1;
}

char **trace_profile_command(char **cmd, int launcher, const char *dir, const char *rate)
{
    int at = program_word(cmd, launcher);
    if (at < 0) {
        fprintf(stderr, "mpicast: trace: --mode profile: cannot tell which word of the "
                "command is the program: no word is an executable file or a command of PATH "
                "(give it with a path, e.g. ./app)\n");
        return NULL;
    }
    static char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        fprintf(stderr, "mpicast: /proc/self/exe: %s\n", strerror(errno));
        return NULL;
    }
    self[k] = 0;
    int n = 0;
    while (cmd[n])
        n++;
    char **out = calloc((size_t)n + 5, sizeof *out);
    if (!out)
        return NULL;
    int j = 0;
    for (int i = 0; i < at; i++)
        out[j++] = cmd[i];
    out[j++] = self;
    out[j++] = "_profile-rank";
    out[j++] = (char *)dir;
    out[j++] = (char *)rate;
    for (int i = at; i < n; i++)
        out[j++] = cmd[i];
    return out;
}

/* Rank of a "cpu-profile-rank-N.txt" name; -1 for other names. */
static int rank_file(const char *name)
{
    const char *pre = "cpu-profile-rank-";
    size_t n = strlen(pre);
    if (strncmp(name, pre, n) != 0)
        return -1;
    char *end;
    long r = strtol(name + n, &end, 10);
    return end > name + n && strcmp(end, ".txt") == 0 && r >= 0 && r < 1 << 30 ? (int)r : -1;
}

/* Adds one rank's profile (keys: decimal site ids) to `all` under the
 * trace's site keys; meta keys are taken from it. */
static int join_rank(mc_prof *all, const char *path, const mc_meta *meta, mc_error *err)
{
    mc_prof *p = mc_prof_read(path, err);
    if (!p)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < mc_prof_nblocks(p); i++) {
        const mc_prof_block *b = mc_prof_block_at(p, i);
        char from[MC_SITE_KEY_MAX], to[MC_SITE_KEY_MAX];
        mc_site_key(meta, (int32_t)strtol(b->from, NULL, 10), from, sizeof from);
        mc_site_key(meta, (int32_t)strtol(b->to, NULL, 10), to, sizeof to);
        rc = mc_prof_add(all, b, from, to, err) == MC_OK ? 0 : -1;
    }
    mc_prof_destroy(p);
    return rc;
}

static const char *valgrind_version(char *buf, size_t len)
{
    FILE *f = popen("valgrind --version 2>/dev/null", "r");
    snprintf(buf, len, "valgrind-lackey");
    char v[128];
    if (f && fgets(v, sizeof v, f)) {
        v[strcspn(v, "\n")] = 0;
        snprintf(buf, len, "valgrind-lackey %s", strncmp(v, "valgrind-", 9) == 0 ? v + 9 : v);
    }
    if (f)
        pclose(f);
    return buf;
}

static void put_meta(mc_prof *all, const char *rate, char **cmd)
{
    char tool[160], source[4096] = "";
    size_t n = 0;
    for (int i = 0; cmd[i] && n + 2 < sizeof source; i++)
        n += (size_t)snprintf(source + n, sizeof source - n, "%s%s", i ? " " : "", cmd[i]);
    mc_prof_set_meta(all, "tool", valgrind_version(tool, sizeof tool), NULL);
    mc_prof_set_meta(all, "sample_rate", rate, NULL);
    mc_prof_set_meta(all, "source", source, NULL);
    mc_prof_set_meta(all, "line_sizes", "32,64,128", NULL);
    mc_prof_set_meta(all, "mpi_accesses", "in the LRU stacks, not counted", NULL);
    mc_prof_set_meta(all, "before_init", "in the LRU stacks, not counted", NULL);
    mc_prof_set_meta(all, "other_threads", "after MPI_Init: not counted, not in the LRU stacks",
                     NULL);
}

/* Collects the ranks' files (removing them), and writes cpu-profile.txt
 * when every rank of the trace left one and the run succeeded. */
int trace_profile_join(const char *dir, int run_rc, const char *rate, char **cmd)
{
    mc_error err = {0};
    mc_meta *meta = mc_meta_read(dir, &err);
    int nranks = meta ? mc_meta_nranks(meta) : 0, found = 0, bad = 0;
    mc_prof *all = mc_prof_create();
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int r = rank_file(e->d_name);
        if (r < 0)
            continue;
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!bad && all && meta && r < nranks) {
            if (join_rank(all, path, meta, &err) == 0)
                found++;
            else
                bad = 1;
        }
        unlink(path);
    }
    if (d)
        closedir(d);
    int rc = 0;
    char out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/cpu-profile.txt", dir);
    if (bad || !all || !meta) {
        fprintf(stderr, "mpicast: %s: no CPU profile written: %s\n", out,
                err.msg[0] ? err.msg : "out of memory");
        rc = CLI_BAD_INPUT;
    } else if (run_rc != 0 || found != nranks) {
        fprintf(stderr, "mpicast: %s: no CPU profile written: %d of %d ranks finished "
                "theirs (the run %s)\n", out, found, nranks,
                run_rc ? "failed" : "did not reach MPI_Finalize on every rank");
        rc = CLI_BAD_INPUT;
    } else {
        put_meta(all, rate, cmd);
        mc_out o = {0};
        if (mc_out_open(&o, out, MC_OUT_PRIVATE, &err) != MC_OK ||
            mc_prof_write(all, o.f, &err) != MC_OK) {
            mc_out_abort(&o);
            rc = cli_fail(&err);
        } else if (mc_out_commit(&o, &err) != MC_OK) {
            rc = cli_fail(&err);
        } else {
            fprintf(stderr, "mpicast: CPU profile in %s (%zu blocks x ranks)\n", out,
                    mc_prof_nblocks(all));
        }
    }
    mc_prof_destroy(all);
    mc_meta_destroy(meta);
    return rc;
}
