/* Values with units: parsing ("1.5us", "64KiB", "10Gb/s", "inf") and the
 * inverse formatting used by mc_platform_write.
 *
 * Decimal prefixes are applied by shifting the decimal exponent of the text
 * before strtod ("1.5us" is read as "1.5e-6"), so the result is the double
 * nearest to the written quantity and formatting can round-trip exactly;
 * binary prefixes (Ki, Mi, ...) and bits (/8) are exact powers of two. */
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpicast/error.h"

#define VALUE_MAX 128

/* A suffix decoded: value = number × 10^dec × 2^bin / (bits ? 8 : 1). */
typedef struct scale {
    int dec, bin, bits;
} scale;

static const char *expected_for(mc_unit unit)
{
    switch (unit) {
    case MC_UNIT_TIME: return "expected a time like 1.5us, 250ns, 2ms or 1s";
    case MC_UNIT_BYTES: return "expected a size like 64KiB, 1MB or 4096";
    case MC_UNIT_BANDWIDTH: return "expected a bandwidth like 5GB/s, 100MB/s, 10Gb/s or inf";
    case MC_UNIT_NONE: return "expected a number like 2, 1e9 or 1Gf";
    case MC_UNIT_FREQUENCY: return "expected a frequency like 2.5GHz, 800MHz or 2e9";
    case MC_UNIT_STRING: break;
    }
    return "expected a name";
}

/* Decodes a whole string as an SI or binary prefix ("", k, M, Gi, ...). */
static int parse_prefix(const char *s, size_t n, scale *sc)
{
    static const struct { const char *p; int dec, bin; } prefixes[] = {
        {"", 0, 0},    {"k", 3, 0},    {"K", 3, 0},    {"M", 6, 0},    {"G", 9, 0},
        {"T", 12, 0},  {"P", 15, 0},   {"Ki", 0, 10},  {"Mi", 0, 20},  {"Gi", 0, 30},
        {"Ti", 0, 40}, {"Pi", 0, 50},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (strlen(prefixes[i].p) == n && strncmp(s, prefixes[i].p, n) == 0) {
            sc->dec = prefixes[i].dec;
            sc->bin = prefixes[i].bin;
            return 1;
        }
    }
    return 0;
}

static int ends_with(const char *s, size_t n, const char *tail, size_t *rest)
{
    size_t t = strlen(tail);
    if (n < t || strncmp(s + n - t, tail, t) != 0)
        return 0;
    *rest = n - t;
    return 1;
}

static int parse_time_suffix(const char *s, scale *sc)
{
    static const struct { const char *u; int dec; } units[] = {
        {"", 0}, {"s", 0}, {"ms", -3}, {"us", -6}, {"\xc2\xb5s", -6}, {"\xce\xbcs", -6}, {"ns", -9},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(s, units[i].u) == 0) {
            sc->dec = units[i].dec;
            return 1;
        }
    }
    return 0;
}

static int parse_bytes_suffix(const char *s, scale *sc)
{
    size_t n = strlen(s), rest;
    if (n == 0)
        return 1;
    return ends_with(s, n, "B", &rest) && parse_prefix(s, rest, sc);
}

static int parse_bandwidth_suffix(const char *s, scale *sc)
{
    size_t n = strlen(s), rest;
    if (n == 0)
        return 1;
    if (!ends_with(s, n, "/s", &rest) && !ends_with(s, n, "ps", &rest))
        return 0;
    n = rest;
    if (ends_with(s, n, "B", &rest))
        return parse_prefix(s, rest, sc);
    if (ends_with(s, n, "b", &rest)) {
        sc->bits = 1;
        return parse_prefix(s, rest, sc);
    }
    return 0;
}

static int parse_plain_suffix(const char *s, scale *sc)
{
    size_t n = strlen(s), rest;
    /* "1Gf", "2.5Gflops": flop counts and rates in SimGrid's spelling. */
    if (ends_with(s, n, "flop/s", &rest) || ends_with(s, n, "flops", &rest) ||
        ends_with(s, n, "f/s", &rest) || ends_with(s, n, "f", &rest))
        n = rest;
    return parse_prefix(s, n, sc);
}

/* "2.5GHz", "800MHz", "2e9" (Hz). */
static int parse_frequency_suffix(const char *s, scale *sc)
{
    size_t n = strlen(s), rest;
    if (n == 0)
        return 1;
    return ends_with(s, n, "Hz", &rest) && rest <= 1 && parse_prefix(s, rest, sc) && sc->bin == 0;
}

static int parse_suffix(const char *s, mc_unit unit, scale *sc)
{
    switch (unit) {
    case MC_UNIT_TIME: return parse_time_suffix(s, sc);
    case MC_UNIT_BYTES: return parse_bytes_suffix(s, sc);
    case MC_UNIT_BANDWIDTH: return parse_bandwidth_suffix(s, sc);
    case MC_UNIT_NONE: return parse_plain_suffix(s, sc);
    case MC_UNIT_FREQUENCY: return parse_frequency_suffix(s, sc);
    case MC_UNIT_STRING: break;
    }
    return 0;
}

/* Splits "[+-]digits[.digits][e[+-]digits]" off the front of s. Returns the
 * length consumed (0: no number); mantissa copied to mant, exponent in *exp. */
static size_t scan_number(const char *s, char *mant, size_t mlen, long *exp)
{
    size_t i = 0, m = 0, ndigits = 0;
    int seen_point = 0;
    if (s[i] == '+' || s[i] == '-') {
        if (s[i] == '-')
            mant[m++] = '-';
        i++;
    }
    while (isdigit((unsigned char)s[i]) || (s[i] == '.' && !seen_point)) {
        if (s[i] == '.')
            seen_point = 1;
        else
            ndigits++;
        if (m + 1 < mlen)
            mant[m++] = s[i];
        i++;
    }
    mant[m] = '\0';
    if (ndigits == 0)
        return 0;
    *exp = 0;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) ||
         ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
        int neg = s[++i] == '-';
        if (s[i] == '+' || s[i] == '-')
            i++;
        long e = 0;
        for (; isdigit((unsigned char)s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        *exp = neg ? -e : e;
    }
    return i;
}

static void trim_copy(char *dst, size_t len, const char *src)
{
    while (isspace((unsigned char)*src))
        src++;
    size_t n = strlen(src);
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int is_inf_word(const char *s)
{
    return strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0;
}

mc_err mc_parse_value(const char *text, mc_unit unit, double *out, mc_error *err)
{
    if (unit == MC_UNIT_STRING)
        return mc_error_set(err, MC_ERR_PLATFORM, "bad value '%s': a name is not a number", text);
    if (strlen(text) >= VALUE_MAX)
        return mc_error_set(err, MC_ERR_PLATFORM, "bad value '%.20s...': too long", text);
    char buf[VALUE_MAX];
    trim_copy(buf, sizeof buf, text);

    const char *p = buf;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (is_inf_word(p)) {
        *out = neg ? -INFINITY : INFINITY;
        return MC_OK;
    }

    char mant[VALUE_MAX];
    long exp = 0;
    size_t used = scan_number(buf, mant, sizeof mant, &exp);
    if (used == 0)
        return mc_error_set(err, MC_ERR_PLATFORM, "bad value '%s': %s", buf, expected_for(unit));
    const char *suffix = buf + used;
    while (isspace((unsigned char)*suffix))
        suffix++;
    scale sc = {0, 0, 0};
    if (!parse_suffix(suffix, unit, &sc))
        return mc_error_set(err, MC_ERR_PLATFORM, "bad value '%s' (unknown unit '%s'): %s", buf,
                            suffix, expected_for(unit));

    char num[VALUE_MAX + 32];
    snprintf(num, sizeof num, "%se%ld", mant, exp + sc.dec);
    double v = strtod(num, NULL);
    v = ldexp(v, sc.bin);
    if (sc.bits)
        v /= 8;
    if (!isfinite(v))
        return mc_error_set(err, MC_ERR_PLATFORM, "bad value '%s': out of range", buf);
    *out = v;
    return MC_OK;
}

/* ------------------------------------------------------------ formatting */

/* Shortest decimal digits that read back as v (v finite, > 0): v equals
 * digits × 10^(*exp10). */
static void shortest_digits(double v, char *digits, size_t len, int *exp10)
{
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp is "d.ddde[+-]XX" or "de[+-]XX". */
    size_t n = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p) && n + 1 < len)
            digits[n++] = *p;
    digits[n] = '\0';
    int e = *p == 'e' ? atoi(p + 1) : 0;
    while (n > 1 && digits[n - 1] == '0')
        digits[--n] = '\0';
    *exp10 = e - (int)(n - 1);
}

/* Renders digits × 10^e as readable decimal text. */
static void render(char *buf, size_t len, const char *digits, int e)
{
    int n = (int)strlen(digits);
    int point = n + e; /* digits before the decimal point */
    if (e >= 0 && e <= 6) {
        snprintf(buf, len, "%s%.*s", digits, e, "000000");
    } else if (e < 0 && point > 0) {
        snprintf(buf, len, "%.*s.%s", point, digits, digits + point);
    } else if (e < 0 && point > -6) {
        snprintf(buf, len, "0.%.*s%s", -point, "000000", digits);
    } else if (n > 1) {
        snprintf(buf, len, "%c.%se%d", digits[0], digits + 1, point - 1);
    } else {
        snprintf(buf, len, "%se%d", digits, e);
    }
}

/* Formats |v| in units of 10^unit_exp followed by the unit name. */
static void format_decimal(char *buf, size_t len, double v, int unit_exp, const char *name)
{
    char digits[32], num[64];
    int e;
    shortest_digits(v, digits, sizeof digits, &e);
    render(num, sizeof num, digits, e - unit_exp);
    snprintf(buf, len, "%s%s", num, name);
}

static int decimal_unit(double v, const int *exps, int n)
{
    for (int i = 0; i < n; i++)
        if (v >= pow(10, exps[i]))
            return i;
    return n - 1;
}

static void format_bytes(char *buf, size_t len, double v)
{
    static const char *bin_names[] = {"PiB", "TiB", "GiB", "MiB", "KiB"};
    static const int bin_shift[] = {50, 40, 30, 20, 10};
    for (int i = 0; i < 5; i++) {
        double q = ldexp(v, -bin_shift[i]);
        if (q >= 1 && q == floor(q)) {
            format_decimal(buf, len, q, 0, bin_names[i]);
            return;
        }
    }
    static const int exps[] = {12, 9, 6, 3, 0};
    static const char *names[] = {"TB", "GB", "MB", "KB", "B"};
    int u = decimal_unit(v, exps, 5);
    format_decimal(buf, len, v, exps[u], names[u]);
}

void mc_format_value(char *buf, size_t len, double v, mc_unit unit)
{
    if (isinf(v)) {
        snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == 0 || isnan(v)) {
        snprintf(buf, len, "0");
        return;
    }
    char body[96];
    double a = fabs(v);
    switch (unit) {
    case MC_UNIT_TIME: {
        static const int exps[] = {0, -3, -6, -9};
        static const char *names[] = {"s", "ms", "us", "ns"};
        int u = decimal_unit(a, exps, 4);
        format_decimal(body, sizeof body, a, exps[u], names[u]);
        break;
    }
    case MC_UNIT_BYTES:
        format_bytes(body, sizeof body, a);
        break;
    case MC_UNIT_BANDWIDTH: {
        static const int exps[] = {12, 9, 6, 3, 0};
        static const char *names[] = {"TB/s", "GB/s", "MB/s", "KB/s", "B/s"};
        int u = decimal_unit(a, exps, 5);
        format_decimal(body, sizeof body, a, exps[u], names[u]);
        break;
    }
    case MC_UNIT_FREQUENCY: {
        static const int exps[] = {12, 9, 6, 3, 0};
        static const char *names[] = {"THz", "GHz", "MHz", "kHz", "Hz"};
        int u = decimal_unit(a, exps, 5);
        format_decimal(body, sizeof body, a, exps[u], names[u]);
        break;
    }
    case MC_UNIT_NONE:
    case MC_UNIT_STRING:
        format_decimal(body, sizeof body, a, 0, "");
        break;
    }
    snprintf(buf, len, "%s%s", v < 0 ? "-" : "", body);
}
