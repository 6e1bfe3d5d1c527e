/* Replay speed with the topo network model (contention on), issue 5.
 * Usage: bench_topo [halo|alltoall|all] [scale] [MODEL]   (MODEL: topo, or loggp
 * for the same replays without contention, as a reference); halo=XxYxZ or
 * alltoall=XxYxZ replays the case on another grid of ranks (and torus dims)
 *   halo      4096 ranks on a 16x16x16 torus3d, 3-D halo exchange: per
 *             iteration a compute burst, 6 Irecv + 6 Isend of 64 KiB to the
 *             grid neighbours, Waitall
 *   alltoall  1024 ranks on an 8x8x16 torus3d, Alltoall of 4 KiB per peer
 *             (pairwise algorithm)
 * Links: 5 GB/s, 100 ns per hop, L = 1 us, o = 1 us. Prints trace events
 * per second, engine events per second, flows (messages) per second and
 * point-to-point operations (a send and a receive per message: the
 * all-to-all's count) per second, per CPU second (the machine is shared),
 * the predicted time and the process's peak RSS; then the end
 * in ps and a digest of every rank's end, communication and wait times and
 * every used link's statistics, to check that a change of the model moves
 * no result. BENCH_TOPO_SET="key=value;..." sets further platform keys
 * (another topology, ranks per node, network.sharing=exact...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "topo_case.h"

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Peak resident set of the process so far, MiB (monotonic: a case run
 * after a bigger one shows the bigger one's). */
static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static const char *g_model = "topo";

static int run_case(const char *name, int kind, const int *d, uint32_t iters)
{
    topo_case c;
    mc_error err = {0};
    /* BENCH_TOPO_SET="key=value;key=value": platform keys set after the
     * defaults, for checking that a change of the model leaves every
     * predicted time as it was */
    if (topo_case_open(&c, kind, d, iters, g_model, getenv("BENCH_TOPO_SET"), &err)) {
        fprintf(stderr, "bench_topo: %s\n", err.msg);
        return 1;
    }
    int P = c.base.nranks;
    double c0 = cpu_seconds();
    mc_sim_result res;
    mc_err rc = topo_case_run(&c, &res, &err);
    double cpu = cpu_seconds() - c0;
    if (rc) {
        fprintf(stderr, "bench_topo: %s: %s\n", name, err.msg);
    } else {
        if (!(cpu > 0))
            cpu = 1e-9;
        mc_net_link_stat hot[1];
        size_t nl = mc_net_link_stats(c.net, hot, 1);
        printf("%-9s %s ranks %5d  trace events %9llu  engine events %9llu  flows %9llu\n"
               "          cpu %.3f s (wall %.3f s): trace events/s %.2f M, engine events/s "
               "%.2f M, flows/s %.2f M (p2p ops/s %.2f M: a send and a receive per "
               "message); predicted %.6f s; %zu links used, hottest %s (peak %d flows); "
               "peak RSS %.1f MiB\n",
               name, g_model, P, (unsigned long long)res.events, (unsigned long long)res.sim_events,
               (unsigned long long)res.messages, cpu, res.wall_seconds,
               (double)res.events / cpu * 1e-6, (double)res.sim_events / cpu * 1e-6,
               (double)res.messages / cpu * 1e-6, 2.0 * (double)res.messages / cpu * 1e-6,
               mc_sim_seconds(res.end), nl, nl ? hot[0].name : "-", nl ? hot[0].peak_flows : 0,
               peak_rss_mib());
        printf("          end %lld ps, digest %016llx\n", (long long)res.end,
               (unsigned long long)topo_case_digest(&c, &res));
    }
    mc_sim_result_free(&res);
    topo_case_close(&c);
    return rc != MC_OK;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (!(scale > 0))
        scale = 1.0;
    if (argc > 3)
        g_model = argv[3];
    /* halo=XxYxZ, alltoall=XxYxZ: another grid of ranks (the torus has the
     * same dims), e.g. small enough for network.sharing=exact */
    int d[3] = {0, 0, 0};
    const char *eq = strchr(which, '=');
    char kind[16] = "";
    if (eq) {
        if (sscanf(eq + 1, "%dx%dx%d", &d[0], &d[1], &d[2]) != 3 || d[0] < 1 || d[1] < 1 ||
            d[2] < 1 || (size_t)(eq - which) >= sizeof kind) {
            fprintf(stderr, "bench_topo: %s: expected halo=XxYxZ or alltoall=XxYxZ\n", which);
            return 2;
        }
        memcpy(kind, which, (size_t)(eq - which));
        which = kind;
    }
    int all = strcmp(which, "all") == 0, rc = 0;
    if (all || strcmp(which, "halo") == 0)
        rc |= run_case("halo", TC_HALO, d[0] ? d : (int[]){16, 16, 16}, (uint32_t)(20 * scale));
    if (all || strcmp(which, "alltoall") == 0)
        rc |= run_case("alltoall", TC_ALLTOALL, d[0] ? d : (int[]){16, 8, 8},
                       (uint32_t)(2 * scale));
    return rc;
}
