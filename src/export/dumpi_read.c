/* DUMPI rank files: locating a trace (PREFIX.meta) and reading one rank's
 * records (dumpi_format.h has the layout). */
#define MPICAST_EXPORT_INTERNAL
#include "dumpi_read.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const int32_t dp_type_sizes[DP_NSIZES] = {0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4,
                                          8, 16, 0, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20};

/* ---------------------------------------------------------------- locate */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* The one dumpi-*.meta in dir (malloc'd path), NULL when none or several. */
static char *meta_in_dir(const char *dir, int *several)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    struct dirent *de;
    *several = 0;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "dumpi", 5) != 0 || !has_suffix(de->d_name, ".meta"))
            continue;
        if (found) {
            *several = 1;
            break;
        }
        size_t n = strlen(dir) + strlen(de->d_name) + 2;
        found = malloc(n);
        if (found)
            snprintf(found, n, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (*several) {
        free(found);
        return NULL;
    }
    return found;
}

int dp_is_trace(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return 0;
    if (S_ISREG(st.st_mode)) {
        if (!has_suffix(path, ".meta"))
            return 0;
        FILE *f = fopen(path, "r");
        char line[256];
        int ok = 0;
        while (f && !ok && fgets(line, sizeof line, f))
            ok = strncmp(line, "fileprefix=", 11) == 0;
        if (f)
            fclose(f);
        return ok;
    }
    int several = 0;
    char *m = S_ISDIR(st.st_mode) ? meta_in_dir(path, &several) : NULL;
    free(m);
    return m != NULL || several;
}

mc_err dp_locate(const char *path, dp_trace *t, mc_error *err)
{
    memset(t, 0, sizeof *t);
    struct stat st;
    if (stat(path, &st) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: no such DUMPI trace", path);
    char *meta = NULL;
    if (S_ISDIR(st.st_mode)) {
        int several = 0;
        meta = meta_in_dir(path, &several);
        if (!meta)
            return mc_error_set(err, MC_ERR_FORMAT, several ?
                                "%s: several dumpi-*.meta files: name the one to read" :
                                "%s: no dumpi-*.meta file in the directory", path);
    } else if (!(meta = strdup(path))) {
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
    }
    FILE *f = fopen(meta, "r");
    if (!f) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot read: %s", meta, strerror(errno));
        free(meta);
        return MC_ERR_IO;
    }
    char line[4096], prefix[1024] = "";
    int lineno = 0;
    long np = -1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (strncmp(line, "numprocs=", 9) == 0) {
            char *end;
            np = strtol(line + 9, &end, 10);
            if (*end || np < 1 || np > 100000000) {
                fclose(f);
                mc_error_set(err, MC_ERR_FORMAT, "%s:%d: numprocs: expected a positive "
                             "number, got '%s'", meta, lineno, line + 9);
                free(meta);
                return MC_ERR_FORMAT;
            }
        } else if (strncmp(line, "fileprefix=", 11) == 0) {
            snprintf(prefix, sizeof prefix, "%.1000s", line + 11);
        } else if (strncmp(line, "hostname=", 9) == 0) {
            snprintf(t->hostname, sizeof t->hostname, "%.250s", line + 9);
        }
    }
    fclose(f);
    if (np < 0 || !prefix[0] || strchr(prefix, '/')) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: %s", meta, np < 0 ? "no numprocs= line" :
                     "no fileprefix= line (or one naming a directory)");
        free(meta);
        return MC_ERR_FORMAT;
    }
    char *slash = strrchr(meta, '/');
    size_t dirlen = slash ? (size_t)(slash - meta) : 1;
    size_t n = dirlen + strlen(prefix) + 2;
    t->base = malloc(n);
    if (!t->base) {
        free(meta);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
    }
    snprintf(t->base, n, "%.*s/%s", (int)dirlen, slash ? meta : ".", prefix);
    t->meta = meta;
    t->nranks = (int)np;
    return MC_OK;
}

void dp_trace_free(dp_trace *t)
{
    free(t->base);
    free(t->meta);
    t->base = t->meta = NULL;
}

void dp_rank_path(const dp_trace *t, int rank, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%04d.bin", t->base, rank);
}

/* ---------------------------------------------------------------- bytes */

static uint32_t get(dp_file *d, int nbytes)
{
    uint32_t v = 0;
    for (int i = 0; i < nbytes; i++) {
        int c = getc(d->f);
        if (c == EOF) {
            d->bad = 1;
            return 0;
        }
        v = v << 8 | (uint32_t)c;
    }
    return v;
}

static uint8_t u8(dp_file *d) { return (uint8_t)get(d, 1); }
static uint16_t u16(dp_file *d) { return (uint16_t)get(d, 2); }
static int32_t i32(dp_file *d) { return (int32_t)get(d, 4); }
static uint64_t u64(dp_file *d)
{
    uint64_t hi = get(d, 4);
    return hi << 32 | get(d, 4);
}

/* A u32 count followed by that many i32, into a growable buffer. */
static int32_t *i32_array(dp_file *d, int32_t **buf, size_t *cap, int32_t *n)
{
    *n = i32(d);
    if (d->bad || *n < 0 || *n > (1 << 26)) {
        d->bad = 1;
        *n = 0;
        return *buf;
    }
    if ((size_t)*n > *cap) {
        int32_t *b = realloc(*buf, (size_t)*n * sizeof *b);
        if (!b) {
            d->bad = 1;
            *n = 0;
            return *buf;
        }
        *buf = b;
        *cap = (size_t)*n;
    }
    for (int32_t i = 0; i < *n; i++)
        (*buf)[i] = i32(d);
    return *buf;
}

static void skip(dp_file *d, long n)
{
    if (n > 0 && fseek(d->f, n, SEEK_CUR) != 0)
        d->bad = 1;
}

/* ---------------------------------------------------------------- open */

static mc_err corrupt(dp_file *d, mc_error *err, const char *what)
{
    return mc_error_set(err, MC_ERR_FORMAT, "%s: %s", d->path, what);
}

mc_err dp_open(dp_file *d, const char *path, mc_error *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    if (!(d->f = fopen(path, "rb")))
        return mc_error_set(err, MC_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    if (u64(d) != DP_MAGIC || d->bad)
        return corrupt(d, err, "not a DUMPI file (no magic at offset 0)");
    /* The index: magic and 7 offsets, the last 64 bytes. */
    if (fseek(d->f, -64, SEEK_END) != 0 || u64(d) != DP_MAGIC)
        return corrupt(d, err, "no index record at the end: the file is cut or is an "
                               "older DUMPI version (13.0.0 is read)");
    uint64_t sizes = u64(d), addr = u64(d), perf = u64(d), header = u64(d), body = u64(d);
    (void)addr;
    (void)perf;
    if (d->bad)
        return corrupt(d, err, "cut index record");
    if (header && fseek(d->f, (long)header, SEEK_SET) == 0) {
        for (int i = 0; i < 3; i++)
            d->version[i] = u8(d);
        if (d->version[0] != 13 && !d->bad)
            return mc_error_set(err, MC_ERR_VERSION, "%s: DUMPI format version %d.%d.%d "
                                "(13.0.0 is read)", path, d->version[0], d->version[1],
                                d->version[2]);
    }
    d->nsizes = 0;
    if (sizes && fseek(d->f, (long)sizes, SEEK_SET) == 0) {
        int32_t n = i32(d);
        if (n < 0 || n > 65536 || d->bad)
            return corrupt(d, err, "bad datatype size table");
        d->sizes = calloc((size_t)n + 1, sizeof *d->sizes);
        if (!d->sizes)
            return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        for (int32_t i = 0; i < n; i++)
            d->sizes[i] = i32(d);
        d->nsizes = n;
    }
    if (fseek(d->f, (long)body, SEEK_SET) != 0)
        return corrupt(d, err, "body offset past the end");
    d->cpu_off = (uint32_t)i32(d);
    d->wall_off = (uint32_t)i32(d);
    if (d->bad)
        return corrupt(d, err, "cut body");
    return MC_OK;
}

void dp_close(dp_file *d)
{
    if (d->f)
        fclose(d->f);
    free(d->sizes);
    free(d->ints);
    free(d->ints2);
    free(d->reqs);
    free(d->idx);
    free(d->st);
    memset(d, 0, sizeof *d);
}

int64_t dp_type_bytes(const dp_file *d, int32_t count, int type)
{
    int64_t size = type >= 0 && type < d->nsizes ? d->sizes[type] : 1;
    return count > 0 ? (int64_t)count * size : 0;
}

/* ---------------------------------------------------------------- records */

static void statuses(dp_file *d, dp_rec *r)
{
    r->nst = 0;
    if (!(r->mask & DP_MASK_STATUS))
        return;
    int32_t n = i32(d);
    if (n < 0 || n > (1 << 24) || d->bad) {
        d->bad = 1;
        return;
    }
    if ((size_t)n > d->st_cap) {
        dp_status *s = realloc(d->st, (size_t)n * sizeof *s);
        if (!s) {
            d->bad = 1;
            return;
        }
        d->st = s;
        d->st_cap = (size_t)n;
    }
    for (int32_t i = 0; i < n; i++) {
        d->st[i].bytes = i32(d);
        d->st[i].source = i32(d);
        skip(d, 2); /* cancelled, error */
        d->st[i].tag = i32(d);
    }
    r->nst = n;
    r->st = d->st;
}

static void times(dp_file *d, dp_rec *r)
{
    r->cpu0 = r->cpu1 = r->wall0 = r->wall1 = -1;
    if (r->mask & DP_MASK_CPU) {
        int64_t s = u16(d) + (int64_t)d->cpu_off;
        r->cpu0 = s * 1000000000 + (uint32_t)i32(d);
        s = u16(d) + (int64_t)d->cpu_off;
        r->cpu1 = s * 1000000000 + (uint32_t)i32(d);
    }
    if (r->mask & DP_MASK_WALL) {
        int64_t s = u16(d) + (int64_t)d->wall_off;
        r->wall0 = s * 1000000000 + (uint32_t)i32(d);
        s = u16(d) + (int64_t)d->wall_off;
        r->wall1 = s * 1000000000 + (uint32_t)i32(d);
    }
    if (r->mask & DP_MASK_PERF)
        skip(d, 16L * u8(d));
}

/* count, datatype, peer, tag, comm: the envelope of most point-to-point calls */
static void envelope(dp_file *d, dp_rec *r)
{
    r->count = i32(d);
    r->type = u16(d);
    r->peer = i32(d);
    r->tag = i32(d);
    r->comm = u16(d);
}

static void requests(dp_file *d, dp_rec *r)
{
    r->reqs = i32_array(d, &d->reqs, &d->reqs_cap, &r->nreqs);
}

/* The arguments of one call, in the order DUMPI writes them; 0 when the
 * function is not one mpicast reads. */
static int arguments(dp_file *d, dp_rec *r)
{
    switch (r->label) {
    case DP_Send: case DP_Bsend: case DP_Ssend: case DP_Rsend:
        envelope(d, r);
        return 1;
    case DP_Recv:
        envelope(d, r);
        statuses(d, r);
        return 1;
    case DP_Isend: case DP_Ibsend: case DP_Issend: case DP_Irsend: case DP_Irecv:
    case DP_Send_init: case DP_Bsend_init: case DP_Ssend_init: case DP_Rsend_init:
    case DP_Recv_init:
        envelope(d, r);
        r->req = i32(d);
        return 1;
    case DP_Wait:
        r->req = i32(d);
        statuses(d, r);
        return 1;
    case DP_Test:
        r->req = i32(d);
        r->flag = i32(d);
        statuses(d, r);
        return 1;
    case DP_Request_free: case DP_Start:
        r->req = i32(d);
        return 1;
    case DP_Startall:
        skip(d, 4);
        requests(d, r);
        return 1;
    case DP_Waitany: case DP_Testany:
        skip(d, 4);
        requests(d, r);
        r->index = i32(d);
        r->flag = r->label == DP_Testany ? i32(d) : 1;
        statuses(d, r);
        return 1;
    case DP_Waitall: case DP_Testall:
        skip(d, 4);
        requests(d, r);
        r->flag = r->label == DP_Testall ? i32(d) : 1;
        statuses(d, r);
        return 1;
    case DP_Waitsome: case DP_Testsome:
        skip(d, 4);
        requests(d, r);
        r->flag = i32(d); /* outcount */
        r->idx = i32_array(d, &d->idx, &d->idx_cap, &r->nidx);
        statuses(d, r);
        return 1;
    case DP_Iprobe: case DP_Probe:
        r->peer = i32(d);
        r->tag = i32(d);
        r->comm = u16(d);
        r->flag = r->label == DP_Iprobe ? i32(d) : 1;
        statuses(d, r);
        return 1;
    case DP_Sendrecv:
        r->count = i32(d);
        r->type = u16(d);
        r->peer = i32(d);
        r->tag = i32(d);
        r->count2 = i32(d);
        r->type2 = u16(d);
        r->peer2 = i32(d);
        r->tag2 = i32(d);
        r->comm = u16(d);
        statuses(d, r);
        return 1;
    case DP_Sendrecv_replace:
        r->count = r->count2 = i32(d);
        r->type = r->type2 = u16(d);
        r->peer = i32(d);
        r->tag = i32(d);
        r->peer2 = i32(d);
        r->tag2 = i32(d);
        r->comm = u16(d);
        statuses(d, r);
        return 1;
    case DP_Barrier:
        r->comm = u16(d);
        return 1;
    case DP_Bcast:
        r->count = r->count2 = i32(d);
        r->type = r->type2 = u16(d);
        r->root = i32(d);
        r->comm = u16(d);
        return 1;
    case DP_Gather: case DP_Scatter: /* commrank, own count/type, root, comm, root's */
        r->commrank = i32(d);
        r->count = i32(d);
        r->type = u16(d);
        r->root = i32(d);
        r->comm = u16(d);
        r->count2 = 0;
        r->type2 = 0;
        if (r->commrank == r->root) {
            r->count2 = i32(d);
            r->type2 = u16(d);
        }
        return 1;
    case DP_Allgather: case DP_Alltoall:
        r->count = i32(d);
        r->type = u16(d);
        r->count2 = i32(d);
        r->type2 = u16(d);
        r->comm = u16(d);
        return 1;
    case DP_Reduce:
        r->count = r->count2 = i32(d);
        r->type = r->type2 = u16(d);
        skip(d, 1); /* op */
        r->root = i32(d);
        r->comm = u16(d);
        return 1;
    case DP_Allreduce: case DP_Scan:
        r->count = r->count2 = i32(d);
        r->type = r->type2 = u16(d);
        skip(d, 1);
        r->comm = u16(d);
        return 1;
    case DP_Comm_size: case DP_Comm_rank:
        r->comm = u16(d);
        skip(d, 4);
        return 1;
    case DP_Comm_dup:
        r->comm = u16(d);
        r->newcomm = u16(d);
        return 1;
    case DP_Comm_split:
        r->comm = u16(d);
        r->color = i32(d);
        r->key = i32(d);
        r->newcomm = u16(d);
        return 1;
    case DP_Comm_free:
        r->comm = u16(d);
        return 1;
    case DP_Cart_create:
        r->comm = u16(d);
        r->ndim = i32(d);
        r->ints = i32_array(d, &d->ints, &d->ints_cap, &r->nints);
        r->ints2 = i32_array(d, &d->ints2, &d->ints2_cap, &r->nints2);
        skip(d, 4); /* reorder */
        r->newcomm = u16(d);
        return 1;
    case DP_Dims_create: {
        int32_t n;
        skip(d, 8); /* nodes, ndim */
        i32_array(d, &d->ints, &d->ints_cap, &n);
        i32_array(d, &d->ints, &d->ints_cap, &n);
        return 1;
    }
    case DP_Cart_shift:
        skip(d, 2 + 4 * 4);
        return 1;
    case DP_Type_size:
        skip(d, 2 + 4);
        return 1;
    case DP_Type_commit: case DP_Type_free:
        skip(d, 2);
        return 1;
    case DP_Get_count:
        statuses(d, r);
        skip(d, 2 + 4);
        return 1;
    case DP_Wtime: case DP_Finalize:
        return 1;
    case DP_Init: {
        int32_t argc = i32(d);
        for (int32_t i = 0; i < argc && !d->bad; i++) {
            int32_t len = i32(d);
            if (len < 0) {
                d->bad = 1;
                break;
            }
            skip(d, len);
        }
        return 1;
    }
    default:
        return 0;
    }
}

int dp_next(dp_file *d, dp_rec *r, mc_error *err)
{
    memset(r, 0, sizeof *r);
    long at = ftell(d->f);
    r->label = u16(d);
    if (d->bad) {
        mc_error_set(err, MC_ERR_TRUNCATED, "%s: offset %ld: the stream ends without its "
                     "end-of-stream mark", d->path, at);
        return -1;
    }
    if (r->label == DP_END_OF_STREAM)
        return 0;
    r->mask = u8(d);
    r->thread = r->mask & DP_MASK_THREAD ? u16(d) : 0;
    times(d, r);
    if (!arguments(d, r)) {
        mc_error_set(err, MC_ERR_FORMAT, "%s: offset %ld: DUMPI function %d is not one "
                     "mpicast reads (see docs/formats.md, DUMPI)", d->path, at, r->label);
        return -1;
    }
    if (d->bad) {
        mc_error_set(err, MC_ERR_TRUNCATED, "%s: offset %ld: cut or malformed record "
                     "(function %d)", d->path, at, r->label);
        return -1;
    }
    return 1;
}
