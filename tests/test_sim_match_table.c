/* The simulator's matching table (src/sim/match.c, map.c: open addressing
 * with backward-shift deletion) against a brute-force reference: random creates,
 * lookups and drops of (comm, tag, receiver, source) keys, including keys
 * that differ in one field only (neighbours, collective tags, sub-
 * communicators) and long runs of drops that shift probe chains, through
 * several table growths. Every live key must be found with its queue heads
 * intact, every dropped one must be gone, the count must match. Also the
 * request map's grouped hashing: 16 consecutive keys, then deletes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sim/sim_objects.h"

typedef struct ref_key {
    uint64_t comm;
    int64_t tag;
    int32_t dst, src, val;
    int live;
} ref_key;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static ref_key draw_key(void)
{
    ref_key k = {0};
    uint64_t r = next_rand();
    k.dst = (int32_t)(r % 3000);
    k.src = (int32_t)((uint32_t)k.dst + 1 + (r >> 12) % 7) % 3000; /* neighbours */
    k.tag = (r >> 20) % 4 ? (int64_t)((r >> 24) % 5)
                          : ((int64_t)1 << 40) | (int64_t)((r >> 28) % 9) << 8 | 12;
    k.comm = (r >> 40) % 3 ? 0 : (0x100000000ull | ((r >> 44) % 3));
    return k;
}

static void check_all(sim *S, const ref_key *ref, int n)
{
    int live = 0;
    for (int i = 0; i < n; i++) {
        int32_t b = sim_match_find(S, ref[i].comm, ref[i].tag, ref[i].dst, ref[i].src);
        if (!ref[i].live) {
            CHECK(b < 0);
            continue;
        }
        live++;
        CHECK(b >= 0);
        CHECK_EQ_INT(S->bks[b].rq_head, ref[i].val);
        CHECK_EQ_INT(S->bks[b].uq_tail, ref[i].val + 1);
    }
    CHECK_EQ_INT(S->bused, live);
}

static void test_buckets(void)
{
    sim S;
    memset(&S, 0, sizeof S);
    enum { N = 6000 };
    ref_key *ref = calloc(N, sizeof *ref);
    int n = 0;
    for (int round = 0; round < 40000; round++) {
        uint64_t op = next_rand() % 10;
        if (op < 6 && n < N) { /* create (or find an existing equal key) */
            ref_key k = draw_key();
            int dup = -1; /* the same key seen before: live, or dropped */
            for (int i = 0; i < n; i++)
                if (ref[i].comm == k.comm && ref[i].tag == k.tag && ref[i].dst == k.dst &&
                    ref[i].src == k.src)
                    dup = i;
            int32_t b = sim_match_get(&S, k.comm, k.tag, k.dst, k.src);
            CHECK(b >= 0);
            if (dup >= 0 && ref[dup].live) {
                CHECK_EQ_INT(S.bks[b].rq_head, ref[dup].val);
                continue;
            }
            CHECK_EQ_INT(S.bks[b].rq_head, -1); /* new: empty queues */
            CHECK_EQ_INT(S.bks[b].uq_head, -1);
            k.val = 10 * (round + 1);
            k.live = 1;
            S.bks[b].rq_head = k.val;
            S.bks[b].uq_tail = k.val + 1;
            if (dup >= 0)
                ref[dup] = k; /* created again */
            else
                ref[n++] = k;
        } else if (n > 0) { /* drop a live key (queues emptied first) */
            int i = (int)(next_rand() % (uint64_t)n);
            if (!ref[i].live)
                continue;
            int32_t b = sim_match_find(&S, ref[i].comm, ref[i].tag, ref[i].dst, ref[i].src);
            CHECK(b >= 0);
            S.bks[b].uq_head = 7; /* a non-empty queue keeps the bucket */
            sim_match_maybe_drop(&S, b);
            CHECK(sim_match_find(&S, ref[i].comm, ref[i].tag, ref[i].dst, ref[i].src) == b);
            S.bks[b].rq_head = S.bks[b].uq_head = -1;
            sim_match_maybe_drop(&S, b);
            ref[i].live = 0;
        }
        if (round % 2000 == 0)
            check_all(&S, ref, n);
    }
    check_all(&S, ref, n);
    CHECK(S.bmask + 1 >= 2048); /* it grew */
    free(S.bks);
    free(ref);
}

static void test_u64map_groups(void)
{
    sim_map m = {0};
    /* consecutive request ids of many ranks, then holes punched in them */
    for (uint64_t r = 0; r < 500; r++)
        for (uint64_t id = 1; id <= 40; id++)
            CHECK(sim_map_put(&m, r << 32 | id, (int64_t)(r * 100 + id)) == 0);
    for (uint64_t r = 0; r < 500; r += 3)
        for (uint64_t id = 1; id <= 40; id += 2)
            sim_map_del(&m, r << 32 | id);
    for (uint64_t r = 0; r < 500; r++)
        for (uint64_t id = 1; id <= 40; id++) {
            int64_t v = -1;
            int gone = r % 3 == 0 && id % 2 == 1;
            CHECK_EQ_INT(sim_map_get(&m, r << 32 | id, &v), !gone);
            if (!gone)
                CHECK_EQ_INT(v, (int64_t)(r * 100 + id));
        }
    /* keys equal but for their low 4 bits, and multiples of 16 */
    for (uint64_t k = 0; k < 4096; k += 16)
        CHECK(sim_map_put(&m, (7ull << 40) | k, (int64_t)k) == 0);
    for (uint64_t k = 0; k < 4096; k += 16) {
        int64_t v;
        CHECK(sim_map_get(&m, (7ull << 40) | k, &v) && v == (int64_t)k);
    }
    sim_map_free(&m);
}

int main(void)
{
    test_buckets();
    test_u64map_groups();
    return 0;
}
