/* mpicast — network models behind one interface.
 *
 * A network model prices one point-to-point transfer: how long the sender's
 * CPU and NIC are busy, when the message reaches the receiver, and how long
 * the receiver's CPU and NIC are busy with it. The simulator (src/sim) owns
 * time, queues and MPI semantics; a model only prices. Models are rows of a
 * static registry (name -> ops), so adding one is one file and one row.
 *
 * Times are integer picoseconds (int64_t): exact for every value written in
 * ns, and 2^63 ps is 106 days of simulated time. Durations that come from a
 * per-byte rate are rounded once per transfer ((s-1)*G rounded to the nearest
 * ps), never accumulated per byte, so they cannot drift.
 *
 * Ownership: mc_net_create returns an object freed by mc_net_destroy (NULL is
 * a no-op). The platform must outlive nothing: models copy what they need.
 */
#ifndef MPICAST_NET_H
#define MPICAST_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mpicast/error.h"
#include "mpicast/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Picoseconds per second, for conversions. */
#define MC_PS_PER_S 1000000000000.0

/* The leg of a protocol that one transfer carries. The simulator alone
 * decides it (network.eager_limit, network.rendezvous): a model that derived
 * it again from the size would be a second copy of that rule, free to
 * disagree with the first. A model prices by the leg: what a rendezvous
 * costs beyond its messages (loggp's rendezvous_overhead), or how a measured
 * one-way time is split between the legs (table). */
typedef enum mc_net_leg {
    /* an eager message, or a synchronous one at or below the eager limit */
    MC_NET_LEG_EAGER,
    /* a rendezvous message without handshake (network.rendezvous = loggops,
     * LogGOPSim's): the data leaves at once, the send completes at the match */
    MC_NET_LEG_RDV,
    /* network.rendezvous = handshake: the empty request-to-send, sender ->
     * receiver; then the empty reply, receiver -> sender; then the data */
    MC_NET_LEG_HS_REQUEST,
    MC_NET_LEG_HS_REPLY,
    MC_NET_LEG_HS_DATA,
} mc_net_leg;

/* The price of one transfer of `bytes` started at t (sender CPU and NIC free).
 * All durations are relative: to t for the send side and the arrival, to the
 * start of the receiver's processing for the receive side. */
typedef struct mc_net_cost {
    int64_t send_cpu; /* sender CPU busy for this long (LogGP: o) */
    int64_t send_nic; /* sender NIC busy for this long (g + (s-1)G) */
    int64_t arrive;   /* message reaches the receiver this long after t (o + L) */
    int64_t recv_cpu; /* receiver CPU busy processing it (o + (s-1)G) */
    int64_t recv_nic; /* receiver NIC busy (g + (s-1)G) */
} mc_net_cost;

typedef struct mc_net mc_net;

/* Flow models (topo): a transfer's data is a flow whose completion moves
 * when other flows start or end, so its arrival is not known when it is
 * priced. The engine installs these hooks once after create; the model
 * calls them from start_flow and advance only. */
typedef struct mc_net_hooks {
    void *ctx;
    /* Call advance(t_ps) at simulated time t_ps (>= now). Spurious or
     * repeated wakes are allowed: advance ignores what is not due. */
    void (*wake)(void *ctx, int64_t t_ps);
    /* The flow started with `cookie` is delivered: its message reaches the
     * receiver at t_ps (>= now). */
    void (*arrive)(void *ctx, int64_t cookie, int64_t t_ps);
    /* Call advance(now) once every event of the current instant is done,
     * before simulated time moves on (several calls in one instant make one
     * advance): what starts in one instant can be rated together without a
     * queued wake per instant. */
    void (*flush)(void *ctx);
} mc_net_hooks;

/* Statistics of one link of a flow model, for reports. */
typedef struct mc_net_link_stat {
    char name[48];      /* "node3>", "r(1,2)+x", "leaf0^1", ... (docs/platform.md) */
    double bandwidth;   /* B/s (inf possible) */
    double bytes;       /* bytes of every flow that crossed it */
    double busy;        /* s during which at least one flow crossed it */
    int32_t peak_flows; /* largest number of concurrent flows */
} mc_net_link_stat;

/* The optional flow interface of a model. */
typedef struct mc_net_flow_ops {
    void (*set_hooks)(mc_net *n, const mc_net_hooks *h);
    /* Starts the data of a transfer priced by `transfer` at t_ps. Returns 1
     * when the arrival is known now (*arrive_ps, absolute), 0 when the model
     * will call hooks.arrive(cookie, t) later. */
    int (*start_flow)(mc_net *n, int64_t t_ps, int src, int dst, int64_t bytes, int64_t cookie,
                      int64_t *arrive_ps);
    /* Completes every flow whose data is through by t_ps (called on wake). */
    void (*advance)(mc_net *n, int64_t t_ps);
    /* Up to `max` links that carried traffic, busiest first, into out (may be
     * NULL with max 0); returns how many links carried traffic. */
    size_t (*link_stats)(const mc_net *n, mc_net_link_stat *out, size_t max);
} mc_net_flow_ops;

typedef struct mc_net_ops {
    const char *name;    /* "loggp", "free" */
    const char *summary; /* one line for --help and docs */
    /* Builds the model from the platform keys for nranks ranks. */
    mc_net *(*create)(const mc_platform *p, int nranks, mc_error *err);
    /* Prices leg `leg` of a message src -> dst (world ranks): `bytes` on the
     * wire (0 for the handshake's request and reply), started at t_ps. */
    void (*transfer)(mc_net *n, int64_t t_ps, int src, int dst, int64_t bytes, mc_net_leg leg,
                     mc_net_cost *out);
    void (*destroy)(mc_net *n);
    /* Flow interface, or NULL in pure pricing models (loggp): the engine then
     * uses `transfer`'s arrive and nothing else. */
    const struct mc_net_flow_ops *flow;
    unsigned caps;       /* MC_NET_CAP_* the model declares (0: none) */
    /* Platform keys only this model reads (NULL-terminated, or NULL): a key
     * set while another model is chosen is named as ignored. */
    const char *const *keys;
    /* Optional: checks the values of this model's keys that are set (names
     * it owns, such as topologies), whichever model is chosen, so a typo is
     * found when the platform loads; "network.topology: unknown value ...". */
    mc_err (*check)(const mc_platform *p, mc_error *err);
} mc_net_ops;

/* Capabilities a model declares, so that the simulator asks for a property
 * rather than a model's name. */
enum {
    /* Every transfer costs nothing (no latency, overhead, gap, infinite
     * bandwidth): the simulator may complete a collective's schedule at once. */
    MC_NET_CAP_ZERO_COST = 1u << 0,
};

/* Every model object starts with this header. */
struct mc_net {
    const mc_net_ops *ops;
};

/* Registry: the model called `name`, or NULL. */
const mc_net_ops *mc_net_find(const char *name);
/* Registry rows for listings: model i or NULL past the end. */
const mc_net_ops *mc_net_at(int i);

/* Creates model `name` (NULL: the platform's network.model). Unknown names
 * fail with MC_ERR_PLATFORM listing the known models. */
mc_net *mc_net_create(const char *name, const mc_platform *p, int nranks, mc_error *err);
static inline void mc_net_transfer(mc_net *n, int64_t t_ps, int src, int dst, int64_t bytes,
                                   mc_net_leg leg, mc_net_cost *out)
{
    n->ops->transfer(n, t_ps, src, dst, bytes, leg, out);
}
void mc_net_destroy(mc_net *n);
/* Link statistics of a flow model after (or during) a replay; 0 for models
 * without links. See mc_net_flow_ops.link_stats. */
static inline size_t mc_net_link_stats(const mc_net *n, mc_net_link_stat *out, size_t max)
{
    return n && n->ops->flow && n->ops->flow->link_stats ? n->ops->flow->link_stats(n, out, max)
                                                         : 0;
}

/* Checks the values the network models own, after a platform is loaded and
 * before anything is replayed: network.model names a model of the registry,
 * and every model's check op accepts its keys. The error names where the
 * value came from ("cluster.ini:3: network.model: unknown value 'logpg'
 * (expected one of loggp, free, topo, table; did you mean loggp?)"). */
mc_err mc_net_check(const mc_platform *p, mc_error *err);

/* Keys that only some network models read (the topo model's shape, links,
 * mapping and sharing), set in the platform (file or --set) while its
 * network.model is one that ignores them: they change nothing, which a user
 * varying them would not guess. Writes "network.topology, network.dims" (a
 * comma-separated list) into buf and the models that read them into
 * models ("topo"); returns how many keys. */
int mc_net_ignored_keys(const mc_platform *p, char *buf, size_t len, char *models,
                        size_t mlen);
/* Prints "mpicast: warning: network.topology is ignored by network.model =
 * loggp (only topo reads it)" on `out` when mc_net_ignored_keys finds keys,
 * unless that line equals `seen` (the last one printed: a sweep's points
 * repeat it), which then gets the line; seen may be NULL. Returns how many
 * keys are ignored. */
int mc_net_warn_ignored(const mc_platform *p, FILE *out, char *seen, size_t seen_len);

/* Measured time (ps) of one collective `op` (lowercase name as in the
 * collectives.<op> keys: "allreduce") over comm_size ranks with `bytes` as
 * passed to MPI (count x type size), if the model has a measured table for
 * it (the table model, docs/platform.md); -1: none, expand the collective
 * into point-to-point messages as usual. */
int64_t mc_net_coll_time(mc_net *n, const char *op, int comm_size, int64_t bytes);

/* Seconds (double, may be +inf for "never") to picoseconds, rounded. */
int64_t mc_net_s_to_ps(double seconds);

#ifdef __cplusplus
}
#endif
#endif
