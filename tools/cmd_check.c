/* cmd_check.c: `graft check GRAPH`: parse and verify a graph, then say what
 * is in it.
 *
 * The summary is one short paragraph a person can read at a glance: modules,
 * instruction count, the main module's parameters with their shapes, the ops
 * used with their counts, and the opaque ops (ops graft does not know, kept as
 * black boxes that `graft run` will refuse) by name. Errors print as
 * file:line:col: message and exit 1.
 *
 * For an ONNX model it also reports op coverage (onnx_op_coverage): each
 * ONNX op type with its count and the graft op it becomes, and the ones graft
 * cannot import. The coverage is printed even when the import fails, before
 * the importer's one error, so a user sees the whole picture at once.
 */
#include "commands.h"

#include "cli_util.h"
#include "formats.h"
#include "ir.h"
#include "onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char check_help[] =
    "usage: graft check GRAPH [--dim NAME=VALUE ...]\n"
    "\n"
    "Parses GRAPH (a graft/MIGraphX dump, an ONNX model or a MIGraphX .py script,\n"
    "told apart by content) and verifies it: operands precede their users, users\n"
    "lists agree with operands, and every recorded shape equals the one its op\n"
    "computes. Prints a summary: modules, instruction count, parameters with\n"
    "shapes, ops used with counts, opaque ops. For an ONNX model it also reports\n"
    "op coverage: each ONNX op type with its count and the graft op it becomes,\n"
    "and the op types graft cannot import (listed even when the import fails).\n"
    "\n"
    CLI_DIM_HELP
    "\n"
    "Errors print as file:line:col: message.\n"
    "Exit status: 0 valid, 1 invalid or unreadable, 2 usage.\n";

/* One distinct op name and how often it appears. */
typedef struct op_count {
    const char *name;
    int count;
    bool opaque;
} op_count;

typedef struct op_counts {
    op_count *items;
    int n, cap;
} op_counts;

/* items (n of them, room for *cap, each `size` bytes) with room for one
 * more: items itself, or a bigger copy (then *cap grows); NULL when memory
 * ran out (items is still valid). */
static void *room_for_one(void *items, int n, int *cap, size_t size)
{
    if (n < *cap)
        return items;
    int grown_cap = *cap ? *cap * 2 : 16;
    void *grown = realloc(items, (size_t)grown_cap * size);
    if (grown)
        *cap = grown_cap;
    return grown;
}

static bool count_op(op_counts *c, const char *name, bool opaque)
{
    for (int i = 0; i < c->n; i++)
        if (c->items[i].name == name || strcmp(c->items[i].name, name) == 0) {
            c->items[i].count++;
            return true;
        }
    op_count *items = room_for_one(c->items, c->n, &c->cap, sizeof *items);
    if (!items)
        return false;
    c->items = items;
    c->items[c->n++] = (op_count){name, 1, opaque};
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const op_count *)a)->name, ((const op_count *)b)->name);
}

/* The main module's parameters, in program order, gathered by summarize's
 * one walk (a second walk of a big graph costs as much as the first: every
 * instruction is a trip to memory). */
typedef struct param_list {
    const ins **items;
    int n, cap;
} param_list;

static bool add_param(param_list *p, const ins *i)
{
    const ins **items = room_for_one(p->items, p->n, &p->cap, sizeof *items);
    if (!items)
        return false;
    p->items = items;
    p->items[p->n++] = i;
    return true;
}

static void print_params(const param_list *p)
{
    printf("  params:");
    for (int k = 0; k < p->n; k++) {
        const ins *i = p->items[k];
        char lens[512];
        ints_print(i->sh.lens, i->sh.rank, lens, sizeof lens);
        printf("%s %s %s %s", k ? "," : "", i->param, type_name(i->sh.type), lens);
    }
    printf("%s\n", p->n ? "" : " none");
}

static int summarize(const char *path, const graph *g)
{
    op_counts ops = {0};
    param_list main_params = {0};
    const module *main_module = graph_main(g);
    int params = 0, literals = 0, returns = 0, others = 0, opaque = 0;
    for (const module *m = g->first_module; m; m = m->next)
        for (const ins *i = m->first; i; i = i->next) {
            ins_prefetch_ahead(i);
            if (i->param && m == main_module && !add_param(&main_params, i)) {
                free(ops.items);
                free(main_params.items);
                return cli_fail("check", "out of memory");
            }
            if (ins_is(i, "@param"))
                params++;
            else if (ins_is(i, "@literal"))
                literals++;
            else if (ins_is(i, "@return"))
                returns++;
            else {
                others++;
                bool is_opaque = (i->op->classes & OPC_OPAQUE) != 0;
                opaque += is_opaque;
                if (!count_op(&ops, i->opname, is_opaque)) {
                    free(ops.items);
                    free(main_params.items);
                    return cli_fail("check", "out of memory");
                }
            }
        }
    qsort(ops.items, (size_t)ops.n, sizeof *ops.items, by_name);

    printf("%s: ok\n", path);
    printf("  %d module%s (", g->nmodules, g->nmodules == 1 ? "" : "s");
    for (const module *m = g->first_module; m; m = m->next)
        printf("%s%s", m->name, m->next ? ", " : "");
    printf("), %zu instructions: %d param%s, %d literal%s, %d op%s, %d return%s\n",
           graph_count(g), params, params == 1 ? "" : "s", literals, literals == 1 ? "" : "s",
           others, others == 1 ? "" : "s", returns, returns == 1 ? "" : "s");
    if (main_module)
        print_params(&main_params);
    free(main_params.items);
    printf("  ops:");
    for (int k = 0; k < ops.n; k++)
        printf("%s %s x%d", k ? "," : "", ops.items[k].name, ops.items[k].count);
    printf("%s\n", ops.n ? "" : " none");
    printf("  opaque ops:");
    int listed = 0;
    for (int k = 0; k < ops.n; k++)
        if (ops.items[k].opaque)
            printf("%s %s", listed++ ? "," : "", ops.items[k].name);
    if (opaque)
        printf(" (kept as black boxes; graft run refuses them)\n");
    else
        printf(" none\n");
    free(ops.items);
    return EXIT_OK;
}

/* Most used first; ties by name. */
static int by_count(const void *a, const void *b)
{
    const onnx_op_use *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->op_type, y->op_type);
}

/* "  ONNX ops (opset 13, 176 nodes): Conv x53 (convolution), Relu x49, ..."
 * and "  unsupported ONNX ops: none" (or each with its first node). */
static void print_coverage(onnx_coverage *c)
{
    qsort(c->ops, (size_t)c->nops, sizeof *c->ops, by_count);
    printf("  ONNX ops (opset %lld, %d node%s):", (long long)c->opset, c->nnodes,
           c->nnodes == 1 ? "" : "s");
    for (int k = 0; k < c->nops; k++) {
        const onnx_op_use *u = &c->ops[k];
        printf("%s %s x%d", k ? "," : "", u->op_type, u->count);
        if (!u->supported)
            printf(" (unsupported: %s)", u->why);
        else if (u->graft_ops[0] && strcasecmp(u->graft_ops, u->op_type) != 0)
            printf(" (%s)", u->graft_ops);
    }
    printf("%s\n", c->nops ? "" : " none");
    printf("  unsupported ONNX ops:");
    int listed = 0;
    for (int k = 0; k < c->nops; k++)
        if (!c->ops[k].supported)
            printf("%s %s x%d (first node %s%s%s)", listed++ ? "," : "", c->ops[k].op_type,
                   c->ops[k].count, c->ops[k].first_node[0] == '#' ? "" : "'",
                   c->ops[k].first_node, c->ops[k].first_node[0] == '#' ? "" : "'");
    printf("%s\n", listed ? "" : " none");
    printf("  symbolic dimensions: %s\n", c->symbolic[0] ? c->symbolic : "none");
}

int cmd_check(int argc, char **argv)
{
    cli_args args;
    cli_dims dims;
    int st = cli_parse_graph_command("check", &argc, argv, NULL, 0, &args, &dims);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(check_help, stdout);
        return EXIT_OK;
    }
    const char *path = args.positional[0];
    graft_error err = {0};
    size_t len;
    char *bytes = read_file_all(path, &len, &err);
    if (!bytes)
        return cli_report("check", &err);
    /* A model protobuf-c cannot unpack has no coverage; the import below
     * then reports it. */
    onnx_coverage cov = {0};
    bool covered = graph_bytes_are_onnx(bytes, len) && onnx_op_coverage(bytes, len, path, &cov, NULL);
    graph *g = cli_load_graph_bytes("check", bytes, len, path, &dims);
    free(bytes);
    if (!g) {
        if (covered) {
            printf("%s: ONNX model, not imported\n", path);
            print_coverage(&cov);
            fflush(stdout);
        }
        onnx_coverage_free(&cov);
        return EXIT_FAIL;
    }
    st = summarize(path, g);
    if (st == EXIT_OK && covered)
        print_coverage(&cov);
    onnx_coverage_free(&cov);
    graph_free(g);
    return st;
}
