/* The time-independent reader's fast path (send, isend, recv, irecv, wait,
 * compute, allreduce, bcast, barrier and waitall lines read in one pass)
 * gives exactly the events, errors and line numbers of the general path.
 * Each trace is written twice: as generated, and with every rank token
 * written "pN", a form only the general path reads. Both are read in full
 * and compared field by field, over lines that cross the reader's buffer
 * many times, in a merged file and in one file per rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "mpicast/tit.h"

#define RANKS 4
#define LINES 6000 /* per rank: about 90 KiB, several reader buffers */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
#define PICK(a) (a)[next_rand() % (sizeof(a) / sizeof(a)[0])]

/* Valid values, with the forms only the general path reads among them
 * (leading zeros, -0, ten digits, exponents, fractions, sixteen digits). */
static const char *const peers[] = {"0", "1", "2", "3", "1", "2", "00", "-0", "03"};
static const char *const any[] = {"-1", "-7"}; /* receives only */
static const char *const tags[] = {"0", "1", "7", "42", "999999999", "0001", "1234567890"};
static const char *const sizes[] = {"8", "64", "65536", "0", "1e3", "12.5", "999999999999999",
                                    "1000000000000000", "08", "1.06512e+06", "2.5E+01",
                                    "1000e-3", "0e+99", "1.", "1500e-3", "1e+15", "1e+16",
                                    "-0"};
static const char *const ints[] = {"0", "1", "2", "3", "-1", "1234567890", "-2147483648"};
/* Refused values: rare, so that most ranks read far before one stops. */
static const char *const bad[] = {"4", "123456789", "x", "2147483648", "-8", "1e400", "",
                                  "1e5x"};
static const char *const blanks[] = {" ", " ", " ", " ", "\t", "  ", " \t"};
static const char *const ends[] = {"\n", "\n", "\n", "\n", "\n", "\n", " \n", "\r\n"};
static const char *const p2p[] = {"send", "isend", "recv", "irecv", "isend", "irecv", "Send",
                                  "iRecv"};

static const char *val(const char *const *v, size_t n)
{
    return next_rand() % 20000 == 0 ? PICK(bad) : v[next_rand() % n];
}
#define VAL(a) val((a), sizeof(a) / sizeof(a)[0])

/* One random line of a rank without its rank token. */
static void body(char *out, size_t cap)
{
    int k = (int)(next_rand() % 10);
    const char *b = PICK(blanks);
    if (k < 5) {
        const char *op = PICK(p2p);
        int recv = strstr(op, "ecv") || strstr(op, "Recv");
        const char *peer = recv && next_rand() % 8 == 0 ? PICK(any) : VAL(peers);
        const char *tag = recv && next_rand() % 8 == 0 ? PICK(any) : VAL(tags);
        snprintf(out, cap, "%s%s%s%s%s%s%s%s%s", b, op, PICK(blanks), peer, PICK(blanks), tag,
                 PICK(blanks), VAL(sizes), next_rand() % 16 ? "" : " 1");
    } else if (k < 8) {
        snprintf(out, cap, "%swait%s%s%s%s%s%s", b, PICK(blanks), VAL(ints), PICK(blanks),
                 VAL(ints), PICK(blanks), VAL(ints));
    } else if (k < 9) {
        snprintf(out, cap, "%scompute%s%s", b, PICK(blanks), VAL(sizes));
    } else if (k < 10 && next_rand() % 2) {
        static const char *const coll[] = {"allreduce", "bcast", "barrier", "waitall"};
        int which = (int)(next_rand() % 4);
        const char *op = coll[which];
        /* the counts each takes (bcast: 1 or 2), rarely one more */
        int nargs = which == 0 ? 2 : which == 1 ? 1 + (int)(next_rand() % 2) : 0;
        nargs += next_rand() % 20000 == 0;
        int n = snprintf(out, cap, "%s%s", b, op);
        for (int i = 0; i < nargs && n > 0 && (size_t)n < cap; i++)
            n += snprintf(out + n, cap - (size_t)n, "%s%s", PICK(blanks),
                          i == 1 && op[0] == 'b' ? VAL(peers) : VAL(sizes));
    } else {
        static const char *const other[] = {" waitall", " barrier", " allreduce 8 0", " wait",
                                            " send 1 8", " recv 2 64", " bcast 8 3 1"};
        snprintf(out, cap, "%s", PICK(other));
    }
}

/* Writes the trace both ways: fast/NAME and slow/NAME (merged) or
 * fast/rank-R.txt + fast/NAME as a list (and the same under slow/). */
static void write_traces(const char *root, const char *name, int merged)
{
    FILE *f[2][RANKS] = {{NULL}};
    char path[512];
    for (int w = 0; w < 2; w++) {
        snprintf(path, sizeof path, "%s/%s", root, w ? "slow" : "fast");
        mkdir(path, 0700);
        if (merged) {
            snprintf(path, sizeof path, "%s/%s/%s", root, w ? "slow" : "fast", name);
            f[w][0] = fopen(path, "w");
            CHECK(f[w][0] != NULL);
            for (int r = 1; r < RANKS; r++)
                f[w][r] = f[w][0];
            continue;
        }
        snprintf(path, sizeof path, "%s/%s/%s", root, w ? "slow" : "fast", name);
        FILE *list = fopen(path, "w");
        CHECK(list != NULL);
        for (int r = 0; r < RANKS; r++) {
            fprintf(list, "rank-%d.txt\n", r);
            snprintf(path, sizeof path, "%s/%s/rank-%d.txt", root, w ? "slow" : "fast", r);
            f[w][r] = fopen(path, "w");
            CHECK(f[w][r] != NULL);
        }
        fclose(list);
    }
    for (int r = 0; r < RANKS; r++) /* init with an argument: 8-byte elements */
        for (int w = 0; w < 2; w++)
            fprintf(f[w][r], "%s%d init%s\n", w ? "p" : "", r, r % 2 ? " 0" : "");
    for (int i = 0; i < LINES * RANKS; i++) {
        int r = (int)(next_rand() % RANKS);
        char b[256];
        body(b, sizeof b);
        const char *end = i + 1 == LINES * RANKS ? "" : PICK(ends); /* last: no newline */
        for (int w = 0; w < 2; w++)
            fprintf(f[w][r], "%s%d%s%s", w ? "p" : "", r, b, end);
    }
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < (merged ? 1 : RANKS); r++)
            fclose(f[w][r]);
}

static void same_event(const mc_event *a, const mc_event *b)
{
    CHECK(a->op == b->op && a->site == b->site && a->comm == b->comm);
    CHECK(a->peer == b->peer && a->tag == b->tag && a->bytes == b->bytes);
    CHECK(a->peer2 == b->peer2 && a->tag2 == b->tag2 && a->bytes2 == b->bytes2);
    CHECK(a->req == b->req && a->newcomm == b->newcomm && a->folded == b->folded);
    CHECK(a->t_start == b->t_start && a->t_end == b->t_end && a->burst == b->burst);
    CHECK(a->cpu == b->cpu && a->nvals == b->nvals);
    for (uint32_t i = 0; i < a->nvals; i++)
        CHECK(a->vals[i] == b->vals[i]);
}

/* The message without the file's directory ("fast/" or "slow/"). */
static const char *after_dir(const char *msg)
{
    const char *p = strstr(msg, "/fast/");
    if (!p)
        p = strstr(msg, "/slow/");
    return p ? p + 6 : msg;
}

/* Reads both traces in full, ranks in turn, and compares; returns the
 * number of events. */
static long compare(const char *root, const char *name, long *errors)
{
    char pf[512], ps[512];
    snprintf(pf, sizeof pf, "%s/fast/%s", root, name);
    snprintf(ps, sizeof ps, "%s/slow/%s", root, name);
    mc_error ef = {0}, es = {0};
    mc_source *a = mc_tit_open(pf, &ef), *b = mc_tit_open(ps, &es);
    CHECK(a != NULL && b != NULL && a->nranks == RANKS && b->nranks == RANKS);
    long n = 0;
    int done[RANKS] = {0}, left = RANKS;
    while (left > 0) {
        for (int r = 0; r < RANKS; r++) {
            for (int k = 0; k < 3 && !done[r]; k++) {
                mc_event x, y;
                int ra = mc_source_next(a, r, &x, &ef), rb = mc_source_next(b, r, &y, &es);
                CHECK(ra == rb);
                if (ra == 1) {
                    same_event(&x, &y);
                    n++;
                    continue;
                }
                if (ra < 0) {
                    CHECK(ef.code == es.code);
                    if (strcmp(after_dir(ef.msg), after_dir(es.msg)) != 0) {
                        fprintf(stderr, "fast: %s\nslow: %s\n", ef.msg, es.msg);
                        CHECK(0);
                    }
                    (*errors)++;
                }
                done[r] = 1;
                left--;
            }
        }
    }
    mc_source_close(a);
    mc_source_close(b);
    return n;
}

int main(void)
{
    char root[] = "/tmp/mc_tit_fastXXXXXX";
    CHECK(mkdtemp(root) != NULL);
    long events = 0, errors = 0;
    for (int round = 0; round < 8; round++) {
        char name[32];
        snprintf(name, sizeof name, "t%d.txt", round);
        write_traces(root, name, round % 2 == 0);
        events += compare(root, name, &errors);
    }
    /* Both outcomes, and enough events to cross every buffer, must occur. */
    CHECK(events > 20000 && errors > 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return 0;
}
