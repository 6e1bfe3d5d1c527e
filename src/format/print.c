/* The stable text form of one event (`mpicast dump`, docs/trace-format.md,
 * "Text form").
 *
 * Rules, kept in one place so the form stays diffable across versions:
 *  - fields appear in a fixed order, as `key=value`, separated by one space;
 *  - a field at its default (the defaults of the binary encoding: site 0,
 *    peer/tag -1, bytes 0, req 0, no vals, ...) is omitted, except `comm`,
 *    which every operation that takes a communicator prints (even `world`);
 *  - `newcomm` is printed by the communicator-creating operations (`null` when
 *    the call returned MPI_COMM_NULL) and by any event carrying one;
 *  - peers and tags print MC_ANY as `any`; times are integer ns and all of
 *    them (start, end, burst, cpu) are left out when with_times is 0.
 */
#include <inttypes.h>
#include <stdio.h>

#include "mpicast/format.h"

/* world, self, null, or "<seq>.<leader>". */
static void print_comm(FILE *out, const char *key, uint64_t id)
{
    if (id == MC_COMM_WORLD)
        fprintf(out, " %s=world", key);
    else if (id == MC_COMM_NULL)
        fprintf(out, " %s=null", key);
    else if ((id & MC_COMM_SELF_BASE) == MC_COMM_SELF_BASE)
        fprintf(out, " %s=self", key);
    else
        fprintf(out, " %s=%" PRIu64 ".%" PRIu64, key, id >> 32, (uint64_t)(id & 0xffffffffu));
}

/* A peer or tag: omitted at MC_NONE, `any` for an unresolved wildcard. */
static void print_rank_or_tag(FILE *out, const char *key, int32_t v)
{
    if (v == MC_NONE)
        return;
    if (v == MC_ANY)
        fprintf(out, " %s=any", key);
    else
        fprintf(out, " %s=%" PRId32, key, v);
}

static void print_i64(FILE *out, const char *key, int64_t v)
{
    if (v != 0)
        fprintf(out, " %s=%" PRId64, key, v);
}

/* Communicator management (Comm_dup ... Intercomm_create). By range, not by
 * mc_op_kind_of: the table's kind letters M and X must not be confused. */
static int is_comm_management(int op)
{
    return mc_op_has(op, MC_OPF_COMM_MGMT);
}

/* Operations whose `comm` field names the communicator they ran on. */
static int has_comm(int op)
{
    mc_op_kind k = mc_op_kind_of(op);
    return k == MC_KIND_P || k == MC_KIND_C || is_comm_management(op);
}

static int creates_comm(int op)
{
    return is_comm_management(op) && op != MC_OP_COMM_FREE;
}

static void print_vals(FILE *out, const mc_event *e)
{
    if (e->nvals == 0 || !e->vals)
        return;
    fputs(" vals=", out);
    for (uint32_t i = 0; i < e->nvals; i++)
        fprintf(out, "%s%" PRId64, i ? "," : "", e->vals[i]);
}

void mc_event_print(FILE *out, int rank, const mc_event *e, int with_times)
{
    if (e->op >= 0 && e->op < MC_OP_COUNT)
        fprintf(out, "%d %s", rank, mc_op_name(e->op));
    else
        fprintf(out, "%d op%" PRId32, rank, e->op); /* keeps unknown ops distinct */
    if (has_comm(e->op) || e->comm != MC_COMM_WORLD)
        print_comm(out, "comm", e->comm);
    print_rank_or_tag(out, "peer", e->peer);
    print_rank_or_tag(out, "tag", e->tag);
    print_i64(out, "bytes", e->bytes);
    print_rank_or_tag(out, "peer2", e->peer2);
    print_rank_or_tag(out, "tag2", e->tag2);
    print_i64(out, "bytes2", e->bytes2);
    if (e->req != MC_NO_REQ)
        fprintf(out, " req=%" PRIu32, e->req);
    if (creates_comm(e->op) || (e->newcomm != 0 && e->newcomm != MC_COMM_NULL))
        print_comm(out, "newcomm", e->newcomm);
    print_vals(out, e);
    if (e->folded)
        fprintf(out, " calls=%" PRIu64, mc_event_calls(e));
    if (e->site != 0)
        fprintf(out, " site=%" PRIx32, (uint32_t)e->site);
    if (with_times) {
        fprintf(out, " start=%" PRId64 " end=%" PRId64 " burst=%" PRId64, e->t_start,
                e->t_end, e->burst);
        if (e->cpu != -1)
            fprintf(out, " cpu=%" PRId64, e->cpu);
    }
    fputc('\n', out);
}
