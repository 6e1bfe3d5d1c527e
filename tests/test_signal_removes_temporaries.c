/* A command ended by SIGINT, SIGTERM or SIGHUP leaves no temporary output:
 * mc_out_cleanup_on_signals's handler removes the files being written, the
 * directories being filled aside (mc_out_dir_open: extrapolate, compress,
 * import) with the files in them, and the importers' private directories
 * (mc_out_temp_dir_track), then the process dies of the signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/outfile.h"

static void fill(const char *dir, int n)
{
    for (int i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/rank-%06d.mct", dir, i);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        fputs("partial", f);
        fclose(f);
    }
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* In a child: outputs being written, then signal sig. The paths of the
 * temporaries go through the pipe. */
static void child(int sig, const char *root, int fd)
{
    /* Under nohup SIGHUP arrives ignored, and the cleanup rightly leaves an
     * ignored signal alone: start from the default so the handler is tested. */
    signal(sig, SIG_DFL);
    mc_out_cleanup_on_signals();
    mc_error err = {0};
    char out[4200], tmp[MC_OUT_PATH_MAX + 32], priv[4200], file[4200];
    snprintf(out, sizeof out, "%s/out", root);
    if (mc_out_dir_open(tmp, sizeof tmp, out, &err) != MC_OK)
        _exit(2);
    fill(tmp, 300); /* more entries than one getdents buffer holds */
    snprintf(priv, sizeof priv, "%s/import-XXXXXX", root);
    if (!mkdtemp(priv))
        _exit(2);
    mc_out_temp_dir_track(priv);
    fill(priv, 3);
    snprintf(file, sizeof file, "%s/report.html", root);
    mc_out o;
    if (mc_out_open(&o, file, 0, &err) != MC_OK)
        _exit(2);
    fputs("<html>", o.f);
    fflush(o.f);
    dprintf(fd, "%s\n%s\n%s\n", tmp, priv, o.tmp);
    close(fd);
    raise(sig);
    _exit(3); /* not reached */
}

static void check_signal(int sig)
{
    char root[] = "/tmp/mc_sigtmp_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        child(sig, root, p[1]);
    }
    close(p[1]);
    char paths[3][4300] = {{0}};
    FILE *f = fdopen(p[0], "r");
    CHECK(f != NULL);
    for (int i = 0; i < 3; i++) {
        CHECK(fgets(paths[i], sizeof paths[i], f) != NULL);
        paths[i][strcspn(paths[i], "\n")] = 0;
    }
    fclose(f);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig);
    for (int i = 0; i < 3; i++) {
        if (exists(paths[i]))
            fprintf(stderr, "signal %d: %s is still there\n", sig, paths[i]);
        CHECK(!exists(paths[i]));
    }
    char out[4200];
    snprintf(out, sizeof out, "%s/out", root);
    CHECK(!exists(out));
    CHECK(rmdir(root) == 0); /* nothing else was left */
}

int main(void)
{
    check_signal(SIGINT);
    check_signal(SIGTERM);
    check_signal(SIGHUP);
    return 0;
}
