/* The prediction session (include/mpicast/predict.h). */
#include "mpicast/predict.h"
#include "mpicast/compress.h"
#include "mpicast/outfile.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpicast/input.h"
#include "mpicast/net.h"

mc_sim_comm *mc_predict_comms(const mc_source *src, size_t *n)
{
    const mc_meta *m = mc_source_meta(src);
    *n = 0;
    if (!m || mc_meta_ncomms(m) == 0)
        return NULL;
    size_t k = mc_meta_ncomms(m);
    mc_sim_comm *c = calloc(k, sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < k; i++) {
        const mc_meta_comm *mc = mc_meta_comm_at(m, i);
        if (!mc || mc->size != mc->local_size)
            continue; /* intercommunicators: learnt from their events */
        c[*n].id = mc->id;
        c[*n].size = mc->size;
        c[*n].members = mc->members;
        (*n)++;
    }
    return c;
}

/* The input itself, or its pseudo-trace at rq->ranks (even at the input's
 * own count: the rules may rescale, e.g. --scaling strong). */
static mc_source *open_input(const mc_predict_request *rq, mc_error *err)
{
    if (rq->ranks <= 0) {
        mc_source *s = mc_input_open(rq->trace, err);
        if (s && mc_source_check_replayable(s, rq->trace, err)) {
            mc_source_close(s);
            return NULL;
        }
        return s;
    }
    mc_extrap_rules defaults;
    const mc_extrap_rules *rules = rq->rules;
    if (!rules) {
        mc_extrap_rules_init(&defaults);
        rules = &defaults;
    }
    return mc_extrap_open_source(rq->trace, rq->ranks, rules, err);
}

/* The input's sites (file:line keys) come from its meta data; a
 * pseudo-trace carries none, so they come from the input itself (*orig,
 * closed by the caller). */
static const mc_meta *site_meta(const mc_predict_request *rq, const mc_source *src,
                                mc_source **orig)
{
    const mc_meta *m = mc_source_meta(src);
    *orig = NULL;
    if (!m && rq->ranks > 0) {
        mc_error ignored = {0}; /* no meta: sites are known by id only */
        *orig = mc_input_open(rq->trace, &ignored);
        m = mc_source_meta(*orig);
    }
    return m;
}

static mc_err bind_compute(const mc_predict_request *rq, const mc_source *src, mc_error *err)
{
    mc_source *orig;
    mc_err rc = mc_ctable_bind(rq->compute, site_meta(rq, src, &orig), err);
    mc_source_close(orig);
    mc_ctable_reset_counts(rq->compute);
    return rc;
}

/* A compute table under extrapolation: the table was measured on the traced
 * run, so its block times scale like the pseudo-trace's bursts (the compute
 * law: P0/P under strong scaling), and the traced ranks' own rows (--per-rank)
 * say nothing about the pseudo-trace's ranks: the all-ranks rows are used. */
typedef struct table_hook {
    mc_ctable *table;
    double factor;  /* 1 without extrapolation */
    int per_rank;   /* 0 under extrapolation */
} table_hook;

static int64_t table_hook_fn(void *ctx, int rank, int32_t prev_site, int32_t site,
                             int64_t scaled_ps)
{
    const table_hook *h = ctx;
    int64_t v = mc_ctable_hook(h->table, h->per_rank ? rank : -1, prev_site, site, scaled_ps);
    if (v < 0 || h->factor == 1.0)
        return v;
    double ps = (double)v * h->factor;
    return ps < 9e18 ? llround(ps) : INT64_MAX / 2;
}

static mc_err table_hook_init(const mc_predict_request *rq, const mc_source *src, table_hook *h,
                              mc_error *err)
{
    h->table = rq->compute;
    h->factor = 1.0;
    h->per_rank = rq->ranks <= 0;
    if (rq->ranks <= 0)
        return MC_OK;
    if (mc_extrap_source_burst_factor(src, &h->factor, err) != MC_OK) {
        mc_error_prefix(err, "--compute with --ranks");
        return err->code;
    }
    return MC_OK;
}

/* The profile's blocks on this replay's processor model (the platform's
 * [cpu] keys), bound to the input's sites; scaled like the bursts under
 * extrapolation, from the all-ranks rows, as a compute table is. */
static mc_cpu_times *profile_times(const mc_predict_request *rq, const mc_source *src,
                                   mc_error *err)
{
    double factor = 1.0;
    if (rq->ranks > 0 && mc_extrap_source_burst_factor(src, &factor, err) != MC_OK) {
        mc_error_prefix(err, "--profile with --ranks");
        return NULL;
    }
    mc_cpu_model model;
    mc_cpu_model_from_platform(rq->platform, &model);
    mc_source *orig;
    mc_cpu_times *t = mc_cpu_times_create(&model, rq->profile, site_meta(rq, src, &orig), factor,
                                          rq->ranks <= 0, err);
    mc_source_close(orig);
    return t;
}

/* A flow model built here so that its link statistics can be read after the
 * replay; NULL for other models (the replay builds its own). */
static mc_net *links_net(const mc_platform *p, int nranks)
{
    mc_error ignored = {0}; /* on failure the replay reports the same error */
    mc_net *n = mc_net_create(NULL, p, nranks, &ignored);
    if (n && !n->ops->flow) {
        mc_net_destroy(n);
        n = NULL;
    }
    return n;
}

static void take_links(mc_predict_links *l, mc_net *net)
{
    if (!net)
        return;
    size_t n = mc_net_link_stats(net, NULL, 0);
    if (n && (l->v = calloc(n, sizeof *l->v)))
        l->n = mc_net_link_stats(net, l->v, n);
    mc_net_destroy(net);
}

/* One replay: on the platform's network, or on the free one (is_free). */
typedef struct replay_job {
    const mc_predict_request *rq;
    int is_free, show_progress;
    uint64_t loop_cap;      /* sampling: iterations per loop record (0: all) */
    uint64_t *skipped;      /* sampling: per rank, iterations left out (filled) */
    uint64_t records;       /* sampling: rank 0's loop records */
    mc_sim_result *res;
    mc_predict_result *out;
    mc_error err;
    mc_err rc;
} replay_job;

static mc_err replay(replay_job *j)
{
    const mc_predict_request *rq = j->rq;
    mc_source *src = open_input(rq, &j->err);
    if (!src)
        return j->err.code ? j->err.code : MC_ERR_IO;
    if (j->loop_cap && mc_trace_set_loop_cap(src, j->loop_cap, &j->err) != MC_OK) {
        mc_source_close(src);
        return j->err.code;
    }
    size_t ncomms;
    mc_sim_comm *comms = mc_predict_comms(src, &ncomms);
    mc_sim_options opt = {0};
    opt.net_model = j->is_free ? "free" : NULL;
    opt.comms = comms;
    opt.ncomms = ncomms;
    opt.timeline = j->is_free ? NULL : rq->timeline;
    opt.slice = j->is_free ? NULL : rq->slice;
    opt.slice_ctx = rq->slice_ctx;
    opt.interrupt = rq->interrupt;
    table_hook hook;
    if (rq->compute) {
        if (bind_compute(rq, src, &j->err) != MC_OK ||
            table_hook_init(rq, src, &hook, &j->err) != MC_OK) {
            free(comms);
            mc_source_close(src);
            return j->err.code;
        }
        opt.compute = table_hook_fn;
        opt.compute_ctx = &hook;
    }
    mc_cpu_times *times = NULL; /* this replay's own: it counts its lookups */
    if (rq->profile) {
        if (!(times = profile_times(rq, src, &j->err))) {
            free(comms);
            mc_source_close(src);
            return j->err.code ? j->err.code : MC_ERR_NOMEM;
        }
        opt.compute = mc_cpu_hook;
        opt.compute_ctx = times;
    }
    opt.net = !j->is_free && rq->links ? links_net(rq->platform, src->nranks) : NULL;
    mc_source *run = src;
    if (j->show_progress && rq->wrap)
        run = rq->wrap(rq->wrap_ctx, src, j->is_free ? "predict (free network)" : "predict");
    mc_err rc = mc_sim_run(run, rq->platform, &opt, j->res, &j->err);
    if (run != src && rq->unwrap)
        rq->unwrap(rq->wrap_ctx, run, src);
    if (!j->is_free) {
        j->out->folded = mc_extrap_source_folded(src);
        take_links(&j->out->links, opt.net);
        if (rq->compute)
            j->out->compute_counts = mc_ctable_get_counts(rq->compute);
        if (times)
            j->out->profile_counts = mc_cpu_get_counts(times);
    }
    for (int r = 0; j->skipped && r < src->nranks; r++)
        j->skipped[r] = mc_trace_loop_skipped(src, r, r == 0 ? &j->records : NULL);
    mc_cpu_times_destroy(times);
    free(comms);
    mc_source_close(src);
    return rc;
}

static void *replay_thread(void *arg)
{
    replay_job *j = arg;
    j->rc = replay(j);
    return NULL;
}

static mc_err run_session(const mc_predict_request *rq, uint64_t cap, uint64_t *skipped,
                          uint64_t *skipped_free, mc_predict_result *res, mc_error *err);
static mc_err run_sampled(const mc_predict_request *rq, mc_predict_result *res,
                          mc_error *err);

mc_err mc_predict_run(const mc_predict_request *rq, mc_predict_result *res, mc_error *err)
{
    if (rq->iterations)
        return run_sampled(rq, res, err);
    return run_session(rq, 0, NULL, NULL, res, err);
}

/* The session proper; with cap > 0 every loop record delivers at most cap
 * iterations and skipped[]/skipped_free[] (per rank) receive those left out. */
static mc_err run_session(const mc_predict_request *rq, uint64_t cap, uint64_t *skipped,
                          uint64_t *skipped_free, mc_predict_result *res, mc_error *err)
{
    memset(res, 0, sizeof *res);
    if (rq->compute && rq->profile) /* two sources of block times: the caller chooses */
        return res->run_rc = mc_error_set(err, MC_ERR_USAGE, "--compute and --profile both "
                                          "give the blocks' times: give one");
    replay_job run = {.rq = rq, .is_free = 0, .show_progress = 1, .res = &res->run, .out = res,
                      .loop_cap = cap, .skipped = skipped};
    replay_job fr = {.rq = rq, .is_free = 1, .res = &res->free_run, .out = res,
                     .loop_cap = cap, .skipped = skipped_free};
    /* With jobs > 1 both replays run at once: they share only read-only
     * inputs (a compute table counts its lookups, so it keeps them apart). */
    /* Both replays open the input: held open meanwhile, an imported input
     * (OTF2, DUMPI) is imported once, here, before any thread (an import
     * forks, and a fork beside a running thread can deadlock). */
    mc_error ignored = {0};
    mc_source *hold = rq->breakdown ? mc_input_open(rq->trace, &ignored) : NULL;
    pthread_t th;
    int threaded = hold && rq->jobs > 1 && !rq->compute &&
                   pthread_create(&th, NULL, replay_thread, &fr) == 0;
    fr.show_progress = !threaded;
    run.rc = replay(&run);
    if (threaded)
        pthread_join(th, NULL);
    else if (rq->breakdown && run.rc == MC_OK)
        replay_thread(&fr);
    mc_source_close(hold);
    res->run_rc = run.rc;
    res->free_rc = fr.rc;
    res->sampled_records = run.records;
    res->has_breakdown = rq->breakdown && (threaded || run.rc == MC_OK) && fr.rc == MC_OK &&
                         !res->free_run.interrupted;
    if (run.rc != MC_OK) {
        *err = run.err;
        return run.rc;
    }
    if (fr.rc != MC_OK) {
        *err = fr.err;
        return fr.rc;
    }
    return MC_OK;
}

void mc_predict_result_free(mc_predict_result *res)
{
    if (!res)
        return;
    mc_sim_result_free(&res->run);
    mc_sim_result_free(&res->free_run);
    free(res->links.v);
    memset(res, 0, sizeof *res);
}

/* ------------------------------------------------------------ sampling */

/* x_K + s_K (x_2K - x_K) / (s_K - s_2K), rounded to the nearest (x_K when
 * nothing more was left out at K than at 2K); -1 outside [0, 2^63). */
static int extend(int64_t xk, int64_t x2k, uint64_t sk, uint64_t s2k, int64_t *out)
{
    if (sk <= s2k) {
        *out = xk;
        return 0;
    }
    __int128 d = ((__int128)x2k - xk) * (__int128)sk, den = (__int128)(sk - s2k);
    __int128 v = (__int128)xk + (d >= 0 ? d + den / 2 : d - den / 2) / den;
    if (v > INT64_MAX || v < 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

#define EXTEND_(a, b, field, sk, s2k)                                              \
    do {                                                                           \
        int64_t v_;                                                                \
        if (extend((int64_t)(a)->field, (int64_t)(b)->field, sk, s2k, &v_) != 0) \
            return -1;                                                             \
        (a)->field = v_;                                                           \
    } while (0)

/* a (cut to K) becomes the extended result; b was cut to 2K. Every rank is
 * extended by the same count: a rank without loops (a master) waits on
 * those with them, so its figures grow too. -1 outside 64 bits. */
static int extend_result(mc_sim_result *a, const mc_sim_result *b, uint64_t sa, uint64_t sb)
{
    int64_t end = 0;
    for (int r = 0; r < a->nranks && r < b->nranks; r++) {
        mc_sim_rank *x = &a->ranks[r];
        const mc_sim_rank *y = &b->ranks[r];
        EXTEND_(x, y, end, sa, sb);
        EXTEND_(x, y, compute, sa, sb);
        EXTEND_(x, y, comm, sa, sb);
        EXTEND_(x, y, wait, sa, sb);
        EXTEND_(x, y, events, sa, sb);
        end = x->end > end ? x->end : end;
    }
    a->end = a->sim_time = end;
    EXTEND_(a, b, events, sa, sb);
    EXTEND_(a, b, messages, sa, sb);
    EXTEND_(a, b, bytes, sa, sb);
    EXTEND_(a, b, coll_messages, sa, sb);
    EXTEND_(a, b, coll_bytes, sa, sb);
    a->wall_seconds += b->wall_seconds;
    return 0;
}

/* The iterations every rank's loops left out (ranks without loops aside)
 * into *out, and -1; else the first rank that differs from those before. */
static int common_skip(const uint64_t *s, int n, uint64_t *out)
{
    *out = 0;
    for (int r = 0; r < n; r++) {
        if (s[r] && *out && s[r] != *out)
            return r;
        if (s[r])
            *out = s[r];
    }
    return -1;
}

static mc_err run_sampled(const mc_predict_request *rq, mc_predict_result *res,
                          mc_error *err);

/* --iterations on a trace that is not loop-compressed: compressed first
 * (exactly: the first iterations keep their own times) into a private
 * temporary directory, sampled there, and the directory removed. The
 * compression reads the trace once; what sampling saves is the replay. */
static mc_err run_sampled_compressed(const mc_predict_request *rq, mc_predict_result *res,
                                     mc_error *err)
{
    char dir[4096];
    if (mc_out_temp_dir_create(dir, sizeof dir, "sample", rq->trace, err))
        return res->run_rc = err->code;
    mc_compress_info info;
    mc_err rc = mc_compress_trace(rq->trace, dir, MC_COMPRESS_EXACT, &info, NULL, NULL, err);
    if (rc == MC_OK && !info.records)
        rc = mc_error_set(err, MC_ERR_USAGE, "%s: --iterations: no main loop found in the "
                          "trace (nothing to sample): predict it without --iterations",
                          rq->trace);
    if (rc == MC_OK) {
        mc_predict_request r2 = *rq;
        r2.trace = dir;
        rc = run_sampled(&r2, res, err);
        if (rc) /* messages name the user's trace, not the temporary copy */
            mc_error_replace(err, dir, rq->trace);
    }
    if (rc != MC_OK && !res->run_rc)
        res->run_rc = rc;
    mc_out_dir_abort(dir);
    return rc;
}

static mc_err run_sampled(const mc_predict_request *rq, mc_predict_result *res,
                          mc_error *err)
{
    memset(res, 0, sizeof *res);
    uint64_t k = rq->iterations;
    if (rq->links || rq->timeline || rq->slice || rq->ranks > 0 || k > UINT64_MAX / 2)
        return res->run_rc = mc_error_set(err, MC_ERR_USAGE, "--iterations samples the input "
                                          "itself: not with --ranks, --timeline or link "
                                          "statistics");
    mc_error e = {0};
    mc_source *probe = mc_input_open(rq->trace, &e);
    int n = probe ? probe->nranks : 0;
    const mc_meta *pm = mc_source_meta(probe);
    int compressed = pm && mc_meta_get(pm, "compressed");
    mc_source_close(probe);
    if (!n) {
        *err = e;
        return res->run_rc = e.code ? e.code : MC_ERR_IO;
    }
    if (!compressed)
        return run_sampled_compressed(rq, res, err);
    uint64_t *s = calloc(4 * (size_t)n, sizeof *s);
    if (!s)
        return res->run_rc = mc_error_set(err, MC_ERR_NOMEM, "out of memory");
    mc_predict_result twice = {0};
    mc_err rc = run_session(rq, k, s, s + n, res, err);
    if (rc == MC_OK)
        rc = run_session(rq, 2 * k, s + 2 * n, s + 3 * n, &twice, err);
    if (rc == MC_ERR_DEADLOCK) /* the cut made it so: say which cut */
        rc = res->run_rc = mc_error_set(err, MC_ERR_USAGE, "%s: --iterations: with loops cut "
                                        "to %llu iterations the replay cannot complete (the "
                                        "ranks' loops differ: what one rank left out, another "
                                        "kept): predict it without --iterations", rq->trace,
                                        (unsigned long long)(twice.run.ranks ? 2 * k : k));
    if (rc == MC_OK && !res->sampled_records)
        rc = res->run_rc = mc_error_set(err, MC_ERR_USAGE, "%s: --iterations: the trace has "
                                        "no loop records (compress found no loop in it): "
                                        "predict it without --iterations", rq->trace);
    uint64_t sk = 0, s2k = 0, fk = 0, f2k = 0;
    int differ = rc == MC_OK ? common_skip(s, n, &sk) : -1;
    if (differ < 0 && rc == MC_OK)
        differ = common_skip(s + 2 * n, n, &s2k);
    if (differ >= 0)
        rc = res->run_rc = mc_error_set(err, MC_ERR_USAGE, "%s: --iterations: rank %d's loops "
                                        "leave out other iterations than the ranks before it "
                                        "(loops of other lengths): predict it without "
                                        "--iterations", rq->trace, differ);
    common_skip(s + n, n, &fk);
    common_skip(s + 3 * n, n, &f2k);
    if (rc == MC_OK &&
        (extend_result(&res->run, &twice.run, sk, s2k) != 0 ||
         (res->has_breakdown && twice.has_breakdown &&
          extend_result(&res->free_run, &twice.free_run, fk, f2k) != 0)))
        rc = res->run_rc = mc_error_set(err, MC_ERR_FORMAT, "%s: --iterations: an extended "
                                        "figure passes 2^63 (absurd times in the trace)",
                                        rq->trace);
    if (rc == MC_OK) {
        res->has_breakdown = res->has_breakdown && twice.has_breakdown;
        res->sampled_skipped = sk;
    }
    if (rc != MC_OK && !res->run_rc)
        res->run_rc = rc;
    mc_predict_result_free(&twice);
    free(s);
    return rc;
}

mc_platform *mc_predict_platform(const char *file, const char *const *sets, int nsets,
                                 mc_error *err)
{
    mc_platform *p = mc_platform_open(file, sets, nsets, err);
    if (p && mc_net_check(p, err) != MC_OK) {
        mc_platform_destroy(p);
        return NULL;
    }
    return p;
}
