/* Extrapolation rules (docs/extrapolation.md), size laws, MPI_Dims_create and
 * the process-grid geometry every other file of the module relies on. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/outfile.h"

static const char *const law_names[MC_LAW_COUNT] = {
    "auto", "const", "volume", "surface", "1/comm", "comm", "p/comm", "volume/comm", "p",
    "1/p", "log2p", "log2cols", "fit",
};

const char *mc_extrap_law_name(int law)
{
    return law >= 0 && law < MC_LAW_COUNT ? law_names[law] : "?";
}

int mc_extrap_law_from_name(const char *name)
{
    for (int i = 0; i < MC_LAW_COUNT; i++)
        if (strcasecmp(name, law_names[i]) == 0)
            return i;
    return -1;
}

double law_f(int law, double P, double c, int d)
{
    switch (law) {
    case MC_LAW_VOLUME: return 1.0 / P;
    case MC_LAW_SURFACE: return d > 1 ? pow(1.0 / P, (double)(d - 1) / d) : 1.0;
    case MC_LAW_INV_COMM: return 1.0 / c;
    case MC_LAW_COMM: return c;
    case MC_LAW_P_PER_COMM: return P / c;
    case MC_LAW_VOLUME_PER_COMM: return 1.0 / (P * c);
    case MC_LAW_P: return P;
    case MC_LAW_INV_P: return 1.0 / P;
    case MC_LAW_LOG2P: return P > 1 ? log2(P) : 1.0;
    case MC_LAW_LOG2COLS: return P > 1 ? ceil(log2(P) / 2 - 1e-12) : 1.0;
    default: return 1.0;
    }
}

void mc_extrap_rules_init(mc_extrap_rules *r)
{
    memset(r, 0, sizeof *r);
    for (int d = 0; d < MC_EXTRAP_MAXDIMS; d++)
        r->periods[d] = -1;
    r->infer = 1;
}

/* "8x8x4" or "8,8,4" into out[0..max); returns the count or -1 (more
 * than max values: -1, found by fuzz/fuzz_extrap_rules.c). */
static int parse_list(const char *s, int *out, int lo, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < lo || v > (1L << 30) || n == max)
            return -1;
        out[n++] = (int)v;
        s = end;
        if (*s == 'x' || *s == 'X' || *s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

static int sizeclass_from_key(const char *key)
{
    if (strcmp(key, "size.p2p") == 0)
        return MC_SC_P2P;
    if (strcmp(key, "size.reduce") == 0)
        return MC_SC_REDUCE;
    if (strcmp(key, "size.block") == 0)
        return MC_SC_BLOCK;
    if (strcmp(key, "compute") == 0)
        return MC_SC_COMPUTE;
    return -1;
}

mc_err mc_extrap_rules_set(mc_extrap_rules *r, const char *key, const char *value,
                           mc_error *err)
{
    const char *v = value ? value : "";
    int sc = sizeclass_from_key(key);
    if (strcmp(key, "grid") == 0) {
        int dims[MC_EXTRAP_MAXDIMS];
        int n = parse_list(v, dims, 1, MC_EXTRAP_MAXDIMS);
        if (n <= 0)
            return mc_error_set(err, MC_ERR_USAGE, "grid %s: expected dimensions like 8x8 "
                                "(1 to %d positive numbers)", v, MC_EXTRAP_MAXDIMS);
        memset(r->dims, 0, sizeof r->dims);
        memcpy(r->dims, dims, (size_t)n * sizeof *dims);
        r->ndims = n;
    } else if (strcmp(key, "ndims") == 0) {
        int n[1];
        if (parse_list(v, n, 1, 1) != 1 || n[0] > MC_EXTRAP_MAXDIMS)
            return mc_error_set(err, MC_ERR_USAGE, "ndims %s: expected 1 to %d", v,
                                MC_EXTRAP_MAXDIMS);
        r->ndims = n[0];
    } else if (strcmp(key, "periodic") == 0) {
        int p[MC_EXTRAP_MAXDIMS];
        int n = parse_list(v, p, 0, MC_EXTRAP_MAXDIMS);
        if (n <= 0)
            return mc_error_set(err, MC_ERR_USAGE, "periodic %s: expected 0/1 per dimension, "
                                "like 1,0", v);
        for (int d = 0; d < MC_EXTRAP_MAXDIMS; d++)
            r->periods[d] = d < n ? (p[d] != 0) : -1;
    } else if (strcmp(key, "replicate") == 0) {
        int rank[1] = {0};
        if (*v && parse_list(v, rank, 0, 1) != 1)
            return mc_error_set(err, MC_ERR_USAGE, "replicate %s: expected a rank", v);
        r->replicate = 1;
        r->rep = rank[0];
    } else if (strcmp(key, "scaling") == 0) {
        if (strcmp(v, "weak") == 0)
            r->strong = 0;
        else if (strcmp(v, "strong") == 0)
            r->strong = 1;
        else
            return mc_error_set(err, MC_ERR_USAGE, "scaling %s: expected weak or strong", v);
    } else if (strcmp(key, "infer") == 0) {
        if (strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
            r->infer = 1;
        else if (strcmp(v, "no") == 0 || strcmp(v, "0") == 0)
            r->infer = 0;
        else
            return mc_error_set(err, MC_ERR_USAGE, "infer %s: expected yes or no", v);
    } else if (strcmp(key, "sizes") == 0) {
        if (strcmp(v, "exact") == 0)
            r->data_sizes = 0;
        else if (strcmp(v, "data") == 0)
            r->data_sizes = 1;
        else
            return mc_error_set(err, MC_ERR_USAGE, "sizes %s: expected exact or data", v);
    } else if (strcmp(key, "blocks") == 0) {
        static const char *const names[] = {"any", "first", "last", "ceil"};
        int k = 0;
        while (k < 4 && strcmp(v, names[k]))
            k++;
        if (k == 4)
            return mc_error_set(err, MC_ERR_USAGE, "blocks %s: expected first, last, ceil or "
                                "any", v);
        r->blocks = k;
    } else if (strcmp(key, "repeat") == 0) {
        /* SITE[/LEN]:LAW, SITE in hex as `mpicast dump` prints it */
        char *end;
        errno = 0;
        unsigned long site = strtoul(v, &end, 16);
        unsigned long len = 0;
        if (end != v && *end == '/') {
            const char *l = end + 1;
            len = strtoul(l, &end, 10);
            if (end == l || len == 0 || len > 100000)
                end = (char *)l, len = 0, errno = EINVAL;
        }
        int law = *end == ':' ? mc_extrap_law_from_name(end + 1) : -1;
        if (end == v || errno || site > 0x7fffffffUL || law <= MC_LAW_AUTO || law == MC_LAW_FIT)
            return mc_error_set(err, MC_ERR_USAGE, "repeat %s: expected SITE[/LEN]:LAW, e.g. "
                                "4dac09ab/3:log2p (SITE as mpicast dump prints it)", v);
        if (r->nrepeat == 8)
            return mc_error_set(err, MC_ERR_USAGE, "repeat %s: at most 8 repeat rules", v);
        r->repeat[r->nrepeat].site = (int32_t)site;
        r->repeat[r->nrepeat].len = (uint32_t)len;
        r->repeat[r->nrepeat].law = law;
        r->nrepeat++;
    } else if (sc >= 0) {
        int law = mc_extrap_law_from_name(v);
        if (law < 0 || (law == MC_LAW_FIT && sc != MC_SC_COMPUTE && sc != MC_SC_P2P))
            return mc_error_set(err, MC_ERR_USAGE, "%s %s: %s law (const, volume, "
                                "surface, 1/comm, comm, p/comm, volume/comm, p, 1/p, log2p, "
                                "auto; fit for compute and size.p2p only)", key, v,
                                law < 0 ? "unknown" : "not a size");
        r->law[sc] = law;
    } else {
        return mc_error_set(err, MC_ERR_USAGE, "unknown rule '%s' (grid, ndims, periodic, "
                            "replicate, scaling, infer, size.p2p, size.reduce, size.block, "
                            "compute, repeat, sizes)", key);
    }
    return MC_OK;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

mc_err mc_extrap_rules_load(mc_extrap_rules *r, const char *path, mc_error *err)
{
    FILE *f = mc_in_fopen(path, err); /* --rules /dev/zero: refused, not read forever */
    if (!f)
        return err && err->code ? err->code : MC_ERR_IO;
    char line[1024];
    int lineno = 0;
    mc_err rc = MC_OK;
    while (rc == MC_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *sp = s;
        while (*sp && !isspace((unsigned char)*sp) && *sp != '=')
            sp++;
        char *val = sp;
        if (*sp) {
            *sp = '\0';
            val = trim(sp + 1);
            if (*val == '=')
                val = trim(val + 1);
        }
        rc = mc_extrap_rules_set(r, s, val, err);
        if (rc == MC_ERR_USAGE) { /* a bad line of a file is bad input (exit 1), not usage */
            rc = MC_ERR_FORMAT;
            if (err)
                err->code = rc;
        }
        if (rc)
            mc_error_prefix(err, "%s:%d", path, lineno);
    }
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------ dims_create */

void mc_extrap_dims_create(int nranks, int nd, int *dims)
{
    for (int d = 0; d < nd; d++)
        dims[d] = 1;
    int f[64], nf = 0, n = nranks;
    for (int p = 2; (long)p * p <= n; p++)
        while (n % p == 0 && nf < 64) {
            f[nf++] = p;
            n /= p;
        }
    if (n > 1 && nf < 64)
        f[nf++] = n;
    /* Largest factors first, each into the dimension with the smallest
     * product: the balanced grid of MPI_Dims_create. */
    for (int i = nf - 1; i >= 0; i--) {
        int m = 0;
        for (int d = 1; d < nd; d++)
            if (dims[d] < dims[m])
                m = d;
        dims[m] *= f[i];
    }
    for (int i = 0; i < nd; i++) /* non-increasing */
        for (int j = i + 1; j < nd; j++)
            if (dims[j] > dims[i]) {
                int t = dims[i];
                dims[i] = dims[j];
                dims[j] = t;
            }
}

/* ------------------------------------------------------------ grid */

void grid_coords(const xgrid *g, int r, int *c)
{
    for (int d = g->nd - 1; d >= 0; d--) {
        c[d] = r % g->dims[d];
        r /= g->dims[d];
    }
}

int grid_rank(const xgrid *g, const int *c)
{
    int r = 0;
    for (int d = 0; d < g->nd; d++)
        r = r * g->dims[d] + c[d];
    return r;
}

int grid_class(const xgrid *g, int r)
{
    int c[MAXD], cls = 0, mul = 1;
    grid_coords(g, r, c);
    for (int d = 0; d < g->nd; d++) {
        int cat = g->dims[d] == 1 ? CAT_SINGLE : c[d] == 0 ? CAT_LO
                  : c[d] == g->dims[d] - 1 ? CAT_HI : CAT_INT;
        cls += cat * mul;
        mul *= NCAT;
    }
    return cls;
}

void class_name(int nd, int cls, char *buf, size_t len)
{
    static const char *const names[NCAT] = {"lo", "int", "hi", "single"};
    size_t o = 0;
    buf[0] = '\0';
    for (int d = 0; d < nd && o < len; d++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%s", d ? "," : "", names[cls % NCAT]);
        cls /= NCAT;
    }
}

int grid_sub_size(const xgrid *g, unsigned keep)
{
    int n = 1;
    for (int d = 0; d < g->nd; d++)
        if (keep & (1u << d))
            n *= g->dims[d];
    return n;
}

int grid_sub_lowest(const xgrid *g, unsigned keep, int r)
{
    int c[MAXD];
    grid_coords(g, r, c);
    return grid_sub_lowest_at(g, keep, c);
}

int grid_sub_lowest_at(const xgrid *g, unsigned keep, const int *c)
{
    int r = 0;
    for (int d = 0; d < g->nd; d++)
        r = r * g->dims[d] + (keep & (1u << d) ? 0 : c[d]);
    return r;
}

/* k-th member (row-major over the kept dimensions) of r's sub-grid. */
int grid_sub_member(const xgrid *g, unsigned keep, int r, int k)
{
    int c[MAXD];
    grid_coords(g, r, c);
    for (int d = g->nd - 1; d >= 0; d--)
        if (keep & (1u << d)) {
            c[d] = k % g->dims[d];
            k /= g->dims[d];
        }
    return grid_rank(g, c);
}

int grid_sub_index(const xgrid *g, unsigned keep, int r)
{
    int c[MAXD], k = 0;
    grid_coords(g, r, c);
    for (int d = 0; d < g->nd; d++)
        if (keep & (1u << d))
            k = k * g->dims[d] + c[d];
    return k;
}

int grid_fixed_index(const xgrid *g, unsigned keep, int r)
{
    int c[MAXD], k = 0;
    grid_coords(g, r, c);
    for (int d = 0; d < g->nd; d++)
        if (!(keep & (1u << d)))
            k = k * g->dims[d] + c[d];
    return k;
}

/* ------------------------------------------------------------ communicators */

uint64_t cdesc_id(const cdesc *cd, const xgrid *g, int r)
{
    int c[MAXD];
    grid_coords(g, r, c);
    return cdesc_id_at(cd, g, r, c);
}

uint64_t cdesc_id_at(const cdesc *cd, const xgrid *g, int r, const int *c)
{
    switch (cd->kind) {
    case CD_WORLD: return MC_COMM_WORLD;
    case CD_SELF: return MC_COMM_SELF_BASE | (uint32_t)r;
    default: return ((uint64_t)cd->seq << 32) | (uint32_t)grid_sub_lowest_at(g, cd->keep, c);
    }
}

int cdesc_size(const cdesc *cd, const xgrid *g)
{
    switch (cd->kind) {
    case CD_WORLD: return g->P;
    case CD_SELF: return 1;
    default: return grid_sub_size(g, cd->keep);
    }
}

int cdesc_member(const cdesc *cd, const xgrid *g, int r, int k)
{
    switch (cd->kind) {
    case CD_WORLD: return k;
    case CD_SELF: return r;
    default: return grid_sub_member(g, cd->keep, r, k);
    }
}

int cdesc_rank(const cdesc *cd, const xgrid *g, int r)
{
    switch (cd->kind) {
    case CD_WORLD: return r;
    case CD_SELF: return 0;
    default: return grid_sub_index(g, cd->keep, r);
    }
}

/* ------------------------------------------------------------ describe */

static const char *const sc_keys[MC_SC_COUNT] = {"size.p2p", "size.reduce", "size.block",
                                                 "compute"};

void mc_extrap_rules_describe(const mc_extrap_rules *r, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = '\0';
#define ADD(...)                                                                             \
    do {                                                                                     \
        if (o < len)                                                                         \
            o += (size_t)snprintf(buf + o, len - o, "%s", o ? ", " : "");                   \
        if (o < len)                                                                         \
            o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                            \
    } while (0)
    for (int q = 0; q < r->nrepeat && q < 8; q++) {
        if (r->repeat[q].len)
            ADD("repeat %x/%u:%s", (unsigned)r->repeat[q].site, r->repeat[q].len,
                mc_extrap_law_name(r->repeat[q].law));
        else
            ADD("repeat %x:%s", (unsigned)r->repeat[q].site,
                mc_extrap_law_name(r->repeat[q].law));
    }
    if (r->replicate)
        ADD("replicate %d", r->rep);
    if (r->strong)
        ADD("scaling strong");
    for (int sc = 0; sc < MC_SC_COUNT; sc++)
        if (r->law[sc] != MC_LAW_AUTO)
            ADD("%s %s", sc_keys[sc], mc_extrap_law_name(r->law[sc]));
    if (r->dims[0] > 0) {
        char d[64];
        size_t k = 0;
        d[0] = '\0';
        for (int i = 0; i < MC_EXTRAP_MAXDIMS && r->dims[i] > 0 && k < sizeof d; i++)
            k += (size_t)snprintf(d + k, sizeof d - k, "%s%d", i ? "x" : "", r->dims[i]);
        ADD("grid %s", d);
    } else if (r->ndims) {
        ADD("ndims %d", r->ndims);
    }
    if (r->periods[0] >= 0)
        ADD("periodic (stated)");
    if (!r->infer)
        ADD("infer no");
    if (r->data_sizes)
        ADD("sizes data");
    if (r->blocks)
        ADD("blocks %s", r->blocks == 3 ? "ceil" : r->blocks == 2 ? "last" : "first");
#undef ADD
}
