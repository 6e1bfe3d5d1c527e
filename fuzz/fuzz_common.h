/* Shared helpers of the libFuzzer targets (docs/robustness.md).
 *
 * Every mpicast parser reads files by path, so a target writes the input to
 * a file in a private temporary directory (created once per process under
 * $TMPDIR or /dev/shm, removed at exit) and calls the real entry point. The
 * process also moves into that directory, so a relative file name inside an
 * input (a time-independent list file) cannot reach the user's files. */
#ifndef MPICAST_FUZZ_COMMON_H
#define MPICAST_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fz_dir[256];

static void fz_cleanup(void)
{
    if (!fz_dir[0])
        return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fz_dir);
}

/* The private directory (created on first use). */
static const char *fz_tmpdir(void)
{
    if (fz_dir[0])
        return fz_dir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fz_dir, sizeof fz_dir, "%s/mpicast-fuzz-XXXXXX", base);
    if (!mkdtemp(fz_dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fz_cleanup);
    if (chdir(fz_dir) != 0)
        abort();
    return fz_dir;
}

/* Writes data to DIR/name and returns the full path (static buffer). */
static const char *fz_write(const char *name, const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz: write");
        abort();
    }
    return path;
}

/* An error message must be one non-empty line (the CLI prints it as is). */
static void fz_check_message(const char *msg)
{
    if (!msg[0] || strchr(msg, '\n')) {
        fprintf(stderr, "fuzz: error message is empty or not one line: '%s'\n", msg);
        abort();
    }
}

#endif
