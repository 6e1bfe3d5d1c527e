/* The loggp network model: LogGOPS as simulated by LogGOPSim (Hoefler,
 * Schneider, Lumsdaine, HPDC 2010), with O = 0. The eager limit (LogGOPS's
 * S) and the rendezvous protocol are the simulator's: it names the leg of
 * each transfer (mc_net_leg) and this model prices that leg.
 *
 * For a message of s bytes started at t (sender CPU and NIC free):
 *   sender CPU busy until  t + o
 *   sender NIC busy until  t + g + (s-1)G
 *   arrival at receiver    t + o + L
 *   receiver, from the moment its CPU and receive NIC are free: CPU busy for
 *   o + (s-1)G (LogGOPSim: o + max((s-1)O, (s-1)G)), NIC busy for g + (s-1)G.
 * (s-1) is taken as 0 for empty messages (LogGOPSim never sends those).
 * The data of a rendezvous (MC_NET_LEG_RDV, MC_NET_LEG_HS_DATA) costs the
 * receiver network.rendezvous_overhead (intranode.rendezvous_overhead) more
 * CPU: the fixed cost of the protocol beyond its messages (buffer
 * registration, the single-copy setup of a shared-memory transport), 0 by
 * default so that the LogGOPSim times stay exact. The handshake's request
 * and reply are empty messages priced by the same formula.
 * Ranks on the same node (network.ranks_per_node > 1, block mapping: rank r
 * on node r / ranks_per_node) use the intranode.* values instead.
 *
 * "free" is the same model with every parameter zero and infinite bandwidth:
 * the reference replay of the EXCIT/INSPIRE breakdown.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mpicast/net.h"
#include "net_models.h"

typedef struct loggp_params {
    int64_t L, o, g; /* ps */
    double G;        /* ps per byte (0 for infinite bandwidth) */
    int64_t rdv;     /* ps: rendezvous_overhead */
} loggp_params;

typedef struct loggp_net {
    mc_net base;
    loggp_params inter, intra;
    int ranks_per_node;
} loggp_net;

static double ps_per_byte(double bandwidth)
{
    if (isnan(bandwidth) || isinf(bandwidth) || bandwidth <= 0)
        return 0.0;
    return MC_PS_PER_S / bandwidth;
}

static double num_or(const mc_platform *p, const char *key, double fallback)
{
    double v = p ? mc_platform_num(p, key) : NAN;
    return isnan(v) ? fallback : v;
}

static void read_params(const mc_platform *p, const char *section, const loggp_params *dflt,
                        loggp_params *out)
{
    char key[64];
    snprintf(key, sizeof key, "%s.latency", section);
    double L = num_or(p, key, NAN);
    snprintf(key, sizeof key, "%s.overhead", section);
    double o = num_or(p, key, NAN);
    snprintf(key, sizeof key, "%s.gap", section);
    double g = num_or(p, key, NAN);
    snprintf(key, sizeof key, "%s.bandwidth", section);
    double bw = num_or(p, key, NAN);
    out->L = isnan(L) && dflt ? dflt->L : mc_net_s_to_ps(L);
    out->o = isnan(o) && dflt ? dflt->o : mc_net_s_to_ps(o);
    out->g = isnan(g) && dflt ? dflt->g : mc_net_s_to_ps(g);
    out->G = isnan(bw) && dflt ? dflt->G : ps_per_byte(bw);
    snprintf(key, sizeof key, "%s.rendezvous_overhead", section);
    double x = num_or(p, key, 0);
    out->rdv = mc_net_s_to_ps(x > 0 ? x : 0);
}

static mc_net *loggp_create(const mc_platform *p, int nranks, mc_error *err)
{
    (void)nranks;
    loggp_net *n = calloc(1, sizeof *n);
    if (!n) {
        mc_error_set(err, MC_ERR_NOMEM, "loggp: out of memory");
        return NULL;
    }
    n->base.ops = &mc_net_loggp_ops;
    read_params(p, "network", NULL, &n->inter);
    read_params(p, "intranode", &n->inter, &n->intra);
    double rpn = num_or(p, "network.ranks_per_node", 1);
    n->ranks_per_node = rpn >= 1 && rpn < 1e9 ? (int)rpn : 1;
    return &n->base;
}

static mc_net *free_create(const mc_platform *p, int nranks, mc_error *err)
{
    (void)p;
    (void)nranks;
    loggp_net *n = calloc(1, sizeof *n);
    if (!n) {
        mc_error_set(err, MC_ERR_NOMEM, "free: out of memory");
        return NULL;
    }
    n->base.ops = &mc_net_free_ops;
    n->ranks_per_node = 1;
    return &n->base;
}

static void loggp_transfer(mc_net *base, int64_t t_ps, int src, int dst, int64_t bytes,
                           mc_net_leg leg, mc_net_cost *out)
{
    (void)t_ps;
    const loggp_net *n = (const loggp_net *)base;
    const loggp_params *q = &n->inter;
    if (n->ranks_per_node > 1 && src / n->ranks_per_node == dst / n->ranks_per_node)
        q = &n->intra;
    double per_byte = bytes > 1 ? (double)(bytes - 1) * q->G : 0.0;
    /* absurd sizes (corrupt traces) are capped at ~1126 s per message so that
     * simulated times stay far from int64 overflow */
    int64_t sG = per_byte < 1125899906842624.0 ? llround(per_byte) : 1125899906842624;
    out->send_cpu = q->o;
    out->send_nic = q->g + sG;
    out->arrive = q->o + q->L;
    int rdv_data = leg == MC_NET_LEG_RDV || leg == MC_NET_LEG_HS_DATA;
    out->recv_cpu = q->o + sG + (rdv_data ? q->rdv : 0);
    out->recv_nic = q->g + sG;
}

static void loggp_destroy(mc_net *n)
{
    free(n);
}

const mc_net_ops mc_net_loggp_ops = {
    .name = "loggp",
    .summary = "LogGOPS (LogGOPSim semantics): latency, overhead, gap, bandwidth; intranode variant",
    .create = loggp_create,
    .transfer = loggp_transfer,
    .destroy = loggp_destroy,
};

const mc_net_ops mc_net_free_ops = {
    .name = "free",
    .summary = "free network: zero latency, overhead and gap, infinite bandwidth",
    .create = free_create,
    .transfer = loggp_transfer,
    .destroy = loggp_destroy,
    .caps = MC_NET_CAP_ZERO_COST,
};
