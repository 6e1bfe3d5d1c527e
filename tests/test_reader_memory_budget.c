/* Reading a trace holds one decoded chunk per rank; their total is capped
 * (MPICAST_READ_MEMORY, default half the RAM) so that many large chunks
 * (64 MiB each is legal, and zstd makes one from a few KiB) give an error
 * naming the file, the chunk and the limit instead of taking all memory.
 * 4 ranks x one chunk each, read round-robin: a budget for two chunks stops
 * at the third rank's; a larger one reads everything, and closing a source
 * gives its bytes back. */
#include <stdlib.h>
#include "check.h"
#include "mpicast/format.h"

enum { RANKS = 4, EVENTS = 2000 };

static void write_trace(const char *dir)
{
    mc_error err = {0};
    for (int r = 0; r < RANKS; r++) {
        mc_writer *w = mc_writer_open(dir, r, 0, 0, &err);
        CHECK(w != NULL);
        for (int i = 0; i < EVENTS; i++) {
            mc_event e;
            memset(&e, 0, sizeof e);
            e.op = MC_OP_SEND;
            e.comm = MC_COMM_WORLD;
            e.peer = (r + 1) % RANKS;
            e.tag = i;                       /* varying fields: the chunk stays large */
            e.bytes = 1000 + 7 * i;
            e.peer2 = e.tag2 = MC_NONE;
            e.newcomm = MC_COMM_NULL;
            e.cpu = -1;
            e.t_start = 1000 * (int64_t)i * (i % 13 + 1);
            e.t_end = e.t_start + 17 * i + 5;
            CHECK(mc_writer_add(w, &e, &err) == MC_OK);
        }
        CHECK(mc_writer_close(w, &err) == MC_OK);
    }
    mc_meta *m = mc_meta_create(RANKS);
    int32_t world[RANKS] = {0, 1, 2, 3};
    CHECK(m && mc_meta_add_comm(m, MC_COMM_WORLD, world, RANKS, RANKS, &err) == MC_OK);
    CHECK(mc_meta_write(m, dir, &err) == MC_OK);
    mc_meta_destroy(m);
}

/* Reads the ranks round-robin, an event at a time, as the simulator does:
 * every rank's current chunk is held at once. Returns the events read, or
 * -1 with err filled. */
static long read_all(const char *dir, mc_error *err)
{
    mc_source *s = mc_trace_open(dir, err);
    CHECK(s != NULL);
    long n = 0;
    int live = RANKS, done[RANKS] = {0};
    mc_event e;
    while (live > 0) {
        for (int r = 0; r < RANKS; r++) {
            if (done[r])
                continue;
            int rc = mc_source_next(s, r, &e, err);
            if (rc < 0) {
                mc_source_close(s);
                return -1;
            }
            if (rc == 0) {
                done[r] = 1;
                live--;
            } else {
                n++;
            }
        }
    }
    mc_source_close(s);
    return n;
}

int main(void)
{
    char dir[] = "/tmp/mc_budget_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_trace(dir);
    mc_error err = {0};
    /* each rank's chunk takes ~66 KB (49 KB decoded + the stored payload):
     * 150 KiB holds two of them, the third rank's fails */
    setenv("MPICAST_READ_MEMORY", "150KiB", 1);
    CHECK(read_all(dir, &err) == -1);
    CHECK_EQ_INT(err.code, MC_ERR_NOMEM);
    CHECK(strstr(err.msg, "/rank-000002.mct: chunk 0 at offset 32: decoding this") != NULL);
    CHECK(strstr(err.msg, "past 150 KiB (MPICAST_READ_MEMORY raises the limit)") != NULL);
    memset(&err, 0, sizeof err);
    setenv("MPICAST_READ_MEMORY", "1MiB", 1);
    CHECK_EQ_INT(read_all(dir, &err), (long)RANKS * EVENTS);
    /* closing gave every byte back: 300 KiB holds the four chunks again */
    setenv("MPICAST_READ_MEMORY", "300KiB", 1);
    CHECK_EQ_INT(read_all(dir, &err), (long)RANKS * EVENTS);
    CHECK_EQ_INT(read_all(dir, &err), (long)RANKS * EVENTS);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
