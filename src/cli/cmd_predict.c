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
#include "opts.h"
#include "progress_source.h"
#include "predict_links.h"
#include "mpicast/predict.h"
#include "mpicast/blocks.h"
#include "mpicast/cpu.h"
#include "mpicast/export.h"
#include "mpicast/extrap.h"
#include "mpicast/format.h"
#include "mpicast/net.h"
#include "mpicast/platform.h"
#include "mpicast/sim.h"
#include "mpicast/tit.h"

static const char predict_head[] =
    "usage: mpicast predict TRACE [--platform FILE] [--set KEY=VALUE]... [--json]\n"
    "                       [--timeline FILE] [--timeline-otf2 DIR] [--compute FILE]\n"
    "                       [--ranks P [rules...]] [--jobs N] [--no-breakdown]\n"
    "                       [--profile FILE] [--iterations K] [--quiet]\n"
    "\n"
    "Replays every rank of TRACE on a modelled platform and predicts the run\n"
    "time: the latest rank's end, with per-rank computation, communication\n"
    "(CPU time spent in MPI: overheads, message processing, reductions) and\n"
    "waiting (the rest of the time in MPI: blocked on a peer or the network).\n"
    "TRACE is a trace directory (mpicast trace), an OTF2 archive (Score-P's\n"
    "traces.otf2 or its directory: imported on the fly) or a SimGrid time-independent\n"
    "text trace (a file).\n"
    "\n";

static const char predict_tail[] =
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
    cli_list sets;            /* --set, in order */
    const char *compute_file; /* --compute */
    mc_ctable *compute;
    const char *profile_file; /* --profile */
    mc_cpu_profile *profile;
    int json;
    int ranks;                /* --ranks: extrapolate to this many ranks */
    mc_extrap_rules xrules;   /* --rules, --rule, --grid, ... */
    const char *timeline_otf2; /* --timeline-otf2 DIR */
    int quiet;                /* --quiet: no progress line */
    int jobs;                 /* --jobs: 2 runs both replays at once */
    int iterations;           /* --iterations K: sample the loops */
    int no_breakdown;         /* --no-breakdown: no free-network replay */
} predict_args;

static int parse_args(int argc, char **argv, predict_args *a, int *rc)
{
    memset(a, 0, sizeof *a);
    mc_extrap_rules_init(&a->xrules);
    cli_one trace = {NULL, "TRACE"};
    const cli_opt opts[] = {
        CLI_PLATFORM_OPTS(&a->platform, &a->sets),
        {"--json", NULL, NULL, CLI_FLAG, "one JSON document on stdout (keys: docs/json.md)",
         &a->json, NULL},
        {"--timeline", NULL, "FILE", CLI_VALUE,
         "write the simulated timeline as Chrome trace-event JSON\n"
         "(open it in Perfetto: one track per rank)", &a->timeline, NULL},
        {"--timeline-otf2", NULL, "DIR", CLI_VALUE,
         "the simulated timeline as an OTF2 archive DIR/traces.otf2\n"
         "(Vampir, otf2-print)", &a->timeline_otf2, NULL},
        {"--quiet", "-q", NULL, CLI_FLAG,
         "no progress line on stderr (shown only on a terminal)", &a->quiet, NULL},
        {"--jobs", NULL, "N", CLI_VALUE,
         "1: the two replays (platform, free network) one after the\n"
         "other; 2 (default with 2 or more cores): at the same time,\n"
         "in half the wall time and twice the memory", &a->jobs, cli_set_count},
        {"--iterations", NULL, "K", CLI_VALUE,
         "quick prediction: replays every loop cut to K and to 2K\n"
         "iterations and extends each figure linearly to the\n"
         "iterations left out (cost follows K, not the run's length);\n"
         "a trace not loop-compressed (mpicast compress) is compressed\n"
         "first into a temporary directory (one read of the trace)", &a->iterations,
         cli_set_count},
        {"--no-breakdown", NULL, NULL, CLI_FLAG,
         "skip the free-network replay (half the work; the breakdown\n"
         "is then absent: null in --json)", &a->no_breakdown, NULL},
        {"--ranks", NULL, "P", CLI_VALUE,
         "extrapolate the trace to P ranks (pseudo-trace streamed to\n"
         "the simulator; docs/extrapolation.md); rules as for\n"
         "'mpicast extrapolate': --rules FILE, --rule KEY=VALUE,\n"
         "--grid DxD, --periodic 0,1, --replicate [R], --scaling S", &a->ranks,
         cli_set_count},
        CLI_EXTRAP_RULE_OPTS(&a->xrules),
        {"--compute", NULL, "FILE", CLI_VALUE,
         "compute table (mpicast blocks DIR --table FILE): each burst\n"
         "takes its block's time from FILE; bursts of blocks FILE\n"
         "lacks keep recorded time / cpu.speed (counted, reported)", &a->compute_file, NULL},
        {"--profile", NULL, "FILE", CLI_VALUE,
         "CPU profile (instructions and reuse distances per block,\n"
         "docs/compute-data.md): each burst takes its block's time on\n"
         "the processor model of the platform's [cpu] keys (frequency,\n"
         "cpi, caches, memory); bursts of blocks FILE lacks keep\n"
         "recorded time / cpu.speed (counted, reported). Not with\n"
         "--compute", &a->profile_file, NULL},
    };
    const cli_spec spec = {"predict", predict_head, predict_tail, 19, opts, CLI_NOPTS(opts),
                           cli_take_one, &trace, 0, 0};
    if (cli_parse(&spec, argc, argv, rc))
        return -1;
    a->trace = trace.value;
    if (a->compute_file && a->profile_file) {
        *rc = cli_usage_error("predict: --compute and --profile both give the blocks' times: "
                              "give one");
        return -1;
    }
    if (!a->jobs)
        a->jobs = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    return 0;
}

/* Progress lines through the session's wrap hook (progress_source.h). */
static mc_source *wrap_progress(void *ctx, mc_source *src, const char *what)
{
    const predict_args *a = ctx;
    return progress_source_wrap(src, a->quiet ? NULL : stderr, what);
}

static void unwrap_progress(void *ctx, mc_source *wrapped, mc_source *src)
{
    (void)ctx;
    progress_source_end(wrapped, src);
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

static int print_json(const predict_args *a, const mc_platform *p, const mc_predict_result *pr,
                      const mc_sim_result *f)
{
    const mc_sim_result *r = &pr->run;
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
        "{s:s,s:i,s:s,s:f,s:o,s:o,s:o,s:o,s:o,s:I,s:f,s:f,s:o}", "trace", a->trace, "ranks",
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
        mc_ctable_counts k = pr->compute_counts;
        json_object_set_new(doc, "compute_table",
                            json_pack("{s:s,s:I,s:I,s:I}", "file", a->compute_file, "blocks",
                                      (json_int_t)mc_ctable_size(a->compute), "from_table",
                                      (json_int_t)k.from_table, "fell_back",
                                      (json_int_t)k.fell_back));
    }
    if (doc && a->profile) {
        mc_cpu_counts k = pr->profile_counts;
        json_object_set_new(doc, "cpu_profile",
                            json_pack("{s:s,s:I,s:I,s:I}", "file", a->profile_file, "blocks",
                                      (json_int_t)mc_cpu_profile_count(a->profile),
                                      "from_profile", (json_int_t)k.from_profile, "fell_back",
                                      (json_int_t)k.fell_back));
    }
    if (doc)
        json_object_set_new(doc, "links", predict_links_json(&pr->links, T));
    if (doc)
        json_object_set_new(doc, "sampled",
                            a->iterations ? json_pack("{s:i,s:I,s:I}", "iterations",
                                                      a->iterations, "loop_records",
                                                      (json_int_t)pr->sampled_records,
                                                      "extended_iterations",
                                                      (json_int_t)pr->sampled_skipped)
                                          : json_null());
    if (!doc) {
        fputs("mpicast: predict: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(doc);
    return CLI_OK;
}

static void print_text(const predict_args *a, const mc_platform *p, const mc_predict_result *pr,
                       const mc_sim_result *f)
{
    const mc_sim_result *r = &pr->run;
    const char *model = mc_platform_str(p, "network.model");
    double T = mc_sim_seconds(r->end);
    if (r->interrupted)
        printf("PARTIAL RESULT   interrupted at simulated time %.9f s after %llu trace events;\n"
               "                 the figures below cover only what was simulated\n",
               mc_sim_seconds(r->sim_time), (unsigned long long)r->events);
    printf("predicted time   %.9f s   (%s, %d ranks, network %s)\n", T, a->trace, r->nranks,
           model ? model : "loggp");
    if (a->iterations)
        printf("sampled          loops cut to %d and %d iterations; rank 0: %llu iterations of "
               "%llu loop records extended linearly\n", a->iterations, 2 * a->iterations,
               (unsigned long long)pr->sampled_skipped,
               (unsigned long long)pr->sampled_records);
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
        mc_ctable_counts k = pr->compute_counts;
        printf("compute table    %s: %llu bursts from the table, %llu fell back to the "
               "recorded burst / cpu.speed (block not in the table)\n", a->compute_file,
               (unsigned long long)k.from_table, (unsigned long long)k.fell_back);
    }
    if (a->profile) {
        mc_cpu_counts k = pr->profile_counts;
        printf("cpu profile      %s: %llu bursts from the processor model, %llu fell back to "
               "the recorded burst / cpu.speed (block not in the profile)\n", a->profile_file,
               (unsigned long long)k.from_profile, (unsigned long long)k.fell_back);
    }
    predict_links_print(&pr->links, T, stdout);
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
        cli_list_free(&a.sets);
        return rc;
    }
    const char *inputs[] = {a.trace, a.platform, a.compute_file, a.profile_file};
    int ninputs = a.profile_file ? 4 : 3;
    if (cli_output_clear(a.timeline, inputs, ninputs) != CLI_OK ||
        cli_output_clear(a.timeline_otf2, inputs, ninputs) != CLI_OK) {
        cli_list_free(&a.sets);
        return CLI_BAD_INPUT;
    }
    mc_error err = {0};
    if (a.compute_file && !(a.compute = mc_ctable_load(a.compute_file, &err))) {
        cli_list_free(&a.sets);
        return cli_fail(&err);
    }
    if (a.profile_file && !(a.profile = mc_cpu_profile_load(a.profile_file, &err))) {
        cli_list_free(&a.sets);
        return cli_fail(&err);
    }
    char note[600];
    if (mc_cpu_profile_cpi_note(a.profile, note, sizeof note))
        fprintf(stderr, "mpicast: warning: %s\n", note);
    mc_platform *p = mc_predict_platform(a.platform, a.sets.v, a.sets.n, &err);
    if (!p) {
        mc_cpu_profile_destroy(a.profile);
        mc_ctable_destroy(a.compute);
        cli_list_free(&a.sets);
        return cli_fail(&err);
    }
    mc_net_warn_ignored(p, stderr, NULL, 0);
    FILE *tl = NULL;
    mc_out tl_out = {.fd = -1}; /* a file, even when named "-" (as before) */
    mc_tl_otf2 *tlo = NULL;
    if (a.timeline_otf2 && !(tlo = mc_tl_otf2_create())) {
        mc_error_set(&err, MC_ERR_NOMEM, "%s: out of memory", a.timeline_otf2);
        rc = cli_fail(&err);
        goto out;
    }
    if (a.timeline && (mc_out_open(&tl_out, a.timeline, 0, &err) != MC_OK || !(tl = tl_out.f))) {
        rc = cli_fail(&err);
        goto out;
    }
    mc_predict_request rq = {
        .trace = a.trace, .platform = p, .ranks = a.ranks, .rules = &a.xrules,
        .compute = a.compute, .profile = a.profile, .breakdown = !a.no_breakdown, .jobs = a.jobs,
        .links = !a.iterations, .iterations = (uint64_t)a.iterations,
        .timeline = tl, .interrupt = &interrupted,
        .slice = tlo ? mc_tl_otf2_slice : NULL, .slice_ctx = tlo,
        .wrap = wrap_progress, .unwrap = unwrap_progress, .wrap_ctx = &a,
    };
    mc_predict_result res;
    mc_predict_run(&rq, &res, &err);
    mc_err r1 = res.run_rc, r2 = res.free_rc;
    /* the free replay's result, when it ran after (or beside) a complete one */
    const mc_sim_result *f = r1 == MC_OK && !a.no_breakdown ? &res.free_run : NULL;
    if (r1 == MC_ERR_INTERRUPTED || r2 == MC_ERR_INTERRUPTED) {
        /* Ctrl-C: what was simulated, then 130 like a shell's interrupted job */
        cli_fail(&err);
        if (a.json)
            print_json(&a, p, &res, f);
        else
            print_text(&a, p, &res, f);
        rc = PREDICT_INTERRUPTED;
    } else if (r1) {
        rc = fail_replay(&err, &res.run);
    } else if (r2) {
        rc = fail_replay(&err, &res.free_run);
    } else {
        /* a prediction that rests on rules one trace cannot check says so */
        char unchecked[600];
        if (a.ranks > 0 && mc_extrap_rules_unchecked(&a.xrules, unchecked, sizeof unchecked))
            fprintf(stderr, "mpicast: warning: predict: unchecked: %s (docs/extrapolation.md, "
                    "\"Leave-one-out check\")\n", unchecked);
        if (res.folded) /* a shortcut not asked for */
            fprintf(stderr, "mpicast: warning: predict: %s\n", mc_extrap_folded_warning(&a.xrules));
        if (a.json)
            rc = print_json(&a, p, &res, f);
        else
            print_text(&a, p, &res, f);
    }
    if (a.profile && r1 == MC_OK && res.profile_counts.from_profile == 0 &&
        res.profile_counts.fell_back > 0)
        fprintf(stderr, "mpicast: warning: %s has none of the blocks of %s (site keys differ: "
                "another program or source version?): every burst kept its recorded time / "
                "cpu.speed\n", a.profile_file, a.trace);
    if (tlo && rc == CLI_OK && mc_tl_otf2_write(tlo, a.timeline_otf2, res.run.nranks, &err))
        rc = cli_fail(&err);
    mc_predict_result_free(&res);
    /* the timeline is renamed into place only when the prediction succeeded */
    if (tl && cli_output_finish(&tl_out, tl, rc == CLI_OK ? MC_OK : MC_ERR_IO, &err) != MC_OK &&
        rc == CLI_OK)
        rc = cli_fail(&err);
out:
    mc_tl_otf2_destroy(tlo);
    mc_ctable_destroy(a.compute);
    mc_cpu_profile_destroy(a.profile);
    mc_platform_destroy(p);
    cli_list_free(&a.sets);
    return rc;
}
