/* mpicast-bench: the fits (fit.h, docs/bench.md). */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double mcb_one_way(const mcb_point *p)
{
    return (p->send + p->recv) / 2.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mcb_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Quartile by linear interpolation between order statistics (v sorted). */
static double quartile(const double *v, size_t n, double q)
{
    double at = q * (double)(n - 1);
    size_t i = (size_t)at;
    double frac = at - (double)i;
    return i + 1 < n ? v[i] + frac * (v[i + 1] - v[i]) : v[i];
}

double mcb_spread(double *v, size_t n)
{
    if (n < 2)
        return 0.0;
    double med = mcb_median(v, n); /* sorts v */
    return med > 0 ? (quartile(v, n, 0.75) - quartile(v, n, 0.25)) / med : 0.0;
}

int mcb_better(const mcb_point *a, const mcb_point *b)
{
    int da = a->spread > MCB_SPREAD_MAX, db = b->spread > MCB_SPREAD_MAX;
    if (da != db)
        return !da;
    return mcb_one_way(a) < mcb_one_way(b);
}

/* Appends one reason to `why`, "; "-separated. */
static void add_reason(char *why, size_t len, const char *fmt, double x, double y)
{
    size_t used = strlen(why);
    if (used + 3 >= len)
        return;
    if (used)
        used += (size_t)snprintf(why + used, len - used, "; ");
    snprintf(why + used, len - used, fmt, x, y);
}

int mcb_assess(const mcb_point *pts, int n, const mcb_loggp *fit, double gap_spread,
               char *why, size_t len)
{
    int reasons = 0, noisy = 0;
    double worst = 0;
    if (len)
        why[0] = '\0';
    for (int i = 0; i < n; i++)
        if (pts[i].spread > MCB_SPREAD_MAX) {
            noisy++;
            worst = fmax(worst, pts[i].spread);
        }
    if (noisy) {
        reasons++;
        add_reason(why, len, "%.0f sizes with a spread above 50 %% (largest %.0f %%)", noisy,
                   100 * worst);
    }
    if (fit->max_rel_err > MCB_FIT_ERR_MAX) {
        reasons++;
        add_reason(why, len, "fit error %.0f %% above %.0f %%", 100 * fit->max_rel_err,
                   100 * MCB_FIT_ERR_MAX);
    }
    if (gap_spread > MCB_SPREAD_MAX) {
        reasons++;
        add_reason(why, len, "gap spread %.0f %% above %.0f %%", 100 * gap_spread,
                   100 * MCB_SPREAD_MAX);
    }
    if (fit->G_clamped) {
        reasons++;
        add_reason(why, len, "time falls with the size: no per-byte cost, bandwidth written as inf",
                   0, 0); /* (excess arguments are ignored) */
    }
    return reasons;
}

/* A rendezvous message pays a handshake the eager one does not: the
 * one-way time jumps at the switch, by much more than the size grows, and
 * stays up. So the time after a candidate break is the lowest one-way time
 * of all larger sizes (a disturbed point or stretch that comes back down is
 * no break), and the first break wins: later jumps (pipelining thresholds,
 * caches, a loaded machine) are not the eager limit. Sizes below 64 B are
 * left out: their times are at the timer's resolution. */
int mcb_find_break(const mcb_point *pts, int n, double min_excess)
{
    if (n < 2)
        return n;
    double after = INFINITY; /* min of T1 over the points from i on */
    double *env = malloc((size_t)n * sizeof *env);
    if (!env)
        return n;
    for (int i = n - 1; i >= 0; i--) {
        after = fmin(after, mcb_one_way(&pts[i]));
        env[i] = after;
    }
    int found = n;
    for (int i = 1; i < n && found == n; i++) {
        if (pts[i - 1].size < 64)
            continue;
        double t0 = mcb_one_way(&pts[i - 1]);
        if (!(t0 > 0))
            continue;
        if ((env[i] / t0) / (pts[i].size / pts[i - 1].size) >= min_excess)
            found = i;
    }
    free(env);
    return found;
}

void mcb_fit_loggp(const mcb_point *pts, int n, double o_send, double o_recv, double gap,
                   mcb_loggp *out)
{
    int k = mcb_find_break(pts, n, MCB_BREAK_EXCESS);
    out->eager_found = k < n && k > 0;
    out->eager_limit = k > 0 ? pts[k - 1].size : 0;
    int m = k > 0 ? k : n; /* the eager region (everything if no eager point) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < m; i++) {
        double x = pts[i].size, y = mcb_one_way(&pts[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double a, G;
    double den = m * sxx - sx * sx;
    if (m >= 2 && den > 0) {
        G = (m * sxy - sx * sy) / den;
        a = (sy - G * sx) / m;
    } else {
        G = 0;
        a = m > 0 ? sy / m : 0;
    }
    out->G_clamped = 0;
    if (G < 0) { /* a flat, noisy curve: no measurable per-byte cost */
        out->G_clamped = m >= 2;
        G = 0;
        a = m > 0 ? sy / m : 0;
    }
    double o = (o_send + o_recv) / 2.0;
    out->o_measured = o;
    out->o_capped = 2 * o > a;
    if (out->o_capped) /* the overheads explain all of the latency */
        o = a / 2.0;
    out->o = o;
    out->L = a - 2 * o > 0 ? a - 2 * o : 0;
    out->G = G;
    out->g = gap > 0 ? gap : 0;
    out->nfit = m;
    out->max_rel_err = 0;
    for (int i = 0; i < m; i++) {
        double y = mcb_one_way(&pts[i]);
        double e = y > 0 ? fabs(a + G * pts[i].size - y) / y : 0;
        if (e > out->max_rel_err)
            out->max_rel_err = e;
    }
}

void mcb_fmt_time(char *buf, size_t len, double s)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.4fus", s * 1e6);
    else
        snprintf(buf, len, "%.6fms", s * 1e3);
}

void mcb_fmt_size(char *buf, size_t len, double bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB"};
    double b = bytes;
    for (int u = 2; u >= 0; u--) {
        double m = ldexp(1.0, 10 * (u + 1));
        if (b >= m && fmod(b, m) == 0) {
            snprintf(buf, len, "%.0f%s", b / m, unit[u]);
            return;
        }
    }
    snprintf(buf, len, "%.0f", b);
}

void mcb_fmt_bandwidth(char *buf, size_t len, double bps)
{
    if (isinf(bps) || !(bps > 0))
        snprintf(buf, len, "inf");
    else if (bps >= 1e9)
        snprintf(buf, len, "%.4gGB/s", bps / 1e9);
    else
        snprintf(buf, len, "%.4gMB/s", bps / 1e6);
}
