/* OTF2 for mpicast predict (cmd_predict.c): an OTF2 archive as TRACE, and
 * --timeline-otf2. Internal to the CLI. */
#ifndef MPICAST_PREDICT_OTF2_H
#define MPICAST_PREDICT_OTF2_H

#include <stdio.h>
#include "mpicast/error.h"

/* When `trace` is an OTF2 archive: imports it into a new temporary trace
 * directory and returns its path (malloc'd); NULL with err->code == MC_OK
 * when it is not an archive, NULL with err filled on failure. */
char *predict_otf2_import(const char *trace, mc_error *err);
/* Removes the temporary directory made by predict_otf2_import and frees
 * the path; NULL is a no-op. */
void predict_otf2_cleanup(char *dir);
/* Converts the Chrome timeline in `tl` (read from its start) to an OTF2
 * archive in `outdir`. */
mc_err predict_timeline_otf2(FILE *tl, const char *outdir, mc_error *err);

#endif
