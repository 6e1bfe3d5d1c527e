/* predict --ranks P --scaling strong --compute TABLE: the table's block times
 * were measured on the traced run, so they scale with the compute law like
 * the pseudo-trace's own bursts (issue 20: they were used as they were, and
 * the strong-scaling law silently lost).
 *
 * The trace: 3 ranks alike, Init | 4000 | Pcontrol 0x20 | 2000 | Finalize
 * (bursts in ns; Init, Pcontrol and Finalize cost nothing in the replay).
 * Extrapolated to 12 ranks under strong scaling every burst is x 3/12, so each
 * rank computes (4000 + 2000) / 4 = 1500 ns: from the recorded bursts, and
 * from the trace's own table (its block means are the bursts). Under weak
 * scaling 6000 ns both ways. A per-rank table row for rank 1 (a traced rank)
 * is not applied to the pseudo-trace's rank 1. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "test_blocks_synth.h"

static char dir[256];

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

/* Every rank's predicted compute (s) must be `want`; returns the document's
 * compute_table.from_table (-1 without a table). */
static long compute_per_rank(const char *extra, int nranks, double want)
{
    CHECK_EQ_INT(sh("%s predict %s/trace --ranks %d %s --json > %s/p.json", MPICAST_BIN, dir,
                    nranks, extra, dir), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/p.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    json_t *pr = json_object_get(doc, "per_rank");
    CHECK_EQ_INT(json_array_size(pr), nranks);
    for (int r = 0; r < nranks; r++) {
        double c = json_number_value(json_object_get(json_array_get(pr, r), "compute"));
        if (fabs(c - want) > 1e-15) {
            fprintf(stderr, "%s: rank %d computes %.12g s, expected %.12g s\n", extra, r, c, want);
            CHECK(0);
        }
    }
    json_t *ct = json_object_get(doc, "compute_table");
    long from = ct ? (long)json_integer_value(json_object_get(ct, "from_table")) : -1;
    json_decref(doc);
    return from;
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "table-scales");
    char tdir[512], arg[1024], path[600];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    static const int32_t sites[] = {0x10, 0x20, 0x40};
    static const int64_t bursts[] = {0, 4000, 2000};
    synth_rank(tdir, 0, sites, bursts, 3);
    synth_rank(tdir, 1, sites, bursts, 3);
    synth_rank(tdir, 2, sites, bursts, 3);
    CHECK_EQ_INT(sh("%s blocks %s/trace --table %s/own.tsv > /dev/null", MPICAST_BIN, dir, dir), 0);

    CHECK_EQ_INT(compute_per_rank("--scaling strong", 12, 1500e-9), -1);
    snprintf(arg, sizeof arg, "--scaling strong --compute %s/own.tsv", dir);
    CHECK_EQ_INT(compute_per_rank(arg, 12, 1500e-9), 24);
    snprintf(arg, sizeof arg, "--compute %s/own.tsv", dir);
    CHECK_EQ_INT(compute_per_rank(arg, 12, 6000e-9), 24);

    /* a table with a per-rank row for traced rank 1 (10x slower there): the
     * pseudo-trace's ranks take the all-ranks rows */
    snprintf(path, sizeof path, "%s/rank.tsv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("# mpicast compute table 1\n0x10\t0x20\t*\t3\t4000\n0x20\t0x40\t*\t3\t2000\n"
          "0x10\t0x20\t1\t1\t40000\n0x20\t0x40\t1\t1\t20000\n", f);
    fclose(f);
    snprintf(arg, sizeof arg, "--scaling strong --compute %s", path);
    CHECK_EQ_INT(compute_per_rank(arg, 12, 1500e-9), 24);
    /* a compute law of the communicator size has no one factor: refused */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s predict %s/trace --ranks 12 --rule compute=1/comm --compute "
             "%s/own.tsv > /dev/null 2> %s/err.txt", MPICAST_BIN, dir, dir, dir);
    CHECK_EQ_INT(sh("%s", cmd), 1);
    char msg[1024] = "";
    snprintf(path, sizeof path, "%s/err.txt", dir);
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(msg, sizeof msg, f) != NULL);
    fclose(f);
    CHECK(strstr(msg, "--compute with --ranks") != NULL && strstr(msg, "communicator") != NULL);
    rm_tree(dir);
    return 0;
}
