/* The faster network.sharing modes of topo (issue 5) against exact max-min
 * fairness: bottleneck (session 5: re-rates only the flows a start or an
 * end bottlenecks) and route (session 9: fills only the links of the
 * changed route where a rate can move, each re-rated flow bounded by its
 * other links). On the bench_topo replays (a 3-D halo and a pairwise
 * all-to-all, over a torus, a tapered fat tree and a crossbar with finite
 * NICs) each mode's predicted time is within 3 % of network.sharing=exact,
 * it repeats itself to the picosecond, no link ever carries more than its
 * capacity (bytes <= bandwidth x busy time), and on x86-64 the two main
 * replays are pinned to the bit like test_topo_bitexact's, so that a
 * change of a mode's selection shows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topo_case.h"
#include "mpicast/net.h"
#include "mpicast/sim.h"

/* Replays the case; checks that every used link stayed within its
 * capacity; returns the predicted end (ps). */
static int64_t replay(int kind, const int *d, const char *sets, uint64_t *digest)
{
    topo_case c;
    mc_error err = {0};
    mc_err rc = topo_case_open(&c, kind, d, kind == TC_HALO ? 10 : 1, "topo", sets, &err);
    mc_sim_result res;
    if (rc == MC_OK)
        rc = topo_case_run(&c, &res, &err);
    if (rc)
        fprintf(stderr, "'%s': %s\n", sets, err.msg);
    CHECK_EQ_INT(rc, MC_OK);
    *digest = topo_case_digest(&c, &res);
    int64_t end = res.end;
    size_t nl = mc_net_link_stats(c.net, NULL, 0);
    mc_net_link_stat *st = calloc(nl ? nl : 1, sizeof *st);
    CHECK(st != NULL);
    CHECK_EQ_INT(mc_net_link_stats(c.net, st, nl), nl);
    CHECK(nl > 0);
    for (size_t i = 0; i < nl; i++)
        if (st[i].bandwidth < 1e300 && st[i].bytes > st[i].bandwidth * st[i].busy * (1 + 1e-6) + 1) {
            fprintf(stderr, "'%s': link %s carried %.0f B in %.9f s busy at %.3g B/s\n", sets,
                    st[i].name, st[i].bytes, st[i].busy, st[i].bandwidth);
            CHECK(0);
        }
    free(st);
    mc_sim_result_free(&res);
    topo_case_close(&c);
    return end;
}

int main(void)
{
    static const struct {
        int kind, d[3];
        const char *shape;
        uint64_t digest[2]; /* bottleneck, route; x86-64; 0: not pinned */
    } cases[] = {
        {TC_HALO, {4, 4, 4}, "", {0xa00e0842666504adull, 0x28c007886af54938ull}},
        {TC_ALLTOALL, {4, 4, 2}, "", {0x31f1d638fa3e4cfcull, 0x128a32104c879da8ull}},
        {TC_HALO, {4, 4, 4}, "network.topology=fattree;network.arity=4;network.taper=2", {0, 0}},
        {TC_ALLTOALL, {4, 4, 2}, "network.topology=fattree;network.arity=4;network.taper=2", {0, 0}},
        {TC_ALLTOALL, {4, 4, 2}, "network.topology=crossbar;network.nic_bandwidth=2GB/s", {0, 0}},
    };
    static const char *const modes[] = {"bottleneck", "route"};
    int golden = 0;
#if defined(__x86_64__) && !defined(__FMA__)
    golden = 1;
#endif
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sep = *cases[i].shape ? ";" : "";
        char ex[256];
        snprintf(ex, sizeof ex, "%s%snetwork.sharing=exact", cases[i].shape, sep);
        uint64_t he;
        int64_t te = replay(cases[i].kind, cases[i].d, ex, &he);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            char set[256];
            snprintf(set, sizeof set, "%s%snetwork.sharing=%s", cases[i].shape, sep, modes[m]);
            uint64_t h, h2;
            int64_t tm = replay(cases[i].kind, cases[i].d, set, &h);
            CHECK_EQ_INT(replay(cases[i].kind, cases[i].d, set, &h2), tm);
            CHECK(h2 == h);
            double rel = (double)(tm - te) / (double)te;
            printf("%-8s '%s': %s %lld ps, exact %lld ps (%+.3f %%), digest %016llx\n",
                   cases[i].kind == TC_HALO ? "halo" : "alltoall", cases[i].shape, modes[m],
                   (long long)tm, (long long)te, 100 * rel, (unsigned long long)h);
            CHECK(rel > -0.03 && rel < 0.03);
            if (golden && cases[i].digest[m] && h != cases[i].digest[m]) {
                fprintf(stderr, "case %zu, %s: digest %016llx, expected %016llx\n", i, modes[m],
                        (unsigned long long)h, (unsigned long long)cases[i].digest[m]);
                return 1;
            }
        }
    }
    return 0;
}
