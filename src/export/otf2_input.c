/* The rows of the input registry (input.h) for the formats read by an
 * importer (OTF2, DUMPI): the input is imported into a private temporary
 * trace directory, read from there, and the directory is removed when the
 * source closes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/export.h"
#include "mpicast/input.h"

typedef struct otf2_source {
    mc_source base;
    mc_source *inner; /* the imported trace directory */
    char *dir;        /* its path */
    char *archive;    /* the path the user gave, for messages */
} otf2_source;

/* Removes what mc_import_otf2 wrote (rank files, meta.json, sites) and the
 * directory; nothing else is touched. */
static void remove_import(char *dir)
{
    if (!dir)
        return;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, "rank-", 5) != 0 && strncmp(de->d_name, "sites-", 6) != 0 &&
            strcmp(de->d_name, "meta.json") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
}

static int o_next(mc_source *s, int rank, mc_event *e, mc_error *err)
{
    return mc_source_next(((otf2_source *)s)->inner, rank, e, err);
}

static void o_prefetch(const mc_source *s, int rank)
{
    mc_source_prefetch(((const otf2_source *)s)->inner, rank);
}

static const mc_meta *o_meta(const mc_source *s)
{
    return mc_source_meta(((const otf2_source *)s)->inner);
}

static void o_close(mc_source *s)
{
    otf2_source *o = (otf2_source *)s;
    mc_source_close(o->inner);
    remove_import(o->dir);
    free(o->archive);
    free(o);
}

static const mc_source_ops otf2_ops = {
    .next = o_next, .close = o_close, .prefetch = o_prefetch, .meta = o_meta};

static mc_input_fit otf2_probe(const char *path)
{
    return mc_otf2_is_archive(path) ? MC_INPUT_SURE : MC_INPUT_NO;
}

static char *make_import_dir(const char *archive, const char *kind, mc_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/mpicast-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", kind);
    char *dir = strdup(tmpl);
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        mc_error_set(err, MC_ERR_IO, "%s: cannot create a temporary directory to import into",
                     archive);
        return NULL;
    }
    return dir;
}

typedef mc_err (*import_fn)(const char *path, const char *outdir, mc_export_info *info,
                           mc_progress *prog, mc_error *err);

static mc_source *imported_open(const char *path, const char *kind, import_fn import,
                                mc_error *err)
{
    char *dir = make_import_dir(path, kind, err);
    if (!dir)
        return NULL;
    otf2_source *o = calloc(1, sizeof *o);
    if (o)
        o->archive = strdup(path);
    if (!o || !o->archive) {
        if (o)
            free(o);
        remove_import(dir);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (import(path, dir, NULL, NULL, err) != MC_OK ||
        !(o->inner = mc_trace_open(dir, err))) {
        remove_import(dir);
        free(o->archive);
        free(o);
        return NULL;
    }
    o->dir = dir;
    o->base.ops = &otf2_ops;
    o->base.nranks = o->inner->nranks;
    o->base.name = o->archive;
    return &o->base;
}

static mc_source *otf2_open(const char *path, mc_error *err)
{
    return imported_open(path, "otf2", mc_import_otf2, err);
}

static mc_input_fit dumpi_probe(const char *path)
{
    return mc_dumpi_is_trace(path) ? MC_INPUT_SURE : MC_INPUT_NO;
}

static mc_source *dumpi_open(const char *path, mc_error *err)
{
    return imported_open(path, "dumpi", mc_import_dumpi, err);
}

static const mc_input_kind dumpi_kind = {
    .name = "dumpi",
    .description = "DUMPI trace (SST: its dumpi-*.meta, or the directory holding it): "
                   "imported on the fly",
    .probe = dumpi_probe,
    .open = dumpi_open,
};

static const mc_input_kind otf2_kind = {
    .name = "otf2",
    .description = "OTF2 archive (Score-P's traces.otf2, or its directory): imported on the fly",
    .probe = otf2_probe,
    .open = otf2_open,
};

mc_err mc_import_register_inputs(void)
{
    mc_err rc = mc_input_register(&otf2_kind);
    return rc ? rc : mc_input_register(&dumpi_kind);
}
