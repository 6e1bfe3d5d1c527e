/* mpicast predict TRACE [--platform FILE] [--set KEY=VALUE]... [--json]
 *                       [--timeline FILE]
 *
 * Replays TRACE (a trace directory, or a time-independent text trace when it
 * is a regular file) on the platform, twice: once on the platform's network
 * and once on a free network (zero latency, overhead and gap, infinite
 * bandwidth). The second gives the EXCIT/INSPIRE breakdown: communication
 * time = predicted time - free-network time. Keys: docs/json.md (predict).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cli_output.h"
#include "predict_otf2.h"
#include "progress_source.h"
#include "predict_links.h"
#include "mpicast/blocks.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"
#include "mpicast/tit.h"

static const char predict_usage[] =
    "usage: mpicast predict TRACE [--platform FILE] [--set KEY=VALUE]... [--json]\n"
    "                       [--timeline FILE] [--timeline-otf2 DIR] [--compute FILE]\n"
    "                       [--ranks P [rules...]] [--jobs N] [--no-breakdown]\n"
    "                       [--quiet]\n"
    "\n"
    "Replays every rank of TRACE on a modelled platform and predicts the run\n"
    "time: the latest rank's end, with per-rank computation, communication\n"
    "(CPU time spent in MPI: overheads, message processing, reductions) and\n"
    "waiting (the rest of the time in MPI: blocked on a peer or the network).\n"
    "TRACE is a trace directory (mpicast trace), an OTF2 archive (Score-P's\n"
    "traces.otf2 or its directory: imported on the fly) or a SimGrid time-independent\n"
    "text trace (a file).\n"
    "\n"
    "  --platform FILE  platform description (INI, docs/platform.md); default:\n"
    "                   the built-in shared-memory-like machine\n"
    "  --set KEY=VALUE  override one platform key (e.g. network.bandwidth=10GB/s)\n"
    "  --json           one JSON document on stdout (keys: docs/json.md)\n"
    "  --timeline FILE  write the simulated timeline as Chrome trace-event JSON\n"
    "                   (open it in Perfetto: one track per rank)\n"
    "  --timeline-otf2 DIR  the simulated timeline as an OTF2 archive DIR/traces.otf2\n"
    "                   (Vampir, otf2-print)\n"
    "  --quiet          no progress line on stderr (shown only on a terminal)\n"
    "  --jobs N         1: the two replays (platform, free network) one after the\n"
    "                   other; 2 (default with 2 or more cores): at the same time,\n"
    "                   in half the wall time and twice the memory\n"
    "  --no-breakdown   skip the free-network replay (half the work; the breakdown\n"
    "                   is then absent: null in --json)\n"
    "  --ranks P        extrapolate the trace to P ranks (pseudo-trace streamed to\n"
    "                   the simulator; docs/extrapolation.md); rules as for\n"
    "                   'mpicast extrapolate': --rules FILE, --rule KEY=VALUE,\n"
    "                   --grid DxD, --periodic 0,1, --replicate [R], --scaling S\n"
    "  --compute FILE   compute table (mpicast blocks DIR --table FILE): each burst\n"
    "                   takes its block's time from FILE; bursts of blocks FILE\n"
    "                   lacks keep recorded time / cpu.speed (counted, reported)\n"
    "\n"
    "The trace is replayed a second time on a free network (zero latency,\n"
    "overhead and gap, infinite bandwidth): the increase over that replay is\n"
    "the communication time of the EXCIT/INSPIRE breakdown.\n"
    "\n"
    "Example:\n"
    "  mpicast predict run9/ --platform cluster.ini --set network.latency=5us --json\n"
    "Ctrl-C (SIGINT) stops the replay and prints the partial result: per rank\n"
    "what was simulated so far and the simulated time reached (a second Ctrl-C\n"
    "kills at once).\n"
    "Exit status: 0 ok; 1 bad input or a trace that cannot complete (deadlock:\n"
    "each stuck rank is listed on stderr); 2 usage error; 130 interrupted.\n";

enum { PREDICT_INTERRUPTED = 130 }; /* 128 + SIGINT, as a shell reports it */

/* Set by SIGINT; the simulator polls it (mc_sim_options.interrupt). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* One-shot: SA_RESETHAND restores the default action, so a second Ctrl-C
 * kills a replay that does not stop fast enough. */
static void catch_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
}

typedef struct predict_args {
    const char *trace, *platform, *timeline;
    const char **sets;
    const char *compute_file; /* --compute */
    mc_ctable *compute;
    predict_links *links;     /* topo: link statistics of the platform replay */
    int nsets, json;
    int ranks;                /* --ranks: extrapolate to this many ranks */
    mc_extrap_rules xrules;   /* --rules, --rule, --grid, ... */
    const char *shown;        /* TRACE as given (an OTF2 archive is replayed from an import) */
    const char *timeline_otf2; /* --timeline-otf2 DIR */
    int quiet;                /* --quiet: no progress line */
    int jobs;                 /* --jobs: 2 runs both replays at once */
    int no_breakdown;         /* --no-breakdown: no free-network replay */
} predict_args;

static int parse_args(int argc, char **argv, predict_args *a, int *rc)
{
    memset(a, 0, sizeof *a);
    mc_extrap_rules_init(&a->xrules);
    a->sets = calloc((size_t)argc, sizeof *a->sets);
    if (!a->sets) {
        *rc = cli_usage_error("predict: out of memory");
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (cli_is_help(s)) {
            fputs(predict_usage, stdout);
            *rc = CLI_OK;
            return -1;
        }
        int has_next = i + 1 < argc;
        if (strcmp(s, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(s, "--platform") == 0 && has_next) {
            a->platform = argv[++i];
        } else if (strcmp(s, "--set") == 0 && has_next) {
            a->sets[a->nsets++] = argv[++i];
        } else if (strcmp(s, "--timeline") == 0 && has_next) {
            a->timeline = argv[++i];
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            a->quiet = 1;
        } else if (strcmp(s, "--no-breakdown") == 0) {
            a->no_breakdown = 1;
        } else if (strcmp(s, "--jobs") == 0 && has_next) {
            if (cli_parse_ranks(argv[++i], &a->jobs)) {
                *rc = cli_usage_error("predict: --jobs %s: expected a positive count", argv[i]);
                return -1;
            }
        } else if (strcmp(s, "--timeline-otf2") == 0 && has_next) {
            a->timeline_otf2 = argv[++i];
        } else if (strcmp(s, "--compute") == 0 && has_next) {
            a->compute_file = argv[++i];
        } else if (strcmp(s, "--ranks") == 0 && has_next) {
            if (cli_parse_ranks(argv[++i], &a->ranks)) {
                *rc = cli_usage_error("predict: --ranks %s: expected a positive count", argv[i]);
                return -1;
            }
        } else if (cli_extrap_rule_option(argc, argv, &i, &a->xrules, rc)) {
            if (*rc != CLI_OK)
                return -1;
        } else if (s[0] == '-' && s[1]) {
            *rc = cli_usage_error("predict: unknown option or missing value: %s "
                                  "(see 'mpicast predict --help')", s);
            return -1;
        } else if (!a->trace) {
            a->trace = s;
        } else {
            *rc = cli_usage_error("predict: more than one TRACE given: %s", s);
            return -1;
        }
    }
    if (!a->trace) {
        *rc = cli_usage_error("predict: no TRACE given (see 'mpicast predict --help')");
        return -1;
    }
    if (!a->jobs)
        a->jobs = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    return 0;
}

static mc_platform *load_platform(const predict_args *a, mc_error *err)
{
    mc_platform *p = a->platform ? mc_platform_load(a->platform, err) : mc_platform_create();
    if (!p) {
        if (!a->platform)
            mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < a->nsets; i++) {
        if (mc_platform_set(p, a->sets[i], err)) {
            mc_error_prefix(err, "--set %s", a->sets[i]);
            mc_platform_destroy(p);
            return NULL;
        }
    }
    return p;
}

static mc_source *open_source(const char *path, mc_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: no such trace directory or file", path);
        return NULL;
    }
    if (S_ISDIR(st.st_mode))
        return mc_trace_open(path, err);
    return mc_tit_open(path, err);
}

/* Communicators of meta.json, for sources that have one. */
static mc_sim_comm *meta_comms(const mc_source *src, size_t *n)
{
    const mc_meta *m = mc_trace_meta(src);
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

/* Replays the trace once. is_dir sources are re-opened for each replay. */
/* --compute: the table learns the trace's sites (file:line keys) from its
 * meta.json — read from the directory for sources that do not carry it
 * (extrapolation keeps the traced sites). */
static mc_err bind_compute(const predict_args *a, const mc_source *src, mc_error *err)
{
    const mc_meta *m = mc_trace_meta(src);
    mc_meta *own = NULL;
    struct stat st;
    if (!m && stat(a->trace, &st) == 0 && S_ISDIR(st.st_mode)) {
        mc_error ignored = {0}; /* no meta.json: sites are known by id only */
        m = own = mc_meta_read(a->trace, &ignored);
    }
    mc_err rc = mc_ctable_bind(a->compute, m, err);
    mc_meta_destroy(own);
    mc_ctable_reset_counts(a->compute);
    return rc;
}

static mc_err replay(const predict_args *a, const mc_platform *p, const char *net, FILE *tl,
                     mc_sim_result *res, mc_error *err)
{
    struct stat st;
    if (a->ranks && stat(a->trace, &st) == 0 && !S_ISDIR(st.st_mode))
        return mc_error_set(err, MC_ERR_USAGE,
                            "%s: --ranks needs a trace directory (extrapolation does not "
                            "read text traces)", a->trace);
    mc_source *src = a->ranks ? mc_extrap_open_source(a->trace, a->ranks, &a->xrules, err)
                              : open_source(a->trace, err);
    if (!src)
        return err->code ? err->code : MC_ERR_IO;
    size_t ncomms;
    mc_sim_comm *comms = meta_comms(src, &ncomms);
    mc_sim_options opt = {0};
    opt.net_model = net;
    opt.comms = comms;
    opt.ncomms = ncomms;
    opt.timeline = tl;
    opt.interrupt = &interrupted;
    if (a->compute) { /* each replay counts afresh: both count the same bursts */
        if (bind_compute(a, src, err) != MC_OK) {
            free(comms);
            mc_source_close(src);
            return err->code;
        }
        opt.compute = mc_ctable_hook;
        opt.compute_ctx = a->compute;
    }
    opt.net = !net && a->links ? predict_links_net(p, src->nranks) : NULL;
    /* a progress line on a terminal for long replays (not with --quiet) */
    mc_source *run = progress_source_wrap(src, a->quiet || (net && a->jobs > 1) ? NULL : stderr,
                                          net ? "predict (free network)" : "predict");
    mc_err rc = mc_sim_run(run, p, &opt, res, err);
    progress_source_end(run, src);
    predict_links_take(a->links, opt.net);
    free(comms);
    mc_source_close(src);
    return rc;
}

/* The free-network replay, on its own thread. */
typedef struct free_job {
    const predict_args *a;
    const mc_platform *p;
    mc_sim_result *res;
    mc_error err;
    mc_err rc;
} free_job;

static void *free_replay_thread(void *arg)
{
    free_job *j = arg;
    j->rc = replay(j->a, j->p, "free", NULL, j->res, &j->err);
    return NULL;
}

/* Both replays: with --jobs 2 at once (they share nothing but read-only
 * inputs; a --compute table counts its lookups, so it keeps them apart),
 * else one after the other, the free one only if the first succeeded.
 * *err gets the first replay's failure, else the second's. */
static void replay_both(const predict_args *a, const mc_platform *p, FILE *tl,
                        mc_sim_result *res, mc_sim_result *free_res, mc_err *r1, mc_err *r2,
                        mc_error *err)
{
    free_job j = {a, p, free_res, {0}, MC_OK};
    pthread_t th;
    int threaded = a->jobs > 1 && !a->compute && !a->no_breakdown &&
                   pthread_create(&th, NULL, free_replay_thread, &j) == 0;
    *r1 = replay(a, p, NULL, tl, res, err);
    if (threaded)
        pthread_join(th, NULL);
    else if (*r1 == MC_OK && !a->no_breakdown)
        free_replay_thread(&j);
    *r2 = j.rc;
    if (*r1 == MC_OK && *r2 != MC_OK)
        *err = j.err;
}

typedef struct stat3 {
    double max, mean;
} stat3;

static stat3 over_ranks(const mc_sim_result *r, size_t field)
{
    stat3 s = {0, 0};
    for (int i = 0; i < r->nranks; i++) {
        int64_t v = *(const int64_t *)((const char *)&r->ranks[i] + field);
        double x = mc_sim_seconds(v);
        if (x > s.max)
            s.max = x;
        s.mean += x;
    }
    if (r->nranks)
        s.mean /= r->nranks;
    return s;
}

static json_t *stat_json(stat3 s)
{
    return json_pack("{s:f,s:f}", "max", s.max, "mean", s.mean);
}

static int print_json(const predict_args *a, const mc_platform *p, const mc_sim_result *r,
                      const mc_sim_result *f)
{
    json_t *ranks = json_array();
    for (int i = 0; i < r->nranks; i++) {
        const mc_sim_rank *x = &r->ranks[i];
        json_array_append_new(ranks, json_pack("{s:i,s:f,s:f,s:f,s:f,s:I}", "rank", i, "end",
                                               mc_sim_seconds(x->end), "compute",
                                               mc_sim_seconds(x->compute), "comm",
                                               mc_sim_seconds(x->comm), "wait",
                                               mc_sim_seconds(x->wait), "events",
                                               (json_int_t)x->events));
    }
    double T = mc_sim_seconds(r->end);
    json_t *bd = json_null(); /* no complete free-network replay: no breakdown */
    if (f && !f->interrupted) {
        double T0 = mc_sim_seconds(f->end), comm = T - T0;
        bd = json_pack("{s:f,s:f,s:f,s:f}", "free_network_time", T0, "computation", T0,
                       "communication", comm, "communication_fraction", T > 0 ? comm / T : 0.0);
    }
    json_t *msgs = json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)r->messages, "bytes",
                             (json_int_t)r->bytes, "collective_count",
                             (json_int_t)r->coll_messages, "collective_bytes",
                             (json_int_t)r->coll_bytes);
    const char *model = mc_platform_str(p, "network.model");
    json_t *doc = json_pack(
        "{s:s,s:i,s:s,s:f,s:o,s:o,s:o,s:o,s:o,s:I,s:f,s:f,s:o}", "trace", a->shown, "ranks",
        r->nranks, "network_model", model ? model : "loggp", "predicted_time", T,
        "compute_time", stat_json(over_ranks(r, offsetof(mc_sim_rank, compute))), "comm_time",
        stat_json(over_ranks(r, offsetof(mc_sim_rank, comm))), "wait_time",
        stat_json(over_ranks(r, offsetof(mc_sim_rank, wait))), "per_rank", ranks, "messages",
        msgs, "events", (json_int_t)r->events, "sim_wall_seconds", r->wall_seconds,
        "events_per_second", r->wall_seconds > 0 ? (double)r->events / r->wall_seconds : 0.0,
        "breakdown", bd);
    if (doc && (r->interrupted || (f ? f->interrupted : !a->no_breakdown)))
        json_object_set_new(doc, "interrupted",
                            json_pack("{s:b,s:f,s:I}", "partial", r->interrupted,
                                      "simulated_time_reached", mc_sim_seconds(r->sim_time),
                                      "events_replayed", (json_int_t)r->events));
    if (doc && a->compute) {
        mc_ctable_counts k = mc_ctable_get_counts(a->compute);
        json_object_set_new(doc, "compute_table",
                            json_pack("{s:s,s:I,s:I,s:I}", "file", a->compute_file, "blocks",
                                      (json_int_t)mc_ctable_size(a->compute), "from_table",
                                      (json_int_t)k.from_table, "fell_back",
                                      (json_int_t)k.fell_back));
    }
    if (doc && a->links)
        json_object_set_new(doc, "links", predict_links_json(a->links, T));
    if (!doc) {
        fputs("mpicast: predict: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

static void print_text(const predict_args *a, const mc_platform *p, const mc_sim_result *r,
                       const mc_sim_result *f)
{
    const char *model = mc_platform_str(p, "network.model");
    double T = mc_sim_seconds(r->end);
    if (r->interrupted)
        printf("PARTIAL RESULT   interrupted at simulated time %.9f s after %llu trace events;\n"
               "                 the figures below cover only what was simulated\n",
               mc_sim_seconds(r->sim_time), (unsigned long long)r->events);
    printf("predicted time   %.9f s   (%s, %d ranks, network %s)\n", T, a->shown, r->nranks,
           model ? model : "loggp");
    stat3 c = over_ranks(r, offsetof(mc_sim_rank, compute));
    stat3 m = over_ranks(r, offsetof(mc_sim_rank, comm));
    stat3 w = over_ranks(r, offsetof(mc_sim_rank, wait));
    printf("per rank         %14s %14s\n", "max (s)", "mean (s)");
    printf("  compute        %14.9f %14.9f\n", c.max, c.mean);
    printf("  comm           %14.9f %14.9f\n", m.max, m.mean);
    printf("  wait           %14.9f %14.9f\n", w.max, w.mean);
    if (f && !f->interrupted) {
        double T0 = mc_sim_seconds(f->end);
        printf("breakdown        computation %.9f s (free network), communication %.9f s "
               "(%.1f %%)\n", T0, T - T0, T > 0 ? 100.0 * (T - T0) / T : 0.0);
    } else if (a->no_breakdown) {
        printf("breakdown        not computed (--no-breakdown)\n");
    } else {
        printf("breakdown        not available (interrupted before the free-network replay "
               "ended)\n");
    }
    printf("messages         %llu (%llu bytes), of which in collectives %llu (%llu bytes)\n",
           (unsigned long long)r->messages, (unsigned long long)r->bytes,
           (unsigned long long)r->coll_messages, (unsigned long long)r->coll_bytes);
    if (a->compute) {
        mc_ctable_counts k = mc_ctable_get_counts(a->compute);
        printf("compute table    %s: %llu bursts from the table, %llu fell back to the "
               "recorded burst / cpu.speed (block not in the table)\n", a->compute_file,
               (unsigned long long)k.from_table, (unsigned long long)k.fell_back);
    }
    predict_links_print(a->links, T, stdout);
    printf("replayed         %llu events in %.3f s (%.3g events/s)\n",
           (unsigned long long)r->events, r->wall_seconds,
           r->wall_seconds > 0 ? (double)r->events / r->wall_seconds : 0.0);
    if (r->nranks <= 32) {
        printf("\n%6s %14s %14s %14s %14s\n", "rank", "end (s)", "compute", "comm", "wait");
        for (int i = 0; i < r->nranks; i++) {
            const mc_sim_rank *x = &r->ranks[i];
            printf("%6d %14.9f %14.9f %14.9f %14.9f\n", i, mc_sim_seconds(x->end),
                   mc_sim_seconds(x->compute), mc_sim_seconds(x->comm), mc_sim_seconds(x->wait));
        }
    }
}

static int fail_replay(const mc_error *err, const mc_sim_result *res)
{
    cli_fail(err);
    if (res->report)
        fputs(res->report, stderr);
    return CLI_BAD_INPUT;
}

int cmd_predict(int argc, char **argv)
{
    predict_args a;
    int rc = CLI_OK;
    catch_sigint();
    if (parse_args(argc, argv, &a, &rc)) {
        free(a.sets);
        return rc;
    }
    const char *inputs[] = {a.trace, a.platform, a.compute_file};
    if (cli_output_clear(a.timeline, inputs, 3) != CLI_OK ||
        cli_output_clear(a.timeline_otf2, inputs, 3) != CLI_OK) {
        free(a.sets);
        return CLI_BAD_INPUT;
    }
    mc_error err = {0};
    a.shown = a.trace;
    char *otf2_dir = predict_otf2_import(a.trace, &err);
    if (!otf2_dir && err.code) {
        free(a.sets);
        return cli_fail(&err);
    }
    if (otf2_dir)
        a.trace = otf2_dir;
    if (a.compute_file && !(a.compute = mc_ctable_load(a.compute_file, &err))) {
        predict_otf2_cleanup(otf2_dir);
        free(a.sets);
        return cli_fail(&err);
    }
    mc_platform *p = load_platform(&a, &err);
    if (!p) {
        predict_otf2_cleanup(otf2_dir);
        mc_ctable_destroy(a.compute);
        free(a.sets);
        return cli_fail(&err);
    }
    FILE *tl = NULL;
    mc_out tl_out = {.fd = -1}; /* a file, even when named "-" (as before) */
    if (a.timeline && (mc_out_open(&tl_out, a.timeline, 0, &err) != MC_OK || !(tl = tl_out.f))) {
        rc = cli_fail(&err);
        goto out;
    }
    if (a.timeline_otf2 && !tl && !(tl = tmpfile())) {
        mc_error_set(&err, MC_ERR_IO, "%s: cannot create a temporary timeline", a.timeline_otf2);
        rc = cli_fail(&err);
        goto out;
    }
    mc_sim_result res = {0}, free_res = {0};
    predict_links links = {0};
    a.links = &links;
    mc_err r1, r2;
    replay_both(&a, p, tl, &res, &free_res, &r1, &r2, &err);
    if (r1 == MC_ERR_INTERRUPTED || r2 == MC_ERR_INTERRUPTED) {
        /* Ctrl-C: what was simulated, then 130 like a shell's interrupted job */
        cli_fail(&err);
        const mc_sim_result *f = r1 == MC_OK && !a.no_breakdown ? &free_res : NULL;
        if (a.json)
            print_json(&a, p, &res, f);
        else
            print_text(&a, p, &res, f);
        rc = PREDICT_INTERRUPTED;
    } else if (r1) {
        rc = fail_replay(&err, &res);
    } else if (r2) {
        rc = fail_replay(&err, &free_res);
    } else if (a.json) {
        rc = print_json(&a, p, &res, a.no_breakdown ? NULL : &free_res);
    } else {
        print_text(&a, p, &res, a.no_breakdown ? NULL : &free_res);
    }
    mc_sim_result_free(&res);
    mc_sim_result_free(&free_res);
    predict_links_free(&links);
    if (tl && a.timeline_otf2 && rc == CLI_OK && predict_timeline_otf2(tl, a.timeline_otf2, &err))
        rc = cli_fail(&err);
    if (a.timeline) { /* renamed into place only when the prediction succeeded */
        if (cli_output_finish(&tl_out, tl, rc == CLI_OK ? MC_OK : MC_ERR_IO, &err) != MC_OK &&
            rc == CLI_OK)
            rc = cli_fail(&err);
    } else if (tl && fclose(tl) != 0 && rc == CLI_OK) {
        mc_error_set(&err, MC_ERR_IO, "timeline: write failed");
        rc = cli_fail(&err);
    }
out:
    predict_otf2_cleanup(otf2_dir);
    mc_ctable_destroy(a.compute);
    mc_platform_destroy(p);
    free(a.sets);
    return rc;
}
