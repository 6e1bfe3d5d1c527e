/* mpicast extrapolate --format dumpi: the pseudo-trace goes from the
 * extrapolation's event source (mc_extrap_source, which generates each
 * rank's events on demand) straight into the DUMPI writer, rank after rank.
 * Nothing of the P-rank run is materialised as a mpicast trace, so a 10^6-
 * rank pseudo-trace costs the writer one rank's state and one open file. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "mpicast/export.h"
#include "mpicast/extrap.h"

int cli_extrapolate_dumpi(const mc_extrap *x, int nranks, const char *dir, int quiet,
                          mc_error *err)
{
    mc_source *s = mc_extrap_source(x, nranks, err);
    if (!s)
        return err->code ? err->code : MC_ERR_USAGE;
    mc_progress prog = {.out = !quiet && isatty(2) ? stderr : NULL, .what = "extrapolate: ranks"};
    mc_export_info info = {0};
    mc_err rc = mc_export_dumpi_source(s, dir, NULL, &info, &prog, err);
    mc_source_close(s);
    if (!rc)
        cli_warn_dropped("extrapolate", "--format dumpi", &info);
    return rc;
}
