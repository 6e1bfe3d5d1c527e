/* Accuracy on the measured platform (predict.h, mc_validate_run): the
 * trace's own times against its replay, MPIETE's error measure (Eq. 8)
 * split into computation and communication (its Tab. 4). */
#include "mpicast/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"
#include "mpicast/stats.h"

/* The measured side is `stats`' (stats.h): the window from the end of
 * MPI_Init to the start of MPI_Finalize and the time inside the other calls. */
static mc_err measure(const char *trace, mc_validate_result *v, mc_error *err)
{
    mc_source *src = mc_input_open(trace, err);
    mc_stats *st = src ? mc_stats_collect(src, err) : NULL;
    mc_source_close(src);
    if (!st)
        return err->code ? err->code : MC_ERR_IO;
    v->nranks = mc_stats_nranks(st);
    v->ranks = calloc(v->nranks > 0 ? (size_t)v->nranks : 1, sizeof *v->ranks);
    if (!v->ranks) {
        mc_stats_destroy(st);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    }
    int64_t timed = 0; /* a time-independent trace's calls all last 0 */
    for (int op = 0; op < MC_OP_COUNT; op++)
        timed |= mc_stats_op(st, op, -1).time_ns;
    for (int r = 0; r < v->nranks; r++) {
        mc_stats_rank x = mc_stats_rank_at(st, r);
        mc_validate_rank *k = &v->ranks[r];
        k->measured.time = (double)x.app_ns * 1e-9;
        k->measured.communication = (double)x.mpi_ns * 1e-9;
        k->measured.computation = k->measured.time - k->measured.communication;
        v->unfinished += !x.finalized;
    }
    mc_stats_destroy(st);
    if (!timed)
        return mc_error_set(err, MC_ERR_FORMAT, "%s: no MPI call has a measured duration (a "
                            "time-independent trace?): nothing to validate against", trace);
    return MC_OK;
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
