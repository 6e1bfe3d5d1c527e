/* Chrome trace-event JSON of a real trace (mpicast export chrome), for
 * Perfetto or chrome://tracing. Track per rank (pid 0, tid = rank):
 *   compute   "X" slices for the bursts between MPI calls;
 *   mpi       "B"/"E" pairs, one per MPI call, named MPI_<op>, with args;
 *   wait      an "X" slice nested at the start of a receive or wait whose
 *             matching send started later (late sender: the time is
 *             certainly waiting, given the trace's common time base);
 *   flows     "s"/"f" pairs (cat msg) from each send to the call that
 *             completed its receive.
 * The simulated run has its own writer (src/sim/timeline.c). */
#define MC_EXPORT_INTERNAL
#include "export_internal.h"

#include <stdlib.h>
#include <string.h>

static double us(int64_t ns, int64_t base)
{
    return (double)(ns - base) * 1e-3;
}

static void event_args(FILE *f, const mc_event *e)
{
    fputs(",\"args\":{", f);
    int first = 1;
#define ARG_(key, cond, val)                                                 \
    if (cond) {                                                              \
        fprintf(f, "%s\"" key "\":%lld", first ? "" : ",", (long long)(val)); \
        first = 0;                                                           \
    }
    ARG_("peer", e->peer >= 0, e->peer)
    ARG_("tag", e->tag >= 0 && mc_op_kind_of(e->op) == MC_KIND_P, e->tag)
    ARG_("bytes", e->bytes != 0, e->bytes)
    ARG_("bytes2", e->bytes2 != 0, e->bytes2)
    ARG_("req", e->req != 0, e->req)
#undef ARG_
    if (e->comm != MC_COMM_WORLD)
        fprintf(f, "%s\"comm\":\"0x%llx\"", first ? "" : ",", (unsigned long long)e->comm);
    fputc('}', f);
}

static void write_rank(FILE *f, const loaded_trace *t, int r, const int64_t *wait_end, int64_t base,
                       mc_export_info *info)
{
    const lt_rank *rk = &t->ranks[r];
    for (size_t i = 0; i < rk->n; i++) {
        const mc_event *e = &rk->ev[i];
        if (e->op == MC_OP_COMPUTE) {
            /* time-independent input: only sleeps carry time */
            continue;
        }
        if (i > 0 && e->burst > 0) {
            fprintf(f, ",\n{\"name\":\"compute\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":0,"
                       "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
                    r, us(e->t_start - e->burst, base), (double)e->burst * 1e-3);
            info->written++;
        }
        fprintf(f, ",\n{\"name\":\"MPI_%s\",\"cat\":\"mpi\",\"ph\":\"B\",\"pid\":0,\"tid\":%d,"
                   "\"ts\":%.3f",
                mc_op_name(e->op), r, us(e->t_start, base));
        event_args(f, e);
        fputc('}', f);
        if (wait_end && wait_end[i] > e->t_start) {
            int64_t end = wait_end[i] < e->t_end ? wait_end[i] : e->t_end;
            fprintf(f, ",\n{\"name\":\"wait\",\"cat\":\"wait\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,"
                       "\"ts\":%.3f,\"dur\":%.3f}",
                    r, us(e->t_start, base), (double)(end - e->t_start) * 1e-3);
            info->written++;
        }
        fprintf(f, ",\n{\"name\":\"MPI_%s\",\"cat\":\"mpi\",\"ph\":\"E\",\"pid\":0,\"tid\":%d,"
                   "\"ts\":%.3f}",
                mc_op_name(e->op), r, us(e->t_end, base));
        info->written++;
    }
}

static void write_flows(FILE *f, const loaded_trace *t, const lt_msg *m, size_t n, int64_t base)
{
    for (size_t k = 0; k < n; k++) {
        const mc_event *s = &t->ranks[m[k].src].ev[m[k].send_ev];
        const mc_event *d = &t->ranks[m[k].dst].ev[m[k].done_ev];
        /* A flow binds to the slice enclosing its timestamp: 1 ns into the
         * send call; in the completing call, not before the send (clocks
         * permitting). */
        int64_t ts = s->t_start + (s->t_end - s->t_start > 1 ? 1 : 0);
        int64_t tf = d->t_start + (d->t_end - d->t_start > 1 ? 1 : 0);
        if (tf < ts)
            tf = ts < d->t_end ? ts : d->t_end;
        fprintf(f, ",\n{\"name\":\"message\",\"cat\":\"msg\",\"ph\":\"s\",\"id\":%zu,\"pid\":0,"
                   "\"tid\":%d,\"ts\":%.3f,\"args\":{\"bytes\":%lld}}",
                k + 1, m[k].src, us(ts, base), (long long)m[k].bytes);
        fprintf(f, ",\n{\"name\":\"message\",\"cat\":\"msg\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,"
                   "\"pid\":0,\"tid\":%d,\"ts\":%.3f}",
                k + 1, m[k].dst, us(tf, base));
    }
}

/* Per rank and event: the latest start of a send that event waited for. */
static int64_t **late_senders(const loaded_trace *t, const lt_msg *m, size_t n)
{
    int64_t **w = calloc((size_t)t->nranks, sizeof *w);
    if (!w)
        return NULL;
    for (int r = 0; r < t->nranks; r++) {
        w[r] = malloc((t->ranks[r].n + 1) * sizeof **w);
        if (!w[r]) {
            for (int q = 0; q < r; q++)
                free(w[q]);
            free(w);
            return NULL;
        }
        for (size_t i = 0; i < t->ranks[r].n; i++)
            w[r][i] = INT64_MIN;
    }
    for (size_t k = 0; k < n; k++) {
        int64_t s = t->ranks[m[k].src].ev[m[k].send_ev].t_start;
        int64_t *slot = &w[m[k].dst][m[k].done_ev];
        if (s > *slot)
            *slot = s;
    }
    return w;
}

mc_err mc_export_chrome(const char *trace, FILE *out, mc_export_info *info, mc_progress *prog,
                        mc_error *err)
{
    mc_export_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    loaded_trace *t = lt_load(trace, prog, err);
    if (!t)
        return err && err->code ? err->code : MC_ERR_IO;
    info->events = t->events;
    size_t nm = 0;
    lt_msg *m = lt_match(t, &nm, err);
    int64_t **wait = m ? late_senders(t, m, nm) : NULL;
    if (!m || !wait) {
        free(m);
        lt_free(t);
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", trace);
    }
    info->messages = nm;
    int64_t base = INT64_MAX;
    for (int r = 0; r < t->nranks; r++)
        if (t->ranks[r].n && t->ranks[r].ev[0].t_start < base)
            base = t->ranks[r].ev[0].t_start;
    if (base == INT64_MAX)
        base = 0;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mpicast export chrome\"},"
          "\"traceEvents\":[\n",
          out);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"", out);
    for (const char *c = trace; *c; c++) /* JSON string: escape what needs it */
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if ((unsigned char)*c >= 0x20)
            fputc(*c, out);
    fputs("\"}}", out);
    for (int r = 0; r < t->nranks; r++)
        fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
                     "\"args\":{\"name\":\"rank %d\"}}",
                r, r);
    for (int r = 0; r < t->nranks; r++) {
        write_rank(out, t, r, wait[r], base, info);
        mc_progress_update(prog, (uint64_t)r + 1, (uint64_t)t->nranks);
    }
    write_flows(out, t, m, nm, base);
    fputs("\n]}\n", out);
    mc_progress_done(prog);
    for (int r = 0; r < t->nranks; r++)
        free(wait[r]);
    free(wait);
    free(m);
    lt_free(t);
    if (ferror(out))
        return mc_error_set(err, MC_ERR_IO, "write failed");
    return MC_OK;
}
