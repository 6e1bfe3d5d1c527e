/* Internal to src/export: a trace streamed rank by rank, live requests,
 * and small helpers shared by the exporters. */
#ifndef MPICAST_EXPORT_INTERNAL_H
#define MPICAST_EXPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "mpicast/export.h"
#include "mpicast/format.h"

#ifndef MPICAST_EXPORT_INTERNAL
#error "export_internal.h is internal to src/export"
#endif

/* A trace streamed rank by rank (stream.c): the exporters that write per
 * rank (OTF2, TIT) read with it in memory bounded by one rank's live
 * requests. lt_stream_open reads the first event of every rank (so the
 * earliest time, lt_stream_tmin (<= 0), is known before anything is
 * written); lt_stream_next gives rank r's events in order (1, 0 at its end,
 * -1 with err), each valid until the next call. */
typedef struct lt_stream lt_stream;

/* Counts a folded run of failed polls (mc_event.folded): no export format
 * has a call count, so the run is written as one call and the CLI says how
 * many calls that hides. */
static inline void lt_note_folded(mc_export_info *info, const mc_event *e)
{
    if (e->folded) {
        info->folded_runs++;
        info->folded_calls += mc_event_calls(e);
    }
}
lt_stream *lt_stream_open(const char *path, mc_error *err);
int lt_stream_nranks(const lt_stream *s);
const mc_meta *lt_stream_meta(const lt_stream *s); /* NULL without meta.json */
int64_t lt_stream_tmin(const lt_stream *s);
int64_t lt_stream_tfirst(const lt_stream *s); /* earliest first event, INT64_MAX if none */
uint64_t lt_stream_events(const lt_stream *s);    /* delivered so far */
int lt_stream_next(lt_stream *s, int r, mc_event *e, mc_error *err);
void lt_stream_close(lt_stream *s);

/* A rank's live requests while streaming: what the event that created each
 * one said (lt_find_req's answer without holding the events). */
typedef struct lt_reqdef {
    uint32_t req;
    int op;
    int32_t peer, tag;
    int64_t bytes;
    uint64_t comm;
    int64_t seq;   /* free for the caller (chrome: the receive's match order) */
} lt_reqdef;
typedef struct lt_reqmap lt_reqmap;
lt_reqmap *lt_reqmap_create(void);
void lt_reqmap_destroy(lt_reqmap *m);
void lt_reqmap_clear(lt_reqmap *m);
int lt_reqmap_put(lt_reqmap *m, const mc_event *e); /* -1: out of memory */
const lt_reqdef *lt_reqmap_get(const lt_reqmap *m, uint32_t id);
lt_reqdef *lt_reqmap_get_mut(lt_reqmap *m, uint32_t id);
void lt_reqmap_del(lt_reqmap *m, uint32_t id);
/* Applies e after it was written: creating events define their id,
 * completions end non-persistent requests, Request_free any. -1: no memory. */
int lt_reqmap_track(lt_reqmap *m, const mc_event *e);
int lt_reqdef_persistent(const lt_reqdef *d);

/* True when op sends a message (blocking/nonblocking, Sendrecv). */
int lt_is_send(int op);

/* Calls fn for every complete ("X") slice of a Chrome timeline (the
 * simulator's, read from the start of `in`); a non-zero return from fn stops
 * and is returned. -1 with err filled when the file is not JSON. */
/* The report's simulated timeline (tl_view.c): rows ranks (the first ones),
 * window [w0, w1] in ps (w1 <= w0: the whole run). Feed it with
 * tl_view_slice as the replay's mc_sim_slice_fn; render once the replay has
 * ended (end_ps: the predicted time). Exact slices while at most 20,000 fall
 * in the window, shares per column beyond (said in the figure's note). */
typedef struct tl_view tl_view;
tl_view *tl_view_create(int rows, int64_t w0_ps, int64_t w1_ps);
void tl_view_slice(void *ctx, int rank, const char *name, const char *cat, int64_t t0, int64_t t1);
void tl_view_render(const tl_view *v, FILE *out, int nranks, int64_t end_ps);
void tl_view_destroy(tl_view *v);

typedef int (*tl_slice_fn)(void *ctx, const char *name, const char *cat, int tid, double ts,
                           double dur);
int tl_each_slice(FILE *in, tl_slice_fn fn, void *ctx, mc_error *err);

/* Wall-clock seconds (monotonic). */
double mc_now(void);

/* Creates directory path (one level); ok when it exists. */
mc_err mc_mkdir(const char *path, mc_error *err);

#endif
