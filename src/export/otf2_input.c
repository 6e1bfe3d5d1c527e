/* The rows of the input registry (input.h) for the formats read by an
 * importer (OTF2, DUMPI): the input is imported into a private temporary
 * trace directory, read from there, and the directory is removed when the
 * last source of it closes.
 *
 * An import forks a child (the OTF2 library can hang on a corrupt archive),
 * and a child forked while another thread holds a lock (malloc's,
 * stdio's) can deadlock. So an import is shared: while a source of a path
 * is open, opening the path again reuses its import without forking, and
 * callers that read one input from several threads open it once before
 * starting them (mc_predict_run, sweep). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/export.h"
#include "mpicast/input.h"
#include "mpicast/outfile.h"

/* One import, shared by every open source of the same path and kind. */
typedef struct import_entry {
    struct import_entry *next;
    const char *kind;
    char *path; /* the path the user gave: also the name in messages */
    char *dir;  /* the imported trace directory */
    int refs;   /* open sources */
} import_entry;

static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
static import_entry *imports;

typedef struct otf2_source {
    mc_source base;
    mc_source *inner;    /* the imported trace directory */
    import_entry *entry; /* its import */
} otf2_source;

/* Removes what mc_import_otf2 wrote (rank files, meta.json, sites) and the
 * directory; nothing else is touched. */
static void remove_import(char *dir)
{
    if (!dir)
        return;
    mc_out_temp_dir_untrack(dir);
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

/* Drops one reference; the last removes the import. */
static void import_release(import_entry *e)
{
    pthread_mutex_lock(&imports_lock);
    int last = --e->refs == 0;
    if (last)
        for (import_entry **p = &imports; *p; p = &(*p)->next)
            if (*p == e) {
                *p = e->next;
                break;
            }
    pthread_mutex_unlock(&imports_lock);
    if (!last)
        return;
    remove_import(e->dir);
    free(e->path);
    free(e);
}

static void o_close(mc_source *s)
{
    otf2_source *o = (otf2_source *)s;
    mc_source_close(o->inner);
    import_release(o->entry);
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
    char tmpl[4096];
    char *dir = NULL;
    if (mc_out_temp_dir_create(tmpl, sizeof tmpl, kind, archive, err) == MC_OK &&
        !(dir = strdup(tmpl))) {
        mc_out_temp_dir_untrack(tmpl);
        rmdir(tmpl);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", archive);
    }
    return dir;
}

typedef mc_err (*import_fn)(const char *path, const char *outdir, mc_export_info *info,
                           mc_progress *prog, mc_error *err);

/* The import of path by this kind, imported now unless a source of it is
 * open; a reference is taken. NULL with err filled. */
static import_entry *import_acquire(const char *path, const char *kind, import_fn import,
                                    mc_error *err)
{
    pthread_mutex_lock(&imports_lock);
    import_entry *e = imports;
    while (e && (strcmp(e->kind, kind) != 0 || strcmp(e->path, path) != 0))
        e = e->next;
    if (e) {
        e->refs++;
        pthread_mutex_unlock(&imports_lock);
        return e;
    }
    e = calloc(1, sizeof *e);
    if (e && !(e->path = strdup(path))) {
        free(e);
        e = NULL;
    }
    if (!e) {
        pthread_mutex_unlock(&imports_lock);
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    e->kind = kind;
    e->refs = 1;
    if (!(e->dir = make_import_dir(path, kind, err)) ||
        import(path, e->dir, NULL, NULL, err) != MC_OK) {
        pthread_mutex_unlock(&imports_lock);
        remove_import(e->dir);
        free(e->path);
        free(e);
        return NULL;
    }
    e->next = imports;
    imports = e;
    pthread_mutex_unlock(&imports_lock);
    return e;
}

static mc_source *imported_open(const char *path, const char *kind, import_fn import,
                                mc_error *err)
{
    otf2_source *o = calloc(1, sizeof *o);
    if (!o) {
        mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (!(o->entry = import_acquire(path, kind, import, err))) {
        free(o);
        return NULL;
    }
    if (!(o->inner = mc_trace_open(o->entry->dir, err))) {
        import_release(o->entry);
        free(o);
        return NULL;
    }
    o->base.ops = &otf2_ops;
    o->base.nranks = o->inner->nranks;
    o->base.name = o->entry->path;
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
