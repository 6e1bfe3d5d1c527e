/* Accuracy on the measured platform (predict.h, mc_validate_run): the
 * trace's own times against its replay, MPIETE's error measure (Eq. 8)
 * split into computation and communication (its Tab. 4). */
#include "mpicast/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"

/* Measured window of one rank, as `stats` and mpiP take it: from the end of
 * MPI_Init to the start of MPI_Finalize (the first/last event without them),
 * and the time inside other MPI calls there. */
typedef struct window {
    int64_t first_start, last_end, init_end, fin_start, mpi_ns;
    int have_events, have_init, have_fin;
} window;

static void window_add(window *w, const mc_event *e)
{
    if (!w->have_events) {
        w->first_start = e->t_start;
        w->have_events = 1;
    }
    w->last_end = e->t_end;
    if (e->op == MC_OP_INIT && !w->have_init) {
        w->init_end = e->t_end;
        w->have_init = 1;
    } else if (e->op == MC_OP_FINALIZE && !w->have_fin) {
        w->fin_start = e->t_start;
        w->have_fin = 1;
    } else if (e->op != MC_OP_COMPUTE && e->op != MC_OP_INIT && e->op != MC_OP_FINALIZE) {
        w->mpi_ns += mc_event_duration(e);
    }
}

static double window_seconds(const window *w)
{
    int64_t a = w->have_init ? w->init_end : w->first_start;
    int64_t b = w->have_fin ? w->fin_start : w->last_end;
    return b > a ? (double)(b - a) * 1e-9 : 0.0;
}

/* Reads every rank's measured window. */
static mc_err measure(const char *trace, mc_validate_result *v, mc_error *err)
{
    mc_source *src = mc_input_open(trace, err);
    if (!src)
        return err->code ? err->code : MC_ERR_IO;
    v->nranks = src->nranks;
    v->ranks = calloc(src->nranks > 0 ? (size_t)src->nranks : 1, sizeof *v->ranks);
    if (!v->ranks) {
        mc_source_close(src);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    }
    int any_time = 0;
    mc_err rc = MC_OK;
    for (int r = 0; r < src->nranks && rc == MC_OK; r++) {
        window w = {0};
        mc_event e;
        int got;
        while ((got = mc_source_next(src, r, &e, err)) == 1) {
            window_add(&w, &e);
            if (e.op != MC_OP_COMPUTE && e.t_end > e.t_start)
                any_time = 1; /* a time-independent trace's calls all last 0 */
        }
        if (got < 0)
            rc = err->code ? err->code : MC_ERR_FORMAT;
        if (!w.have_fin)
            v->unfinished++;
        mc_validate_rank *x = &v->ranks[r];
        x->measured.time = window_seconds(&w);
        x->measured.communication = (double)w.mpi_ns * 1e-9;
        x->measured.computation = x->measured.time - x->measured.communication;
    }
    mc_source_close(src);
    if (rc == MC_OK && !any_time)
        rc = mc_error_set(err, MC_ERR_FORMAT, "%s: no MPI call has a measured duration (a "
                          "time-independent trace?): nothing to validate against", trace);
    return rc;
}

/* Eq. 8 of MPIETE: (predicted - measured) / measured, in %; NAN when the
 * measured value is 0 (no error can be stated). */
static double error_percent(double predicted, double measured)
{
    return measured > 0 ? 100.0 * (predicted - measured) / measured : NAN;
}

static void errors(mc_validate_times *err, const mc_validate_times *p, const mc_validate_times *m)
{
    err->time = error_percent(p->time, m->time);
    err->computation = error_percent(p->computation, m->computation);
    err->communication = error_percent(p->communication, m->communication);
}

/* Totals: the run time is the latest rank's; computation and communication
 * are means over the ranks. */
static void totals(mc_validate_result *v)
{
    mc_validate_times *m = &v->measured, *p = &v->predicted;
    memset(m, 0, sizeof *m);
    memset(p, 0, sizeof *p);
    for (int r = 0; r < v->nranks; r++) {
        const mc_validate_rank *x = &v->ranks[r];
        if (x->measured.time > m->time)
            m->time = x->measured.time;
        if (x->predicted.time > p->time)
            p->time = x->predicted.time;
        m->computation += x->measured.computation / v->nranks;
        m->communication += x->measured.communication / v->nranks;
        p->computation += x->predicted.computation / v->nranks;
        p->communication += x->predicted.communication / v->nranks;
    }
    errors(&v->error, p, m);
}

mc_err mc_validate_run(const char *trace, const mc_platform *platform, mc_validate_result *v,
                       mc_error *err)
{
    memset(v, 0, sizeof *v);
    mc_err rc = measure(trace, v, err);
    if (rc != MC_OK)
        return rc;
    mc_predict_request rq = {.trace = trace, .platform = platform};
    mc_predict_result pr;
    rc = mc_predict_run(&rq, &pr, err);
    if (rc == MC_OK && pr.run.nranks != v->nranks)
        rc = mc_error_set(err, MC_ERR_INTERNAL, "%s: %d ranks replayed, %d read", trace,
                          pr.run.nranks, v->nranks);
    /* Init is the first event (its burst 0) and Init and Finalize cost
     * nothing in the replay, so a rank's predicted end is its window. */
    for (int r = 0; rc == MC_OK && r < v->nranks; r++) {
        const mc_sim_rank *s = &pr.run.ranks[r];
        mc_validate_rank *x = &v->ranks[r];
        x->predicted.time = mc_sim_seconds(s->end);
        x->predicted.computation = mc_sim_seconds(s->compute);
        x->predicted.communication = mc_sim_seconds(s->comm + s->wait);
        errors(&x->error, &x->predicted, &x->measured);
    }
    mc_predict_result_free(&pr);
    if (rc == MC_OK)
        totals(v);
    return rc;
}

void mc_validate_result_free(mc_validate_result *v)
{
    if (v) {
        free(v->ranks);
        memset(v, 0, sizeof *v);
    }
}
