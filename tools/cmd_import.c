/* cmd_import.c: `graft import GRAPH -o OUT`: any input format to a dump.
 *
 * The conversion path for ONNX models and MIGraphX scripts: the graph is
 * read (format told apart by content), verified, and written as graft's
 * canonical dump to OUT atomically. Unlike `graft print`, the output file is
 * required, so a conversion never ends up on a terminal by accident.
 */
#include "commands.h"

#include "cli_util.h"
#include "dump.h"

#include <stdio.h>
#include <string.h>

static const char import_help[] =
    "usage: graft import GRAPH -o OUT [--dim NAME=VALUE ...]\n"
    "\n"
    "Converts GRAPH (an ONNX model, a MIGraphX .py script or JSON, or a dump) to\n"
    "graft's canonical dump in OUT. OUT is written through a temporary file and a\n"
    "rename: on any error nothing is written. OUT may be '-' for stdout.\n"
    "\n"
    "  -o, --output OUT   the dump to write (required)\n"
    CLI_DIM_HELP
    "\n"
    "Exit status: 0 ok, 1 invalid input or write failure, 2 usage.\n";

int cmd_import(int argc, char **argv)
{
    const char *out = NULL;
    const cli_option options[] = {{"output", 'o', &out, NULL}};
    cli_args args;
    cli_dims dims;
    int st = cli_parse_graph_command("import", &argc, argv, options, 1, &args, &dims);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(import_help, stdout);
        return EXIT_OK;
    }
    if (!out)
        return cli_usage_error("import", "missing -o OUT");
    graph *g = cli_load_graph_with("import", args.positional[0], &dims);
    if (!g)
        return EXIT_FAIL;
    graft_error err = {0};
    bool ok = dump_write_file(g, out, &err);
    size_t count = graph_count(g);
    graph_free(g);
    if (!ok)
        return cli_report("import", &err);
    if (strcmp(out, "-") != 0)
        printf("wrote %s: %zu instructions\n", out, count);
    return EXIT_OK;
}
