/* Shared command-line handling of the example programs.
 *
 * Every example takes the same options so that tests and users drive them alike:
 *   -s SIZE   problem size (meaning per example, see README.md)
 *   -i ITERS  iterations (master_worker: number of tasks)
 *   -p        periodic grid (halo examples)
 *   -b        nonblocking exchange: Isend/Irecv/Waitall instead of Sendrecv (halo examples)
 *   -S        strong scaling: the total problem is fixed, divided among the ranks (fft)
 *   -V        the per-rank-count forms of the collectives (Alltoallv, Gatherv, ...) (fft)
 *   -x        partners rank XOR 2^k instead of ring neighbours (cg_log2)
 * The examples print nothing but one final line on rank 0, so that a traced run's
 * output can be compared between process counts and MPI libraries. */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int size;
    int iters;
    int periodic;
    int nonblocking;
    int strong;
    int vector;
    int xor_partners;
    int npb_steps; /* -N: NPB CG's step order and tags (cg2d) */
    int groups;    /* -G: communicators from MPI_Comm_create with groups (fft) */
    int halving;   /* -H: step k exchanges SIZE / 2^(k+1) doubles (cg_log2) */
    int items;     /* -B N: a vector of N values dealt out in blocks (fft -V) */
    int last;      /* -R: the blocks' remainder goes to the last ranks (fft -B); -F (2):
                    * blocks of ceil(N/n), FFTW-MPI's default */
} ex_args;

/* Parses a positive int no larger than max; returns 0 on success. */
static int ex_parse_positive(const char *text, int max, int *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* Fills args from argv (defaults already set by the caller). On a bad option rank 0
 * prints the usage to stderr and the function returns -1: every rank then finalizes
 * and exits with status 2, so a mistyped test fails instead of hanging. */
static int ex_parse_args(int argc, char **argv, const char *usage, int max_size, ex_args *args)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        int ok = 0;
        if (strcmp(opt, "-p") == 0) {
            args->periodic = 1;
            ok = 1;
        } else if (strcmp(opt, "-b") == 0) {
            args->nonblocking = 1;
            ok = 1;
        } else if (strcmp(opt, "-S") == 0) {
            args->strong = 1;
            ok = 1;
        } else if (strcmp(opt, "-V") == 0) {
            args->vector = 1;
            ok = 1;
        } else if (strcmp(opt, "-x") == 0) {
            args->xor_partners = 1;
            ok = 1;
        } else if (strcmp(opt, "-N") == 0) {
            args->npb_steps = 1;
            ok = 1;
        } else if (strcmp(opt, "-G") == 0) {
            args->groups = 1;
            ok = 1;
        } else if (strcmp(opt, "-R") == 0) {
            args->last = 1;
            ok = 1;
        } else if (strcmp(opt, "-F") == 0) {
            args->last = 2;
            ok = 1;
        } else if (strcmp(opt, "-H") == 0) {
            args->halving = 1;
            ok = 1;
        } else if (strcmp(opt, "-s") == 0 && i + 1 < argc) {
            ok = ex_parse_positive(argv[++i], max_size, &args->size) == 0;
        } else if (strcmp(opt, "-B") == 0 && i + 1 < argc) {
            ok = ex_parse_positive(argv[++i], 1 << 24, &args->items) == 0;
        } else if (strcmp(opt, "-i") == 0 && i + 1 < argc) {
            ok = ex_parse_positive(argv[++i], 1000000, &args->iters) == 0;
        }
        if (!ok) {
            if (rank == 0)
                fprintf(stderr, "usage: %s %s\n", argv[0], usage);
            return -1;
        }
    }
    return 0;
}

/* Allocates n doubles or aborts the job: an example has no sensible way to go on. */
/* Items of member k when n items are dealt out over `members` in blocks: the
 * first n mod members one more (mode 0, PETSc's split), the last (1, -R,
 * 2DECOMP&FFT's), or blocks of ceil(n / members) from the first on (2, -F,
 * FFTW-MPI's; the last members may hold none). */
static inline int ex_share(int n, int members, int k, int mode)
{
    if (mode == 2) {
        int b = (n + members - 1) / members, left = n - k * b;
        return left < 0 ? 0 : left < b ? left : b;
    }
    int r = n % members;
    return n / members + (mode ? k >= members - r : k < r);
}

static double *ex_alloc(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof *p);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

#endif
