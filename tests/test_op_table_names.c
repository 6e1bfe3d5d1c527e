/* The op table round-trips names and classifies kinds. */
#include "check.h"
#include "mpicast/format.h"

int main(void)
{
    for (int op = 0; op < MC_OP_COUNT; op++)
        CHECK_EQ_INT(mc_op_from_name(mc_op_name(op)), op);
    CHECK_EQ_INT(mc_op_from_name("MPI_Allreduce"), MC_OP_ALLREDUCE);
    CHECK_EQ_INT(mc_op_from_name("mpi_isend"), MC_OP_ISEND);
    CHECK_EQ_INT(mc_op_from_name("nope"), -1);
    CHECK_EQ_STR(mc_op_name(-1), "?");
    CHECK(mc_op_kind_of(MC_OP_SEND) == MC_KIND_P);
    CHECK(mc_op_kind_of(MC_OP_ALLTOALLV) == MC_KIND_C);
    CHECK(mc_op_kind_of(MC_OP_WAITALL) == MC_KIND_W);
    CHECK(mc_op_kind_of(MC_OP_INIT) == MC_KIND_X);
    CHECK(mc_op_kind_of(MC_OP_COMPUTE) == MC_KIND_X);
    CHECK(mc_op_kind_of(MC_OP_COMM_SPLIT) == MC_KIND_M);
    CHECK(mc_op_is_nonblocking_coll(MC_OP_IALLREDUCE));
    CHECK(!mc_op_is_nonblocking_coll(MC_OP_ALLREDUCE));
    return 0;
}
