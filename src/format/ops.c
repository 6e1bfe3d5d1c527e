/* The operation table, derived from MC_OPS (include/mpicast/format.h). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "mpicast/format.h"

static const char *const op_names[MC_OP_COUNT] = {
#define MC_OP_NAME_(name, str, kind) str,
    MC_OPS(MC_OP_NAME_)
#undef MC_OP_NAME_
};

static const char op_kinds[MC_OP_COUNT] = {
#define MC_OP_KIND_(name, str, kind) #kind[0],
    MC_OPS(MC_OP_KIND_)
#undef MC_OP_KIND_
};

const char *mc_op_name(int op)
{
    return op >= 0 && op < MC_OP_COUNT ? op_names[op] : "?";
}

int mc_op_from_name(const char *name)
{
    if (strncasecmp(name, "MPI_", 4) == 0)
        name += 4;
    for (int i = 0; i < MC_OP_COUNT; i++)
        if (strcasecmp(name, op_names[i]) == 0)
            return i;
    return -1;
}

mc_op_kind mc_op_kind_of(int op)
{
    return op >= 0 && op < MC_OP_COUNT ? (mc_op_kind)op_kinds[op] : MC_KIND_X;
}

int mc_op_is_nonblocking_coll(int op)
{
    return mc_op_has(op, MC_OPF_ICOLL);
}

enum { SEND = MC_OPF_SEND, SINIT = MC_OPF_SEND_INIT | MC_OPF_PERSISTENT,
       CPL = MC_OPF_COMPLETION, TEST = MC_OPF_COMPLETION | MC_OPF_TEST | MC_OPF_POLL,
       COLL = MC_OPF_COLL, MGMT = MC_OPF_COMM_MGMT, ICOLL = MC_OPF_ICOLL };

const unsigned mc_op_flag_table[MC_OP_COUNT] = {
    [MC_OP_SEND] = SEND, [MC_OP_SSEND] = SEND, [MC_OP_BSEND] = SEND, [MC_OP_RSEND] = SEND,
    [MC_OP_ISEND] = SEND, [MC_OP_ISSEND] = SEND, [MC_OP_IBSEND] = SEND, [MC_OP_IRSEND] = SEND,
    [MC_OP_SENDRECV] = SEND | MC_OPF_SENDRECV, [MC_OP_SENDRECV_REPLACE] = SEND | MC_OPF_SENDRECV,
    [MC_OP_SEND_INIT] = SINIT, [MC_OP_SSEND_INIT] = SINIT, [MC_OP_BSEND_INIT] = SINIT,
    [MC_OP_RSEND_INIT] = SINIT, [MC_OP_RECV_INIT] = MC_OPF_PERSISTENT,
    [MC_OP_IPROBE] = MC_OPF_POLL,
    [MC_OP_START] = MC_OPF_REQ_LIST, [MC_OP_STARTALL] = MC_OPF_REQ_LIST,
    [MC_OP_REQUEST_FREE] = MC_OPF_REQ_LIST,
    [MC_OP_WAIT] = CPL, [MC_OP_WAITALL] = CPL, [MC_OP_WAITANY] = CPL, [MC_OP_WAITSOME] = CPL,
    [MC_OP_TEST] = TEST, [MC_OP_TESTALL] = TEST, [MC_OP_TESTANY] = TEST, [MC_OP_TESTSOME] = TEST,
    [MC_OP_BARRIER] = COLL, [MC_OP_BCAST] = COLL, [MC_OP_REDUCE] = COLL,
    [MC_OP_ALLREDUCE] = COLL, [MC_OP_GATHER] = COLL, [MC_OP_GATHERV] = COLL,
    [MC_OP_SCATTER] = COLL, [MC_OP_SCATTERV] = COLL, [MC_OP_ALLGATHER] = COLL,
    [MC_OP_ALLGATHERV] = COLL, [MC_OP_ALLTOALL] = COLL, [MC_OP_ALLTOALLV] = COLL,
    [MC_OP_ALLTOALLW] = COLL, [MC_OP_REDUCE_SCATTER] = COLL,
    [MC_OP_REDUCE_SCATTER_BLOCK] = COLL, [MC_OP_SCAN] = COLL, [MC_OP_EXSCAN] = COLL,
    [MC_OP_IBARRIER] = ICOLL, [MC_OP_IBCAST] = ICOLL, [MC_OP_IREDUCE] = ICOLL,
    [MC_OP_IALLREDUCE] = ICOLL, [MC_OP_IGATHER] = ICOLL, [MC_OP_IGATHERV] = ICOLL,
    [MC_OP_ISCATTER] = ICOLL, [MC_OP_ISCATTERV] = ICOLL, [MC_OP_IALLGATHER] = ICOLL,
    [MC_OP_IALLGATHERV] = ICOLL, [MC_OP_IALLTOALL] = ICOLL, [MC_OP_IALLTOALLV] = ICOLL,
    [MC_OP_IALLTOALLW] = ICOLL, [MC_OP_IREDUCE_SCATTER] = ICOLL,
    [MC_OP_IREDUCE_SCATTER_BLOCK] = ICOLL, [MC_OP_ISCAN] = ICOLL, [MC_OP_IEXSCAN] = ICOLL,
    [MC_OP_COMM_DUP] = MGMT, [MC_OP_COMM_SPLIT] = MGMT, [MC_OP_COMM_CREATE] = MGMT,
    [MC_OP_COMM_FREE] = MGMT, [MC_OP_CART_CREATE] = MGMT, [MC_OP_CART_SUB] = MGMT,
    [MC_OP_GRAPH_CREATE] = MGMT, [MC_OP_DIST_GRAPH_CREATE_ADJACENT] = MGMT,
    [MC_OP_INTERCOMM_CREATE] = MGMT,
};


static const int blocking_form[MC_OP_COUNT] = {
    [MC_OP_IBARRIER] = MC_OP_BARRIER, [MC_OP_IBCAST] = MC_OP_BCAST,
    [MC_OP_IREDUCE] = MC_OP_REDUCE, [MC_OP_IALLREDUCE] = MC_OP_ALLREDUCE,
    [MC_OP_IGATHER] = MC_OP_GATHER, [MC_OP_IGATHERV] = MC_OP_GATHERV,
    [MC_OP_ISCATTER] = MC_OP_SCATTER, [MC_OP_ISCATTERV] = MC_OP_SCATTERV,
    [MC_OP_IALLGATHER] = MC_OP_ALLGATHER, [MC_OP_IALLGATHERV] = MC_OP_ALLGATHERV,
    [MC_OP_IALLTOALL] = MC_OP_ALLTOALL, [MC_OP_IALLTOALLV] = MC_OP_ALLTOALLV,
    [MC_OP_IALLTOALLW] = MC_OP_ALLTOALLW, [MC_OP_IREDUCE_SCATTER] = MC_OP_REDUCE_SCATTER,
    [MC_OP_IREDUCE_SCATTER_BLOCK] = MC_OP_REDUCE_SCATTER_BLOCK, [MC_OP_ISCAN] = MC_OP_SCAN,
    [MC_OP_IEXSCAN] = MC_OP_EXSCAN,
};

int mc_op_blocking_form(int op)
{
    if (mc_op_has(op, MC_OPF_COLL))
        return op;
    return mc_op_has(op, MC_OPF_ICOLL) ? blocking_form[op] : -1;
}
