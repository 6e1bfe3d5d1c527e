/* On the free network (and free reductions) the simulator completes a
 * blocking barrier, allreduce, allgather, alltoall or reduce_scatter_block
 * for every member when the last member enters, without running its
 * schedule (exec.c, synchronizing()). That must give exactly the times the
 * schedules give: here every algorithm of those operations, at process
 * counts with and without a power of two, ranks entering at scattered
 * times, mixed with point-to-point exchanges, replayed on "free" (the
 * shortcut) and on loggp with every parameter zero (the schedules); every
 * rank's end, compute, comm and wait must agree to the picosecond, and the
 * free run must really have taken the shortcut (no collective message). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mem_source.h"
#include "sim/coll.h"

static const int OPS[] = {MC_OP_BARRIER, MC_OP_ALLREDUCE, MC_OP_ALLGATHER, MC_OP_ALLTOALL,
                          MC_OP_REDUCE_SCATTER_BLOCK};
static const int SIZES[] = {2, 3, 5, 8, 12};

/* Deterministic scatter of entry times: compute bursts differ per rank and
 * per phase by up to ~40 us. */
static int64_t burst(int r, int phase)
{
    uint32_t x = (uint32_t)(r * 2654435761u) ^ (uint32_t)(phase * 40503u);
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return 100 + (int64_t)(x % 40000);
}

static void coll(mem_source *m, int r, int op, int P)
{
    mc_event *e = ms_add(m, r, op, 0);
    e->peer2 = P;
    (void)r;
    e->bytes = op == MC_OP_BARRIER ? 0 : 4096;
    e->bytes2 = e->bytes;
}

static void build(mem_source *m, int op, int P)
{
    for (int r = 0; r < P; r++) {
        for (int it = 0; it < 3; it++) {
            ms_compute(m, r, burst(r, 2 * it));
            coll(m, r, op, P);
            /* a ring exchange between two collectives (1 MiB: rendezvous) */
            ms_compute(m, r, burst(r, 2 * it + 1));
            mc_event *e = ms_p2p(m, r, MC_OP_SENDRECV, (r + 1) % P, 5, it == 1 ? 1 << 20 : 64, 0);
            e->peer2 = (r + P - 1) % P;
            e->tag2 = 5;
            e->bytes2 = it == 1 ? 1 << 20 : 64;
        }
    }
}

static int same(const mc_sim_result *a, const mc_sim_result *b, const char *what)
{
    int ok = a->nranks == b->nranks;
    for (int r = 0; ok && r < a->nranks; r++) {
        const mc_sim_rank *x = &a->ranks[r], *y = &b->ranks[r];
        if (x->end != y->end || x->compute != y->compute || x->comm != y->comm ||
            x->wait != y->wait || x->events != y->events) {
            fprintf(stderr, "%s: rank %d: end %lld/%lld compute %lld/%lld comm %lld/%lld "
                            "wait %lld/%lld\n",
                    what, r, (long long)x->end, (long long)y->end, (long long)x->compute,
                    (long long)y->compute, (long long)x->comm, (long long)y->comm,
                    (long long)x->wait, (long long)y->wait);
            ok = 0;
        }
    }
    if (ok && a->end != b->end) {
        fprintf(stderr, "%s: end %lld vs %lld\n", what, (long long)a->end, (long long)b->end);
        ok = 0;
    }
    return ok;
}

static int check_one(int op, const char *alg, int P)
{
    char key[96], lower[64];
    snprintf(lower, sizeof lower, "%s", mc_op_name(op));
    for (char *p = lower; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    snprintf(key, sizeof key, "collectives.%s=%s", lower, alg);
    const char *const zero[] = {MS_ZERO_COST_SETS, key, NULL};
    const char *const freeset[] = {key, NULL};
    mem_source *m = mem_source_create(P);
    build(m, op, P);
    mc_sim_result fr, zr;
    mc_error err = {0};
    char what[160];
    snprintf(what, sizeof what, "%s %s P=%d", mc_op_name(op), alg, P);
    int ok = 1;
    if (mem_run(m, freeset, "free", &fr, &err) != MC_OK) {
        fprintf(stderr, "%s: free replay failed: %s\n", what, err.msg);
        ok = 0;
    } else if (mem_run(m, zero, NULL, &zr, &err) != MC_OK) {
        fprintf(stderr, "%s: zero-cost loggp replay failed: %s\n", what, err.msg);
        mc_sim_result_free(&fr);
        ok = 0;
    } else {
        ok = same(&fr, &zr, what);
        /* the shortcut was taken on "free", the schedules ran on loggp */
        if (fr.coll_messages != 0 || zr.coll_messages == 0) {
            fprintf(stderr, "%s: collective messages free %llu, loggp %llu\n", what,
                    (unsigned long long)fr.coll_messages, (unsigned long long)zr.coll_messages);
            ok = 0;
        }
        mc_sim_result_free(&fr);
        mc_sim_result_free(&zr);
    }
    mem_source_destroy(m);
    return ok;
}

int main(void)
{
    int cases = 0;
    for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
        int algs = 0;
        for (int i = 0; mc_coll_alg_at(i); i++) {
            const mc_coll_alg *a = mc_coll_alg_at(i);
            if (a->op != OPS[o])
                continue;
            algs++;
            for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
                CHECK(check_one(OPS[o], a->name, SIZES[s]));
                cases++;
            }
        }
        CHECK(algs > 0);
        for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
            CHECK(check_one(OPS[o], "auto", SIZES[s]));
            cases++;
        }
    }
    printf("%d cases: free-network shortcut equals the schedules\n", cases);
    return 0;
}
