/* The processing-time model on data synthesised from a known
 * τ(p,n) = a(n)·(1/p + c′1(n) + c′2(n)·p) with the study's laws (table 1-2):
 * a(n), c′1(n), c′2(n) and the closed form are recovered, points outside the
 * efficiency window are excluded, and the 50 % efficiency point is right. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/model.h"

static double a_of(double n) { return 155.9 + 0.2889 * n + 3.148e-6 * n * n; }
static double c1_of(double n) { return 0.1113 - 5.436e-7 * n; }
static double c2_of(double n) { return 0.000743 + 11.89 / n; }

static int rel(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want);
}

static void write_csv(const char *path)
{
    static const double ns[] = {3200, 7200, 12800, 20000, 39200, 51200, 64800, 80000, 96800};
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "# synthetic: c0 = 0.05, gamma grows 1 %% with p (hidden overhead)\np,n,tau,gamma\n");
    for (int i = 0; i < 9; i++) {
        double n = ns[i], g1 = a_of(n) / 1.05;
        for (double p = 2; p <= 512; p *= 2) {
            double tau = a_of(n) * (1 / p + c1_of(n) + c2_of(n) * p);
            fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", p, n, tau, g1 * (1 + 0.01 * (p - 2) / p));
            if (p == 4) /* a repeat: averaged with the line above */
                fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", p, n, tau, g1 * (1 + 0.01 * (p - 2) / p));
        }
    }
    /* superlinear outlier: eps' > 1, outside the window */
    fprintf(f, "1024,80000,1,41347\n");
    fclose(f);
}

int main(void)
{
    char path[] = "/tmp/mpicast_scaling_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    write_csv(path);
    mc_scaling_obs *obs;
    size_t nobs;
    mc_error err = {0};
    CHECK(mc_scaling_read_csv(path, &obs, &nobs, &err) == MC_OK);
    CHECK_EQ_INT(nobs, 9 * 9 + 1);
    mc_scaling_model m;
    mc_scaling_opts o = mc_scaling_opts_default();
    CHECK(mc_scaling_fit(obs, nobs, &o, &m, &err) == MC_OK);

    /* per n: c0 = 0.05 exactly, c1 = (1+c0)·c′1, c2 = (1+c0)·c′2 */
    CHECK_EQ_INT(m.nn, 9);
    for (size_t i = 0; i < m.nn; i++) {
        const mc_scaling_n *r = &m.per_n[i];
        CHECK(!r->skipped && r->p1 == 2);
        CHECK(fabs(r->c0 - 0.05) < 1e-8);
        CHECK(rel(r->c1, 1.05 * c1_of(r->n), 1e-7));
        CHECK(rel(r->c2, 1.05 * c2_of(r->n), 1e-7));
        CHECK(rel(r->a, a_of(r->n), 1e-9));
        CHECK(r->r > 0.999999);
    }
    /* the laws: a quadratic, c′1 linear, c′2 inverse */
    CHECK(!m.a.inverse && m.a.degree == 2);
    CHECK(rel(m.a.c[0], 155.9, 1e-5) && rel(m.a.c[1], 0.2889, 1e-7) && rel(m.a.c[2], 3.148e-6, 1e-7));
    CHECK(!m.c1.inverse && m.c1.degree == 1);
    CHECK(rel(m.c1.c[0], 0.1113, 1e-7) && rel(m.c1.c[1], -5.436e-7, 1e-6));
    CHECK(m.c2.inverse);
    CHECK(rel(m.c2.c[0], 0.000743, 1e-6) && rel(m.c2.c[1], 11.89, 1e-7));
    char buf[256];
    mc_law_formula(&m.c2, buf, sizeof buf);
    CHECK_EQ_STR(buf, "0.000743 + 11.89/n");
    mc_law_formula(&m.a, buf, sizeof buf);
    CHECK_EQ_STR(buf, "155.9 + 0.2889*n + 3.148e-06*n^2");

    /* the window (0.1, 1]: every excluded point is outside it, every kept
     * one inside; the eps' > 1 outlier is among the excluded */
    int outlier = 0;
    size_t excluded = 0;
    for (size_t i = 0; i < m.nexcluded; i++) {
        CHECK(m.excluded[i].eps <= 0.1 || m.excluded[i].eps > 1);
        outlier |= m.excluded[i].p == 1024 && m.excluded[i].eps > 1;
    }
    for (size_t i = 0; i < m.nn; i++)
        excluded += m.per_n[i].excluded;
    CHECK(outlier && excluded == m.nexcluded && m.nexcluded == 35);
    for (size_t i = 0; i < nobs; i++) {
        double g1 = a_of(obs[i].n) / 1.05, eps = g1 / (obs[i].p * obs[i].tau);
        int in = eps > 0.1 && eps <= 1, found = 0;
        for (size_t k = 0; k < m.nexcluded; k++)
            found |= m.excluded[k].p == obs[i].p && m.excluded[k].n == obs[i].n;
        CHECK(in != found);
    }

    /* strong scaling at n = 80000 reproduces the synthetic τ and its parts */
    mc_scaling_row r = mc_scaling_eval(&m, 16, 80000);
    CHECK(rel(r.tau, a_of(80000) * (1.0 / 16 + c1_of(80000) + c2_of(80000) * 16), 1e-7));
    CHECK(rel(r.parallel, a_of(80000) / 16, 1e-7));
    CHECK(rel(r.chi0, a_of(80000) * c1_of(80000), 1e-6));
    CHECK(rel(r.chi1, a_of(80000) * c2_of(80000) * 16, 1e-6));
    CHECK(rel(r.efficiency, r.parallel / r.tau, 1e-12));
    /* efficiency 1/(1 + c′1 p + c′2 p²) = 0.5 at the root of c′2 p² + c′1 p − 1 */
    double c1 = c1_of(80000), c2 = c2_of(80000);
    double want = (-c1 + sqrt(c1 * c1 + 4 * c2)) / (2 * c2);
    CHECK(rel(mc_scaling_p_at_efficiency(&m, 80000, 0, 0.5, 1e9), want, 1e-6));
    /* weak scaling: n = k·p */
    r = mc_scaling_eval(&m, 8, 2500 * 8);
    CHECK(rel(r.tau, a_of(20000) * (1.0 / 8 + c1_of(20000) + c2_of(20000) * 8), 1e-7));
    double pw = mc_scaling_p_at_efficiency(&m, 2500, 1, 0.5, 1e9);
    CHECK(pw > 1 && fabs(mc_scaling_eval(&m, pw, 2500 * pw).efficiency - 0.5) < 1e-6);

    mc_scaling_model_free(&m);
    free(obs);

    /* a narrower window excludes more */
    CHECK(mc_scaling_read_csv(path, &obs, &nobs, &err) == MC_OK);
    o.eps_min = 0.3;
    CHECK(mc_scaling_fit(obs, nobs, &o, &m, &err) == MC_OK);
    CHECK(m.nexcluded > 35);
    for (size_t i = 0; i < m.nexcluded; i++)
        CHECK(m.excluded[i].eps <= 0.3 || m.excluded[i].eps > 1);
    mc_scaling_model_free(&m);
    free(obs);
    remove(path);

    /* bad input names file:line */
    FILE *f = fopen(path, "w");
    fprintf(f, "p,n,tau\n1,2,3\n");
    fclose(f);
    CHECK(mc_scaling_read_csv(path, &obs, &nobs, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, ":1: missing column 'gamma'") != NULL);
    f = fopen(path, "w");
    fprintf(f, "p,n,tau,gamma\n1,2,3,4\n2,2,abc,4\n");
    fclose(f);
    CHECK(mc_scaling_read_csv(path, &obs, &nobs, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, ":3: tau 'abc' is not a number") != NULL);
    remove(path);
    puts("ok");
    return 0;
}
