/* Values with units: every unit, inf, errors, and exact round trips of the
 * formatting used when a platform is written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/platform.h"
#include "platform/units.h"

static double parse_ok(const char *text, mc_unit unit)
{
    double v = -12345;
    mc_error err = {0};
    mc_err rc = mc_parse_value(text, unit, &v, &err);
    if (rc != MC_OK)
        fprintf(stderr, "'%s': %s\n", text, err.msg);
    CHECK_EQ_INT(rc, MC_OK);
    return v;
}

/* Exact equality: "1.5us" must be the double nearest to 1.5e-6. */
#define EXACT(text, unit, value)                                                             \
    do {                                                                                     \
        double got_ = parse_ok(text, unit), want_ = (value);                                 \
        if (got_ != want_) {                                                                 \
            fprintf(stderr, "%s:%d: '%s' gave %.17g, expected %.17g\n", __FILE__, __LINE__, \
                    text, got_, want_);                                                      \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static void parse_fails(const char *text, mc_unit unit, const char *msg)
{
    double v = 0;
    mc_error err = {0};
    CHECK_EQ_INT(mc_parse_value(text, unit, &v, &err), MC_ERR_PLATFORM);
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
    CHECK_EQ_STR(err.msg, msg);
}

static void round_trip(double v, mc_unit unit)
{
    char buf[128];
    mc_format_value(buf, sizeof buf, v, unit);
    double back = parse_ok(buf, unit);
    if (back != v) {
        fprintf(stderr, "%.17g -> '%s' -> %.17g\n", v, buf, back);
        exit(1);
    }
}

static void formats_as(double v, mc_unit unit, const char *want)
{
    char buf[128];
    mc_format_value(buf, sizeof buf, v, unit);
    CHECK_EQ_STR(buf, want);
}

int main(void)
{
    /* time: bare number is seconds */
    EXACT("1.5us", MC_UNIT_TIME, 1.5e-6);
    EXACT("250ns", MC_UNIT_TIME, 250e-9);
    EXACT("2ms", MC_UNIT_TIME, 2e-3);
    EXACT("1s", MC_UNIT_TIME, 1);
    EXACT("3", MC_UNIT_TIME, 3);
    EXACT(" 0.5 us ", MC_UNIT_TIME, 0.5e-6);
    EXACT("1e-6s", MC_UNIT_TIME, 1e-6);
    EXACT("1.5e3ns", MC_UNIT_TIME, 1.5e-6);
    EXACT("1\xc2\xb5s", MC_UNIT_TIME, 1e-6);
    EXACT(".5ms", MC_UNIT_TIME, 0.5e-3);
    EXACT("0", MC_UNIT_TIME, 0);
    EXACT("inf", MC_UNIT_TIME, INFINITY);
    EXACT("-2us", MC_UNIT_TIME, -2e-6); /* sign checks belong to the keys */

    /* bytes: decimal and binary prefixes; bare number is bytes */
    EXACT("64KiB", MC_UNIT_BYTES, 65536);
    EXACT("1MB", MC_UNIT_BYTES, 1e6);
    EXACT("16MiB", MC_UNIT_BYTES, 16 * 1048576.0);
    EXACT("1GB", MC_UNIT_BYTES, 1e9);
    EXACT("1GiB", MC_UNIT_BYTES, 1073741824.0);
    EXACT("2TB", MC_UNIT_BYTES, 2e12);
    EXACT("1.5KB", MC_UNIT_BYTES, 1500);
    EXACT("1kB", MC_UNIT_BYTES, 1000);
    EXACT("4096", MC_UNIT_BYTES, 4096);
    EXACT("12B", MC_UNIT_BYTES, 12);
    EXACT("INF", MC_UNIT_BYTES, INFINITY);

    /* bandwidth: bytes or bits per second; bare number is B/s */
    EXACT("5GB/s", MC_UNIT_BANDWIDTH, 5e9);
    EXACT("100MB/s", MC_UNIT_BANDWIDTH, 1e8);
    EXACT("10Gb/s", MC_UNIT_BANDWIDTH, 1.25e9);
    EXACT("1Gbps", MC_UNIT_BANDWIDTH, 1.25e8);
    EXACT("2GiB/s", MC_UNIT_BANDWIDTH, 2147483648.0);
    EXACT("800b/s", MC_UNIT_BANDWIDTH, 100);
    EXACT("1e9", MC_UNIT_BANDWIDTH, 1e9);
    EXACT("1KB/s", MC_UNIT_BANDWIDTH, 1000);
    EXACT("inf", MC_UNIT_BANDWIDTH, INFINITY);
    EXACT("infinity", MC_UNIT_BANDWIDTH, INFINITY);

    /* plain numbers, with SimGrid's flop spelling */
    EXACT("2", MC_UNIT_NONE, 2);
    EXACT("1e9", MC_UNIT_NONE, 1e9);
    EXACT("1Gf", MC_UNIT_NONE, 1e9);
    EXACT("2.5Mflops", MC_UNIT_NONE, 2.5e6);

    /* errors name the value and say what was expected */
    parse_fails("1.5xs", MC_UNIT_TIME,
                "bad value '1.5xs' (unknown unit 'xs'): expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("fast", MC_UNIT_TIME, "bad value 'fast': expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("", MC_UNIT_TIME, "bad value '': expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("us", MC_UNIT_TIME, "bad value 'us': expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("1e", MC_UNIT_TIME,
                "bad value '1e' (unknown unit 'e'): expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("1 2", MC_UNIT_TIME,
                "bad value '1 2' (unknown unit '2'): expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("nan", MC_UNIT_TIME, "bad value 'nan': expected a time like 1.5us, 250ns, 2ms or 1s");
    parse_fails("1e999", MC_UNIT_TIME, "bad value '1e999': out of range");
    parse_fails("5GB", MC_UNIT_BANDWIDTH,
                "bad value '5GB' (unknown unit 'GB'): expected a bandwidth like 5GB/s, 100MB/s, 10Gb/s or inf");
    parse_fails("5Kb", MC_UNIT_BYTES,
                "bad value '5Kb' (unknown unit 'Kb'): expected a size like 64KiB, 1MB or 4096");
    parse_fails("3us", MC_UNIT_BYTES,
                "bad value '3us' (unknown unit 'us'): expected a size like 64KiB, 1MB or 4096");
    parse_fails("2x", MC_UNIT_NONE,
                "bad value '2x' (unknown unit 'x'): expected a number like 2, 1e9 or 1Gf");
    parse_fails("loggp", MC_UNIT_STRING, "bad value 'loggp': a name is not a number");

    /* formatting picks a readable unit ... */
    formats_as(5e-7, MC_UNIT_TIME, "500ns");
    formats_as(1.5e-6, MC_UNIT_TIME, "1.5us");
    formats_as(2e-3, MC_UNIT_TIME, "2ms");
    formats_as(0, MC_UNIT_TIME, "0");
    formats_as(65536, MC_UNIT_BYTES, "64KiB");
    formats_as(1e6, MC_UNIT_BYTES, "1MB");
    formats_as(1234, MC_UNIT_BYTES, "1.234KB");
    formats_as(5e9, MC_UNIT_BANDWIDTH, "5GB/s");
    formats_as(1.25e9, MC_UNIT_BANDWIDTH, "1.25GB/s");
    formats_as(INFINITY, MC_UNIT_BANDWIDTH, "inf");
    formats_as(1e9, MC_UNIT_NONE, "1e9");
    formats_as(2, MC_UNIT_NONE, "2");

    /* ... and always reads back to the same double */
    const mc_unit units[] = {MC_UNIT_TIME, MC_UNIT_BYTES, MC_UNIT_BANDWIDTH, MC_UNIT_NONE};
    unsigned seed = 12345;
    for (int u = 0; u < 4; u++) {
        for (int i = 0; i < 20000; i++) {
            seed = seed * 1103515245u + 12345u;
            double mant = (double)(seed >> 8) / (1u << 24);
            seed = seed * 1103515245u + 12345u;
            int e = (int)(seed >> 16) % 60 - 30;
            round_trip(ldexp(mant, e) * pow(10, e % 7), units[u]);
        }
        round_trip(1e-300, units[u]);
        round_trip(1e300, units[u]);
        round_trip(4.9e-324, units[u]);
        round_trip(1.7976931348623157e308, units[u]);
        round_trip(-3.25e-6, units[u]);
    }
    return 0;
}
