/* Compute data: per-block burst statistics and compute tables
 * (include/mpicast/blocks.h, docs/compute-data.md). */
#include "mpicast/blocks.h"
#include "mpicast/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h> /* isfinite (a macro: no libm) */
#include <stdlib.h>
#include <string.h>

struct mc_blocks {
    int nranks;
    int truncated; /* a rank's stream ended inside a chunk (a crashed run) */
    mc_block_stat *rows;   /* per (block, rank), sorted */
    size_t nrows, cap;
    mc_block_stat *totals; /* per block, rank -1, sorted */
    size_t ntotals;
    /* open addressing: slot -> row index + 1 (0 empty) while collecting */
    size_t *slots;
    size_t nslots;
};

static uint64_t key_hash(int32_t prev, int32_t site, int32_t rank)
{
    uint64_t h = (uint64_t)(uint32_t)prev * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uint32_t)site + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)(uint32_t)rank * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
}

static int grow_slots(mc_blocks *b)
{
    size_t n = b->nslots ? b->nslots * 2 : 256;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < b->nrows; i++) {
        const mc_block_stat *r = &b->rows[i];
        size_t k = key_hash(r->prev_site, r->site, r->rank) & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(b->slots);
    b->slots = s;
    b->nslots = n;
    return 0;
}

/* The row of (prev, site, rank), created empty if new; NULL when out of memory. */
static mc_block_stat *row_of(mc_blocks *b, int32_t prev, int32_t site, int32_t rank)
{
    if ((b->nrows + 1) * 2 > b->nslots && grow_slots(b) != 0)
        return NULL;
    size_t k = key_hash(prev, site, rank) & (b->nslots - 1);
    for (; b->slots[k]; k = (k + 1) & (b->nslots - 1)) {
        mc_block_stat *r = &b->rows[b->slots[k] - 1];
        if (r->prev_site == prev && r->site == site && r->rank == rank)
            return r;
    }
    if (b->nrows == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 128;
        mc_block_stat *p = realloc(b->rows, cap * sizeof *p);
        if (!p)
            return NULL;
        b->rows = p;
        b->cap = cap;
    }
    mc_block_stat *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    r->prev_site = prev;
    r->site = site;
    r->rank = rank;
    r->min_ns = INT64_MAX;
    b->slots[k] = b->nrows;
    return r;
}

static void add_burst(mc_block_stat *r, int64_t ns)
{
    r->count++;
    r->sum_ns += ns;
    if (ns < r->min_ns)
        r->min_ns = ns;
    if (ns > r->max_ns)
        r->max_ns = ns;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const mc_block_stat *a = pa, *b = pb;
    if (a->prev_site != b->prev_site)
        return a->prev_site < b->prev_site ? -1 : 1;
    if (a->site != b->site)
        return a->site < b->site ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The all-ranks rows: one per block, merged from the sorted per-rank rows. */
static int make_totals(mc_blocks *b)
{
    b->totals = calloc(b->nrows ? b->nrows : 1, sizeof *b->totals);
    if (!b->totals)
        return -1;
    for (size_t i = 0; i < b->nrows; i++) {
        const mc_block_stat *r = &b->rows[i];
        mc_block_stat *t = b->ntotals ? &b->totals[b->ntotals - 1] : NULL;
        if (!t || t->prev_site != r->prev_site || t->site != r->site) {
            t = &b->totals[b->ntotals++];
            *t = *r;
            t->rank = -1;
            continue;
        }
        t->count += r->count;
        t->sum_ns += r->sum_ns;
        if (r->min_ns < t->min_ns)
            t->min_ns = r->min_ns;
        if (r->max_ns > t->max_ns)
            t->max_ns = r->max_ns;
    }
    return 0;
}

static mc_err collect_rank(mc_blocks *b, mc_source *src, int rank, mc_block_time which,
                           mc_error *err)
{
    mc_event e;
    int32_t prev = 0;
    uint64_t n = 0;
    int rc;
    while ((rc = mc_source_next(src, rank, &e, err)) > 0) {
        if (n++ > 0) { /* the first event (Init) closes no block */
            int64_t ns = e.burst > 0 ? e.burst : 0;
            if (which == MC_BLOCK_CPU) {
                if (e.cpu < 0)
                    return mc_error_set(err, MC_ERR_FORMAT,
                                        "%s: rank %d event %" PRIu64
                                        ": no CPU time (trace not taken with --mode cpu)",
                                        src->name ? src->name : "trace", rank, n);
                ns = e.cpu;
            }
            mc_block_stat *r = row_of(b, prev, e.site, rank);
            if (!r)
                return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
            add_burst(r, ns);
        }
        prev = e.site;
    }
    if (rc < 0 && err && err->code == MC_ERR_TRUNCATED) {
        b->truncated = 1; /* keep the readable prefix, as stats does */
        return MC_OK;
    }
    return rc < 0 ? (err && err->code ? err->code : MC_ERR_FORMAT) : MC_OK;
}

mc_blocks *mc_blocks_collect(mc_source *src, mc_block_time which, mc_error *err)
{
    mc_blocks *b = calloc(1, sizeof *b);
    if (!b) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    b->nranks = src->nranks;
    for (int r = 0; r < src->nranks; r++) {
        if (collect_rank(b, src, r, which, err) != MC_OK) {
            mc_blocks_destroy(b);
            return NULL;
        }
    }
    free(b->slots);
    b->slots = NULL;
    if (b->nrows)
        qsort(b->rows, b->nrows, sizeof *b->rows, cmp_rows);
    if (make_totals(b) != 0) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        mc_blocks_destroy(b);
        return NULL;
    }
    return b;
}

void mc_blocks_destroy(mc_blocks *b)
{
    if (!b)
        return;
    free(b->rows);
    free(b->totals);
    free(b->slots);
    free(b);
}

size_t mc_blocks_count(const mc_blocks *b) { return b->nrows; }
const mc_block_stat *mc_blocks_at(const mc_blocks *b, size_t i)
{
    return i < b->nrows ? &b->rows[i] : NULL;
}
size_t mc_blocks_total_count(const mc_blocks *b) { return b->ntotals; }
const mc_block_stat *mc_blocks_total_at(const mc_blocks *b, size_t i)
{
    return i < b->ntotals ? &b->totals[i] : NULL;
}
int mc_blocks_nranks(const mc_blocks *b) { return b->nranks; }
int mc_blocks_truncated(const mc_blocks *b) { return b->truncated; }

/* ---------------------------------------------------------------- table */

#define CTABLE_MAGIC "# mpicast compute table 1"
enum { KEY_MAX = MC_SITE_KEY_MAX };

char *mc_site_key(const mc_meta *m, int32_t site, char *buf, size_t len)
{
    const mc_meta_site *s = m ? mc_meta_site_find(m, site) : NULL;
    if (!s || !s->file || !s->file[0] || s->line <= 0) {
        snprintf(buf, len, "0x%x", (unsigned)site);
        return buf;
    }
    const char *base = strrchr(s->file, '/');
    snprintf(buf, len, "%s:%d", base ? base + 1 : s->file, s->line);
    for (char *p = buf; *p; p++) /* keys are whitespace-separated fields */
        if (*p == ' ' || *p == '\t' || *p == '#')
            *p = '?';
    return buf;
}

/* ---------------------------------------------------------------- writing */

typedef struct wrow {
    char from[KEY_MAX], to[KEY_MAX];
    mc_block_stat s;
} wrow;

static int cmp_wrow(const void *pa, const void *pb)
{
    const wrow *a = pa, *b = pb;
    int c = strcmp(a->from, b->from);
    if (!c)
        c = strcmp(a->to, b->to);
    return c ? c : (a->s.rank > b->s.rank) - (a->s.rank < b->s.rank);
}

static void merge_stat(mc_block_stat *into, const mc_block_stat *s)
{
    into->count += s->count;
    into->sum_ns += s->sum_ns;
    if (s->min_ns < into->min_ns)
        into->min_ns = s->min_ns;
    if (s->max_ns > into->max_ns)
        into->max_ns = s->max_ns;
}

/* The rows to write, keyed by site keys, sorted, equal keys merged. */
static wrow *keyed_rows(const mc_blocks *b, const mc_meta *m, size_t *n)
{
    size_t total = b->ntotals + b->nrows, k = 0;
    wrow *w = calloc(total ? total : 1, sizeof *w);
    if (!w)
        return NULL;
    for (size_t i = 0; i < total; i++) {
        const mc_block_stat *s = i < b->ntotals ? &b->totals[i] : &b->rows[i - b->ntotals];
        mc_site_key(m, s->prev_site, w[i].from, KEY_MAX);
        mc_site_key(m, s->site, w[i].to, KEY_MAX);
        w[i].s = *s;
    }
    qsort(w, total, sizeof *w, cmp_wrow);
    for (size_t i = 0; i < total; i++) {
        if (k > 0 && cmp_wrow(&w[k - 1], &w[i]) == 0)
            merge_stat(&w[k - 1].s, &w[i].s);
        else
            w[k++] = w[i];
    }
    *n = k;
    return w;
}

static void write_row(FILE *out, const wrow *r, const mc_meta *m)
{
    char rank[16];
    if (r->s.rank < 0)
        snprintf(rank, sizeof rank, "*");
    else
        snprintf(rank, sizeof rank, "%d", (int)r->s.rank);
    fprintf(out, "%s\t%s\t%s\t%" PRIu64 "\t%.3f\t%" PRId64 "\t%" PRId64, r->from, r->to, rank,
            r->s.count, mc_block_mean_ns(&r->s), r->s.min_ns, r->s.max_ns);
    const mc_meta_site *a = m ? mc_meta_site_find(m, r->s.prev_site) : NULL;
    const mc_meta_site *z = m ? mc_meta_site_find(m, r->s.site) : NULL;
    if (a || z)
        fprintf(out, "\t# %s -> %s", a && a->function[0] ? a->function : "?",
                z && z->function[0] ? z->function : "?");
    fputc('\n', out);
}

mc_err mc_ctable_write(const mc_blocks *b, FILE *out, int per_rank, const char *source,
                       const mc_meta *meta, mc_error *err)
{
    size_t n = 0;
    wrow *w = keyed_rows(b, meta, &n);
    if (!w)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    fprintf(out, CTABLE_MAGIC "\n# source: %s (%d ranks)\n"
            "# from\tto\trank\tcount\tmean_ns\tmin_ns\tmax_ns\n",
            source ? source : "-", b->nranks);
    for (size_t i = 0; i < n; i++)
        if (per_rank || w[i].s.rank < 0)
            write_row(out, &w[i], meta);
    free(w);
    if (fflush(out) != 0 || ferror(out))
        return mc_error_set(err, MC_ERR_IO, "compute table: write failed: %s", strerror(errno));
    return MC_OK;
}

/* ---------------------------------------------------------------- reading */

typedef struct ct_row {
    uint32_t from, to;  /* key indices */
    int32_t rank;       /* -1: all ranks */
    double mean_ns;
    char *kfrom, *kto;  /* the key strings (t->keys numbers them) */
} ct_row;



struct mc_ctable {
    mc_block_keys *keys; /* over the rows' strings */
    ct_row *rows;        /* sorted by (from, to, rank) */
    size_t n, cap;
    mc_ctable_counts counts;
};

static int cmp_ct(const void *pa, const void *pb)
{
    const ct_row *a = pa, *b = pb;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* A key: "file:line" or "0x<hex>"; no '#' or whitespace (the splitter). */
static int valid_key(const char *s)
{
    if (strncmp(s, "0x", 2) == 0) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s + 2, &end, 16);
        return s[2] && !*end && !errno && v <= 0x7fffffffUL;
    }
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return 0;
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return strlen(s) < KEY_MAX;
}

static int parse_rank(const char *s, int32_t *out)
{
    if (strcmp(s, "*") == 0) {
        *out = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* Parses one data line into row (keys not yet copied); returns what is
 * wrong, "" for a blank/comment line, NULL when fine. */
static const char *parse_line(char *line, ct_row *row, char **kfrom, char **kto)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *f[8];
    int nf = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && nf < 8; tok = strtok(NULL, " \t\r\n"))
        f[nf++] = tok;
    if (nf == 0)
        return "";
    if (nf < 5)
        return "expected: from to rank count mean_ns";
    if (!valid_key(f[0]) || !valid_key(f[1]))
        return "bad site key (file:line, or 0x<hex> below 2^31)";
    if (parse_rank(f[2], &row->rank))
        return "bad rank (an integer >= 0 or '*')";
    char *end;
    errno = 0;
    double m = strtod(f[4], &end);
    if (*end || errno || !isfinite(m) || m < 0)
        return "bad mean_ns (a finite number >= 0)";
    row->mean_ns = m;
    *kfrom = f[0];
    *kto = f[1];
    return NULL;
}

static mc_err add_row(mc_ctable *t, ct_row *row, const char *kfrom, const char *kto,
                      mc_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        ct_row *p = realloc(t->rows, cap * sizeof *p);
        if (!p)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        t->rows = p;
        t->cap = cap;
    }
    row->kfrom = strdup(kfrom);
    row->kto = strdup(kto);
    t->rows[t->n++] = *row;
    if (!row->kfrom || !row->kto)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    return MC_OK;
}

static mc_err load_rows(mc_ctable *t, FILE *fp, const char *path, mc_error *err)
{
    char buf[4096];
    int lineno = 1;
    for (; fgets(buf, sizeof buf, fp); lineno++) {
        if (!strchr(buf, '\n') && !feof(fp))
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%d: line too long", path, lineno);
        if (lineno == 1) {
            if (strncmp(buf, CTABLE_MAGIC, strlen(CTABLE_MAGIC)) != 0)
                return mc_error_set(err, MC_ERR_FORMAT,
                                    "%s:1: not a compute table (expected '" CTABLE_MAGIC
                                    "'; write one with 'mpicast blocks DIR --table FILE')",
                                    path);
            continue;
        }
        ct_row row;
        char *kfrom = NULL, *kto = NULL;
        memset(&row, 0, sizeof row);
        const char *bad = parse_line(buf, &row, &kfrom, &kto);
        if (bad && !*bad)
            continue; /* blank or comment */
        if (bad)
            return mc_error_set(err, MC_ERR_FORMAT, "%s:%d: %s", path, lineno, bad);
        if (add_row(t, &row, kfrom, kto, err) != MC_OK)
            return err ? err->code : MC_ERR_NOMEM;
    }
    if (ferror(fp))
        return mc_error_set(err, MC_ERR_IO, "%s: read error", path);
    if (lineno == 1)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: empty file, not a compute table", path);
    return MC_OK;
}

/* Numbers the rows' key strings (mc_block_keys); the rows keep them. */
static mc_err intern_keys(mc_ctable *t, mc_error *err)
{
    const char **all = malloc((2 * t->n + 1) * sizeof *all);
    if (!all)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < t->n; i++) {
        all[2 * i] = t->rows[i].kfrom;
        all[2 * i + 1] = t->rows[i].kto;
    }
    t->keys = mc_block_keys_create(all, 2 * t->n);
    free(all);
    if (!t->keys)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < t->n; i++) {
        ct_row *r = &t->rows[i];
        r->from = (uint32_t)mc_block_keys_find(t->keys, r->kfrom);
        r->to = (uint32_t)mc_block_keys_find(t->keys, r->kto);
    }
    return MC_OK;
}

static mc_err check_duplicates(const mc_ctable *t, const char *path, mc_error *err)
{
    for (size_t i = 1; i < t->n; i++)
        if (cmp_ct(&t->rows[i - 1], &t->rows[i]) == 0)
            return mc_error_set(err, MC_ERR_FORMAT, "%s: block %s %s rank %d appears twice",
                                path, mc_block_keys_at(t->keys, t->rows[i].from),
                                mc_block_keys_at(t->keys, t->rows[i].to),
                                (int)t->rows[i].rank);
    return MC_OK;
}

mc_ctable *mc_ctable_load(const char *path, mc_error *err)
{
    FILE *fp = mc_in_fopen(path, err); /* a FIFO or device is refused */
    if (!fp)
        return NULL;
    mc_ctable *t = calloc(1, sizeof *t);
    mc_err rc = t ? load_rows(t, fp, path, err) : mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    fclose(fp);
    if (rc == MC_OK)
        rc = intern_keys(t, err);
    if (rc == MC_OK && t->n)
        qsort(t->rows, t->n, sizeof *t->rows, cmp_ct);
    if (rc == MC_OK)
        rc = check_duplicates(t, path, err);
    if (rc != MC_OK) {
        mc_ctable_destroy(t);
        return NULL;
    }
    return t;
}

void mc_ctable_destroy(mc_ctable *t)
{
    if (!t)
        return;
    mc_block_keys_destroy(t->keys);
    for (size_t i = 0; i < t->n; i++) {
        free(t->rows[i].kfrom);
        free(t->rows[i].kto);
    }
    free(t->rows);
    free(t);
}

size_t mc_ctable_size(const mc_ctable *t) { return t->n; }

mc_err mc_ctable_bind(mc_ctable *t, const mc_meta *meta, mc_error *err)
{
    return mc_block_keys_bind(t->keys, meta, err);
}

static const ct_row *find(const mc_ctable *t, int32_t rank, long from, long to)
{
    ct_row key = {(uint32_t)from, (uint32_t)to, rank, 0, NULL, NULL};
    return t->n ? bsearch(&key, t->rows, t->n, sizeof *t->rows, cmp_ct) : NULL;
}

double mc_ctable_lookup(const mc_ctable *t, int rank, int32_t prev_site, int32_t site)
{
    long from = mc_block_keys_of_site(t->keys, prev_site);
    long to = mc_block_keys_of_site(t->keys, site);
    if (from < 0 || to < 0)
        return -1.0;
    const ct_row *r = find(t, rank, from, to);
    if (!r)
        r = find(t, -1, from, to);
    return r ? r->mean_ns : -1.0;
}

int64_t mc_ctable_hook(void *ctx, int rank, int32_t prev_site, int32_t site, int64_t scaled_ps)
{
    mc_ctable *t = ctx;
    double ns = mc_ctable_lookup(t, rank, prev_site, site);
    if (ns < 0) {
        if (prev_site != 0 || scaled_ps != 0)
            t->counts.fell_back++;
        return -1;
    }
    t->counts.from_table++;
    double ps = ns * 1000.0;
    return ps < 9e18 ? (int64_t)(ps + 0.5) : INT64_MAX / 2; /* ns >= 0: rounds */
}

mc_ctable_counts mc_ctable_get_counts(const mc_ctable *t) { return t->counts; }
void mc_ctable_reset_counts(mc_ctable *t) { memset(&t->counts, 0, sizeof t->counts); }
