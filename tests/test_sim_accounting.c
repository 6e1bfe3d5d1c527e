/* On a pseudo-random but valid trace (nonblocking exchanges, collectives,
 * sub-communicators): every rank's end = compute + comm + wait, the replay is
 * deterministic (two runs give identical results), and collectives with a
 * nonblocking form complete at their Wait. */
#include "check.h"
#include "mem_source.h"

static uint64_t rng = 12345;
static int64_t rnd(int64_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)((rng >> 33) % (uint64_t)n);
}

int main(void)
{
    const int P = 8;
    mem_source *m = mem_source_create(P);
    /* even/odd sub-communicators from Comm_split events */
    uint64_t sub[2] = {(1ull << 32) | 0, (1ull << 32) | 1};
    for (int r = 0; r < P; r++) {
        mc_event *e = ms_add(m, r, MC_OP_COMM_SPLIT, 0);
        e->newcomm = sub[r % 2];
        e->peer2 = P / 2;
        ms_vals(m, e, 4, (int64_t)(r % 2), (int64_t)(r % 2 + 2), (int64_t)(r % 2 + 4),
                (int64_t)(r % 2 + 6));
    }
    for (int it = 0; it < 20; it++) {
        int64_t bytes = 1 + rnd(200000);
        int shift = 1 + (int)rnd(P - 1);
        for (int r = 0; r < P; r++) {
            uint32_t base = (uint32_t)(it * 3 + 1);
            ms_compute(m, r, rnd(5000));
            ms_p2p(m, r, MC_OP_IRECV, (r - shift + P) % P, it, bytes, base);
            ms_compute(m, r, rnd(5000));
            ms_p2p(m, r, MC_OP_ISEND, (r + shift) % P, it, bytes, base + 1);
            mc_event *e = ms_add(m, r, MC_OP_IALLREDUCE, 0);
            e->bytes = e->bytes2 = 64; /* must agree on every rank */
            e->peer2 = P;
            e->req = base + 2;
            ms_compute(m, r, 700);
            ms_wait(m, r, MC_OP_WAITALL, 3, base, base + 1, base + 2);
            e = ms_add(m, r, MC_OP_BCAST, 0);
            e->comm = sub[r % 2];
            e->peer = r % 2; /* root: comm rank 0 = world rank 0 or 1 */
            e->bytes = e->bytes2 = 1000;
            e->peer2 = P / 2;
        }
    }
    const char *sets[] = {"cpu.reduce_cost=1ns", NULL};
    mc_sim_result a, b;
    mc_error err = {0};
    mc_err rc = mem_run(m, sets, NULL, &a, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == MC_OK);
    CHECK(mem_run(m, sets, NULL, &b, &err) == MC_OK);
    CHECK(a.end > 0);
    CHECK(a.coll_messages > 0);
    for (int r = 0; r < P; r++) {
        const mc_sim_rank *x = &a.ranks[r];
        CHECK_EQ_INT(x->compute + x->comm + x->wait, x->end);
        CHECK(x->comm > 0 && x->wait >= 0);
        CHECK_EQ_INT(x->end, b.ranks[r].end);
        CHECK_EQ_INT(x->comm, b.ranks[r].comm);
    }
    CHECK_EQ_INT(a.messages, b.messages);
    CHECK_EQ_INT(a.events, (uint64_t)P * (1 + 20 * 5));
    mc_sim_result_free(&a);
    mc_sim_result_free(&b);
    mem_source_destroy(m);
    return 0;
}
