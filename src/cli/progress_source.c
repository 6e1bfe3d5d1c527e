/* Progress lines over an event source and over counted items: see
 * progress_source.h. */
#include "progress_source.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mpicast/export.h"

struct progress_source {
    mc_source base;
    mc_source *inner;
    mc_progress prog;
    uint64_t events;
};

static int ps_next(mc_source *s, int rank, mc_event *e, mc_error *err)
{
    progress_source *p = (progress_source *)s;
    int rc = mc_source_next(p->inner, rank, e, err);
    if (rc == 1 && (++p->events & 0xffff) == 0)
        mc_progress_update(&p->prog, p->events, 0);
    return rc;
}

static void ps_close(mc_source *s)
{
    free(s);
}

static void ps_prefetch(const mc_source *s, int rank)
{
    mc_source_prefetch(((const progress_source *)s)->inner, rank);
}

static const mc_meta *ps_meta(const mc_source *s)
{
    return mc_source_meta(((const progress_source *)s)->inner);
}

static const mc_source_ops ps_ops = {.next = ps_next, .close = ps_close, .prefetch = ps_prefetch, .meta = ps_meta};

mc_source *progress_source_wrap(mc_source *inner, FILE *out, const char *what)
{
    if (!inner || !out || !isatty(fileno(out)))
        return inner;
    progress_source *p = calloc(1, sizeof *p);
    if (!p)
        return inner;
    p->base.ops = &ps_ops;
    p->base.nranks = inner->nranks;
    p->base.name = inner->name;
    p->inner = inner;
    p->prog.out = out;
    p->prog.what = what;
    p->prog.last = mc_progress_now();
    return &p->base;
}

void progress_source_end(mc_source *s, mc_source *inner)
{
    if (!s || s == inner)
        return;
    progress_source *p = (progress_source *)s;
    mc_progress_done(&p->prog);
    mc_source_close(s);
}

/* ------------------------------------------------------------ ticker */

struct progress_ticker {
    mc_progress prog;
    uint64_t total;
    atomic_uint_fast64_t done;
    atomic_int stop;
    pthread_t thread;
};

static void *ticker_run(void *arg)
{
    progress_ticker *t = arg;
    const struct timespec pause = {0, 50 * 1000 * 1000}; /* stop is seen within 50 ms */
    do { /* at least one update, however short the work */
        mc_progress_update(&t->prog, atomic_load(&t->done), t->total); /* throttled to 4/s */
        nanosleep(&pause, NULL);
    } while (!atomic_load(&t->stop));
    return NULL;
}

progress_ticker *progress_ticker_start(FILE *out, const char *what, uint64_t total)
{
    if (!out || !isatty(fileno(out)))
        return NULL;
    progress_ticker *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->prog.out = out;
    t->prog.what = what;
    t->prog.last = mc_progress_now();
    t->total = total;
    atomic_init(&t->done, 0);
    atomic_init(&t->stop, 0);
    if (pthread_create(&t->thread, NULL, ticker_run, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void progress_ticker_add(progress_ticker *t)
{
    if (t)
        atomic_fetch_add(&t->done, 1);
}

void progress_ticker_stop(progress_ticker *t)
{
    if (!t)
        return;
    atomic_store(&t->stop, 1);
    pthread_join(t->thread, NULL);
    mc_progress_done(&t->prog); /* the thread has ended: no race on the line */
    free(t);
}
