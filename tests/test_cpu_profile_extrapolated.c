/* predict --profile under --ranks: the profile's times were modelled for
 * the traced run's blocks, so under extrapolation every pseudo-rank takes a
 * block's all-ranks time per burst (the sum of the rows' modelled times over
 * their bursts), scaled by the compute law like the recorded bursts.
 *
 * The trace: 3 ranks alike, Init | 4000 | Pcontrol 0x20 | 2000 | Finalize.
 * The profile: per rank one burst of 0x10 -> 0x20 with 8000 instructions and
 * one of 0x20 -> 0x40 with 4000, rank 1 ten times more (no misses); at the
 * default 2 GHz and cpi 1: 4000 and 2000 ns, rank 1 40000 and 20000 ns.
 *   as traced: rank 0 computes 6000 ns, rank 1 60000 ns (its own rows)
 *   all-ranks: (4000 + 40000 + 4000) / 3 = 16000, (2000 + 20000 + 2000) / 3 = 8000
 *   --ranks 12, weak: every rank 24000 ns; strong (x 3/12): 6000 ns. */
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

/* Rank r's predicted compute (s) is want[r] (want[0] for all when one). */
static void compute_per_rank(const char *extra, int nranks, const double *want, int nwant)
{
    CHECK_EQ_INT(sh("%s predict %s/trace --profile %s/p.prof --set cpu.l1i.size=0 %s --json "
                    "> %s/p.json", MPICAST_BIN, dir, dir, extra, dir), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/p.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL);
    json_t *pr = json_object_get(doc, "per_rank");
    CHECK_EQ_INT(json_array_size(pr), nranks);
    for (int r = 0; r < nranks; r++) {
        double c = json_number_value(json_object_get(json_array_get(pr, r), "compute"));
        double w = want[nwant == 1 ? 0 : r];
        if (fabs(c - w) > 1e-15) {
            fprintf(stderr, "%s: rank %d computes %.12g s, expected %.12g s\n", extra, r, c, w);
            CHECK(0);
        }
    }
    json_t *cp = json_object_get(doc, "cpu_profile");
    CHECK_EQ_INT(json_integer_value(json_object_get(cp, "from_profile")), 2 * nranks);
    CHECK_EQ_INT(json_integer_value(json_object_get(cp, "fell_back")), 0);
    json_decref(doc);
}

int main(void)
{
    make_tmpdir(dir, sizeof dir, "cpu-extrap");
    char tdir[512], path[600];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    CHECK(mkdir(tdir, 0777) == 0);
    static const int32_t sites[] = {0x10, 0x20, 0x40};
    static const int64_t bursts[] = {0, 4000, 2000};
    for (int r = 0; r < 3; r++)
        synth_rank(tdir, r, sites, bursts, 3);
    snprintf(path, sizeof path, "%s/p.prof", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("# mpicast cpu profile 1\nmeta\tsample_rate\t1\n", f);
    for (int r = 0; r < 3; r++) {
        int k = r == 1 ? 10 : 1;
        fprintf(f, "block\t0x10\t0x20\t%d\t1\t%d\t0\t0\nblock\t0x20\t0x40\t%d\t1\t%d\t0\t0\n", r,
                8000 * k, r, 4000 * k);
        for (int b = 0; b < 2; b++)
            fprintf(f, "rd\t%s\t%d\td\t64\t0\t\nrd\t%s\t%d\ti\t64\t0\t\n",
                    b ? "0x20\t0x40" : "0x10\t0x20", r, b ? "0x20\t0x40" : "0x10\t0x20", r);
    }
    fclose(f);
    static const double traced[] = {6000e-9, 60000e-9, 6000e-9};
    compute_per_rank("", 3, traced, 3);
    static const double weak = 24000e-9, strong = 6000e-9;
    compute_per_rank("--ranks 12", 12, &weak, 1);
    compute_per_rank("--ranks 12 --scaling strong", 12, &strong, 1);
    rm_tree(dir);
    return 0;
}
