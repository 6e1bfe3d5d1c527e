/* mpicast-bench: characterises a platform and writes a platform file
 * (docs/bench.md). Run as `mpirun -np 2 mpicast-bench -o platform.ini`.
 *
 *  - ping-pong between ranks 0 and 1: for each size the median time of
 *    MPI_Recv on rank 0 (T_comm(size), the MPIETE communication base data)
 *    and of MPI_Send, after warm-up;
 *  - the send and receive overheads and the gap of a stream of small
 *    messages (Netgauge-style), then LogGP fitted from all of it (fit.c);
 *  - --collectives: time of one barrier, bcast, reduce, allreduce, allgather
 *    and alltoall per size at the rank count it runs with;
 *  - --compute: reference kernel rates (kernels.c) for cpu.speed;
 *  - --cpu: the processor model's [cpu] keys (cpucal.c): caches from sysfs,
 *    pointer-chasing latencies, frequency, stream bandwidth.
 * Ranks that take no part in a phase wait in a sleeping loop so that they do
 * not steal the cores of the ranks measuring. Progress goes to stderr. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpucal.h"
#include "fit.h"
#include "kernels.h"
#include "mpicast/platform.h"

#define TOOL "mpicast-bench 0.1.0"
#define MAX_POINTS 4096

typedef struct opts {
    const char *out;  /* NULL: stdout */
    double max_size;  /* B */
    double step;      /* B; 0: log-spaced sizes */
    int reps;         /* most repetitions per size */
    int min_reps;
    int warmup;
    double budget;    /* s of measuring per size (sets the repetitions) */
    int collectives;
    double coll_max;  /* B */
    int compute;
    int cpu;          /* --cpu: the processor model's keys */
    int quiet;
} opts;

typedef struct results {
    mcb_point pts[MAX_POINTS];
    int n;
    double o_send, o_recv, gap;
    double gap_spread;  /* of the stream intervals: mcb_spread */
    mcb_loggp fit;
    int remeasured;     /* rounds of re-measuring after a verdict of disturbed */
    int disturbed;      /* still disturbed after them: the verdict of the last fit */
    char why[512];      /* its reasons (mcb_assess) */
    /* collectives: one line per (op, size) */
    struct coll_point {
        const char *op;
        double size, time;
    } *coll;
    int ncoll, capcoll;
    double membw, flops;
    mcb_cpu cpu;        /* --cpu */
} results;

static int rank, nranks;

/* Test hook (docs/bench.md, tests/test_bench_disturb.sh): MPICAST_BENCH_DISTURB
 * = "EVERY:SECONDS[:PASSES]" makes rank 0 spin SECONDS more inside the timed
 * MPI_Recv of every EVERY-th ping-pong repetition, during the first PASSES
 * sweeps over the sizes (all of them without PASSES). A disturbance on
 * demand, to check that the bench notices it. */
static struct {
    int every;
    double delay;
    int passes; /* sweeps disturbed; -1: all */
    int pass;   /* the sweep being measured */
} disturb = {0, 0, -1, 0};

static void disturb_init(void)
{
    const char *v = getenv("MPICAST_BENCH_DISTURB");
    int every = 0, passes = -1;
    double delay = 0;
    if (v && sscanf(v, "%d:%lf:%d", &every, &delay, &passes) >= 2 && every > 0 && delay > 0) {
        disturb.every = every;
        disturb.delay = delay;
        disturb.passes = passes;
    }
}

static int disturbed_rep(int r)
{
    return disturb.every > 0 && r % disturb.every == 0 &&
           (disturb.passes < 0 || disturb.pass < disturb.passes);
}

/* ------------------------------------------------------------ messages */

static void say(const char *fmt, ...)
{
    if (rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpicast-bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The progress line: rewritten in place on a terminal, one line per phase
 * step (every `every`-th call) in a log. */
static void progress(const opts *o, int i, int n, const char *fmt, ...)
{
    if (rank != 0 || o->quiet)
        return;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (isatty(2))
        fprintf(stderr, "\rmpicast-bench: [%d/%d] %-60s%s", i + 1, n, msg, i + 1 == n ? "\n" : "");
    else if (i + 1 == n || i % 8 == 0)
        fprintf(stderr, "mpicast-bench: [%d/%d] %s\n", i + 1, n, msg);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np 2 mpicast-bench [-o FILE] [--max-size BYTES] [--step BYTES]\n"
            "                  [--reps N] [--warmup N] [--budget TIME] [--collectives]\n"
            "                  [--coll-max-size BYTES] [--compute] [--cpu] [--quiet]\n"
            "Measures the ping-pong curve between ranks 0 and 1 (T_comm(size) = time of\n"
            "MPI_Recv), fits LogGP to it and writes a platform file (stdout without -o).\n"
            "  -o FILE              platform file to write\n"
            "  --max-size BYTES     largest message (default 16MiB)\n"
            "  --step BYTES         sizes 0, STEP, 2 STEP, ... (default: log-spaced)\n"
            "  --reps N             most repetitions per size (default 100; median kept)\n"
            "  --warmup N           unmeasured round trips before each size (default 3)\n"
            "  --budget TIME        measuring time per size, sets the repetitions (default 20ms)\n"
            "  --collectives        also time barrier, bcast, reduce, allreduce, allgather,\n"
            "                       alltoall at this rank count (any number of ranks)\n"
            "  --coll-max-size B    largest collective size (default 1MiB)\n"
            "  --compute            also run the reference kernels for cpu.speed\n"
            "  --cpu                also calibrate the processor model ([cpu] frequency,\n"
            "                       caches, latencies, memory; docs/platform.md)\n"
            "  --quiet              no progress on stderr\n"
            "See docs/bench.md.\n");
}

static int parse_num(const char *opt, const char *text, mc_unit unit, double *out)
{
    mc_error err = {0};
    if (mc_parse_value(text, unit, out, &err) != MC_OK || isnan(*out) || isinf(*out) ||
        *out < 0) {
        if (rank == 0)
            fprintf(stderr, "mpicast-bench: %s %s: %s\n", opt, text,
                    err.msg[0] ? err.msg : "must be a finite value >= 0");
        return -1;
    }
    return 0;
}

/* 0 ok, 1 --help, 2 usage error (reported by rank 0). */
static int parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){.max_size = 16 << 20, .reps = 100, .min_reps = 5, .warmup = 3,
                .budget = 0.02, .coll_max = 1 << 20};
    int i;
    const char *a = "";
    for (i = 1; i < argc; i++) {
        a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "--collectives")) {
            o->collectives = 1;
            continue;
        }
        if (!strcmp(a, "--cpu")) {
            o->cpu = 1;
            continue;
        }
        if (!strcmp(a, "--compute")) {
            o->compute = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!v)
            goto bad;
        i++;
        if (!strcmp(a, "-o")) {
            o->out = v;
        } else if (!strcmp(a, "--max-size")) {
            if (parse_num(a, v, MC_UNIT_BYTES, &o->max_size) || o->max_size > (1 << 30))
                goto bad_value;
        } else if (!strcmp(a, "--step")) {
            if (parse_num(a, v, MC_UNIT_BYTES, &o->step))
                goto bad_value;
        } else if (!strcmp(a, "--coll-max-size")) {
            if (parse_num(a, v, MC_UNIT_BYTES, &o->coll_max) || o->coll_max > (1 << 28))
                goto bad_value;
        } else if (!strcmp(a, "--budget")) {
            if (parse_num(a, v, MC_UNIT_TIME, &o->budget) || o->budget > 60)
                goto bad_value;
        } else if (!strcmp(a, "--reps") || !strcmp(a, "--warmup")) {
            if (parse_num(a, v, MC_UNIT_NONE, &x) || x != floor(x) || x > 1e6 ||
                (x < 1 && !strcmp(a, "--reps")))
                goto bad_value;
            *(!strcmp(a, "--reps") ? &o->reps : &o->warmup) = (int)x;
        } else {
            goto bad;
        }
    }
    if (o->min_reps > o->reps)
        o->min_reps = o->reps;
    if (o->step > 0 && o->max_size / o->step >= MAX_POINTS) {
        if (rank == 0)
            fprintf(stderr, "mpicast-bench: --step: more than %d sizes up to --max-size\n",
                    MAX_POINTS);
        return 2;
    }
    return 0;
bad_value:
    if (rank == 0)
        fprintf(stderr, "mpicast-bench: %s %s: value out of range\n", argv[i - 1], argv[i]);
    return 2;
bad:
    if (rank == 0) {
        fprintf(stderr, "mpicast-bench: %s: unknown option or missing value\n", a);
        usage(stderr);
    }
    return 2;
}

/* Sizes: 0, STEP, 2 STEP, ... or 0, 1, 2, 3, 4, 6, 8, 12, ... (powers of two
 * and 1.5 times them, so the eager limit falls between close sizes), and
 * the largest size itself. */
static int make_sizes(const opts *o, double *s)
{
    int n = 0;
    s[n++] = 0;
    if (o->step > 0) {
        for (double x = o->step; x <= o->max_size && n < MAX_POINTS; x += o->step)
            s[n++] = x;
    } else {
        for (double p = 1; p <= o->max_size && n + 2 < MAX_POINTS; p *= 2) {
            s[n++] = p;
            if (p >= 2 && 1.5 * p <= o->max_size)
                s[n++] = 1.5 * p;
        }
    }
    if (s[n - 1] < o->max_size && n < MAX_POINTS)
        s[n++] = o->max_size;
    return n;
}

/* ------------------------------------------------------------ waiting */

static void nap(void)
{
    struct timespec ts = {0, 200000}; /* 0.2 ms */
    nanosleep(&ts, NULL);
}

/* A barrier in which the ranks that did nothing sleep rather than spin. */
static void sleepy_barrier(void)
{
    MPI_Request rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    for (int done = 0; !done;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (!done)
            nap();
    }
}

static void spin_for(double seconds)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        ;
}

/* ------------------------------------------------------------ ping-pong */

enum { TAG_PP = 1, TAG_CTL = 2 };

/* Rank 0 and 1 agree on a count: rank 0 decides it. */
static int agree(int v)
{
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    else
        MPI_Recv(&v, 1, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return v;
}

/* Rank 0's per-repetition times: Send, Recv and their one-way mean. */
typedef struct reptimes {
    double *ts, *tr, *tw;
} reptimes;

static void spin_for(double seconds);

/* One size: warm-up, then reps round trips; medians of the Send and Recv
 * calls of rank 0 and the spread of the one-way times. */
static void pingpong_size(const opts *o, char *buf, int size, reptimes *rt, mcb_point *out)
{
    double *ts = rt->ts, *tr = rt->tr;
    double rtt = 0;
    for (int w = 0; w < o->warmup + 1; w++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD);
        }
        rtt = MPI_Wtime() - t0;
    }
    int reps = rtt > 0 ? (int)fmin(o->reps, o->budget / rtt) : o->reps;
    reps = agree(reps < o->min_reps ? o->min_reps : reps);
    for (int r = 0; r < reps; r++) {
        if (rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, size, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD);
            double t1 = MPI_Wtime();
            MPI_Recv(buf, size, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (disturbed_rep(r))
                spin_for(disturb.delay);
            double t2 = MPI_Wtime();
            ts[r] = t1 - t0;
            tr[r] = t2 - t1;
            rt->tw[r] = (ts[r] + tr[r]) / 2;
        } else {
            MPI_Recv(buf, size, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD);
        }
    }
    out->size = size;
    out->send = mcb_median(ts, (size_t)reps);
    out->recv = mcb_median(tr, (size_t)reps);
    out->spread = rank == 0 ? mcb_spread(rt->tw, (size_t)reps) : 0;
}

/* Overheads and gap, Netgauge-style (docs/bench.md), with 8-byte messages:
 *  o_send  the MPI_Isend call (it returns once the message is handed over);
 *  o_recv  an MPI_Recv called when the message has surely arrived already
 *          (rank 0 spins for 10 round trips first): only the receive work;
 *  gap     the interval between messages of a stream of 64 Isends, once the
 *          latency of the first message and of the acknowledgement is
 *          taken off. */
static void overheads(const opts *o, char *buf, double rtt, double *ts, results *res)
{
    double *keep = ts + o->reps + 64; /* the gap's intervals, for their spread */
    int reps = o->reps < 30 ? o->reps : 30;
    char ack = 0;
    for (int r = 0; r < reps; r++) {
        if (rank == 0) {
            MPI_Request rq;
            double t0 = MPI_Wtime();
            MPI_Isend(buf, 8, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD, &rq);
            double t1 = MPI_Wtime();
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ts[r] = t1 - t0;
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_CTL, MPI_COMM_WORLD);
        }
    }
    res->o_send = rank == 0 ? mcb_median(ts, (size_t)reps) : 0;

    for (int r = 0; r < reps; r++) {
        if (rank == 0) {
            MPI_Send(&ack, 1, MPI_BYTE, 1, TAG_CTL, MPI_COMM_WORLD);
            spin_for(10 * rtt + 5e-6);
            double t0 = MPI_Wtime();
            MPI_Recv(buf, 8, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ts[r] = MPI_Wtime() - t0;
        } else {
            MPI_Recv(&ack, 1, MPI_BYTE, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD);
        }
    }
    res->o_recv = rank == 0 ? mcb_median(ts, (size_t)reps) : 0;

    enum { STREAM = 64 };
    MPI_Request rq[STREAM];
    MPI_Status st[STREAM]; /* not MPI_STATUSES_IGNORE: gcc takes it for an empty array */
    int sreps = reps < 10 ? reps : 10;
    for (int r = 0; r < sreps; r++) {
        if (rank == 0) {
            MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            for (int i = 0; i < STREAM; i++)
                MPI_Isend(buf + 8 * i, 8, MPI_BYTE, 1, TAG_PP, MPI_COMM_WORLD, &rq[i]);
            MPI_Waitall(STREAM, rq, st);
            MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t = MPI_Wtime() - t0 - rtt; /* first message out, ack back */
            ts[r] = t > 0 ? t / (STREAM - 1) : 0;
            keep[r] = ts[r];
        } else {
            for (int i = 0; i < STREAM; i++)
                MPI_Irecv(buf + 8 * i, 8, MPI_BYTE, 0, TAG_PP, MPI_COMM_WORLD, &rq[i]);
            MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_CTL, MPI_COMM_WORLD);
            MPI_Waitall(STREAM, rq, st);
            MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_CTL, MPI_COMM_WORLD);
        }
    }
    res->gap = rank == 0 ? mcb_median(ts, (size_t)sreps) : 0;
    res->gap_spread = rank == 0 ? mcb_spread(keep, (size_t)sreps) : 0;
}

/* Of two measurements of one size, the one with the shorter round trip:
 * interference (other processes, the OS) only ever adds time, so the
 * smaller median is the one less disturbed. */
static void keep_better(mcb_point *have, const mcb_point *p, int first)
{
    if (first || mcb_better(p, have))
        *have = *p;
}

/* A size whose one-way time exceeds both neighbours' by half was most
 * likely disturbed as a whole (a descheduled rank): measure it again, up to
 * three rounds. Rank 0 names the sizes, rank 1 follows. */
static int is_spike(const results *res, int i)
{
    double t = mcb_one_way(&res->pts[i]), ref;
    if (res->n < 2)
        return 0;
    if (i == 0)
        ref = mcb_one_way(&res->pts[1]);
    else if (i + 1 == res->n) /* the last point may grow with the size */
        ref = mcb_one_way(&res->pts[i - 1]) * res->pts[i].size / fmax(res->pts[i - 1].size, 1);
    else
        ref = fmax(mcb_one_way(&res->pts[i - 1]), mcb_one_way(&res->pts[i + 1]));
    return t > 1.5 * ref;
}

static void repair_spikes(const opts *o, char *buf, reptimes *rt, results *res)
{
    for (int round = 0; round < 3; round++) {
        int found = 0;
        for (int start = 0;;) {
            int idx = -1;
            for (int i = start; rank == 0 && i < res->n && idx < 0; i++)
                if (is_spike(res, i))
                    idx = i;
            idx = agree(idx);
            if (idx < 0)
                break;
            found = 1;
            if (!o->quiet)
                say("ping-pong %.0f B stands out from its neighbours: measuring again",
                    rank == 0 ? res->pts[idx].size : 0.0);
            mcb_point p;
            pingpong_size(o, buf, (int)res->pts[idx].size, rt, &p);
            if (rank == 0)
                keep_better(&res->pts[idx], &p, 0);
            start = idx + 1;
        }
        if (!found)
            return;
    }
}

static void insert_point(results *res, const mcb_point *p)
{
    int i = res->n;
    while (i > 0 && res->pts[i - 1].size > p->size) {
        res->pts[i] = res->pts[i - 1];
        i--;
    }
    res->pts[i] = *p;
    res->n++;
}

/* Narrows the break of the curve (the eager limit) down to one byte by
 * bisection between the two sizes around it, keeping the points measured
 * (they are ordinary points of the table). Rank 0 decides, rank 1 follows. */
static void refine_break(const opts *o, char *buf, reptimes *rt, results *res)
{
    for (int iter = 0; iter < 24; iter++) {
        int mid = -1;
        if (rank == 0 && res->n < MAX_POINTS) {
            int k = mcb_find_break(res->pts, res->n, MCB_BREAK_EXCESS);
            if (k < res->n && res->pts[k].size - res->pts[k - 1].size > 1)
                mid = (int)((res->pts[k - 1].size + res->pts[k].size) / 2);
        }
        mid = agree(mid);
        if (mid < 0)
            return;
        mcb_point p, again;
        pingpong_size(o, buf, mid, rt, &p);
        pingpong_size(o, buf, mid, rt, &again);
        keep_better(&p, &again, 0);
        if (rank == 0) {
            insert_point(res, &p);
            char tc[32];
            mcb_fmt_time(tc, sizeof tc, p.recv);
            progress(o, iter, iter + 2, "eager limit: ping-pong %d B: T_comm %s", mid, tc);
        }
    }
}

/* One sweep over the sizes in res (the first: over `sizes`), each point
 * keeping the better of what it had and the new measurement. */
static void sweep(const opts *o, char *buf, reptimes *rt, results *res, const double *sizes,
                  int n, int first, int step, int steps)
{
    for (int i = 0; i < n; i++) {
        mcb_point p;
        pingpong_size(o, buf, (int)sizes[i], rt, &p);
        keep_better(&res->pts[i], &p, first);
        char sz[32], tc[32];
        mcb_fmt_size(sz, sizeof sz, p.size);
        mcb_fmt_time(tc, sizeof tc, p.recv);
        progress(o, step * n + i, steps * n, "ping-pong %s B: T_comm %s", sz, tc);
    }
    disturb.pass++;
}

/* Rank 0's verdict on the curve and the overheads measured so far (the fit
 * is redone from them in main). */
static int verdict(results *res)
{
    if (rank != 0)
        return 0;
    mcb_fit_loggp(res->pts, res->n, res->o_send, res->o_recv, res->gap, &res->fit);
    res->disturbed = mcb_assess(res->pts, res->n, &res->fit, res->gap_spread, res->why,
                                sizeof res->why) > 0;
    return res->disturbed;
}

/* Up to two more rounds while the verdict is "disturbed": every size
 * measured again (the better kept, mcb_better), and the overheads, each
 * keeping its smaller value (interference only adds time) and the gap
 * the less spread one. A transient disturbance goes; a lasting one stays
 * in the verdict, which main writes to stderr and the file. */
static void remeasure(const opts *o, char *buf, reptimes *rt, results *res)
{
    static double sizes[MAX_POINTS];
    for (int round = 0; round < 2 && agree(verdict(res)); round++) {
        if (!o->quiet)
            say("disturbed measurement (%s): measuring again", res->why);
        res->remeasured++;
        /* only rank 0 holds the curve (the bisection's points included) */
        int n = agree(res->n);
        for (int i = 0; i < n; i++)
            sizes[i] = res->pts[i].size;
        if (rank == 0)
            MPI_Send(sizes, n, MPI_DOUBLE, 1, TAG_CTL, MPI_COMM_WORLD);
        else
            MPI_Recv(sizes, n, MPI_DOUBLE, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sweep(o, buf, rt, res, sizes, n, 0, 0, 1);
        results was = {.o_send = res->o_send, .o_recv = res->o_recv, .gap = res->gap,
                       .gap_spread = res->gap_spread};
        overheads(o, buf, res->pts[0].send + res->pts[0].recv, rt->ts, res);
        res->o_send = fmin(res->o_send, was.o_send);
        res->o_recv = fmin(res->o_recv, was.o_recv);
        if (was.gap_spread < res->gap_spread) {
            res->gap = was.gap;
            res->gap_spread = was.gap_spread;
        }
    }
    verdict(res);
}

static int run_pingpong(const opts *o, results *res)
{
    static double sizes[MAX_POINTS];
    int n = make_sizes(o, sizes);
    size_t cap = (size_t)o->max_size > 64 * 8 ? (size_t)o->max_size : 64 * 8;
    size_t nrep = (size_t)o->reps + 64;
    char *buf = NULL;
    reptimes rt = {0};
    int ok = 1;
    if (rank <= 1) {
        buf = calloc(cap, 1);
        rt.ts = malloc(2 * nrep * sizeof *rt.ts); /* second half: overheads' gap intervals */
        rt.tr = malloc(nrep * sizeof *rt.tr);
        rt.tw = malloc(nrep * sizeof *rt.tw);
        ok = buf && rt.ts && rt.tr && rt.tw;
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok && rank <= 1) {
        for (int pass = 0; pass < 2; pass++)
            sweep(o, buf, &rt, res, sizes, n, pass == 0, pass, 2);
        res->n = n;
        repair_spikes(o, buf, &rt, res);
        refine_break(o, buf, &rt, res);
        double rtt = res->pts[0].send + res->pts[0].recv;
        overheads(o, buf, rtt, rt.ts, res);
        remeasure(o, buf, &rt, res);
    }
    if (rank > 1)
        res->n = n;
    free(buf);
    free(rt.ts);
    free(rt.tr);
    free(rt.tw);
    if (!all_ok) {
        say("out of memory for %.0f-byte messages", o->max_size);
        return -1;
    }
    sleepy_barrier();
    return 0;
}

/* ------------------------------------------------------------ collectives */

static const char *const coll_ops[] = {"barrier", "bcast", "reduce", "allreduce", "allgather",
                                       "alltoall"};
#define NCOLL ((int)(sizeof coll_ops / sizeof coll_ops[0]))

static void coll_call(int op, char *sbuf, char *rbuf, int bytes)
{
    switch (op) {
    case 0: MPI_Barrier(MPI_COMM_WORLD); break;
    case 1: MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 2: MPI_Reduce(sbuf, rbuf, bytes / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case 3: MPI_Allreduce(sbuf, rbuf, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 4: MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    default: MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    }
}

static int add_coll(results *res, const char *op, double size, double t)
{
    if (res->ncoll == res->capcoll) {
        int cap = res->capcoll ? 2 * res->capcoll : 64;
        struct coll_point *a = realloc(res->coll, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        res->coll = a;
        res->capcoll = cap;
    }
    res->coll[res->ncoll++] = (struct coll_point){op, size, t};
    return 0;
}

/* Time of one call: a loop of back-to-back calls after a barrier, divided
 * by the count, the largest over the ranks (IMB's t_max). The size is the
 * count x type size passed to MPI (per rank for allgather, per destination
 * for alltoall), as in a trace's events. */
static int run_collectives(const opts *o, results *res)
{
    int nsz = 0;
    double sizes[32];
    for (double s = 8; s <= o->coll_max && nsz < 32; s *= 4)
        sizes[nsz++] = s;
    size_t big = (size_t)o->coll_max * (size_t)nranks;
    if (big > ((size_t)256 << 20))
        big = (size_t)256 << 20;
    char *sbuf = calloc(big + 8, 1), *rbuf = calloc(big + 8, 1);
    int ok = sbuf && rbuf, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        say("out of memory for the collectives");
        free(sbuf);
        free(rbuf);
        return -1;
    }
    int total = 1 + (NCOLL - 1) * nsz, step = 0;
    for (int op = 0; op < NCOLL; op++) {
        for (int k = 0; k < (op == 0 ? 1 : nsz); k++, step++) {
            int bytes = op == 0 ? 0 : (int)sizes[k];
            if (op >= 4 && (size_t)bytes * (size_t)nranks > big)
                continue;
            for (int w = 0; w < o->warmup + 1; w++)
                coll_call(op, sbuf, rbuf, bytes);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            coll_call(op, sbuf, rbuf, bytes);
            double one = MPI_Wtime() - t0, worst;
            MPI_Allreduce(&one, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            int reps = worst > 0 ? (int)fmin(o->reps, o->budget / worst) : o->reps;
            if (reps < 3)
                reps = 3;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (int r = 0; r < reps; r++)
                coll_call(op, sbuf, rbuf, bytes);
            double per = (MPI_Wtime() - t0) / reps;
            MPI_Reduce(&per, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0 && add_coll(res, coll_ops[op], bytes, worst))
                ok = 0;
            char sz[32], tc[32];
            mcb_fmt_size(sz, sizeof sz, bytes);
            mcb_fmt_time(tc, sizeof tc, worst);
            progress(o, step, total, "%s %s B at %d ranks: %s", coll_ops[op], sz, nranks, tc);
        }
    }
    free(sbuf);
    free(rbuf);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ compute */

static void run_compute(const opts *o, results *res)
{
    if (rank == 0) {
        progress(o, 0, 2, "compute: memory-bound kernel (triad)");
        res->membw = mcb_triad_rate((size_t)4 << 20, 5);
        progress(o, 1, 2, "compute: compute-bound kernel (multiply-add)");
        res->flops = mcb_flop_rate(80000000L, 3);
    }
    sleepy_barrier();
}

static void run_cpu(const opts *o, results *res)
{
    if (rank == 0) {
        progress(o, 0, 1, "cpu: caches, latencies, frequency, memory bandwidth");
        mcb_cpu_calibrate(&res->cpu);
    }
    sleepy_barrier();
}

/* ------------------------------------------------------------ output */

/* A value fit for one INI line: no comment or control characters. */
static void clean(char *s, size_t max)
{
    char *nl = strchr(s, '\n');
    if (nl)
        *nl = '\0';
    for (char *c = s; *c; c++)
        if (*c == ';' || *c == '#' || (unsigned char)*c < ' ')
            *c = ' ';
    if (strlen(s) > max)
        s[max] = '\0';
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
}

static void print_summary(const opts *o, const results *res)
{
    if (o->quiet)
        return;
    fprintf(stderr, "%12s %14s %14s %14s %12s %8s\n", "size", "T_comm(recv)", "send", "one-way",
            "MB/s", "spread");
    for (int i = 0; i < res->n; i++) {
        const mcb_point *p = &res->pts[i];
        double t1 = mcb_one_way(p);
        char a[32], b[32], c[32];
        mcb_fmt_time(a, sizeof a, p->recv);
        mcb_fmt_time(b, sizeof b, p->send);
        mcb_fmt_time(c, sizeof c, t1);
        fprintf(stderr, "%12.0f %14s %14s %14s %12.1f %7.0f%%\n", p->size, a, b, c,
                t1 > 0 ? p->size / t1 / 1e6 : 0.0, 100 * p->spread);
    }
    const mcb_loggp *f = &res->fit;
    char L[32], ov[32], g[32], bw[32], el[32];
    mcb_fmt_time(L, sizeof L, f->L);
    mcb_fmt_time(ov, sizeof ov, f->o);
    mcb_fmt_time(g, sizeof g, f->g);
    mcb_fmt_bandwidth(bw, sizeof bw, f->G > 0 ? 1.0 / f->G : INFINITY);
    mcb_fmt_size(el, sizeof el, f->eager_limit);
    fprintf(stderr, "LogGP: L = %s, o = %s, g = %s, bandwidth = %s, eager limit = %s%s "
            "(fit over %d sizes, max error %.1f %%)\n", L, ov, g, bw, el,
            f->eager_found ? "" : " (no switch seen)", f->nfit, 100 * f->max_rel_err);
}

/* network.rendezvous_overhead for the handshake protocol (docs/platform.md):
 * what the protocol's legs in the fitted LogGP (4o + 3L + (s-1)G one way)
 * leave of the measured one-way time of a rendezvous message. The median
 * over the sizes from 1.25 to 4 times the eager limit: the sizes the
 * limit's bisection adds just above it are left out (right at the switch a
 * transport may still take a shortcut), larger ones drift with the
 * rendezvous path's own per-byte cost. The first size above the limit when
 * no size is in that range; never below 0. */
static double rendezvous_overhead(const results *res)
{
    const mcb_loggp *f = &res->fit;
    double v[MAX_POINTS], first = -1;
    size_t n = 0;
    for (int i = 0; i < res->n; i++) {
        double s = res->pts[i].size;
        if (s <= f->eager_limit)
            continue;
        double x = mcb_one_way(&res->pts[i]) - (4 * f->o + 3 * f->L + (s - 1) * f->G);
        if (first < 0 && n == 0)
            first = x > 0 ? x : 0;
        if (s >= 1.25 * f->eager_limit && s <= 4 * f->eager_limit)
            v[n++] = x;
    }
    double x = n > 0 ? mcb_median(v, n) : first;
    return x > 0 ? x : 0;
}

/* The verdict's reasons, one comment line each (an INI line is short). */
static void write_reasons(FILE *f, const char *why)
{
    fprintf(f, "# WARNING: disturbed measurement, do not trust this file:\n");
    for (const char *r = why; *r;) {
        const char *end = strstr(r, "; ");
        int n = end ? (int)(end - r) : (int)strlen(r);
        fprintf(f, "#   %.*s\n", n, r);
        r = end ? end + 2 : r + n;
    }
}

static double median_spread(const results *res)
{
    double v[MAX_POINTS];
    for (int i = 0; i < res->n; i++)
        v[i] = res->pts[i].spread;
    return mcb_median(v, (size_t)res->n);
}

/* How o, L, g and the bandwidth were obtained, saying so where a value
 * written is not the measured one (a cap or a clamp). */
static void write_param_comments(FILE *f, const results *res, const char *os, const char *orv)
{
    const mcb_loggp *fit = &res->fit;
    char om[32], gs[32];
    mcb_fmt_time(om, sizeof om, fit->o_measured);
    snprintf(gs, sizeof gs, "%.0f %%", 100 * res->gap_spread);
    if (fit->o_capped)
        fprintf(f, "# o: the mean %s of the send overhead %s and the receive overhead %s\n"
                   "# exceeds half the zero-byte time: capped to that half, and L = 0\n",
                om, os, orv);
    else
        fprintf(f, "# o = mean of the send overhead %s and the receive overhead %s;\n"
                   "# L = zero-byte time - 2o\n", os, orv);
    fprintf(f, "# g = interval of a stream of 8-byte messages (spread %s)\n", gs);
    if (fit->G_clamped)
        fprintf(f, "# bandwidth: the fitted time falls with the size (a disturbed curve): no\n"
                   "# per-byte cost measured, written as inf\n");
}

static int write_platform(const opts *o, const results *res, FILE *f)
{
    char host[256] = "unknown", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown", date[64];
    int len = 0;
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    MPI_Get_library_version(lib, &len);
    clean(host, 100);
    clean(lib, 120);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    const mcb_loggp *fit = &res->fit;
    char L[32], ov[32], g[32], bw[32], el[32], os[32], orv[32];
    mcb_fmt_time(L, sizeof L, fit->L);
    mcb_fmt_time(ov, sizeof ov, fit->o);
    mcb_fmt_time(g, sizeof g, fit->g);
    mcb_fmt_bandwidth(bw, sizeof bw, fit->G > 0 ? 1.0 / fit->G : INFINITY);
    mcb_fmt_size(el, sizeof el, fit->eager_limit);
    mcb_fmt_time(os, sizeof os, res->o_send);
    mcb_fmt_time(orv, sizeof orv, res->o_recv);

    fprintf(f, "# mpicast platform measured by %s (docs/bench.md, docs/platform.md)\n", TOOL);
    fprintf(f, "# predict with LogGP (default) or with the measured tables:\n"
               "#   mpicast predict TRACE --platform THIS --set network.model=table\n");
    fprintf(f, "\n[measured]\nhost = %s\nmpi = %s\ndate = %s\ntool = %s\nranks = %d\n"
               "repetitions = %d\n", host, lib, date, TOOL, nranks, o->reps);
    fprintf(f, "# spread: median over the sizes of the interquartile range / median of the\n"
               "# one-way times of the repetitions; quality: ok, or disturbed when a\n"
               "# spread, the fit error or the gap's spread stayed too large after %d\n"
               "# rounds of measuring again (docs/bench.md)\n", res->remeasured);
    if (res->disturbed)
        write_reasons(f, res->why);
    fprintf(f, "spread = %.3f\nquality = %s\n", median_spread(res),
            res->disturbed ? "disturbed" : "ok");
    if (o->compute) {
        char mb[32];
        mcb_fmt_bandwidth(mb, sizeof mb, res->membw);
        fprintf(f, "# STREAM triad over 3 x 32 MiB (memory-bound) and multiply-adds on 8\n"
                   "# chains (compute-bound), best of a few runs on rank 0: cpu.speed between\n"
                   "# two machines from these rates, see docs/bench.md\n"
                   "membw = %s\nflops = %.4g\n", mb, res->flops);
    }
    if (o->cpu) {
        fprintf(f, "\n[cpu]\n");
        mcb_cpu_write(&res->cpu, f);
    }
    fprintf(f, "\n[network]\nmodel = loggp\n");
    fprintf(f, "# LogGP fitted to the one-way time T1(s) = (send + recv) / 2 over the %d\n"
               "# eager sizes: T1(s) = L + 2o + s G by least squares (largest error %.1f %%);\n",
            fit->nfit, 100 * fit->max_rel_err);
    write_param_comments(f, res, os, orv);
    fprintf(f, "latency = %s\noverhead = %s\ngap = %s\nbandwidth = %s\n", L, ov, g, bw);
    if (fit->eager_found)
        fprintf(f, "# the one-way time jumps above this size (the rendezvous handshake)\n");
    else
        fprintf(f, "# no rendezvous switch seen up to the largest size measured\n");
    fprintf(f, "eager_limit = %s\n", el);
    if (fit->eager_found) {
        char rx[32];
        mcb_fmt_time(rx, sizeof rx, rendezvous_overhead(res));
        fprintf(f, "# above it: request, reply, then the data; the overhead is what those\n"
                   "# legs leave of the measured one-way time (median from 1.25 to 4 times\n"
                   "# the eager limit; docs/platform.md)\n"
                   "rendezvous = handshake\nrendezvous_overhead = %s\n", rx);
    }

    fprintf(f, "\n[table]\n# pingpong.SIZE = T_comm(SIZE): median time of MPI_Recv on rank 0 in the\n"
               "# ping-pong (MPIETE communication base data); send.SIZE: median time of\n"
               "# MPI_Send in the same loop. Used by network.model = table.\n");
    for (int i = 0; i < res->n; i++) {
        char sz[32], t[32];
        mcb_fmt_size(sz, sizeof sz, res->pts[i].size);
        mcb_fmt_time(t, sizeof t, res->pts[i].recv);
        fprintf(f, "pingpong.%s = %s\n", sz, t);
    }
    for (int i = 0; i < res->n; i++) {
        char sz[32], t[32];
        mcb_fmt_size(sz, sizeof sz, res->pts[i].size);
        mcb_fmt_time(t, sizeof t, res->pts[i].send);
        fprintf(f, "send.%s = %s\n", sz, t);
    }
    fprintf(f, "# spread per size (interquartile range / median of the one-way times):\n");
    for (int i = 0; i < res->n; i++) {
        char sz[32];
        mcb_fmt_size(sz, sizeof sz, res->pts[i].size);
        fprintf(f, "#   %s: %.0f %%\n", sz, 100 * res->pts[i].spread);
    }
    if (res->ncoll > 0)
        fprintf(f, "# OP.RANKS.SIZE = time of one collective at RANKS ranks with SIZE = count x\n"
                   "# type size as passed to MPI (the largest over the ranks of the mean of a\n"
                   "# loop of calls)\n");
    for (int i = 0; i < res->ncoll; i++) {
        char sz[32], t[32];
        mcb_fmt_size(sz, sizeof sz, res->coll[i].size);
        mcb_fmt_time(t, sizeof t, res->coll[i].time);
        fprintf(f, "%s.%d.%s = %s\n", res->coll[i].op, nranks, sz, t);
    }
    return ferror(f) ? -1 : 0;
}

/* Writes the file, then reads it back with the platform module: the bench
 * must never hand out a file that mpicast rejects. */
static int output(const opts *o, const results *res)
{
    FILE *f = o->out ? fopen(o->out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "mpicast-bench: %s: cannot open: %s\n", o->out, strerror(errno));
        return 1;
    }
    int bad = write_platform(o, res, f);
    if (o->out && fclose(f) != 0)
        bad = 1;
    if (bad) {
        fprintf(stderr, "mpicast-bench: %s: cannot write\n", o->out ? o->out : "stdout");
        return 1;
    }
    if (o->out) {
        mc_error err = {0};
        mc_platform *p = mc_platform_load(o->out, &err);
        if (!p) {
            fprintf(stderr, "mpicast-bench: internal error: the file written does not load: %s\n",
                    err.msg);
            return 1;
        }
        mc_platform_destroy(p);
        if (!o->quiet)
            say("wrote %s", o->out);
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    disturb_init();
    opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc == 1 && rank == 0)
        usage(stdout);
    if (rc == 0 && nranks < 2) {
        say("needs at least 2 ranks (mpirun -np 2 mpicast-bench ...)");
        rc = 2;
    }
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    results *res = calloc(1, sizeof *res);
    int ok = res != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        say("out of memory");
        MPI_Finalize();
        return 1;
    }
    rc = run_pingpong(&o, res) ? 1 : 0;
    if (rc == 0 && o.collectives)
        rc = run_collectives(&o, res) ? 1 : 0;
    if (rc == 0 && o.compute)
        run_compute(&o, res);
    if (rc == 0 && o.cpu)
        run_cpu(&o, res);
    if (rc == 0 && rank == 0) {
        mcb_fit_loggp(res->pts, res->n, res->o_send, res->o_recv, res->gap, &res->fit);
        print_summary(&o, res);
        if (res->disturbed) /* even with --quiet: the file is not to be trusted */
            fprintf(stderr, "mpicast-bench: warning: disturbed measurement after %d rounds of "
                            "measuring again, written with quality = disturbed: %s\n",
                    res->remeasured, res->why);
        rc = output(&o, res);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(res->coll);
    free(res);
    MPI_Finalize();
    return rc;
}
