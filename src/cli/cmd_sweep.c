/* mpicast sweep TRACE ... : what-if sweeps and balance points. The work is
 * in src/sweep (shared with mpicast-sweep-mpi); this file runs it locally
 * with a progress line (points done / total) on a terminal. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "progress_source.h"
#include "sweep_args.h"

/* Runs on the sweep's worker threads: the ticker's counter is atomic. */
static void task_done(void *ctx, int done)
{
    (void)done;
    progress_ticker_add(ctx);
}

int cmd_sweep(int argc, char **argv)
{
    sweep_cfg c;
    int stop;
    int rc = sweep_parse(argc, argv, &c, &stop, "sweep");
    if (rc || stop) {
        sweep_cfg_free(&c);
        return rc;
    }
    sweep_warn_unchecked(&c, stderr);
    sweep_result *res = calloc((size_t)sweep_ntasks(&c), sizeof *res);
    if (!res) {
        sweep_cfg_free(&c);
        fputs("mpicast: sweep: out of memory\n", stderr);
        return CLI_BAD_INPUT;
    }
    progress_ticker *t =
        c.quiet ? NULL : progress_ticker_start(stderr, "sweep", (uint64_t)sweep_ntasks(&c));
    c.on_task_done = t ? task_done : NULL;
    c.on_task_ctx = t;
    sweep_run_tasks(&c, res, c.jobs, 1, 0);
    progress_ticker_stop(t);
    rc = sweep_print(&c, res, stdout);
    free(res);
    sweep_cfg_free(&c);
    return rc;
}
