/* The report's timeline (export_internal.h, tl_view_*): fed slice by slice
 * by the replay (mc_sim_slice_fn), drawn at any trace size. Slices are kept
 * exactly while they are few; past TL_VIEW_MAX_EXACT in the window the view
 * shows, per rank and per column of the drawing, the share of the column's
 * time spent computing, in MPI work and waiting — aggregated, and said so,
 * never cut. Memory: the exact slices (bounded) and rows x TL_BINS bins. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <stdlib.h>
#include <string.h>

enum { TL_BINS = 275, TL_W = 1100, TL_LEFT = 70, TL_ROWH = 18, TL_VIEW_MAX_EXACT = 20000 };
enum { C_COMPUTE, C_COMM, C_WAIT, C_MPI, C_N };

typedef struct tl_exact {
    int64_t t0, t1;
    int32_t rank;
    int8_t cat;
    char name[23];
} tl_exact;

struct tl_view {
    int rows;
    int64_t w0, w1;     /* window (ps); w1 <= w0: the whole run */
    int fixed;          /* window given: bins cover it once and for all */
    int64_t bw;         /* bin width (ps) */
    double *bins;       /* rows x TL_BINS x C_N, ps of each category */
    tl_exact *ex;       /* exact slices in the window while they fit */
    size_t nex;
    uint64_t inwin;     /* slices in the window (drawn rows) */
    int aggregated;     /* more than TL_VIEW_MAX_EXACT: bins only */
    int failed;         /* out of memory: nothing is drawn, and the page says so */
};

static int cat_index(const char *cat)
{
    if (strcmp(cat, "compute") == 0) return C_COMPUTE;
    if (strcmp(cat, "comm") == 0) return C_COMM;
    if (strcmp(cat, "wait") == 0) return C_WAIT;
    return C_MPI;
}

tl_view *tl_view_create(int rows, int64_t w0_ps, int64_t w1_ps)
{
    tl_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->rows = rows > 0 ? rows : 1;
    v->fixed = w1_ps > w0_ps;
    v->w0 = v->fixed ? w0_ps : 0;
    v->w1 = v->fixed ? w1_ps : 0;
    v->bw = v->fixed ? (w1_ps - w0_ps + TL_BINS - 1) / TL_BINS : 1000;
    if (v->bw < 1)
        v->bw = 1;
    v->bins = calloc((size_t)v->rows * TL_BINS * C_N, sizeof *v->bins);
    v->ex = malloc(sizeof *v->ex * 1024);
    if (!v->bins || !v->ex) {
        tl_view_destroy(v);
        return NULL;
    }
    return v;
}

void tl_view_destroy(tl_view *v)
{
    if (v) {
        free(v->bins);
        free(v->ex);
        free(v);
    }
}

/* Whole-run view: doubles the bin width (merging bins pairwise) until t fits. */
static void widen(tl_view *v, int64_t t)
{
    while (t > v->bw * (int64_t)TL_BINS && v->bw < INT64_MAX / (4 * TL_BINS)) {
        for (int r = 0; r < v->rows; r++) {
            double *b = v->bins + (size_t)r * TL_BINS * C_N;
            for (int k = 0; k < TL_BINS; k++)
                for (int c = 0; c < C_N; c++)
                    b[k * C_N + c] = 2 * k + 1 < TL_BINS
                                         ? b[2 * k * C_N + c] + b[(2 * k + 1) * C_N + c]
                                         : (2 * k < TL_BINS ? b[2 * k * C_N + c] : 0.0);
        }
        v->bw *= 2;
    }
}

static void add_to_bins(tl_view *v, int rank, int c, int64_t t0, int64_t t1)
{
    double *b = v->bins + (size_t)rank * TL_BINS * C_N;
    int64_t k0 = (t0 - v->w0) / v->bw, k1 = (t1 - 1 - v->w0) / v->bw;
    for (int64_t k = k0; k <= k1 && k < TL_BINS; k++) {
        int64_t a = v->w0 + k * v->bw, e = a + v->bw;
        int64_t lo = t0 > a ? t0 : a, hi = t1 < e ? t1 : e;
        if (hi > lo)
            b[k * C_N + c] += (double)(hi - lo);
    }
}

static void keep_exact(tl_view *v, int rank, int c, const char *name, int64_t t0, int64_t t1)
{
    if (v->nex == TL_VIEW_MAX_EXACT) {
        v->aggregated = 1; /* from now on the bins tell it */
        return;
    }
    if (v->nex >= 1024 && (v->nex & (v->nex - 1)) == 0) {
        tl_exact *n = realloc(v->ex, 2 * v->nex * sizeof *n);
        if (!n) {
            v->aggregated = 1;
            return;
        }
        v->ex = n;
    }
    tl_exact *x = &v->ex[v->nex++];
    x->t0 = t0;
    x->t1 = t1;
    x->rank = rank;
    x->cat = (int8_t)c;
    snprintf(x->name, sizeof x->name, "%s", name);
}

void tl_view_slice(void *ctx, int rank, const char *name, const char *cat, int64_t t0, int64_t t1)
{
    tl_view *v = ctx;
    if (rank < 0 || rank >= v->rows || t1 < t0)
        return;
    if (!v->fixed)
        widen(v, t1);
    if (v->fixed && (t1 < v->w0 || t0 > v->w1))
        return;
    int64_t a = t0 < v->w0 ? v->w0 : t0, b = v->fixed && t1 > v->w1 ? v->w1 : t1;
    int c = cat_index(cat);
    v->inwin++;
    add_to_bins(v, rank, c, a, b);
    if (!v->aggregated)
        keep_exact(v, rank, c, name, a, b);
}

static const char *const colors[C_N] = {"#4e9a06", "#3465a4", "#cc0000", "#c4a000"};

static void esc_name(FILE *out, const char *s)
{
    for (; *s; s++)
        if (*s == '<') fputs("&lt;", out);
        else if (*s == '&') fputs("&amp;", out);
        else fputc(*s, out);
}

static double x_of(const tl_view *v, int64_t t, int64_t w1)
{
    return TL_LEFT + (double)(t - v->w0) / (double)(w1 - v->w0) * TL_W;
}

static void draw_exact(const tl_view *v, FILE *out, int64_t w1)
{
    for (size_t i = 0; i < v->nex; i++) {
        const tl_exact *s = &v->ex[i];
        double x = x_of(v, s->t0, w1), wd = x_of(v, s->t1, w1) - x;
        int is_mpi = s->cat == C_MPI;
        fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
                x, 2 + s->rank * TL_ROWH + (is_mpi ? 12 : 0), wd < 0.3 ? 0.3 : wd, is_mpi ? 3 : 11,
                colors[s->cat]);
        esc_name(out, s->name);
        fprintf(out, " %.6f-%.6f us</title></rect>\n", (double)s->t0 * 1e-6, (double)s->t1 * 1e-6);
    }
}

/* One column per bin: compute, comm and wait stacked by their share of the
 * column's time; the MPI band's opacity is the share inside MPI calls. */
static void draw_bins(const tl_view *v, FILE *out, int64_t w1)
{
    for (int r = 0; r < v->rows; r++)
        for (int k = 0; k < TL_BINS; k++) {
            const double *b = v->bins + ((size_t)r * TL_BINS + k) * C_N;
            int64_t a = v->w0 + k * v->bw, e = a + v->bw > w1 ? w1 : a + v->bw;
            if (e <= a)
                break;
            double span = (double)(e - a), x = x_of(v, a, w1), wd = x_of(v, e, w1) - x, y = 2 + r * TL_ROWH;
            for (int c = 0; c < C_MPI; c++) {
                double h = 11.0 * (b[c] / span > 1 ? 1 : b[c] / span);
                if (h < 0.05)
                    continue;
                fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                        x, y, wd, h, colors[c]);
                y += h;
            }
            if (b[C_MPI] > 0)
                fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"3\" fill=\"%s\" "
                             "fill-opacity=\"%.2f\"/>\n", x, 14 + r * TL_ROWH, wd, colors[C_MPI],
                        b[C_MPI] / span > 1 ? 1.0 : b[C_MPI] / span);
        }
}

void tl_view_render(const tl_view *v, FILE *out, int nranks, int64_t end_ps)
{
    int64_t w1 = v->fixed ? v->w1 : (end_ps > 0 ? end_ps : 1);
    int H = v->rows * TL_ROWH + 40;
    fprintf(out, "<div class=\"figure\" id=\"fig-timeline\" data-figure=\"timeline\">"
                 "<p class=\"note\">Simulated timeline, window %.6f s to %.6f s%s",
            (double)v->w0 * 1e-12, (double)w1 * 1e-12, nranks > v->rows ? " (first 64 ranks)" : "");
    if (v->aggregated)
        fprintf(out, "; %llu slices, aggregated: each column (%.3g s) shows the share of its time "
                     "spent computing, in MPI work and waiting (narrow the window with --window "
                     "for exact slices)", (unsigned long long)v->inwin,
                (double)(w1 - v->w0) / TL_BINS * 1e-12);
    fprintf(out, "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" data-mode=\"%s\">\n",
            TL_W + TL_LEFT + 10, H, TL_W + TL_LEFT + 10, H, v->aggregated ? "aggregated" : "exact");
    for (int r = 0; r < v->rows; r++)
        fprintf(out, "<text x=\"4\" y=\"%d\" font-size=\"11\">rank %d</text>\n", 14 + r * TL_ROWH, r);
    if (v->aggregated)
        draw_bins(v, out, w1);
    else
        draw_exact(v, out, w1);
    int y = v->rows * TL_ROWH;
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>"
                 "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.6f s</text>"
                 "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.6f s</text></svg>\n",
            TL_LEFT, y + 6, TL_LEFT + TL_W, y + 6, TL_LEFT, y + 22, (double)v->w0 * 1e-12,
            TL_LEFT + TL_W, y + 22, (double)w1 * 1e-12);
    fputs("<div class=\"legend\"><span><i class=\"sw\" style=\"background:#4e9a06\"></i>compute</span>"
          "<span><i class=\"sw\" style=\"background:#3465a4\"></i>comm (CPU in MPI)</span>"
          "<span><i class=\"sw\" style=\"background:#cc0000\"></i>wait</span>"
          "<span><i class=\"sw\" style=\"background:#c4a000\"></i>MPI call</span></div></div>\n",
          out);
}
