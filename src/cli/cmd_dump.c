/* mpicast dump DIR [--rank R] [--no-times]: the trace as text, one line per
 * event (format: docs/trace-format.md, "Text form").
 *
 * Ranks are printed in rank order. A rank whose stream fails (truncated,
 * corrupt, missing) has its readable prefix printed, then one error line on
 * stderr; the other ranks are still printed (a run killed by a signal
 * truncates every rank) and the exit status is 1.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "mpicast/format.h"
#include "mpicast/input.h"

static const char dump_head[] =
    "usage: mpicast dump TRACE [--rank R] [--no-times]\n"
    "\n"
    "Prints every event of TRACE, one line per event, ranks in order.\n"
    "TRACE is any input kind: a trace directory, an OTF2 archive, a SimGrid\n"
    "time-independent text trace (docs/formats.md, \"Inputs\").\n"
    "The line format is documented in docs/trace-format.md (\"Text form\").\n"
    "\n";

static const char dump_tail[] =
    "\n"
    "Example:\n"
    "  mpicast dump run9/ --rank 0 --no-times > rank0.txt\n"
    "Exit status: 0 ok; 1 unreadable, truncated or corrupt trace (the readable\n"
    "prefix is printed, then one error line naming the file); 2 usage error.\n";

typedef struct dump_opts {
    const char *dir;
    int rank; /* -1: all */
    int with_times;
} dump_opts;

/* --rank R: decimal, 0..INT_MAX. */
static int set_rank(void *rank, const char *opt, const char *s, mc_error *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT_MAX) {
        mc_error_set(err, MC_ERR_USAGE, "%s: '%s' is not a rank number", opt, s);
        return -1;
    }
    *(int *)rank = (int)v;
    return 0;
}

/* Returns -1 to continue, or an exit code (help printed, usage error). */
static int parse_args(int argc, char **argv, dump_opts *o)
{
    *o = (dump_opts){NULL, -1, 1};
    int no_times = 0, rc;
    cli_one dir = {NULL, "TRACE"};
    const cli_opt opts[] = {
        {"--rank", NULL, "R", CLI_VALUE, "print only rank R", &o->rank, set_rank},
        {"--no-times", NULL, NULL, CLI_FLAG,
         "leave out every time (start, end, burst, cpu), so that two\n"
         "traces of the same program compare with diff", &no_times, NULL},
    };
    const cli_spec spec = {"dump", dump_head, dump_tail, 15, opts, CLI_NOPTS(opts), cli_take_one,
                           &dir, 0, 0};
    if (cli_parse(&spec, argc, argv, &rc))
        return rc;
    o->with_times = !no_times;
    o->dir = dir.value;
    return -1;
}

/* Prints one rank's events; returns 0, or -1 after reporting its error. */
static int dump_rank(mc_source *src, int rank, int with_times)
{
    mc_event e;
    mc_error err = {0};
    int rc;
    while ((rc = mc_source_next(src, rank, &e, &err)) == 1)
        mc_event_print(stdout, rank, &e, with_times);
    if (rc == 0)
        return 0;
    /* The prefix is on stdout; flush it first so the error follows it. */
    fflush(stdout);
    cli_fail(&err);
    return -1;
}

int cmd_dump(int argc, char **argv)
{
    dump_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    mc_error err = {0};
    mc_source *src = mc_input_open(o.dir, &err);
    if (!src)
        return cli_fail(&err);
    if (o.rank >= src->nranks) {
        mc_error_set(&err, MC_ERR_USAGE, "%s: rank %d is not in the trace (ranks 0..%d)",
                     o.dir, o.rank, src->nranks - 1);
        mc_source_close(src);
        return cli_fail(&err);
    }
    int failed = 0;
    for (int r = 0; r < src->nranks; r++)
        if (o.rank < 0 || r == o.rank)
            failed |= dump_rank(src, r, o.with_times) != 0;
    mc_source_close(src);
    return failed ? CLI_BAD_INPUT : CLI_OK;
}
