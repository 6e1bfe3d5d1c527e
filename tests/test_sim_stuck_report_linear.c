/* A replay where 100,000 ranks are stuck ends at once with one report line
 * per rank (the report indexes requests and collective executors once; it
 * used to scan every request for every stuck rank: 10^10 steps, a hang).
 * Even ranks wait on an Irecv from a rank that never sends; odd ranks wait
 * in a Barrier the even ranks never enter. The ctest TIMEOUT is the guard. */
#include "check.h"
#include "mem_source.h"

enum { N = 100000 };

int main(void)
{
    mem_source *m = mem_source_create(N);
    for (int r = 0; r < N; r++) {
        if (r % 2 == 0) {
            ms_p2p(m, r, MC_OP_IRECV, (r + 1) % N, 9, 64, 1);
            ms_wait(m, r, MC_OP_WAITALL, 1, 1u);
        } else {
            ms_add(m, r, MC_OP_BARRIER, 0);
        }
    }
    mc_sim_result res;
    mc_error err = {0};
    CHECK(mem_run(m, NULL, NULL, &res, &err) == MC_ERR_DEADLOCK);
    CHECK(strstr(err.msg, "100000 ranks stuck") != NULL);
    CHECK(res.report != NULL);
    int lines = 0;
    for (const char *p = res.report; p && *p; p++)
        lines += *p == '\n';
    CHECK_EQ_INT(lines, N);
    CHECK(strstr(res.report, "rank 0: Waitall on request 1 = Irecv from rank 1 tag 9 comm "
                             "world, 64 bytes: no matching message\n") != NULL);
    CHECK(strstr(res.report, "rank 99998: Waitall on request 1 = Irecv from rank 99999") !=
          NULL);
    CHECK(strstr(res.report, "rank 99999: Barrier on comm world") != NULL);
    mc_sim_result_free(&res);
    mem_source_destroy(m);
    return 0;
}
