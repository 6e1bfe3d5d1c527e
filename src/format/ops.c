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
    return op >= MC_OP_IBARRIER && op <= MC_OP_IEXSCAN;
}
