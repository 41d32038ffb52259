/* commands.h: the table of graft subcommands.
 *
 * tools/graft.c dispatches on this table and builds its usage text from it,
 * so a subcommand exists for users exactly when it has a row here. Each
 * subcommand lives in its own file (tools/cmd_NAME.c) and is called with
 * argv[0] set to its name; it returns the process exit code (0 ok, 1 failure
 * or bad input, 2 usage) and answers --help with exit 0.
 *
 * To add a subcommand: declare its function below and add one row to the
 * table, in the order `graft --help` should list it.
 */
#ifndef GRAFT_COMMANDS_H
#define GRAFT_COMMANDS_H

typedef int (*command_fn)(int argc, char **argv);

typedef struct command {
    const char *name;
    const char *synopsis; /* arguments, as shown in `graft --help` */
    const char *summary;  /* one line */
    command_fn run;
} command;

int cmd_check(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_dot(int argc, char **argv);

/* The table; *count gets its length. */
static inline const command *command_table(int *count)
{
    static const command table[] = {
        {"check", "GRAPH", "parse and verify; errors as file:line:col", cmd_check},
        {"print", "GRAPH [-o OUT]", "canonical dump", cmd_print},
        {"run", "GRAPH [--device ref|emu|hip] [--inputs DIR] [--outputs DIR] [--seed N] [--compare GRAPH2]",
         "run on the reference executor or the generated kernels", cmd_run},
        {"import", "GRAPH -o OUT", "any input format to a dump", cmd_import},
        {"rules", "FILE.rules [--emit-c OUT.c]", "compile and check a rule file", cmd_rules},
        {"opt", "GRAPH [-p PIPELINE | -r FILE.rules ...] [-o OUT] [--stats [json]] [--trace] [--disable RULE] [--max-rewrites N] [--shapes lazy|eager] [--verify] [--seed-order N]", "rewrite with rule sets to a fixpoint", cmd_opt},
        {"test", "DIR... [-p PIPELINE] [--device ref|emu|hip] [--rtol R] [--atol A]",
         "run ONNX backend-test directories", cmd_test},
        {"compile", "GRAPH -o DIR [-p PIPELINE] [--arch gfx90a,gfx1030]",
         "HIP kernels, code objects and a memory plan", cmd_compile},
        {"dot", "GRAPH -o OUT.svg|OUT.dot [-p PIPELINE]",
         "draw the graph with Graphviz, fused regions as clusters", cmd_dot},
    };
    *count = (int)(sizeof table / sizeof table[0]);
    return table;
}

#endif
