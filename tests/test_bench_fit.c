/* mpicast-bench's fits (src/bench/fit.c) on synthetic ping-pong curves with
 * known LogGP parameters: the break is found where the rendezvous jump is,
 * the least squares recover L, o and G, and the text forms read back. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "fit.h"
#include "mpicast/platform.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * fabs(b) + 1e-18)

/* T1(s) = 1us + s / 2GB/s, + 3us above `limit`; send 0.3us while eager,
 * the whole one-way time after (both ranks' calls add up to 2 T1). */
static int make_curve(mcb_point *p, double limit)
{
    int n = 0;
    for (double s = 0; s <= 1 << 20; s = s == 0 ? 1 : s * 2) {
        double t1 = 1e-6 + s / 2e9 + (s > limit ? 3e-6 : 0);
        double send = s > limit ? t1 : 0.3e-6;
        p[n++] = (mcb_point){s, send, 2 * t1 - send, 0};
    }
    return n;
}

int main(void)
{
    mcb_point p[64];
    int n = make_curve(p, 5000);
    int k = mcb_find_break(p, n, MCB_BREAK_EXCESS);
    CHECK(p[k - 1].size == 4096 && p[k].size == 8192);

    mcb_loggp f;
    mcb_fit_loggp(p, n, 0.3e-6, 0.5e-6, 0.05e-6, &f);
    CHECK(f.eager_found);
    CHECK(f.eager_limit == 4096);
    CHECK_EQ_INT(f.nfit, k);
    CHECK(NEAR(f.G, 1 / 2e9));
    CHECK(NEAR(f.o, 0.4e-6));
    CHECK(fabs(f.L - 0.2e-6) < 1e-15);
    CHECK(f.g == 0.05e-6);
    CHECK(f.max_rel_err < 1e-9);

    /* a second, later jump (a pipelining threshold, caches) is not the
     * eager limit; a disturbed stretch that comes back down is no break */
    n = make_curve(p, 5000);
    for (int i = 0; i < n; i++) {
        if (p[i].size >= 262144)
            p[i].recv += 200e-6;
        if (p[i].size >= 256 && p[i].size <= 512)
            p[i].recv += 10e-6;
    }
    CHECK(p[mcb_find_break(p, n, MCB_BREAK_EXCESS)].size == 8192);

    /* no switch: the whole curve is eager */
    n = make_curve(p, INFINITY);
    CHECK_EQ_INT(mcb_find_break(p, n, MCB_BREAK_EXCESS), n);
    mcb_fit_loggp(p, n, 0.3e-6, 0.5e-6, 0, &f);
    CHECK(!f.eager_found && f.eager_limit == 1 << 20);
    CHECK(NEAR(f.G, 1 / 2e9));
    /* overheads larger than the latency allows: o takes it all, L = 0 */
    mcb_fit_loggp(p, n, 2e-6, 2e-6, 0, &f);
    CHECK(f.L == 0 && NEAR(f.o, 0.5e-6));

    double v[] = {5, 1, 4, 2, 3}, w[] = {4, 1, 3, 2};
    CHECK(mcb_median(v, 5) == 3);
    CHECK(mcb_median(w, 4) == 2.5);
    CHECK(mcb_median(w, 0) == 0);

    /* the text forms are what the platform module reads */
    char buf[64];
    double x;
    mcb_fmt_time(buf, sizeof buf, 1.2345e-6);
    CHECK(mc_parse_value(buf, MC_UNIT_TIME, &x, NULL) == MC_OK && fabs(x - 1.2345e-6) < 1e-15);
    mcb_fmt_time(buf, sizeof buf, 0.0123);
    CHECK(mc_parse_value(buf, MC_UNIT_TIME, &x, NULL) == MC_OK && fabs(x - 0.0123) < 1e-12);
    mcb_fmt_size(buf, sizeof buf, 65536);
    CHECK_EQ_STR(buf, "64KiB");
    mcb_fmt_size(buf, sizeof buf, 4040);
    CHECK_EQ_STR(buf, "4040");
    mcb_fmt_size(buf, sizeof buf, 16 << 20);
    CHECK_EQ_STR(buf, "16MiB");
    mcb_fmt_bandwidth(buf, sizeof buf, 6.259e9);
    CHECK(mc_parse_value(buf, MC_UNIT_BANDWIDTH, &x, NULL) == MC_OK && x == 6.259e9);
    mcb_fmt_bandwidth(buf, sizeof buf, INFINITY);
    CHECK_EQ_STR(buf, "inf");
    return 0;
}
