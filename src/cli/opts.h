/* Internal to the mpicast CLI (and mpicast-sweep-mpi): the one option
 * grammar of every subcommand. A command describes its options in a table
 * (cli_opt rows) inside a cli_spec; cli_parse reads argv by that table and
 * cli_print_help prints --help from it, so the parser and the help cannot
 * disagree.
 *
 * Grammar: "--opt value" and "--opt=value" for every value option (the
 * value may itself contain '=' or start with '-'); a flag given "=x" is
 * refused; "--help" / "-h" prints the help; a bare "--" ends the options
 * (everything after it is positional, as written); "-" alone is positional.
 * Errors are one line on stderr, "mpicast: CMD: ...", and exit 2
 * (a handler's non-usage error: "mpicast: MSG", exit 1).
 */
#ifndef MPICAST_CLI_OPTS_H
#define MPICAST_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "mpicast/error.h"

typedef enum cli_kind {
    CLI_FLAG,     /* no value: *(int *)target = 1 */
    CLI_VALUE,    /* one value: *(const char **)target = value (the last given wins) */
    CLI_LIST,     /* repeatable value: appended to (cli_list *)target, in order */
    CLI_OPTIONAL, /* "--opt", "--opt=V" or "--opt V" when V starts with a digit;
                     the handler gets "" when no value was given */
} cli_kind;

/* A handler: takes the value (NULL for a flag) of option `opt` (its table
 * name, for messages); 0, or -1 with err set to the whole message
 * (MC_ERR_USAGE: a usage error, exit 2; any other code: exit 1). */
typedef int (*cli_opt_fn)(void *target, const char *opt, const char *value, mc_error *err);

typedef struct cli_opt {
    const char *name;    /* "--platform" (or a short-only "-o") */
    const char *alias;   /* another spelling such as "-q", or NULL */
    const char *metavar; /* "FILE" in the help; NULL for a flag */
    cli_kind kind;
    const char *help;    /* may span lines ('\n'); NULL: not listed in --help */
    void *target;        /* where the value goes, or the handler's context */
    cli_opt_fn fn;       /* when set, called instead of storing into target */
} cli_opt;

/* Repeatable values in the order given; free with cli_list_free. */
typedef struct cli_list {
    const char **v;
    int n;
} cli_list;

typedef struct cli_spec {
    const char *cmd;      /* "predict": in messages and "see 'mpicast CMD --help'" */
    const char *head;     /* --help before the options: usage lines, description */
    const char *tail;     /* --help after the options: notes, Example:, Exit status: */
    int column;           /* where the options' help text starts (e.g. 19) */
    const cli_opt *opts;
    size_t nopts;
    /* each positional argument, in order (argv's own string: the callback may
     * cut it); 0, or -1 with err set (as a handler) */
    int (*positional)(void *ctx, char *arg, mc_error *err);
    void *pos_ctx;
    /* handlers' and positionals' usage errors are printed as written,
     * "mpicast: MSG", not "mpicast: CMD: MSG" (model and scaling, whose
     * messages start with the option) */
    int unprefixed;
    /* the first positional argument ends the options: it and everything
     * after it are positional, as written (trace: the command to run) */
    int options_first;
} cli_spec;

#define CLI_NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* Parses argv[1..argc-1] (argv[0] is the command's name) by spec. Returns 0
 * to go on, or -1 to stop with *rc the exit status: CLI_OK after --help,
 * 2 or 1 after printing the error. */
int cli_parse(const cli_spec *spec, int argc, char **argv, int *rc);
/* Prints spec's --help: head, the generated options block, tail. */
void cli_print_help(const cli_spec *spec, FILE *out);

/* cli_spec.positional that appends to the cli_list pos_ctx. */
int cli_collect(void *list, char *arg, mc_error *err);
/* Appends value to list; -1 (MC_ERR_NOMEM in err) when out of memory. */
int cli_list_add(cli_list *list, const char *value, mc_error *err);
void cli_list_free(cli_list *list);

/* Handler: target is an int, set to a count in 1..2^30. */
int cli_set_count(void *target, const char *opt, const char *value, mc_error *err);

/* One positional argument, required: the first goes to value; a second is
 * refused as "more than one WHAT given: ARG", none as "no WHAT given" (usage). */
typedef struct cli_one {
    const char *value;
    const char *what; /* "TRACE" */
} cli_one;
/* cli_spec.positional for a cli_one pos_ctx. */
int cli_take_one(void *one, char *arg, mc_error *err);

/* The platform options, one fragment for every command that loads a
 * platform (predict, validate, sweep, report, blocks): `platform` a
 * const char ** target, `sets` the list of --set assignments. */
#define CLI_PLATFORM_OPTS(platform, sets)                                                    \
    {"--platform", NULL, "FILE", CLI_VALUE,                                                  \
     "platform description (INI, docs/platform.md); default:\n"                              \
     "the built-in shared-memory-like machine", platform, NULL},                             \
    {"--set", NULL, "KEY=VALUE", CLI_LIST,                                                   \
     "override one platform key (e.g. network.bandwidth=10GB/s)", sets, NULL}

/* The extrapolation rule options (rule_opts.c), one table fragment shared by
 * extrapolate, predict --ranks and sweep --ranks: rows for a cli_opt array,
 * with `rules` an mc_extrap_rules *. */
int cli_rule_option(void *rules, const char *opt, const char *value, mc_error *err);
#define CLI_EXTRAP_RULE_OPTS(rules)                                                          \
    {"--rules", NULL, "FILE", CLI_LIST, "rules file (KEY VALUE lines, docs/extrapolation.md)", \
     rules, cli_rule_option},                                                               \
    {"--rule", NULL, "KEY=VALUE", CLI_LIST,                                                  \
     "one rule, e.g. size.p2p=surface, compute=volume", rules, cli_rule_option},             \
    {"--grid", NULL, "8x8", CLI_VALUE,                                                       \
     "the P-rank process grid (default: MPI_Dims_create)", rules, cli_rule_option},          \
    {"--periodic", NULL, "1,0", CLI_VALUE,                                                   \
     "periodicity per dimension (default: the trace's)", rules, cli_rule_option},            \
    {"--replicate", NULL, "R", CLI_OPTIONAL,                                                 \
     "every rank behaves like traced rank R (default 0)", rules, cli_rule_option},           \
    {"--scaling", NULL, "weak|strong", CLI_VALUE,                                            \
     "default laws of sizes and compute (default weak)", rules, cli_rule_option}

#endif
