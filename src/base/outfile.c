/* Safe outputs and non-blocking input opening (include/mpicast/outfile.h). */
#include "mpicast/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------ outputs */

/* The temporaries being written, for the signal handler to remove: a
 * command killed by SIGINT/SIGTERM/SIGHUP leaves neither a partial output
 * nor its temporary. Slots hold pointers to the mc_out's own tmp[]. */
#define TRACKED_MAX 16
static const char *volatile tracked[TRACKED_MAX];

static void track(const mc_out *o)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (!tracked[i]) {
            tracked[i] = o->tmp;
            return;
        }
}

static void untrack(const mc_out *o)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (tracked[i] == o->tmp)
            tracked[i] = NULL;
}

/* Temporary directories (mc_out_dir_open, mc_out_temp_dir_track), copied:
 * a slot is in use while its first byte is not 0. */
#define DIRS_MAX 8
static char tracked_dirs[DIRS_MAX][MC_OUT_PATH_MAX + 32];

void mc_out_temp_dir_track(const char *path)
{
    size_t n = strlen(path);
    for (int i = 0; i < DIRS_MAX && n < sizeof tracked_dirs[i]; i++)
        if (!tracked_dirs[i][0]) {
            memcpy(tracked_dirs[i] + 1, path + 1, n); /* the first byte last: then in use */
            tracked_dirs[i][0] = path[0];
            return;
        }
}

void mc_out_temp_dir_untrack(const char *path)
{
    for (int i = 0; i < DIRS_MAX; i++)
        if (tracked_dirs[i][0] && strcmp(tracked_dirs[i], path) == 0)
            tracked_dirs[i][0] = 0;
}

mc_err mc_out_temp_dir_create(char *buf, size_t len, const char *kind, const char *about,
                              mc_error *err)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(buf, len, "%s/mpicast-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", kind);
    if (n < 0 || (size_t)n >= len || !mkdtemp(buf)) {
        int e = n < 0 || (size_t)n >= len ? ENAMETOOLONG : errno;
        if (len)
            buf[0] = 0;
        return mc_error_set(err, MC_ERR_IO, "%s: cannot create a temporary directory in %s: "
                            "%s", about, tmp && *tmp ? tmp : "/tmp", strerror(e));
    }
    mc_out_temp_dir_track(buf); /* removed if a signal ends the command */
    return MC_OK;
}

/* Removes a directory and the files in it with system calls only (opendir
 * allocates: not for a signal handler). Entries are read again until none
 * is left, as removing them while reading may skip some. */
static void remove_dir_now(const char *path)
{
    for (int pass = 0; pass < 8; pass++) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            break;
        char buf[4096];
        long n;
        int removed = 0;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: ino, off, reclen, type, name */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
                    unlinkat(fd, name, 0) == 0)
                    removed = 1;
                off += reclen;
            }
        close(fd);
        if (rmdir(path) == 0 || !removed)
            break;
    }
}

/* Async-signal-safe: unlink, rmdir, signal, raise. Then dies of the signal
 * as it would have (the exit status still says which). */
static void remove_temporaries(int sig)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (tracked[i])
            unlink(tracked[i]);
    for (int i = 0; i < DIRS_MAX; i++)
        if (tracked_dirs[i][0])
            remove_dir_now(tracked_dirs[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void mc_out_cleanup_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* an ignored signal stays ignored (nohup) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_temporaries;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* "DIR/.NAME.XXXXXX" next to `path`: a rename within one directory is
 * atomic and never crosses a file system. */
static int temp_template(char *buf, size_t len, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    int n = snprintf(buf, len, "%.*s.%s.XXXXXX", dirlen, path, name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The process umask without changing it for other threads for long: read
 * once (the CLI is single-threaded when it opens outputs). */
static mode_t current_umask(void)
{
    static int known;
    static mode_t mask;
    if (!known) {
        mask = umask(077);
        umask(mask);
        known = 1;
    }
    return mask;
}

/* A final name that exists and is neither a regular file nor a directory
 * (a device such as /dev/null, a FIFO) is written in place. */
static int writes_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static mc_err open_direct(mc_out *o, mc_error *err)
{
    o->direct = 1;
    o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (o->fd < 0)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
    return MC_OK;
}

static mc_err open_temp(mc_out *o, unsigned flags, mc_error *err)
{
    if (temp_template(o->tmp, sizeof o->tmp, o->path) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: path too long", o->path);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0) {
        int e = errno;
        o->tmp[0] = 0;
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", o->path, strerror(e));
    }
    track(o);
    mode_t mode = flags & MC_OUT_PRIVATE ? 0600 : 0666 & ~current_umask();
    if (fchmod(o->fd, mode) != 0) {
        int e = errno;
        mc_out_abort(o);
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", o->path, strerror(e));
    }
    return MC_OK;
}

mc_err mc_out_open(mc_out *o, const char *path, unsigned flags, mc_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !*path)
        return mc_error_set(err, MC_ERR_USAGE, "empty output path");
    if (strlen(path) >= sizeof o->path)
        return mc_error_set(err, MC_ERR_IO, "%.200s...: path too long", path);
    strcpy(o->path, path);
    mc_err rc = writes_in_place(path) ? open_direct(o, err) : open_temp(o, flags, err);
    if (rc != MC_OK)
        return rc;
    /* read back by some writers (predict's timeline becomes OTF2); a device
     * opened write-only takes "wb" only */
    o->f = fdopen(o->fd, o->direct ? "wb" : "w+b");
    if (!o->f) {
        int e = errno;
        mc_out_abort(o);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: cannot write: %s", path, strerror(e));
    }
    return MC_OK;
}

/* Closes the stream (or the bare descriptor); 0 or errno. */
static int close_stream(mc_out *o)
{
    int e = 0;
    if (o->f) {
        errno = 0;
        if (ferror(o->f))
            e = errno ? errno : EIO;
        if (fclose(o->f) != 0 && !e)
            e = errno ? errno : EIO;
    } else if (o->fd >= 0 && close(o->fd) != 0) {
        e = errno;
    }
    o->f = NULL;
    o->fd = -1;
    return e;
}

mc_err mc_out_commit(mc_out *o, mc_error *err)
{
    int e = close_stream(o);
    if (!e && !o->direct && rename(o->tmp, o->path) != 0)
        e = errno;
    if (!e)
        untrack(o);
    if (e) {
        mc_out_abort(o);
        return mc_error_set(err, MC_ERR_IO, "%s: write failed: %s", o->path, strerror(e));
    }
    o->tmp[0] = 0;
    return MC_OK;
}

void mc_out_abort(mc_out *o)
{
    close_stream(o);
    if (o->tmp[0])
        unlink(o->tmp);
    untrack(o);
    o->tmp[0] = 0;
}

/* The first input whose file is (dev, ino); NULL when none. */
static const char *input_with(const struct stat *st, const struct stat *in, const char *const *inputs,
                              size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in[i].st_ino && in[i].st_dev == st->st_dev && in[i].st_ino == st->st_ino)
            return inputs[i];
    return NULL;
}

static const char *enclosing_from(char *real, const struct stat *in, const char *const *inputs,
                                  size_t n);

/* Walks from the output's parent directory (resolved: "..", symlinks) up
 * to "/", stopping at the first directory that is an input. */
static const char *enclosing_input(const char *out, const struct stat *in,
                                   const char *const *inputs, size_t n)
{
    char parent[PATH_MAX], real[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", out);
    size_t len = strlen(parent);
    while (len > 1 && parent[len - 1] == '/') /* "DIR/" names DIR itself */
        parent[--len] = 0;
    char *slash = strrchr(parent, '/');
    if (!slash)
        strcpy(parent, ".");
    else if (slash == parent)
        parent[1] = 0;
    else
        *slash = 0;
    /* the nearest directory that exists: "T/new/sub" lies inside T too */
    while (!realpath(parent, real)) {
        char *up = strrchr(parent, '/');
        if (!up)
            return realpath(".", real) ? enclosing_from(real, in, inputs, n) : NULL;
        if (up == parent)
            up[1] = 0;
        else
            *up = 0;
    }
    return enclosing_from(real, in, inputs, n);
}

/* The first input among `real` (an absolute, resolved directory) and its
 * ancestors. */
static const char *enclosing_from(char *real, const struct stat *in, const char *const *inputs,
                                  size_t n)
{
    for (;;) {
        struct stat st;
        const char *hit = stat(real, &st) == 0 ? input_with(&st, in, inputs, n) : NULL;
        if (hit)
            return hit;
        char *cut = strrchr(real, '/');
        if (!cut || real[1] == 0)
            return NULL;
        if (cut == real)
            cut[1] = 0;
        else
            *cut = 0;
    }
}

mc_err mc_out_refuse_input(const char *out, const char *const *inputs, size_t n, mc_error *err)
{
    if (!out || n == 0)
        return MC_OK;
    struct stat *in = calloc(n, sizeof *in);
    if (!in)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", out);
    for (size_t i = 0; i < n; i++)
        if (!inputs[i] || stat(inputs[i], &in[i]) != 0)
            memset(&in[i], 0, sizeof in[i]);
    mc_err rc = MC_OK;
    struct stat st;
    const char *hit = stat(out, &st) == 0 ? input_with(&st, in, inputs, n) : NULL;
    if (hit) {
        rc = mc_error_set(err, MC_ERR_USAGE, "%s: is the input %s; write the output elsewhere",
                          out, hit);
    } else if ((hit = enclosing_input(out, in, inputs, n)) != NULL) {
        rc = mc_error_set(err, MC_ERR_USAGE,
                          "%s: is inside the input %s; write the output elsewhere", out, hit);
    }
    free(in);
    return rc;
}

mc_err mc_out_dir_fresh(const char *dir, mc_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return MC_OK;
        return mc_error_set(err, MC_ERR_USAGE, "%s: not a directory to write into: %s", dir,
                            strerror(errno));
    }
    struct dirent *e;
    char first[NAME_MAX + 1] = "";
    while (!first[0] && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(first, sizeof first, "%s", e->d_name);
    closedir(d);
    if (first[0])
        return mc_error_set(err, MC_ERR_USAGE,
                            "%s: not empty (holds %s); give a new or empty directory", dir,
                            first);
    return MC_OK;
}

mc_err mc_out_dir_open(char *tmp, size_t len, const char *dir, mc_error *err)
{
    char name[MC_OUT_PATH_MAX];
    int n = snprintf(name, sizeof name, "%s", dir);
    while (n > 1 && name[n - 1] == '/') /* "DIR/" is DIR */
        name[--n] = 0;
    if (temp_template(tmp, len, name) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: path too long", dir);
    if (!mkdtemp(tmp)) {
        int e = errno;
        tmp[0] = 0;
        return mc_error_set(err, MC_ERR_IO, "%s: cannot create: %s", dir, strerror(e));
    }
    chmod(tmp, 0777 & ~current_umask());
    mc_out_temp_dir_track(tmp);
    return MC_OK;
}

mc_err mc_out_dir_commit(const char *tmp, const char *dir, mc_error *err)
{
    /* rename(2) replaces an empty directory and refuses a non-empty one */
    if (rename(tmp, dir) != 0) {
        int e = errno;
        mc_out_dir_abort(tmp);
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", dir, strerror(e));
    }
    mc_out_temp_dir_untrack(tmp);
    return MC_OK;
}

void mc_out_dir_abort(const char *tmp)
{
    if (!tmp || !tmp[0])
        return;
    mc_out_temp_dir_untrack(tmp);
    DIR *d = opendir(tmp);
    if (d) {
        int dfd = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dfd, e->d_name, 0); /* only files: we wrote no subdirectory */
        closedir(d);
    }
    rmdir(tmp);
}

/* ------------------------------------------------------------ inputs */

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISDIR(m))
        return "a directory";
    return "not a file";
}

static int refuse_kind(const char *path, mode_t m, mc_error *err)
{
    /* MC_ERR_FORMAT, not IO: "there is such an input, and it is unusable",
     * which callers that treat a missing file as optional must not skip */
    mc_error_set(err, MC_ERR_FORMAT, "%s: not a regular file (%s)", path, kind_of(m));
    return -1;
}

int mc_in_open(const char *path, mc_error *err)
{
    /* O_NONBLOCK: opening a FIFO without a writer returns at once; the
     * flag is cleared again for the regular file that remains. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse_kind(path, st.st_mode, err);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *mc_in_fopen(const char *path, mc_error *err)
{
    int fd = mc_in_open(path, err);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int mc_in_check(const char *path, mc_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return 0;
    return refuse_kind(path, st.st_mode, err);
}

size_t mc_in_open_budget(void)
{
    const char *e = getenv("MPICAST_OPEN_FILES");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == '\0' && v >= 1)
            return (size_t)v;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 4096;
    size_t half = (size_t)rl.rlim_cur / 2;
    return half < 4 ? 4 : half;
}
