/* The table network model: prices transfers from measured ping-pong times
 * (the MPIETE communication base data) instead of LogGP parameters, and
 * prices collectives from measured collective tables when the platform has
 * one for that operation and communicator size (docs/platform.md, [table]).
 *
 * Inputs, interpolated piecewise-linearly in the message size and
 * extrapolated linearly past the largest size with the last segment's slope:
 *   R(s)  table "pingpong": time of MPI_Recv in the ping-pong loop (T_comm)
 *   S(s)  table "send": time of MPI_Send in the same loop; without it
 *         S(s) = network.overhead
 * The loop alternates Send and Recv, so one round trip is S + R and the
 * one-way time is T1(s) = (R(s) + S(s)) / 2. The transfer is priced so that
 * the simulator's round trip (2 × (arrive + recv_cpu), src/sim/engine.c) is
 * exactly the measured one and the Send call lasts S(s). The simulator
 * names the leg (mc_net_leg); the measured one-way time is split by it:
 *   eager, and the handshake's empty request and reply:
 *               send_cpu = recv_cpu = min(S, T1), arrive = T1 - recv_cpu;
 *   rendezvous without handshake: the simulator completes the send when the
 *               receiver starts processing it, so arrive = min(S, T1),
 *               recv_cpu = T1 - arrive, send_cpu = min(S(0), arrive);
 *   the handshake's data: the empty request and reply (each priced as the
 *               eager empty message: it arrives a0 = T1(0) - min(S(0), T1(0))
 *               after its issue) came before it, so the data leg gets what
 *               is left of the one-way time, D = T1(s) - 2 a0:
 *               send_cpu = min(S(0), T1(0)), arrive = min(a0, D),
 *               recv_cpu = D - arrive (the receiver's copy of the data);
 *   both NICs are busy for T1(s) - T1(0) (the size-dependent part), so
 *   back-to-back messages stream at the measured bandwidth.
 * One table serves every pair of ranks (the bench measures one pair).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mpicast/net.h"
#include "net_models.h"

/* A curve: sizes (B) ascending, times (ps, as doubles: rounded once per use). */
typedef struct curve {
    int n;
    double *size, *ps;
} curve;

typedef struct coll_table {
    char op[32]; /* "allreduce" */
    int ranks;
    curve c;
} coll_table;

typedef struct table_net {
    mc_net base;
    curve recv, send; /* send.n == 0: constant overhead */
    double overhead_ps;
    coll_table *colls;
    int ncolls;
} table_net;

double mc_net_table_interp(const double *size, const double *t, int n, double s)
{
    if (n <= 0)
        return 0.0;
    if (n == 1)
        return t[0];
    int i = 0; /* segment [i, i+1] used: the first, the one holding s, or the last */
    if (s >= size[n - 1]) {
        i = n - 2;
    } else if (s > size[0]) {
        int lo = 0, hi = n - 1; /* size[lo] < s <= size[hi] */
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (size[mid] < s)
                lo = mid;
            else
                hi = mid;
        }
        i = lo;
    }
    double ds = size[i + 1] - size[i];
    if (ds <= 0)
        return t[i + 1];
    double v = t[i] + (t[i + 1] - t[i]) * ((s - size[i]) / ds);
    return v > 0 ? v : 0.0;
}

static double curve_at(const curve *c, double s)
{
    return mc_net_table_interp(c->size, c->ps, c->n, s);
}

static void curve_free(curve *c)
{
    free(c->size);
    free(c->ps);
    c->size = c->ps = NULL;
    c->n = 0;
}

/* Loads table `name` into c (times to ps); 0 points is not an error here. */
static mc_err load_curve(const mc_platform *p, const char *name, curve *c, mc_error *err)
{
    double *s, *t;
    int n = mc_platform_table(p, name, &s, &t);
    if (n < 0)
        return mc_error_set(err, MC_ERR_NOMEM, "table: out of memory");
    for (int i = 0; i < n; i++)
        t[i] *= MC_PS_PER_S;
    c->n = n;
    c->size = s;
    c->ps = t;
    return MC_OK;
}

/* Splits a collective table name "allreduce.4" into op and ranks. */
static int split_coll_name(const char *name, char *op, size_t cap, int *ranks)
{
    const char *dot = strchr(name, '.');
    if (!dot || (size_t)(dot - name) >= cap)
        return 0;
    memcpy(op, name, (size_t)(dot - name));
    op[dot - name] = '\0';
    char *end;
    long r = strtol(dot + 1, &end, 10);
    if (*end != '\0' || r < 2 || r > 1000000000L)
        return 0;
    *ranks = (int)r;
    return 1;
}

static int have_coll(const table_net *n, const char *op, int ranks)
{
    for (int i = 0; i < n->ncolls; i++)
        if (n->colls[i].ranks == ranks && strcmp(n->colls[i].op, op) == 0)
            return 1;
    return 0;
}

/* Every "table.<op>.<ranks>.<size>" entry's table, loaded once. */
static mc_err load_colls(const mc_platform *p, table_net *n, mc_error *err)
{
    const char *key;
    for (int i = 0; (key = mc_platform_entry_at(p, i, NULL)) != NULL; i++) {
        if (strncasecmp(key, "table.", 6) != 0)
            continue;
        const char *rest = key + 6;
        if (strncasecmp(rest, "pingpong.", 9) == 0 || strncasecmp(rest, "send.", 5) == 0)
            continue;
        /* the table name ends before the size: after "<op>.<ranks>" */
        const char *d1 = strchr(rest, '.');
        const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        if (!d2 || (size_t)(d2 - rest) >= 64)
            continue; /* the platform module validated the key */
        char name[64], op[32];
        memcpy(name, rest, (size_t)(d2 - rest));
        name[d2 - rest] = '\0';
        for (char *c = name; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        int ranks;
        if (!split_coll_name(name, op, sizeof op, &ranks) || have_coll(n, op, ranks))
            continue;
        coll_table *a = realloc(n->colls, (size_t)(n->ncolls + 1) * sizeof *a);
        if (!a)
            return mc_error_set(err, MC_ERR_NOMEM, "table: out of memory");
        n->colls = a;
        coll_table *ct = &a[n->ncolls];
        memset(ct, 0, sizeof *ct);
        snprintf(ct->op, sizeof ct->op, "%s", op);
        ct->ranks = ranks;
        n->ncolls++;
        mc_err rc = load_curve(p, name, &ct->c, err);
        if (rc != MC_OK)
            return rc;
    }
    return MC_OK;
}

static void table_destroy(mc_net *base)
{
    table_net *n = (table_net *)base;
    if (!n)
        return;
    curve_free(&n->recv);
    curve_free(&n->send);
    for (int i = 0; i < n->ncolls; i++)
        curve_free(&n->colls[i].c);
    free(n->colls);
    free(n);
}

static mc_net *table_create(const mc_platform *p, int nranks, mc_error *err)
{
    (void)nranks;
    table_net *n = calloc(1, sizeof *n);
    if (!n) {
        mc_error_set(err, MC_ERR_NOMEM, "table: out of memory");
        return NULL;
    }
    n->base.ops = &mc_net_table_ops;
    double o = p ? mc_platform_num(p, "network.overhead") : NAN;
    n->overhead_ps = isnan(o) ? 0.0 : o * MC_PS_PER_S;
    if (load_curve(p, "pingpong", &n->recv, err) != MC_OK ||
        load_curve(p, "send", &n->send, err) != MC_OK || load_colls(p, n, err) != MC_OK) {
        table_destroy(&n->base);
        return NULL;
    }
    if (n->recv.n == 0) {
        table_destroy(&n->base);
        mc_error_set(err, MC_ERR_PLATFORM,
                     "network.model: the table model needs measured ping-pong times "
                     "([table] pingpong.SIZE = TIME, as written by mpicast-bench)");
        return NULL;
    }
    return &n->base;
}

static double send_at(const table_net *n, double s)
{
    return n->send.n > 0 ? curve_at(&n->send, s) : n->overhead_ps;
}

/* T1(s) = (R(s) + S(s)) / 2, the one-way time of the ping-pong. */
static double one_way(const table_net *n, double s)
{
    return (curve_at(&n->recv, s) + send_at(n, s)) / 2.0;
}

static int64_t ps_round(double v)
{
    /* absurd sizes (corrupt traces) extrapolate far: cap at ~1126 s */
    if (!(v > 0))
        return 0;
    return v < 1125899906842624.0 ? llround(v) : 1125899906842624;
}

/* The eager price: the Send call and the receiver's copy each last
 * min(S, T1), the flight the rest of the one-way time. */
static void price_eager(int64_t t1, int64_t snd, mc_net_cost *out)
{
    out->send_cpu = snd;
    out->recv_cpu = snd;
    out->arrive = t1 - snd;
}

/* Rendezvous without handshake: the send completes at the match, so the
 * flight is the Send call's length and the receiver's copy the rest. */
static void price_rdv(const table_net *n, int64_t t1, int64_t snd, mc_net_cost *out)
{
    int64_t o0 = ps_round(send_at(n, 0.0));
    out->arrive = snd;
    out->recv_cpu = t1 - snd;
    out->send_cpu = o0 < snd ? o0 : snd;
}

/* The handshake's data: what the request's and the reply's flights leave
 * of the one-way time. */
static void price_hs_data(const table_net *n, int64_t t1, mc_net_cost *out)
{
    int64_t t10 = ps_round(one_way(n, 0.0));
    int64_t snd0 = ps_round(send_at(n, 0.0));
    if (snd0 > t10)
        snd0 = t10;
    int64_t a0 = t10 - snd0; /* the request's and the reply's flight */
    int64_t d = t1 - 2 * a0 > 0 ? t1 - 2 * a0 : 0;
    out->send_cpu = snd0;
    out->arrive = a0 < d ? a0 : d;
    out->recv_cpu = d - out->arrive;
}

static void table_transfer(mc_net *base, int64_t t_ps, int src, int dst, int64_t bytes,
                           mc_net_leg leg, mc_net_cost *out)
{
    (void)t_ps;
    (void)src;
    (void)dst;
    const table_net *n = (const table_net *)base;
    double s = bytes > 0 ? (double)bytes : 0.0;
    int64_t t1 = ps_round(one_way(n, s));
    int64_t snd = ps_round(send_at(n, s));
    if (snd > t1)
        snd = t1;
    int64_t nic = ps_round(one_way(n, s) - one_way(n, 0.0));
    switch (leg) {
    case MC_NET_LEG_RDV:
        price_rdv(n, t1, snd, out);
        break;
    case MC_NET_LEG_HS_DATA:
        price_hs_data(n, t1, out);
        break;
    case MC_NET_LEG_EAGER:
    case MC_NET_LEG_HS_REQUEST:
    case MC_NET_LEG_HS_REPLY:
    default:
        price_eager(t1, snd, out);
        break;
    }
    out->send_nic = nic;
    out->recv_nic = nic;
}

int64_t mc_net_table_coll_time(mc_net *base, const char *op, int comm_size, int64_t bytes)
{
    const table_net *n = (const table_net *)base;
    for (int i = 0; i < n->ncolls; i++) {
        const coll_table *c = &n->colls[i];
        if (c->ranks == comm_size && strcasecmp(c->op, op) == 0)
            return ps_round(curve_at(&c->c, bytes > 0 ? (double)bytes : 0.0));
    }
    return -1;
}

const mc_net_ops mc_net_table_ops = {
    .name = "table",
    .summary = "measured ping-pong times (mpicast-bench), interpolated; measured collective times",
    .create = table_create,
    .transfer = table_transfer,
    .destroy = table_destroy,
};
