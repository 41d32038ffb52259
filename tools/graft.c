/* graft.c: the graft command's entry point.
 *
 * It only dispatches: `graft NAME ARGS...` runs the subcommand NAME from the
 * table in commands.h, and `graft --help` lists that table. Everything a
 * subcommand does lives in its own tools/cmd_NAME.c.
 */
#include "commands.h"

#include "cli_util.h"
#include "graft.h"

#include <stdio.h>
#include <string.h>

static void print_usage(FILE *to)
{
    int n;
    const command *table = command_table(&n);
    fprintf(to, "usage: graft COMMAND [ARGS]\n\n"
                "graft reads ML compute graphs (graft/MIGraphX dumps, ONNX, MIGraphX .py\n"
                "scripts; told apart by content), checks, rewrites and runs them.\n\n"
                "commands:\n");
    for (int i = 0; i < n; i++)
        fprintf(to, "  graft %-7s %s\n  %-13s %s\n", table[i].name, table[i].synopsis, "",
                table[i].summary);
    fprintf(to, "\n'graft COMMAND --help' describes one command.\n"
                "Exit codes: 0 ok, 1 failure or bad input, 2 usage.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("graft %s\n", GRAFT_VERSION);
        return EXIT_OK;
    }
    int n;
    const command *table = command_table(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].run(argc - 1, argv + 1);
    fprintf(stderr, "graft: unknown command '%s'\ntry 'graft --help'\n", name);
    return EXIT_USAGE;
}
