/* The files a subcommand writes (cli_output.h). */
#include "cli_output.h"

#include <string.h>

#include "cli.h"

int cli_output_clear(const char *out, const char *const *inputs, size_t n)
{
    mc_error err = {0};
    if (!out || strcmp(out, "-") == 0)
        return CLI_OK;
    if (mc_out_refuse_input(out, inputs, n, &err) != MC_OK)
        return cli_fail(&err);
    return CLI_OK;
}

FILE *cli_output_open(mc_out *o, const char *out, mc_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (strcmp(out, "-") == 0)
        return stdout;
    return mc_out_open(o, out, 0, err) == MC_OK ? o->f : NULL;
}

mc_err cli_output_finish(mc_out *o, FILE *f, mc_err rc, mc_error *err)
{
    if (f == stdout)
        return fflush(stdout) != 0 && rc == MC_OK
                   ? mc_error_set(err, MC_ERR_IO, "stdout: write failed") : rc;
    if (rc != MC_OK) {
        mc_out_abort(o);
        return rc;
    }
    return mc_out_commit(o, err);
}
