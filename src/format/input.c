/* The input registry (include/mpicast/input.h): the built-in rows (trace
 * directories, time-independent text) and the ones importers register. */
#include "mpicast/input.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mpicast/outfile.h"
#include "mpicast/tit.h"

/* rank-NNNNNN.mct (export tit writes rank-N.txt beside its list) */
static int is_rank_file(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "rank-", 5) == 0 && n > 9 && strcmp(name + n - 4, ".mct") == 0;
}

/* A directory holding meta.json or a rank file is surely a trace; any other
 * directory might be one (mc_trace_open then says what is missing). */
static mc_input_fit trace_probe(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return MC_INPUT_NO;
    DIR *d = opendir(path);
    if (!d)
        return MC_INPUT_FALLBACK;
    mc_input_fit fit = MC_INPUT_FALLBACK;
    struct dirent *de;
    while (fit != MC_INPUT_SURE && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, "meta.json") == 0 || is_rank_file(de->d_name))
            fit = MC_INPUT_SURE;
    closedir(d);
    return fit;
}

/* DIR/traces.txt: the list file `mpicast export tit` writes. */
static int tit_list_in(const char *dir, char *buf, size_t len)
{
    struct stat st;
    int n = snprintf(buf, len, "%s/traces.txt", dir);
    return n > 0 && (size_t)n < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

/* Text traces have no magic: any regular file might be one (the reader names
 * the line it cannot parse); a directory holding traces.txt surely is. */
static mc_input_fit tit_probe(const char *path)
{
    struct stat st;
    char list[4096];
    if (stat(path, &st) != 0)
        return MC_INPUT_NO;
    if (S_ISDIR(st.st_mode))
        return tit_list_in(path, list, sizeof list) ? MC_INPUT_SURE : MC_INPUT_NO;
    return S_ISREG(st.st_mode) ? MC_INPUT_FALLBACK : MC_INPUT_NO;
}

static mc_source *tit_open(const char *path, mc_error *err)
{
    struct stat st;
    char list[4096];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && tit_list_in(path, list, sizeof list))
        return mc_tit_open(list, err);
    return mc_tit_open(path, err);
}

static const mc_input_kind trace_kind = {
    .name = "trace",
    .description = "trace directory (mpicast trace: meta.json, rank-NNNNNN.mct)",
    .probe = trace_probe,
    .open = mc_trace_open,
};

static const mc_input_kind tit_kind = {
    .name = "tit",
    .description = "SimGrid time-independent text trace (one file, a list of per-rank files, "
                   "or a directory holding the list traces.txt)",
    .probe = tit_probe,
    .open = tit_open,
};

enum { MAX_KINDS = 16 };

/* Written only at start-up (mc_input_register), read afterwards. */
static const mc_input_kind *kinds[MAX_KINDS] = {&trace_kind, &tit_kind};
static int nkinds = 2;

mc_err mc_input_register(const mc_input_kind *kind)
{
    for (int i = 0; i < nkinds; i++)
        if (kinds[i] == kind)
            return MC_OK;
    if (nkinds == MAX_KINDS)
        return MC_ERR_NOMEM;
    kinds[nkinds++] = kind;
    return MC_OK;
}

const mc_input_kind *mc_input_kind_at(int i)
{
    return i >= 0 && i < nkinds ? kinds[i] : NULL;
}

const mc_input_kind *mc_input_probe(const char *path, mc_error *err)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        mc_error_set(err, MC_ERR_IO, "%s: no such trace directory or file", path ? path : "");
        return NULL;
    }
    if (!S_ISDIR(st.st_mode) && mc_in_check(path, err) != 0)
        return NULL; /* a FIFO, a device, a socket: refused, never read */
    const mc_input_kind *best = NULL;
    mc_input_fit best_fit = MC_INPUT_NO;
    for (int i = 0; i < nkinds; i++) {
        mc_input_fit f = kinds[i]->probe(path);
        if (f > best_fit) { /* ties: the earlier row, so built-ins win */
            best = kinds[i];
            best_fit = f;
        }
    }
    if (!best)
        mc_error_set(err, MC_ERR_FORMAT, "%s: not a trace any input kind reads", path);
    return best;
}

mc_source *mc_input_open(const char *path, mc_error *err)
{
    const mc_input_kind *k = mc_input_probe(path, err);
    return k ? k->open(path, err) : NULL;
}
