/* The streaming analyser: Valgrind lackey's access trace of one rank, read
 * from a pipe line by line, into that rank's CPU profile.
 *
 * lackey --trace-mem=yes writes "I  ADDR,SIZE" per instruction fetch and
 * " L ", " S ", " M " (modify: a load then a store) per data access; the
 * tracer writes its markers through Valgrind's client request
 * VALGRIND_PRINTF into the same log, so they arrive in program order:
 * "**PID** mpicast R RANK" after MPI_Init, "mpicast E" at every MPI call's
 * entry, "mpicast X SITE" at its exit, "mpicast F SITE" at MPI_Finalize's
 * entry. A burst runs from an X to the next E and belongs to the block
 * (site of that X, site of the following X or F). Nothing is inferred from
 * counts or timing, so the attribution cannot drift.
 *
 * Valgrind runs one thread at a time; with --trace-sched=yes it logs
 * "--PID--   SCHED[TID]:  acquired lock ..." whenever a thread takes over.
 * After MPI_Init only the thread that wrote the R marker (the MPI thread)
 * is analysed: the MPI library's progress threads (Open MPI's PMIx and
 * libevent threads) would otherwise land in whatever burst was running. */
#include "mpicast/profile.h"

#include <stdlib.h>
#include <string.h>

typedef struct analyser {
    double rate, weight;      /* sampling rate, 1/rate */
    mc_prof_stack *stk[MC_PROF_NKINDS][MC_PROF_NLINES];
    mc_prof_block cur;        /* the burst being counted (or just ended) */
    int counting;             /* inside a burst */
    int have_burst;           /* cur holds an ended burst awaiting its site */
    int done;                 /* MPI_Finalize reached */
    long prev_site;           /* site of the call before the burst; 0: none */
    int rank;
    int cur_tid, mpi_tid;     /* thread running now; the MPI thread (-1 before R) */
    mc_prof *prof;
    int nomem;
} analyser;

static void touch(analyser *a, int kind, uint64_t addr, uint64_t size)
{
    if (a->mpi_tid >= 0 && a->cur_tid != a->mpi_tid)
        return; /* another thread of the process: neither counted nor cached */
    if (size == 0)
        size = 1;
    for (int l = 0; l < MC_PROF_NLINES; l++) {
        uint64_t ls = (uint64_t)mc_prof_line_sizes[l];
        uint64_t first = addr / ls, last = (addr + size - 1) / ls;
        if (last < first)
            last = first; /* wrapped at the top of the address space */
        for (uint64_t line = first; line <= last; line++) {
            if (!mc_prof_sampled(line, a->rate))
                continue;
            int64_t d = mc_prof_stack_access(a->stk[kind][l], line);
            if (d == -2)
                a->nomem = 1;
            if (!a->counting || d == -2)
                continue;
            mc_prof_rd *rd = &a->cur.rd[kind][l];
            if (d < 0)
                rd->cold += a->weight;
            else
                rd->hist[mc_prof_bucket_of((double)d * a->weight)] += a->weight;
        }
    }
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "ADDR,SIZE": hex address, decimal size; 0 on success. */
static int parse_access(const char *s, uint64_t *addr, uint64_t *size)
{
    while (*s == ' ')
        s++;
    uint64_t a = 0;
    int n = 0, h;
    while ((h = hexval((unsigned char)*s)) >= 0 && n < 17) {
        a = a << 4 | (uint64_t)h;
        s++;
        n++;
    }
    if (n == 0 || n > 16 || *s != ',')
        return -1;
    s++;
    uint64_t z = 0;
    n = 0;
    while (*s >= '0' && *s <= '9' && n < 6) {
        z = z * 10 + (uint64_t)(*s - '0');
        s++;
        n++;
    }
    if (n == 0)
        return -1;
    *addr = a;
    *size = z;
    return 0;
}

static void clear_cur(analyser *a)
{
    memset(&a->cur, 0, sizeof a->cur);
}

/* The ended burst goes to block (prev_site, site). */
static void close_burst(analyser *a, long site)
{
    if (a->have_burst && a->prev_site != 0 && site != 0 && a->rank >= 0) {
        char from[24], to[24];
        snprintf(from, sizeof from, "%ld", a->prev_site);
        snprintf(to, sizeof to, "%ld", site);
        a->cur.rank = a->rank;
        a->cur.bursts = 1;
        if (mc_prof_add(a->prof, &a->cur, from, to, NULL) != MC_OK)
            a->nomem = 1;
    }
    a->have_burst = 0;
    clear_cur(a);
}

static void marker(analyser *a, const char *m)
{
    char what = m[0];
    long v = strtol(m + 1, NULL, 10);
    if (a->done)
        return;
    switch (what) {
    case 'R':
        a->rank = (int)v;
        a->mpi_tid = a->cur_tid;
        break;
    case 'E':
        if (a->counting)
            a->have_burst = 1;
        a->counting = 0;
        break;
    case 'X':
        close_burst(a, v);
        a->prev_site = v;
        a->counting = v != 0 && a->rank >= 0;
        break;
    case 'F':
        close_burst(a, v);
        a->counting = 0;
        a->done = 1;
        break;
    default:
        break;
    }
}

static void line_of_stream(analyser *a, const char *s, mc_prof_result *res)
{
    uint64_t addr, size;
    if (s[0] == 'I' && s[1] == ' ') {
        if (parse_access(s + 2, &addr, &size) != 0)
            return;
        if (a->counting && (a->mpi_tid < 0 || a->cur_tid == a->mpi_tid))
            a->cur.instr++;
        touch(a, MC_PROF_INSTR, addr, size);
        return;
    }
    if (s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') && s[2] == ' ') {
        if (parse_access(s + 3, &addr, &size) != 0)
            return;
        if (a->counting && (a->mpi_tid < 0 || a->cur_tid == a->mpi_tid)) {
            a->cur.loads += s[1] != 'S';
            a->cur.stores += s[1] != 'L';
        }
        touch(a, MC_PROF_DATA, addr, size);
        if (s[1] == 'M')
            touch(a, MC_PROF_DATA, addr, size);
        return;
    }
    if (s[0] == '-' && s[1] == '-') {
        const char *t = strstr(s, "SCHED[");
        if (t && strstr(t, "acquired lock"))
            a->cur_tid = (int)strtol(t + 6, NULL, 10);
        return;
    }
    if (s[0] == '*' && s[1] == '*') {
        const char *m = strstr(s, "** mpicast ");
        if (m)
            marker(a, m + 11);
        if (m && m[11] == 'F')
            res->finalized = 1;
    }
}

static void analyser_free(analyser *a)
{
    for (int k = 0; k < MC_PROF_NKINDS; k++)
        for (int l = 0; l < MC_PROF_NLINES; l++)
            mc_prof_stack_destroy(a->stk[k][l]);
}

mc_prof *mc_prof_analyse(FILE *in, const mc_prof_opts *opts, mc_prof_result *res,
                         mc_error *err)
{
    double rate = opts ? opts->sample_rate : 1.0;
    if (!(rate > 0 && rate <= 1)) {
        mc_error_set(err, MC_ERR_USAGE, "cpu profile: sample rate %g not in (0,1]", rate);
        return NULL;
    }
    analyser *a = calloc(1, sizeof *a);
    if (!a) {
        mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
        return NULL;
    }
    a->rate = rate;
    a->weight = 1.0 / rate;
    a->rank = -1;
    a->cur_tid = 1;
    a->mpi_tid = -1;
    a->prof = mc_prof_create();
    int ok = a->prof != NULL;
    for (int k = 0; k < MC_PROF_NKINDS; k++)
        for (int l = 0; l < MC_PROF_NLINES; l++)
            ok &= (a->stk[k][l] = mc_prof_stack_create()) != NULL;
    memset(res, 0, sizeof *res);
    char line[512];
    while (ok && !a->nomem && fgets(line, sizeof line, in)) {
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] != '\n' && !feof(in)) {
            /* an overlong line (a program's own message): skip its rest */
            int c;
            while ((c = getc(in)) != EOF && c != '\n')
                ;
        }
        res->lines_read++;
        line_of_stream(a, line, res);
    }
    res->rank = a->rank;
    mc_prof *p = a->prof;
    if (!ok || a->nomem) {
        mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory (analysing rank %d)",
                     a->rank);
        mc_prof_destroy(p);
        p = NULL;
    }
    analyser_free(a);
    free(a);
    return p;
}
