/* The leave-one-out check of an extrapolation model (issue 20: never a
 * silently wrong pseudo-trace), after SCAMP §3.4's validation.
 *
 * The model's own verification (model.c) regenerates every input trace from
 * the model of all of them: in-sample, it cannot see a rule that fits the
 * traces it was built from but not the program (a stated `repeat` that
 * counts only the first run of a loop inside an outer loop). Here each input
 * trace i is rebuilt from the *other* traces with the same rules — the
 * stated ones, and those the model of all traces inferred (laws and
 * repetitions, taken as stated) — and the pseudo-trace at P_i is streamed
 * beside the real trace i and compared event by event (mc_extrap_compare).
 * The first difference fails the build. A trace that the others cannot
 * rebuild (a class they lack, a count that is not whole at P_i) is not
 * checked, and the notes say why; a model none of whose traces could be
 * rebuilt (one trace) is unchecked: mc_extrap_unchecked says so. */
#define MPICAST_EXTRAP_INTERNAL
#include "extrap_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"

void extrap_note(mc_extrap *x, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t have = x->notes ? strlen(x->notes) : 0, add = strlen(line);
    char *p = realloc(x->notes, have + add + 2);
    if (!p)
        return;
    memcpy(p + have, line, add);
    p[have + add] = '\n';
    p[have + add + 1] = '\0';
    x->notes = p;
}

/* ------------------------------------------------------------ compare */

static int differ(mc_extrap_diff *d, int rank, uint64_t i, const mc_event *real,
                  const mc_event *model, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int differ(mc_extrap_diff *d, int rank, uint64_t i, const mc_event *real,
                  const mc_event *model, const char *fmt, ...)
{
    d->rank = rank;
    d->index = i;
    d->op = real ? real->op : -1;
    d->site = real ? real->site : model ? model->site : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    return 1;
}

/* The event a stream has at that point, in a few words. */
static void event_words(const mc_event *e, char *buf, size_t len)
{
    snprintf(buf, len, "%s (site %x)", mc_op_name(e->op), (unsigned)e->site);
}

/* mc_extrap_compare over ranks [r0, r1); data (rule sizes data): point-to-
 * point sizes aside, their sums added to bytes[0] (model) and bytes[1]. */
static int compare_ranks(mc_source *model, mc_source *real, int r0, int r1, int data,
                         double *bytes, mc_extrap_diff *d, uint64_t *nevents,
                         void (*tick)(void *ctx), void *ctx, mc_error *err)
{
    memset(d, 0, sizeof *d);
    if (nevents)
        *nevents = 0;
    if (model->nranks != real->nranks)
        return differ(d, -1, 0, NULL, NULL, "%d ranks in the model, %d in the trace",
                      model->nranks, real->nranks);
    for (int r = r0; r < r1 && r < real->nranks; r++) {
        for (uint64_t i = 0;; i++) {
            mc_event a, b;
            int ga = mc_source_next(model, r, &a, err);
            if (ga < 0)
                return -1;
            int gb = mc_source_next(real, r, &b, err);
            if (gb < 0)
                return -1;
            if (!ga && !gb)
                break;
            char w[96];
            if (!ga) {
                event_words(&b, w, sizeof w);
                return differ(d, r, i, &b, NULL, "the model's rank ends after %llu events, the "
                              "trace has %s there", (unsigned long long)i, w);
            }
            if (!gb) {
                event_words(&a, w, sizeof w);
                return differ(d, r, i, NULL, &a, "the trace's rank ends after %llu events, the "
                              "model has %s there", (unsigned long long)i, w);
            }
            char why[200];
            if (!extrap_event_equal_as(&a, &b, data, why, sizeof why))
                return differ(d, r, i, &b, &a, "%s", why);
            if (data) {
                bytes[0] += extrap_p2p_bytes(&a);
                bytes[1] += extrap_p2p_bytes(&b);
            }
            if (nevents)
                ++*nevents;
        }
        if (tick)
            tick(ctx);
    }
    return 0;
}

int mc_extrap_compare(mc_source *model, mc_source *real, mc_extrap_diff *d,
                      uint64_t *nevents, void (*tick)(void *ctx), void *ctx, mc_error *err)
{
    return compare_ranks(model, real, 0, real->nranks, 0, NULL, d, nevents, tick, ctx, err);
}

/* ------------------------------------------------------------ leave one out */

/* "t4 (P=4), t16 (P=16)": the traces other than `skip`. */
static void others_str(const mc_extrap *x, const char *const *traces, int n, int skip,
                       const int *P, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && o < len; k++)
        if (k != skip) {
            if (P[k] > 0)
                o += (size_t)snprintf(buf + o, len - o, "%s%s (P=%d)", o ? ", " : "",
                                      traces[k], P[k]);
            else
                o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", traces[k]);
        }
    (void)x;
}

/* Rebuilds trace i from the others and compares. Returns 0 equal (*same
 * = 1), 0 not rebuilt (*same = 0, *why the reason), -1 different or an
 * error (err). */
static int loo_one(const mc_extrap *full, const char *const *traces, int n, int i,
                   const xfold *folds, const mc_extrap_rules *rules, const int *P,
                   uint64_t *nev, double *bytes, int *same, char *why, size_t whylen,
                   void (*tick)(void *), void *ctx, mc_error *err)
{
    *same = 0;
    const char **sub = malloc((size_t)n * sizeof *sub);
    xfold *fsub = folds ? malloc((size_t)n * sizeof *fsub) : NULL;
    if (!sub || (folds && !fsub)) {
        free(sub);
        free(fsub);
        return mc_error_set(err, MC_ERR_NOMEM, "out of memory"), -1;
    }
    int m = 0;
    for (int k = 0; k < n; k++)
        if (k != i) {
            if (fsub)
                fsub[m] = folds[k]; /* borrowed */
            sub[m++] = traces[k];
        }
    mc_extrap_rules ru = *rules;
    if (full && !ru.replicate) { /* trace i's own grid, not the target's */
        memset(ru.dims, 0, sizeof ru.dims);
        for (int d = 0; d < full->nd; d++)
            ru.dims[d] = full->tgrid[i].dims[d];
        ru.ndims = full->nd;
    }
    mc_error e = {0};
    mc_extrap *M = extrap_build_model(sub, m, &ru, full, fsub, NULL, &e);
    free(sub);
    free(fsub);
    mc_source *gen = M ? mc_extrap_source(M, P[i], &e) : NULL;
    if (!gen) {
        snprintf(why, whylen, "%s", e.msg);
        mc_extrap_destroy(M);
        return 0;
    }
    mc_source *real = mc_input_open(traces[i], err);
    if (!real) {
        mc_source_close(gen);
        mc_extrap_destroy(M);
        return -1;
    }
    mc_extrap_diff d;
    /* `replicate R` claims that every rank behaves like rank R, and accepts
     * that the traced ranks do not (docs/extrapolation.md): what can be
     * checked is how rank R itself changes with P */
    int r0 = rules->replicate ? rules->rep : 0;
    int r1 = rules->replicate ? rules->rep + 1 : real->nranks;
    int rc = compare_ranks(gen, real, r0, r1, rules->data_sizes, bytes, &d, nev, tick, ctx,
                           err);
    mc_source_close(gen);
    mc_source_close(real);
    mc_extrap_destroy(M);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        *same = 1;
        return 0;
    }
    char others[512], stated[256], where[EXTRAP_OP_AT_MAX];
    others_str(full, traces, n, i, P, others, sizeof others);
    mc_error ignored = {0};
    mc_meta *meta = d.rank >= 0 ? mc_meta_read(traces[i], &ignored) : NULL;
    extrap_site_where(meta, d.site, where, sizeof where);
    mc_meta_destroy(meta);
    mc_extrap_rules_describe(rules, stated, sizeof stated);
    if (d.rank < 0)
        mc_error_set(err, MC_ERR_USAGE, "leave-one-out check: %s (P=%d) rebuilt from %s: %s: "
                     "the rules do not reproduce the traces", traces[i], P[i], others, d.what);
    else
        mc_error_set(err, MC_ERR_USAGE, "leave-one-out check: %s (P=%d) rebuilt from %s "
                     "differs at rank %d, event %llu (%s, site %x%s%s): %s: the rules%s%s%s do "
                     "not reproduce the traces", traces[i], P[i], others, d.rank,
                     (unsigned long long)d.index, d.op >= 0 ? mc_op_name(d.op) : "past the end",
                     (unsigned)d.site, where[0] ? ", " : "", where, d.what,
                     *stated ? " (stated: " : "", stated, *stated ? ")" : "");
    return -1;
}

/* Process count of each trace (from the model, else from the trace). */
static int trace_counts(const mc_extrap *full, const char *const *traces, int n, int *P,
                        mc_error *err)
{
    for (int k = 0; k < n; k++) {
        if (full) {
            P[k] = full->tP[k];
            continue;
        }
        mc_source *s = mc_input_open(traces[k], err);
        if (!s)
            return -1;
        P[k] = s->nranks;
        mc_source_close(s);
    }
    return 0;
}

static xfold *fold_all(const char *const *traces, int n, int data_sizes,
                       const mc_extrap_progress *prog, mc_error *err);
static void note_folds(mc_extrap *x, const xfold *f);
static mc_extrap *build_checked(mc_extrap *x, mc_error *ferr, const char *const *traces,
                                int ntraces, const xfold *folds, const mc_extrap_rules *rules,
                                const mc_extrap_progress *prog, mc_error *err);

mc_extrap *mc_extrap_build(const char *const *traces, int ntraces, const mc_extrap_rules *rules,
                           mc_error *err)
{
    return mc_extrap_build_progress(traces, ntraces, rules, NULL, err);
}

mc_extrap *mc_extrap_build_progress(const char *const *traces, int ntraces,
                                    const mc_extrap_rules *rules,
                                    const mc_extrap_progress *prog, mc_error *err)
{
    mc_extrap_rules defaults;
    if (!rules) {
        mc_extrap_rules_init(&defaults);
        rules = &defaults;
    }
    mc_error ferr = {0};
    int fold_wanted = 0;
    xfold *folds = NULL;
    mc_extrap *x = extrap_build_model(traces, ntraces, rules, NULL, NULL, &fold_wanted, &ferr);
    if (!x && fold_wanted) {
        folds = fold_all(traces, ntraces, rules->data_sizes, prog, &ferr);
        x = folds ? extrap_build_model(traces, ntraces, rules, NULL, folds, NULL, &ferr) : NULL;
    }
    if (x && folds) {
        note_folds(x, folds);
        x->folded = ntraces;
    }
    mc_extrap *built = build_checked(x, &ferr, traces, ntraces, folds, rules, prog, err);
    for (int k = 0; folds && k < ntraces; k++)
        extrap_fold_free(&folds[k]);
    free(folds);
    return built;
}

/* Folds every trace (extrap_impl.h, "Folded inputs"); NULL with err set. */
static xfold *fold_all(const char *const *traces, int n, int data_sizes,
                       const mc_extrap_progress *prog, mc_error *err)
{
    xfold *f = calloc((size_t)n, sizeof *f);
    int *P = calloc((size_t)n, sizeof *P);
    uint64_t total = 0;
    for (int k = 0; f && P && k < n; k++) {
        mc_source *s = mc_input_open(traces[k], err);
        if (!s) {
            free(f);
            free(P);
            return NULL;
        }
        P[k] = s->nranks;
        total += (uint64_t)P[k];
        mc_source_close(s);
    }
    if (!f || !P) {
        free(f);
        free(P);
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (prog && prog->phase)
        prog->phase(prog->ctx, "fold: ranks", total);
    for (int k = 0; k < n; k++) {
        if (extrap_fold(traces[k], P[k], data_sizes, prog ? prog->step : NULL,
                        prog ? prog->ctx : NULL, &f[k], err)) {
            for (int j = 0; j < k; j++)
                extrap_fold_free(&f[j]);
            free(f);
            free(P);
            return NULL;
        }
    }
    free(P);
    return f;
}

static void note_folds(mc_extrap *x, const xfold *f)
{
    for (int k = 0; k < x->ntraces; k++)
        extrap_note(x, "input %s: %llu events: each rank's main loop read as two iterations "
                    "(%d of %d ranks have one; its other iterations' times%s are their "
                    "mean), repeated as traced", x->paths[k], (unsigned long long)f[k].events,
                    f[k].looped, f[k].nranks,
                    x->rules.data_sizes ? ", and every iteration's point-to-point sizes," : "");
}

/* The leave-one-out check of x (NULL: its build failed with ferr). */
static mc_extrap *build_checked(mc_extrap *x, mc_error *ferr, const char *const *traces,
                                int ntraces, const xfold *folds, const mc_extrap_rules *rules,
                                const mc_extrap_progress *prog, mc_error *err)
{
    void (*rank_checked)(void *) = prog ? prog->step : NULL;
    void *ctx = prog ? prog->ctx : NULL;
    char stated[256];
    mc_extrap_rules_describe(rules, stated, sizeof stated);
    if (ntraces < 2) {
        if (!x) {
            *err = *ferr;
            return NULL;
        }
        if (!mc_extrap_rules_unchecked(rules, x->unchecked, sizeof x->unchecked))
            snprintf(x->unchecked, sizeof x->unchecked, "one trace: the default laws not "
                     "checked against another process count");
        extrap_note(x, "check: none (%s)", x->unchecked);
        return x;
    }
    if (!x && (!*stated || ntraces > 64)) {
        /* nothing stated: the build's refusal names what inference could
         * not explain, which says more than a rebuild by the default laws */
        *err = *ferr;
        return NULL;
    }
    int *P = calloc((size_t)ntraces, sizeof *P);
    if (!P) {
        mc_extrap_destroy(x);
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (trace_counts(x, traces, ntraces, P, err)) {
        free(P);
        if (!x)
            *err = *ferr; /* the build's message says more than a second read's */
        mc_extrap_destroy(x);
        return NULL;
    }
    if (prog && prog->phase) {
        uint64_t total = 0;
        for (int k = 0; k < ntraces; k++)
            total += (uint64_t)P[k];
        prog->phase(prog->ctx, "check: ranks", total);
    }
    int checked = 0;
    uint64_t events = 0;
    char lines[4][1024];
    int nlines = 0;
    for (int i = 0; i < ntraces; i++) {
        uint64_t nev = 0;
        int same = 0;
        double bytes[2] = {0, 0};
        char why[MC_ERROR_MSG_MAX];
        if (loo_one(x, traces, ntraces, i, folds, rules, P, &nev, bytes, &same, why, sizeof why,
                    rank_checked, ctx, err)) {
            mc_error_prefix(err, "extrapolate");
            free(P);
            mc_extrap_destroy(x);
            return NULL;
        }
        char others[400];
        others_str(x, traces, ntraces, i, P, others, sizeof others);
        if (same) {
            checked++;
            events += nev;
            char sizes[160] = "";
            if (rules->data_sizes && bytes[1] > 0)
                snprintf(sizes, sizeof sizes, " but for point-to-point sizes (the data's: "
                         "%.6g bytes rebuilt, %.6g traced, %+.2f %%)", bytes[0], bytes[1],
                         100 * (bytes[0] - bytes[1]) / bytes[1]);
            if (nlines < 4)
                snprintf(lines[nlines++], sizeof lines[0], "check: %s (P=%d) rebuilt from "
                         "%s: %llu events equal%s", traces[i], P[i], others,
                         (unsigned long long)nev, sizes);
        } else if (nlines < 4) {
            snprintf(lines[nlines++], sizeof lines[0], "check: %s (P=%d) not rebuilt from %s: "
                     "%.300s", traces[i], P[i], others, why);
        }
    }
    free(P);
    if (!x) {
        *err = *ferr;
        return NULL;
    }
    for (int l = 0; l < nlines; l++)
        extrap_note(x, "%s", lines[l]);
    x->checked = checked;
    x->checked_events = events;
    if (!checked)
        snprintf(x->unchecked, sizeof x->unchecked, "no trace could be rebuilt from the others: "
                 "%s not checked", *stated ? stated : "the inferred laws");
    return x;
}

int mc_extrap_folded(const mc_extrap *x)
{
    return x ? x->folded : 0;
}

const char *mc_extrap_folded_warning(const mc_extrap_rules *rules)
{
    if (rules && rules->data_sizes)
        return "large input: each rank's main loop was folded, so iterations after the first "
               "take their mean times, every iteration its mean point-to-point sizes (rule "
               "sizes data), and their variation is not reproduced (docs/extrapolation.md, "
               "\"Large inputs\")";
    return "large input: each rank's main loop was folded, so iterations after the first "
           "take their mean times and their variation is not reproduced "
           "(docs/extrapolation.md, \"Large inputs\")";
}

int mc_extrap_checked(const mc_extrap *x)
{
    return x ? x->checked : 0;
}

const char *mc_extrap_unchecked(const mc_extrap *x)
{
    return x ? x->unchecked : "";
}

int mc_extrap_rules_unchecked(const mc_extrap_rules *r, char *buf, size_t len)
{
    char stated[256];
    mc_extrap_rules_describe(r, stated, sizeof stated);
    if (len)
        buf[0] = '\0';
    if (!*stated)
        return 0;
    snprintf(buf, len, "one trace: %s not checked against another process count", stated);
    return 1;
}
