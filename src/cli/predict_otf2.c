/* OTF2 for mpicast predict: see predict_otf2.h. */
#include "predict_otf2.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpicast/export.h"

char *predict_otf2_import(const char *trace, mc_error *err)
{
    if (!mc_otf2_is_archive(trace))
        return NULL;
    char *dir = strdup("/tmp/mpicast-otf2-XXXXXX");
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        mc_error_set(err, MC_ERR_IO, "%s: cannot create a temporary directory to import into", trace);
        return NULL;
    }
    if (mc_import_otf2(trace, dir, NULL, NULL, err) != MC_OK) {
        predict_otf2_cleanup(dir);
        return NULL;
    }
    return dir;
}

void predict_otf2_cleanup(char *dir)
{
    if (!dir)
        return;
    /* only the files the import wrote: rank files and meta.json, no subdirectories */
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, "rank-", 5) != 0 && strcmp(de->d_name, "meta.json") != 0)
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

mc_err predict_timeline_otf2(FILE *tl, const char *outdir, mc_error *err)
{
    if (fflush(tl) != 0 || fseek(tl, 0, SEEK_SET) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot read back the timeline", outdir);
    return mc_timeline_to_otf2(tl, outdir, err);
}
