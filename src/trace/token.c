/* mpicast tracer — token execution (`mpicast trace --mode token`, the
 * MPIETE token method; docs/compute-data.md).
 *
 * One token exists; only the rank holding it runs application code, so the
 * compute bursts of many ranks sharing one core are measured without
 * disturbing one another. Rank 0 holds it when MPI_Init returns; the others
 * wait for it before returning from MPI_Init.
 *
 * The rule that keeps the run deadlock-free: never block in a real MPI
 * operation while other ranks may need the token to reach their side of it.
 *   - A call that may block (Send, Recv, Sendrecv, Probe, Wait*) is started
 *     as its nonblocking twin and tested once: if it completes, the rank keeps
 *     the token and returns. Otherwise it passes the token to (rank+1) % size
 *     on a private duplicate of MPI_COMM_WORLD, then polls the operation
 *     (with a short sleep between polls, so idle ranks leave the core to the
 *     holder) and, while polling, forwards the token whenever it arrives.
 *     Once the operation is complete it waits for the token before returning.
 *   - A blocking collective (or communicator constructor) on comm C is gated
 *     by an MPI_Ibarrier on C, completed the same way but without taking the
 *     token back; once the gate opens every member of C is inside the call,
 *     so the real blocking collective completes without anyone computing.
 *     Then the rank waits for the token.
 *   - A program that spins on MPI_Test/Iprobe would keep the token forever:
 *     after MCTK_SPIN unsuccessful tests in a row the rank yields the token
 *     (passes it and waits for it back).
 * The application's messages and results are those of a normal run: the
 * nonblocking twins have the blocking calls' semantics, the gate is an extra
 * barrier, and the token travels on its own communicator.
 *
 * Fortran programs take the same paths: their entry points run the token
 * expressions on C views of their arguments (gen_wrappers.py).
 *
 * Refused (one warning, wall mode for the whole run, decided collectively
 * in MPI_Init): more than MPI_THREAD_FUNNELED, and programs whose executable
 * imports MPI calls the tracer does not gate (one-sided, matched probes,
 * neighbourhood collectives, MPI-IO, dynamic processes, intercommunicators,
 * ...; C names, or the Fortran ones in any case with trailing underscores). */
#include "tracer.h"

#include <elf.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum { TOKEN_TAG = 1, MCTK_SPIN = 64, YIELDS = 4 };

int mct_token_on;     /* the protocol runs on this rank */
int mct_token_mode;   /* the trace was taken in token mode (for meta.json) */

static MPI_Comm tcomm = MPI_COMM_NULL;
static MPI_Request treq = MPI_REQUEST_NULL;
static int tbuf;               /* the token's payload: passes so far */
static int holding, right;
static int fails;              /* unsuccessful tests in a row */
static long poll_ns = 100000;  /* longest sleep between polls */
static int64_t passes, wait_ns;

/* ------------------------------------------------------------ the token */

static void send_token(void)
{
    tbuf++;
    passes++;
    holding = 0;
    PMPI_Send(&tbuf, 1, MPI_INT, right, TOKEN_TAG, tcomm);
}

/* 1 when the token has arrived (the receive is then consumed). */
static int token_arrived(void)
{
    if (treq == MPI_REQUEST_NULL)
        PMPI_Irecv(&tbuf, 1, MPI_INT, MPI_ANY_SOURCE, TOKEN_TAG, tcomm, &treq);
    int flag = 0;
    PMPI_Test(&treq, &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* A few yields, then sleeps growing to poll_ns: a waiting rank costs the
 * holder little CPU, and hands over quickly when the token comes soon. */
static void pause_poll(unsigned k)
{
    if (k < YIELDS) {
        sched_yield();
        return;
    }
    long ns = 1000L << (k - YIELDS < 20 ? k - YIELDS : 20);
    if (ns > poll_ns)
        ns = poll_ns;
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static void release(void)
{
    if (holding)
        send_token();
}

void mctk_acquire(void)
{
    if (holding)
        return;
    int64_t t0 = mct_now();
    for (unsigned k = 0; !token_arrived(); k++)
        pause_poll(k);
    holding = 1;
    fails = 0;
    wait_ns += mct_now() - t0;
}

/* ------------------------------------------------------------ blocking */

typedef int (*poll_fn)(void *ctx, int *done);

/* Completes an operation through its poll function: keeps the token if it
 * completes at once; else passes it on, polls (forwarding the token while
 * blocked) and, with reacquire, waits for the token at the end. */
static int block_on(poll_fn poll, void *ctx, int reacquire)
{
    int done = 0;
    int rc = poll(ctx, &done);
    if (rc != MPI_SUCCESS || done) {
        fails = 0;
        return rc;
    }
    release();
    for (unsigned k = 0;; k++) {
        rc = poll(ctx, &done);
        if (rc != MPI_SUCCESS || done)
            break;
        if (!holding && token_arrived())
            send_token();
        pause_poll(k);
    }
    if (reacquire)
        mctk_acquire();
    fails = 0;
    return rc;
}

typedef struct req_ctx {
    int n;
    MPI_Request *reqs;
    MPI_Status *sts;   /* one status (n == 1) or an array */
    int *index, *outcount, *indices;
} req_ctx;

static int poll_test(void *c, int *done)
{
    req_ctx *x = c;
    return PMPI_Test(x->reqs, done, x->sts);
}

static int poll_testall(void *c, int *done)
{
    req_ctx *x = c;
    return PMPI_Testall(x->n, x->reqs, done, x->sts);
}

static int poll_testany(void *c, int *done)
{
    req_ctx *x = c;
    return PMPI_Testany(x->n, x->reqs, x->index, done, x->sts);
}

static int poll_testsome(void *c, int *done)
{
    req_ctx *x = c;
    int rc = PMPI_Testsome(x->n, x->reqs, x->outcount, x->indices, x->sts);
    *done = *x->outcount != 0; /* MPI_UNDEFINED: no active request */
    return rc;
}

static int complete_one(MPI_Request *r, MPI_Status *st)
{
    req_ctx x = {.n = 1, .reqs = r, .sts = st};
    return block_on(poll_test, &x, 1);
}

int mctk_send(int kind, const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm)
{
    MPI_Request r;
    int rc = kind == MC_OP_SSEND   ? PMPI_Issend(buf, count, t, dest, tag, comm, &r)
             : kind == MC_OP_BSEND ? PMPI_Ibsend(buf, count, t, dest, tag, comm, &r)
             : kind == MC_OP_RSEND ? PMPI_Irsend(buf, count, t, dest, tag, comm, &r)
                                   : PMPI_Isend(buf, count, t, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : complete_one(&r, MPI_STATUS_IGNORE);
}

/* What a blocking receive from MPI_PROC_NULL returns (MPI 3.1 3.11); MPICH's
 * MPI_Test fills such a status otherwise. */
static int proc_null_status(int rc, int src, MPI_Status *st)
{
    if (rc == MPI_SUCCESS && src == MPI_PROC_NULL && st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_PROC_NULL;
        st->MPI_TAG = MPI_ANY_TAG;
        PMPI_Status_set_elements(st, MPI_BYTE, 0);
    }
    return rc;
}

int mctk_recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Status *st)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, t, src, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : proc_null_status(complete_one(&r, st), src, st);
}

static int complete_pair(MPI_Request *rs, MPI_Status *st)
{
    MPI_Status sts[2];
    req_ctx x = {.n = 2, .reqs = rs, .sts = sts};
    int rc = block_on(poll_testall, &x, 1);
    if (st != MPI_STATUS_IGNORE)
        *st = sts[0];
    return rc;
}

int mctk_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
                  MPI_Comm comm, MPI_Status *st)
{
    MPI_Request rs[2];
    int rc = PMPI_Irecv(rbuf, rcount, rtype, src, rtag, comm, &rs[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &rs[1]);
    return rc != MPI_SUCCESS ? rc : proc_null_status(complete_pair(rs, st), src, st);
}

/* The send side goes from a packed copy, so the receive may land in buf. */
int mctk_sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest, int stag, int src,
                          int rtag, MPI_Comm comm, MPI_Status *st)
{
    int size = 0, pos = 0;
    int rc = PMPI_Pack_size(count, t, comm, &size);
    void *tmp = rc == MPI_SUCCESS ? malloc(size > 0 ? (size_t)size : 1) : NULL;
    if (!tmp)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    rc = PMPI_Pack(buf, count, t, tmp, size, &pos, comm);
    MPI_Request rs[2];
    if (rc == MPI_SUCCESS)
        rc = PMPI_Irecv(buf, count, t, src, rtag, comm, &rs[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(tmp, pos, MPI_PACKED, dest, stag, comm, &rs[1]);
    if (rc == MPI_SUCCESS)
        rc = proc_null_status(complete_pair(rs, st), src, st);
    free(tmp);
    return rc;
}

typedef struct probe_ctx {
    int src, tag;
    MPI_Comm comm;
    MPI_Status *st;
} probe_ctx;

static int poll_iprobe(void *c, int *done)
{
    probe_ctx *x = c;
    return PMPI_Iprobe(x->src, x->tag, x->comm, done, x->st);
}

int mctk_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    probe_ctx x = {src, tag, comm, st};
    return block_on(poll_iprobe, &x, 1);
}

int mctk_wait(MPI_Request *r, MPI_Status *st)
{
    return complete_one(r, st);
}

int mctk_waitall(int n, MPI_Request *rs, MPI_Status *sts)
{
    req_ctx x = {.n = n, .reqs = rs, .sts = sts};
    return block_on(poll_testall, &x, 1);
}

int mctk_waitany(int n, MPI_Request *rs, int *index, MPI_Status *st)
{
    req_ctx x = {.n = n, .reqs = rs, .sts = st, .index = index};
    return block_on(poll_testany, &x, 1);
}

int mctk_waitsome(int n, MPI_Request *rs, int *outcount, int *indices, MPI_Status *sts)
{
    req_ctx x = {.n = n, .reqs = rs, .sts = sts, .outcount = outcount, .indices = indices};
    return block_on(poll_testsome, &x, 1);
}

/* ------------------------------------------------------------ tests */

static int tested(int rc, int success)
{
    if (success) {
        fails = 0;
    } else if (++fails >= MCTK_SPIN) {
        /* A rank spinning on tests waits for others: let them run. */
        release();
        mctk_acquire();
    }
    return rc;
}

int mctk_tested(int rc, const int *flag)
{
    return tested(rc, rc != MPI_SUCCESS || *flag);
}

int mctk_tested_some(int rc, const int *outcount)
{
    return tested(rc, rc != MPI_SUCCESS || *outcount != 0);
}

/* ------------------------------------------------------------ collectives */

void mctk_gate(MPI_Comm comm)
{
    MPI_Request r;
    if (PMPI_Ibarrier(comm, &r) != MPI_SUCCESS)
        return;
    req_ctx x = {.n = 1, .reqs = &r, .sts = MPI_STATUS_IGNORE};
    block_on(poll_test, &x, 0);
}

/* ------------------------------------------------------------ init / finalize */

/* MPI calls the token protocol does not cover: names or prefixes (ending in
 * '_' or '*') of imports that make token mode refuse the program. */
static const char *const unsupported[] = {
    "MPI_Win_*", "MPI_Put", "MPI_Rput", "MPI_Get", "MPI_Rget", "MPI_Accumulate",
    "MPI_Raccumulate", "MPI_Get_accumulate", "MPI_Rget_accumulate", "MPI_Fetch_and_op",
    "MPI_Compare_and_swap", "MPI_Mprobe", "MPI_Mrecv", "MPI_Improbe", "MPI_Imrecv",
    "MPI_Neighbor_*", "MPI_File_*", "MPI_Comm_spawn*", "MPI_Comm_accept", "MPI_Comm_connect",
    "MPI_Comm_join", "MPI_Intercomm_*", "MPI_Comm_create_group", "MPI_Dist_graph_create",
    "MPI_Buffer_detach", NULL};

/* name, case aside, is u or u followed by a Fortran binding's decoration
 * (mpi_put_, mpi_put__, MPI_PUT, mpi_put_f08_, ompi_put_f). */
static int fortran_same(const char *name, const char *u, size_t n)
{
    if (strncasecmp(name, "ompi_", 5) == 0 && strncasecmp(u, "MPI_", 4) == 0) {
        if (strncasecmp(name + 5, u + 4, n - 4) != 0)
            return 0;
        return strcasecmp(name + 5 + n - 4, "_f") == 0 || strcasecmp(name + 5 + n - 4, "_f08") == 0;
    }
    if (strncasecmp(name, u, n) != 0)
        return 0;
    const char *rest = name + n;
    if (strcasecmp(rest, "_f08_") == 0 || strcasecmp(rest, "_f08") == 0)
        return 1;
    while (*rest == '_')
        rest++;
    return *rest == '\0';
}

static int is_unsupported(const char *name)
{
    for (int i = 0; unsupported[i]; i++) {
        const char *u = unsupported[i];
        size_t n = strlen(u);
        if (u[n - 1] == '*' ? strncasecmp(name, u, n - 1) == 0 ||
                                  (strncasecmp(name, "ompi_", 5) == 0 &&
                                   strncasecmp(name + 5, u + 4, n - 5) == 0)
                            : fortran_same(name, u, n))
            return 1;
    }
    return 0;
}

/* Scans the executable's dynamic symbol names (.dynstr) for unsupported
 * MPI calls; copies the first into found. 0 if none (or unreadable). */
static int scan_imports(char *found, size_t len)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf64_Ehdr eh;
    int hit = 0;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr)) {
        close(fd);
        return 0;
    }
    for (unsigned i = 0; i < eh.e_shnum && !hit; i++) {
        Elf64_Shdr sh, str;
        if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + i * sizeof sh)) != (ssize_t)sizeof sh ||
            sh.sh_type != SHT_DYNSYM || sh.sh_link >= eh.e_shnum ||
            pread(fd, &str, sizeof str, (off_t)(eh.e_shoff + sh.sh_link * sizeof str)) !=
                (ssize_t)sizeof str || str.sh_size > (64u << 20))
            continue;
        char *s = malloc(str.sh_size + 1);
        if (!s)
            break;
        if (pread(fd, s, str.sh_size, (off_t)str.sh_offset) == (ssize_t)str.sh_size) {
            s[str.sh_size] = 0;
            for (size_t off = 0; off < str.sh_size && !hit; off += strlen(s + off) + 1)
                if (is_unsupported(s + off)) {
                    snprintf(found, len, "%s", s + off);
                    hit = 1;
                }
        }
        free(s);
    }
    close(fd);
    return hit;
}

enum { WHY_THREADS = 1, WHY_CALL = 4 };

static void warn_refused(int why, const char *call)
{
    char what[256];
    snprintf(what, sizeof what, "%s",
             why & WHY_CALL      ? "it uses MPI calls token mode does not cover"
                                 : "it runs MPI above MPI_THREAD_FUNNELED");
    fprintf(stderr,
            "mpicast-trace: token mode refused: %s%s%s%s; tracing in cpu mode (wall and CPU times) "
            "(docs/compute-data.md)\n",
            what, call[0] ? " (" : "", call, call[0] ? ")" : "");
}

void mctk_init(int thread_level)
{
    mct_token_mode = 1;
    const char *env = getenv("MPICAST_TOKEN_POLL_US");
    if (env && atol(env) > 0)
        poll_ns = atol(env) * 1000L;
    char call[128] = "";
    int why = (thread_level > MPI_THREAD_FUNNELED ? WHY_THREADS : 0) |
              (scan_imports(call, sizeof call) ? WHY_CALL : 0);
    int all = 0;
    PMPI_Allreduce(&why, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (all) {
        if (mct_world_rank == 0)
            warn_refused(all, call);
        mct_token_mode = 0;
        return;
    }
    if (mct_world_size < 2)
        return; /* one rank: it always holds the token */
    PMPI_Comm_dup(MPI_COMM_WORLD, &tcomm);
    right = (mct_world_rank + 1) % mct_world_size;
    holding = mct_world_rank == 0;
    mct_token_on = 1;
}

/* Absorbs the token once every rank is in MPI_Finalize: the gate is an
 * Ibarrier on the token communicator, forwarding the token while it waits;
 * afterwards nobody forwards, so the token reaches one rank and stays. */
void mctk_finalize(void)
{
    if (!mct_token_on)
        return;
    MPI_Request r;
    PMPI_Ibarrier(tcomm, &r);
    req_ctx x = {.n = 1, .reqs = &r, .sts = MPI_STATUS_IGNORE};
    block_on(poll_test, &x, 0);
    for (int any = 0; !any;) {
        if (!holding && token_arrived())
            holding = 1;
        PMPI_Allreduce(&holding, &any, 1, MPI_INT, MPI_MAX, tcomm);
    }
    if (treq != MPI_REQUEST_NULL) {
        PMPI_Cancel(&treq);
        PMPI_Wait(&treq, MPI_STATUS_IGNORE);
    }
    PMPI_Comm_free(&tcomm);
    mct_token_on = 0;
    if (getenv("MPICAST_TOKEN_STATS"))
        fprintf(stderr, "mpicast-trace: rank %d: token passed %lld times, %.6f s waiting for it\n",
                mct_world_rank, (long long)passes, (double)wait_ns * 1e-9);
}
