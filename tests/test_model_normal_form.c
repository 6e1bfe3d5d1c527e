/* Extra-P's normal form c0 + c1·x^i·log2(x)^j: the exponents and the
 * coefficients are recovered, negative exponents (strong scaling) included,
 * and the two-parameter sums and products over p and n. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "mpicast/model.h"

static double noise(int i, double amp)
{
    static const double pattern[] = {0.8, -1.0, 0.35, -0.6, 1.0, -0.25, 0.55, -0.9, 0.1, -0.45};
    return 1 + amp * pattern[i % 10];
}

static void one_parameter(void)
{
    double x[11], y[11];
    for (int i = 0; i < 11; i++) {
        x[i] = pow(2, i); /* 1 .. 1024 */
        y[i] = 3 + 2 * sqrt(x[i]) * log2(x[i]);
    }
    mc_fit_opts o = mc_fit_opts_default();
    mc_fit best;
    mc_error err = {0};
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 11, &o, &best, NULL, NULL, &err) == MC_OK);
    CHECK(best.family == MC_FAMILY_NORMAL);
    CHECK_EQ_INT(best.tp.num, 1);
    CHECK_EQ_INT(best.tp.den, 2);
    CHECK_EQ_INT(best.tp.j, 1);
    CHECK(fabs(best.c[0] - 3) < 1e-6 && fabs(best.c[1] - 2) < 1e-9);
    char f[256];
    mc_fit_formula(&best, "p", f, sizeof f);
    CHECK_EQ_STR(f, "2*p^(1/2)*log2(p) + 3");

    /* 2 % noise: still the normal form, the prediction at 4x the range close */
    for (int i = 0; i < 11; i++)
        y[i] *= noise(i, 0.02);
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 11, &o, &best, NULL, NULL, &err) == MC_OK);
    CHECK(best.family == MC_FAMILY_NORMAL);
    double want = 3 + 2 * sqrt(4096.0) * 12;
    CHECK(fabs(mc_fit_eval(&best, 4096, 0) - want) < 0.1 * want);

    /* strong scaling: time per process 10 + 500·p^(-1/2) */
    for (int i = 0; i < 9; i++)
        y[i] = 10 + 500 / sqrt(x[i]);
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 9, &o, &best, NULL, NULL, &err) == MC_OK);
    CHECK(best.family == MC_FAMILY_NORMAL);
    CHECK_EQ_INT(best.tp.num, -1);
    CHECK_EQ_INT(best.tp.den, 2);
    CHECK_EQ_INT(best.tp.j, 0);
    CHECK(fabs(best.c[1] - 500) < 1e-6);
    /* without negative exponents the same data cannot be fitted exactly */
    o.negative_p = 0;
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 9, &o, &best, NULL, NULL, &err) == MC_OK);
    CHECK(best.mape > 1e-3);
}

typedef double (*law2)(double p, double n);
static double prod(double p, double n) { return 3 + 2 * n / p; }
static double sum(double p, double n) { return 1 + 2 * p + 3 * log2(n); }
static double full(double p, double n) { return 1 + p + 0.5 * n * n + 0.25 * p * n * n; }
static double ponly(double p, double n) { (void)n; return 5 + 0.5 * sqrt(p); }

static mc_fit fit_pn(law2 f, double amp)
{
    static const double ps[] = {2, 4, 8, 16, 32}, ns[] = {10, 20, 40, 80, 160};
    double p[25], n[25], y[25];
    int k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++, k++) {
            p[k] = ps[i], n[k] = ns[j];
            y[k] = f(p[k], n[k]) * noise(k, amp);
        }
    mc_fit_opts o = mc_fit_opts_default();
    mc_fit best;
    mc_error err = {0};
    CHECK(mc_model_select(MC_VAR_PN, p, n, y, 25, &o, &best, NULL, NULL, &err) == MC_OK);
    return best;
}

static void two_parameters(void)
{
    mc_fit f = fit_pn(prod, 0);
    CHECK(f.family == MC_FAMILY_PN_PRODUCT);
    CHECK(f.tp.num == -1 && f.tp.den == 1 && f.tp.j == 0);
    CHECK(f.tn.num == 1 && f.tn.den == 1 && f.tn.j == 0);
    CHECK(fabs(f.c[0] - 3) < 1e-6 && fabs(f.c[1] - 2) < 1e-9);
    CHECK(fabs(mc_fit_eval(&f, 128, 640) - prod(128, 640)) < 1e-6);

    f = fit_pn(sum, 0);
    CHECK(f.family == MC_FAMILY_PN_SUM);
    CHECK(f.tp.num == 1 && f.tp.den == 1 && f.tp.j == 0);
    CHECK(f.tn.num == 0 && f.tn.j == 1);
    CHECK(fabs(f.c[1] - 2) < 1e-9 && fabs(f.c[2] - 3) < 1e-9);

    f = fit_pn(full, 0);
    CHECK(f.family == MC_FAMILY_PN_FULL);
    CHECK(fabs(mc_fit_eval(&f, 64, 320) - full(64, 320)) < 1e-6 * full(64, 320));

    /* depends on p only: a product with the constant n term */
    f = fit_pn(ponly, 0);
    CHECK(f.family == MC_FAMILY_PN_PRODUCT);
    CHECK(f.tn.num == 0 && f.tn.j == 0);
    char buf[256];
    mc_fit_formula(&f, "p", buf, sizeof buf);
    CHECK_EQ_STR(buf, "5 + 0.5*p^(1/2)");

    /* 3 % noise: the product is still found and predicts within 10 % */
    f = fit_pn(prod, 0.03);
    CHECK(f.family == MC_FAMILY_PN_PRODUCT);
    CHECK(fabs(mc_fit_eval(&f, 128, 640) - prod(128, 640)) < 0.1 * prod(128, 640));
}

int main(void)
{
    one_parameter();
    two_parameters();
    puts("ok");
    return 0;
}
