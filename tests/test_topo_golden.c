/* The topo model against times computed by hand (issue 5), in ps.
 *
 * Messages of S = 1 MB, link bandwidth 1 GB/s (S/B = 1 ms = 1e9 ps),
 * latency L = 1 us, hop latency 100 ns, overhead and gap 0, eager limit inf:
 * a receive completes when its message arrives, i.e. when its flow's last
 * byte is through plus L + hops * hop_latency. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mem_source.h"
#include "mpicast/net.h"
#define MPICAST_NET_INTERNAL /* white-box: the shapes and routes */
#include "net/topo_impl.h"

#define US 1000000LL /* ps */
#define S_BYTES 1000000
#define XFER (1000 * US) /* S / 1 GB/s */

static mc_net *g_net; /* the last replay's model, for its link statistics */
static const char *g_sharing = "network.sharing=local"; /* the mode under test */

static void run(mem_source *m, const char *const *sets, mc_sim_result *res)
{
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK(p != NULL);
    const char *base[] = {"network.model=topo", "network.bandwidth=1GB/s", "network.latency=1us",
                          "network.hop_latency=100ns", "network.overhead=0",
                          "network.eager_limit=inf", NULL};
    for (int i = 0; base[i]; i++)
        CHECK_EQ_INT(mc_platform_set(p, base[i], &err), MC_OK);
    CHECK_EQ_INT(mc_platform_set(p, g_sharing, &err), MC_OK);
    for (int i = 0; sets && sets[i]; i++) {
        if (mc_platform_set(p, sets[i], &err))
            fprintf(stderr, "%s: %s\n", sets[i], err.msg);
        CHECK_EQ_INT(err.code, MC_OK);
    }
    mem_source_rewind(m);
    mc_net_destroy(g_net);
    g_net = mc_net_create(NULL, p, mem_source_base(m)->nranks, &err);
    if (!g_net)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(g_net != NULL);
    mc_sim_options opt = {0};
    opt.net = g_net;
    mc_err rc = mc_sim_run(mem_source_base(m), p, &opt, res, &err);
    if (rc)
        fprintf(stderr, "replay failed: %s\n", err.msg);
    CHECK_EQ_INT(rc, MC_OK);
    mc_platform_destroy(p);
}

/* Every rank i with a partner sends S bytes to dst[i] and receives from
 * whoever sends to it (nonblocking, then Waitall). */
static mem_source *pattern(int P, const int *dst)
{
    mem_source *m = mem_source_create(P);
    for (int r = 0; r < P; r++) {
        uint32_t ids[3], n = 0;
        for (int s = 0; s < P && n < 2; s++)
            if (dst[s] == r) {
                ms_p2p(m, r, MC_OP_IRECV, s, 0, S_BYTES, 10u + (uint32_t)s);
                ids[n++] = 10u + (uint32_t)s;
            }
        if (dst[r] >= 0) {
            ms_p2p(m, r, MC_OP_ISEND, dst[r], 0, S_BYTES, 1);
            ids[n++] = 1;
        }
        if (n == 3)
            ms_wait(m, r, MC_OP_WAITALL, 3, ids[0], ids[1], ids[2]);
        else if (n == 2)
            ms_wait(m, r, MC_OP_WAITALL, 2, ids[0], ids[1]);
        else if (n == 1)
            ms_wait(m, r, MC_OP_WAIT, 1, ids[0]);
    }
    return m;
}

static const mc_net_link_stat *find_link(const char *name, mc_net_link_stat *all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

/* Two flows into one ejection link take twice as long as one alone. */
static void two_flows_share_a_link(void)
{
    const char *xbar[] = {"network.topology=crossbar", NULL};
    mc_sim_result one, two, apart;
    mem_source *m = pattern(3, (int[]){2, -1, -1});
    run(m, xbar, &one);
    mem_source_destroy(m);
    CHECK_EQ_INT(one.ranks[2].end, XFER + 1 * US);

    m = pattern(3, (int[]){2, 2, -1});
    run(m, xbar, &two);
    mem_source_destroy(m);
    CHECK_EQ_INT(two.ranks[2].end, 2 * XFER + 1 * US);
    CHECK_EQ_INT(two.ranks[2].end - 1 * US, 2 * (one.ranks[2].end - 1 * US));
    mc_net_link_stat st[16];
    size_t n = mc_net_link_stats(g_net, st, 16);
    CHECK_EQ_INT(n, 3); /* node0>, node1>, >node2 */
    const mc_net_link_stat *ej = find_link(">node2", st, n);
    CHECK(ej != NULL);
    CHECK(ej == &st[0] || st[0].busy == ej->busy); /* busiest first */
    CHECK_EQ_INT(ej->peak_flows, 2);
    CHECK(fabs(ej->bytes - 2e6) < 1e-6);
    CHECK(fabs(ej->busy - 2e-3) < 1e-12);
    CHECK(fabs(ej->bandwidth - 1e9) < 1e-3);

    /* disjoint pairs do not interfere */
    m = pattern(4, (int[]){1, -1, 3, -1});
    run(m, xbar, &apart);
    mem_source_destroy(m);
    CHECK_EQ_INT(apart.ranks[1].end, XFER + 1 * US);
    CHECK_EQ_INT(apart.ranks[3].end, XFER + 1 * US);
    mc_sim_result_free(&one);
    mc_sim_result_free(&two);
    mc_sim_result_free(&apart);
}

/* Ring of 8: neighbour i -> i+1 uses one + link each (no sharing, 1 hop);
 * shift i -> i+2 puts two flows on every + link (half rate, 2 hops). */
static void ring_shift_vs_neighbour(void)
{
    const char *ring[] = {"network.topology=ring", NULL};
    int nb[8], sh[8];
    for (int i = 0; i < 8; i++) {
        nb[i] = (i + 1) % 8;
        sh[i] = (i + 2) % 8;
    }
    mc_sim_result a, b;
    mem_source *m = pattern(8, nb);
    run(m, ring, &a);
    mem_source_destroy(m);
    m = pattern(8, sh);
    run(m, ring, &b);
    mem_source_destroy(m);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(a.ranks[i].end, XFER + 1 * US + 100000);
        CHECK_EQ_INT(b.ranks[i].end, 2 * XFER + 1 * US + 2 * 100000);
    }
    mc_net_link_stat st[64];
    size_t n = mc_net_link_stats(g_net, st, 64);
    CHECK_EQ_INT(n, 8 + 8 + 8); /* injections, ejections, every + link */
    const mc_net_link_stat *l = find_link("r(3)+x", st, n);
    CHECK(l != NULL);
    CHECK_EQ_INT(l->peak_flows, 2);
    CHECK(find_link("r(3)-x", st, n) == NULL);
    mc_sim_result_free(&a);
    mc_sim_result_free(&b);
}

/* 4x4 torus: dimension-order routes (x first, the shorter way, + on a tie)
 * and the hop latencies a replay charges for them. */
static void torus2d_routes(void)
{
    topo_shape t;
    mc_error err = {0};
    CHECK_EQ_INT(topo_shape_init(&t, "torus2d", "", 16, 16, 1, 0, &err), MC_OK);
    CHECK_EQ_INT(t.dims[0], 4);
    CHECK_EQ_INT(t.dims[1], 4);
    int32_t p[16];
    int b = t.base;
#define LINK(x, y, dim, dir) (b + (((y) * 4 + (x)) * 2 + (dim)) * 2 + (dir))
    /* (0,0) -> (2,1): +x, +x (tie 2 = 4-2 goes +), +y */
    CHECK_EQ_INT(topo_route(&t, 0, 6, 0, p), 3);
    CHECK_EQ_INT(p[0], LINK(0, 0, 0, 0));
    CHECK_EQ_INT(p[1], LINK(1, 0, 0, 0));
    CHECK_EQ_INT(p[2], LINK(2, 0, 1, 0));
    /* (0,0) -> (3,3): -x once (wraps to 3), then -y once */
    CHECK_EQ_INT(topo_route(&t, 0, 15, 0, p), 2);
    CHECK_EQ_INT(p[0], LINK(0, 0, 0, 1));
    CHECK_EQ_INT(p[1], LINK(3, 0, 1, 1));
    /* (1,2) -> (1,2): nothing; (3,1) -> (0,1): +x wraps */
    CHECK_EQ_INT(topo_route(&t, 9, 9, 0, p), 0);
    CHECK_EQ_INT(topo_route(&t, 7, 4, 0, p), 1);
    CHECK_EQ_INT(p[0], LINK(3, 1, 0, 0));
    /* a mesh never wraps: (0,0) -> (3,3) is 6 hops */
    CHECK_EQ_INT(topo_shape_init(&t, "mesh2d", "4x4", 16, 16, 1, 0, &err), MC_OK);
    CHECK_EQ_INT(topo_route(&t, 0, 15, 0, p), 6);
#undef LINK
    /* replay: empty messages from 0 to (2,2) (4 hops) and to (1,0) (1 hop) */
    const char *tor[] = {"network.topology=torus2d", "network.overhead=50ns", NULL};
    mem_source *m = mem_source_create(16);
    ms_p2p(m, 0, MC_OP_SEND, 10, 0, 0, 0);
    ms_p2p(m, 0, MC_OP_SEND, 1, 0, 0, 0);
    ms_p2p(m, 10, MC_OP_RECV, 0, 0, 0, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 0, 0, 0);
    mc_sim_result r;
    run(m, tor, &r);
    mem_source_destroy(m);
    /* send at 0 (o to 50 ns), arrive o + L + 4 hops, processed for o */
    CHECK_EQ_INT(r.ranks[10].end, 50000 + 1 * US + 4 * 100000 + 50000);
    /* second send at 50 ns */
    CHECK_EQ_INT(r.ranks[1].end, 50000 + 50000 + 1 * US + 1 * 100000 + 50000);
    mc_sim_result_free(&r);
}

/* 2-ary 2-tree (4 nodes, 2 leaves): 0 -> 2 and 1 -> 3 cross the tree on
 * distinct up ports (d-mod-k); taper 2 leaves one up port per leaf, so the
 * two flows share it and take twice as long. Same-leaf traffic is unchanged. */
static void fattree_taper_halves_cross_bandwidth(void)
{
    const char *full[] = {"network.topology=fattree", "network.arity=2", NULL};
    const char *tap[] = {"network.topology=fattree", "network.arity=2", "network.taper=2", NULL};
    mc_sim_result a, b, c;
    int cross[4] = {2, 3, -1, -1}, local[4] = {1, -1, 3, -1};
    mem_source *m = pattern(4, cross);
    run(m, full, &a);
    run(m, tap, &b);
    mem_source_destroy(m);
    CHECK_EQ_INT(a.ranks[2].end, XFER + 1 * US + 2 * 100000);
    CHECK_EQ_INT(b.ranks[2].end, 2 * XFER + 1 * US + 2 * 100000);
    CHECK_EQ_INT(b.ranks[3].end, 2 * XFER + 1 * US + 2 * 100000);
    m = pattern(4, local);
    run(m, tap, &c);
    mem_source_destroy(m);
    CHECK_EQ_INT(c.ranks[1].end, XFER + 1 * US);
    mc_sim_result_free(&a);
    mc_sim_result_free(&b);
    mc_sim_result_free(&c);
}

/* Hierarchical switches: 2 nodes per leaf, one 1 GB/s uplink per leaf: two
 * flows leaving the same leaf share its uplink. Dragonfly: minimal route
 * lengths. HXB: one crossbar per differing dimension. */
static void other_shapes(void)
{
    const char *sw[] = {"network.topology=switches", "network.arity=2", NULL};
    mc_sim_result a;
    mem_source *m = pattern(4, (int[]){2, 3, -1, -1});
    run(m, sw, &a);
    mem_source_destroy(m);
    CHECK_EQ_INT(a.ranks[3].end, 2 * XFER + 1 * US + 2 * 100000);
    mc_sim_result_free(&a);

    topo_shape t;
    mc_error err = {0};
    int32_t p[16];
    CHECK_EQ_INT(topo_shape_init(&t, "dragonfly", "3x2x2", 12, 16, 1, 0, &err), MC_OK);
    CHECK_EQ_INT(topo_route(&t, 0, 1, 0, p), 0);  /* same router */
    CHECK_EQ_INT(topo_route(&t, 0, 2, 0, p), 1);  /* same group */
    CHECK(topo_route(&t, 0, 11, 0, p) >= 1);      /* other group: <= 3 */
    CHECK(topo_route(&t, 0, 11, 0, p) <= 3);
    CHECK_EQ_INT(topo_shape_init(&t, "hxb", "4x4", 16, 16, 1, 0, &err), MC_OK);
    CHECK_EQ_INT(topo_route(&t, 0, 5, 0, p), 4);
    CHECK_EQ_INT(topo_route(&t, 0, 3, 0, p), 2);
    /* MPI_Dims_create-like shapes */
    int d[3];
    topo_dims_create(4096, 3, d);
    CHECK(d[0] == 16 && d[1] == 16 && d[2] == 16);
    topo_dims_create(12, 2, d);
    CHECK(d[0] == 4 && d[1] == 3);
    topo_dims_create(7, 2, d);
    CHECK(d[0] == 7 && d[1] == 1);
    /* bad shapes are errors, not crashes */
    CHECK(topo_shape_init(&t, "torus2d", "3x3", 16, 16, 1, 0, &err) != MC_OK);
    CHECK(topo_shape_init(&t, "torus3d", "4x4", 16, 16, 1, 0, &err) != MC_OK);
}

/* Every topology replays an all-to-all and a ring exchange to completion,
 * with 2 ranks per node (shared-memory links), both mappings and the
 * local, exact and route sharing modes; the exact mode agrees with the golden ring shift. Bad
 * shapes and mapping files are errors, not crashes. */
static void every_shape_replays(void)
{
    const char *shapes[][2] = {{"crossbar", ""}, {"ring", ""},      {"mesh2d", ""},
                               {"torus2d", ""},  {"mesh3d", ""},    {"torus3d", "2x2x2"},
                               {"hxb", ""},      {"hxb", "2x2x2"},  {"fattree", ""},
                               {"switches", ""}, {"dragonfly", ""}, {"dragonfly", "2x2x2"}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int mode = 0; mode < 3; mode++) {
            char topo[64], dims[64];
            snprintf(topo, sizeof topo, "network.topology=%s", shapes[i][0]);
            snprintf(dims, sizeof dims, "network.dims=%s", shapes[i][1]);
            const char *sets[] = {topo, dims, "network.ranks_per_node=2", "network.arity=2",
                                  mode == 1 ? "network.mapping=round-robin" : "network.mapping=block",
                                  mode == 2   ? "network.sharing=route"
                                  : mode == 1 ? "network.sharing=exact"
                                              : "network.sharing=local",
                                  "network.routing=ecmp", NULL};
            mem_source *m = mem_source_create(16);
            for (int r = 0; r < 16; r++) {
                mc_event *e = ms_add(m, r, MC_OP_ALLTOALL, 0);
                e->peer2 = 16;
                e->bytes = e->bytes2 = 50000;
            }
            mc_sim_result res;
            run(m, sets, &res);
            mem_source_destroy(m);
            /* 15 x 50 kB into each node's ejection (or shm) link, >= 1 GB/s shares */
            CHECK(res.end > 300 * US);
            CHECK(res.end < 100000 * US);
            CHECK(mc_net_link_stats(g_net, NULL, 0) > 0);
            mc_sim_result_free(&res);
        }
    const char *ring_exact[] = {"network.topology=ring", "network.sharing=exact", NULL};
    int sh[8];
    for (int i = 0; i < 8; i++)
        sh[i] = (i + 2) % 8;
    mc_sim_result b;
    mem_source *m = pattern(8, sh);
    run(m, ring_exact, &b);
    mem_source_destroy(m);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(b.ranks[i].end, 2 * XFER + 1 * US + 2 * 100000);
    mc_sim_result_free(&b);

    /* errors */
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    CHECK_EQ_INT(mc_platform_set(p, "network.model=topo", &err), MC_OK);
    CHECK_EQ_INT(mc_platform_set(p, "network.topology=torus3d", &err), MC_OK);
    CHECK_EQ_INT(mc_platform_set(p, "network.dims=2x2", &err), MC_OK);
    CHECK(mc_net_create(NULL, p, 4, &err) == NULL);
    CHECK(strstr(err.msg, "network.dims") != NULL);
    CHECK_EQ_INT(mc_platform_set(p, "network.dims=", &err), MC_OK);
    CHECK_EQ_INT(mc_platform_set(p, "network.mapping=file", &err), MC_OK);
    CHECK(mc_net_create(NULL, p, 4, &err) == NULL);
    CHECK(strstr(err.msg, "mapping_file") != NULL);
    char path[] = "/tmp/mc_topo_mapXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "0\n0\n1\nseven\n", 13) == 13);
    close(fd);
    char set[128];
    snprintf(set, sizeof set, "network.mapping_file=%s", path);
    CHECK_EQ_INT(mc_platform_set(p, set, &err), MC_OK);
    CHECK(mc_net_create(NULL, p, 4, &err) == NULL);
    CHECK(strstr(err.msg, ":4:") != NULL);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(write(fd, "1 1 0 0\n", 8) == 8);
    close(fd);
    mc_net *n = mc_net_create(NULL, p, 4, &err);
    CHECK(n != NULL);
    mc_net_destroy(n);
    unlink(path);
    mc_platform_destroy(p);
}

/* Every rank sends S bytes to every other at once (nonblocking, o = 0:
 * every flow starts at t = 0), then waits for each. */
static mem_source *burst(int P)
{
    mem_source *m = mem_source_create(P);
    for (int r = 0; r < P; r++) {
        for (int s = 0; s < P; s++)
            if (s != r)
                ms_p2p(m, r, MC_OP_IRECV, s, 0, S_BYTES, 100u + (uint32_t)s);
        for (int s = 0; s < P; s++)
            if (s != r)
                ms_p2p(m, r, MC_OP_ISEND, s, 0, S_BYTES, 200u + (uint32_t)s);
        for (int s = 0; s < P; s++)
            if (s != r) {
                ms_wait(m, r, MC_OP_WAIT, 1, 100u + (uint32_t)s);
                ms_wait(m, r, MC_OP_WAIT, 1, 200u + (uint32_t)s);
            }
    }
    return m;
}

/* 32 ranks, each sending to the 31 others at once through its NIC: every
 * flow gets 1/31 of its injection and ejection links, so every message is
 * through at 31 S/B (one refill of 992 flows at t = 0). */
static void burst_shares_nics(void)
{
    const char *xbar[] = {"network.topology=crossbar", NULL};
    mc_sim_result r;
    mem_source *m = burst(32);
    run(m, xbar, &r);
    mem_source_destroy(m);
    for (int i = 0; i < 32; i++)
        CHECK(llabs(r.ranks[i].end - (31 * XFER + 1 * US)) <= 2);
    mc_sim_result_free(&r);
}

/* The same burst on a 2-D torus (links 1 GB/s, NICs 4 GB/s: the torus
 * links are the contended ones, unevenly): route within 5 % of exact, and
 * no link above its capacity. */
static void burst_route_near_exact(void)
{
    int64_t end[2];
    for (int i = 0; i < 2; i++) {
        const char *sets[] = {"network.topology=torus2d", "network.dims=8x4",
                              "network.nic_bandwidth=4GB/s",
                              i ? "network.sharing=exact" : "network.sharing=route", NULL};
        mc_sim_result r;
        mem_source *m = burst(32);
        run(m, sets, &r);
        mem_source_destroy(m);
        end[i] = r.end;
        mc_net_link_stat st[512];
        size_t n = mc_net_link_stats(g_net, st, 512);
        CHECK(n > 0 && n <= 512);
        for (size_t k = 0; k < n; k++)
            CHECK(st[k].bytes <= st[k].bandwidth * st[k].busy * (1 + 1e-9) + 1);
        mc_sim_result_free(&r);
    }
    printf("burst on torus2d 8x4: route %lld ps, exact %lld ps (%+.3f %%)\n", (long long)end[0],
           (long long)end[1], 100.0 * (double)(end[0] - end[1]) / (double)end[1]);
    CHECK(llabs(end[0] - end[1]) <= end[1] / 20);
}

int main(void)
{
    /* the hand-computed times hold for every sharing mode: each case is
     * max-min fair at every change, which each mode computes exactly */
    static const char *const modes[] = {"network.sharing=local", "network.sharing=route",
                                        "network.sharing=bottleneck", "network.sharing=exact"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        g_sharing = modes[i];
        two_flows_share_a_link();
        ring_shift_vs_neighbour();
        torus2d_routes();
        fattree_taper_halves_cross_bandwidth();
        other_shapes();
        burst_shares_nics();
    }
    burst_route_near_exact();
    g_sharing = "network.sharing=route";
    every_shape_replays();
    mc_net_destroy(g_net);
    return 0;
}
