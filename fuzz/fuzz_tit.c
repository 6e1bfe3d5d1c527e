/* libFuzzer target: SimGrid time-independent traces (src/format/tit.c),
 * merged or list form. Inputs naming absolute paths are skipped: a list
 * file naming /dev/stdin would wait for a terminal, which is the user's
 * choice, not a parser bug.
 * Also a differential check of the reader's fast path: the input is read a
 * second time with every line that starts with a digit given a 'p' before
 * it ("p5" is rank 5 too, read only by the general path); both readings
 * must give the same events and the same outcomes. */
#include "fuzz_common.h"
#include "mpicast/tit.h"

static int same_event(const mc_event *a, const mc_event *b)
{
    if (a->op != b->op || a->site != b->site || a->comm != b->comm || a->peer != b->peer ||
        a->tag != b->tag || a->bytes != b->bytes || a->peer2 != b->peer2 ||
        a->tag2 != b->tag2 || a->bytes2 != b->bytes2 || a->req != b->req ||
        a->newcomm != b->newcomm || a->t_start != b->t_start || a->t_end != b->t_end ||
        a->burst != b->burst || a->cpu != b->cpu || a->nvals != b->nvals ||
        a->folded != b->folded)
        return 0;
    for (uint32_t i = 0; i < a->nvals; i++)
        if (a->vals[i] != b->vals[i])
            return 0;
    return 1;
}

/* The input with a 'p' before every line that starts with a digit. */
static uint8_t *with_p(const uint8_t *data, size_t size, size_t *out)
{
    uint8_t *q = malloc(2 * size + 1);
    if (!q)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if ((i == 0 || data[i - 1] == '\n') && data[i] >= '0' && data[i] <= '9')
            q[n++] = 'p';
        q[n++] = data[i];
    }
    *out = n;
    return q;
}

/* Reads both, ranks in turn as the simulator does; aborts on a difference. */
static void compare_fast_slow(const uint8_t *data, size_t size)
{
    size_t n;
    uint8_t *p = with_p(data, size, &n);
    char a_path[512];
    snprintf(a_path, sizeof a_path, "%s", fz_write("fast.txt", data, size));
    const char *b_path = fz_write("slow.txt", p, n);
    free(p);
    mc_error ea = {0}, eb = {0};
    mc_source *a = mc_tit_open(a_path, &ea), *b = mc_tit_open(b_path, &eb);
    if (a && b && a->nranks == b->nranks) {
        int live = a->nranks;
        char *done = calloc((size_t)a->nranks, 1);
        while (live > 0)
            for (int r = 0; r < a->nranks; r++) {
                if (done[r])
                    continue;
                mc_event x, y;
                int ra = mc_source_next(a, r, &x, &ea), rb = mc_source_next(b, r, &y, &eb);
                if (ra != rb || (ra == 1 && !same_event(&x, &y)) ||
                    (ra < 0 && ea.code != eb.code)) {
                    fprintf(stderr, "fuzz_tit: rank %d: the fast path gives %d, the general "
                            "path %d (%s | %s)\n", r, ra, rb, ra < 0 ? ea.msg : "",
                            rb < 0 ? eb.msg : "");
                    abort();
                }
                if (ra != 1) {
                    done[r] = 1;
                    live--;
                }
            }
        free(done);
    }
    mc_source_close(a);
    mc_source_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (memchr(data, '/', size))
        return 0;
    const char *path = fz_write("trace.txt", data, size);
    mc_error err = {0};
    mc_source *s = mc_tit_open(path, &err);
    if (!s) {
        fz_check_message(err.msg);
        return 0;
    }
    /* Round-robin over the ranks, as the simulator reads them. */
    int live = s->nranks;
    char *done = calloc((size_t)s->nranks, 1);
    while (live > 0) {
        for (int r = 0; r < s->nranks; r++) {
            if (done[r])
                continue;
            mc_event e;
            int rc = mc_source_next(s, r, &e, &err);
            if (rc == 1) {
                mc_event_print(sink, r, &e, 1);
                continue;
            }
            if (rc < 0)
                fz_check_message(err.msg);
            done[r] = 1;
            live--;
        }
    }
    free(done);
    mc_source_close(s);
    compare_fast_slow(data, size);
    return 0;
}
