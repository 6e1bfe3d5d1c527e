/* libFuzzer target: rank files (src/format/reader.c) and the trace
 * directory source (src/format/source.c: wildcard resolution, validation).
 *
 * Input: byte 0 selects the mode. Even: the rest is a whole rank file
 * (magic, header, chunk framing, CRCs are fuzzed too). Odd: byte 1 is the
 * event count of one chunk, the rest its decompressed payload, framed into
 * a valid file (rank_build.h). The file is read directly, then as ranks 0
 * and 1 of a trace directory, and every event is printed, up to MAX_EVENTS
 * per rank: a loop record of a few bytes may stand for 2^40 iterations (a
 * long run, compressed), which is legal and only slow to read in full. */
#include "rank_build.h"

#define MAX_EVENTS 100000

static void read_direct(const char *path, FILE *sink)
{
    mc_error err = {0};
    mc_rank_reader *r = mc_rank_reader_open(path, &err);
    if (!r) {
        fz_check_message(err.msg);
        return;
    }
    mc_event e;
    int rc = 0;
    for (long n = 0; n < MAX_EVENTS && (rc = mc_rank_reader_next(r, &e, &err)) == 1; n++)
        mc_event_print(sink, 0, &e, 1);
    if (rc < 0)
        fz_check_message(err.msg);
    mc_rank_reader_close(r);
}

static void read_source(const char *dir, FILE *sink)
{
    mc_error err = {0};
    mc_source *s = mc_trace_open(dir, &err);
    if (!s) {
        fz_check_message(err.msg);
        return;
    }
    for (int rank = 0; rank < s->nranks; rank++) {
        mc_event e;
        int rc = 0;
        for (long n = 0; n < MAX_EVENTS && (rc = mc_source_next(s, rank, &e, &err)) == 1; n++)
            mc_event_print(sink, rank, &e, 0);
        if (rc < 0)
            fz_check_message(err.msg);
    }
    mc_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (size < 2)
        return 0;
    const char *path;
    if (data[0] & 1) {
        path = fz_rank_file("rank-000000.mct", data[0] >> 1 & 1, data[1], data + 2, size - 2);
    } else {
        path = fz_write("rank-000000.mct", data + 1, size - 1);
    }
    read_direct(path, sink);
    /* The same stream as rank 1: a two-rank trace directory. */
    char copy[600];
    snprintf(copy, sizeof copy, "%s/rank-000001.mct", fz_tmpdir());
    unlink(copy);
    if (link(path, copy) != 0)
        abort();
    read_source(fz_tmpdir(), sink);
    unlink(copy);
    return 0;
}
