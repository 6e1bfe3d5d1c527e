/* A network model prices the protocol leg the simulator names, not the
 * message size: the same byte count costs what its leg costs, whatever
 * network.eager_limit and network.rendezvous say (the models no longer read
 * them). Expected values are computed by hand from the parameters set here
 * (include/mpicast/net.h, src/net/loggp.c, src/net/table.c). */
#include "check.h"
#include "mpicast/net.h"

#define US 1000000 /* ps per microsecond */
#define NS 1000    /* ps per nanosecond */

static mc_platform *plat(const char *const *sets)
{
    mc_platform *p = mc_platform_create();
    mc_error err = {0};
    for (int i = 0; sets[i]; i++)
        CHECK(mc_platform_set(p, sets[i], &err) == MC_OK);
    return p;
}

static mc_net_cost price(mc_net *n, int src, int dst, int64_t bytes, mc_net_leg leg)
{
    mc_net_cost c;
    mc_net_transfer(n, 0, src, dst, bytes, leg, &c);
    return c;
}

static void check_same(mc_net_cost a, mc_net_cost b)
{
    CHECK_EQ_INT(a.send_cpu, b.send_cpu);
    CHECK_EQ_INT(a.send_nic, b.send_nic);
    CHECK_EQ_INT(a.arrive, b.arrive);
    CHECK_EQ_INT(a.recv_cpu, b.recv_cpu);
    CHECK_EQ_INT(a.recv_nic, b.recv_nic);
}

/* loggp: the data of a rendezvous (either protocol) costs the receiver
 * rendezvous_overhead more CPU than the eager leg of the same size, and
 * nothing else changes; the handshake's request and reply are plain empty
 * messages. The eager limit (10 B) is below the sizes used and the protocol
 * is loggops: a model reading them would add the overhead to every leg. */
static void loggp_by_leg(void)
{
    const char *sets[] = {"network.latency=1us", "network.overhead=100ns", "network.gap=150ns",
                          "network.bandwidth=1GB/s", "network.eager_limit=10",
                          "network.rendezvous_overhead=2us", "network.ranks_per_node=2",
                          "intranode.rendezvous_overhead=300ns", NULL};
    mc_platform *p = plat(sets);
    mc_error err = {0};
    mc_net *n = mc_net_create("loggp", p, 4, &err);
    CHECK(n != NULL);
    /* ranks 0 and 2 (two nodes), 1001 B: (s-1)G = 1 us */
    mc_net_cost e = price(n, 0, 2, 1001, MC_NET_LEG_EAGER);
    CHECK_EQ_INT(e.recv_cpu, 100 * NS + 1 * US); /* o + (s-1)G: no overhead */
    mc_net_cost r = price(n, 0, 2, 1001, MC_NET_LEG_RDV);
    mc_net_cost h = price(n, 0, 2, 1001, MC_NET_LEG_HS_DATA);
    CHECK_EQ_INT(r.recv_cpu - e.recv_cpu, 2 * US);
    CHECK_EQ_INT(h.recv_cpu - e.recv_cpu, 2 * US);
    r.recv_cpu = h.recv_cpu = e.recv_cpu;
    check_same(r, e);
    check_same(h, e);
    /* ranks 2 and 3 (one node): the intranode overhead */
    e = price(n, 3, 2, 1001, MC_NET_LEG_EAGER);
    r = price(n, 3, 2, 1001, MC_NET_LEG_RDV);
    CHECK_EQ_INT(r.recv_cpu - e.recv_cpu, 300 * NS);
    /* the handshake's empty request and reply: o on each CPU, g on each NIC */
    mc_net_cost e0 = price(n, 0, 2, 0, MC_NET_LEG_EAGER);
    CHECK_EQ_INT(e0.recv_cpu, 100 * NS);
    check_same(price(n, 0, 2, 0, MC_NET_LEG_HS_REQUEST), e0);
    check_same(price(n, 2, 0, 0, MC_NET_LEG_HS_REPLY), e0);
    mc_net_destroy(n);
    mc_platform_destroy(p);
}

/* table: R(s) = 1 us + 4 us * s / 1000 B, S(s) = 0.2 us + 0.4 us * s / 1000 B,
 * T1 = (R + S) / 2. At 500 B: R 3 us, S 0.4 us, T1 1.7 us; at 0 B: R 1 us,
 * S 0.2 us, T1 0.6 us. NICs busy T1(500) - T1(0) = 1.1 us on every leg.
 * The eager limit (100 B) is below 500 B and the protocol is loggops:
 * neither may turn the eager leg into a rendezvous or the other way. */
static void table_by_leg(void)
{
    const char *sets[] = {"network.model=table",      "network.eager_limit=100",
                          "table.pingpong.0=1us",     "table.pingpong.1000=5us",
                          "table.send.0=0.2us",       "table.send.1000=0.6us",
                          NULL};
    mc_platform *p = plat(sets);
    mc_error err = {0};
    mc_net *n = mc_net_create(NULL, p, 2, &err);
    if (!n)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(n != NULL);
    CHECK_EQ_STR(n->ops->name, "table");
    int64_t nic = 1100 * NS;
    /* eager: the Send call and the receiver's copy min(S, T1) = 0.4 us each,
     * the flight the rest of T1 */
    mc_net_cost e = price(n, 0, 1, 500, MC_NET_LEG_EAGER);
    CHECK_EQ_INT(e.send_cpu, 400 * NS);
    CHECK_EQ_INT(e.arrive, 1300 * NS);
    CHECK_EQ_INT(e.recv_cpu, 400 * NS);
    CHECK_EQ_INT(e.send_nic, nic);
    CHECK_EQ_INT(e.recv_nic, nic);
    /* rendezvous (loggops): the flight is min(S, T1) = 0.4 us, the receiver
     * the rest (1.3 us), the sender's CPU min(S(0), flight) = 0.2 us */
    mc_net_cost r = price(n, 0, 1, 500, MC_NET_LEG_RDV);
    CHECK_EQ_INT(r.send_cpu, 200 * NS);
    CHECK_EQ_INT(r.arrive, 400 * NS);
    CHECK_EQ_INT(r.recv_cpu, 1300 * NS);
    CHECK_EQ_INT(r.send_nic, nic);
    /* both split the same one-way time */
    CHECK_EQ_INT(r.arrive + r.recv_cpu, e.arrive + e.recv_cpu);
    /* the handshake's data: the request and the reply each flew a0 =
     * T1(0) - S(0) = 0.4 us, leaving D = T1 - 2 a0 = 0.9 us: flight
     * min(a0, D) = 0.4 us, receiver 0.5 us, sender's CPU S(0) = 0.2 us */
    mc_net_cost h = price(n, 0, 1, 500, MC_NET_LEG_HS_DATA);
    CHECK_EQ_INT(h.send_cpu, 200 * NS);
    CHECK_EQ_INT(h.arrive, 400 * NS);
    CHECK_EQ_INT(h.recv_cpu, 500 * NS);
    CHECK_EQ_INT(h.recv_nic, nic);
    /* the request and the reply are eager empty messages: flight a0 */
    mc_net_cost e0 = price(n, 0, 1, 0, MC_NET_LEG_EAGER);
    CHECK_EQ_INT(e0.arrive, 400 * NS);
    CHECK_EQ_INT(e0.send_cpu, 200 * NS);
    check_same(price(n, 0, 1, 0, MC_NET_LEG_HS_REQUEST), e0);
    check_same(price(n, 1, 0, 0, MC_NET_LEG_HS_REPLY), e0);
    /* and the whole handshake, request + reply + data, is the one-way time */
    CHECK_EQ_INT(2 * e0.arrive + h.arrive + h.recv_cpu, e.arrive + e.recv_cpu);
    mc_net_destroy(n);
    mc_platform_destroy(p);
}

int main(void)
{
    loggp_by_leg();
    table_by_leg();
    return 0;
}
