/* A message longer than an mc_error holds keeps its start and its end — the
 * reason — with "..." in the middle (issue 26: messages were cut at ~1,030
 * bytes, so a long path lost the reason), for mc_error_set and for
 * mc_error_prefix, and never splits a UTF-8 character. */
#include <string.h>
#include "check.h"
#include "mpicast/error.h"

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 0 : (*s & 0xE0) == 0xC0 ? 1 : (*s & 0xF0) == 0xE0 ? 2 : (*s & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0)
            return 0;
        for (int i = 1; i <= n; i++)
            if ((s[i] & 0xC0) != 0x80)
                return 0;
        s += n + 1;
    }
    return 1;
}

int main(void)
{
    char path[3000];
    memset(path, 'd', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = 0;
    mc_error e = {0};
    CHECK(mc_error_set(&e, MC_ERR_IO, "%s: cannot open: No such file or directory", path) ==
          MC_ERR_IO);
    CHECK(strlen(e.msg) < sizeof e.msg);
    CHECK(ends_with(e.msg, "dd: cannot open: No such file or directory"));
    CHECK(strncmp(e.msg, "/ddd", 4) == 0 && strstr(e.msg, "...") != NULL);

    /* a short message is untouched */
    mc_error_set(&e, MC_ERR_FORMAT, "%s:%d: %s", "f.txt", 3, "bad number");
    CHECK(strcmp(e.msg, "f.txt:3: bad number") == 0);
    /* a prefix to a message that then no longer fits keeps the reason too */
    mc_error_prefix(&e, "--set %s", path);
    CHECK(strncmp(e.msg, "--set /dd", 9) == 0);
    CHECK(ends_with(e.msg, ": f.txt:3: bad number"));

    /* multi-byte characters around both cuts stay whole */
    char wide[4000] = "";
    for (int i = 0; i < 1300; i++)
        strcat(wide, "\xc3\xa9"); /* é */
    mc_error_set(&e, MC_ERR_IO, "%s: reason", wide);
    CHECK(valid_utf8((const unsigned char *)e.msg));
    CHECK(ends_with(e.msg, "\xc3\xa9: reason"));
    return 0;
}
