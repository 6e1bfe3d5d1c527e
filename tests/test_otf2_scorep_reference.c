/* A reference OTF2 archive written with the OTF2 writer API the way Score-P
 * writes an MPI run (global definitions with the MPI comm-locations group,
 * COMM_GROUP groups of ranks, communicator definitions; per location a
 * local definition file; a user region around everything; MpiSend/MpiRecv,
 * MpiIsend/MpiIsendComplete, MpiIrecvRequest/MpiIrecv, MpiCollectiveBegin/
 * End; a second (OpenMP-like) thread location on rank 0; a µs timer with a
 * global offset) is imported, and the test checks the events, counts,
 * peers, tags, sizes, communicators and compute bursts that come out. */
#include <dirent.h>
#include <sys/stat.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/export.h"
#include "mpicast/format.h"
#include "mpicast/input.h"

enum { NR = 3 };
enum { R_MAIN, R_INIT, R_FIN, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_ALLRED, R_BCAST, R_KERNEL,
       R_OMP, NREG };
static const char *const reg_names[NREG] = {"main", "MPI_Init", "MPI_Finalize", "MPI_Send",
                                            "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
                                            "MPI_Allreduce", "MPI_Bcast", "compute_kernel",
                                            "!$omp parallel"};
static const uint64_t OFFSET = 1000; /* ticks */

static OTF2_FlushType pre(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u; (void)t; (void)l; (void)c; (void)f;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u; (void)t; (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre, .otf2_post_flush = post};

/* Time in µs ticks since the offset. */
static uint64_t T(uint64_t us) { return OFFSET + us; }

static void mpi(OTF2_EvtWriter *w, int reg, uint64_t t0, uint64_t t1)
{
    CHECK(OTF2_EvtWriter_Enter(w, NULL, T(t0), (OTF2_RegionRef)reg) == OTF2_SUCCESS);
    (void)t1;
}
static void leave(OTF2_EvtWriter *w, int reg, uint64_t t1)
{
    CHECK(OTF2_EvtWriter_Leave(w, NULL, T(t1), (OTF2_RegionRef)reg) == OTF2_SUCCESS);
}

static void rank_events(OTF2_EvtWriter *w, int r)
{
    OTF2_EvtWriter_Enter(w, NULL, T(0), R_MAIN);
    mpi(w, R_INIT, 1, 0);
    leave(w, R_INIT, 10);
    if (r == 0) { /* 20 us of compute, then a send */
        mpi(w, R_SEND, 30, 0);
        OTF2_EvtWriter_MpiSend(w, NULL, T(30), 1, 0, 5, 800);
        leave(w, R_SEND, 35);
    } else if (r == 1) {
        mpi(w, R_RECV, 12, 0);
        OTF2_EvtWriter_MpiRecv(w, NULL, T(36), 0, 0, 5, 800);
        leave(w, R_RECV, 36);
        mpi(w, R_ISEND, 40, 0);
        OTF2_EvtWriter_MpiIsend(w, NULL, T(40), 2, 0, 9, 64, 77);
        leave(w, R_ISEND, 41);
        mpi(w, R_WAIT, 50, 0);
        OTF2_EvtWriter_MpiIsendComplete(w, NULL, T(51), 77);
        leave(w, R_WAIT, 51);
    } else {
        mpi(w, R_IRECV, 15, 0);
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, T(15), 5);
        leave(w, R_IRECV, 16);
        /* an instrumented user function between MPI calls: compute */
        OTF2_EvtWriter_Enter(w, NULL, T(20), R_KERNEL);
        OTF2_EvtWriter_Leave(w, NULL, T(45), R_KERNEL);
        mpi(w, R_WAIT, 46, 0);
        OTF2_EvtWriter_MpiIrecv(w, NULL, T(47), 1, 0, 9, 64, 5);
        leave(w, R_WAIT, 47);
    }
    mpi(w, R_ALLRED, 60, 0);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, T(60));
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, T(70), OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_UNDEFINED_UINT32, 3 * 8, 3 * 8);
    leave(w, R_ALLRED, 70);
    if (r != 1) { /* Bcast on {0, 2} rooted at world rank 2 = comm rank 1 */
        mpi(w, R_BCAST, 80, 0);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, T(80));
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, T(90), OTF2_COLLECTIVE_OP_BCAST, 1, 1,
                                        r == 2 ? 2 * 100 : 0, 100);
        leave(w, R_BCAST, 90);
    }
    mpi(w, R_FIN, 100, 0);
    leave(w, R_FIN, 110);
    OTF2_EvtWriter_Leave(w, NULL, T(111), R_MAIN);
}

static void write_archive(const char *dir)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    CHECK(a != NULL);
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t nev[NR + 1];
    for (int r = 0; r < NR; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, (uint64_t)r);
        rank_events(w, r);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    /* rank 0's second thread: an OpenMP region, no MPI */
    uint64_t thr = (1ull << 32) | 0;
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, thr);
    OTF2_EvtWriter_Enter(w, NULL, T(20), R_OMP);
    OTF2_EvtWriter_Leave(w, NULL, T(25), R_OMP);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[NR]);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (int r = 0; r <= NR; r++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(a, r < NR ? (uint64_t)r : thr);
        OTF2_Archive_CloseDefWriter(a, d);
    }
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    uint32_t s = 0;
    /* strings: region names, then the others */
    for (int i = 0; i < NREG; i++)
        OTF2_GlobalDefWriter_WriteString(g, s++, reg_names[i]);
    uint32_t s_empty = s++, s_node = s++, s_rank = s++, s_thread = s++, s_world = s++, s_sub = s++;
    OTF2_GlobalDefWriter_WriteString(g, s_empty, "");
    OTF2_GlobalDefWriter_WriteString(g, s_node, "node");
    OTF2_GlobalDefWriter_WriteString(g, s_rank, "MPI Rank");
    OTF2_GlobalDefWriter_WriteString(g, s_thread, "Master thread");
    OTF2_GlobalDefWriter_WriteString(g, s_world, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, s_sub, "MPI_COMM_SPLIT");
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000, OFFSET, 111, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_node, s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < NR; r++)
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, s_rank, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                0, OTF2_UNDEFINED_LOCATION_GROUP);
    for (int r = 0; r < NR; r++)
        OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           nev[r], (uint32_t)r);
    OTF2_GlobalDefWriter_WriteLocation(g, thr, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD, nev[NR], 0);
    for (int i = 0; i < NREG; i++) {
        int is_mpi = strncmp(reg_names[i], "MPI_", 4) == 0;
        OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, (uint32_t)i, (uint32_t)i, s_empty,
                                         is_mpi ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_FUNCTION,
                                         is_mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                         OTF2_REGION_FLAG_NONE, s_empty, 0, 0);
    }
    uint64_t locs[NR] = {0, 1, 2}, world[NR] = {0, 1, 2}, sub[2] = {0, 2};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NR, locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NR, world);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, sub);
    OTF2_GlobalDefWriter_WriteComm(g, 0, s_world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, 1, s_sub, 2, 0, OTF2_COMM_FLAG_NONE);
    CHECK(OTF2_Archive_Close(a) == OTF2_SUCCESS);
}

typedef struct want {
    int op, peer, tag;
    int64_t bytes;
    uint64_t comm;
    int64_t start, end, burst; /* ns */
} want;

#define SUB ((1ull << 32) | 0)
static const want rank0[] = {
    {MC_OP_INIT, -1, -1, 0, 0, 1000, 10000, 0},
    {MC_OP_SEND, 1, 5, 800, 0, 30000, 35000, 20000},
    {MC_OP_ALLREDUCE, -1, -1, 8, 0, 60000, 70000, 25000},
    {MC_OP_BCAST, 2, -1, 100, SUB, 80000, 90000, 10000},
    {MC_OP_FINALIZE, -1, -1, 0, 0, 100000, 110000, 10000},
};
static const want rank1[] = {
    {MC_OP_INIT, -1, -1, 0, 0, 1000, 10000, 0},
    {MC_OP_RECV, 0, 5, 800, 0, 12000, 36000, 2000},
    {MC_OP_ISEND, 2, 9, 64, 0, 40000, 41000, 4000},
    {MC_OP_WAIT, -1, -1, 0, 0, 50000, 51000, 9000},
    {MC_OP_ALLREDUCE, -1, -1, 8, 0, 60000, 70000, 9000},
    {MC_OP_FINALIZE, -1, -1, 0, 0, 100000, 110000, 30000},
};
static const want rank2[] = {
    {MC_OP_INIT, -1, -1, 0, 0, 1000, 10000, 0},
    {MC_OP_IRECV, 1, 9, 64, 0, 15000, 16000, 5000},
    {MC_OP_WAIT, -1, -1, 0, 0, 46000, 47000, 30000}, /* compute_kernel is compute */
    {MC_OP_ALLREDUCE, -1, -1, 8, 0, 60000, 70000, 13000},
    {MC_OP_BCAST, 2, -1, 100, SUB, 80000, 90000, 10000},
    {MC_OP_FINALIZE, -1, -1, 0, 0, 100000, 110000, 10000},
};

static void check_rank(mc_source *src, int r, const want *w, size_t n)
{
    mc_event e;
    mc_error err = {0};
    for (size_t i = 0; i < n; i++) {
        CHECK(mc_source_next(src, r, &e, &err) == 1);
        CHECK_EQ_INT(e.op, w[i].op);
        CHECK_EQ_INT(e.peer, w[i].peer);
        if (mc_op_kind_of(e.op) == MC_KIND_P)
            CHECK_EQ_INT(e.tag, w[i].tag);
        CHECK_EQ_INT(e.bytes, w[i].bytes);
        CHECK(e.comm == w[i].comm);
        CHECK_EQ_INT(e.t_start, w[i].start);
        CHECK_EQ_INT(e.t_end, w[i].end);
        CHECK_EQ_INT(e.burst, w[i].burst);
        if (e.op == MC_OP_WAIT) { /* completion vals: request, source, tag, bytes */
            CHECK_EQ_INT(e.nvals, 4);
            CHECK_EQ_INT(e.vals[1], r == 1 ? MC_NONE : 1);
            CHECK_EQ_INT(e.vals[3], r == 1 ? 0 : 64);
        }
        if (e.op == MC_OP_ALLREDUCE || e.op == MC_OP_BCAST)
            CHECK_EQ_INT(e.peer2, e.op == MC_OP_BCAST ? 2 : 3);
    }
    CHECK(mc_source_next(src, r, &e, &err) == 0);
}

/* Entries in dir (not . and ..). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Opening an archive while a source of it is open reuses its import (one
 * temporary directory, no second fork), so callers can open it once before
 * starting threads; the last close removes the import. */
static void check_import_shared(const char *anchor, const char *dir)
{
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    CHECK(mkdir(tmp, 0700) == 0);
    CHECK(setenv("TMPDIR", tmp, 1) == 0);
    CHECK(mc_import_register_inputs() == MC_OK);
    mc_error err = {0};
    mc_source *a = mc_input_open(anchor, &err);
    CHECK(a != NULL);
    CHECK_EQ_INT(entries(tmp), 1);
    mc_source *b = mc_input_open(anchor, &err);
    CHECK(b != NULL);
    CHECK_EQ_INT(entries(tmp), 1);
    CHECK_EQ_STR(b->name, anchor);
    mc_source_close(a);
    CHECK_EQ_INT(entries(tmp), 1);
    check_rank(b, 0, rank0, sizeof rank0 / sizeof rank0[0]);
    mc_source_close(b);
    CHECK_EQ_INT(entries(tmp), 0);
    a = mc_input_open(anchor, &err); /* imported anew */
    CHECK(a != NULL);
    check_rank(a, 1, rank1, sizeof rank1 / sizeof rank1[0]);
    mc_source_close(a);
    CHECK_EQ_INT(entries(tmp), 0);
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/mc_otf2ref_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char arch[256], out[256];
    snprintf(arch, sizeof arch, "%s/scorep", dir);
    snprintf(out, sizeof out, "%s/imported", dir);
    write_archive(arch);
    CHECK(mc_otf2_is_archive(arch));
    mc_error err = {0};
    mc_export_info info;
    char anchor[300];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", arch);
    if (argc > 1 && strcmp(argv[1], "shared") == 0) {
        check_import_shared(anchor, dir);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
        return 0;
    }
    CHECK(mc_import_otf2(anchor, out, &info, NULL, &err) == MC_OK);
    CHECK_EQ_INT(info.events, 17);
    mc_source *src = mc_trace_open(out, &err);
    CHECK(src != NULL);
    CHECK_EQ_INT(src->nranks, 3); /* the thread location is not a rank */
    check_rank(src, 0, rank0, sizeof rank0 / sizeof rank0[0]);
    check_rank(src, 1, rank1, sizeof rank1 / sizeof rank1[0]);
    check_rank(src, 2, rank2, sizeof rank2 / sizeof rank2[0]);
    const mc_meta *m = mc_trace_meta(src);
    CHECK(m != NULL);
    const mc_meta_comm *c = mc_meta_comm_find(m, SUB);
    CHECK(c != NULL);
    CHECK_EQ_INT(c->size, 2);
    CHECK_EQ_INT(c->members[1], 2);
    mc_source_close(src);
    /* a directory that is not an archive */
    CHECK(!mc_otf2_is_archive(out));
    CHECK(mc_import_otf2(out, dir, NULL, NULL, &err) == MC_ERR_IO);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
