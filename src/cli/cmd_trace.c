/* mpicast trace — run a command with the PMPI tracer preloaded.
 *
 * Picks libmpicast-trace.so (Open MPI) or libmpicast-trace-mpich.so for the
 * MPI the program is linked against (its libraries resolved as the loader
 * does, ldd), else the launcher's (mpirun.mpich, mpiexec.hydra: MPICH),
 * else Open MPI; a launcher of one MPI with a program of the other is
 * refused before anything runs. The environment carries the rest
 * to every rank (LD_PRELOAD, MPICAST_TRACE_DIR, MPICAST_MODE). The exit
 * status is the command's. Afterwards the call sites in meta.json get their
 * file:line from addr2line, which the tracer cannot run inside MPI ranks. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "mpicast/format.h"
#include "mpicast/outfile.h"
#include "trace_profile.h"

#ifndef MPICAST_LIBDIR
#define MPICAST_LIBDIR ""
#endif

enum flavour { OPENMPI, MPICH };

static const char trace_head[] =
    "usage: mpicast trace [-o DIR] [--force] [--mode wall|cpu|token|profile]\n"
    "                     [--sample-rate R] [--no-fold] -- COMMAND [ARGS...]\n\n"
    "Runs COMMAND (usually an MPI launcher such as 'mpirun -np 4 ./app') with the\n"
    "mpicast tracer preloaded and writes one trace directory.\n\n";

static const char trace_tail[] =
    "\n"
    "The tracer build (Open MPI or MPICH) is the one of the MPI the program is\n"
    "linked against (as ldd resolves it), else the launcher's; a launcher of one\n"
    "MPI running a program of the other is refused before anything runs.\n"
    "\n"
    "Example:\n"
    "  mpicast trace -o run9/ -- mpirun -np 9 ./halo2d\n"
    "SIGINT, SIGTERM and SIGHUP are passed on to the command's process group,\n"
    "and mpicast waits for it to end.\n"
    "Exit status: the command's; 1 if it cannot be started, or if it ran no\n"
    "traced MPI program (no trace written) and itself exited 0.\n";

/* Full path of an executable name, searching PATH like execvp. */
static int find_in_path(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name);
        struct stat st;
        if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* Searches the first MiB of a file (the dynamic section's strings live
 * near the start) for a needle. */
static int file_mentions(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    return memmem(buf, n, needle, strlen(needle)) != NULL;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* -1: cannot tell from this word; else the flavour. */
static int flavour_of(const char *word)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (!find_in_path(word, path, sizeof path))
        return -1;
    const char *r = realpath(path, real) ? real : path;
    if (strstr(base_name(path), "mpich") || strstr(r, "mpich") || strstr(r, "hydra"))
        return MPICH;
    if (strstr(r, "openmpi") || strstr(r, "orterun") || strstr(r, "prterun"))
        return OPENMPI;
    if (file_mentions(r, "libmpich"))
        return MPICH;
    if (file_mentions(r, "libmpi.so") || file_mentions(r, "libmpi_mpifh"))
        return OPENMPI;
    return -1;
}

static enum flavour detect_flavour(char **cmd);

/* MPI launchers by name (mpirun, mpiexec, their .openmpi/.mpich/.hydra
 * variants, orterun, prterun). */
static int is_launcher(const char *word)
{
    const char *b = base_name(word);
    return strncmp(b, "mpirun", 6) == 0 || strncmp(b, "mpiexec", 7) == 0 ||
           strcmp(b, "orterun") == 0 || strcmp(b, "prterun") == 0;
}

/* The MPI an executable is linked against, resolved as the loader does
 * (ldd: a library that pulls MPI in counts too); -1 when none is found (a
 * script, a static or non-MPI program). *lib gets the library's name. */
static int program_flavour(const char *path, char *lib, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(fd[0]);
        close(fd[1]);
        unsetenv("LD_PRELOAD");
        execlp("ldd", "ldd", path, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    int f = -1;
    char line[4096];
    while (in && fgets(line, sizeof line, in)) {
        char name[512] = "", where[PATH_MAX] = "", real[PATH_MAX];
        if (sscanf(line, " %511s => %4095s", name, where) < 1)
            continue;
        const char *r = where[0] == '/' && realpath(where, real) ? real : where;
        int g = strncmp(name, "libmpich", 8) == 0 || strstr(r, "mpich") ? MPICH
                : strncmp(name, "libmpi.so.40", 12) == 0 || strstr(r, "openmpi") ||
                          strncmp(name, "libopen-", 8) == 0
                    ? OPENMPI
                    : -1;
        if (g >= 0 && f < 0) {
            f = g;
            snprintf(lib, len, "%s", name);
        }
    }
    if (in)
        fclose(in);
    else
        close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return f;
}

/* The program a launcher runs: the first later word that is an executable
 * file (option values such as "-np 2" or a host file are not). */
static const char *launched_program(char **cmd, char *out, size_t len)
{
    for (int i = 1; cmd[i]; i++) {
        struct stat st;
        if (cmd[i][0] != '-' && find_in_path(cmd[i], out, len) && stat(out, &st) == 0 &&
            S_ISREG(st.st_mode))
            return out;
    }
    return NULL;
}

static const char *flavour_name(int f)
{
    return f == MPICH ? "MPICH" : "Open MPI";
}

/* The tracer's MPI: the program's (its PMPI symbols must be the ones the
 * tracer wraps), else the launcher's, else what the command's words say.
 * A launcher of one MPI running a program of the other cannot work (the
 * ranks would crash in MPI_Init): refused before anything runs, -1. */
static int choose_flavour(char **cmd, enum flavour *out)
{
    char prog[PATH_MAX], lib[512] = "";
    int launcher = is_launcher(cmd[0]);
    const char *p = launcher ? launched_program(cmd, prog, sizeof prog)
                             : (find_in_path(cmd[0], prog, sizeof prog) ? prog : NULL);
    int pf = p ? program_flavour(p, lib, sizeof lib) : -1;
    int lf = launcher ? flavour_of(cmd[0]) : -1;
    if (pf >= 0 && lf >= 0 && pf != lf) {
        fprintf(stderr, "mpicast: trace: %s is %s's launcher but %s is linked against %s (%s): "
                "run it with %s's launcher, or build it with %s; nothing was run\n",
                cmd[0], flavour_name(lf), p, flavour_name(pf), lib, flavour_name(pf),
                flavour_name(lf));
        return -1;
    }
    *out = pf >= 0 ? (enum flavour)pf : lf >= 0 ? (enum flavour)lf : detect_flavour(cmd);
    return 0;
}

/* The first word of the command that tells (launcher, then program). */
static enum flavour detect_flavour(char **cmd)
{
    for (int i = 0; cmd[i]; i++) {
        if (cmd[i][0] == '-')
            continue;
        int f = flavour_of(cmd[i]);
        if (f >= 0)
            return (enum flavour)f;
    }
    return OPENMPI;
}

/* The tracer library: next to the mpicast binary (bin/../lib), else the
 * build's MPICAST_LIBDIR. */
static int find_tracer(enum flavour f, char *out, size_t len)
{
    const char *name = f == MPICH ? "libmpicast-trace-mpich.so" : "libmpicast-trace.so";
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            int k = snprintf(out, len, "%s/../lib/%s", exe, name);
            char real[PATH_MAX];
            if (k > 0 && (size_t)k < len && realpath(out, real) && access(real, R_OK) == 0) {
                snprintf(out, len, "%s", real);
                return 1;
            }
        }
    }
    snprintf(out, len, "%s/%s", MPICAST_LIBDIR, name);
    if (MPICAST_LIBDIR[0] && access(out, R_OK) == 0)
        return 1;
    snprintf(out, len, "%s", name);
    return 0;
}

/* mkdir -p, the last directory owner-only (the trace is the user's data);
 * returns 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(tmp, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (access(tmp, W_OK | X_OK) != 0)
        return -1;
    return 0;
}

/* True when `s` is one or more digits followed by exactly `suffix`. */
static int digits_then(const char *s, const char *suffix)
{
    const char *p = s;
    while (*p >= '0' && *p <= '9')
        p++;
    return p > s && strcmp(p, suffix) == 0;
}

/* The names a trace's files have (docs/trace-format.md), including the
 * temporaries of meta.json: what --force may remove. */
static int is_trace_file_name(const char *n)
{
    return strcmp(n, "meta.json") == 0 || strcmp(n, "cpu-profile.txt") == 0 ||
           (strncmp(n, "cpu-profile-rank-", 17) == 0 && digits_then(n + 17, ".txt")) ||
           (strncmp(n, "rank-", 5) == 0 && digits_then(n + 5, ".mct")) ||
           (strncmp(n, "sites-", 6) == 0 && digits_then(n + 6, ".txt")) ||
           (strncmp(n, ".meta.json.", 11) == 0 && strlen(n) == 17) ||
           (strncmp(n, "meta.json.tmp.", 14) == 0 && digits_then(n + 14, ""));
}

/* A trace's file that --force may unlink: named like one, and a regular
 * file or a symlink (unlinking a symlink leaves its target alone). */
static int removable(int dfd, const char *name)
{
    struct stat st;
    return is_trace_file_name(name) && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
}

/* An existing output directory: empty is fine; a trace in it is removed
 * with --force; anything else is refused, so two runs never mix and
 * nothing that is not a trace is deleted. */
static int empty_existing_dir(DIR *d, const char *dir, int force)
{
    int dfd = dirfd(d);
    struct dirent *e;
    char first[NAME_MAX + 1] = "";
    int foreign = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int bad = !removable(dfd, e->d_name);
        if (!first[0] || (bad && !foreign))
            snprintf(first, sizeof first, "%s", e->d_name);
        foreign |= bad;
        if (foreign)
            break;
    }
    if (!first[0])
        return 0;
    if (!force) {
        fprintf(stderr, "mpicast: %s: not empty (holds %s); give a new directory, or --force "
                "to replace the trace in it\n", dir, first);
        return -1;
    }
    if (foreign) {
        fprintf(stderr, "mpicast: %s: holds %s, which is not a trace's file; --force removes "
                "only meta.json, rank-N.mct, sites-N.txt and cpu-profile files\n",
                dir, first);
        return -1;
    }
    rewinddir(d);
    while ((e = readdir(d)) != NULL)
        if (removable(dfd, e->d_name) && unlinkat(dfd, e->d_name, 0) != 0) {
            fprintf(stderr, "mpicast: %s/%s: cannot remove: %s\n", dir, e->d_name,
                    strerror(errno));
            return -1;
        }
    return 0;
}

/* Creates the trace directory, or checks (and with --force empties) an
 * existing one; prints the error and returns -1 when it cannot be used. */
static int prepare_dir(const char *dir, int force)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno != ENOENT && errno != ENOTDIR) {
            fprintf(stderr, "mpicast: %s: cannot read: %s\n", dir, strerror(errno));
            return -1;
        }
        if (make_dirs(dir) != 0) {
            fprintf(stderr, "mpicast: %s: cannot create: %s\n", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    int rc = empty_existing_dir(d, dir, force);
    closedir(d);
    if (rc == 0 && access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "mpicast: %s: cannot create: %s\n", dir, strerror(errno));
        return -1;
    }
    return rc;
}

/* How many rank files the run left in `dir`. */
static int count_rank_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "rank-", 5) == 0 && digits_then(e->d_name + 5, ".mct");
    closedir(d);
    return n;
}

static int setup_env(const char *lib, const char *dir, const char *mode)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n);
    if (!pre)
        return -1;
    if (old && *old)
        snprintf(pre, n, "%s:%s", old, lib);
    else
        snprintf(pre, n, "%s", lib);
    int rc = setenv("LD_PRELOAD", pre, 1) | setenv("MPICAST_TRACE_DIR", dir, 1) |
             setenv("MPICAST_MODE", mode, 1);
    free(pre);
    return rc;
}

/* The command's process group, for the forwarding handler. */
static volatile sig_atomic_t child_group;

/* SIGINT/SIGTERM/SIGHUP sent to mpicast go to the whole job (the launcher
 * and any local ranks in its group); mpicast itself keeps waiting, so no
 * rank outlives it. */
static void forward_signal(int sig)
{
    int saved = errno;
    if (child_group > 0)
        kill(-(pid_t)child_group, sig);
    errno = saved;
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
#define NFORWARDED (int)(sizeof forwarded / sizeof forwarded[0])

/* Moves the terminal's foreground to process group `pg` (a shell's job
 * control): the command keeps its terminal (mpirun reads stdin), and a
 * terminal ^C reaches it directly. SIGTTOU is blocked: a background
 * caller may change the foreground. */
static void give_terminal(pid_t pg)
{
    sigset_t tt, old;
    sigemptyset(&tt);
    sigaddset(&tt, SIGTTOU);
    sigprocmask(SIG_BLOCK, &tt, &old);
    tcsetpgrp(STDIN_FILENO, pg);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The child: its own process group, ended (SIGTERM) if mpicast dies even
 * of SIGKILL, then the command. Exec failures go back through `fd`. */
static void exec_child(char **cmd, int fd, pid_t parent, int own_terminal)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) /* mpicast died before prctl */
        _exit(128 + SIGTERM);
    if (own_terminal)
        give_terminal(getpid());
    execvp(cmd[0], cmd);
    int e = errno;
    if (write(fd, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

/* Runs the command and returns its exit status (128+N if killed by N).
 * Exec failures come back through a close-on-exec pipe. */
static int run(char **cmd)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "mpicast: pipe: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    int own_terminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpicast: fork: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    if (pid == 0) {
        close(fds[0]);
        exec_child(cmd, fds[1], parent, own_terminal);
    }
    setpgid(pid, pid); /* also here: no race with a signal before the child's setpgid */
    if (own_terminal)
        give_terminal(pid);
    child_group = pid;
    struct sigaction fwd, old[NFORWARDED];
    memset(&fwd, 0, sizeof fwd);
    fwd.sa_handler = forward_signal;
    sigemptyset(&fwd.sa_mask);
    for (int k = 0; k < NFORWARDED; k++)
        sigaction(forwarded[k], &fwd, &old[k]);
    close(fds[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    child_group = 0;
    for (int k = 0; k < NFORWARDED; k++)
        sigaction(forwarded[k], &old[k], NULL);
    if (own_terminal)
        give_terminal(getpgrp());
    if (got == (ssize_t)sizeof e) {
        fprintf(stderr, "mpicast: %s: cannot run: %s\n", cmd[0], strerror(e));
        return CLI_BAD_INPUT;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return CLI_BAD_INPUT;
}


/* ------------------------------------------------------------ call sites */

/* The address addr2line wants for a module offset: the offset itself for
 * position-independent modules, plus the load base for a fixed-address
 * executable. 0 if the module is not a readable 64-bit ELF file. */
static uint64_t module_base(const char *module, int *ok)
{
    *ok = 0;
    int fd = open(module, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf64_Ehdr eh;
    uint64_t base = 0;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
        memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64) {
        *ok = 1;
        for (unsigned i = 0; eh.e_type == ET_EXEC && i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) !=
                (ssize_t)sizeof ph)
                break;
            if (ph.p_type == PT_LOAD) {
                base = ph.p_vaddr & ~(uint64_t)0xfff;
                break;
            }
        }
    }
    close(fd);
    return base;
}

typedef struct site_fix {
    char *function, *file;
    int line;
} site_fix;

/* Starts argv (a binutils filter) reading `in` (consumed: closed here) and
 * returns its standard output to read, stderr to /dev/null; NULL if it
 * cannot start. filter_end waits for it. */
static FILE *filter_start(char *const argv[], FILE *in, pid_t *pid)
{
    int fds[2];
    *pid = -1;
    if (fflush(in) != 0 || pipe2(fds, O_CLOEXEC) != 0) {
        fclose(in);
        return NULL;
    }
    rewind(in);
    *pid = fork();
    if (*pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fileno(in), 0);
        dup2(fds[1], 1);
        if (null >= 0)
            dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    fclose(in);
    FILE *out = *pid > 0 ? fdopen(fds[0], "r") : NULL;
    if (!out)
        close(fds[0]);
    return out;
}

static void filter_end(FILE *out, pid_t pid)
{
    if (out)
        fclose(out);
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* Runs `addr2line -f -e MODULE` on the sites idx[0..n) (addresses from a
 * temporary file, answers through a pipe) and fills fix[]. */
static void addr2line_module(const mc_meta *m, const char *module, const size_t *idx,
                             size_t n, site_fix *fix)
{
    int ok;
    uint64_t base = module_base(module, &ok);
    if (!ok)
        return;
    FILE *in = tmpfile();
    if (!in)
        return;
    for (size_t k = 0; k < n; k++) /* a return address follows its call: -1 */
        fprintf(in, "0x%llx\n",
                (unsigned long long)(mc_meta_site_at(m, idx[k])->offset + base - 1));
    char *argv[] = {"addr2line", "-f", "-C", "-e", (char *)module, NULL};
    pid_t pid;
    FILE *out = filter_start(argv, in, &pid);
    char *fn = NULL, *loc = NULL;
    size_t fcap = 0, lcap = 0;
    for (size_t k = 0; out && k < n; k++) {
        if (getline(&fn, &fcap, out) < 0 || getline(&loc, &lcap, out) < 0)
            break;
        fn[strcspn(fn, "\n")] = 0;
        loc[strcspn(loc, "\n")] = 0;
        char *extra = strstr(loc, " (discriminator");
        if (extra)
            *extra = 0;
        char *colon = strrchr(loc, ':');
        site_fix *f = &fix[idx[k]];
        if (strcmp(fn, "??") != 0)
            f->function = strdup(fn);
        if (colon && colon != loc && strncmp(loc, "??", 2) != 0) {
            *colon = 0;
            f->line = atoi(colon + 1);
            f->file = strdup(loc);
        }
    }
    free(fn);
    free(loc);
    filter_end(out, pid);
}

/* C++ names as a reader wants them (`LAMMPS_NS::CommBrick::reverse_comm()`,
 * not `_ZN9LAMMPS_NS9CommBrick12reverse_commEv`): every name in names[0..n)
 * that is mangled goes through one run of c++filt (binutils, beside
 * addr2line); names it cannot demangle, or all of them when it cannot run,
 * stay as they are. The replacements are malloc'd into out[] (NULL: keep). */
static void demangle(const char *const *names, size_t n, char **out)
{
    FILE *in = tmpfile();
    size_t k = 0;
    for (size_t i = 0; in && i < n; i++)
        if (names[i] && strncmp(names[i], "_Z", 2) == 0 && !strchr(names[i], '\n')) {
            fprintf(in, "%s\n", names[i]);
            k++;
        }
    if (!in || !k) {
        if (in)
            fclose(in);
        return;
    }
    char *argv[] = {"c++filt", NULL};
    pid_t pid;
    FILE *res = filter_start(argv, in, &pid);
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; res && i < n; i++) {
        if (!names[i] || strncmp(names[i], "_Z", 2) != 0 || strchr(names[i], '\n'))
            continue;
        if (getline(&line, &cap, res) < 0)
            break;
        line[strcspn(line, "\n")] = 0;
        if (strcmp(line, names[i]) != 0 && line[0])
            out[i] = strdup(line);
    }
    free(line);
    filter_end(res, pid);
}

/* A copy of m with the sites' function/file/line replaced where fix has them. */
static mc_meta *meta_with_fixes(const mc_meta *m, const site_fix *fix)
{
    mc_error err = {0};
    mc_meta *out = mc_meta_create(mc_meta_nranks(m));
    if (!out)
        return NULL;
    int bad = mc_meta_copy_strings(out, m, &err) != MC_OK;
    for (size_t i = 0; i < mc_meta_ncomms(m); i++) {
        const mc_meta_comm *c = mc_meta_comm_at(m, i);
        bad |= mc_meta_add_comm(out, c->id, c->members, c->size, c->local_size, &err) != MC_OK;
    }
    size_t n = mc_meta_nsites(m);
    const char **names = calloc(n ? n : 1, sizeof *names);
    char **plain = calloc(n ? n : 1, sizeof *plain);
    if (!names || !plain)
        bad = 1;
    for (size_t i = 0; !bad && i < n; i++) {
        const mc_meta_site *s = mc_meta_site_at(m, i);
        names[i] = s->function[0] ? s->function : fix[i].function;
    }
    if (!bad)
        demangle(names, n, plain);
    for (size_t i = 0; !bad && i < n; i++) {
        mc_meta_site s = *mc_meta_site_at(m, i);
        if (fix[i].function && !s.function[0])
            s.function = fix[i].function;
        if (plain[i])
            s.function = plain[i];
        if (fix[i].file) {
            s.file = fix[i].file;
            s.line = fix[i].line;
        }
        bad |= mc_meta_add_site(out, &s, &err) != MC_OK;
    }
    for (size_t i = 0; plain && i < n; i++)
        free(plain[i]);
    free(plain);
    free(names);
    if (bad) {
        mc_meta_destroy(out);
        return NULL;
    }
    return out;
}

/* Best effort: on any failure meta.json stays as the tracer wrote it. */
static void symbolise_sites(const char *dir)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_read(dir, &err);
    if (!m)
        return;
    size_t n = mc_meta_nsites(m);
    site_fix *fix = calloc(n ? n : 1, sizeof *fix);
    size_t *idx = calloc(n ? n : 1, sizeof *idx);
    char *done = calloc(n ? n : 1, 1);
    if (fix && idx && done) {
        for (size_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            const char *module = mc_meta_site_at(m, i)->module;
            size_t k = 0;
            for (size_t j = i; j < n; j++)
                if (!done[j] && strcmp(mc_meta_site_at(m, j)->module, module) == 0) {
                    idx[k++] = j;
                    done[j] = 1;
                }
            addr2line_module(m, module, idx, k, fix);
        }
        mc_meta *fixed = meta_with_fixes(m, fix);
        if (fixed)
            mc_meta_write_as(fixed, dir, MC_OUT_PRIVATE, &err);
        mc_meta_destroy(fixed);
    }
    for (size_t i = 0; fix && i < n; i++) {
        free(fix[i].function);
        free(fix[i].file);
    }
    free(fix);
    free(idx);
    free(done);
    mc_meta_destroy(m);
}

/* The first word of the command: options end there (or at "--"). */
static int take_command(void *first, char *arg, mc_error *err)
{
    (void)err;
    if (!*(char **)first)
        *(char **)first = arg;
    return 0;
}

int cmd_trace(int argc, char **argv)
{
    const char *out = NULL, *mode = "wall", *rate = "1";
    int force = 0, no_fold = 0;
    char *first = NULL;
    const cli_opt opts[] = {
        {"-o", NULL, "DIR", CLI_VALUE,
         "trace directory (default mpicast-trace-<timestamp>); created\n"
         "owner-only; an existing DIR must be empty", &out, NULL},
        {"--force", NULL, NULL, CLI_FLAG,
         "reuse a DIR that holds a trace: first removes its meta.json,\n"
         "rank-N.mct, sites-N.txt and cpu-profile files; refused if\n"
         "DIR holds anything else", &force, NULL},
        {"--mode", NULL, "M", CLI_VALUE,
         "how compute bursts are timed:\n"
         "wall: the wall clock (default)\n"
         "cpu: also record thread CPU time (more ranks than cores)\n"
         "token: token execution: only one rank computes at a time, so\n"
         "bursts are uncontended even with more ranks than cores;\n"
         "slower; limits in docs/compute-data.md\n"
         "profile: also run every rank under Valgrind lackey and write\n"
         "DIR/cpu-profile.txt: per block and rank, instructions, loads,\n"
         "stores and LRU stack-distance histograms (data and\n"
         "instructions; lines of 32, 64, 128 B); bursts timed with the\n"
         "wall clock (slowed by Valgrind); docs/compute-data.md", &mode, NULL},
        {"--sample-rate", NULL, "R", CLI_VALUE,
         "profile: SHARDS sampling of cache lines, R in (0,1]\n"
         "(default 1: every line)", &rate, NULL},
        {"--no-fold", NULL, NULL, CLI_FLAG,
         "write every failed poll; by default a run of Test*/Iprobe\n"
         "calls that find nothing, less than 2 us apart, is one record\n"
         "counting its calls (MPICAST_POLL_FOLD=SECONDS sets the gap;\n"
         "docs/trace-format.md, \"Folded polls\")", &no_fold, NULL},
    };
    const cli_spec spec = {"trace", trace_head, trace_tail, 16, opts, CLI_NOPTS(opts),
                           take_command, &first, 0, 1};
    int status;
    if (cli_parse(&spec, argc, argv, &status))
        return status;
    int i = 1;
    while (i < argc && argv[i] != first) /* the command is argv's own tail */
        i++;
    if (!first)
        return cli_usage_error("trace: no command given; see 'mpicast trace --help'");
    int profile = strcmp(mode, "profile") == 0;
    if (strcmp(mode, "wall") != 0 && strcmp(mode, "cpu") != 0 && strcmp(mode, "token") != 0 &&
        !profile)
        return cli_usage_error("trace: --mode must be wall, cpu, token or profile, not '%s'",
                               mode);
    char *rend;
    double r = strtod(rate, &rend);
    if (*rend || rend == rate || !(r > 0 && r <= 1))
        return cli_usage_error("trace: --sample-rate must be a number in (0,1], not '%s'", rate);
    if (!profile && strcmp(rate, "1") != 0)
        return cli_usage_error("trace: --sample-rate applies to --mode profile only");
    char **cmd = argv + i;
    char vg[PATH_MAX];
    if (profile && !find_in_path("valgrind", vg, sizeof vg)) {
        fprintf(stderr, "mpicast: trace: --mode profile needs valgrind (Debian package "
                "valgrind), not found in PATH\n");
        return CLI_BAD_INPUT;
    }

    char exe[PATH_MAX];
    if (!find_in_path(cmd[0], exe, sizeof exe)) {
        fprintf(stderr, "mpicast: %s: command not found\n", cmd[0]);
        return CLI_BAD_INPUT;
    }
    char lib[PATH_MAX];
    enum flavour fl;
    if (choose_flavour(cmd, &fl) != 0)
        return CLI_BAD_INPUT;
    if (!find_tracer(fl, lib, sizeof lib)) {
        fprintf(stderr, "mpicast: %s: tracer library not found (not built for this MPI?)\n",
                lib);
        return CLI_BAD_INPUT;
    }

    char name[64];
    if (!out) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(name, sizeof name, "mpicast-trace-%Y%m%d-%H%M%S", &tm);
        out = name;
    }
    if (prepare_dir(out, force) != 0)
        return CLI_BAD_INPUT;
    char dir[PATH_MAX];
    if (!realpath(out, dir)) {
        fprintf(stderr, "mpicast: %s: cannot create: %s\n", out, strerror(errno));
        return CLI_BAD_INPUT;
    }
    char **run_cmd = cmd;
    if (profile) {
        run_cmd = trace_profile_command(cmd, is_launcher(cmd[0]), dir, rate);
        if (!run_cmd)
            return CLI_BAD_INPUT;
    }
    /* profile: bursts timed as in wall mode; the markers are switched on
     * by MPICAST_PROFILE (and only under Valgrind) */
    if (setup_env(lib, dir, profile ? "wall" : mode) != 0 ||
        (profile && setenv("MPICAST_PROFILE", "1", 1) != 0) ||
        (no_fold && setenv("MPICAST_POLL_FOLD", "0", 1) != 0)) {
        fprintf(stderr, "mpicast: trace: cannot set the environment: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    fflush(stdout);
    int rc = run(run_cmd);
    if (run_cmd != cmd)
        free(run_cmd);
    if (count_rank_files(dir) == 0) {
        fprintf(stderr, "mpicast: %s: no trace written (%s ran no MPI program under the "
                "tracer, or tracing failed)\n", dir, cmd[0]);
        if (profile)
            trace_profile_join(dir, rc ? rc : 1, rate, cmd); /* removes rank files */
        return rc != 0 ? rc : CLI_BAD_INPUT;
    }
    symbolise_sites(dir);
    fprintf(stderr, "mpicast: trace in %s\n", dir);
    if (profile) {
        int prc = trace_profile_join(dir, rc, rate, cmd);
        if (rc == 0)
            rc = prc;
    }
    return rc;
}
