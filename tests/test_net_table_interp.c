/* The table network model prices by piecewise-linear interpolation of the
 * measured ping-pong times and extrapolates linearly past the ends; the
 * measured collective times are looked up by op and communicator size.
 * Expected values are computed by hand from the table below, to the ps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "net/net_models.h" /* mc_net_table_interp */

static const char *ini =
    "[network]\n"
    "model = table\n"
    "eager_limit = 2KiB\n"
    "[measured]\n"
    "host = node01\n"
    "ranks = 2\n"
    "membw = 10GB/s\n"
    "[table]\n"
    "pingpong.1KiB = 2us\n" /* out of order on purpose: sorted on load */
    "pingpong.0 = 1us\n"
    "pingpong.4KiB = 5us\n"
    "send.0 = 0.2us\n"
    "send.4KiB = 1us\n"
    "allreduce.4.0 = 3us\n"
    "allreduce.4.1KiB = 5us\n"
    "barrier.4.0 = 1.5us\n";

static mc_platform *load(const char *text, mc_error *err)
{
    char path[] = "/tmp/mc_net_tableXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    mc_platform *p = mc_platform_load(path, err);
    remove(path);
    return p;
}

static void check_cost(mc_net *n, int64_t bytes, mc_net_leg leg, int64_t send_cpu,
                       int64_t arrive, int64_t recv_cpu, int64_t nic)
{
    mc_net_cost c;
    mc_net_transfer(n, 0, 0, 1, bytes, leg, &c);
    if (c.send_cpu != send_cpu || c.arrive != arrive || c.recv_cpu != recv_cpu ||
        c.send_nic != nic || c.recv_nic != nic) {
        fprintf(stderr, "%lld B: got %lld %lld %lld %lld %lld\n", (long long)bytes,
                (long long)c.send_cpu, (long long)c.arrive, (long long)c.recv_cpu,
                (long long)c.send_nic, (long long)c.recv_nic);
        exit(1);
    }
}

static void check_interp(void)
{
    const double s[] = {0, 10, 20}, t[] = {5, 15, 35};
    CHECK(mc_net_table_interp(s, t, 3, 0) == 5);
    CHECK(mc_net_table_interp(s, t, 3, 5) == 10);
    CHECK(mc_net_table_interp(s, t, 3, 10) == 15);
    CHECK(mc_net_table_interp(s, t, 3, 15) == 25);
    CHECK(mc_net_table_interp(s, t, 3, 30) == 55); /* last slope: 2 per byte */
    const double s2[] = {10, 20}, t2[] = {10, 30};
    CHECK(mc_net_table_interp(s2, t2, 2, 0) == 0);  /* first slope, clamped at 0 */
    CHECK(mc_net_table_interp(s2, t2, 2, 6) == 2);
    CHECK(mc_net_table_interp(s2, t2, 1, 1e9) == 10); /* one point: constant */
}

int main(void)
{
    check_interp();
    mc_error err = {0};
    mc_platform *p = load(ini, &err);
    if (!p)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(p != NULL);

    double *sz, *tm;
    CHECK_EQ_INT(mc_platform_table(p, "pingpong", &sz, &tm), 3);
    CHECK(sz[0] == 0 && sz[1] == 1024 && sz[2] == 4096 && tm[1] == 2e-6);
    free(sz);
    free(tm);
    CHECK_EQ_INT(mc_platform_table(p, "allgather.4", &sz, &tm), 0);
    CHECK(sz == NULL && tm == NULL);

    mc_net *n = mc_net_create(NULL, p, 4, &err);
    CHECK(n != NULL);
    /* R(s) = 1us + s/1024 us up to 1KiB, then + 1us per KiB; S(s) = 0.2us +
     * 0.8us * s/4KiB; T1 = (R + S) / 2.
     * 0 B: R 1us, S 0.2us, T1 0.6us; eager: send = recv cpu = S */
    check_cost(n, 0, MC_NET_LEG_EAGER, 200000, 400000, 200000, 0);
    /* 100 B: R 1097656.25 ps, S 219531.25 ps, T1 658593.75 ps */
    check_cost(n, 100, MC_NET_LEG_EAGER, 219531, 658594 - 219531, 219531, 658594 - 600000);
    /* 512 B: R 1.5us, S 0.3us, T1 0.9us */
    check_cost(n, 512, MC_NET_LEG_EAGER, 300000, 600000, 300000, 300000);
    /* 8 KiB (past the table, rendezvous): R 9us (last slope), S 1.8us, T1
     * 5.4us; arrive = S, recv = T1 - S, send cpu = S(0) */
    check_cost(n, 8192, MC_NET_LEG_RDV, 200000, 1800000, 3600000, 4800000);

    CHECK_EQ_INT(mc_net_coll_time(n, "allreduce", 4, 0), 3000000);
    CHECK_EQ_INT(mc_net_coll_time(n, "allreduce", 4, 512), 4000000);
    CHECK_EQ_INT(mc_net_coll_time(n, "allreduce", 4, 2048), 7000000);
    CHECK_EQ_INT(mc_net_coll_time(n, "barrier", 4, 0), 1500000);
    CHECK_EQ_INT(mc_net_coll_time(n, "allreduce", 8, 512), -1); /* other size: expand */
    CHECK_EQ_INT(mc_net_coll_time(n, "bcast", 4, 512), -1);
    mc_net_destroy(n);

    /* loggp has no measured collectives */
    n = mc_net_create("loggp", p, 4, &err);
    CHECK(n != NULL);
    CHECK_EQ_INT(mc_net_coll_time(n, "allreduce", 4, 512), -1);
    mc_net_destroy(n);

    /* without a send table, S(s) = network.overhead */
    mc_platform *q = load("[network]\noverhead = 0.4us\n[table]\npingpong.0 = 1us\n"
                          "pingpong.1000 = 2us\n", &err);
    CHECK(q != NULL);
    n = mc_net_create("table", q, 2, &err);
    CHECK(n != NULL);
    /* 500 B: R 1.5us, S 0.4us, T1 0.95us; T1(0) 0.7us */
    check_cost(n, 500, MC_NET_LEG_EAGER, 400000, 550000, 400000, 250000);
    mc_net_destroy(n);
    mc_platform_destroy(q);

    /* the table model needs the ping-pong table */
    q = mc_platform_create();
    CHECK(mc_net_create("table", q, 2, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
    CHECK(strstr(err.msg, "pingpong") != NULL);
    mc_platform_destroy(q);
    mc_platform_destroy(p);
    return 0;
}
