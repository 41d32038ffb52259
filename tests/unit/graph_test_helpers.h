/* graph_test_helpers.h: small helpers the engine unit tests share for
 * graphs written as dump text: reading one (printing where it failed),
 * counting a main-module op, and verifying with the reason printed.
 *
 * Included by test_driver.c and test_lazy_shapes.c; everything is static.
 */
#ifndef GRAFT_GRAPH_TEST_HELPERS_H
#define GRAFT_GRAPH_TEST_HELPERS_H

#include "dump.h"

#include <stdio.h>
#include <string.h>

/* The graph of dump text (file name "test"), or NULL with the error printed. */
static graph *parse(const char *text)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test", &err);
    if (!g)
        printf("parse error: %s:%d:%d: %s\n", err.file, err.line, err.col, err.message);
    return g;
}

/* How many instructions of the main module are the op named op. */
static int count_op(const graph *g, const char *op)
{
    int n = 0;
    for (ins *i = graph_main(g)->first; i; i = i->next)
        n += strcmp(i->opname, op) == 0;
    return n;
}

/* graph_verify, printing why when it fails. */
static bool verifies(const graph *g)
{
    graft_error err = {0};
    bool ok = graph_verify(g, &err);
    if (!ok)
        printf("verify: %s\n", err.message);
    return ok;
}

#endif
