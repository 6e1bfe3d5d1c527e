/* mc_event_print: the stable text form of docs/trace-format.md, checked line
 * by line for a handful of events (with and without times). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/format.h"

/* An event with every field at its default. */
static mc_event ev(int op)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = e.tag = e.peer2 = e.tag2 = MC_NONE;
    e.newcomm = 0;
    e.cpu = -1;
    return e;
}

static void expect(int rank, const mc_event *e, int with_times, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    mc_event_print(f, rank, e, with_times);
    CHECK_EQ_INT(fclose(f), 0);
    CHECK_EQ_STR(buf, want);
    free(buf);
}

int main(void)
{
    mc_event e = ev(MC_OP_INIT);
    e.t_start = -1500;
    e.t_end = 0;
    expect(0, &e, 1, "0 Init start=-1500 end=0 burst=0\n");
    expect(0, &e, 0, "0 Init\n");

    e = ev(MC_OP_SEND);
    e.peer = 1;
    e.tag = 7;
    e.bytes = 800;
    e.site = 0x1a2b3c;
    e.t_start = 1000;
    e.t_end = 1250;
    e.burst = 1000;
    expect(0, &e, 1, "0 Send comm=world peer=1 tag=7 bytes=800 site=1a2b3c start=1000 end=1250 "
                     "burst=1000\n");
    expect(0, &e, 0, "0 Send comm=world peer=1 tag=7 bytes=800 site=1a2b3c\n");
    e.peer = MC_NONE; /* MPI_PROC_NULL */
    e.cpu = 900;
    expect(0, &e, 1, "0 Send comm=world tag=7 bytes=800 site=1a2b3c start=1000 end=1250 "
                     "burst=1000 cpu=900\n");

    e = ev(MC_OP_IRECV);
    e.comm = (3ull << 32) | 2;
    e.peer = MC_ANY;
    e.tag = MC_ANY;
    e.bytes = 64;
    e.req = 5;
    expect(3, &e, 0, "3 Irecv comm=3.2 peer=any tag=any bytes=64 req=5\n");

    e = ev(MC_OP_SENDRECV);
    e.comm = MC_COMM_SELF_BASE | 1;
    e.peer = 1;
    e.tag = 0;
    e.bytes = 8;
    e.peer2 = 1;
    e.tag2 = 3;
    e.bytes2 = 16;
    expect(1, &e, 0, "1 Sendrecv comm=self peer=1 tag=0 bytes=8 peer2=1 tag2=3 bytes2=16\n");

    e = ev(MC_OP_WAITALL);
    int64_t vals[] = {5, 2, 9, 64, 6, MC_NONE, MC_NONE, 0};
    e.vals = vals;
    e.nvals = 8;
    expect(3, &e, 0, "3 Waitall vals=5,2,9,64,6,-1,-1,0\n");

    e = ev(MC_OP_ALLREDUCE);
    e.bytes = 8;
    e.peer2 = 4;
    e.bytes2 = 8;
    expect(2, &e, 0, "2 Allreduce comm=world bytes=8 peer2=4 bytes2=8\n");

    e = ev(MC_OP_COMM_SPLIT);
    e.tag = 1;
    e.bytes = 0;
    e.peer2 = 2;
    e.newcomm = (4ull << 32) | 1;
    int64_t members[] = {1, 3};
    e.vals = members;
    e.nvals = 2;
    expect(1, &e, 0, "1 Comm_split comm=world tag=1 peer2=2 newcomm=4.1 vals=1,3\n");
    e.newcomm = MC_COMM_NULL;
    e.nvals = 0;
    e.peer2 = 0;
    expect(1, &e, 0, "1 Comm_split comm=world tag=1 peer2=0 newcomm=null\n");

    e = ev(MC_OP_COMM_FREE);
    e.comm = (4ull << 32) | 1;
    expect(1, &e, 0, "1 Comm_free comm=4.1\n");

    e = ev(MC_OP_PCONTROL);
    e.tag = 2;
    expect(0, &e, 0, "0 Pcontrol tag=2\n");

    e = ev(MC_OP_START);
    int64_t ids[] = {12};
    e.vals = ids;
    e.nvals = 1;
    expect(0, &e, 0, "0 Start vals=12\n");

    e = ev(99999);
    expect(0, &e, 0, "0 op99999\n");
    return 0;
}
