/* network.sharing=bottleneck (issue 5, session 5): re-rating only the flows
 * that a start or an end bottlenecks must keep the allocation feasible and
 * close to exact max-min fairness. On the bench_topo replays (a 3-D halo
 * and a pairwise all-to-all, over a torus, a tapered fat tree and a
 * crossbar with finite NICs) its predicted time is within 3 % of
 * network.sharing=exact, it repeats itself to the picosecond, and on x86-64
 * the two main replays are pinned to the bit like test_topo_bitexact's, so
 * that a change of the mode's selection shows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topo_case.h"
#include "mpicast/net.h"
#include "mpicast/sim.h"

static int64_t replay(int kind, const int *d, const char *sets, uint64_t *digest)
{
    mc_error err = {0};
    int64_t end = 0;
    size_t links = 0;
    mc_err rc = topo_case_replay(kind, d, kind == TC_HALO ? 10 : 1, sets, digest, &end, &links,
                                 &err);
    if (rc)
        fprintf(stderr, "'%s': %s\n", sets, err.msg);
    CHECK_EQ_INT(rc, MC_OK);
    return end;
}

int main(void)
{
    static const struct {
        int kind, d[3];
        const char *shape;
        uint64_t digest; /* bottleneck mode, x86-64; 0: not pinned */
    } cases[] = {
        {TC_HALO, {4, 4, 4}, "", 0xa00e0842666504adull},
        {TC_ALLTOALL, {4, 4, 2}, "", 0x31f1d638fa3e4cfcull},
        {TC_HALO, {4, 4, 4}, "network.topology=fattree;network.arity=4;network.taper=2", 0},
        {TC_ALLTOALL, {4, 4, 2}, "network.topology=fattree;network.arity=4;network.taper=2", 0},
        {TC_ALLTOALL, {4, 4, 2}, "network.topology=crossbar;network.nic_bandwidth=2GB/s", 0},
    };
    int golden = 0;
#if defined(__x86_64__) && !defined(__FMA__)
    golden = 1;
#endif
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char bn[256], ex[256];
        snprintf(bn, sizeof bn, "%s%snetwork.sharing=bottleneck", cases[i].shape,
                 *cases[i].shape ? ";" : "");
        snprintf(ex, sizeof ex, "%s%snetwork.sharing=exact", cases[i].shape,
                 *cases[i].shape ? ";" : "");
        uint64_t hb, hb2, he;
        int64_t tb = replay(cases[i].kind, cases[i].d, bn, &hb);
        int64_t te = replay(cases[i].kind, cases[i].d, ex, &he);
        CHECK_EQ_INT(replay(cases[i].kind, cases[i].d, bn, &hb2), tb);
        CHECK(hb2 == hb);
        double rel = (double)(tb - te) / (double)te;
        printf("%-8s '%s': bottleneck %lld ps, exact %lld ps (%+.3f %%)\n",
               cases[i].kind == TC_HALO ? "halo" : "alltoall", cases[i].shape, (long long)tb,
               (long long)te, 100 * rel);
        CHECK(rel > -0.03 && rel < 0.03);
        if (golden && cases[i].digest && hb != cases[i].digest) {
            fprintf(stderr, "case %zu: digest %016llx, expected %016llx\n", i,
                    (unsigned long long)hb, (unsigned long long)cases[i].digest);
            return 1;
        }
    }
    return 0;
}
