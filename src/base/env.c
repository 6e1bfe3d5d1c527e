/* The MPICAST_* environment variables (include/mpicast/env.h). */
#include "mpicast/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

typedef enum { ENV_ANY, ENV_BYTES, ENV_COUNT, ENV_SECONDS, ENV_CHOICE } env_kind;

typedef struct {
    const char *name;
    env_kind kind;
    const char *choices; /* ENV_CHOICE: '|'-separated */
} env_var;

/* Keep in step with docs/robustness.md ("Environment variables"). */
static const env_var vars[] = {
    /* read by mpicast */
    {"MPICAST_READ_MEMORY", ENV_BYTES, NULL},      /* src/format/reader.c */
    {"MPICAST_OPEN_FILES", ENV_COUNT, NULL},       /* src/base/outfile.c */
    {"MPICAST_PROGRESS_INTERVAL", ENV_SECONDS, NULL}, /* src/export/load.c */
    {"MPICAST_GNUPLOT", ENV_ANY, NULL},            /* src/export/plot.c */
    {"MPICAST_OTF2_STALL", ENV_COUNT, NULL},       /* src/export/otf2_import.c */
    {"MPICAST_EXTRAP_FOLD", ENV_COUNT, NULL},      /* src/extrap/fold.c */
    /* read by the tracer (mpicast trace passes them on) */
    {"MPICAST_TRACE_DIR", ENV_ANY, NULL},
    {"MPICAST_MODE", ENV_CHOICE, "wall|cpu|token|profile"},
    {"MPICAST_CHUNK_EVENTS", ENV_COUNT, NULL},
    {"MPICAST_BUFFER", ENV_BYTES, NULL},
    {"MPICAST_FLUSH_INTERVAL", ENV_SECONDS, NULL},
    {"MPICAST_POLL_FOLD", ENV_SECONDS, NULL},  /* gap that folds failed polls; 0: off */
    {"MPICAST_POLL_HOT", ENV_CHOICE, "on|exact|off"}, /* failed polls' fast path */
    {"MPICAST_POLL_STATS", ENV_ANY, NULL},     /* polls it folded, on stderr at Finalize */
    {"MPICAST_COMPRESS_THREAD", ENV_CHOICE, "on|off"}, /* chunks compressed off the MPI thread */
    {"MPICAST_CLOCK", ENV_CHOICE, "auto|tsc|monotonic"},
    {"MPICAST_TOKEN_POLL_US", ENV_COUNT, NULL},
    {"MPICAST_TOKEN_STATS", ENV_ANY, NULL},
    {"MPICAST_PROFILE", ENV_ANY, NULL},       /* set by trace --mode profile: markers */
    /* read by mpicast's profile analyser (src/cli/cmd_profile_rank.c) */
    {"MPICAST_PROFILE_STATS", ENV_ANY, NULL},
    /* read by mpicast-bench (a test hook) */
    {"MPICAST_BENCH_DISTURB", ENV_ANY, NULL},
    /* the test suite's own (tests/): not read by mpicast, set around it */
    {"MPICAST_WRAPPER", ENV_ANY, NULL},
    {"MPICAST_REGEN_GOLDEN", ENV_ANY, NULL},
    {"MPICAST_TEST_SEED", ENV_ANY, NULL},
};

int mc_env_parse_bytes(const char *s, uint64_t *out)
{
    static const struct { const char *unit; double mul; } units[] = {
        {"", 1}, {"B", 1}, {"k", 1024}, {"K", 1024}, {"KiB", 1024}, {"kB", 1e3}, {"KB", 1e3},
        {"M", 1048576}, {"MiB", 1048576}, {"MB", 1e6}, {"G", 1073741824.0},
        {"GiB", 1073741824.0}, {"GB", 1e9}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            if (!(v * units[i].mul < 1.8e19))
                return -1;
            *out = (uint64_t)(v * units[i].mul);
            return 0;
        }
    return -1;
}

static int is_choice(const char *v, const char *choices)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncmp(c, v, n) == 0)
            return 1;
        c += bar ? len + 1 : len;
    }
    return 0;
}

/* NULL if v suits the kind, else what the variable takes. */
static const char *check_value(const env_var *e, const char *v)
{
    char *end;
    uint64_t bytes;
    switch (e->kind) {
    case ENV_ANY:
        return NULL;
    case ENV_BYTES:
        return mc_env_parse_bytes(v, &bytes) == 0 ? NULL
               : "a size in bytes (a positive number with an optional unit: KiB, MiB, GiB, KB, MB, GB)";
    case ENV_COUNT: {
        long n = strtol(v, &end, 10);
        return end != v && *end == '\0' && n >= 1 && n <= 1L << 30 ? NULL
               : "a positive whole number";
    }
    case ENV_SECONDS: {
        double s = strtod(v, &end);
        return end != v && *end == '\0' && s >= 0 && s < 1e6 ? NULL
               : "a number of seconds (0 or more)";
    }
    case ENV_CHOICE:
        return is_choice(v, e->choices) ? NULL : e->choices;
    }
    return NULL;
}

static const env_var *find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (strlen(vars[i].name) == len && strncmp(vars[i].name, name, len) == 0)
            return &vars[i];
    return NULL;
}

mc_err mc_env_check(mc_error *err, void (*warn)(const char *msg))
{
    for (char **p = environ; p && *p; p++) {
        if (strncmp(*p, "MPICAST_", 8) != 0)
            continue;
        const char *eq = strchr(*p, '=');
        size_t len = eq ? (size_t)(eq - *p) : strlen(*p);
        const env_var *e = find(*p, len);
        if (!e) {
            if (warn) {
                char msg[300];
                snprintf(msg, sizeof msg, "%.*s is not a variable mpicast reads (ignored)",
                         (int)(len > 200 ? 200 : len), *p);
                warn(msg);
            }
            continue;
        }
        const char *v = eq ? eq + 1 : "";
        const char *want = *v || e->kind == ENV_ANY ? check_value(e, v) : NULL;
        if (want)
            return mc_error_set(err, MC_ERR_USAGE, "%s=%s: expected %s", e->name, v, want);
    }
    return MC_OK;
}
