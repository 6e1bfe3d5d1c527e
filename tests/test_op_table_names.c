/* The op table round-trips names and classifies kinds; the property flags
 * (mc_op_flags) agree with the MPI names, not with the order of the enum. */
#include <string.h>
#include <strings.h>

#include "check.h"
#include "mpicast/format.h"

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Every flag against what the name says. */
static void check_flags(int op)
{
    const char *n = mc_op_name(op);
    int completion = starts(n, "Wait") || starts(n, "Test");
    int init = ends(n, "_init");
    int send = !init && !starts(n, "Probe") && (strstr(n, "send") || strstr(n, "Send"));
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_COMPLETION), completion);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_TEST), starts(n, "Test"));
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_POLL), starts(n, "Test") || strcmp(n, "Iprobe") == 0);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_PERSISTENT), init);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_SEND_INIT), init && strcasestr(n, "send") != NULL);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_SEND), send);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_SENDRECV), starts(n, "Sendrecv"));
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_REQ_LIST),
                 starts(n, "Start") || strcmp(n, "Request_free") == 0);
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_COMM_MGMT), mc_op_kind_of(op) == MC_KIND_M);
    int coll = mc_op_kind_of(op) == MC_KIND_C;
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_ICOLL), coll && n[0] == 'I');
    CHECK_EQ_INT(mc_op_has(op, MC_OPF_COLL), coll && n[0] != 'I');
    int b = mc_op_blocking_form(op);
    if (!coll)
        CHECK_EQ_INT(b, -1);
    else /* Ibcast -> Bcast, Bcast -> Bcast */
        CHECK(strcasecmp(mc_op_name(b), n[0] == 'I' ? n + 1 : n) == 0);
}

int main(void)
{
    for (int op = 0; op < MC_OP_COUNT; op++) {
        CHECK_EQ_INT(mc_op_from_name(mc_op_name(op)), op);
        check_flags(op);
    }
    CHECK_EQ_INT(mc_op_flags(-1), 0);
    CHECK_EQ_INT(mc_op_flags(MC_OP_COUNT), 0);
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
