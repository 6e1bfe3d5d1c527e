/* mpicast-bench's verdict on a measurement (src/bench/fit.c): the spread of
 * repetitions is the interquartile range over the median; a curve whose
 * sizes spread too much, whose fit error is too large, whose gap spreads
 * or whose slope had to be clamped is disturbed, with its reasons; a
 * clean curve is not; re-measuring prefers an undisturbed point. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fit.h"

/* T1(s) = 1us + s / 1GB/s, eager throughout; every point's spread given. */
static int clean_curve(mcb_point *p, double spread)
{
    int n = 0;
    for (double s = 0; s <= 65536; s = s == 0 ? 1 : s * 4) {
        double t1 = 1e-6 + s / 1e9;
        p[n++] = (mcb_point){s, t1, t1, spread};
    }
    return n;
}

int main(void)
{
    /* spread: 8 repetitions at 1us, 3 of them (every third) 100us later:
     * the median stays 1us, the upper quartile is disturbed */
    double reps[9];
    for (int r = 0; r < 9; r++)
        reps[r] = 1e-6 + (r % 3 == 0 ? 100e-6 : 0);
    double q1 = 1e-6, q3 = 1e-6 + 100e-6; /* order statistics 2 and 6 of 0..8 */
    CHECK(fabs(mcb_spread(reps, 9) - (q3 - q1) / 1e-6) < 1e-9);
    double flat[] = {2, 2, 2, 2};
    CHECK(mcb_spread(flat, 4) == 0);
    CHECK(mcb_spread(flat, 1) == 0);
    /* quartiles interpolate: 1,2,3,4 -> 1.75 and 3.25 around a median of 2.5 */
    double four[] = {4, 1, 3, 2};
    CHECK(fabs(mcb_spread(four, 4) - 1.5 / 2.5) < 1e-12);

    mcb_point p[32];
    mcb_loggp f;
    char why[512];

    /* clean: trusted, no reasons */
    int n = clean_curve(p, 0.05);
    mcb_fit_loggp(p, n, 0.2e-6, 0.2e-6, 0.1e-6, &f);
    CHECK(f.max_rel_err < 1e-9 && !f.o_capped && !f.G_clamped);
    CHECK_EQ_INT(mcb_assess(p, n, &f, 0.1, why, sizeof why), 0);
    CHECK_EQ_STR(why, "");

    /* two sizes whose repetitions spread by 80 % and 120 % */
    p[2].spread = 0.8;
    p[4].spread = 1.2;
    CHECK_EQ_INT(mcb_assess(p, n, &f, 0.1, why, sizeof why), 1);
    CHECK(strstr(why, "2 sizes with a spread above 50 %") && strstr(why, "largest 120 %"));

    /* a disturbed size that moved the medians: the fit error gives it away */
    n = clean_curve(p, 0.05);
    p[3].send = p[3].recv = 10 * p[3].recv;
    mcb_fit_loggp(p, n, 0.2e-6, 0.2e-6, 0.1e-6, &f);
    CHECK(f.max_rel_err > MCB_FIT_ERR_MAX);
    CHECK_EQ_INT(mcb_assess(p, n, &f, 0.1, why, sizeof why), 1);
    char expect[64];
    snprintf(expect, sizeof expect, "fit error %.0f %% above 50 %%", 100 * f.max_rel_err);
    CHECK(strstr(why, expect) != NULL);

    /* a curve that falls with the size: bandwidth clamped to inf, said so;
     * plus a spread gap: two reasons */
    n = clean_curve(p, 0.05);
    for (int i = 0; i < n; i++)
        p[i].send = p[i].recv = 2e-6 - 1e-12 * p[i].size;
    mcb_fit_loggp(p, n, 0.2e-6, 0.2e-6, 0.1e-6, &f);
    CHECK(f.G_clamped && f.G == 0);
    CHECK_EQ_INT(mcb_assess(p, n, &f, 0.9, why, sizeof why), 2);
    CHECK(strstr(why, "bandwidth written as inf") && strstr(why, "gap spread 90 %"));

    /* the overheads' cap is recorded with the value measured before it */
    n = clean_curve(p, 0.05);
    mcb_fit_loggp(p, n, 3e-6, 1e-6, 0, &f);
    CHECK(f.o_capped && f.o_measured == 2e-6 && fabs(f.o - 0.5e-6) < 1e-15 && f.L == 0);

    /* re-measuring: undisturbed beats disturbed even when slower; among
     * equals the faster wins */
    mcb_point a = {8, 1e-6, 1e-6, 0.9}, b = {8, 1.2e-6, 1.2e-6, 0.1}, c = {8, 1.1e-6, 1.1e-6, 0.2};
    CHECK(mcb_better(&b, &a) && !mcb_better(&a, &b));
    CHECK(mcb_better(&c, &b) && !mcb_better(&b, &c));
    return 0;
}
