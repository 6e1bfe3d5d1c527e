/* Runs for the processing-time model read from traces in which MPI_Pcontrol
 * markers delimit the parallel part (docs/models.md, "Traces").
 *
 * Per rank, in event order: a Pcontrol of positive level opens the parallel
 * part, one of level 0 closes it; a marker that does not change the state is
 * ignored (the parts do not nest), so a stray repeat cannot double-count.
 * An interval runs from the opening marker's exit to the closing marker's
 * entry: the markers' own time is neither parallel work nor overhead. A part
 * still open at the rank's end is closed there.
 *
 * The rank's window is `mpicast stats`'s application time (end of Init to
 * start of Finalize, else the first / last event), so tau here equals stats'
 * "app_time" of the same trace. mpicast's tracer records nothing after
 * Pcontrol(0) until the next Pcontrol(1) — MPI's "profiling off" — so a
 * program that ends inside a closed part has no Finalize event; the caller
 * is told (no_finalize_ranks) because tau then misses the serial tail.
 */
#define MPICAST_MODEL_INTERNAL
#include "mpicast/model.h"
#include "mpicast/format.h"
#include "mpicast/input.h"
#include "mpicast/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One rank's pass: its window and its parallel-part time. */
typedef struct rank_scan {
    mc_app_window win;   /* stats' window, one computation */
    int open;            /* inside the parallel part */
    int64_t opened;      /* exit of the opening marker */
    int64_t parallel_ns; /* closed intervals */
    long intervals;
} rank_scan;

static void scan_event(rank_scan *r, const mc_event *e)
{
    mc_app_window_add(&r->win, e);
    if (e->op == MC_OP_PCONTROL) {
        if (e->tag > 0 && !r->open) {
            r->open = 1;
            r->opened = e->t_end;
        } else if (e->tag == 0 && r->open) {
            r->open = 0;
            if (e->t_start > r->opened)
                r->parallel_ns += e->t_start - r->opened;
            r->intervals++;
        }
    }
}

/* An open part is closed at the window's end. */
static void finish_rank(rank_scan *r, int *closed_by_end)
{
    int64_t to = mc_app_window_end(&r->win);
    *closed_by_end = 0;
    if (r->open) {
        if (to > r->opened)
            r->parallel_ns += to - r->opened;
        r->intervals++;
        r->open = 0;
        *closed_by_end = 1;
    }
}

mc_err mc_scaling_read_trace(const char *dir, const mc_run_label *label, mc_pcontrol_run *out,
                             mc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!label || !label->have_n)
        return mc_error_set(err, MC_ERR_FORMAT,
                            "%s: no problem size: label the trace DIR:n=N or --label n=N", dir);
    mc_source *src = mc_input_open(dir, err);
    if (!src)
        return err->code ? err->code : MC_ERR_IO;
    int nranks = src->nranks;
    int64_t tau_ns = 0, gamma_ns = 0;
    mc_err rc = MC_OK;
    for (int rank = 0; rank < nranks && rc == MC_OK; rank++) {
        rank_scan r;
        memset(&r, 0, sizeof r);
        mc_event e;
        int got;
        while ((got = mc_source_next(src, rank, &e, err)) == 1)
            scan_event(&r, &e);
        if (got < 0) {
            /* a truncated run's end is unknown: its time would be wrong */
            rc = err->code ? err->code : MC_ERR_FORMAT;
            break;
        }
        if (!r.win.have_events)
            continue;
        int closed_by_end;
        finish_rank(&r, &closed_by_end);
        int64_t app = mc_app_window_ns(&r.win);
        tau_ns = app > tau_ns ? app : tau_ns;
        gamma_ns += r.parallel_ns;
        out->intervals += r.intervals;
        out->unmarked_ranks += r.intervals == 0;
        out->open_ranks += closed_by_end;
        out->no_finalize_ranks += !r.win.have_fin;
    }
    mc_source_close(src);
    if (rc)
        return rc;
    out->nranks = nranks;
    out->obs.p = label->have_p ? label->p : nranks;
    out->obs.n = label->n;
    out->obs.tau = (double)tau_ns / 1e9;
    out->obs.gamma = (double)gamma_ns / 1e9;
    if (out->intervals == 0)
        return mc_error_set(err, MC_ERR_FORMAT,
                            "%s: no parallel part marked: expected MPI_Pcontrol(1) ... "
                            "MPI_Pcontrol(0) around it (docs/models.md)", dir);
    if (!(out->obs.tau > 0) || !(out->obs.p > 0))
        return mc_error_set(err, MC_ERR_FORMAT, "%s: the run's elapsed time is 0", dir);
    return MC_OK;
}

typedef struct keyed {
    mc_scaling_obs o;
    size_t idx, first; /* input order; first input index of its (p, n) */
} keyed;

static int by_pn(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->o.p != y->o.p)
        return x->o.p < y->o.p ? -1 : 1;
    if (x->o.n != y->o.n)
        return x->o.n < y->o.n ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_first(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts by (p, n), averages each group in input order, then restores the
 * order of first appearance: O(n log n) (issue 26: was a search per run). */
mc_err mc_scaling_merge_repeats(mc_scaling_obs *obs, size_t *count, mc_error *err)
{
    size_t N = *count, n = 0;
    keyed *k = malloc((N ? N : 1) * sizeof *k);
    if (!k)
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < N; i++)
        k[i] = (keyed){obs[i], i, i};
    qsort(k, N, sizeof *k, by_pn);
    for (size_t i = 0; i < N;) {
        size_t j = i + 1;
        keyed g = k[i];
        for (; j < N && k[j].o.p == g.o.p && k[j].o.n == g.o.n; j++) {
            double reps = (double)(j - i + 1); /* running mean, as the runs came */
            g.o.tau += (k[j].o.tau - g.o.tau) / reps;
            g.o.gamma += (k[j].o.gamma - g.o.gamma) / reps;
        }
        k[n++] = g; /* n <= i: k[i..j) was read above */
        i = j;
    }
    qsort(k, n, sizeof *k, by_first);
    for (size_t i = 0; i < n; i++)
        obs[i] = k[i].o;
    free(k);
    *count = n;
    return MC_OK;
}
