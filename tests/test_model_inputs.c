/* The three inputs of `mpicast model`: CSV (repeats averaged with their
 * spread, classes as numbers, quoted fields), Extra-P text (one and two
 * parameters, repetitions), `mpicast stats --json` (per process, labels);
 * and bad input: one message naming file:line. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "mpicast/model.h"

#define D MODEL_DATA "/"

static const mc_series *find(const mc_series *s, size_t n, const char *fn)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i].function, fn) == 0)
            return &s[i];
    return NULL;
}

static void csv(void)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    CHECK(mc_mdata_read_csv(d, D "calls.csv", &err) == MC_OK);
    mc_series *s;
    size_t n;
    CHECK(mc_mdata_series(d, MC_VAR_P, "calls", &s, &n, &err) == MC_OK);
    CHECK_EQ_INT(n, 2);
    const mc_series *send = find(s, n, "MPI_Send");
    CHECK(send && send->npts == 4);
    CHECK(send->fixed == 4); /* class B */
    CHECK(send->pts[2].p == 4 && send->pts[2].repeats == 2 && send->pts[2].value == 14);
    CHECK(send->pts[3].p == 8 && send->pts[3].value == 26); /* quoted fields */
    CHECK(find(s, n, "MPI_Allreduce")->pts[2].value == 10); /* spaces trimmed */
    mc_series_free(s, n);
    /* elapsed rows are runs: core-seconds 100 + 104 + 108 + 112 */
    size_t runs;
    CHECK(fabs(mc_mdata_cost(d, NAN, NAN, &runs) - 424) < 1e-9 && runs == 4);
    CHECK(fabs(mc_mdata_cost(d, 8, NAN, &runs) - 312) < 1e-9 && runs == 3);
    CHECK(mc_mdata_run_elapsed(d, 4, 4) == 27);
    mc_mdata_destroy(d);

    /* columns in any order; repeats give mean, sd, min, max */
    d = mc_mdata_create();
    CHECK(mc_mdata_read_csv(d, D "repeats.csv", &err) == MC_OK);
    CHECK(mc_mdata_series(d, MC_VAR_P, NULL, &s, &n, &err) == MC_OK);
    CHECK(n == 1 && s[0].npts == 2);
    CHECK(s[0].pts[0].repeats == 3 && fabs(s[0].pts[0].value - 11) < 1e-12);
    CHECK(fabs(s[0].pts[0].sd - 1) < 1e-12 && s[0].pts[0].min == 10 && s[0].pts[0].max == 12);
    mc_series_free(s, n);
    mc_mdata_destroy(d);
}

static void extrap(void)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    CHECK(mc_mdata_read_extrap(d, D "extrap_1p.txt", MC_VAR_P, &err) == MC_OK);
    mc_series *s;
    size_t n;
    CHECK(mc_mdata_series(d, MC_VAR_P, "calls", &s, &n, &err) == MC_OK);
    CHECK_EQ_INT(n, 2);
    const mc_series *send = find(s, n, "MPI_Send");
    CHECK(send->npts == 5 && send->pts[4].p == 16 && send->pts[4].value == 33 &&
          send->pts[4].repeats == 2);
    const mc_series *bc = find(s, n, "MPI_Bcast");
    CHECK(bc->npts == 5 && fabs(bc->pts[1].value - 1.30103) < 1e-12);
    /* and the models: 2p + 1 and log10 */
    double x[5], y[5];
    for (int i = 0; i < 5; i++)
        x[i] = send->pts[i].p, y[i] = send->pts[i].value;
    mc_fit f;
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 5, NULL, &f, NULL, NULL, &err) == MC_OK);
    CHECK(f.family == MC_FAMILY_LINEAR && fabs(f.c[1] - 2) < 1e-9);
    for (int i = 0; i < 5; i++)
        x[i] = bc->pts[i].p, y[i] = bc->pts[i].value;
    CHECK(mc_model_select(MC_VAR_P, x, NULL, y, 5, NULL, &f, NULL, NULL, &err) == MC_OK);
    CHECK(f.family == MC_FAMILY_LOG);
    mc_series_free(s, n);
    mc_mdata_destroy(d);

    /* two named parameters, points over two POINTS lines */
    d = mc_mdata_create();
    CHECK(mc_mdata_read_extrap(d, D "extrap_2p.txt", MC_VAR_PN, &err) == MC_OK);
    CHECK(mc_mdata_series(d, MC_VAR_PN, "time", &s, &n, &err) == MC_OK);
    CHECK(n == 1 && s[0].npts == 4);
    CHECK(s[0].pts[0].p == 2 && s[0].pts[0].n == 10 && s[0].pts[0].value == 12.75);
    CHECK(s[0].pts[3].p == 4 && s[0].pts[3].n == 20 && s[0].pts[3].value == 13);
    mc_series_free(s, n);
    mc_mdata_destroy(d);
}

static void stats_json(void)
{
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    static const int ps[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, D "stats_p%d.json", ps[i]);
        mc_run_label l = {0};
        CHECK(mc_parse_label("n=A", &l, &err) == MC_OK);
        CHECK(mc_mdata_read_stats(d, path, &l, &err) == MC_OK);
    }
    mc_series *s;
    size_t n;
    CHECK(mc_mdata_series(d, MC_VAR_P, "calls", &s, &n, &err) == MC_OK);
    const mc_series *send = find(s, n, "MPI_Send");
    CHECK(send && send->npts == 4 && send->fixed == 1);
    for (int i = 0; i < 4; i++) /* per process: 2p + 1 */
        CHECK(send->pts[i].value == 2 * ps[i] + 1);
    CHECK(find(s, n, "MPI_Barrier")->pts[3].value == 5);
    mc_series_free(s, n);
    /* by n needs n for every run: labelled here */
    CHECK(mc_mdata_series(d, MC_VAR_N, "bytes", &s, &n, &err) == MC_OK);
    mc_series_free(s, n);
    /* cost: p × app_time = 64 + p/2 each */
    size_t runs;
    CHECK(fabs(mc_mdata_cost(d, NAN, NAN, &runs) - (4 * 64 + 7.5)) < 1e-9 && runs == 4);
    mc_mdata_destroy(d);

    /* unlabelled: p from "ranks", n unknown, so --by n is an error */
    d = mc_mdata_create();
    CHECK(mc_mdata_read_stats(d, D "stats_p2.json", NULL, &err) == MC_OK);
    CHECK(mc_mdata_series(d, MC_VAR_N, "calls", &s, &n, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "stats_p2.json") && strstr(err.msg, "no problem size"));
    mc_mdata_destroy(d);
}

/* Reading `file` fails with a message that starts "path:line: " and
 * contains `what`. */
static void bad(const char *file, int extrap, int line, const char *what)
{
    char path[512], prefix[600];
    snprintf(path, sizeof path, D "%s", file);
    mc_mdata *d = mc_mdata_create();
    mc_error err = {0};
    mc_err rc = extrap ? mc_mdata_read_extrap(d, path, MC_VAR_P, &err)
                       : mc_mdata_read_csv(d, path, &err);
    CHECK(rc == MC_ERR_FORMAT);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, what)) {
        fprintf(stderr, "%s: got '%s'\n", file, err.msg);
        exit(1);
    }
    CHECK(strchr(err.msg, '\n') == NULL);
    mc_mdata_destroy(d);
}

int main(void)
{
    csv();
    extrap();
    stats_json();
    bad("missing_column.csv", 0, 1, "missing column 'metric'");
    bad("not_a_number.csv", 0, 3, "value 'three' is not a number");
    bad("short_row.csv", 0, 3, "missing value for column 'metric'");
    bad("bad_p.csv", 0, 2, "p '-2' is not a positive number");
    bad("extrap_bad.txt", 1, 6, "more DATA lines than the 2 POINTS");
    bad("extrap_badnum.txt", 1, 4, "value 'x2' is not a number");

    mc_run_label l = {0};
    mc_error err = {0};
    CHECK(mc_parse_label("p=64,n=B", &l, &err) == MC_OK && l.p == 64 && l.n == 4);
    CHECK(mc_parse_label("q=3", &l, &err) == MC_ERR_USAGE);
    double v;
    CHECK(mc_parse_size("D", &v) == 0 && v == 256);
    CHECK(mc_parse_size("s", &v) == 0 && v == 1.0 / 16);
    CHECK(mc_parse_size("0", &v) == -1 && mc_parse_size("X", &v) == -1);
    puts("ok");
    return 0;
}
