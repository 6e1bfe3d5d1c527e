/* Random, mostly inconsistent traces (random operations, peers, tags, sizes,
 * request ids, completion values, communicators) never crash or hang the
 * simulator: every replay returns, with a result or an error message. */
#include "check.h"
#include "mem_source.h"

static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

static int pick_peer(int P)
{
    int64_t k = rnd(10);
    return k == 0 ? MC_NONE : k == 1 ? MC_ANY : k == 2 ? (int)rnd(100) - 50 : (int)rnd(P);
}

int main(void)
{
    const int P = 4;
    int ok = 0, failed = 0, deadlocks = 0;
    for (int trial = 0; trial < 300; trial++) {
        mem_source *m = mem_source_create(P);
        int mild = trial % 2; /* valid fields, random structure: reaches deeper */
        for (int r = 0; r < P; r++) {
            int n = (int)rnd(mild ? 6 : 30);
            uint32_t nreq = 0;
            for (int i = 0; i < n && mild; i++) {
                static const int ops[] = {MC_OP_SEND, MC_OP_RECV, MC_OP_ISEND, MC_OP_IRECV,
                                          MC_OP_WAIT, MC_OP_WAITALL, MC_OP_TEST, MC_OP_SSEND,
                                          MC_OP_SENDRECV, MC_OP_BARRIER, MC_OP_ALLREDUCE,
                                          MC_OP_IBCAST, MC_OP_PROBE, MC_OP_SEND_INIT,
                                          MC_OP_START, MC_OP_REQUEST_FREE, MC_OP_COMPUTE};
                int op = ops[rnd(sizeof ops / sizeof ops[0])];
                ms_compute(m, r, rnd(1000));
                mc_event *e = ms_add(m, r, op, rnd(100));
                e->peer = op == MC_OP_IBCAST ? 0 : (int)rnd(P);
                e->peer2 = op == MC_OP_SENDRECV ? (int)rnd(P) : P;
                e->tag = (int)rnd(2);
                e->bytes = e->bytes2 = rnd(3) ? rnd(1000) : 200000;
                if (op == MC_OP_ISEND || op == MC_OP_IRECV || op == MC_OP_IBCAST ||
                    op == MC_OP_SEND_INIT)
                    e->req = ++nreq;
                if ((op == MC_OP_WAIT || op == MC_OP_WAITALL || op == MC_OP_START ||
                     op == MC_OP_REQUEST_FREE) && nreq) {
                    int64_t id = 1 + rnd(nreq);
                    if (op == MC_OP_START || op == MC_OP_REQUEST_FREE)
                        ms_vals(m, e, 1, id);
                    else
                        ms_vals(m, e, 4, id, (int64_t)MC_NONE, (int64_t)MC_NONE, (int64_t)0);
                }
            }
            for (int i = 0; i < n && !mild; i++) {
                ms_compute(m, r, rnd(20) ? rnd(1000) : (int64_t)100000000000000000); /* 1e17 ns */
                mc_event *e = ms_add(m, r, (int)rnd(MC_OP_COUNT + 4) - 2, rnd(100));
                e->peer = pick_peer(P);
                e->peer2 = rnd(3) ? P : pick_peer(P);
                e->tag = (int)rnd(4) - 1;
                e->tag2 = (int)rnd(4) - 1;
                e->bytes = rnd(3) ? rnd(200000) : rnd(2) ? -rnd(10) : (int64_t)1 << 62;
                e->bytes2 = rnd(200000);
                e->req = (uint32_t)rnd(6);
                e->comm = rnd(4) ? MC_COMM_WORLD : (uint64_t)rnd(3) << 32;
                e->newcomm = (uint64_t)(1 + rnd(2)) << 32;
                int nv = (int)rnd(10);
                if (nv) {
                    e->vals = calloc((size_t)nv, sizeof *e->vals);
                    e->nvals = (uint32_t)nv;
                    for (int k = 0; k < nv; k++)
                        e->vals[k] = rnd(8) - 1;
                }
            }
        }
        mc_sim_result res;
        mc_error err = {0};
        const char *sets[] = {"network.eager_limit=100000", "cpu.reduce_cost=1ns", NULL};
        mc_err rc = mem_run(m, sets, NULL, &res, &err);
        if (rc) {
            CHECK(err.msg[0] != 0);
            failed++;
            deadlocks += rc == MC_ERR_DEADLOCK;
        } else {
            ok++;
        }
        mc_sim_result_free(&res);
        mem_source_destroy(m);
    }
    CHECK(failed > 0); /* the generator does produce bad traces */
    CHECK(deadlocks > 0); /* and ones that get as far as the stuck-rank report */
    fprintf(stderr, "%d replays completed, %d reported errors (%d deadlocks)\n", ok, failed,
            deadlocks);
    return 0;
}
