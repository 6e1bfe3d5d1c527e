/* OTF2 for mpicast predict (cmd_predict.c): --timeline-otf2. Internal to the
 * CLI (OTF2 archives as TRACE come through the input registry, input.h). */
#ifndef MPICAST_PREDICT_OTF2_H
#define MPICAST_PREDICT_OTF2_H

#include <stdio.h>
#include "mpicast/error.h"

/* Converts the Chrome timeline in `tl` (read from its start) to an OTF2
 * archive in `outdir`. */
mc_err predict_timeline_otf2(FILE *tl, const char *outdir, mc_error *err);

#endif
