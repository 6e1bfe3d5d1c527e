/* mc_writer_fold_polls (issue 24), what the tracer's fast path for failed
 * polls calls: n more polls go into the held failed poll, whose end moves;
 * nothing changes when no poll is held (folding off, or another event came
 * after it), when the end would go back, or the count would overflow. */
#include <stdio.h>

#include "rankfile_util.h"

int main(void)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir, "foldpolls");
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, 0, 0, 64, &err);
    CHECK(w != NULL);
    mc_event e = ev_make(MC_OP_INIT, 0, 10);
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    e = ev_make(MC_OP_TEST, 100, 150);
    e.site = 7;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_holds_poll(w, 150) == 0);     /* folding off: written */
    CHECK(mc_writer_fold_polls(w, 3, 500) == 0);
    mc_writer_set_fold(w, 2000);
    e = ev_make(MC_OP_TEST, 1000, 1040);
    e.site = 7;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_holds_poll(w, 1040) == 1);
    CHECK(mc_writer_holds_poll(w, 1041) == 0);
    CHECK(mc_writer_fold_polls(w, 5, 1030) == 0);  /* before its end */
    CHECK(mc_writer_fold_polls(w, UINT64_MAX, 9000) == 0); /* overflow */
    CHECK(mc_writer_fold_polls(w, 5, 1900) == 1);
    CHECK(mc_writer_holds_poll(w, 1900) == 1);
    CHECK(mc_writer_fold_polls(w, 2, 2300) == 1);
    e = ev_make(MC_OP_SEND, 2400, 2450);           /* writes the held record */
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
    CHECK(mc_writer_holds_poll(w, 2300) == 0);
    CHECK(mc_writer_fold_polls(w, 1, 2500) == 0);
    CHECK(mc_writer_close(w, &err) == MC_OK);

    mc_source *s = mc_trace_open(dir, &err);
    CHECK(s != NULL);
    int64_t want[][4] = {{MC_OP_INIT, 0, 10, 0}, {MC_OP_TEST, 100, 150, 0},
                         {MC_OP_TEST, 1000, 2300, 7}, {MC_OP_SEND, 2400, 2450, 0}};
    int n = 0;
    while (mc_source_next(s, 0, &e, &err) == 1) {
        CHECK(n < 4);
        CHECK_EQ_INT(e.op, want[n][0]);
        CHECK_EQ_INT(e.t_start, want[n][1]);
        CHECK_EQ_INT(e.t_end, want[n][2]);
        CHECK_EQ_INT((int64_t)e.folded, want[n][3]);
        n++;
    }
    CHECK_EQ_INT(n, 4);
    mc_source_close(s);
    rm_tree(dir);
    printf("ok\n");
    return 0;
}
