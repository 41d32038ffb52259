/* test_concat_in_place.c: where values live when concats are written in
 * place (ops/concat_in_place.h): the homes and offsets the solver gives,
 * nesting and prefix chains, what is refused, and that the guard never
 * unplaces a concat already in place. */
#include "../check.h"

#include "concat_in_place.h"
#include "dump.h"
#include "ir.h"

#include <string.h>

static graph *read(const char *text)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test", &err);
    if (!g)
        printf("  %s\n", err.message);
    return g;
}

static ins *named(graph *g, const char *name)
{
    for (ins *i = graph_main(g)->first; i; i = i->next)
        if (i->name && strcmp(i->name, name) == 0)
            return i;
    return NULL;
}

/* Checks v's home: root name and offset (NULL root: no home). */
static void expect_home(const concat_plan *p, graph *g, const char *v, const char *root,
                        long long offset)
{
    const ins *r = NULL;
    int64_t off = -1;
    bool has = concat_plan_home(p, named(g, v), &r, &off);
    if (!root) {
        CHECK(!has);
        return;
    }
    CHECK(has);
    if (has) {
        CHECK_STR(r->name, root);
        CHECK_INT(off, offset);
    }
}

/* densenet's chain: each concat reads the previous one; one buffer, the
 * last concat's, holds everything; earlier concats are prefixes of it. */
static void test_prefix_chain(void)
{
    graph *g = read("module: \"main\"\n"
                    "x = @param:x -> float_type, {1, 2, 3}, {6, 3, 1}\n"
                    "@a = relu(x)\n"
                    "@b = exp(x)\n"
                    "@c1 = concat[axis=1,in_place=1](@a,@b)\n"
                    "@d = sin(@c1)\n"
                    "@c2 = concat[axis=1,in_place=1](@c1,@d)\n"
                    "@r = @return(@c2)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    concat_plan *p = concat_plan_build(graph_main(g));
    CHECK(p != NULL);
    CHECK(concat_plan_placed(p, named(g, "@c1")));
    CHECK(concat_plan_placed(p, named(g, "@c2")));
    expect_home(p, g, "@c2", "@c2", 0);
    expect_home(p, g, "@c1", "@c2", 0);
    expect_home(p, g, "@a", "@c2", 0);
    expect_home(p, g, "@b", "@c2", 6);
    expect_home(p, g, "@d", "@c2", 12);
    expect_home(p, g, "x", NULL, 0);
    concat_plan_free(p);
    graph_free(g);
}

/* ESRGAN's lists: each concat reads every feature so far; the shorter one
 * is a view of the longer one's prefix. */
static void test_shared_operands(void)
{
    graph *g = read("module: \"main\"\n"
                    "x = @param:x -> float_type, {1, 2, 3}, {6, 3, 1}\n"
                    "@a = relu(x)\n"
                    "@b = exp(x)\n"
                    "@c1 = concat[axis=1,in_place=1](@a,@b)\n"
                    "@d = sin(@c1)\n"
                    "@e = slice[axes={1},starts={0},ends={2}](@d)\n"
                    "@f = neg(@e)\n"
                    "@c2 = concat[axis=1,in_place=1](@a,@b,@f)\n"
                    "@r = @return(@c2,@d)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    concat_plan *p = concat_plan_build(graph_main(g));
    CHECK(concat_plan_placed(p, named(g, "@c1")));
    CHECK(concat_plan_placed(p, named(g, "@c2")));
    expect_home(p, g, "@c1", "@c2", 0);
    expect_home(p, g, "@f", "@c2", 12);
    concat_plan_free(p);
    graph_free(g);
}

/* Refused: an input operand, an operand read twice, a slice whose strides
 * are not its operand's own (axis 1 of a batch of 2), a returned operand. */
static void test_refused(void)
{
    graph *g = read("module: \"main\"\n"
                    "x = @param:x -> float_type, {2, 2, 3}, {6, 3, 1}\n"
                    "@a = relu(x)\n"
                    "@b = exp(x)\n"
                    "@c1 = concat[axis=1](@a,x)\n"
                    "@c2 = concat[axis=1](@a,@a)\n"
                    "@c3 = concat[axis=1](@a,@b)\n"
                    "@c4 = concat[axis=0](@a,@b)\n"
                    "@r = @return(@c1,@c2,@c3,@c4)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(!concat_in_place_possible(named(g, "@c1")));
    CHECK(!concat_in_place_possible(named(g, "@c2")));
    CHECK(!concat_in_place_possible(named(g, "@c3")));
    CHECK(concat_in_place_possible(named(g, "@c4")));
    graph_free(g);
    g = read("module: \"main\"\n"
             "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
             "@a = relu(x)\n"
             "@b = exp(x)\n"
             "@c = concat[axis=0](@a,@b)\n"
             "@r = @return(@c,@b)\n");
    CHECK(g != NULL);
    if (g)
        CHECK(!concat_in_place_possible(named(g, "@c")));
    graph_free(g);
}

/* A concat that would move a value an in-place concat already placed is
 * refused; a request that cannot be placed stays a copy (not placed). */
static void test_conflicts(void)
{
    graph *g = read("module: \"main\"\n"
                    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
                    "@a = relu(x)\n"
                    "@b = exp(x)\n"
                    "@c1 = concat[axis=0,in_place=1](@a,@b)\n"
                    "@c2 = concat[axis=0](@b,@a)\n"
                    "@c3 = concat[axis=0,in_place=1](@a,x)\n"
                    "@r = @return(@c1,@c2,@c3)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(!concat_in_place_possible(named(g, "@c2")));
    concat_plan *p = concat_plan_build(graph_main(g));
    CHECK(concat_plan_placed(p, named(g, "@c1")));
    CHECK(!concat_plan_placed(p, named(g, "@c3")));
    expect_home(p, g, "@b", "@c1", 6);
    concat_plan_free(p);
    graph_free(g);
}

int main(void)
{
    RUN(test_prefix_chain);
    RUN(test_shared_operands);
    RUN(test_refused);
    RUN(test_conflicts);
    return tests_finish();
}
