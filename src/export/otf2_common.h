/* Internal to src/export: the OTF2 pieces shared by the exporter, the
 * simulated-timeline converter and the importer. */
#ifndef MPICAST_EXPORT_OTF2_COMMON_H
#define MPICAST_EXPORT_OTF2_COMMON_H

#include <otf2/otf2.h>

#include "export_internal.h"

/* An archive being written: definitions are collected while events are
 * written and emitted once at the end (global definitions, plus an empty
 * local definition file per location as Score-P's unified archives have). */
typedef struct ow_comm {
    uint64_t id;          /* mpicast communicator id */
    int32_t *members;     /* world ranks in comm-rank order (owned) */
    int32_t size;
} ow_comm;

typedef struct otf2w {
    OTF2_Archive *ar;
    const char *dir;
    int nlocs;
    uint64_t *nevents;    /* per location */
    char **strings;
    size_t nstrings, cap_strings;
    struct { uint32_t name; int role, paradigm; } *regions;
    size_t nregions, cap_regions;
    ow_comm *comms;
    size_t ncomms, cap_comms;
    uint64_t offset;      /* ns added to every time (OTF2 times are unsigned) */
    uint64_t tmax;        /* largest timestamp written */
    int call_attr;        /* the attribute OW_CALL_ATTR was used: defined as ref 0 */
} otf2w;

/* The string attribute on the Leave of a communicator call that keeps what
 * OTF2 has no record for: "peer tag bytes peer2 tag2 bytes2 nvals v0 v1 ..."
 * of the mpicast event (colour and key of Comm_split, the members and the
 * Cartesian shape), after "comm=REF " (the OTF2 ref of the communicator the
 * call is on). The new communicator itself is a CommCreate event, the one
 * Comm_free frees a CommDestroy event. */
#define OW_CALL_ATTR "mpicast::comm_call"


/* Opens DIR as a new archive "traces" for nlocs locations. */
mc_err ow_open(otf2w *w, const char *dir, int nlocs, uint64_t offset, mc_error *err);
uint32_t ow_string(otf2w *w, const char *s);        /* UINT32_MAX: out of memory */
uint32_t ow_region(otf2w *w, const char *name, int role, int paradigm);
/* The attribute ref of OW_CALL_ATTR (defined at close once used). */
uint32_t ow_call_attr(otf2w *w);
/* Adds a communicator (members copied); returns its OTF2 ref or UINT32_MAX. */
uint32_t ow_comm_add(otf2w *w, uint64_t id, const int32_t *members, int32_t size);
/* OTF2 timestamp of a time in ns. */
static inline uint64_t ow_ts(otf2w *w, int64_t ns)
{
    uint64_t t = (uint64_t)(ns + (int64_t)w->offset);
    if (t > w->tmax)
        w->tmax = t;
    return t;
}
/* Writes the definitions and closes the archive (also on error: pass fail=1). */
mc_err ow_close(otf2w *w, int fail, mc_error *err);

/* Stops the OTF2 library printing its errors on stderr (library code never
 * prints): failures still come back as return codes, which we report. */
void ow_quiet(void);

/* mpicast op <-> OTF2 collective op; -1 / OTF2_UNDEFINED_TYPE when none. */
int ow_coll_op(int op);

#endif
