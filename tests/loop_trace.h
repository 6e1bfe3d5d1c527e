/* Writing small loop traces by hand (the compress tests): events 100 ns of
 * compute apart, 50 ns long, without CPU times. */
#ifndef MC_TEST_LOOP_TRACE_H
#define MC_TEST_LOOP_TRACE_H

#include "check.h"
#include "mpicast/format.h"

static inline void add(mc_writer *w, int64_t *now, mc_event e)
{
    mc_error err = {0};
    e.cpu = -1;
    e.t_start = *now + 100;
    e.t_end = e.t_start + 50;
    *now = e.t_end;
    CHECK(mc_writer_add(w, &e, &err) == MC_OK);
}

/* An event of op at site with no peer or tag. */
static inline mc_event plain(int op, int site)
{
    return (mc_event){.op = op, .site = site, .peer = MC_NONE, .tag = MC_NONE,
                      .peer2 = MC_NONE, .tag2 = MC_NONE};
}

#endif
