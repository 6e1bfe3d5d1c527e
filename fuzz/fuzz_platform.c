/* libFuzzer target: platform INI files and values (src/platform). Byte 0
 * selects: even, the rest is an INI file, which, when it loads, must write
 * and load back with every key equal (`mpicast-bench -o` writes what
 * `predict --platform` reads); odd, the rest is one `--set` assignment and
 * a value parsed in each unit. */
#include <math.h>

#include "fuzz_common.h"
#include "mpicast/platform.h"

static int same_value(double a, double b)
{
    return a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * fabs(a);
}

static void check_roundtrip(const mc_platform *p)
{
    char path[600];
    snprintf(path, sizeof path, "%s/out.ini", fz_tmpdir());
    mc_error err = {0};
    if (mc_platform_write(p, path, &err) != MC_OK)
        abort();
    mc_platform *back = mc_platform_load(path, &err);
    if (!back) {
        fprintf(stderr, "fuzz: written platform does not load: %s\n", err.msg);
        abort();
    }
    mc_unit unit;
    const char *key;
    for (int i = 0; (key = mc_platform_key_at(i, &unit, NULL)) != NULL; i++) {
        int same = unit == MC_UNIT_STRING
                       ? strcmp(mc_platform_str(p, key), mc_platform_str(back, key)) == 0
                       : same_value(mc_platform_num(p, key), mc_platform_num(back, key));
        if (!same) {
            fprintf(stderr, "fuzz: %s does not read back\n", key);
            abort();
        }
    }
    mc_platform_destroy(back);
}

static void one_value(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    if (mc_platform_set(p, text, &err) != MC_OK)
        fz_check_message(err.msg);
    mc_platform_destroy(p);
    static const mc_unit units[] = {MC_UNIT_NONE, MC_UNIT_TIME, MC_UNIT_BYTES, MC_UNIT_BANDWIDTH};
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        double v;
        if (mc_parse_value(text, units[u], &v, &err) != MC_OK)
            fz_check_message(err.msg);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1) {
        one_value(data + 1, size - 1);
        return 0;
    }
    const char *path = fz_write("platform.ini", data + 1, size - 1);
    mc_error err = {0};
    mc_platform *p = mc_platform_load(path, &err);
    if (!p) {
        fz_check_message(err.msg);
        return 0;
    }
    check_roundtrip(p);
    mc_platform_destroy(p);
    return 0;
}
