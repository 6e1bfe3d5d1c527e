/* Internal to platform: formatting values with units so that parsing the
 * text back gives the same double (round trip of mc_platform_write). */
#ifndef MPICAST_PLATFORM_UNITS_H
#define MPICAST_PLATFORM_UNITS_H

#include <stddef.h>
#include "mpicast/platform.h"

/* Writes v in the most readable unit of its kind ("0.5us", "64KiB",
 * "5GB/s", "inf") into buf; mc_parse_value(buf) gives back exactly v. */
void mc_format_value(char *buf, size_t len, double v, mc_unit unit);

#endif
