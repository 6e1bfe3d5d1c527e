/* The loggp model prices transfers exactly as DESIGN.md's LogGOPS rules:
 * send CPU o, send NIC g+(s-1)G, arrival o+L, receive CPU o+(s-1)G, receive
 * NIC g+(s-1)G; intranode.* between ranks of one node; "free" prices 0. */
#include "check.h"
#include "mpicast/net.h"

static mc_platform *plat(const char *const *sets)
{
    mc_platform *p = mc_platform_create();
    mc_error err = {0};
    for (int i = 0; sets[i]; i++)
        CHECK(mc_platform_set(p, sets[i], &err) == MC_OK);
    return p;
}

int main(void)
{
    const char *sets[] = {"network.latency=1us", "network.overhead=100ns", "network.gap=150ns",
                          "network.bandwidth=1GB/s", "network.ranks_per_node=2",
                          "intranode.latency=100ns", "intranode.overhead=50ns",
                          "intranode.gap=0", "intranode.bandwidth=10GB/s", NULL};
    mc_platform *p = plat(sets);
    mc_error err = {0};
    mc_net *n = mc_net_create(NULL, p, 4, &err);
    CHECK(n != NULL);
    CHECK_EQ_STR(n->ops->name, "loggp");
    mc_net_cost c;
    /* inter-node: ranks 0 and 2 (nodes 0 and 1), 101 bytes: (s-1)G = 100 ns */
    mc_net_transfer(n, 0, 0, 2, 101, MC_NET_LEG_EAGER, &c);
    CHECK_EQ_INT(c.send_cpu, 100000);
    CHECK_EQ_INT(c.send_nic, 150000 + 100000);
    CHECK_EQ_INT(c.arrive, 1100000);
    CHECK_EQ_INT(c.recv_cpu, 200000);
    CHECK_EQ_INT(c.recv_nic, 250000);
    /* intra-node: ranks 2 and 3, 501 bytes at 10 GB/s: (s-1)G = 50 ns */
    mc_net_transfer(n, 0, 3, 2, 501, MC_NET_LEG_EAGER, &c);
    CHECK_EQ_INT(c.send_cpu, 50000);
    CHECK_EQ_INT(c.send_nic, 50000);
    CHECK_EQ_INT(c.arrive, 150000);
    CHECK_EQ_INT(c.recv_cpu, 100000);
    /* empty and 1-byte messages have no per-byte part */
    mc_net_transfer(n, 0, 0, 2, 0, MC_NET_LEG_EAGER, &c);
    CHECK_EQ_INT(c.recv_cpu, 100000);
    mc_net_transfer(n, 0, 0, 2, 1, MC_NET_LEG_EAGER, &c);
    CHECK_EQ_INT(c.send_nic, 150000);
    /* G that is not a whole number of ps per byte: rounded once per transfer */
    CHECK(mc_platform_set(p, "network.bandwidth=3GB/s", &err) == MC_OK);
    mc_net_destroy(n);
    n = mc_net_create("loggp", p, 4, &err);
    /* 3e6 bytes at 3 GB/s = 1 ms exactly (a rendezvous message: no overhead set) */
    mc_net_transfer(n, 0, 0, 2, 3000001, MC_NET_LEG_RDV, &c);
    CHECK_EQ_INT(c.recv_cpu - 100000, 1000000000);
    mc_net_destroy(n);

    n = mc_net_create("free", p, 4, &err);
    CHECK(n != NULL);
    mc_net_transfer(n, 0, 0, 2, 1 << 20, MC_NET_LEG_RDV, &c);
    CHECK_EQ_INT(c.send_cpu + c.send_nic + c.arrive + c.recv_cpu + c.recv_nic, 0);
    mc_net_destroy(n);

    CHECK(mc_net_create("nosuch", p, 4, &err) == NULL);
    CHECK(err.code == MC_ERR_PLATFORM);
    CHECK(strstr(err.msg, "loggp") != NULL);
    CHECK(mc_net_find("loggp") == mc_net_at(0));
    mc_platform_destroy(p);
    return 0;
}
