/* mpicast validate TRACE [--platform FILE] [--set KEY=VALUE]... [--json]:
 * how close the same-scale replay is to the measured run (rendering only;
 * the comparison is mc_validate_run in src/predict/validate.c). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "mpicast/predict.h"

static const char validate_head[] =
    "usage: mpicast validate TRACE [--platform FILE] [--set KEY=VALUE]... [--json]\n"
    "\n"
    "Replays TRACE on the platform it was measured on (the platform file that\n"
    "mpicast-bench wrote there) and compares, per rank and in total, the measured\n"
    "times with the predicted ones: the run time (measured: from the end of\n"
    "MPI_Init to the start of MPI_Finalize; predicted: the rank's end), the\n"
    "computation in it and the communication (time inside MPI calls; predicted:\n"
    "comm + wait). Errors as MPIETE's Eq. 8, (predicted - measured) / measured,\n"
    "so a negative error is a prediction that is too short. TRACE is any input\n"
    "kind with measured times (a trace directory, an OTF2 archive).\n"
    "\n";

static const char validate_tail[] =
    "\n"
    "Example:\n"
    "  mpirun -np 2 mpicast-bench -o here.ini && mpicast validate run2/ --platform here.ini\n"
    "Exit status: 0 ok; 1 bad input, a trace without measured times, or a replay\n"
    "that cannot complete; 2 usage error.\n";

typedef struct validate_args {
    const char *trace, *platform;
    cli_list sets; /* --set, in order */
    int json;
} validate_args;

static int parse_args(int argc, char **argv, validate_args *a, int *rc)
{
    memset(a, 0, sizeof *a);
    cli_one trace = {NULL, "TRACE"};
    const cli_opt opts[] = {
        CLI_PLATFORM_OPTS(&a->platform, &a->sets),
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (keys: docs/json.md)",
         &a->json, NULL},
    };
    const cli_spec spec = {"validate", validate_head, validate_tail, 19, opts, CLI_NOPTS(opts),
                           cli_take_one, &trace, 0, 0};
    if (cli_parse(&spec, argc, argv, rc))
        return -1;
    a->trace = trace.value;
    return 0;
}

/* A number, or JSON null where it is not defined (NAN). */
static json_t *num_or_null(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

static json_t *times_json(const mc_validate_times *t)
{
    return json_pack("{s:o,s:o,s:o}", "time", num_or_null(t->time), "computation",
                     num_or_null(t->computation), "communication", num_or_null(t->communication));
}

static json_t *triple_json(const mc_validate_times *m, const mc_validate_times *p,
                           const mc_validate_times *e)
{
    return json_pack("{s:o,s:o,s:o}", "measured", times_json(m), "predicted", times_json(p),
                     "error_percent", times_json(e));
}

static int print_json(const validate_args *a, const mc_validate_result *v)
{
    json_t *ranks = json_array();
    for (int r = 0; r < v->nranks; r++) {
        const mc_validate_rank *x = &v->ranks[r];
        json_t *o = triple_json(&x->measured, &x->predicted, &x->error);
        json_object_set_new(o, "rank", json_integer(r));
        json_array_append_new(ranks, o);
    }
    json_t *doc = triple_json(&v->measured, &v->predicted, &v->error);
    json_object_set_new(doc, "trace", json_string(a->trace));
    json_object_set_new(doc, "platform", a->platform ? json_string(a->platform) : json_null());
    json_object_set_new(doc, "ranks", json_integer(v->nranks));
    json_object_set_new(doc, "unfinished_ranks", json_integer(v->unfinished));
    json_object_set_new(doc, "per_rank", ranks);
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

/* Errors to 0.01 %: a tiny negative rounding shows as 0.00, not -0.00. */
static double shown(double e)
{
    return fabs(e) < 0.005 ? 0.0 : e;
}

static void print_error(double e)
{
    e = shown(e);
    if (isnan(e))
        printf(" %9s", "-");
    else
        printf(" %+9.2f", e);
}

static void print_row(const char *what, double m, double p, double e)
{
    printf("  %-14s %14.9f %14.9f", what, m, p);
    print_error(e);
    putchar('\n');
}

static void print_text(const validate_args *a, const mc_validate_result *v)
{
    printf("validate         %s, %d ranks, on %s\n", a->trace, v->nranks,
           a->platform ? a->platform : "the built-in platform");
    printf("  %-14s %14s %14s %9s\n", "", "measured (s)", "predicted (s)", "error %");
    print_row("run time", v->measured.time, v->predicted.time, v->error.time);
    print_row("computation", v->measured.computation, v->predicted.computation,
              v->error.computation);
    print_row("communication", v->measured.communication, v->predicted.communication,
              v->error.communication);
    printf("(run time: the latest rank's; computation and communication: means over ranks;\n"
           " error = (predicted - measured) / measured, MPIETE Eq. 8)\n");
    if (v->unfinished)
        printf("warning: %d rank%s without MPI_Finalize (a crashed run?): measured up to the "
               "last event\n", v->unfinished, v->unfinished == 1 ? "" : "s");
    if (v->nranks > 32)
        return;
    printf("\n%6s %12s %12s %8s %12s %12s %8s %12s %12s %8s\n", "rank", "time", "predicted",
           "err %", "compute", "predicted", "err %", "comm", "predicted", "err %");
    for (int r = 0; r < v->nranks; r++) {
        const mc_validate_rank *x = &v->ranks[r];
        printf("%6d", r);
        const double m[3] = {x->measured.time, x->measured.computation, x->measured.communication};
        const double p[3] = {x->predicted.time, x->predicted.computation,
                             x->predicted.communication};
        const double e[3] = {x->error.time, x->error.computation, x->error.communication};
        for (int k = 0; k < 3; k++) {
            printf(" %12.6f %12.6f", m[k], p[k]);
            if (isnan(e[k]))
                printf(" %8s", "-");
            else
                printf(" %+8.2f", shown(e[k]));
        }
        putchar('\n');
    }
}

int cmd_validate(int argc, char **argv)
{
    validate_args a;
    int rc = CLI_OK;
    if (parse_args(argc, argv, &a, &rc)) {
        cli_list_free(&a.sets);
        return rc;
    }
    mc_error err = {0};
    mc_platform *p = mc_predict_platform(a.platform, a.sets.v, a.sets.n, &err);
    if (!p) {
        cli_list_free(&a.sets);
        return cli_fail(&err);
    }
    mc_validate_result v;
    if (mc_validate_run(a.trace, p, &v, &err) != MC_OK)
        rc = cli_fail(&err);
    else if (a.json)
        rc = print_json(&a, &v);
    else
        print_text(&a, &v);
    mc_validate_result_free(&v);
    mc_platform_destroy(p);
    cli_list_free(&a.sets);
    return rc;
}
