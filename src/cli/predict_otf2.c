/* OTF2 for mpicast predict: see predict_otf2.h. */
#include "predict_otf2.h"


#include "mpicast/export.h"

mc_err predict_timeline_otf2(FILE *tl, const char *outdir, mc_error *err)
{
    if (fflush(tl) != 0 || fseek(tl, 0, SEEK_SET) != 0)
        return mc_error_set(err, MC_ERR_IO, "%s: cannot read back the timeline", outdir);
    return mc_timeline_to_otf2(tl, outdir, err);
}
