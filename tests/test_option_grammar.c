/* The one option grammar (src/cli/opts.c) on a table: "--opt value" and
 * "--opt=value" give the same value, a flag given "=x" is refused, a
 * missing value and an unknown option are usage errors (exit 2),
 * repeatable values keep their order, "--" ends the options, a handler's
 * error keeps its exit code, and --help lists every row from the table. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli/opts.h"

typedef struct args {
    const char *platform;
    cli_list sets, pos;
    int json, count, replicate_seen;
    const char *replicate;
} args;

static int take_replicate(void *target, const char *opt, const char *value, mc_error *err)
{
    args *a = target;
    (void)opt;
    (void)err;
    a->replicate = value;
    a->replicate_seen = 1;
    return 0;
}

static int refuse_io(void *target, const char *opt, const char *value, mc_error *err)
{
    (void)target;
    mc_error_set(err, MC_ERR_IO, "%s: cannot open (%s)", value, opt);
    return -1;
}

/* Parses the NULL-terminated words into *a; the exit status, -1 to go on. */
static int parse(args *a, const char *const *words)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"demo";
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    cli_list_free(&a->sets);
    cli_list_free(&a->pos);
    memset(a, 0, sizeof *a);
    const cli_opt opts[] = {
        {"--platform", NULL, "FILE", CLI_VALUE, "platform file", &a->platform, NULL},
        {"--set", NULL, "KEY=VALUE", CLI_LIST, "one key\nsecond line", &a->sets, NULL},
        {"--json", "-j", NULL, CLI_FLAG, "JSON", &a->json, NULL},
        {"--count", NULL, "N", CLI_VALUE, "a count", &a->count, cli_set_count},
        {"--replicate", NULL, "R", CLI_OPTIONAL, "optional value", a, take_replicate},
        {"--open", NULL, "FILE", CLI_VALUE, NULL, NULL, refuse_io},
    };
    const cli_spec spec = {"demo", "usage: demo\n\n", "Exit status: 0\n", 16, opts,
                           CLI_NOPTS(opts), cli_collect, &a->pos, 0, 0};
    int rc;
    return cli_parse(&spec, argc, argv, &rc) ? rc : -1;
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* One required positional (cli_take_one): its value, or the exit status. */
static int parse_one(int argc, char **argv, const char **value)
{
    cli_one one = {NULL, "TRACE"};
    const cli_spec spec = {"demo", "usage: demo\n", NULL, 8, NULL, 0, cli_take_one, &one, 0, 0};
    int rc;
    if (cli_parse(&spec, argc, argv, &rc))
        return rc;
    *value = one.value;
    return -1;
}

int main(void)
{
    args a = {0};
    /* both spellings of a value option */
    CHECK_EQ_INT(parse(&a, WORDS("--platform", "p.ini", "T")), -1);
    CHECK_EQ_STR(a.platform, "p.ini");
    CHECK_EQ_INT(parse(&a, WORDS("--platform=p.ini", "T")), -1);
    CHECK_EQ_STR(a.platform, "p.ini");
    CHECK_EQ_INT(a.pos.n, 1);
    CHECK_EQ_STR(a.pos.v[0], "T");
    /* a value may contain '=' and begin with '-' */
    CHECK_EQ_INT(parse(&a, WORDS("--set=a.b=1", "--set", "-x=2")), -1);
    CHECK_EQ_INT(a.sets.n, 2);
    CHECK_EQ_STR(a.sets.v[0], "a.b=1");
    CHECK_EQ_STR(a.sets.v[1], "-x=2");
    /* repeatable values in the order given, whatever their spelling */
    CHECK_EQ_INT(parse(&a, WORDS("--set", "k=1", "T", "--set=k=2", "--set", "k=3")), -1);
    CHECK_EQ_INT(a.sets.n, 3);
    CHECK_EQ_STR(a.sets.v[0], "k=1");
    CHECK_EQ_STR(a.sets.v[1], "k=2");
    CHECK_EQ_STR(a.sets.v[2], "k=3");
    /* handlers take either spelling */
    CHECK_EQ_INT(parse(&a, WORDS("--count=7")), -1);
    CHECK_EQ_INT(a.count, 7);
    CHECK_EQ_INT(parse(&a, WORDS("--count", "9")), -1);
    CHECK_EQ_INT(a.count, 9);
    CHECK_EQ_INT(parse(&a, WORDS("--count", "0")), 2);
    CHECK_EQ_INT(parse(&a, WORDS("--count=x")), 2);
    /* a handler's non-usage error is bad input */
    CHECK_EQ_INT(parse(&a, WORDS("--open=f")), 1);
    /* flags: long, alias; "=x" refused */
    CHECK_EQ_INT(parse(&a, WORDS("-j")), -1);
    CHECK_EQ_INT(a.json, 1);
    CHECK_EQ_INT(parse(&a, WORDS("--json")), -1);
    CHECK_EQ_INT(a.json, 1);
    CHECK_EQ_INT(parse(&a, WORDS("--json=1")), 2);
    CHECK_EQ_INT(parse(&a, WORDS("--json=")), 2);
    /* missing value, unknown option, a prefix is not the option */
    CHECK_EQ_INT(parse(&a, WORDS("T", "--platform")), 2);
    CHECK_EQ_INT(parse(&a, WORDS("--nope")), 2);
    CHECK_EQ_INT(parse(&a, WORDS("--plat=p.ini")), 2);
    CHECK_EQ_INT(parse(&a, WORDS("--platformx", "p")), 2);
    /* optional value: taken when it is a number or given with '=' */
    CHECK_EQ_INT(parse(&a, WORDS("--replicate", "3", "T")), -1);
    CHECK_EQ_STR(a.replicate, "3");
    CHECK_EQ_INT(a.pos.n, 1);
    CHECK_EQ_INT(parse(&a, WORDS("--replicate", "T")), -1);
    CHECK_EQ_INT(a.replicate_seen, 1);
    CHECK_EQ_STR(a.replicate, "");
    CHECK_EQ_STR(a.pos.v[0], "T");
    CHECK_EQ_INT(parse(&a, WORDS("--replicate=3")), -1);
    CHECK_EQ_STR(a.replicate, "3");
    /* "--" ends the options; "-" alone is positional */
    CHECK_EQ_INT(parse(&a, WORDS("-", "--json", "--", "--json", "--set=x", "--")), -1);
    CHECK_EQ_INT(a.json, 1);
    CHECK_EQ_INT(a.sets.n, 0);
    CHECK_EQ_INT(a.pos.n, 4);
    CHECK_EQ_STR(a.pos.v[0], "-");
    CHECK_EQ_STR(a.pos.v[1], "--json");
    CHECK_EQ_STR(a.pos.v[2], "--set=x");
    CHECK_EQ_STR(a.pos.v[3], "--");
    /* exactly one positional where the command takes one */
    const char *one = NULL;
    char *w1[] = {"demo", "T"}, *w2[] = {"demo", "T", "U"}, *w0[] = {"demo"};
    CHECK_EQ_INT(parse_one(2, w1, &one), -1);
    CHECK_EQ_STR(one, "T");
    CHECK_EQ_INT(parse_one(3, w2, &one), 2);
    CHECK_EQ_INT(parse_one(1, w0, &one), 2);
    /* --help: exit 0, every listed row, continuation lines at the column */
    char path[] = "/tmp/mc_opts_help_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    int rc = parse(&a, WORDS("--json", "--help"));
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK_EQ_INT(rc, 0);
    char text[1024] = {0};
    CHECK(pread(fd, text, sizeof text - 1, 0) > 0);
    close(fd);
    unlink(path);
    CHECK_EQ_STR(text, "usage: demo\n\n"
                       "  --platform FILE  platform file\n"
                       "  --set KEY=VALUE  one key\n"
                       "                second line\n"
                       "  -j, --json    JSON\n"
                       "  --count N     a count\n"
                       "  --replicate [R]  optional value\n"
                       "Exit status: 0\n");
    cli_list_free(&a.sets);
    cli_list_free(&a.pos);
    puts("option grammar: both spellings, flags, missing values, lists, -- and help agree");
    return 0;
}
