/* mpicast report: one self-contained HTML page (inline CSS and SVG, no
 * script, no network) for trace directories and JSON results.
 *
 * Trace directory: summary, MPI statistics per function, the prediction
 * (simulator run on the platform and on a free network: the breakdown),
 * per-rank stacked bars, the simulated timeline in a window. JSON files:
 * predict --json (time and breakdown versus process count, with the trace
 * inputs' predictions), scaling --json (strong / weak curves), sweep --json
 * (its points). Plots are gnuplot SVG inlined; the timeline is SVG drawn
 * from the simulator's own Chrome timeline (src/sim/timeline.c). */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/platform.h"
#include "mpicast/input.h"
#include "mpicast/predict.h"
#include "mpicast/stats.h"
#include "mpicast/sim.h"

typedef struct rep {
    const mc_report_opts *o;
    FILE *out;
    mc_error *err;
    char tmpdir[64];
    int nplots;
    /* (ranks, predicted, computation, communication) over all inputs */
    struct { double p, t, comp, comm; char label[80]; } *pts;
    size_t npts;
    char **files; /* created in tmpdir, removed at the end */
    size_t nfiles;
    int failed;   /* an input could not be read: the command fails with fail_err */
    mc_error fail_err;
} rep;

/* Remembers a temporary file to remove at the end. */
static void created(rep *R, const char *path)
{
    char **v = realloc(R->files, (R->nfiles + 1) * sizeof *v);
    if (!v)
        return;
    R->files = v;
    if ((v[R->nfiles] = strdup(path)))
        R->nfiles++;
}

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char css[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;background:#f6f7f9;color:#222}"
    "header{background:#1f3b57;color:#fff;padding:14px 28px}header h1{margin:0;font-size:22px}"
    "main{max-width:1180px;margin:0 auto;padding:8px 24px 40px}"
    "section{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:18px 0;padding:12px 20px}"
    "h2{font-size:18px;margin:6px 0 10px;color:#1f3b57}h3{font-size:15px;margin:14px 0 6px}"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}"
    "th,td{border-bottom:1px solid #e4e7eb;padding:3px 10px;text-align:right}"
    "th{background:#eef1f4}td:first-child,th:first-child{text-align:left}"
    ".kv td{text-align:left}.figure{overflow-x:auto;margin:8px 0}.figure svg{max-width:100%;height:auto}"
    ".note{color:#666;font-size:12px}.legend span{display:inline-block;margin-right:14px;font-size:12px}"
    ".sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}";

/* ------------------------------------------------------------ plots */

/* Runs gnuplot to SVG in the temp dir and inlines the result (and, with
 * --plots DIR, writes name.svg and name.png there). */
static void figure(rep *R, const char *name, const char *title, const char *script, const char *data)
{
    mc_error e = {0};
    char svg[256];
    snprintf(svg, sizeof svg, "%s/%s.svg", R->tmpdir, name);
    created(R, svg);
    fprintf(R->out, "<div class=\"figure\" id=\"fig-%s\" data-figure=\"%s\">", name, name);
    if (!mc_gnuplot_available() || mc_gnuplot(script, data, svg, &e) != MC_OK) {
        fprintf(R->out, "<p class=\"note\">%s: not drawn (gnuplot is not available).</p></div>\n", title);
        return;
    }
    FILE *f = fopen(svg, "r");
    char *buf = NULL;
    size_t len = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = n > 0 ? malloc((size_t)n + 1) : NULL;
        if (buf)
            len = fread(buf, 1, (size_t)n, f);
        fclose(f);
    }
    if (buf) {
        buf[len] = 0;
        char *start = strstr(buf, "<svg");
        fprintf(R->out, "<p class=\"note\">%s</p>\n%s", title, start ? start : "");
        free(buf);
        R->nplots++;
    }
    fputs("</div>\n", R->out);
    if (R->o->plots_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.svg", R->o->plots_dir, name);
        mc_gnuplot(script, data, path, &e);
        snprintf(path, sizeof path, "%s/%s.png", R->o->plots_dir, name);
        mc_gnuplot(script, data, path, &e);
    }
}

static FILE *data_file(rep *R, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.dat", R->tmpdir, name);
    created(R, path);
    return fopen(path, "w");
}

/* ------------------------------------------------------------ trace input */

/* Summary and per-function table: the figures of `mpicast stats` (stats.h),
 * so that the same trace shows the same numbers in both. */
static void stats_section(rep *R, const mc_stats *st, const mc_meta *meta)
{
    mc_stats_totals t = mc_stats_total(st);
    const char *cmd = meta ? mc_meta_get(meta, "command") : NULL;
    const char *lib = meta ? mc_meta_get(meta, "mpi_library") : NULL;
    fputs("<h3>Summary</h3><table class=\"kv\">", R->out);
    fprintf(R->out, "<tr><td>ranks</td><td>%d</td></tr><tr><td>MPI calls</td><td>%lld</td></tr>",
            mc_stats_nranks(st), (long long)t.calls);
    fputs("<tr><td>command</td><td>", R->out);
    esc(R->out, cmd ? cmd : "(unknown)");
    fputs("</td></tr><tr><td>MPI library</td><td>", R->out);
    esc(R->out, lib ? lib : "(unknown)");
    fprintf(R->out, "</td></tr><tr><td>point-to-point messages</td><td>%lld (%lld bytes)</td></tr>"
                    "<tr><td>time in MPI (all ranks)</td><td>%.6f s of %.6f s (%.1f %%)</td></tr>",
            (long long)t.sends, (long long)t.send_bytes, t.mpi_ns * 1e-9, t.app_sum_ns * 1e-9,
            t.app_sum_ns > 0 ? 100.0 * (double)t.mpi_ns / (double)t.app_sum_ns : 0.0);
    if (mc_stats_truncated(st))
        fputs("<tr><td>truncated</td><td>yes: a rank's stream ends early (a crashed run?); "
              "the figures cover the readable prefix</td></tr>", R->out);
    fputs("</table>\n<h3>MPI functions</h3><table class=\"stats\"><tr><th>function</th>"
          "<th>calls</th><th>bytes</th><th>time (s)</th><th>mean (&micro;s)</th></tr>\n", R->out);
    for (int op = 0; op < MC_OP_COUNT; op++) {
        mc_stats_counts c = mc_stats_op(st, op, -1);
        if (c.calls)
            fprintf(R->out, "<tr><td>MPI_%s</td><td>%lld</td><td>%lld</td><td>%.6f</td><td>%.3f</td></tr>\n",
                    mc_op_name(op), (long long)c.calls, (long long)c.bytes, c.time_ns * 1e-9,
                    c.time_ns * 1e-3 / (double)c.calls);
    }
    fputs("</table>\n", R->out);
}

static void add_point(rep *R, double p, double t, double comp, double comm, const char *label)
{
    void *v = realloc(R->pts, (R->npts + 1) * sizeof *R->pts);
    if (!v)
        return;
    R->pts = v;
    R->pts[R->npts].p = p;
    R->pts[R->npts].t = t;
    R->pts[R->npts].comp = comp;
    R->pts[R->npts].comm = comm;
    snprintf(R->pts[R->npts].label, sizeof R->pts[R->npts].label, "%s", label);
    R->npts++;
}

static void prediction_section(rep *R, const char *dir, int idx, int nranks)
{
    const mc_report_opts *o = R->o;
    mc_platform *p = mc_predict_platform(o->platform, o->sets, o->nsets, R->err);
    if (!p) {
        fputs("<p class=\"note\">No prediction: ", R->out);
        esc(R->out, R->err->msg);
        fputs("</p>\n", R->out);
        return;
    }
    tl_view *tl = tl_view_create(nranks < 64 ? nranks : 64, llround(o->window_start * 1e12),
                                 llround(o->window_end * 1e12));
    mc_predict_request rq = {.trace = dir, .platform = p, .breakdown = 1,
                             .slice = tl ? tl_view_slice : NULL, .slice_ctx = tl};
    mc_predict_result pr;
    mc_err rc = mc_predict_run(&rq, &pr, R->err);
    const mc_sim_result res = pr.run, fr = pr.free_run;
    if (rc) {
        fputs("<p class=\"note\">No prediction: ", R->out);
        esc(R->out, R->err->msg);
        fputs("</p>\n", R->out);
    } else {
        double T = mc_sim_seconds(res.end), T0 = mc_sim_seconds(fr.end);
        const char *model = mc_platform_str(p, "network.model");
        fprintf(R->out, "<h3>Prediction</h3><table class=\"kv\" id=\"prediction-%d\">"
                        "<tr><td>predicted time</td><td><b>%.9f s</b></td></tr>"
                        "<tr><td>network model</td><td>%s</td></tr>"
                        "<tr><td>computation (free network)</td><td>%.9f s</td></tr>"
                        "<tr><td>communication</td><td>%.9f s (%.1f %%)</td></tr>"
                        "<tr><td>messages</td><td>%llu (%llu bytes)</td></tr></table>\n",
                idx, T, model ? model : "loggp", T0, T - T0, T > 0 ? 100 * (T - T0) / T : 0.0,
                (unsigned long long)res.messages, (unsigned long long)res.bytes);
        add_point(R, nranks, T, T0, T - T0, dir);
        char path[512], name[64], script[1024];
        snprintf(name, sizeof name, "ranks%d", idx);
        FILE *d = data_file(R, name, path, sizeof path);
        for (int r = 0; d && r < res.nranks; r++)
            fprintf(d, "%d %.12g %.12g %.12g\n", r, mc_sim_seconds(res.ranks[r].compute),
                    mc_sim_seconds(res.ranks[r].comm), mc_sim_seconds(res.ranks[r].wait));
        if (d && fclose(d) == 0) {
            snprintf(script, sizeof script,
                     "set title 'Per-rank time: compute / comm / wait (predicted)'\n"
                     "set style data histograms\nset style histogram rowstacked\n"
                     "set style fill solid 0.85 border -1\nset boxwidth 0.8\n"
                     "set xlabel 'rank'\nset ylabel 'seconds'\nset key outside right\n"
                     "set xtics %s\n"
                     "plot data using 2:xtic(1) title 'compute' lc rgb '#4e9a06', "
                     "'' using 3 title 'comm' lc rgb '#3465a4', '' using 4 title 'wait' lc rgb '#cc0000'\n",
                     res.nranks > 32 ? "format '' scale 0" : "nomirror");
            figure(R, name, "Per-rank stacked bars of the predicted compute, comm and wait", script, path);
        }
        if (tl)
            tl_view_render(tl, R->out, res.nranks, res.end);
        else
            fputs("<p class=\"note\">No timeline: out of memory.</p>\n", R->out);
    }
    tl_view_destroy(tl);
    mc_predict_result_free(&pr);
    mc_platform_destroy(p);
}

static void trace_section(rep *R, const char *dir, int idx, mc_progress *prog)
{
    fputs("<section class=\"trace\"><h2>Trace ", R->out);
    esc(R->out, dir);
    fputs("</h2>\n", R->out);
    mc_error e = {0};
    (void)prog; /* one streaming pass: the statistics' reading is the progress */
    mc_source *src = mc_input_open(dir, &e);
    mc_stats *st = src ? mc_stats_collect(src, &e) : NULL;
    if (!st) {
        fputs("<p class=\"note\">Cannot read: ", R->out);
        esc(R->out, e.msg);
        fputs("</p></section>\n", R->out);
        if (!R->failed) /* the command fails too, naming the input */
            R->fail_err = e, R->failed = 1;
        mc_source_close(src);
        return;
    }
    stats_section(R, st, mc_source_meta(src));
    int nranks = mc_stats_nranks(st);
    mc_stats_destroy(st);
    mc_source_close(src);
    if (!R->o->no_predict)
        prediction_section(R, dir, idx, nranks);
    fputs("</section>\n", R->out);
}

/* ------------------------------------------------------------ JSON inputs */

static void scaling_section(rep *R, json_t *doc, int idx)
{
    char path[512], name[64], script[2048];
    snprintf(name, sizeof name, "scaling%d", idx);
    FILE *d = data_file(R, name, path, sizeof path);
    if (!d)
        return;
    /* one gnuplot data block per curve (two blank lines between) */
    const char *kinds[2] = {"strong", "weak"};
    char titles[1024] = "";
    int blocks = 0;
    for (int k = 0; k < 2; k++) {
        json_t *rows = json_object_get(doc, kinds[k]);
        double cur = NAN;
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row) {
            double key = json_number_value(json_object_get(row, k ? "k" : "n"));
            if (key != cur) {
                if (blocks)
                    fputs("\n\n", d);
                size_t l = strlen(titles);
                snprintf(titles + l, sizeof titles - l, "%s%s:%s=%g", blocks ? " " : "", kinds[k],
                         k ? "k" : "n", key);
                blocks++;
                cur = key;
            }
            fprintf(d, "%.12g %.12g %.12g\n", json_number_value(json_object_get(row, "p")),
                    json_number_value(json_object_get(row, "tau")),
                    json_number_value(json_object_get(row, "efficiency")));
        }
    }
    fclose(d);
    if (!blocks)
        return;
    snprintf(script, sizeof script,
             "set title 'Scaling model: time per step tau(p) (strong: fixed n; weak: n = k p)'\n"
             "set logscale x 2\nset logscale y\nset xlabel 'processes p'\nset ylabel 'tau (s)'\n"
             "set key outside right\nt = '%s'\n"
             "plot for [i=0:%d] data index i using 1:2 with linespoints lw 2 title word(t, i+1)\n",
             titles, blocks - 1);
    fputs("<section class=\"scaling\"><h2>Scaling curves</h2>\n<p class=\"note\">Curves: ", R->out);
    esc(R->out, titles);
    fputs("</p>\n", R->out);
    figure(R, name, "Strong and weak scaling from mpicast scaling --json", script, path);
    fputs("</section>\n", R->out);
}

/* The label of a sweep point: its varied values, "key=value,key=value". */
static void point_label(json_t *vary, json_t *pt, char *buf, size_t len)
{
    size_t i, l = 0;
    json_t *k;
    buf[0] = 0;
    json_array_foreach(vary, i, k) {
        const char *key = json_string_value(k);
        const char *v = key ? json_string_value(json_object_get(pt, key)) : NULL;
        const char *shortkey = key ? strrchr(key, '.') : NULL; /* "bandwidth" of network.bandwidth */
        if (key && v && l < len)
            l += (size_t)snprintf(buf + l, len - l, "%s%s=%s", l ? "," : "", shortkey ? shortkey + 1 : key, v);
    }
    for (char *c = buf; *c; c++) /* gnuplot word(): no blanks or quotes */
        if (*c == ' ' || *c == '\'' || *c == '"')
            *c = '_';
    if (!buf[0])
        snprintf(buf, len, "points");
}

/* One line per combination of the varied values: predicted time versus
 * process count (sweep --json "points"). */
static void sweep_section(rep *R, json_t *doc, int idx)
{
    json_t *points = json_object_get(doc, "points"), *vary = json_object_get(doc, "vary");
    char path[512], name[64], script[1536], labels[1024] = "", lab[256];
    snprintf(name, sizeof name, "sweep%d", idx);
    FILE *d = data_file(R, name, path, sizeof path);
    if (!d)
        return;
    size_t n = json_array_size(points);
    /* a single process count: one bar per combination instead of lines */
    double first = NAN;
    int one_count = 1;
    for (size_t i = 0; i < n; i++) {
        double p = json_number_value(json_object_get(json_array_get(points, i), "ranks"));
        if (i == 0)
            first = p;
        else if (p != first)
            one_count = 0;
    }
    if (one_count && n > 0) {
        int k = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *pt = json_array_get(points, i), *t = json_object_get(pt, "predicted_time");
            if (!json_is_number(t))
                continue;
            point_label(vary, pt, lab, sizeof lab);
            fprintf(d, "%d %.12g \"%s\"\n", k++, json_number_value(t), lab);
        }
        fclose(d);
        fputs("<section class=\"sweep\"><h2>Sweep</h2>\n", R->out);
        snprintf(script, sizeof script,
                 "set title 'Sweep: predicted time at %g processes'\nset ylabel 'seconds'\n"
                 "set style fill solid 0.8\nset boxwidth 0.7\nset xtics rotate by -20\n"
                 "set bmargin 8\nset yrange [0:*]\n"
                 "plot data using 1:2:xtic(3) with boxes lc rgb '#3465a4' title 'predicted time'\n",
                 first);
        figure(R, name, "Sweep results (mpicast sweep --json)", script, path);
        fputs("</section>\n", R->out);
        return;
    }
    char *done = calloc(n + 1, 1);
    int blocks = 0;
    for (size_t i = 0; done && i < n; i++) {
        if (done[i] || !json_is_number(json_object_get(json_array_get(points, i), "predicted_time")))
            continue;
        point_label(vary, json_array_get(points, i), lab, sizeof lab);
        if (blocks)
            fputs("\n\n", d);
        size_t l = strlen(labels);
        snprintf(labels + l, sizeof labels - l, "%s%s", blocks ? " " : "", lab);
        blocks++;
        for (size_t j = i; j < n; j++) {
            json_t *pt = json_array_get(points, j);
            char other[256];
            point_label(vary, pt, other, sizeof other);
            json_t *t = json_object_get(pt, "predicted_time"), *p = json_object_get(pt, "ranks");
            if (done[j] || strcmp(other, lab) != 0 || !json_is_number(t))
                continue;
            done[j] = 1;
            fprintf(d, "%.12g %.12g\n", json_is_number(p) ? json_number_value(p) : (double)j,
                    json_number_value(t));
        }
    }
    free(done);
    fclose(d);
    fputs("<section class=\"sweep\"><h2>Sweep</h2>\n", R->out);
    if (blocks) {
        snprintf(script, sizeof script,
                 "set title 'Sweep: predicted time, one line per varied value'\n"
                 "set xlabel 'processes'\nset ylabel 'seconds'\nset key outside right\nt = '%s'\n"
                 "plot for [i=0:%d] data index i using 1:2 with linespoints lw 2 pt 7 title word(t, i+1)\n",
                 labels, blocks - 1);
        figure(R, name, "Sweep results (mpicast sweep --json)", script, path);
    } else {
        fputs("<p class=\"note\">No points with a predicted_time.</p>\n", R->out);
    }
    fputs("</section>\n", R->out);
}

/* Measured T_comm(size) of the platform's ping-pong table against the
 * LogGP model the platform states: T(s) = 2o + L + (s-1)G. */
static void tcomm_section(rep *R)
{
    if (!R->o->platform)
        return;
    mc_error e = {0};
    mc_platform *p = mc_platform_load(R->o->platform, &e);
    double *sz = NULL, *tm = NULL;
    int n = p ? mc_platform_table(p, "pingpong", &sz, &tm) : 0;
    if (n > 0) {
        double L = mc_platform_num(p, "network.latency"), o = mc_platform_num(p, "network.overhead");
        double bw = mc_platform_num(p, "network.bandwidth");
        char path[512], script[1024];
        FILE *d = data_file(R, "tcomm", path, sizeof path);
        for (int i = 0; d && i < n; i++)
            fprintf(d, "%.12g %.12g\n", sz[i], tm[i]);
        if (d && fclose(d) == 0) {
            snprintf(script, sizeof script,
                     "set title 'T_comm(size): measured ping-pong and the platform model'\n"
                     "set logscale xy\nset xlabel 'message size (bytes)'\nset ylabel 'seconds'\n"
                     "set key left top\nL = %.12g\no = %.12g\nG = %.12g\n"
                     "f(s) = 2*o + L + (s > 1 ? s - 1 : 0) * G\n"
                     "plot data using 1:2 with points pt 7 ps 1.2 lc rgb '#cc0000' title 'measured', "
                     "f(x) with lines lw 2 lc rgb '#3465a4' title 'LogGP: 2o + L + (s-1)G'\n",
                     isnan(L) ? 0 : L, isnan(o) ? 0 : o, bw > 0 && !isinf(bw) ? 1 / bw : 0);
            fputs("<section class=\"tcomm\"><h2>Communication: T_comm(size)</h2>\n", R->out);
            figure(R, "tcomm", "Measured T_comm(size) and the fitted LogGP model", script, path);
            fputs("</section>\n", R->out);
        }
    }
    free(sz);
    free(tm);
    mc_platform_destroy(p);
}

static void json_input(rep *R, const char *path, int idx)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        fputs("<section><h2>", R->out);
        esc(R->out, path);
        fprintf(R->out, "</h2><p class=\"note\">Not JSON (line %d: ", je.line);
        esc(R->out, je.text);
        fputs(")</p></section>\n", R->out);
        return;
    }
    if (json_is_number(json_object_get(doc, "predicted_time"))) {
        json_t *bd = json_object_get(doc, "breakdown");
        double T = json_number_value(json_object_get(doc, "predicted_time"));
        double T0 = json_number_value(json_object_get(bd, "computation"));
        add_point(R, json_number_value(json_object_get(doc, "ranks")), T, T0, T - T0, path);
    } else if (json_object_get(doc, "strong") || json_object_get(doc, "weak")) {
        scaling_section(R, doc, idx);
    } else if (json_object_get(doc, "points")) {
        sweep_section(R, doc, idx);
    }
    json_decref(doc);
}

static int pt_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void ranks_section(rep *R)
{
    if (R->npts == 0)
        return;
    qsort(R->pts, R->npts, sizeof *R->pts, pt_cmp);
    fputs("<section class=\"scale\"><h2>Predicted time versus process count</h2>\n"
          "<table><tr><th>input</th><th>ranks</th><th>predicted (s)</th><th>computation (s)</th>"
          "<th>communication (s)</th></tr>\n", R->out);
    char path[512], script[1024];
    FILE *d = data_file(R, "scale", path, sizeof path);
    for (size_t i = 0; i < R->npts; i++) {
        fputs("<tr><td>", R->out);
        esc(R->out, R->pts[i].label);
        fprintf(R->out, "</td><td>%g</td><td>%.9f</td><td>%.9f</td><td>%.9f</td></tr>\n", R->pts[i].p,
                R->pts[i].t, R->pts[i].comp, R->pts[i].comm);
        if (d)
            fprintf(d, "%g %.12g %.12g %.12g\n", R->pts[i].p, R->pts[i].t, R->pts[i].comp, R->pts[i].comm);
    }
    fputs("</table>\n", R->out);
    if (d && fclose(d) == 0) {
        snprintf(script, sizeof script,
                 "set title 'Predicted time and its breakdown'\nset xlabel 'processes'\nset ylabel 'seconds'\n"
                 "set key outside right\n%s"
                 "plot data using 1:2 with linespoints lw 2 pt 7 lc rgb '#222222' title 'predicted', "
                 "'' using 1:3 with linespoints lw 2 pt 5 lc rgb '#4e9a06' title 'computation', "
                 "'' using 1:4 with linespoints lw 2 pt 9 lc rgb '#3465a4' title 'communication'\n",
                 R->npts > 1 && R->pts[R->npts - 1].p > 4 * R->pts[0].p ? "set logscale x 2\n" : "");
        figure(R, "scale", "Predicted time, computation and communication versus process count", script, path);
    }
    fputs("</section>\n", R->out);
}

static void rm_tmpdir(rep *R)
{
    for (size_t i = 0; i < R->nfiles; i++) {
        unlink(R->files[i]);
        free(R->files[i]);
    }
    free(R->files);
    rmdir(R->tmpdir);
}

mc_err mc_report_html(const mc_report_opts *o, FILE *out, mc_progress *prog, mc_error *err)
{
    rep R = {.o = o, .out = out, .err = err};
    snprintf(R.tmpdir, sizeof R.tmpdir, "/tmp/mpicast-report-XXXXXX");
    if (!mkdtemp(R.tmpdir))
        return mc_error_set(err, MC_ERR_IO, "report: cannot create a temporary directory");
    if (o->plots_dir && mc_mkdir(o->plots_dir, err)) {
        rm_tmpdir(&R);
        return err->code;
    }
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                 "<title>mpicast report</title><style>%s</style></head>\n<body>"
                 "<header><h1>mpicast report</h1></header><main>\n",
            css);
    fputs("<section><h2>Inputs</h2><ul>", out);
    for (int i = 0; i < o->ninputs; i++) {
        fputs("<li>", out);
        esc(out, o->inputs[i]);
        fputs("</li>", out);
    }
    fputs("</ul></section>\n", out);
    for (int i = 0; i < o->ninputs; i++) {
        const char *in = o->inputs[i];
        size_t len = strlen(in);
        if (len > 5 && strcmp(in + len - 5, ".json") == 0)
            json_input(&R, in, i);
        else
            trace_section(&R, in, i, prog);
        mc_progress_update(prog, (uint64_t)i + 1, (uint64_t)o->ninputs);
    }
    ranks_section(&R);
    tcomm_section(&R);
    fprintf(out, "<p class=\"note\">Generated by mpicast; %d plots. Times are predictions of the "
                 "replay simulator unless marked measured.</p>\n</main></body></html>\n",
            R.nplots);
    mc_progress_done(prog);
    free(R.pts);
    rm_tmpdir(&R);
    if (ferror(out))
        return mc_error_set(err, MC_ERR_IO, "report: write failed");
    if (R.failed && err)
        *err = R.fail_err;
    return R.failed ? (R.fail_err.code ? R.fail_err.code : MC_ERR_FORMAT) : MC_OK;
}
