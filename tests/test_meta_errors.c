/* Bad meta.json: a missing file is MC_ERR_IO, an unknown version
 * MC_ERR_VERSION, anything malformed MC_ERR_FORMAT naming the file and the
 * key; truncations of a valid file never crash. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpicast/format.h"

static char dir[64], path[128];

static void write_meta(const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK_EQ_INT(fwrite(text, 1, len, f), len);
    CHECK_EQ_INT(fclose(f), 0);
}

/* Reads `text` as meta.json; checks the code and that the message contains
 * the file name and `needle`. */
static void expect(const char *text, mc_err code, const char *needle)
{
    write_meta(text, strlen(text));
    mc_error err = {0};
    mc_meta *m = mc_meta_read(dir, &err);
    if (m || err.code != code || !strstr(err.msg, path) || !strstr(err.msg, needle)) {
        fprintf(stderr, "input: %s\ngot code %d, message: %s\nwanted code %d with '%s'\n", text,
                (int)err.code, err.msg, (int)code, needle);
        exit(1);
    }
}

#define OK_HEAD "{\"format_version\": 1, \"ranks\": 4"

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/mc-meta-bad-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/meta.json", dir);

    mc_error err = {0};
    CHECK(mc_meta_read(dir, &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_IO);
    CHECK(strstr(err.msg, path) != NULL);

    expect("{\"format_version\": 2, \"ranks\": 4}", MC_ERR_VERSION, "format_version");
    expect("{\"format_version\": \"1\", \"ranks\": 4}", MC_ERR_FORMAT, "key 'format_version'");
    expect("{\"ranks\": 4}", MC_ERR_FORMAT, "key 'format_version': missing");
    expect("garbage \x01\xff", MC_ERR_FORMAT, ":1:");
    expect("", MC_ERR_FORMAT, path);
    expect("[1, 2]", MC_ERR_FORMAT, "not a JSON object");
    expect("{\"format_version\": 1}", MC_ERR_FORMAT, "key 'ranks': missing");
    expect("{\"format_version\": 1, \"ranks\": 0}", MC_ERR_FORMAT, "key 'ranks'");
    expect("{\"format_version\": 1, \"ranks\": 2.5}", MC_ERR_FORMAT, "key 'ranks'");
    expect("{\"format_version\": 1, \"ranks\": 1, \"ranks\": 2}", MC_ERR_FORMAT, "duplicate");
    expect(OK_HEAD ", \"command\": 5}", MC_ERR_FORMAT, "key 'command': not a string");
    expect(OK_HEAD ", \"communicators\": {}}", MC_ERR_FORMAT, "key 'communicators'");
    expect(OK_HEAD ", \"communicators\": [3]}", MC_ERR_FORMAT, "key 'communicators[0]'");
    expect(OK_HEAD ", \"communicators\": [{\"members\": [0]}]}", MC_ERR_FORMAT,
           "key 'communicators[0].id': missing");
    expect(OK_HEAD ", \"communicators\": [{\"id\": \"1.x\", \"members\": [0]}]}", MC_ERR_FORMAT,
           "key 'communicators[0].id'");
    expect(OK_HEAD ", \"communicators\": [{\"id\": \"4294967296.0\", \"members\": [0]}]}",
           MC_ERR_FORMAT, "key 'communicators[0].id'");
    expect(OK_HEAD ", \"communicators\": [{\"id\": \"1.0\"}]}", MC_ERR_FORMAT,
           "key 'communicators[0].members': missing");
    expect(OK_HEAD ", \"communicators\": [{\"id\": \"1.0\", \"members\": [0, 4]}]}",
           MC_ERR_FORMAT, "key 'communicators[0].members[1]'");
    expect(OK_HEAD ", \"communicators\": [{\"id\": \"1.0\", \"members\": [0, 1], "
                   "\"local_size\": 3}]}",
           MC_ERR_FORMAT, "key 'communicators[0].local_size'");
    expect(OK_HEAD ", \"communicators\": [{\"id\": 0, \"members\": [0]}, {\"id\": \"0.0\", "
                   "\"members\": [0]}]}",
           MC_ERR_FORMAT, "key 'communicators[1].id': duplicate");
    expect(OK_HEAD ", \"sites\": [{\"module\": \"a\"}]}", MC_ERR_FORMAT,
           "key 'sites[0].id': missing");
    expect(OK_HEAD ", \"sites\": [{\"id\": -1}]}", MC_ERR_FORMAT, "key 'sites[0].id'");
    expect(OK_HEAD ", \"sites\": [{\"id\": 1, \"line\": \"x\"}]}", MC_ERR_FORMAT,
           "key 'sites[0].line'");
    expect(OK_HEAD ", \"sites\": [{\"id\": 1, \"offset\": \"12\"}]}", MC_ERR_FORMAT,
           "key 'sites[0].offset'");
    expect(OK_HEAD ", \"sites\": [{\"id\": 1, \"file\": null}]}", MC_ERR_FORMAT,
           "key 'sites[0].file'");

    /* the accepted forms: numeric and string ids, hex offsets, optional keys */
    const char *good = OK_HEAD ", \"communicators\": [{\"id\": 8589934593, \"members\": [1, 3]},"
                               " {\"id\": \"4294967295.2\", \"members\": [2]}],"
                               " \"sites\": [{\"id\": 5, \"offset\": \"0xff\"}], \"extra\": [1]}";
    write_meta(good, strlen(good));
    mc_meta *m = mc_meta_read(dir, &err);
    CHECK(m != NULL);
    CHECK_EQ_INT(mc_meta_comm_find(m, (2ull << 32) | 1)->local_size, 2);
    CHECK(mc_meta_comm_find(m, MC_COMM_SELF_BASE | 2) != NULL);
    CHECK(mc_meta_site_find(m, 5)->offset == 0xff);
    CHECK_EQ_STR(mc_meta_site_find(m, 5)->file, "");
    mc_meta_destroy(m);

    /* every prefix of a valid document fails cleanly (or, at full length, reads) */
    mc_meta *full = mc_meta_create(2);
    const int32_t both[] = {0, 1};
    mc_meta_site site = {9, "mod", 16, "fn", "f.c", 3};
    CHECK_EQ_INT(mc_meta_add_comm(full, 1ull << 32, both, 2, 2, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_add_site(full, &site, &err), MC_OK);
    CHECK_EQ_INT(mc_meta_set(full, "command", "./a.out", &err), MC_OK);
    CHECK_EQ_INT(mc_meta_write(full, dir, &err), MC_OK);
    mc_meta_destroy(full);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char text[4096];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    CHECK(n > 50 && n < sizeof text);
    for (size_t len = 0; len < n; len++) {
        write_meta(text, len);
        mc_meta *p = mc_meta_read(dir, &err);
        if (p) /* a prefix can only parse once the closing brace is in */
            CHECK(len + 1 >= n);
        else
            CHECK_EQ_INT(err.code, MC_ERR_FORMAT);
        mc_meta_destroy(p);
    }

    /* every single-byte change either reads or fails with a format/version error */
    const char repl[] = {'"', '}', ']', '-', '9', 'x', '\0', (char)0xff};
    for (size_t pos = 0; pos < n; pos++) {
        for (size_t k = 0; k < sizeof repl; k++) {
            char copy[4096];
            memcpy(copy, text, n);
            copy[pos] = repl[k];
            write_meta(copy, n);
            mc_error e2 = {0};
            mc_meta *p = mc_meta_read(dir, &e2);
            CHECK(p != NULL || e2.code == MC_ERR_FORMAT || e2.code == MC_ERR_VERSION);
            CHECK(p != NULL || strstr(e2.msg, path) != NULL);
            mc_meta_destroy(p);
        }
    }

    unlink(path);
    rmdir(dir);
    return 0;
}
