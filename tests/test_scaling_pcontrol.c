/* `scaling` input from traces in which MPI_Pcontrol markers delimit the
 * parallel part (docs/models.md, "Traces"): synthetic rank files written with
 * mc_writer give exact tau (longest Init-end → Finalize-start window) and
 * gamma (sum over ranks of Pcontrol(1)-exit → Pcontrol(0)-entry), stray
 * markers are ignored, an open part closes at the rank's end, and runs from
 * a known τ(p,n) recover the model's laws.
 *
 * `test_scaling_pcontrol write DIR P N` writes one run of that model (used by
 * the CLI test, tests/data/model/cli_test.py). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpicast/model.h"
#include "rankfile_util.h"

/* The model the synthetic runs follow: τ = a(n)·(1/p + C1 + C2·p) with
 * a(n) = 0.01·n s and Σγ = a(n) at every p (no hidden overhead). */
#define C1 0.02
#define C2 0.001
static double a_of(double n) { return 0.01 * n; }

typedef struct wr {
    mc_writer *w;
} wr;

static void put(wr *w, int op, int tag, int64_t t0, int64_t t1)
{
    mc_event e = ev_make(op, t0, t1);
    e.tag = tag;
    if (op == MC_OP_BARRIER)
        e.peer2 = 2; /* comm size (check_exact's two ranks) */
    mc_error err = {0};
    CHECK(mc_writer_add(w->w, &e, &err) == MC_OK);
}

static wr open_rank(const char *dir, int rank)
{
    mc_error err = {0};
    wr w = {mc_writer_open(dir, rank, 0, 0, &err)};
    CHECK(w.w != NULL);
    return w;
}

static void close_rank(wr *w)
{
    mc_error err = {0};
    CHECK(mc_writer_close(w->w, &err) == MC_OK);
}

/* One run of the model at (p, n): every rank does its share a/p of the
 * parallel work in two marked intervals with a stray repeated marker in
 * each state; rank r ends r µs before rank 0, whose window is τ. */
static void write_model_run(const char *dir, int p, double n)
{
    const int64_t mk = 1000; /* each marker call takes 1 µs */
    double a = a_of(n);
    int64_t tau = (int64_t)llround(1e9 * a * (1.0 / p + C1 + C2 * p));
    int64_t par = (int64_t)llround(1e9 * a / p);
    for (int r = 0; r < p; r++) {
        wr w = open_rank(dir, r);
        int64_t end = tau - 1000 * r;
        int64_t serial = end - par - 6 * mk, h1 = par / 2, h2 = par - h1;
        int64_t t = serial / 2;
        put(&w, MC_OP_INIT, MC_NONE, -5000, 0);
        put(&w, MC_OP_PCONTROL, 1, t, t + mk), t += mk;          /* opens */
        put(&w, MC_OP_PCONTROL, 1, t + 10, t + 10 + mk);          /* stray: ignored */
        put(&w, MC_OP_PCONTROL, 0, t + h1, t + h1 + mk);          /* closes */
        t += h1 + mk;
        put(&w, MC_OP_PCONTROL, 0, t + 5, t + 5 + mk);            /* stray: ignored */
        t = end - h2 - 1; /* the second part ends 1 ns before Finalize */
        put(&w, MC_OP_PCONTROL, 1, t - mk, t);                    /* opens */
        put(&w, MC_OP_PCONTROL, 0, t + h2, t + h2 + 1);           /* closes */
        put(&w, MC_OP_FINALIZE, MC_NONE, end, end + 3000);
        close_rank(&w);
    }
}

/* The hand-made case: exact tau and gamma, the stray markers, an open part
 * closed by Finalize, the counts reported. */
static void check_exact(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "pcontrol");
    wr w0 = open_rank(dir, 0), w1 = open_rank(dir, 1);
    /* rank 0: window 0 → 10 ms; parallel 1→3 ms and 5→9 ms (still open at
     * Finalize, 9 ms): 6 ms */
    put(&w0, MC_OP_INIT, MC_NONE, -2000, 0);
    put(&w0, MC_OP_PCONTROL, 1, 900000, 1000000);
    put(&w0, MC_OP_BARRIER, MC_NONE, 2000000, 2500000); /* inside: counts */
    put(&w0, MC_OP_PCONTROL, 0, 3000000, 3100000);
    put(&w0, MC_OP_PCONTROL, 0, 4000000, 4100000); /* already closed: ignored */
    put(&w0, MC_OP_PCONTROL, 2, 4900000, 5000000); /* positive level opens */
    put(&w0, MC_OP_FINALIZE, MC_NONE, 10000000, 10500000);
    close_rank(&w0);
    /* rank 1: window 0 → 12 ms, no Finalize (its time ends at its last
     * event); parallel 2→4 ms */
    put(&w1, MC_OP_INIT, MC_NONE, -2000, 0);
    put(&w1, MC_OP_PCONTROL, 1, 1900000, 2000000);
    put(&w1, MC_OP_PCONTROL, 1, 2500000, 2600000); /* already open: ignored */
    put(&w1, MC_OP_PCONTROL, 0, 4000000, 4100000);
    put(&w1, MC_OP_BARRIER, MC_NONE, 11000000, 12000000);
    close_rank(&w1);

    mc_run_label lab = {0, 1, 0, 64, 0, 0};
    mc_pcontrol_run run;
    mc_error err = {0};
    CHECK(mc_scaling_read_trace(dir, &lab, &run, &err) == MC_OK);
    CHECK_EQ_INT(run.nranks, 2);
    CHECK(run.obs.p == 2 && run.obs.n == 64);
    CHECK(fabs(run.obs.tau - 0.012) < 1e-12);
    /* rank 0: (3.0 − 1.0) + (10.0 − 5.0) ms; rank 1: 4.0 − 2.0 ms */
    CHECK(fabs(run.obs.gamma - 0.009) < 1e-12);
    CHECK_EQ_INT(run.intervals, 3);
    CHECK_EQ_INT(run.open_ranks, 1);
    CHECK_EQ_INT(run.no_finalize_ranks, 1);
    CHECK_EQ_INT(run.unmarked_ranks, 0);

    /* p from the label wins over the rank count */
    mc_run_label lab2 = {1, 1, 8, 64, 0, 0};
    CHECK(mc_scaling_read_trace(dir, &lab2, &run, &err) == MC_OK);
    CHECK(run.obs.p == 8);

    /* no n: an error naming the directory */
    mc_run_label nolab = {0, 0, 0, 0, 0, 0};
    CHECK(mc_scaling_read_trace(dir, &nolab, &run, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, dir) && strstr(err.msg, "n=N"));
    rm_tree(dir);
}

/* A trace without markers is refused: its parallel part is unknown. */
static void check_unmarked(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "pcontrol-none");
    wr w = open_rank(dir, 0);
    put(&w, MC_OP_INIT, MC_NONE, -2000, 0);
    put(&w, MC_OP_PCONTROL, 0, 100, 200); /* closes nothing */
    put(&w, MC_OP_FINALIZE, MC_NONE, 5000, 6000);
    close_rank(&w);
    mc_run_label lab = {0, 1, 0, 1, 0, 0};
    mc_pcontrol_run run;
    mc_error err = {0};
    CHECK(mc_scaling_read_trace(dir, &lab, &run, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "no parallel part marked") != NULL);
    CHECK(mc_scaling_read_trace("/nonexistent/trace", &lab, &run, &err) != MC_OK);
    rm_tree(dir);
}

static void check_merge(void)
{
    mc_scaling_obs o[] = {{2, 10, 1, 3}, {4, 10, 2, 4}, {2, 10, 3, 5}, {2, 10, 5, 7}, {4, 20, 1, 1}};
    size_t n = 5;
    mc_error err = {0};
    CHECK(mc_scaling_merge_repeats(o, &n, &err) == MC_OK);
    CHECK_EQ_INT(n, 3);
    CHECK(o[0].p == 2 && fabs(o[0].tau - 3) < 1e-12 && fabs(o[0].gamma - 5) < 1e-12);
    CHECK(o[1].p == 4 && o[1].n == 10 && o[1].tau == 2);
    CHECK(o[2].p == 4 && o[2].n == 20);
}

/* Runs of the model at n = 1000, 2000, 4000 and p = 1..16, read back from
 * traces: tau and gamma exact to the ns, the laws recovered. */
static void check_recover(void)
{
    char root[256];
    make_tmpdir(root, sizeof root, "pcontrol-model");
    mc_scaling_obs obs[64];
    size_t nobs = 0;
    static const double ns[] = {1000, 2000, 4000};
    for (int i = 0; i < 3; i++)
        for (int p = 1; p <= 16; p *= 2) {
            char dir[400];
            snprintf(dir, sizeof dir, "%s/n%g-p%d", root, ns[i], p);
            write_model_run(dir, p, ns[i]);
            mc_run_label lab = {0, 1, 0, ns[i], 0, 0};
            mc_pcontrol_run run;
            mc_error err = {0};
            if (mc_scaling_read_trace(dir, &lab, &run, &err) != MC_OK) {
                fprintf(stderr, "%s\n", err.msg);
                CHECK(0);
            }
            double a = a_of(ns[i]);
            CHECK(fabs(run.obs.tau - a * (1.0 / p + C1 + C2 * p)) < 2e-9);
            CHECK(fabs(run.obs.gamma - a) < 2e-9 * p);
            CHECK_EQ_INT(run.intervals, 2 * p);
            CHECK_EQ_INT(run.open_ranks + run.no_finalize_ranks + run.unmarked_ranks, 0);
            obs[nobs++] = run.obs;
        }
    mc_scaling_model m;
    mc_error err = {0};
    CHECK(mc_scaling_fit(obs, nobs, NULL, &m, &err) == MC_OK);
    CHECK_EQ_INT(m.nexcluded, 0);
    for (int i = 0; i < 3; i++) {
        double n = ns[i];
        CHECK(fabs(mc_law_eval(&m.a, n) - a_of(n)) < 1e-6 * a_of(n));
        CHECK(fabs(mc_law_eval(&m.c1, n) - C1) < 1e-6);
        CHECK(fabs(mc_law_eval(&m.c2, n) - C2) < 1e-7);
    }
    mc_scaling_model_free(&m);
    rm_tree(root);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "write") == 0) {
        write_model_run(argv[2], atoi(argv[3]), atof(argv[4]));
        return 0;
    }
    check_exact();
    check_unmarked();
    check_merge();
    check_recover();
    puts("ok");
    return 0;
}
