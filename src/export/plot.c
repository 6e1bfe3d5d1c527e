/* Plots through gnuplot (Debian gnuplot-nox): the caller writes a data file
 * and a script body; the terminal comes from the output's extension:
 * .svg → svg, .png → pngcairo. gnuplot runs as a child process with the
 * script in a temporary file, so nothing is quoted through a shell. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *gnuplot_bin(void)
{
    const char *g = getenv("MPICAST_GNUPLOT");
    return g && *g ? g : "gnuplot";
}

int mc_gnuplot_available(void)
{
    const char *g = gnuplot_bin();
    if (strchr(g, '/'))
        return access(g, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[4096];
    for (const char *p = path; *p;) {
        const char *c = strchr(p, ':');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, g);
        if (access(buf, X_OK) == 0)
            return 1;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* gnuplot single-quoted string: '' stands for a quote. */
void mc_gnuplot_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

mc_err mc_gnuplot(const char *script, const char *datafile, const char *output, mc_error *err)
{
    char tmpl[] = "/tmp/mpicast-plot-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return mc_error_set(err, MC_ERR_IO, "plot: cannot create a temporary file: %s", strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmpl);
        return mc_error_set(err, MC_ERR_IO, "plot: cannot write a temporary file");
    }
    if (ends_with(output, ".png"))
        fputs("set terminal pngcairo size 900,420 font 'DejaVu Sans,10'\n", f);
    else
        fputs("set terminal svg size 900,420 dynamic font 'DejaVu Sans,11' background '#ffffff'\n", f);
    fputs("set output ", f);
    mc_gnuplot_quoted(f, output);
    fputs("\ndata = ", f);
    mc_gnuplot_quoted(f, datafile ? datafile : "");
    fputs("\nset encoding utf8\nset grid lc rgb '#dddddd'\nset termoption noenhanced\n"
          "set border lc rgb '#555555'\n", f);
    fputs(script, f);
    fputs("\nset output\n", f);
    if (fclose(f) != 0) {
        unlink(tmpl);
        return mc_error_set(err, MC_ERR_IO, "plot: cannot write a temporary file");
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    /* gnuplot's warnings would clutter the user's terminal: to /dev/null */
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)gnuplot_bin(), tmpl, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    if (rc == 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    unlink(tmpl);
    if (rc != 0)
        return mc_error_set(err, MC_ERR_IO, "plot: cannot run %s: %s (install gnuplot-nox)", argv[0],
                            strerror(rc));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return mc_error_set(err, MC_ERR_IO, "plot: %s failed writing %s", argv[0], output);
    return MC_OK;
}
