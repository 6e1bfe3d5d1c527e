/* Progress line over an event source: see progress_source.h. */
#include "progress_source.h"

#include <stdlib.h>
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

static const mc_source_ops ps_ops = {ps_next, ps_close};

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
