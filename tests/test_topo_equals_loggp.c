/* With contention made impossible (infinite link and NIC bandwidth), topo on
 * a crossbar gives loggp's times with the same latency, overhead and gap, to
 * 1 ns, on a replay mixing point-to-point, nonblocking, rendezvous and
 * collective traffic with compute. */
#include <stdlib.h>

#include "check.h"
#include "mem_source.h"

#define P 8

static mem_source *workload(void)
{
    mem_source *m = mem_source_create(P);
    for (int it = 0; it < 3; it++) {
        for (int r = 0; r < P; r++) {
            ms_compute(m, r, 1000 + 137 * r + 50 * it);
            ms_p2p(m, r, MC_OP_IRECV, (r + P - 1) % P, it, 4096, 1);
            ms_p2p(m, r, MC_OP_ISEND, (r + 1) % P, it, 4096, 2);
            ms_wait(m, r, MC_OP_WAITALL, 2, 1u, 2u);
            /* rendezvous-sized exchange with the opposite rank */
            int peer = (r + P / 2) % P;
            if (r < P / 2) {
                ms_p2p(m, r, MC_OP_SEND, peer, 9, 200000, 0);
                ms_p2p(m, r, MC_OP_RECV, peer, 9, 200000, 0);
            } else {
                ms_p2p(m, r, MC_OP_RECV, peer, 9, 200000, 0);
                ms_p2p(m, r, MC_OP_SEND, peer, 9, 200000, 0);
            }
            mc_event *e = ms_add(m, r, MC_OP_ALLREDUCE, 0);
            e->peer2 = P;
            e->bytes = e->bytes2 = 8 * (it + 1);
            e = ms_add(m, r, MC_OP_ALLTOALL, 0);
            e->peer2 = P;
            e->bytes = e->bytes2 = 1024;
            ms_add(m, r, MC_OP_BARRIER, 0)->peer2 = P;
        }
    }
    return m;
}

int main(void)
{
    const char *common[] = {"network.latency=1.3us", "network.overhead=270ns", "network.gap=90ns",
                            "network.bandwidth=inf", "network.hop_latency=0",
                            "network.ranks_per_node=2", "intranode.bandwidth=inf",
                            "intranode.latency=300ns", "intranode.overhead=110ns", NULL};
    const char *loggp[16], *topo[16];
    int n = 0;
    for (; common[n]; n++)
        loggp[n] = topo[n] = common[n];
    loggp[n] = "network.model=loggp";
    topo[n] = "network.model=topo";
    topo[n + 1] = "network.topology=crossbar";
    loggp[n + 1] = NULL;
    topo[n + 2] = NULL;

    mem_source *m = workload();
    mc_sim_result a, b;
    mc_error err = {0};
    CHECK_EQ_INT(mem_run(m, loggp, NULL, &a, &err), MC_OK);
    CHECK_EQ_INT(mem_run(m, topo, NULL, &b, &err), MC_OK);
    CHECK(a.end > 20 * 1000000LL); /* the workload is not trivial: > 20 us */
    CHECK_EQ_INT(a.messages, b.messages);
    for (int r = 0; r < P; r++) {
        long long d = llabs((long long)(a.ranks[r].end - b.ranks[r].end));
        if (d > 1000)
            fprintf(stderr, "rank %d: loggp %lld ps, topo %lld ps\n", r,
                    (long long)a.ranks[r].end, (long long)b.ranks[r].end);
        CHECK(d <= 1000);
        CHECK(llabs((long long)(a.ranks[r].comm - b.ranks[r].comm)) <= 1000);
    }
    CHECK(llabs((long long)(a.end - b.end)) <= 1000);
    mc_sim_result_free(&a);
    mc_sim_result_free(&b);
    mem_source_destroy(m);
    return 0;
}
