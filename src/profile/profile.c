/* CPU profiles in memory and as text (docs/compute-data.md, "CPU profiles"). */
#include "mpicast/profile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const int mc_prof_line_sizes[MC_PROF_NLINES] = {32, 64, 128};
static const char kind_name[MC_PROF_NKINDS] = {'d', 'i'};

typedef struct meta_kv {
    char *key, *value;
} meta_kv;

struct mc_prof {
    meta_kv *meta;
    size_t nmeta;
    mc_prof_block **blocks;
    size_t nblocks, cap;
};

mc_prof *mc_prof_create(void)
{
    return calloc(1, sizeof(mc_prof));
}

static void block_free(mc_prof_block *b)
{
    if (!b)
        return;
    free(b->from);
    free(b->to);
    free(b);
}

void mc_prof_destroy(mc_prof *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nmeta; i++) {
        free(p->meta[i].key);
        free(p->meta[i].value);
    }
    free(p->meta);
    for (size_t i = 0; i < p->nblocks; i++)
        block_free(p->blocks[i]);
    free(p->blocks);
    free(p);
}

/* A copy with tabs and line ends turned into blanks (fields stay fields). */
static char *field_dup(const char *s)
{
    char *c = strdup(s);
    for (char *q = c; q && *q; q++)
        if (*q == '\t' || *q == '\n' || *q == '\r')
            *q = ' ';
    return c;
}

mc_err mc_prof_set_meta(mc_prof *p, const char *key, const char *value, mc_error *err)
{
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0) {
            char *v = field_dup(value);
            if (!v)
                return mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
            free(p->meta[i].value);
            p->meta[i].value = v;
            return MC_OK;
        }
    meta_kv *m = realloc(p->meta, (p->nmeta + 1) * sizeof *m);
    if (!m)
        return mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
    p->meta = m;
    char *k = field_dup(key), *v = field_dup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
    }
    p->meta[p->nmeta].key = k;
    p->meta[p->nmeta++].value = v;
    return MC_OK;
}

const char *mc_prof_get_meta(const mc_prof *p, const char *key)
{
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0)
            return p->meta[i].value;
    return NULL;
}

/* Linear lookup: a program has tens to hundreds of (block, rank) pairs, and
 * the analyser caches the block of the current burst. */
mc_prof_block *mc_prof_block_get(mc_prof *p, const char *from, const char *to, int rank)
{
    for (size_t i = 0; i < p->nblocks; i++) {
        mc_prof_block *b = p->blocks[i];
        if (b->rank == rank && strcmp(b->from, from) == 0 && strcmp(b->to, to) == 0)
            return b;
    }
    if (p->nblocks == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        mc_prof_block **n = realloc(p->blocks, cap * sizeof *n);
        if (!n)
            return NULL;
        p->blocks = n;
        p->cap = cap;
    }
    mc_prof_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->from = field_dup(from);
    b->to = field_dup(to);
    b->rank = rank;
    if (!b->from || !b->to) {
        block_free(b);
        return NULL;
    }
    p->blocks[p->nblocks++] = b;
    return b;
}

size_t mc_prof_nblocks(const mc_prof *p)
{
    return p->nblocks;
}

const mc_prof_block *mc_prof_block_at(const mc_prof *p, size_t i)
{
    return i < p->nblocks ? p->blocks[i] : NULL;
}

mc_err mc_prof_add(mc_prof *p, const mc_prof_block *b, const char *from, const char *to,
                   mc_error *err)
{
    mc_prof_block *t = mc_prof_block_get(p, from ? from : b->from, to ? to : b->to, b->rank);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
    t->bursts += b->bursts;
    t->instr += b->instr;
    t->loads += b->loads;
    t->stores += b->stores;
    for (int k = 0; k < MC_PROF_NKINDS; k++)
        for (int l = 0; l < MC_PROF_NLINES; l++) {
            t->rd[k][l].cold += b->rd[k][l].cold;
            for (int i = 0; i < MC_PROF_NBUCKETS; i++)
                t->rd[k][l].hist[i] += b->rd[k][l].hist[i];
        }
    return MC_OK;
}

int mc_prof_line_index(int bytes)
{
    for (int l = 0; l < MC_PROF_NLINES; l++)
        if (mc_prof_line_sizes[l] == bytes)
            return l;
    return -1;
}

double mc_prof_misses(const mc_prof_rd *rd, double lines)
{
    double m = rd->cold;
    double lo = 0;
    for (int i = 0; i < MC_PROF_NBUCKETS; i++) {
        double hi = (double)mc_prof_bucket_upper(i);
        double c = rd->hist[i];
        if (c != 0) {
            if (lo >= lines)
                m += c;
            else if (hi > lines) /* part of the bucket: d in [lines, hi) */
                m += c * (hi - lines) / (hi - lo);
        }
        lo = hi;
    }
    return m;
}

/* ------------------------------------------------------------ writing */

static int cmp_block(const void *pa, const void *pb)
{
    const mc_prof_block *a = *(mc_prof_block *const *)pa, *b = *(mc_prof_block *const *)pb;
    int c = strcmp(a->from, b->from);
    if (!c)
        c = strcmp(a->to, b->to);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* Integers as integers, scaled counts with 3 decimals. */
static void put_count(FILE *out, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.3f", v);
}

static void write_rd(FILE *out, const mc_prof_block *b, int k, int l)
{
    const mc_prof_rd *rd = &b->rd[k][l];
    fprintf(out, "rd\t%s\t%s\t%d\t%c\t%d\t", b->from, b->to, b->rank, kind_name[k],
            mc_prof_line_sizes[l]);
    put_count(out, rd->cold);
    fputc('\t', out);
    int any = 0;
    for (int i = 0; i < MC_PROF_NBUCKETS; i++) {
        if (rd->hist[i] == 0)
            continue;
        fprintf(out, "%s%llu:", any ? "," : "", (unsigned long long)mc_prof_bucket_upper(i));
        put_count(out, rd->hist[i]);
        any = 1;
    }
    if (!any) /* an empty list would be an empty field: one empty bucket instead */
        fputs("1:0", out);
    fputc('\n', out);
}

mc_err mc_prof_write(const mc_prof *p, FILE *out, mc_error *err)
{
    mc_prof_block **order = malloc((p->nblocks ? p->nblocks : 1) * sizeof *order);
    if (!order)
        return mc_error_set(err, MC_ERR_NOMEM, "cpu profile: out of memory");
    if (p->nblocks)
        memcpy(order, p->blocks, p->nblocks * sizeof *order);
    qsort(order, p->nblocks, sizeof *order, cmp_block);
    fprintf(out, "%s\n", MC_PROF_MAGIC);
    for (size_t i = 0; i < p->nmeta; i++)
        fprintf(out, "meta\t%s\t%s\n", p->meta[i].key, p->meta[i].value);
    fputs("# block\tfrom\tto\trank\tbursts\tinstr\tloads\tstores\n"
          "# rd\tfrom\tto\trank\tkind\tline\tcold\thist (upper:count,...)\n", out);
    for (size_t i = 0; i < p->nblocks; i++) {
        const mc_prof_block *b = order[i];
        fprintf(out, "block\t%s\t%s\t%d\t%llu\t%llu\t%llu\t%llu\n", b->from, b->to, b->rank,
                (unsigned long long)b->bursts, (unsigned long long)b->instr,
                (unsigned long long)b->loads, (unsigned long long)b->stores);
        for (int k = 0; k < MC_PROF_NKINDS; k++)
            for (int l = 0; l < MC_PROF_NLINES; l++)
                write_rd(out, b, k, l);
    }
    free(order);
    if (ferror(out))
        return mc_error_set(err, MC_ERR_IO, "cpu profile: write error");
    return MC_OK;
}

/* ------------------------------------------------------------ reading */

#define MAXF 9

/* Splits a line at tabs; returns the number of fields. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    while (n < MAXF) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

static int parse_count(const char *s, double *v)
{
    char *end;
    if (!*s)
        return -1;
    double x = strtod(s, &end);
    if (*end || !isfinite(x) || x < 0)
        return -1;
    *v = x;
    return 0;
}

static int parse_rank(const char *s, int *rank)
{
    uint64_t v;
    if (parse_u64(s, &v) != 0 || v > 0x7fffffff)
        return -1;
    *rank = (int)v;
    return 0;
}

/* HIST: UPPER:COUNT pairs, strictly increasing uppers that are bucket
 * bounds. */
static const char *parse_hist(char *s, mc_prof_rd *rd)
{
    uint64_t prev = 0;
    for (char *tok = s; tok && *tok;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        char *colon = strchr(tok, ':');
        if (!colon)
            return "bad histogram pair (UPPER:COUNT)";
        *colon = 0;
        uint64_t up;
        double c;
        if (parse_u64(tok, &up) != 0 || parse_count(colon + 1, &c) != 0)
            return "bad histogram pair (UPPER:COUNT)";
        int b = mc_prof_bucket_with_upper(up);
        if (b < 0)
            return "histogram upper bound is not a bucket bound";
        if (up <= prev)
            return "histogram upper bounds not increasing";
        prev = up;
        rd->hist[b] += c;
        tok = comma ? comma + 1 : NULL;
    }
    return NULL;
}

static const char *parse_block(mc_prof *p, char **f, int n)
{
    uint64_t v[4];
    int rank;
    if (n != 8)
        return "block needs 8 fields";
    if (parse_rank(f[3], &rank) != 0)
        return "bad rank";
    for (int i = 0; i < 4; i++)
        if (parse_u64(f[4 + i], &v[i]) != 0)
            return "bad count (an integer >= 0)";
    mc_prof_block *b = mc_prof_block_get(p, f[1], f[2], rank);
    if (!b)
        return "out of memory";
    b->bursts += v[0];
    b->instr += v[1];
    b->loads += v[2];
    b->stores += v[3];
    return NULL;
}

static const char *parse_rd(mc_prof *p, char **f, int n)
{
    int rank, k = -1;
    uint64_t line;
    double cold;
    if (n != 8)
        return "rd needs 8 fields";
    if (parse_rank(f[3], &rank) != 0)
        return "bad rank";
    for (int i = 0; i < MC_PROF_NKINDS; i++)
        if (f[4][0] == kind_name[i] && !f[4][1])
            k = i;
    if (k < 0)
        return "bad kind (d or i)";
    int l = parse_u64(f[5], &line) == 0 && line < 1024 ? mc_prof_line_index((int)line) : -1;
    if (l < 0)
        return "bad line size (32, 64 or 128)";
    if (parse_count(f[6], &cold) != 0)
        return "bad cold count";
    mc_prof_block *b = mc_prof_block_get(p, f[1], f[2], rank);
    if (!b)
        return "out of memory";
    b->rd[k][l].cold += cold;
    return parse_hist(f[7], &b->rd[k][l]);
}

mc_prof *mc_prof_read_stream(FILE *in, const char *name, mc_error *err)
{
    mc_prof *p = mc_prof_create();
    if (!p) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    const char *why = NULL;
    while (!why && (len = getline(&line, &cap, in)) >= 0) {
        no++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (no == 1) {
            if (strcmp(line, MC_PROF_MAGIC) != 0)
                why = "not a CPU profile (first line must be '" MC_PROF_MAGIC "')";
            continue;
        }
        if (len == 0 || line[0] == '#')
            continue;
        if (strlen(line) != (size_t)len) {
            why = "NUL byte in line";
            break;
        }
        char *f[MAXF];
        int n = split(line, f);
        if (strcmp(f[0], "meta") == 0)
            why = n != 3 ? "meta needs 3 fields"
                         : mc_prof_set_meta(p, f[1], f[2], NULL) != MC_OK ? "out of memory"
                                                                          : NULL;
        else if (strcmp(f[0], "block") == 0)
            why = parse_block(p, f, n);
        else if (strcmp(f[0], "rd") == 0)
            why = parse_rd(p, f, n);
        else
            why = "unknown record (meta, block or rd)";
    }
    free(line);
    if (!why && no == 0)
        why = "empty file (not a CPU profile)";
    if (!why && ferror(in))
        why = "read error";
    if (why) {
        mc_error_set(err, MC_ERR_FORMAT, "%s:%ld: %s", name, no, why);
        mc_prof_destroy(p);
        return NULL;
    }
    return p;
}

mc_prof *mc_prof_read(const char *path, mc_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    mc_prof *p = mc_prof_read_stream(in, path, err);
    fclose(in);
    return p;
}
