/* Replays that cannot complete end with an error naming, per stuck rank, the
 * operation, peer, tag and communicator — never a hang. */
#include "check.h"
#include "mem_source.h"

static mc_err run(mem_source *m, mc_sim_result *res, mc_error *err)
{
    memset(err, 0, sizeof *err);
    return mem_run(m, NULL, NULL, res, err);
}

int main(void)
{
    mc_sim_result res;
    mc_error err;

    /* both ranks Recv first: deadlock */
    mem_source *m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_RECV, 1, 3, 8, 0);
    ms_p2p(m, 0, MC_OP_SEND, 1, 3, 8, 0);
    ms_p2p(m, 1, MC_OP_RECV, 0, 3, 8, 0);
    ms_p2p(m, 1, MC_OP_SEND, 0, 3, 8, 0);
    CHECK(run(m, &res, &err) == MC_ERR_DEADLOCK);
    CHECK(strstr(err.msg, "2 ranks stuck") != NULL);
    CHECK(strstr(err.msg, "rank 0: Recv from rank 1 tag 3 comm world") != NULL);
    CHECK(res.report && strstr(res.report, "rank 1: Recv from rank 0 tag 3 comm world"));
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* Wait on a request that was never created */
    m = mem_source_create(1);
    ms_wait(m, 0, MC_OP_WAIT, 1, 42u);
    CHECK(run(m, &res, &err) != MC_OK);
    CHECK(strstr(err.msg, "unknown request 42") != NULL);
    CHECK(strstr(err.msg, "rank 0") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* a message nobody receives, a receive nobody matches */
    m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 1, 5, 8, 0);
    ms_p2p(m, 1, MC_OP_IRECV, 0, 6, 8, 1);
    CHECK(run(m, &res, &err) == MC_ERR_DEADLOCK);
    CHECK(strstr(res.report, "message from rank 0 to rank 1 tag 5 comm world, 8 bytes: never "
                             "received") != NULL);
    CHECK(strstr(res.report, "rank 1: Irecv from rank 0 tag 6 comm world: never matched"));
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* rendezvous send whose receiver has finished */
    m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_ISEND, 1, 1, 1 << 20, 1);
    ms_wait(m, 0, MC_OP_WAIT, 1, 1u);
    CHECK(run(m, &res, &err) == MC_ERR_DEADLOCK);
    CHECK(strstr(err.msg, "rank 0: Wait on request 1 = Isend to rank 1 tag 1 comm world") != NULL);
    CHECK(strstr(err.msg, "rank 1 has finished its trace") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* a collective not entered by every member */
    m = mem_source_create(3);
    for (int r = 0; r < 2; r++) {
        mc_event *e = ms_add(m, r, MC_OP_BARRIER, 0);
        e->peer2 = 3;
    }
    CHECK(run(m, &res, &err) == MC_ERR_DEADLOCK);
    CHECK(strstr(err.msg, "Barrier on comm world (collective #0") != NULL);
    CHECK(res.report && strstr(res.report, "rank 2 has finished its trace"));
    mc_sim_result_free(&res);
    mem_source_destroy(m);

    /* an unresolved wildcard and a peer outside the world */
    m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_RECV, MC_ANY, 0, 8, 0);
    CHECK(run(m, &res, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "wildcard") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    m = mem_source_create(2);
    ms_p2p(m, 0, MC_OP_SEND, 9, 0, 8, 0);
    CHECK(run(m, &res, &err) == MC_ERR_FORMAT);
    CHECK(strstr(err.msg, "destination 9 is not a rank") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
