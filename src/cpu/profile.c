/* CPU profiles: reading the text format (docs/compute-data.md, "CPU
 * profiles") and the misses of any cache from the reuse-distance
 * histograms (include/mpicast/cpu.h). */
#include "cpu_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "mpicast/outfile.h"

#define PROFILE_MAGIC "# mpicast cpu profile 1"
#define KEY_MAX 1024
#define WHOLE_MAX 9007199254740992.0 /* 2^53: distances and lines are exact doubles */

const char *mc_cpu_level_name(int level)
{
    static const char *const names[MC_CPU_NLEVELS] = {"l1i", "l1d", "l2", "l3"};
    return level >= 0 && level < MC_CPU_NLEVELS ? names[level] : "?";
}

/* ---------------------------------------------------------------- storage */

static mc_err grow(void **v, size_t *cap, size_t n, size_t elem, mc_error *err)
{
    if (n < *cap)
        return MC_OK;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(*v, c * elem);
    if (!p)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    *v = p;
    *cap = c;
    return MC_OK;
}

/* The histogram (stream, line) of block b, or NULL. */
static const cpu_hist *find_hist(const mc_cpu_profile *p, size_t b, int stream, double line)
{
    const cpu_pblock *k = &p->blocks[b];
    for (size_t h = k->first_hist; h < k->first_hist + k->nhists; h++)
        if (p->hists[h].stream == stream && p->hists[h].line == line)
            return &p->hists[h];
    return NULL;
}

/* ---------------------------------------------------------------- parsing */

static int valid_key(const char *s)
{
    if (strncmp(s, "0x", 2) == 0) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s + 2, &end, 16);
        return s[2] && !*end && !errno && v <= 0x7fffffffUL;
    }
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1] || strlen(s) >= KEY_MAX)
        return 0;
    for (const char *c = colon + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    for (const char *c = s; *c; c++)
        if (*c == ' ')
            return 0;
    return 1;
}

/* A finite number >= 0 (counts are scaled by 1/sample_rate: decimals). */
static int parse_count(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* A whole number >= 0 written as one (digits only). */
static int parse_whole(const char *s, double *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 15)
        return -1;
    *out = strtod(s, NULL);
    return 0;
}

static int parse_rank(const char *s, int32_t *out)
{
    double r;
    if (parse_whole(s, &r) || r > INT32_MAX)
        return -1;
    *out = (int32_t)r;
    return 0;
}

typedef struct parse_ctx {
    mc_cpu_profile *p;
    const char *path;
    int lineno;
    mc_error *err;
} parse_ctx;

static mc_err bad_at(parse_ctx *c, int line, const char *fmt, const char *a, const char *b)
{
    char what[512];
    snprintf(what, sizeof what, fmt, a, b);
    return mc_error_set(c->err, MC_ERR_FORMAT, "%s:%d: %s", c->path, line, what);
}

static mc_err bad(parse_ctx *c, const char *what)
{
    return bad_at(c, c->lineno, "%s%s", what, "");
}

/* Order of blocks by (from, to, rank), for the sorted index. */
static int cmp_block_key(const char *from, const char *to, int32_t rank, const mc_cpu_block *b)
{
    int c = strcmp(from, b->from);
    if (c == 0)
        c = strcmp(to, b->to);
    return c ? c : (rank > b->rank) - (rank < b->rank);
}

/* qsort_r's comparison of two block indices of the profile ctx. */
static int cmp_block_index(const void *pa, const void *pb, void *ctx)
{
    const mc_cpu_profile *p = ctx;
    const mc_cpu_block *a = &p->blocks[*(const size_t *)pa].pub;
    const mc_cpu_block *b = &p->blocks[*(const size_t *)pb].pub;
    return cmp_block_key(a->from, a->to, a->rank, b);
}

/* The block (from, to, rank) by binary search in the sorted index, or -1. */
static long find_block(const mc_cpu_profile *p, const size_t *index, const char *from,
                       const char *to, int32_t rank)
{
    size_t lo = 0, hi = p->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_block_key(from, to, rank, &p->blocks[index[mid]].pub);
        if (c == 0)
            return (long)index[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/* block FROM TO RANK BURSTS INSTR LOADS STORES */
static mc_err rec_block(parse_ctx *c, char **f, int nf)
{
    if (nf != 8)
        return bad(c, "expected: block FROM TO RANK BURSTS INSTR LOADS STORES (tab-separated)");
    if (!valid_key(f[1]) || !valid_key(f[2]))
        return bad(c, "bad site key (file:line, or 0x<hex> below 2^31)");
    cpu_pblock b = {0};
    b.line = c->lineno;
    if (parse_rank(f[3], &b.pub.rank))
        return bad(c, "bad RANK (a world rank: a whole number >= 0)");
    if (parse_whole(f[4], &b.pub.bursts) || b.pub.bursts < 1)
        return bad(c, "bad BURSTS (a whole number >= 1)");
    if (parse_whole(f[5], &b.pub.instructions) || parse_whole(f[6], &b.pub.loads) ||
        parse_whole(f[7], &b.pub.stores))
        return bad(c, "bad INSTR, LOADS or STORES (whole numbers >= 0)");
    mc_cpu_profile *p = c->p; /* duplicates are found once all is read (link_hists) */
    if (grow((void **)&p->blocks, &p->capblocks, p->nblocks, sizeof *p->blocks, c->err))
        return MC_ERR_NOMEM;
    char *from = strdup(f[1]), *to = strdup(f[2]);
    if (!from || !to) {
        free(from);
        free(to);
        return mc_error_set(c->err, MC_ERR_NOMEM, "out of memory");
    }
    b.pub.from = from;
    b.pub.to = to;
    p->blocks[p->nblocks++] = b;
    return MC_OK;
}

/* HIST: "UPPER:COUNT,UPPER:COUNT,..." with UPPER strictly increasing; the
 * buckets [previous UPPER, UPPER) are appended to the profile. */
static mc_err parse_hist(parse_ctx *c, char *text, cpu_hist *h)
{
    mc_cpu_profile *p = c->p;
    double prev = 0;
    h->first = p->nbuckets;
    char *save = NULL;
    for (char *pair = strtok_r(text, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(pair, ':');
        double upper, count;
        if (!colon)
            return bad(c, "bad HIST pair (expected UPPER:COUNT)");
        *colon = 0;
        if (parse_whole(pair, &upper) || parse_count(colon + 1, &count))
            return bad(c, "bad HIST pair (UPPER a whole number, COUNT a number >= 0)");
        if (upper <= prev)
            return bad(c, "HIST buckets must increase: each UPPER above the one before (the "
                          "first above 0)");
        if (grow((void **)&p->buckets, &p->capbuckets, p->nbuckets, sizeof *p->buckets, c->err))
            return MC_ERR_NOMEM;
        p->buckets[p->nbuckets++] = (cpu_bucket){prev, upper, count};
        h->nbuckets++;
        prev = upper;
    }
    return MC_OK;
}

/* rd FROM TO RANK KIND LINE COLD HIST (its block is found at the end: it
 * may come later in the file) */
static mc_err rec_rd(parse_ctx *c, char **f, int nf)
{
    if (nf != 8)
        return bad(c, "expected: rd FROM TO RANK KIND LINE COLD HIST (tab-separated)");
    if (!valid_key(f[1]) || !valid_key(f[2]))
        return bad(c, "bad site key (file:line, or 0x<hex> below 2^31)");
    cpu_hist h = {0};
    h.line_no = c->lineno;
    if (parse_rank(f[3], &h.rank))
        return bad(c, "bad RANK (a world rank: a whole number >= 0)");
    if (strcmp(f[4], "d") == 0)
        h.stream = MC_CPU_STREAM_D;
    else if (strcmp(f[4], "i") == 0)
        h.stream = MC_CPU_STREAM_I;
    else
        return bad(c, "bad KIND (d for data, i for instructions)");
    if (parse_whole(f[5], &h.line) || h.line < 1 || h.line > 1048576 ||
        (((unsigned long)h.line) & ((unsigned long)h.line - 1)))
        return bad(c, "bad LINE (a power of two of bytes, at most 1 MiB)");
    if (parse_count(f[6], &h.cold))
        return bad(c, "bad COLD (a number >= 0)");
    h.from = strdup(f[1]);
    h.to = strdup(f[2]);
    mc_cpu_profile *p = c->p;
    if (!h.from || !h.to ||
        grow((void **)&p->hists, &p->caphists, p->nhists, sizeof *p->hists, c->err)) {
        free(h.from);
        free(h.to);
        return mc_error_set(c->err, MC_ERR_NOMEM, "out of memory");
    }
    p->hists[p->nhists++] = h; /* owns from, to from here */
    return parse_hist(c, f[7], &p->hists[p->nhists - 1]);
}

/* cpi FROM TO VALUE: the block's own core cycles per instruction (all its
 * ranks); tied to its rows once all is read (apply_cpis). */
static mc_err rec_cpi(parse_ctx *c, char **f, int nf)
{
    if (nf != 4)
        return bad(c, "expected: cpi FROM TO VALUE (tab-separated)");
    if (!valid_key(f[1]) || !valid_key(f[2]))
        return bad(c, "bad site key (file:line, or 0x<hex> below 2^31)");
    char *end;
    errno = 0;
    double v = strtod(f[3], &end);
    if (end == f[3] || *end || errno || !(v > 0) || !isfinite(v))
        return bad(c, "bad cpi VALUE (cycles per instruction: a number > 0)");
    mc_cpu_profile *p = c->p;
    if (grow((void **)&p->cpis, &p->capcpis, p->ncpis, sizeof *p->cpis, c->err))
        return MC_ERR_NOMEM;
    cpu_cpi k = {strdup(f[1]), strdup(f[2]), v, c->lineno};
    if (!k.from || !k.to) {
        free(k.from);
        free(k.to);
        return mc_error_set(c->err, MC_ERR_NOMEM, "out of memory");
    }
    p->cpis[p->ncpis++] = k;
    return MC_OK;
}

/* meta KEY VALUE: free; sample_rate is checked since counts depend on it. */
static mc_err rec_meta(parse_ctx *c, char **f, int nf)
{
    if (nf != 3 || !f[1][0])
        return bad(c, "expected: meta KEY VALUE (tab-separated)");
    if (strcmp(f[1], "sample_rate") == 0) {
        double r;
        if (parse_count(f[2], &r) || !(r > 0 && r <= 1))
            return bad(c, "bad sample_rate (a number in (0, 1])");
    }
    return MC_OK;
}

/* Splits a line at tabs (the format's separator: meta values may hold
 * blanks). Returns the field count, or -1 when there are too many. */
static int split_tabs(char *line, char **f, int cap)
{
    int nf = 0;
    for (char *s = line;;) {
        if (nf == cap)
            return -1;
        f[nf++] = s;
        char *t = strchr(s, '\t');
        if (!t)
            return nf;
        *t = 0;
        s = t + 1;
    }
}

static mc_err parse_line(parse_ctx *c, char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = 0;
    if (line[0] == '#' || strspn(line, " \t") == n)
        return MC_OK;
    char *f[10];
    int nf = split_tabs(line, f, 10);
    if (nf < 0)
        return bad(c, "too many fields");
    if (nf == 1 && strchr(f[0], ' '))
        return bad(c, "fields are separated by tabs (expected meta, block or rd records)");
    if (strcmp(f[0], "block") == 0)
        return rec_block(c, f, nf);
    if (strcmp(f[0], "rd") == 0)
        return rec_rd(c, f, nf);
    if (strcmp(f[0], "meta") == 0)
        return rec_meta(c, f, nf);
    if (strcmp(f[0], "cpi") == 0)
        return rec_cpi(c, f, nf);
    return bad(c, "unknown record (expected meta, block, rd or cpi)");
}

static int cmp_hist(const void *pa, const void *pb)
{
    const cpu_hist *a = pa, *b = pb;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream - b->stream;
    return (a->line > b->line) - (a->line < b->line);
}

/* Refuses a block given twice (the later line is named); *index gets the
 * blocks sorted by (from, to, rank), freed by the caller. */
static mc_err index_blocks(parse_ctx *c, size_t **index)
{
    mc_cpu_profile *p = c->p;
    size_t *ix = *index = malloc((p->nblocks + 1) * sizeof *ix);
    if (!ix)
        return mc_error_set(c->err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < p->nblocks; i++)
        ix[i] = i;
    qsort_r(ix, p->nblocks, sizeof *ix, cmp_block_index, p);
    for (size_t i = 1; i < p->nblocks; i++)
        if (cmp_block_index(&ix[i - 1], &ix[i], p) == 0) {
            const cpu_pblock *a = &p->blocks[ix[i - 1]], *b = &p->blocks[ix[i]];
            return bad_at(c, a->line > b->line ? a->line : b->line,
                          "block given twice (same FROM, TO and RANK)%s%s", "", "");
        }
    return MC_OK;
}

/* Ties every rd record to its block, refuses duplicates, and indexes the
 * histograms by block. */
static mc_err link_hists(parse_ctx *c)
{
    mc_cpu_profile *p = c->p;
    size_t *index = NULL;
    mc_err rc = index_blocks(c, &index);
    for (size_t h = 0; rc == MC_OK && h < p->nhists; h++) {
        cpu_hist *x = &p->hists[h];
        long b = find_block(p, index, x->from, x->to, x->rank);
        if (b < 0)
            rc = bad_at(c, x->line_no, "rd record of a block without a 'block' record (%s -> %s "
                        "on this rank)", x->from, x->to);
        else
            x->block = (size_t)b;
    }
    free(index);
    if (rc != MC_OK)
        return rc;
    if (p->nhists > 1) /* hists is NULL in a profile without rd records */
        qsort(p->hists, p->nhists, sizeof *p->hists, cmp_hist);
    for (size_t h = 0; h < p->nhists; h++) {
        const cpu_hist *x = &p->hists[h];
        if (h > 0 && cmp_hist(&p->hists[h - 1], x) == 0)
            return bad_at(c, x->line_no > p->hists[h - 1].line_no ? x->line_no
                                                                   : p->hists[h - 1].line_no,
                          "second rd record of one block, KIND and LINE%s%s", "", "");
        cpu_pblock *b = &p->blocks[x->block];
        if (b->nhists++ == 0)
            b->first_hist = h;
    }
    return MC_OK;
}

static mc_err missing_rd(parse_ctx *c, size_t b, int stream, double line)
{
    char what[64];
    snprintf(what, sizeof what, "%s at %.0f B lines", stream ? "d" : "i", line);
    return bad_at(c, c->p->blocks[b].line, "block has no rd record for %s, which every block "
                  "of the profile has (truncated profile?)%s", what, "");
}

/* Every block has an rd record for each KIND at 64 B lines (the format's
 * minimum) and for every (KIND, LINE) any block has: a block without them
 * is what a profile cut at a line ends with. */
static mc_err check_complete(parse_ctx *c)
{
    mc_cpu_profile *p = c->p;
    enum { MAXKINDS = 64 };
    int kind[MAXKINDS];
    double line[MAXKINDS];
    int nk = 0;
    for (int k = 0; k < MC_CPU_NSTREAMS; k++)
        kind[nk] = k, line[nk++] = 64;
    for (size_t h = 0; h < p->nhists; h++) { /* the distinct (KIND, LINE) pairs */
        int seen = 0;
        for (int k = 0; k < nk && !seen; k++)
            seen = kind[k] == p->hists[h].stream && line[k] == p->hists[h].line;
        if (!seen && nk == MAXKINDS)
            return bad_at(c, p->hists[h].line_no, "more than %s line sizes%s", "32", "");
        if (!seen)
            kind[nk] = p->hists[h].stream, line[nk++] = p->hists[h].line;
    }
    for (size_t b = 0; b < p->nblocks; b++)
        for (int k = 0; k < nk; k++)
            if (!find_hist(p, b, kind[k], line[k]))
                return missing_rd(c, b, kind[k], line[k]);
    return MC_OK;
}

/* Gives each cpi record's value to every row of its block; a record of no
 * block, or a second one of a block, is refused at its line. */
static mc_err apply_cpis(parse_ctx *c)
{
    mc_cpu_profile *p = c->p;
    for (size_t k = 0; k < p->ncpis; k++) {
        const cpu_cpi *x = &p->cpis[k];
        int rows = 0;
        for (size_t b = 0; b < p->nblocks; b++) {
            mc_cpu_block *pb = &p->blocks[b].pub;
            if (strcmp(pb->from, x->from) || strcmp(pb->to, x->to))
                continue;
            if (pb->cpi > 0)
                return bad_at(c, x->line_no, "second cpi record of block %s -> %s", x->from,
                              x->to);
            pb->cpi = x->cpi;
            rows++;
        }
        if (!rows)
            return bad_at(c, x->line_no, "cpi record of a block without a 'block' record (%s "
                          "-> %s)", x->from, x->to);
    }
    return MC_OK;
}

static mc_err read_all(parse_ctx *c, FILE *fp)
{
    char buf[65536];
    for (c->lineno = 1; fgets(buf, sizeof buf, fp); c->lineno++) {
        if (!strchr(buf, '\n')) {
            if (!feof(fp))
                return bad(c, "line too long");
            return bad(c, "truncated: the last line has no end of line");
        }
        if (c->lineno == 1) {
            if (strcmp(buf, PROFILE_MAGIC "\n") != 0 && strcmp(buf, PROFILE_MAGIC "\r\n") != 0)
                return bad(c, "not a CPU profile (the first line must be '" PROFILE_MAGIC "')");
            continue;
        }
        mc_err rc = parse_line(c, buf);
        if (rc != MC_OK)
            return rc;
    }
    if (ferror(fp))
        return mc_error_set(c->err, MC_ERR_IO, "%s: read error", c->path);
    if (c->lineno == 1)
        return mc_error_set(c->err, MC_ERR_FORMAT, "%s:1: empty file, not a CPU profile",
                            c->path);
    mc_err rc = link_hists(c);
    if (rc == MC_OK)
        rc = check_complete(c);
    return rc == MC_OK ? apply_cpis(c) : rc;
}

mc_cpu_profile *mc_cpu_profile_load(const char *path, mc_error *err)
{
    FILE *fp = mc_in_fopen(path, err); /* a FIFO or device is refused */
    if (!fp)
        return NULL;
    mc_cpu_profile *p = calloc(1, sizeof *p);
    if (p)
        p->path = strdup(path);
    if (!p || !p->path) {
        fclose(fp);
        mc_cpu_profile_destroy(p);
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    parse_ctx c = {.p = p, .path = path, .err = err};
    mc_err rc = read_all(&c, fp);
    fclose(fp);
    if (rc != MC_OK) {
        mc_cpu_profile_destroy(p);
        return NULL;
    }
    return p;
}

void mc_cpu_profile_destroy(mc_cpu_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nblocks; i++) {
        free((char *)p->blocks[i].pub.from);
        free((char *)p->blocks[i].pub.to);
    }
    for (size_t h = 0; h < p->nhists; h++) {
        free(p->hists[h].from);
        free(p->hists[h].to);
    }
    for (size_t k = 0; k < p->ncpis; k++) {
        free(p->cpis[k].from);
        free(p->cpis[k].to);
    }
    free(p->cpis);
    free(p->blocks);
    free(p->hists);
    free(p->buckets);
    free(p->path);
    free(p);
}

const char *mc_cpu_profile_path(const mc_cpu_profile *p) { return p->path; }
size_t mc_cpu_profile_count(const mc_cpu_profile *p) { return p->nblocks; }

int mc_cpu_profile_cpi_note(const mc_cpu_profile *p, char *buf, size_t cap)
{
    size_t without = 0;
    for (size_t i = 0; p && i < p->nblocks; i++)
        without += !(p->blocks[i].pub.cpi > 0);
    if (!p || !p->ncpis || !without)
        return 0;
    snprintf(buf, cap, "%s: %zu of %zu block rows have no cpi record and take cpu.cpi: "
             "their times do not come from this core's cycles (docs/cpu-profile.md)",
             p->path, without, p->nblocks);
    return 1;
}

const mc_cpu_block *mc_cpu_profile_at(const mc_cpu_profile *p, size_t i)
{
    return i < p->nblocks ? &p->blocks[i].pub : NULL;
}

int mc_cpu_profile_lines(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double *lines,
                         int cap)
{
    int n = 0;
    const cpu_pblock *b = &p->blocks[i];
    for (size_t h = b->first_hist; h < b->first_hist + b->nhists; h++)
        if (p->hists[h].stream == (int)stream) {
            if (n < cap)
                lines[n] = p->hists[h].line;
            n++;
        }
    return n;
}

/* ---------------------------------------------------------------- misses */

double mc_cpu_accesses(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double line)
{
    const cpu_hist *h = i < p->nblocks ? find_hist(p, i, stream, line) : NULL;
    if (!h)
        return -1;
    double n = h->cold;
    for (size_t k = h->first; k < h->first + h->nbuckets; k++)
        n += p->buckets[k].count;
    return n;
}

/* Probability that an access at stack distance d misses in a cache of S
 * sets of A ways: at least A of the d lines used since fall in its set. */
static double p_miss_sets(double d, double S, int A)
{
    if (d < A)
        return 0;
    if (d >= 2147483647.0)
        return 1;
    /* far in a tail (12 standard deviations and more, plus room for the
     * Poisson-like skew of a small mean): 0 or 1 to double precision's use
     * here, without the incomplete beta function */
    double mu = d / S, sd = sqrt(mu * (1 - 1 / S));
    if (A - 1 > mu + 12 * sd + 12)
        return 0;
    if (A < mu - 12 * sd - 12)
        return 1;
    return gsl_cdf_binomial_Q((unsigned)(A - 1), 1.0 / S, (unsigned)d);
}

/* Mean miss probability over the distances of [lo, hi), taken as uniform:
 * every distance of a narrow bucket, 32 evenly spread ones of a wide one. */
static double p_miss_bucket(double lo, double hi, double S, int A)
{
    double n = hi - lo;
    /* p is monotone in d: a bucket far from the cache's size (all hits or
     * all misses at both ends) needs no sampling, which keeps a profile of
     * many blocks cheap to evaluate at every point of a sweep */
    double a = p_miss_sets(lo, S, A), b = p_miss_sets(hi - 1, S, A);
    if (b - a < 1e-12)
        return a;
    if (n <= 32) {
        double s = 0;
        for (double d = lo; d < hi; d++)
            s += p_miss_sets(d, S, A);
        return s / n;
    }
    double s = 0;
    for (int k = 0; k < 32; k++)
        s += p_miss_sets(floor(lo + (k + 0.5) * n / 32), S, A);
    return s / 32;
}

/* The memo of bucket miss probabilities: every block's histogram has the
 * same bucket bounds (the format fixes them), so a (lo, hi) evaluated for
 * one block serves all the others at the same cache geometry. Open
 * addressing on (lo, hi). */
struct cpu_memo {
    double S;
    int A;
    size_t cap, n;
    struct memo_entry {
        double lo, hi, p;
    } *e;
};

cpu_memo *cpu_memo_create(void) { return calloc(1, sizeof(cpu_memo)); }

void cpu_memo_destroy(cpu_memo *m)
{
    if (m)
        free(m->e);
    free(m);
}

static size_t memo_slot(const cpu_memo *m, double lo, double hi)
{
    uint64_t h = (uint64_t)lo * 0x9e3779b97f4a7c15ull ^ (uint64_t)hi * 0xc2b2ae3d27d4eb4full;
    size_t i = (size_t)(h >> 17) & (m->cap - 1);
    while (m->e[i].hi != 0 && (m->e[i].lo != lo || m->e[i].hi != hi))
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* p_miss_bucket through the memo (NULL, or out of memory: computed). */
static double bucket_p(cpu_memo *m, double lo, double hi, double S, int A)
{
    if (!m)
        return p_miss_bucket(lo, hi, S, A);
    if (m->S != S || m->A != A) { /* another geometry: start again */
        m->S = S, m->A = A, m->n = 0;
        if (m->e)
            memset(m->e, 0, m->cap * sizeof *m->e);
    }
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        struct memo_entry *old = m->e, *e = calloc(cap, sizeof *e);
        if (!e)
            return p_miss_bucket(lo, hi, S, A);
        size_t oldcap = m->cap;
        m->e = e, m->cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].hi != 0)
                m->e[memo_slot(m, old[i].lo, old[i].hi)] = old[i];
        free(old);
    }
    size_t i = memo_slot(m, lo, hi);
    if (m->e[i].hi == 0) {
        m->e[i] = (struct memo_entry){lo, hi, p_miss_bucket(lo, hi, S, A)};
        m->n++;
    }
    return m->e[i].p;
}

double cpu_misses_memo(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double size,
                       double line, int assoc, cpu_memo *memo)
{
    const cpu_hist *h = i < p->nblocks ? find_hist(p, i, stream, line) : NULL;
    if (!h)
        return -1;
    double C = floor(size / line); /* lines the cache holds */
    double S = assoc > 0 ? floor(C / assoc) : 1;
    int full = assoc <= 0 || S <= 1;
    double m = h->cold;
    for (size_t k = h->first; k < h->first + h->nbuckets; k++) {
        const cpu_bucket *b = &p->buckets[k];
        if (full) { /* d >= C misses: the part of [lo, hi) at or above C */
            double above = b->hi - fmax(b->lo, C);
            if (above > 0)
                m += b->count * fmin(above / (b->hi - b->lo), 1.0);
        } else if (b->count > 0) {
            m += b->count * bucket_p(memo, b->lo, b->hi, S, assoc);
        }
    }
    return m;
}

double mc_cpu_misses(const mc_cpu_profile *p, size_t i, mc_cpu_stream stream, double size,
                     double line, int assoc)
{
    return cpu_misses_memo(p, i, stream, size, line, assoc, NULL);
}
