/* Checks a platform file written by mpicast-bench (driven by
 * test_bench_run.sh): it loads, records where it was measured, and its
 * curve and fitted parameters are in sane ranges for any machine — ranges,
 * not this machine's figures.
 * usage: test_bench_check FILE MPI_NAME MAX_SIZE [COLL_RANKS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"

static const char *entry(const mc_platform *p, const char *key)
{
    const char *k, *v;
    for (int i = 0; (k = mc_platform_entry_at(p, i, &v)); i++)
        if (strcmp(k, key) == 0)
            return v;
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK(argc >= 4);
    mc_error err = {0};
    mc_platform *p = mc_platform_load(argv[1], &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);
    double max_size = atof(argv[3]);

    /* where and with what it was measured */
    CHECK(entry(p, "measured.host") && strlen(entry(p, "measured.host")) > 0);
    CHECK(entry(p, "measured.mpi") && strstr(entry(p, "measured.mpi"), argv[2]));
    CHECK(entry(p, "measured.date") && strlen(entry(p, "measured.date")) == 20);

    /* the curve: sizes 0 .. max, times positive and below a second; the
     * one-way time (Send + Recv) / 2 grows with the size up to noise, and so
     * does T_comm (the Recv alone) at 2 ranks: on shared memory the split
     * of a round trip between Send and Recv moves by a few tenths of a us
     * when the protocol changes. With more ranks than cores (the 3-rank
     * run) the split is erratic (ranks yield while they poll), so only the
     * one-way time is checked there. */
    double *s, *t, *ss, *st;
    int n = mc_platform_table(p, "pingpong", &s, &t);
    CHECK(n >= 5);
    CHECK_EQ_INT(mc_platform_table(p, "send", &ss, &st), n);
    CHECK(s[0] == 0 && s[n - 1] == max_size);
    double peak = 0, peak1 = 0;
    for (int i = 0; i < n; i++) {
        CHECK(ss[i] == s[i]);
        CHECK(t[i] > 0 && t[i] < 1 && st[i] > 0 && st[i] < 1);
        double t1 = (t[i] + st[i]) / 2;
        if ((argc <= 4 && t[i] < 0.8 * peak - 0.5e-6) || t1 < 0.8 * peak1 - 0.5e-6) {
            fprintf(stderr, "%.0f B: T_comm %g s, one-way %g s, but %g s, %g s at a smaller "
                    "size\n", s[i], t[i], t1, peak, peak1);
            return 1;
        }
        peak = fmax(peak, t[i]);
        peak1 = fmax(peak1, t1);
    }
    /* max_size bytes at most 1 TB/s: the largest message takes visibly longer */
    CHECK(t[n - 1] + st[n - 1] > t[0] + st[0] + max_size / 1e12);

    /* fitted LogGP */
    double L = mc_platform_num(p, "network.latency"), o = mc_platform_num(p, "network.overhead");
    double g = mc_platform_num(p, "network.gap"), bw = mc_platform_num(p, "network.bandwidth");
    double el = mc_platform_num(p, "network.eager_limit");
    fprintf(stderr, "L %g s, o %g s, g %g s, bandwidth %g B/s, eager limit %g B\n", L, o, g, bw, el);
    CHECK(L >= 0 && L < 1e-3);
    CHECK(o > 0 && o < 1e-3);
    CHECK(L + 2 * o > 0);
    CHECK(g >= 0 && g < 1e-3);
    CHECK(bw > 10e6 && bw < 1e12);
    CHECK(el > 0 && el <= max_size);
    CHECK_EQ_STR(mc_platform_str(p, "network.model"), "loggp");

    /* the table model takes it, and prices a transfer between the ends */
    mc_net *net = mc_net_create("table", p, 2, &err);
    CHECK(net != NULL);
    mc_net_cost c;
    /* the leg the simulator would send a message of that size as */
    const char *rdv = mc_platform_str(p, "network.rendezvous");
    mc_net_leg leg = max_size / 2 <= el                      ? MC_NET_LEG_EAGER
                     : rdv && strcmp(rdv, "handshake") == 0 ? MC_NET_LEG_HS_DATA
                                                            : MC_NET_LEG_RDV;
    mc_net_transfer(net, 0, 0, 1, (int64_t)(max_size / 2), leg, &c);
    double one_way = (double)(c.arrive + c.recv_cpu) / MC_PS_PER_S;
    CHECK(one_way >= (t[0] + st[0]) / 2 * 0.5 && one_way <= (t[n - 1] + st[n - 1]) / 2 * 1.5);

    /* --compute: the kernel rates */
    if (entry(p, "measured.membw")) {
        double bwm, fl;
        CHECK(mc_parse_value(entry(p, "measured.membw"), MC_UNIT_BANDWIDTH, &bwm, NULL) == MC_OK);
        CHECK(mc_parse_value(entry(p, "measured.flops"), MC_UNIT_NONE, &fl, NULL) == MC_OK);
        fprintf(stderr, "membw %g B/s, flops %g flop/s\n", bwm, fl);
        CHECK(bwm > 1e8 && bwm < 1e13);
        CHECK(fl > 1e7 && fl < 1e13);
    }

    if (argc > 4) { /* --collectives: every op at that rank count */
        const char *ops[] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};
        for (int i = 0; i < 6; i++) {
            char name[64];
            double *cs, *ct;
            snprintf(name, sizeof name, "%s.%s", ops[i], argv[4]);
            int m = mc_platform_table(p, name, &cs, &ct);
            CHECK(m >= 1);
            for (int j = 0; j < m; j++)
                CHECK(ct[j] > 0 && ct[j] < 1);
            CHECK(mc_net_coll_time(net, ops[i], atoi(argv[4]), (int64_t)cs[m - 1]) > 0);
            free(cs);
            free(ct);
        }
    }
    mc_net_destroy(net);
    free(s);
    free(t);
    free(ss);
    free(st);
    mc_platform_destroy(p);
    return 0;
}
