/* Platform description: the table of known keys, INI loading with inih,
 * --set overrides and writing (docs/platform.md, include/mpicast/platform.h).
 *
 * Every key is a row of one static table (name, unit, default, checks,
 * help); the platform object is just one value slot per row, so adding a key
 * is adding a row. */
#include "mpicast/platform.h"
#include "mpicast/outfile.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/* Checks applied to a numeric value (a key may combine several). */
enum {
    K_NONNEG = 1u << 0, /* >= 0 */
    K_POS = 1u << 1,    /* > 0 */
    K_INF = 1u << 2,    /* inf allowed */
    K_INT = 1u << 3,    /* an integer */
    K_DIMS = 1u << 4    /* string: "" or NxNx... */
};

typedef struct key_def {
    const char *name;
    mc_unit unit;
    const char *def;      /* default as text; NULL: same as `fallback` */
    unsigned checks;
    const char *choices;  /* strings: allowed values separated by '|', or NULL */
    const char *fallback; /* key whose value an unset key takes, or NULL */
    const char *help;
} key_def;

#define COLL(op) {"collectives." op, MC_UNIT_STRING, "auto", 0, NULL, NULL, \
                  "algorithm of MPI_" op " in the simulator, or auto (validated by the simulator)"}

/* The four keys of one cache level of the processor model. */
#define CACHE(lv, size, sizechk, ways, lat, what) \
    {"cpu." lv ".size", MC_UNIT_BYTES, size, sizechk, NULL, NULL, "--profile: " what ": capacity"}, \
    {"cpu." lv ".line", MC_UNIT_BYTES, "64B", K_POS | K_INT, NULL, NULL, \
     "--profile: " what ": line size (the profile must have reuse distances for it)"}, \
    {"cpu." lv ".assoc", MC_UNIT_NONE, ways, K_NONNEG | K_INT, NULL, NULL, \
     "--profile: " what ": ways (0: fully associative)"}, \
    {"cpu." lv ".latency", MC_UNIT_TIME, lat, K_NONNEG, NULL, NULL, \
     "--profile: " what ": load-to-use latency of a hit"}

static const key_def keys[] = {
    {"cpu.speed", MC_UNIT_NONE, "1", K_POS | K_INF, NULL, NULL,
     "speed of the target processor relative to the traced one (2 = compute bursts take half as long)"},
    {"cpu.flops", MC_UNIT_NONE, "1e9", K_POS | K_INF, NULL, NULL,
     "flop/s of the target processor, for compute amounts given in flops (time-independent traces)"},
    {"cpu.reduce_cost", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "CPU time per byte of reduction operands combined by a collective (reduce, allreduce, reduce_scatter, scan)"},
    /* The network registry (src/net) owns the model names and the topo model
     * its topology names: mc_net_check checks both, naming FILE:LINE. */
    {"network.model", MC_UNIT_STRING, "loggp", 0, NULL, NULL,
     "network model, by name (docs/platform.md; free: zero cost, the reference network)"},
    {"network.latency", MC_UNIT_TIME, "0.5us", K_NONNEG, NULL, NULL,
     "L: wire time of a message between two nodes"},
    {"network.overhead", MC_UNIT_TIME, "0.2us", K_NONNEG, NULL, NULL,
     "o: CPU time per message at each end (LogGP o, the mu0 of the INSPIRE study)"},
    {"network.gap", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "g: minimum time between two message injections at one NIC"},
    {"network.bandwidth", MC_UNIT_BANDWIDTH, "5GB/s", K_POS | K_INF, NULL, NULL,
     "1/G: bandwidth of one transfer between two nodes"},
    {"network.eager_limit", MC_UNIT_BYTES, "64KiB", K_NONNEG | K_INF, NULL, NULL,
     "largest message sent eagerly; larger ones use rendezvous"},
    {"network.topology", MC_UNIT_STRING, "crossbar", 0, NULL, NULL,
     "shape of the network for the topo model"},
    {"network.dims", MC_UNIT_STRING, "", K_DIMS, NULL, NULL,
     "dimensions of the topology, e.g. 4x4x4 (empty: derived from the number of nodes)"},
    {"network.link_bandwidth", MC_UNIT_BANDWIDTH, NULL, K_POS | K_INF, NULL, "network.bandwidth",
     "bandwidth of one link of the topology (unset: network.bandwidth)"},
    {"network.hop_latency", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "latency added per switch or router hop in the topology"},
    {"network.ranks_per_node", MC_UNIT_NONE, "1", K_POS | K_INT, NULL, NULL,
     "ranks per node, block mapping (ranks 0..n-1 on node 0, ...); 1: every rank its own node"},
    /* topo model (issue 5; docs/platform.md "The topo model") */
    {"network.taper", MC_UNIT_NONE, "1", K_POS, NULL, NULL,
     "fattree: leaf switches keep k/taper of their k up ports (2 = a 2:1 tapered tree)"},
    {"network.arity", MC_UNIT_NONE, "16", K_POS | K_INT, NULL, NULL,
     "fattree: k of the k-ary n-tree; switches: nodes per leaf switch"},
    {"network.nic_bandwidth", MC_UNIT_BANDWIDTH, NULL, K_POS | K_INF, NULL, "network.link_bandwidth",
     "topo: bandwidth of each node's injection and ejection link (unset: network.link_bandwidth)"},
    {"network.uplink_bandwidth", MC_UNIT_BANDWIDTH, NULL, K_POS | K_INF, NULL, "network.link_bandwidth",
     "switches: bandwidth of each leaf switch's link to the top switch (unset: network.link_bandwidth)"},
    {"network.mapping", MC_UNIT_STRING, "block", 0, "block|round-robin|file", NULL,
     "topo: rank to node mapping: block, round-robin, or file (network.mapping_file)"},
    {"network.mapping_file", MC_UNIT_STRING, "", 0, NULL, NULL,
     "topo: file with the node of each rank, one whole number per line in rank order"},
    {"network.routing", MC_UNIT_STRING, "deterministic", 0, "deterministic|ecmp", NULL,
     "topo: deterministic routes, or ecmp (fattree: up port chosen per message by a hash)"},
    {"network.sharing", MC_UNIT_STRING, "route", 0, "local|route|bottleneck|exact", NULL,
     "topo: a start or end re-rates those flows it can move, on its route (route), all on its "
     "links (local: slower), those it bottlenecks (bottleneck), or all (exact, slow)"},
    {"intranode.latency", MC_UNIT_TIME, "0.5us", K_NONNEG, NULL, NULL,
     "L between two ranks of the same node"},
    {"intranode.overhead", MC_UNIT_TIME, "0.2us", K_NONNEG, NULL, NULL,
     "o between two ranks of the same node"},
    {"intranode.gap", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "g between two ranks of the same node"},
    {"intranode.bandwidth", MC_UNIT_BANDWIDTH, "5GB/s", K_POS | K_INF, NULL, NULL,
     "1/G between two ranks of the same node"},
    COLL("barrier"), COLL("bcast"), COLL("reduce"), COLL("allreduce"), COLL("gather"),
    COLL("scatter"), COLL("allgather"), COLL("alltoall"), COLL("alltoallv"), COLL("allgatherv"),
    COLL("gatherv"), COLL("scatterv"), COLL("reduce_scatter"), COLL("scan"), COLL("exscan"),
    COLL("alltoallw"), COLL("reduce_scatter_block"),
    /* issue 3, accuracy: rendezvous protocol and communicator management
     * (docs/platform.md "Rendezvous protocols", "Communicator management") */
    {"network.rendezvous", MC_UNIT_STRING, "loggops", 0, "loggops|handshake", NULL,
     "protocol of messages above the eager limit: loggops (LogGOPSim: no handshake) or handshake (request, reply, data)"},
    {"network.rendezvous_overhead", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "extra receiver CPU time per rendezvous message (loggp: buffer registration, single-copy setup)"},
    {"intranode.rendezvous_overhead", MC_UNIT_TIME, "0", K_NONNEG, NULL, NULL,
     "network.rendezvous_overhead between two ranks of the same node"},
    {"cpu.comm_setup", MC_UNIT_STRING, "model", 0, "model|recorded|free", NULL,
     "communicator management calls (Comm_split, Cart_create, ...): cpu.comm_setup_local and their collective on the network (model), their recorded duration (/ cpu.speed) as MPI time, or free"},
    /* issue 21: communicator management priced by the model, polling loops
     * (docs/platform.md "Communicator management", "Polling") */
    {"cpu.comm_setup_local", MC_UNIT_TIME, "1us", K_NONNEG, NULL, NULL,
     "cpu.comm_setup = model: CPU time of the library's local work per communicator management call"},
    {"cpu.polling", MC_UNIT_STRING, "wait", 0, "wait|recorded", NULL,
     "a run of failed Test*/Iprobe calls ending in success: a wait priced by the network (wait), or each call's recorded duration (recorded)"},
    {"cpu.poll_gap", MC_UNIT_TIME, "2us", K_NONNEG | K_INF, NULL, NULL,
     "cpu.polling = wait: a burst between two polls shorter than this is the polling loop's own code (dropped); a longer one is work"},
    /* issue 23: the processor model of CPU profiles (src/cpu; docs/platform.md
     * "The processor model"). Used only by --profile. */
    {"cpu.frequency", MC_UNIT_FREQUENCY, "2GHz", K_POS, NULL, NULL,
     "--profile: clock frequency of the modelled processor (cycles per second)"},
    {"cpu.cpi", MC_UNIT_NONE, "1", K_POS, NULL, NULL,
     "--profile: base cycles per instruction when every access hits in L1 (EXCIT's standard cycles; 1/issue width at best)"},
    {"cpu.mlp", MC_UNIT_NONE, "1", K_POS, NULL, NULL,
     "--profile: misses served at once (miss penalties are divided by it; 1 = EXCIT's sum, no overlap)"},
    CACHE("l1i", "32KiB", K_NONNEG, "8", "1ns", "L1 instruction cache (size 0: instruction fetches are not modelled)"),
    CACHE("l1d", "32KiB", K_NONNEG, "8", "1ns", "L1 data cache (size 0: every data access pays the next level's latency)"),
    CACHE("l2", "1MiB", K_NONNEG, "16", "5ns", "L2 cache, unified (size 0: no L2)"),
    CACHE("l3", "8MiB", K_NONNEG, "16", "15ns", "L3 cache, unified (size 0: no L3)"),
    {"cpu.mem.latency", MC_UNIT_TIME, "80ns", K_NONNEG, NULL, NULL,
     "--profile: load-to-use latency of main memory (the penalty of a last-level miss is this minus that level's latency)"},
    {"cpu.mem.bandwidth", MC_UNIT_BANDWIDTH, "10GB/s", K_POS | K_INF, NULL, NULL,
     "--profile: memory bandwidth of one core: a burst takes at least its bytes fetched from memory / this"},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static const char *const sections[] = {"cpu", "network", "intranode", "collectives"};
#define NSECTIONS ((int)(sizeof sections / sizeof sections[0]))

/* One entry of [table] or [measured] (see "measured data" below). */
typedef struct mc_extra {
    char *key;   /* "table.pingpong.1KiB", as written */
    char *value; /* text as written, trimmed */
    char *table; /* [table]: table name ("pingpong", "allreduce.4"), else NULL */
    double size, time;
} mc_extra;

struct mc_platform {
    double num[NKEYS];
    char *str[NKEYS];
    unsigned char set[NKEYS];
    char *origin[NKEYS]; /* where a set value came from: "FILE:LINE" or "--set" */
    mc_extra *extra;
    int nextra, capextra;
};

/* ------------------------------------------------------------ lookup */

static int key_index(const char *name)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcasecmp(keys[i].name, name) == 0)
            return i;
    return -1;
}

const char *mc_platform_key_at(int i, mc_unit *unit, const char **help)
{
    if (i < 0 || i >= NKEYS)
        return NULL;
    if (unit)
        *unit = keys[i].unit;
    if (help)
        *help = keys[i].help;
    return keys[i].name;
}

/* Edit distance, case-insensitive, for the did-you-mean hints. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 1000;
    int row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int close_enough(int d, const char *word)
{
    int len = (int)strlen(word);
    return d <= 2 || d <= len / 3;
}

/* The known key closest to `name`, or NULL. A key whose part after the dot
 * matches exactly wins (a key put in the wrong section). */
static const char *suggest_key(const char *name)
{
    const char *dot = strchr(name, '.');
    const char *leaf = dot ? dot + 1 : name;
    for (int i = 0; i < NKEYS; i++)
        if (strcasecmp(strchr(keys[i].name, '.') + 1, leaf) == 0)
            return keys[i].name;
    int best = -1, bestd = 1000;
    for (int i = 0; i < NKEYS; i++) {
        int d = distance(name, keys[i].name);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best >= 0 && close_enough(bestd, name) ? keys[best].name : NULL;
}

static const char *suggest_word(const char *word, const char *const *list, int n)
{
    int best = -1, bestd = 1000;
    for (int i = 0; i < n; i++) {
        int d = distance(word, list[i]);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best >= 0 && close_enough(bestd, word) ? list[best] : NULL;
}

static mc_err unknown_key(const char *name, mc_error *err)
{
    const char *s = suggest_key(name);
    if (s)
        return mc_error_set(err, MC_ERR_PLATFORM, "unknown key (did you mean %s?)", s);
    return mc_error_set(err, MC_ERR_PLATFORM, "unknown key (see docs/platform.md)");
}

/* ------------------------------------------------------------ values */

static int choice_ok(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *c = choices; *c;) {
        const char *end = strchr(c, '|');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == n && strncmp(c, value, n) == 0)
            return 1;
        c += len + (end != NULL);
    }
    return 0;
}

static mc_err bad_choice(const char *choices, const char *value, mc_error *err);

mc_err mc_platform_check_choice(const char *value, const char *choices, mc_error *err)
{
    if (value && choice_ok(choices, value))
        return MC_OK;
    return bad_choice(choices, value ? value : "", err);
}

static mc_err bad_choice(const char *choices, const char *value, mc_error *err)
{
    char list[256], *words[16];
    snprintf(list, sizeof list, "%s", choices);
    int n = 0;
    for (char *save = NULL, *w = strtok_r(list, "|", &save); w && n < 16;
         w = strtok_r(NULL, "|", &save))
        words[n++] = w;
    char shown[300] = "";
    for (int i = 0; i < n; i++) {
        strncat(shown, words[i], sizeof shown - strlen(shown) - 1);
        if (i + 1 < n)
            strncat(shown, ", ", sizeof shown - strlen(shown) - 1);
    }
    const char *s = suggest_word(value, (const char *const *)words, n);
    if (s)
        return mc_error_set(err, MC_ERR_PLATFORM, "unknown value '%s' (expected one of %s; did you mean %s?)",
                            value, shown, s);
    return mc_error_set(err, MC_ERR_PLATFORM, "unknown value '%s' (expected one of %s)", value, shown);
}

/* "" or positive integers joined by 'x' ("4x4x4"). */
static int dims_ok(const char *v)
{
    if (*v == '\0')
        return 1;
    for (;;) {
        if (!isdigit((unsigned char)*v) || *v == '0')
            return 0;
        long n = 0;
        while (isdigit((unsigned char)*v)) {
            n = n * 10 + (*v++ - '0');
            if (n > 1000000000L)
                return 0;
        }
        if (*v == '\0')
            return 1;
        if (*v++ != 'x')
            return 0;
    }
}

static mc_err check_number(const key_def *k, double v, mc_error *err)
{
    if (isinf(v) && v > 0 && !(k->checks & K_INF))
        return mc_error_set(err, MC_ERR_PLATFORM, "must be finite (inf is not allowed here)");
    if ((k->checks & (K_NONNEG | K_POS)) && v < 0)
        return mc_error_set(err, MC_ERR_PLATFORM, "must not be negative");
    if ((k->checks & K_POS) && v == 0)
        return mc_error_set(err, MC_ERR_PLATFORM, "must be greater than 0");
    if ((k->checks & K_INT) && (v != floor(v) || v > 1e9))
        return mc_error_set(err, MC_ERR_PLATFORM, "must be a whole number");
    return MC_OK;
}

/* The longest string value of key k that mc_platform_write's line ("# key
 * = value" and its newline, the "# " when unset) keeps within the line
 * length the reader accepts (read_line: INI_MAX_LINE - 1 with the newline):
 * a longer one would be written but not read back. */
static size_t string_max(const key_def *k)
{
    const char *dot = strchr(k->name, '.');
    size_t prefix = strlen(dot ? dot + 1 : k->name) + strlen("# ") + strlen(" = ");
    return INI_MAX_LINE - 2 - prefix;
}

/* Validates `text` for key i and stores it. The message, on error, does not
 * name the key: callers prefix it. */
static mc_err apply(mc_platform *p, int i, const char *text, mc_error *err)
{
    const key_def *k = &keys[i];
    if (k->unit == MC_UNIT_STRING) {
        while (isspace((unsigned char)*text))
            text++;
        size_t n = strlen(text);
        while (n > 0 && isspace((unsigned char)text[n - 1]))
            n--;
        char *v = strndup(text, n);
        if (!v)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        mc_err rc = MC_OK;
        if (k->choices && !choice_ok(k->choices, v))
            rc = bad_choice(k->choices, v, err);
        else if ((k->checks & K_DIMS) && !dims_ok(v))
            rc = mc_error_set(err, MC_ERR_PLATFORM,
                              "bad value '%s': expected dimensions like 4x4x4, or nothing", v);
        else if (strpbrk(v, ";#")) /* a written platform file would read it as a comment */
            rc = mc_error_set(err, MC_ERR_PLATFORM,
                              "bad value '%s': ';' and '#' start comments in a platform file", v);
        else if (n > string_max(k))
            rc = mc_error_set(err, MC_ERR_PLATFORM,
                              "value of %zu characters: at most %zu fit a platform file line",
                              n, string_max(k));
        if (rc != MC_OK) {
            free(v);
            return rc;
        }
        free(p->str[i]);
        p->str[i] = v;
    } else {
        double v;
        mc_err rc = mc_parse_value(text, k->unit, &v, err);
        if (rc == MC_OK)
            rc = check_number(k, v, err);
        if (rc != MC_OK)
            return rc;
        p->num[i] = v;
    }
    p->set[i] = 1;
    return MC_OK;
}

/* Records where key i's value came from (out of memory: no origin, the
 * value stays; errors then name the key alone). */
static void set_origin(mc_platform *p, int i, const char *origin)
{
    free(p->origin[i]);
    p->origin[i] = strdup(origin);
}

const char *mc_platform_origin(const mc_platform *p, const char *key)
{
    int i = key_index(key);
    return p && i >= 0 && p->set[i] ? p->origin[i] : NULL;
}

/* ------------------------------------------------------------ measured data
 *
 * Sections [table] and [measured] hold what mpicast-bench measured. Their
 * key names are not fixed in advance (a table point is "pingpong.1KiB", a
 * collective "allreduce.4.1KiB"), so they live outside the key table, as a
 * list of entries in order of definition; each name is still validated
 * (docs/platform.md), so a typo is an error as anywhere else. */

/* [measured] keys: what was measured where (descriptive; predict ignores them). */
static const struct {
    const char *name;
    mc_unit unit;
    unsigned checks;
} measured_keys[] = {
    {"host", MC_UNIT_STRING, 0},      {"mpi", MC_UNIT_STRING, 0},
    {"date", MC_UNIT_STRING, 0},      {"tool", MC_UNIT_STRING, 0},
    {"ranks", MC_UNIT_NONE, K_POS | K_INT}, {"repetitions", MC_UNIT_NONE, K_POS | K_INT},
    {"membw", MC_UNIT_BANDWIDTH, K_POS}, {"flops", MC_UNIT_NONE, K_POS},
    {"spread", MC_UNIT_NONE, K_NONNEG}, {"quality", MC_UNIT_STRING, 0},
};
#define NMEASURED ((int)(sizeof measured_keys / sizeof measured_keys[0]))

/* Separated key of a [table] entry: table name ("pingpong", "allreduce.4")
 * and the point's size. */
static mc_err parse_table_key(const char *rest, char *table, size_t cap, double *size,
                              mc_error *err)
{
    const char *dot = strchr(rest, '.');
    if (!dot || dot == rest || dot[1] == '\0')
        return mc_error_set(err, MC_ERR_PLATFORM,
                            "expected table.pingpong.SIZE, table.send.SIZE or table.OP.RANKS.SIZE");
    size_t n = (size_t)(dot - rest);
    char op[64];
    if (n >= sizeof op)
        return mc_error_set(err, MC_ERR_PLATFORM, "unknown table name");
    memcpy(op, rest, n);
    op[n] = '\0';
    const char *sz = dot + 1;
    size_t tlen = n;
    if (strcasecmp(op, "pingpong") != 0 && strcasecmp(op, "send") != 0) {
        char coll[96];
        snprintf(coll, sizeof coll, "collectives.%s", op);
        if (key_index(coll) < 0)
            return mc_error_set(err, MC_ERR_PLATFORM,
                                "unknown table '%s' (expected pingpong, send or a collective "
                                "like allreduce)", op);
        const char *r = sz;
        long ranks = 0;
        while (isdigit((unsigned char)*r) && ranks < 100000000L)
            ranks = ranks * 10 + (*r++ - '0');
        if (r == sz || *r != '.' || r[1] == '\0' || ranks < 2 || ranks >= 100000000L)
            return mc_error_set(err, MC_ERR_PLATFORM,
                                "expected table.%s.RANKS.SIZE with RANKS >= 2", op);
        tlen = (size_t)(r - rest);
        sz = r + 1;
    }
    if (tlen >= cap)
        return mc_error_set(err, MC_ERR_PLATFORM, "table name too long");
    for (size_t i = 0; i < tlen; i++)
        table[i] = (char)tolower((unsigned char)rest[i]);
    table[tlen] = '\0';
    mc_error e = {0};
    if (mc_parse_value(sz, MC_UNIT_BYTES, size, &e) != MC_OK || isinf(*size) || *size < 0 ||
        *size != floor(*size) || *size > 9e18)
        return mc_error_set(err, MC_ERR_PLATFORM, "bad size '%s': expected a whole number of "
                            "bytes like 0, 4096 or 64KiB", sz);
    return MC_OK;
}

static mc_err check_measured(const char *name, const char *value, mc_error *err)
{
    for (int i = 0; i < NMEASURED; i++) {
        if (strcasecmp(measured_keys[i].name, name) != 0)
            continue;
        if (measured_keys[i].unit == MC_UNIT_STRING)
            return MC_OK;
        double v;
        mc_err rc = mc_parse_value(value, measured_keys[i].unit, &v, err);
        if (rc != MC_OK)
            return rc;
        key_def k = {.checks = measured_keys[i].checks};
        return check_number(&k, v, err);
    }
    const char *names[NMEASURED];
    for (int i = 0; i < NMEASURED; i++)
        names[i] = measured_keys[i].name;
    const char *s = suggest_word(name, names, NMEASURED);
    if (s)
        return mc_error_set(err, MC_ERR_PLATFORM, "unknown key (did you mean measured.%s?)", s);
    return mc_error_set(err, MC_ERR_PLATFORM, "unknown key (known: host, mpi, date, tool, "
                        "ranks, repetitions, membw, flops, spread, quality)");
}

static int is_extra_section(const char *name, size_t n)
{
    return (n == 5 && strncasecmp(name, "table", 5) == 0) ||
           (n == 8 && strncasecmp(name, "measured", 8) == 0);
}

/* Validates and stores one [table] or [measured] entry; a point or key given
 * again replaces the earlier one, as for the fixed keys. */
static mc_err extra_apply(mc_platform *p, const char *key, const char *value, mc_error *err)
{
    mc_extra x = {0};
    while (isspace((unsigned char)*value))
        value++;
    size_t vn = strlen(value);
    while (vn > 0 && isspace((unsigned char)value[vn - 1]))
        vn--;
    const char *dot = strchr(key, '.'); /* written back as "name = value" (write_extra) */
    size_t line = strlen(dot ? dot + 1 : key) + strlen(" = ") + vn + 1;
    if (line > INI_MAX_LINE - 1)
        return mc_error_set(err, MC_ERR_PLATFORM, "entry of %zu characters: at most %d fit a "
                            "platform file line", line - 1, INI_MAX_LINE - 2);
    char table[64] = "";
    if (strncasecmp(key, "table.", 6) == 0) {
        mc_err rc = parse_table_key(key + 6, table, sizeof table, &x.size, err);
        if (rc != MC_OK)
            return rc;
        char *v = strndup(value, vn);
        if (!v)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        rc = mc_parse_value(v, MC_UNIT_TIME, &x.time, err);
        if (rc == MC_OK && (isinf(x.time) || x.time < 0))
            rc = mc_error_set(err, MC_ERR_PLATFORM, "bad time '%s': must be finite and not negative", v);
        free(v);
        if (rc != MC_OK)
            return rc;
    } else {
        char *v = strndup(value, vn);
        if (!v)
            return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        mc_err rc = check_measured(key + 9, v, err);
        free(v);
        if (rc != MC_OK)
            return rc;
    }
    int at = p->nextra;
    for (int i = 0; i < p->nextra; i++) {
        const mc_extra *o = &p->extra[i];
        if (table[0] ? (o->table && strcmp(o->table, table) == 0 && o->size == x.size)
                     : (!o->table && strcasecmp(o->key, key) == 0))
            at = i;
    }
    x.key = strdup(key);
    x.value = strndup(value, vn);
    x.table = table[0] ? strdup(table) : NULL;
    if (!x.key || !x.value || (table[0] && !x.table))
        goto nomem;
    if (at == p->nextra) {
        if (p->nextra == p->capextra) {
            int cap = p->capextra ? 2 * p->capextra : 32;
            mc_extra *a = realloc(p->extra, (size_t)cap * sizeof *a);
            if (!a)
                goto nomem;
            p->extra = a;
            p->capextra = cap;
        }
        p->nextra++;
    } else {
        free(p->extra[at].key);
        free(p->extra[at].value);
        free(p->extra[at].table);
    }
    p->extra[at] = x;
    return MC_OK;
nomem:
    free(x.key);
    free(x.value);
    free(x.table);
    return mc_error_set(err, MC_ERR_NOMEM, "out of memory");
}

static int cmp_point(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int mc_platform_table(const mc_platform *p, const char *name, double **sizes, double **times)
{
    *sizes = *times = NULL;
    if (!p || !name)
        return 0;
    int n = 0;
    for (int i = 0; i < p->nextra; i++)
        n += p->extra[i].table && strcasecmp(p->extra[i].table, name) == 0;
    if (n == 0)
        return 0;
    double *pts = malloc((size_t)n * 2 * sizeof *pts);
    double *s = malloc((size_t)n * sizeof *s), *t = malloc((size_t)n * sizeof *t);
    if (!pts || !s || !t) {
        free(pts);
        free(s);
        free(t);
        return -1;
    }
    int k = 0;
    for (int i = 0; i < p->nextra; i++) {
        if (p->extra[i].table && strcasecmp(p->extra[i].table, name) == 0) {
            pts[2 * k] = p->extra[i].size;
            pts[2 * k + 1] = p->extra[i].time;
            k++;
        }
    }
    qsort(pts, (size_t)n, 2 * sizeof *pts, cmp_point);
    for (int i = 0; i < n; i++) {
        s[i] = pts[2 * i];
        t[i] = pts[2 * i + 1];
    }
    free(pts);
    *sizes = s;
    *times = t;
    return n;
}

const char *mc_platform_entry_at(const mc_platform *p, int i, const char **value)
{
    if (!p || i < 0 || i >= p->nextra)
        return NULL;
    if (value)
        *value = p->extra[i].value;
    return p->extra[i].key;
}

/* Writes the [measured] and [table] entries (nothing when there are none,
 * so a platform without measured data writes exactly as before). */
static void write_extra(const mc_platform *p, FILE *f)
{
    static const char *const secs[] = {"measured", "table"};
    for (int s = 0; s < 2; s++) {
        size_t slen = strlen(secs[s]);
        int header = 0;
        for (int i = 0; i < p->nextra; i++) {
            const mc_extra *x = &p->extra[i];
            if (strncasecmp(x->key, secs[s], slen) != 0 || x->key[slen] != '.')
                continue;
            if (!header)
                fprintf(f, "\n[%s]\n", secs[s]);
            header = 1;
            fprintf(f, "%s = %s\n", x->key + slen + 1, x->value);
        }
    }
}

/* ------------------------------------------------------------ lifecycle */

mc_platform *mc_platform_create(void)
{
    mc_platform *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i < NKEYS; i++) {
        if (!keys[i].def) {
            p->num[i] = NAN; /* resolved through the fallback key */
            continue;
        }
        if (apply(p, i, keys[i].def, NULL) != MC_OK) { /* a bad default is a bug */
            mc_platform_destroy(p);
            return NULL;
        }
        p->set[i] = 0;
    }
    return p;
}

void mc_platform_destroy(mc_platform *p)
{
    if (!p)
        return;
    for (int i = 0; i < NKEYS; i++) {
        free(p->str[i]);
        free(p->origin[i]);
    }
    for (int i = 0; i < p->nextra; i++) {
        free(p->extra[i].key);
        free(p->extra[i].value);
        free(p->extra[i].table);
    }
    free(p->extra);
    free(p);
}

/* ------------------------------------------------------------ getters */

/* The default of key i as a number (NAN for none, e.g. an empty default). */
static double default_num(int i)
{
    if (!keys[i].def)
        return keys[i].fallback ? mc_platform_num(NULL, keys[i].fallback) : NAN;
    double v;
    mc_error ignored = {0};
    return mc_parse_value(keys[i].def, keys[i].unit, &v, &ignored) == MC_OK ? v : NAN;
}

double mc_platform_num(const mc_platform *p, const char *key)
{
    int i = key_index(key);
    if (i < 0 || keys[i].unit == MC_UNIT_STRING)
        return NAN;
    if (!p)
        return default_num(i);
    if (!p->set[i] && keys[i].fallback)
        return mc_platform_num(p, keys[i].fallback);
    return p->num[i];
}

const char *mc_platform_str(const mc_platform *p, const char *key)
{
    int i = key_index(key);
    if (i < 0 || keys[i].unit != MC_UNIT_STRING)
        return NULL;
    return p ? p->str[i] : keys[i].def;
}

int mc_platform_is_set(const mc_platform *p, const char *key)
{
    int i = key_index(key);
    return p && i >= 0 && p->set[i];
}

/* ------------------------------------------------------------ setters */

mc_err mc_platform_set_kv(mc_platform *p, const char *key, const char *value, mc_error *err)
{
    return mc_platform_set_from(p, key, value, NULL, err);
}

mc_err mc_platform_set_from(mc_platform *p, const char *key, const char *value, const char *from,
                            mc_error *err)
{
    int i = key_index(key);
    const char *dot = strchr(key, '.');
    mc_err rc = i >= 0 ? apply(p, i, value, err)
                : dot && is_extra_section(key, (size_t)(dot - key)) ? extra_apply(p, key, value, err)
                : unknown_key(key, err);
    if (rc != MC_OK)
        mc_error_prefix(err, "%s", key);
    else if (i >= 0) {
        char where[512];
        snprintf(where, sizeof where, "%s %s=%s", from ? from : "--set", key, value);
        set_origin(p, i, where);
    }
    return rc;
}

mc_err mc_platform_set(mc_platform *p, const char *assignment, mc_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return mc_error_set(err, MC_ERR_USAGE, "--set %s: expected section.key=value", assignment);
    char key[128];
    size_t n = (size_t)(eq - assignment);
    while (n > 0 && isspace((unsigned char)assignment[n - 1]))
        n--;
    const char *start = assignment;
    while (n > 0 && isspace((unsigned char)*start)) {
        start++;
        n--;
    }
    if (n == 0 || n >= sizeof key)
        return mc_error_set(err, MC_ERR_USAGE, "--set %s: expected section.key=value", assignment);
    memcpy(key, start, n);
    key[n] = '\0';
    mc_error e = {0};
    mc_err rc = mc_platform_set_kv(p, key, eq + 1, &e);
    if (rc != MC_OK)
        mc_error_set(err, rc, "--set %s", e.msg);
    return rc;
}

/* ------------------------------------------------------------ loading */

typedef struct load_ctx {
    FILE *f;
    const char *path;
    mc_platform *p;
    mc_error *err;
    int lineno;
    int failed;
    char *line;
    size_t cap;
} load_ctx;

/* Records the first error as "PATH:LINE: what: message". */
static void fail_at(load_ctx *c, mc_err code, const char *what, const char *msg)
{
    if (c->failed)
        return;
    c->failed = 1;
    if (what)
        mc_error_set(c->err, code, "%s:%d: %s: %s", c->path, c->lineno, what, msg);
    else
        mc_error_set(c->err, code, "%s:%d: %s", c->path, c->lineno, msg);
}

static void check_section_line(load_ctx *c, const char *s)
{
    const char *end = strchr(s, ']');
    if (!end)
        return; /* inih reports the syntax error */
    char name[64];
    size_t n = (size_t)(end - s - 1);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, s + 1, n);
    name[n] = '\0';
    for (int i = 0; i < NSECTIONS; i++)
        if (strcasecmp(name, sections[i]) == 0)
            return;
    if (is_extra_section(name, strlen(name)))
        return;
    char msg[256];
    const char *s2 = suggest_word(name, sections, NSECTIONS);
    if (s2)
        snprintf(msg, sizeof msg, "unknown section (did you mean [%s]?)", s2);
    else
        snprintf(msg, sizeof msg, "unknown section (known: cpu, network, intranode, collectives)");
    char what[80];
    snprintf(what, sizeof what, "[%s]", name);
    fail_at(c, MC_ERR_PLATFORM, what, msg);
}

/* inih line reader: one call per physical line, so c->lineno is the line
 * inih is working on. Leading blanks are dropped (an indented line would be
 * a continuation line for inih) and section names are checked here because
 * inih only reports a section when a key follows it. */
static char *read_line(char *str, int num, void *stream)
{
    load_ctx *c = stream;
    if (c->failed)
        return NULL;
    ssize_t len = getline(&c->line, &c->cap, c->f);
    if (len < 0)
        return NULL;
    c->lineno++;
    const char *s = c->line;
    if (c->lineno == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
        s += 3;
    while (*s == ' ' || *s == '\t')
        s++;
    if ((int)strlen(s) > num - 1) {
        fail_at(c, MC_ERR_PLATFORM, NULL, "line too long");
        return NULL;
    }
    if (*s == '[') {
        check_section_line(c, s);
        if (c->failed)
            return NULL;
    }
    memcpy(str, s, strlen(s) + 1);
    return str;
}

static int on_value(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *c = user;
    if (c->failed)
        return 1;
    char key[256];
    snprintf(key, sizeof key, "%s%s%s", section, *section ? "." : "", name);
    mc_error e = {0};
    int i = *section ? key_index(key) : -1;
    if (!*section) {
        const char *s = suggest_key(key);
        if (s)
            mc_error_set(&e, MC_ERR_PLATFORM, "key outside a section (did you mean %s?)", s);
        else
            mc_error_set(&e, MC_ERR_PLATFORM, "key outside a section");
    } else if (i < 0 && is_extra_section(section, strlen(section))) {
        if (extra_apply(c->p, key, value, &e) == MC_OK)
            return 1;
    } else if (i < 0) {
        unknown_key(key, &e);
    } else if (apply(c->p, i, value, &e) == MC_OK) {
        char where[4096 + 16];
        snprintf(where, sizeof where, "%s:%d", c->path, c->lineno);
        set_origin(c->p, i, where);
        return 1;
    }
    fail_at(c, e.code, key, e.msg);
    return 0;
}

mc_platform *mc_platform_load(const char *path, mc_error *err)
{
    FILE *f = mc_in_fopen(path, err); /* a FIFO or device is refused, not read forever */
    if (!f)
        return NULL;
    mc_platform *p = mc_platform_create();
    if (!p) {
        fclose(f);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    load_ctx c = {.f = f, .path = path, .p = p, .err = err};
    int rc = ini_parse_stream(read_line, &c, on_value, &c);
    int read_error = ferror(f);
    free(c.line);
    fclose(f);
    if (!c.failed && rc > 0) {
        c.lineno = rc;
        fail_at(&c, MC_ERR_PLATFORM, NULL, "syntax error: expected 'key = value' or '[section]'");
    } else if (!c.failed && rc < 0) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        c.failed = 1;
    } else if (!c.failed && read_error) {
        mc_error_set(err, MC_ERR_IO, "%s: cannot read", path);
        c.failed = 1;
    }
    if (c.failed) {
        mc_platform_destroy(p);
        return NULL;
    }
    return p;
}

/* ------------------------------------------------------------ writing */

mc_err mc_platform_write(const mc_platform *p, const char *path, mc_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    fprintf(f, "# mpicast platform (all keys; see docs/platform.md)\n");
    for (int s = 0; s < NSECTIONS; s++) {
        fprintf(f, "\n[%s]\n", sections[s]);
        size_t slen = strlen(sections[s]);
        for (int i = 0; i < NKEYS; i++) {
            if (strncmp(keys[i].name, sections[s], slen) != 0 || keys[i].name[slen] != '.')
                continue;
            char num[128];
            const char *value = num;
            if (keys[i].unit == MC_UNIT_STRING) /* whole: a cut name would not read back */
                value = p->str[i] ? p->str[i] : "";
            else
                mc_format_value(num, sizeof num, mc_platform_num(p, keys[i].name), keys[i].unit);
            /* An unset key that follows another stays unset when read back. */
            const char *off = keys[i].fallback && !p->set[i] ? "# " : "";
            fprintf(f, "# %s\n%s%s = %s\n", keys[i].help, off, keys[i].name + slen + 1, value);
        }
    }
    write_extra(p, f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return MC_OK;
}
