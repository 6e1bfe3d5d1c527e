/* mpicast compress TRACE -o DIR [--means] [--quiet]
 *
 * Rewrites a trace with each rank's main loop stored once (a loop record
 * and one iteration) and expanded by every reader: include/mpicast/
 * compress.h, docs/trace-format.md ("Loop records"). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "cli_output.h"
#include "mpicast/compress.h"
#include "mpicast/input.h"
#include "progress_source.h"

static const char compress_head[] =
    "usage: mpicast compress TRACE -o DIR [--means] [--quiet]\n"
    "\n"
    "Writes TRACE (any input kind) as a trace directory in which each rank's\n"
    "main loop (the longest run of identical iterations, as `stats` reports\n"
    "it) is stored once: a loop record, then one iteration. Every reader\n"
    "expands it as it reads, so every command gives the same results on DIR as\n"
    "on TRACE, and the replay reads the stored iteration instead of decoding\n"
    "every one. Each iteration is checked against the stored one, event by\n"
    "event (all fields but times, request ids moved on): the loop ends at the\n"
    "first iteration that differs, stored as it is with the rest.\n"
    "\n";

static const char compress_tail[] =
    "\n"
    "Example:\n"
    "  mpicast compress run64/ -o run64c/ --means\n"
    "Exit status: 0 ok; 1 unreadable input or unwritable DIR; 2 usage error.\n";

static void rank_done(void *ctx, int rank)
{
    (void)rank;
    progress_ticker_add(ctx);
}

int cmd_compress(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int means = 0, quiet = 0;
    cli_one trace = {NULL, "TRACE"};
    const cli_opt opts[] = {
        {"-o", NULL, "DIR", CLI_VALUE, "the compressed trace (a new directory, or an empty one)",
         &out, NULL},
        {"--means", NULL, NULL, CLI_FLAG,
         "keep each event's mean burst, duration (and CPU time) over\n"
         "the iterations instead of every iteration's: the size follows\n"
         "the program's structure, not its iteration count, and the\n"
         "times their average (default: exact, the same trace to the\n"
         "nanosecond; 2-12 times smaller on our examples)", &means, NULL},
        {"--quiet", NULL, NULL, CLI_FLAG, "no progress line (ranks written, on a terminal)",
         &quiet, NULL},
    };
    const cli_spec spec = {"compress", compress_head, compress_tail, 13, opts, CLI_NOPTS(opts),
                           cli_take_one, &trace, 0, 0};
    int status;
    if (cli_parse(&spec, argc, argv, &status))
        return status;
    in = trace.value;
    if (!in || !out)
        return cli_usage_error("compress: need TRACE and -o DIR (see 'mpicast compress --help')");
    mc_error err = {0};
    const char *inputs[] = {in};
    if (cli_output_clear(out, inputs, 1) != CLI_OK)
        return CLI_BAD_INPUT;
    if (mc_out_dir_fresh(out, &err) != MC_OK)
        return cli_fail(&err);
    mc_source *probe = mc_input_open(in, &err); /* also imports OTF2/DUMPI once */
    if (!probe)
        return cli_fail(&err);
    progress_ticker *t =
        quiet ? NULL : progress_ticker_start(stderr, "compress: ranks", (uint64_t)probe->nranks);
    char tmp[MC_OUT_PATH_MAX + 32];
    mc_compress_info info;
    mc_err rc = mc_out_dir_open(tmp, sizeof tmp, out, &err);
    if (!rc)
        rc = mc_compress_trace(in, tmp, means ? 0 : MC_COMPRESS_EXACT, &info, t ? rank_done : NULL, t, &err);
    progress_ticker_stop(t);
    mc_source_close(probe);
    if (rc) {
        mc_out_dir_abort(tmp);
        return cli_fail(&err);
    }
    if (mc_out_dir_commit(tmp, out, &err) != MC_OK)
        return cli_fail(&err);
    if (!quiet) {
        printf("compressed %s into %s: %" PRIu64 " events stored as %" PRIu64
               " (%d of %d ranks with a loop, %" PRIu64 " loop records; %s times)\n",
               in, out, info.events, info.stored, info.ranks_looped, info.ranks, info.records,
               means ? "mean" : "exact");
        if (info.iterations)
            printf("rank 0: %" PRIu64 " iterations of %" PRIu32 " events stored once%s\n",
                   info.iterations, info.period, means ? "" : " per record");
    }
    return CLI_OK;
}
