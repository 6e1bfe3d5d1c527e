/* The one option grammar (opts.h): the table-driven parser and the --help
 * generated from the same table. */
#include "opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { OPTS_USAGE = 2, OPTS_BAD_INPUT = 1 }; /* cli.h's exit codes (sweep-mpi too) */

/* The row whose name or alias is the first n characters of arg. */
static const cli_opt *find_opt(const cli_spec *spec, const char *arg, size_t n)
{
    for (size_t k = 0; k < spec->nopts; k++) {
        const cli_opt *o = &spec->opts[k];
        if ((strlen(o->name) == n && strncmp(o->name, arg, n) == 0) ||
            (o->alias && strlen(o->alias) == n && strncmp(o->alias, arg, n) == 0))
            return o;
    }
    return NULL;
}

static int usage(const cli_spec *spec, int *rc, const char *what, const char *arg)
{
    fprintf(stderr, "mpicast: %s: %s %s\n", spec->cmd, arg, what);
    *rc = OPTS_USAGE;
    return -1;
}

/* A handler's (or the positional callback's) error: usage errors are the
 * command's (exit 2), others name their file (exit 1). */
static int failed(const cli_spec *spec, const mc_error *err, int *rc)
{
    const char *msg = err->msg[0] ? err->msg : "bad argument";
    if (err->code == MC_ERR_USAGE || err->code == MC_OK) {
        if (spec->unprefixed)
            fprintf(stderr, "mpicast: %s\n", msg);
        else
            fprintf(stderr, "mpicast: %s: %s\n", spec->cmd, msg);
        *rc = OPTS_USAGE;
    } else {
        fprintf(stderr, "mpicast: %s\n", msg);
        *rc = OPTS_BAD_INPUT;
    }
    return -1;
}

/* Stores value (NULL for a flag) as the row says. */
static int apply(const cli_spec *spec, const cli_opt *o, const char *value, int *rc)
{
    mc_error err = {0};
    int bad = 0;
    if (o->fn)
        bad = o->fn(o->target, o->name, value, &err);
    else if (o->kind == CLI_FLAG)
        *(int *)o->target = 1;
    else if (o->kind == CLI_LIST)
        bad = cli_list_add(o->target, value, &err);
    else
        *(const char **)o->target = value;
    return bad ? failed(spec, &err, rc) : 0;
}

/* The value of option o at argv[*i] (eq: its "=", or NULL); NULL when
 * missing. Advances *i past a value given as the next argument. */
static const char *value_of(const cli_opt *o, int argc, char **argv, int *i, const char *eq)
{
    if (eq)
        return eq + 1;
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (o->kind == CLI_OPTIONAL && !(next && next[0] >= '0' && next[0] <= '9'))
        return ""; /* "--replicate" alone, or followed by something else */
    if (next)
        ++*i;
    return next;
}

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_parse(const cli_spec *spec, int argc, char **argv, int *rc)
{
    int options = 1;
    *rc = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (options && strcmp(a, "--") == 0) {
            options = 0; /* the rest is positional, as written */
            continue;
        }
        if (!options || a[0] != '-' || a[1] == '\0') {
            mc_error err = {0};
            if (spec->options_first)
                options = 0;
            if (spec->positional && spec->positional(spec->pos_ctx, a, &err))
                return failed(spec, &err, rc);
            if (!spec->positional) {
                fprintf(stderr, "mpicast: %s: unexpected argument %s (see 'mpicast %s --help')\n",
                        spec->cmd, a, spec->cmd);
                *rc = OPTS_USAGE;
                return -1;
            }
            continue;
        }
        if (is_help(a)) {
            cli_print_help(spec, stdout);
            return -1;
        }
        const char *eq = strchr(a, '=');
        const cli_opt *o = find_opt(spec, a, eq ? (size_t)(eq - a) : strlen(a));
        if (!o) {
            fprintf(stderr, "mpicast: %s: unknown option %s (see 'mpicast %s --help')\n",
                    spec->cmd, a, spec->cmd);
            *rc = OPTS_USAGE;
            return -1;
        }
        if (o->kind == CLI_FLAG && eq)
            return usage(spec, rc, "takes no value", o->name);
        const char *value = o->kind == CLI_FLAG ? NULL : value_of(o, argc, argv, &i, eq);
        if (o->kind != CLI_FLAG && !value)
            return usage(spec, rc, "needs a value", o->name);
        if (apply(spec, o, value, rc))
            return -1;
    }
    if (spec->positional == cli_take_one && !((cli_one *)spec->pos_ctx)->value) {
        fprintf(stderr, "mpicast: %s: no %s given (see 'mpicast %s --help')\n", spec->cmd,
                ((cli_one *)spec->pos_ctx)->what, spec->cmd);
        *rc = OPTS_USAGE;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ help */

/* "  -q, --quiet" or "  --platform FILE" or "  --replicate [R]": its width. */
static int print_label(const cli_opt *o, FILE *out)
{
    int w = fprintf(out, "  ");
    if (o->alias)
        w += fprintf(out, "%s, ", o->alias);
    w += fprintf(out, "%s", o->name);
    if (o->metavar)
        w += fprintf(out, o->kind == CLI_OPTIONAL ? " [%s]" : " %s", o->metavar);
    return w;
}

/* The help text from `column`, its continuation lines indented to it;
 * a label wider than the column is followed by two spaces. */
static void print_row(const cli_opt *o, int column, FILE *out)
{
    int w = print_label(o, out);
    fprintf(out, "%*s", w + 2 <= column ? column - w : 2, "");
    for (const char *p = o->help; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(out, "%.*s\n", (int)n, p);
        if (!nl || !nl[1])
            break;
        p = nl + 1;
        fprintf(out, "%*s", column, "");
    }
}

void cli_print_help(const cli_spec *spec, FILE *out)
{
    fputs(spec->head, out);
    for (size_t k = 0; k < spec->nopts; k++)
        if (spec->opts[k].help)
            print_row(&spec->opts[k], spec->column, out);
    if (spec->tail)
        fputs(spec->tail, out);
}

/* ------------------------------------------------------------ values */

int cli_list_add(cli_list *list, const char *value, mc_error *err)
{
    const char **v = realloc(list->v, (size_t)(list->n + 1) * sizeof *v);
    if (!v) {
        mc_error_set(err, MC_ERR_NOMEM, "out of memory");
        return -1;
    }
    v[list->n++] = value;
    list->v = v;
    return 0;
}

int cli_collect(void *list, char *arg, mc_error *err)
{
    return cli_list_add(list, arg, err);
}

void cli_list_free(cli_list *list)
{
    free(list->v);
    list->v = NULL;
    list->n = 0;
}

int cli_set_count(void *target, const char *opt, const char *value, mc_error *err)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < 1 || v > (1L << 30)) {
        mc_error_set(err, MC_ERR_USAGE, "%s %s: expected a positive count", opt, value);
        return -1;
    }
    *(int *)target = (int)v;
    return 0;
}

int cli_take_one(void *one, char *arg, mc_error *err)
{
    cli_one *o = one;
    if (o->value) {
        mc_error_set(err, MC_ERR_USAGE, "more than one %s given: %s", o->what, arg);
        return -1;
    }
    o->value = arg;
    return 0;
}
