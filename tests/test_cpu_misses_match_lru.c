/* The misses the processor model computes from a reuse-distance histogram
 * equal those of a direct simulation of a fully associative LRU cache:
 * address streams are generated here, their exact stack distances binned as
 * the profile format says (exact below 16, then 8 buckets per power of two,
 * docs/cpu-profile.md), written as a profile and read back; a separate LRU
 * cache of C lines (timestamps, evict the oldest) replays the same stream.
 * Exact where the bucket holding C is exact (C <= 16); within 5 % at other
 * sizes, chosen outside the one bucket that holds a loop's single distance
 * (inside it the step is interpolated: docs/platform.md). Set-associative:
 * the binomial law against set-associative LRU caches whose lines are placed
 * in sets at random (its assumption), mean of 16 placements: within 5 %. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/cpu.h"
#include "cpu/cpu_impl.h"
#include "rankfile_util.h"

#define MAXLEN 40000
#define MAXD 4096

static uint32_t stream[MAXLEN];
static double hist[MAXD + 1]; /* by exact distance; [MAXD]: unused */

/* Stack distance of every access (move-to-front list); cold accesses count
 * in *cold. */
static void distances(const uint32_t *s, int n, double *cold)
{
    static uint32_t stack[MAXD];
    int depth = 0;
    memset(hist, 0, sizeof hist);
    *cold = 0;
    for (int i = 0; i < n; i++) {
        int d = 0;
        while (d < depth && stack[d] != s[i])
            d++;
        if (d == depth) {
            (*cold)++;
            CHECK(depth < MAXD);
            depth++;
        } else {
            hist[d]++;
        }
        memmove(stack + 1, stack, (size_t)d * sizeof *stack);
        stack[0] = s[i];
    }
}

/* Misses of a C-line fully associative LRU cache, simulated directly. */
static double lru_misses(const uint32_t *s, int n, int C)
{
    uint32_t *line = calloc((size_t)C, sizeof *line);
    long *used = calloc((size_t)C, sizeof *used);
    int filled = 0;
    double misses = 0;
    for (int i = 0; i < n; i++) {
        int hit = -1, oldest = 0;
        for (int k = 0; k < filled; k++) {
            if (line[k] == s[i])
                hit = k;
            if (used[k] < used[oldest])
                oldest = k;
        }
        if (hit < 0) {
            misses++;
            hit = filled < C ? filled++ : oldest;
            line[hit] = s[i];
        }
        used[hit] = i + 1;
    }
    free(line);
    free(used);
    return misses;
}

static double set_misses_placed(const uint32_t *s, int n, int S, int A, const int *place)
{
    double misses = 0;
    uint32_t *line = calloc((size_t)(S * A), sizeof *line);
    long *used = calloc((size_t)(S * A), sizeof *used);
    for (int i = 0; i < n; i++) {
        int set = place[s[i] % 8192], hit = -1, oldest = 0;
        uint32_t *l = line + set * A;
        long *u = used + set * A;
        for (int k = 0; k < A; k++) {
            if (u[k] && l[k] == s[i])
                hit = k;
            if (u[k] < u[oldest])
                oldest = k;
        }
        if (hit < 0) {
            misses++;
            hit = oldest;
            l[hit] = s[i];
        }
        u[hit] = i + 1;
    }
    free(line);
    free(used);
    return misses;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* Misses of an LRU cache of S sets of A ways, each line placed in a set
 * drawn at random (the placement the model's binomial law assumes), mean
 * over `trials` placements (the law is the expectation over them). */
static double set_misses(const uint32_t *s, int n, int S, int A, int trials)
{
    static int place[8192];
    double misses = 0;
    for (int t = 0; t < trials; t++) {
        for (int k = 0; k < 8192; k++)
            place[k] = (int)(next_rand() % (uint32_t)S);
        misses += set_misses_placed(s, n, S, A, place);
    }
    return misses / trials;
}

/* The profile of the stream: one block, data at 64 B lines in the format's
 * buckets, an empty instruction histogram. */
static void write_profile(const char *path, double cold)
{
    int maxd = 0;
    for (int d = 0; d < MAXD; d++)
        if (hist[d] > 0)
            maxd = d;
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "# mpicast cpu profile 1\nmeta\ttool\ttest_cpu_misses_match_lru\n"
               "meta\tsample_rate\t1\nblock\ta.c:1\ta.c:2\t0\t1\t1000\t1000\t0\n"
               "rd\ta.c:1\ta.c:2\t0\ti\t64\t0\t\nrd\ta.c:1\ta.c:2\t0\td\t64\t%.0f\t", cold);
    int lo = 0, first = 1;
    while (lo <= maxd) {
        int up = lo + 1; /* exact below 16 */
        if (lo >= 16) {  /* then 8 per octave: the smallest ceil(2^(j/8)) above lo */
            int j = 0;
            while ((up = (int)ceil(pow(2, j / 8.0) - 1e-9)) <= lo)
                j++;
        }
        double c = 0;
        for (int d = lo; d < up && d < MAXD; d++)
            c += hist[d];
        fprintf(f, "%s%d:%.0f", first ? "" : ",", up, c);
        first = 0;
        lo = up;
    }
    fputs("\n", f);
    fclose(f);
}

static void compare_sets(const char *what, mc_cpu_profile *p, int n)
{
    static const int geom[][2] = {{16, 4}, {16, 8}, {32, 8}, {8, 16}};
    cpu_memo *memo = cpu_memo_create(); /* one for all: a new geometry resets it */
    for (int g = 0; g < 4; g++) {
        int S = geom[g][0], A = geom[g][1];
        double ref = set_misses(stream, n, S, A, 16);
        double m = mc_cpu_misses(p, 0, MC_CPU_STREAM_D, S * A * 64.0, 64, A);
        printf("%-8s %2d sets x %2d ways: LRU %8.0f  profile %10.1f\n", what, S, A, ref, m);
        CHECK(fabs(m - ref) <= 0.05 * ref);
        /* through the memo the replays use: the same, filled then reused */
        for (int k = 0; k < 2; k++)
            CHECK(cpu_misses_memo(p, 0, MC_CPU_STREAM_D, S * A * 64.0, 64, A, memo) == m);
    }
    cpu_memo_destroy(memo);
}

static void compare(const char *what, const char *dir, int n, const int *sizes, int nsizes)
{
    double cold;
    distances(stream, n, &cold);
    char path[512];
    snprintf(path, sizeof path, "%s/p.prof", dir);
    write_profile(path, cold);
    mc_error err = {0};
    mc_cpu_profile *p = mc_cpu_profile_load(path, &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);
    CHECK(mc_cpu_accesses(p, 0, MC_CPU_STREAM_D, 64) == n);
    for (int i = 0; i < nsizes; i++) {
        int C = sizes[i];
        double ref = lru_misses(stream, n, C);
        double m = mc_cpu_misses(p, 0, MC_CPU_STREAM_D, C * 64.0, 64, 0);
        /* fully associative also as C ways of one set */
        CHECK(fabs(mc_cpu_misses(p, 0, MC_CPU_STREAM_D, C * 64.0, 64, C) - m) < 1e-9);
        printf("%-8s C = %4d lines: LRU %8.0f  profile %10.1f\n", what, C, ref, m);
        if (C <= 16)
            CHECK(m == ref);
        else
            CHECK(fabs(m - ref) <= 0.05 * ref);
    }
    if (strcmp(what, "random") == 0)
        compare_sets(what, p, n);
    mc_cpu_profile_destroy(p);
}

int main(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "cpu-lru");
    /* a loop over 100 lines, 40 times: every reuse at distance 99, in the
     * bucket [99, 108); misses step from all to the 100 cold ones */
    int n = 0;
    for (int r = 0; r < 40; r++)
        for (int l = 0; l < 100; l++)
            stream[n++] = (uint32_t)(1000 + l);
    static const int loop_sizes[] = {4, 16, 64, 99, 108, 128, 400};
    compare("loop", dir, n, loop_sizes, 7);
    /* random lines of a 300-line working set */
    n = 30000;
    for (int i = 0; i < n; i++)
        stream[i] = next_rand() % 300;
    static const int rand_sizes[] = {1, 8, 16, 40, 100, 150, 200, 250, 280};
    compare("random", dir, n, rand_sizes, 9);
    /* a hot set of 20 lines and a cold sweep of 2000 lines, interleaved */
    n = 0;
    for (int r = 0; r < 6; r++)
        for (int l = 0; l < 2000; l++) {
            stream[n++] = (uint32_t)(5000 + l);
            stream[n++] = next_rand() % 20;
        }
    static const int mix_sizes[] = {2, 12, 16, 24, 32, 1000, 2100};
    compare("mixed", dir, n, mix_sizes, 7);
    rm_tree(dir);
    return 0;
}
