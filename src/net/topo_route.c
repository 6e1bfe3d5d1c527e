/* Topologies of the topo model: shapes, link numbering and routes.
 *
 *  crossbar   one non-blocking switch: no topology links (only the NICs)
 *  ring       torus of one dimension
 *  mesh/torus dimension-order routing (dimension 0 first); on a torus the
 *             shorter way round, the + direction on a tie
 *  hxb        hyper-crossbar (INSPIRE, CP-PACS/SR2201): a crossbar per line
 *             of the grid; a route crosses one crossbar per differing
 *             dimension (router -> crossbar -> router: 2 links), in order
 *  fattree    k-ary n-tree: up to the nearest common ancestor level, then
 *             down; deterministic up ports by destination digit (d-mod-k),
 *             or a per-message hash (ecmp); taper t keeps k/t leaf up ports
 *  switches   leaf switches of k nodes, each with one uplink to a top switch
 *  dragonfly  G groups of A routers with P nodes each, routers of a group all
 *             connected, one global link per pair of groups; minimal routing
 *             (local, global, local)
 */
#include <stdio.h>
#include <string.h>

#define MPICAST_NET_INTERNAL
#include "topo_impl.h"

void topo_dims_create(int64_t n, int D, int *dims)
{
    for (int i = 0; i < D; i++)
        dims[i] = 1;
    int64_t f[64];
    int nf = 0;
    for (int64_t p = 2; p * p <= n && nf < 63; p++)
        while (n % p == 0 && nf < 63) {
            f[nf++] = p;
            n /= p;
        }
    if (n > 1)
        f[nf++] = n;
    /* largest prime factors first, each to the currently smallest dim */
    for (int i = nf - 1; i >= 0; i--) {
        int s = 0;
        for (int j = 1; j < D; j++)
            if (dims[j] < dims[s])
                s = j;
        dims[s] *= (int)f[i];
    }
    for (int i = 0; i < D; i++) /* largest first */
        for (int j = i + 1; j < D; j++)
            if (dims[j] > dims[i]) {
                int x = dims[i];
                dims[i] = dims[j];
                dims[j] = x;
            }
}

static int parse_dims(const char *s, int *dims, int max)
{
    int D = 0;
    while (*s) {
        if (D == max)
            return -1;
        long v = 0;
        while (*s >= '0' && *s <= '9' && v < 1000000000L)
            v = v * 10 + (*s++ - '0');
        if (v <= 0)
            return -1;
        dims[D++] = (int)v;
        if (*s == 'x')
            s++;
        else if (*s)
            return -1;
    }
    return D;
}

static mc_err grid(topo_shape *t, const char *dims, int D, mc_error *err)
{
    if (dims && *dims) {
        int got = parse_dims(dims, t->dims, TOPO_MAXD);
        if (got != D)
            return mc_error_set(err, MC_ERR_PLATFORM,
                                "network.dims: '%s' does not have %d dimensions", dims, D);
    } else {
        topo_dims_create(t->nnodes, D, t->dims);
    }
    t->D = D;
    t->nrouters = 1;
    int sum = 0; /* longest route: k-1 hops per mesh dimension, k/2 per torus one */
    for (int i = 0; i < D; i++) {
        t->nrouters *= t->dims[i];
        sum += t->kind == T_TORUS ? t->dims[i] / 2 : t->dims[i] - 1;
        if (t->nrouters > (1 << 26))
            return mc_error_set(err, MC_ERR_PLATFORM, "network.dims: '%s' is too large", dims);
    }
    if (t->nrouters < t->nnodes)
        return mc_error_set(err, MC_ERR_PLATFORM,
                            "network.dims: %s has %lld routers for %d nodes", dims,
                            (long long)t->nrouters, t->nnodes);
    t->maxh = t->kind == T_HXB ? 2 * D : sum;
    t->nlinks = t->base + t->nrouters * D * 2;
    return MC_OK;
}

static mc_err fattree(topo_shape *t, int arity, double taper, mc_error *err)
{
    if (arity < 2)
        return mc_error_set(err, MC_ERR_PLATFORM, "network.arity: a fat tree needs k >= 2");
    t->k = arity;
    t->n = 1;
    int64_t cap = arity;
    while (cap < t->nnodes) {
        cap *= arity;
        t->n++;
    }
    t->S = cap / arity;
    int nup = (int)(arity / taper + 0.5);
    t->nup = nup < 1 ? 1 : nup > arity ? arity : nup;
    t->maxh = 2 * (t->n - 1);
    int64_t up = (int64_t)(t->n - 1) * t->S * t->k;
    if (up > (1 << 28))
        return mc_error_set(err, MC_ERR_PLATFORM, "fattree: too many links");
    t->nlinks = t->base + 2 * up;
    return MC_OK;
}

static mc_err dragonfly(topo_shape *t, const char *dims, mc_error *err)
{
    if (dims && *dims) {
        if (parse_dims(dims, t->dims, TOPO_MAXD) != 3)
            return mc_error_set(err, MC_ERR_PLATFORM,
                                "network.dims: a dragonfly takes GxAxP (groups, routers per "
                                "group, nodes per router), not '%s'", dims);
    } else {
        t->dims[2] = 4;
        t->dims[1] = 8;
        t->dims[0] = (t->nnodes + 31) / 32;
    }
    int64_t G = t->dims[0], A = t->dims[1], P = t->dims[2];
    if (G * A * P < t->nnodes)
        return mc_error_set(err, MC_ERR_PLATFORM, "network.dims: %s holds %lld nodes, not %d",
                            dims, (long long)(G * A * P), t->nnodes);
    if (G * A * A + G * G > (1 << 28))
        return mc_error_set(err, MC_ERR_PLATFORM, "dragonfly: too many links");
    t->D = 3;
    t->maxh = 3;
    t->nlinks = t->base + G * A * A + G * G;
    return MC_OK;
}

mc_err topo_shape_init(topo_shape *t, const char *name, const char *dims, int nnodes, int arity,
                       double taper, int ecmp, mc_error *err)
{
    memset(t, 0, sizeof *t);
    t->nnodes = nnodes;
    t->base = 3 * nnodes;
    t->ecmp = ecmp;
    t->nlinks = t->base;
    if (!name || !*name || strcmp(name, "crossbar") == 0) {
        t->kind = T_CROSSBAR;
        return MC_OK;
    }
    if (strcmp(name, "ring") == 0) {
        t->kind = T_TORUS;
        return grid(t, dims, 1, err);
    }
    if (!strcmp(name, "mesh2d") || !strcmp(name, "mesh3d") || !strcmp(name, "torus2d") ||
        !strcmp(name, "torus3d")) {
        t->kind = name[0] == 'm' ? T_MESH : T_TORUS;
        return grid(t, dims, name[strlen(name) - 2] - '0', err);
    }
    if (strcmp(name, "hxb") == 0) {
        t->kind = T_HXB;
        int D = dims && *dims ? parse_dims(dims, t->dims, TOPO_MAXD) : 2;
        if (D <= 0)
            return mc_error_set(err, MC_ERR_PLATFORM, "network.dims: bad value '%s'", dims);
        return grid(t, dims, D, err);
    }
    if (strcmp(name, "fattree") == 0) {
        t->kind = T_FATTREE;
        return fattree(t, arity, taper, err);
    }
    if (strcmp(name, "switches") == 0) {
        t->kind = T_SWITCHES;
        t->k = arity;
        t->n = (nnodes + arity - 1) / arity;
        t->maxh = 2;
        t->nlinks = t->base + 2 * (int64_t)t->n;
        return MC_OK;
    }
    if (strcmp(name, "dragonfly") == 0) {
        t->kind = T_DRAGONFLY;
        return dragonfly(t, dims, err);
    }
    return mc_error_set(err, MC_ERR_PLATFORM, "network.topology: '%s' is not a topology", name);
}

/* ------------------------------------------------------------ routes */

static int route_grid(const topo_shape *t, int s, int d, int32_t *path)
{
    int h = 0;
    int64_t cur = s, stride = 1;
    for (int dim = 0; dim < t->D; dim++) {
        int k = t->dims[dim];
        int c = (int)(cur / stride % k), g = (int)(d / stride % k);
        if (t->kind == T_HXB) {
            if (c != g) {
                path[h++] = t->base + (int32_t)((cur * t->D + dim) * 2);
                cur += (int64_t)(g - c) * stride;
                path[h++] = t->base + (int32_t)((cur * t->D + dim) * 2 + 1);
            }
            stride *= k;
            continue;
        }
        int dir, steps;
        if (t->kind == T_MESH) {
            dir = g > c ? 0 : 1;
            steps = g > c ? g - c : c - g;
        } else {
            int f = ((g - c) % k + k) % k;
            dir = f <= k - f ? 0 : 1;
            steps = dir == 0 ? f : k - f;
        }
        for (int i = 0; i < steps; i++) {
            path[h++] = t->base + (int32_t)((cur * t->D + dim) * 2 + dir);
            int nc = dir == 0 ? (c + 1) % k : (c + k - 1) % k;
            cur += (int64_t)(nc - c) * stride;
            c = nc;
        }
        stride *= k;
    }
    return h;
}

static int digit(int64_t x, int i, int k)
{
    for (; i > 0; i--)
        x /= k;
    return (int)(x % k);
}

static int64_t set_digit(int64_t w, int i, int k, int v)
{
    int64_t p = 1;
    for (int j = 0; j < i; j++)
        p *= k;
    return w + (v - (w / p % k)) * p;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int route_fattree(const topo_shape *t, int s, int d, uint64_t salt, int32_t *path)
{
    int k = t->k, m = 0;
    for (int i = 1; i < t->n; i++)
        if (digit(s, i, k) != digit(d, i, k))
            m = i;
    int64_t U = (int64_t)(t->n - 1) * t->S * k;
    int64_t w = s / k;
    int h = 0;
    for (int l = 0; l < m; l++) {
        int ports = l == 0 ? t->nup : k;
        int j = t->ecmp ? (int)(mix(salt + (uint64_t)l * 0x9e3779b97f4a7c15ull) % (uint64_t)ports)
                        : digit(d, l, k) % ports;
        path[h++] = t->base + (int32_t)(((int64_t)l * t->S + w) * k + j);
        w = set_digit(w, l, k, j);
    }
    for (int l = m; l > 0; l--) {
        int j = digit(w, l - 1, k);
        int64_t below = set_digit(w, l - 1, k, digit(d, l, k));
        path[h++] = t->base + (int32_t)(U + ((int64_t)(l - 1) * t->S + below) * k + j);
        w = below;
    }
    return h;
}

static int route_dragonfly(const topo_shape *t, int s, int d, int32_t *path)
{
    int G = t->dims[0], A = t->dims[1], P = t->dims[2];
    int rs = s / P, rd = d / P;
    if (rs == rd)
        return 0;
    int gs = rs / A, gd = rd / A, h = 0;
    int32_t glob = t->base + (int32_t)((int64_t)G * A * A);
#define LOCAL(g, a, b) (t->base + (int32_t)(((int64_t)(g) * A + (a)) * A + (b)))
    if (gs == gd) {
        path[h++] = LOCAL(gs, rs % A, rd % A);
        return h;
    }
    int a = (gd < gs ? gd : gd - 1) % A; /* router of gs holding the link to gd */
    int b = (gs < gd ? gs : gs - 1) % A; /* router of gd holding the link to gs */
    if (rs % A != a)
        path[h++] = LOCAL(gs, rs % A, a);
    path[h++] = glob + (int32_t)((int64_t)gs * G + gd);
    if (b != rd % A)
        path[h++] = LOCAL(gd, b, rd % A);
#undef LOCAL
    return h;
}

int topo_route(const topo_shape *t, int s, int d, uint64_t salt, int32_t *path)
{
    switch (t->kind) {
    case T_TORUS: case T_MESH: case T_HXB:
        return route_grid(t, s, d, path);
    case T_FATTREE:
        return route_fattree(t, s, d, salt, path);
    case T_SWITCHES:
        if (s / t->k == d / t->k)
            return 0;
        path[0] = t->base + s / t->k;
        path[1] = t->base + t->n + d / t->k;
        return 2;
    case T_DRAGONFLY:
        return route_dragonfly(t, s, d, path);
    default:
        return 0;
    }
}

int topo_is_uplink(const topo_shape *t, int32_t id)
{
    return t->kind == T_SWITCHES && id >= t->base;
}

/* ------------------------------------------------------------ names */

static void coords(const topo_shape *t, int64_t r, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < t->D && o < len; i++) {
        o += (size_t)snprintf(buf + o, len - o, i ? ",%lld" : "%lld", (long long)(r % t->dims[i]));
        r /= t->dims[i];
    }
    if (o < len)
        snprintf(buf + o, len - o, ")");
}

void topo_link_name(const topo_shape *t, int32_t id, char *buf, size_t len)
{
    int N = t->nnodes;
    if (id < N) {
        snprintf(buf, len, "node%d>", id);
        return;
    }
    if (id < 2 * N) {
        snprintf(buf, len, ">node%d", id - N);
        return;
    }
    if (id < 3 * N) {
        snprintf(buf, len, "node%d.shm", id - 2 * N);
        return;
    }
    int64_t x = id - t->base;
    char c[40];
    switch (t->kind) {
    case T_TORUS: case T_MESH:
        coords(t, x / 2 / t->D, c, sizeof c);
        snprintf(buf, len, "r%s%c%c", c, x % 2 ? '-' : '+', "xyzuvwst"[x / 2 % t->D]);
        return;
    case T_HXB:
        coords(t, x / 2 / t->D, c, sizeof c);
        if (x % 2)
            snprintf(buf, len, "xb%c>r%s", "xyzuvwst"[x / 2 % t->D], c);
        else
            snprintf(buf, len, "r%s>xb%c", c, "xyzuvwst"[x / 2 % t->D]);
        return;
    case T_FATTREE: {
        int64_t U = (int64_t)(t->n - 1) * t->S * t->k, u = x % U;
        int64_t l = u / t->k / t->S, w = u / t->k % t->S;
        snprintf(buf, len, "%s%lld.%lld.port%lld", x < U ? "up:L" : "down:L", (long long)l,
                 (long long)w, (long long)(u % t->k));
        return;
    }
    case T_SWITCHES:
        snprintf(buf, len, x < t->n ? "leaf%lld^top" : "top>leaf%lld",
                 (long long)(x < t->n ? x : x - t->n));
        return;
    case T_DRAGONFLY: {
        int64_t G = t->dims[0], A = t->dims[1], nl = G * A * A;
        if (x < nl)
            snprintf(buf, len, "g%lld.r%lld>r%lld", (long long)(x / (A * A)),
                     (long long)(x / A % A), (long long)(x % A));
        else
            snprintf(buf, len, "g%lld>g%lld", (long long)((x - nl) / G), (long long)((x - nl) % G));
        return;
    }
    default:
        snprintf(buf, len, "link%d", id);
    }
}
