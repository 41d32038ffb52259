/* cmd_print.c: `graft print GRAPH [-o OUT]`: the canonical dump.
 *
 * Reads a graph in any format graft knows, verifies it and writes graft's
 * canonical dump (docs/dump-format.md) to stdout or, with -o, to OUT through
 * a temporary file renamed into place: a failure never leaves OUT half
 * written, and an existing OUT is left untouched.
 */
#include "commands.h"

#include "cli_util.h"
#include "dump.h"

#include <stdio.h>

static const char print_help[] =
    "usage: graft print GRAPH [-o OUT] [--dim NAME=VALUE ...]\n"
    "\n"
    "Reads GRAPH (dump, ONNX or MIGraphX .py, told apart by content), verifies it\n"
    "and prints graft's canonical dump. Literal data is always written out, so\n"
    "reading the dump back evaluates to the same numbers.\n"
    "\n"
    "  -o, --output OUT   write to OUT (atomically: temp file + rename) instead of\n"
    "                     stdout; nothing is written when GRAPH is invalid\n"
    CLI_DIM_HELP
    "\n"
    "Exit status: 0 ok, 1 invalid input or write failure, 2 usage.\n";

int cmd_print(int argc, char **argv)
{
    const char *out = NULL;
    const cli_option options[] = {{"output", 'o', &out, NULL}};
    cli_args args;
    cli_dims dims;
    int st = cli_parse_graph_command("print", &argc, argv, options, 1, &args, &dims);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(print_help, stdout);
        return EXIT_OK;
    }
    graph *g = cli_load_graph_with("print", args.positional[0], &dims);
    if (!g)
        return EXIT_FAIL;
    graft_error err = {0};
    bool ok = dump_write_file(g, out ? out : "-", &err);
    graph_free(g);
    return ok ? EXIT_OK : cli_report("print", &err);
}
