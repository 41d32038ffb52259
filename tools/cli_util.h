/* cli_util.h: what every graft subcommand shares: option parsing, error
 * reporting and exit codes.
 *
 * Each subcommand (tools/cmd_*.c) describes its options in a small table and
 * hands argc/argv to cli_parse, which handles `--name VALUE`, `--name=VALUE`,
 * `-o VALUE`, `--help`/`-h` and positional arguments the same way everywhere.
 * Usage errors are one line on stderr plus a pointer to --help, and exit 2;
 * failures on bad input exit 1 with `file:line:col: message` where the error
 * has a location. Keeping this in one place is what keeps the command line
 * contract (docs/architecture.md, "The command line") uniform.
 */
#ifndef GRAFT_CLI_UTIL_H
#define GRAFT_CLI_UTIL_H

#include "formats.h"
#include "onnx.h"
#include "graft.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,  /* failure or bad input */
    EXIT_USAGE = 2, /* the command line itself is wrong */
};

/* One option a subcommand accepts. value is NULL for a flag (then *flag is
 * set), or points at where the option's argument goes. */
typedef struct cli_option {
    const char *long_name; /* without the dashes: "inputs" */
    char short_name;       /* 'o', or 0 */
    const char **value;    /* for options taking an argument */
    bool *flag;            /* for flags */
} cli_option;

/* What cli_parse found. */
typedef struct cli_args {
    const char *positional[8];
    int npositional;
    bool help;
} cli_args;

/* Parses argv[1..argc-1] (argv[0] is the subcommand's name) against options.
 * Returns EXIT_OK, or EXIT_USAGE after printing the one-line complaint. A
 * repeated option keeps its last value. "--" ends option parsing. */
int cli_parse(const char *command, int argc, char **argv, const cli_option *options,
              int noptions, cli_args *out);

/* Prints "graft COMMAND: MESSAGE" and "try 'graft COMMAND --help'" to stderr
 * and returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Checks the positional count is within [min, max]; prints a usage error
 * otherwise. Returns EXIT_OK or EXIT_USAGE. */
int cli_expect_positional(const char *command, const cli_args *args, int min, int max,
                          const char *what);

/* Prints err to stderr as "file:line:col: message" when it has a location,
 * else "graft COMMAND: message". Returns EXIT_FAIL. */
int cli_report(const char *command, const graft_error *err);
/* Prints "graft COMMAND: MESSAGE" to stderr and returns EXIT_FAIL. */
int cli_fail(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict number parsing: the whole string must be the number. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_double(const char *s, double *out);

/* Reads a graph in any format graft knows (told apart by content) and
 * verifies it. Prints the error and returns NULL on failure. */
graft_graph *cli_load_graph(const char *command, const char *path);

/* `--dim NAME=VALUE` (repeatable): symbolic dimensions of an ONNX model
 * bound by name; a dimension not named is 1 (an import that then fails says
 * which input and dimension that was, and the option that binds it).
 * `--input-dim NAME=d0,d1,...` (repeatable): the whole shape of the input
 * NAME, as migraphx-driver's --input-dim. Every command that reads a graph
 * takes them, through cli_take_dims and cli_load_graph_with. */
enum { CLI_MAX_DIMS = 64, CLI_MAX_DIM_NAME = 128 };
typedef struct cli_dims {
    int n;
    const char *names[CLI_MAX_DIMS]; /* point into name_text */
    int64_t values[CLI_MAX_DIMS];
    char name_text[CLI_MAX_DIMS][CLI_MAX_DIM_NAME];
    int ninputs;
    onnx_input_shape inputs[CLI_MAX_DIMS]; /* names point into input_text */
    char input_text[CLI_MAX_DIMS][CLI_MAX_DIM_NAME];
} cli_dims;

/* The help lines every such command shows. */
#define CLI_DIM_HELP                                                                              \
    "  --dim NAME=VALUE   bind the ONNX symbolic dimension NAME (repeatable;\n"                   \
    "                     unbound symbolic dimensions are 1)\n"                                   \
    "  --input-dim NAME=D0,D1,...  the whole shape of ONNX input NAME (repeatable)\n"

/* Takes every `--dim NAME=VALUE` and `--dim=NAME=VALUE` (and the same of
 * --input-dim) out of argv (up to a "--"), closing the gaps and lowering
 * *argc, so the command's own parser never sees them. A NAME given twice
 * keeps its last value. Returns EXIT_OK, or EXIT_USAGE after a one-line
 * complaint (no '=', empty name, a value not a whole number from 0 to 2^32,
 * more than 8 dimensions, too many). */
int cli_take_dims(const char *command, int *argc, char **argv, cli_dims *dims);

/* The start every command reading one GRAPH shares (check, print, import,
 * run): takes the --dim options into dims, parses the rest against options,
 * and unless --help was given (args->help: the caller prints its help)
 * expects exactly one positional GRAPH, args->positional[0]. Returns EXIT_OK
 * or EXIT_USAGE after the complaint. */
int cli_parse_graph_command(const char *command, int *argc, char **argv,
                            const cli_option *options, int noptions, cli_args *args,
                            cli_dims *dims);

/* The pipeline called name (`-p NAME` of opt and test), or NULL after a
 * usage error that lists the pipelines there are (the caller then returns
 * EXIT_USAGE). */
const struct pipeline *cli_find_pipeline(const char *command, const char *name);

/* cli_load_graph with the dimensions bound (dims may be NULL). */
graft_graph *cli_load_graph_with(const char *command, const char *path, const cli_dims *dims);
/* The same for a file already read: bytes (len) of the file at path. */
graft_graph *cli_load_graph_bytes(const char *command, const char *bytes, size_t len,
                                  const char *path, const cli_dims *dims);
/* The two above, and *maybe_twins (may be NULL): false only when the graph
 * read has no two instructions that are the same expression (`graft opt`
 * then skips the first CSE). Each instruction goes to CSE's probe as it is
 * read (graph_read_options.built). */
graft_graph *cli_load_graph_probed(const char *command, const char *path, const cli_dims *dims,
                                   bool *maybe_twins);
graft_graph *cli_load_graph_bytes_probed(const char *command, const char *bytes, size_t len,
                                         const char *path, const cli_dims *dims,
                                         bool *maybe_twins);
/* The same dimensions as read options for graph_read_any_with (no probe). */
void cli_dims_options(const cli_dims *dims, graph_read_options *out);

#endif
