/* test_region.c: fused regions end to end below the rule language: the
 * `fused` op's shape rule, the dump reading and writing a region with its
 * body, the reference executor running one- and two-output regions against
 * the unfused graph, and rw_region / rw_replace_region / rw_abort driven by
 * rule sets written by hand in C, the way generated code calls them.
 */
#include "check.h"

#include "driver.h"
#include "dump.h"
#include "exec.h"
#include "kernel_counts.h"
#include "graph_test_helpers.h"
#include "pipeline.h"
#include "rewrite.h"

#include <stdlib.h>

static char *dump_of(const graph *g)
{
    graft_error err = {0};
    size_t len;
    return dump_write(g, &len, &err);
}

static void expect_read_error(const char *text, const char *expected)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, expected);
    graph_free(g);
}

/* Runs both graphs' main modules on the same random inputs; true when every
 * output agrees exactly. */
static bool same_values(const graph *a, const graph *b)
{
    graft_error err = {0};
    tensor_list in = {0, NULL}, oa = {0, NULL}, ob = {0, NULL};
    bool ok = exec_random_inputs(graph_main(a), 7, &in, &err) &&
              exec_run(graph_main(a), &in, &oa, &err) && exec_run(graph_main(b), &in, &ob, &err);
    if (!ok)
        printf("exec: %s\n", err.message);
    ok = ok && oa.n == ob.n && oa.n > 0;
    for (int k = 0; ok && k < oa.n; k++) {
        const tensor *x = &oa.items[k].t, *y = &ob.items[k].t;
        ok = shape_same_lens(&x->sh, &y->sh) && x->sh.type == y->sh.type;
        for (int64_t e = 0; ok && e < shape_elements(&x->sh); e++)
            ok = tensor_get_f64(x, e) == tensor_get_f64(y, e);
    }
    tensor_list_free(&in);
    tensor_list_free(&oa);
    tensor_list_free(&ob);
    return ok;
}

/* ---- dumps and the executor ---- */

static const char unfused_two[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
    "@2 = add(x,y) -> float_type, {2, 3}, {3, 1}\n"
    "@3 = sigmoid(@2) -> float_type, {2, 3}, {3, 1}\n"
    "@4 = mul(@2,@3) -> float_type, {2, 3}, {3, 1}\n"
    "@5 = sub(@4,@2) -> float_type, {2, 3}, {3, 1}\n"
    "@6 = @return(@5)\n";

static const char fused_two[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
    "@2 = fused(x,y), [main:fused0] -> [float_type, {2, 3}, {3, 1}, float_type, {2, 3}, {3, 1}]\n"
    "@3 = get_tuple_elem[index=0](@2) -> float_type, {2, 3}, {3, 1}\n"
    "@4 = get_tuple_elem[index=1](@2) -> float_type, {2, 3}, {3, 1}\n"
    "@5 = sub(@4,@3) -> float_type, {2, 3}, {3, 1}\n"
    "@6 = @return(@5)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 3}, {3, 1}\n"
    "x1 = @param:x1 -> float_type, {2, 3}, {3, 1}\n"
    "main:fused0:@2 = add(x0,x1) -> float_type, {2, 3}, {3, 1}\n"
    "main:fused0:@3 = sigmoid(main:fused0:@2) -> float_type, {2, 3}, {3, 1}\n"
    "main:fused0:@4 = mul(main:fused0:@2,main:fused0:@3) -> float_type, {2, 3}, {3, 1}\n"
    "main:fused0:@5 = @return(main:fused0:@2,main:fused0:@4)\n";

/* A known op with a submodule goes through the reader's region path (made
 * opaque, given its op and body, shape computed) and writes back exactly. */
static void test_dump_reads_and_writes_a_region(void)
{
    graph *g = parse(fused_two);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(verifies(g));
    ins *r = graph_main(g)->first->next->next;
    CHECK_STR(r->opname, "fused");
    CHECK(r->op == op_find("fused"));
    CHECK(r->nmods == 1 && r->mods[0] == graph_find_module(g, "main:fused0"));
    CHECK(shape_is_tuple(&r->sh) && r->sh.ntuple == 2);
    char *text = dump_of(g);
    CHECK_STR(text, fused_two);
    free(text);
    graph_free(g);
}

static void test_dump_rejects_mismatched_regions(void)
{
    /* one operand, two parameters */
    expect_read_error("module: \"main\"\n"
                      "x = @param:x -> float_type, {2}, {1}\n"
                      "@1 = fused(x), [r] -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n"
                      "module: \"r\"\n"
                      "x0 = @param:x0 -> float_type, {2}, {1}\n"
                      "x1 = @param:x1 -> float_type, {2}, {1}\n"
                      "@2 = add(x0,x1) -> float_type, {2}, {1}\n"
                      "@3 = @return(@2)\n",
                      "fused: 1 operand but module \"r\" has 2 @params");
    /* lens of an operand and its parameter differ */
    expect_read_error("module: \"main\"\n"
                      "x = @param:x -> float_type, {3}, {1}\n"
                      "@1 = fused(x), [r] -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n"
                      "module: \"r\"\n"
                      "x0 = @param:x0 -> float_type, {2}, {1}\n"
                      "@1 = relu(x0) -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n",
                      "fused: operand 0 is float_type {3} but @param x0 of module \"r\" is "
                      "float_type {2}");
    /* a parameter not named x<k> */
    expect_read_error("module: \"main\"\n"
                      "x = @param:x -> float_type, {2}, {1}\n"
                      "@1 = fused(x), [r] -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n"
                      "module: \"r\"\n"
                      "a = @param:a -> float_type, {2}, {1}\n"
                      "@1 = relu(a) -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n",
                      "has @param a; its parameters must be x0..x0");
    /* no body */
    expect_read_error("module: \"main\"\n"
                      "x = @param:x -> float_type, {2}, {1}\n"
                      "@1 = fused(x) -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n",
                      "fused: needs exactly one submodule, got 0");
    /* the written shape must be the body's */
    expect_read_error("module: \"main\"\n"
                      "x = @param:x -> float_type, {2}, {1}\n"
                      "@1 = fused(x), [r] -> half_type, {2}, {1}\n"
                      "@2 = @return(@1)\n"
                      "module: \"r\"\n"
                      "x0 = @param:x0 -> float_type, {2}, {1}\n"
                      "@1 = relu(x0) -> float_type, {2}, {1}\n"
                      "@2 = @return(@1)\n",
                      "float_type");
}

static void test_exec_two_output_region_matches_unfused(void)
{
    graph *a = parse(unfused_two), *b = parse(fused_two);
    CHECK(a && b);
    if (a && b)
        CHECK(same_values(a, b));
    graph_free(a);
    graph_free(b);
}

/* One output in a transposed layout: the region's value keeps the body's
 * strides, and the executor lays the body's output out in them. */
static void test_exec_one_output_region_matches_unfused(void)
{
    static const char unfused[] =
        "module: \"main\"\n"
        "x = @param:x -> float_type, {4, 3}, {1, 4}\n"
        "@1 = exp(x) -> float_type, {4, 3}, {1, 4}\n"
        "@2 = relu(@1) -> float_type, {4, 3}, {1, 4}\n"
        "@3 = contiguous(@2) -> float_type, {4, 3}, {3, 1}\n"
        "@4 = @return(@3)\n";
    static const char fused[] =
        "module: \"main\"\n"
        "x = @param:x -> float_type, {4, 3}, {1, 4}\n"
        "@1 = fused(x), [main:fused0] -> float_type, {4, 3}, {1, 4}\n"
        "@2 = contiguous(@1) -> float_type, {4, 3}, {3, 1}\n"
        "@3 = @return(@2)\n"
        "\n"
        "module: \"main:fused0\"\n"
        "x0 = @param:x0 -> float_type, {4, 3}, {1, 4}\n"
        "main:fused0:@1 = exp(x0) -> float_type, {4, 3}, {1, 4}\n"
        "main:fused0:@2 = relu(main:fused0:@1) -> float_type, {4, 3}, {1, 4}\n"
        "main:fused0:@3 = @return(main:fused0:@2)\n";
    graph *a = parse(unfused), *b = parse(fused);
    CHECK(a && b);
    if (a && b) {
        CHECK(same_values(a, b));
        char *text = dump_of(b);
        CHECK_STR(text, fused);
        free(text);
        kernel_counts kc;
        graph_kernel_counts(b, &kc);
        CHECK_INT(kc.kernels, 2); /* the region and the contiguous */
    }
    graph_free(a);
    graph_free(b);
}

/* ---- rw_region through the driver ---- */

/* What the hand-written rule at mul(a = add, s = sigmoid(a)) does. */
enum region_mode {
    REGION_COMMIT,         /* region(a, s, m) -> (a, m), committed */
    REGION_ABORT,          /* built, checked, then aborted */
    REGION_BAD_OUTPUT,     /* an output that is not a member */
    REGION_UNUSED_OUTPUT,  /* region(a, s, m) -> (s): s has no user outside */
    REGION_LATE_INPUT,     /* mul(a = add, z): region(a, m) -> (a, m) */
};

static enum region_mode mode;
static int body_modules_seen; /* modules in the graph while the match was open */

static const rule_info region_rules[] = {
    {"fuse_add_sigmoid_mul", "tests/unit/test_region.c", 1, 0},
};

static int apply_region(rewriter *rw, ins *root)
{
    if (!ins_is(root, "mul") || root->nargs != 2)
        return -1;
    ins *a = root->args[0], *s = root->args[1];
    if (mode == REGION_LATE_INPUT && ins_is(a, "add") && rw_attempt(rw, 0, root)) {
        ins *members[] = {a, root}, *rep[2] = {NULL, NULL};
        if (rw_region(rw, NULL, members, 2, members, 2, rep)) /* cannot: see the test */
            body_modules_seen = root->mod->g->nmodules;
        rw_abort(rw);
        return -1;
    }
    if (!ins_is(a, "add") || !ins_is(s, "sigmoid") || s->args[0] != a)
        return -1;
    if (!rw_attempt(rw, 0, root))
        return -1;
    ins *members[] = {root, s, a, a}; /* any order, duplicates ignored */
    ins *outputs[2] = {a, root};
    ins *rep[2] = {NULL, NULL};
    ins *region;
    switch (mode) {
    case REGION_BAD_OUTPUT:
        outputs[0] = a->args[0];
        region = rw_region(rw, NULL, members, 3, outputs, 2, rep);
        break;
    case REGION_UNUSED_OUTPUT:
        outputs[0] = s;
        region = rw_region(rw, NULL, members, 3, outputs, 1, rep);
        break;
    default:
        region = rw_region(rw, NULL, members, 4, outputs, 2, rep);
        break;
    }
    if (region)
        body_modules_seen = root->mod->g->nmodules;
    if (!region || mode == REGION_ABORT) {
        if (region) {
            CHECK(ins_is(region, "fused"));
            CHECK(rep[0] && rep[1] && ins_is(rep[0], "get_tuple_elem"));
        }
        rw_abort(rw);
        return -1;
    }
    rw_replace_region(rw, members, 4, outputs, rep, 2);
    return 0;
}

static const rule_set region_set = {"regions", 1, region_rules, apply_region, NULL};

/* a is read outside the region (by the relu, before the root). */
static const char fusable[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
    "@2 = add(x,y) -> float_type, {2, 3}, {3, 1}\n"
    "@3 = relu(@2) -> float_type, {2, 3}, {3, 1}\n"
    "@4 = sigmoid(@2) -> float_type, {2, 3}, {3, 1}\n"
    "@5 = mul(@2,@4) -> float_type, {2, 3}, {3, 1}\n"
    "@6 = sub(@5,@3) -> float_type, {2, 3}, {3, 1}\n"
    "@7 = @return(@6)\n";

static bool run_region_set(graph *g, enum region_mode m, driver_result *r)
{
    mode = m;
    body_modules_seen = 0;
    const rule_set *sets[] = {&region_set};
    graft_error err = {0};
    bool ok = driver_run(g, sets, 1, NULL, r, &err);
    if (!ok)
        printf("driver: %s\n", err.message);
    if (r->error.message[0])
        printf("driver error: %s\n", r->error.message);
    return ok;
}

static void test_rw_region_commits_two_outputs(void)
{
    graph *g = parse(fusable), *orig = parse(fusable);
    CHECK(g && orig);
    if (!g || !orig) {
        graph_free(g);
        graph_free(orig);
        return;
    }
    driver_result r;
    CHECK(run_region_set(g, REGION_COMMIT, &r));
    CHECK(r.converged);
    /* One fire: the rule does not run inside the body, where the same
     * pattern now sits. */
    CHECK_INT(r.rewrites, 1);
    CHECK_INT(g->nmodules, 2);
    CHECK_INT(count_op(g, "fused"), 1);
    CHECK_INT(count_op(g, "get_tuple_elem"), 2);
    CHECK_INT(count_op(g, "add") + count_op(g, "sigmoid") + count_op(g, "mul"), 0);
    CHECK(verifies(g));
    CHECK(same_values(orig, g));
    char *text = dump_of(g);
    CHECK_CONTAINS(text, "@2 = fused(x,y), [main:fused0] -> [float_type, {2, 3}, {3, 1}, "
                         "float_type, {2, 3}, {3, 1}]\n"
                         "@3 = get_tuple_elem[index=0](@2) -> float_type, {2, 3}, {3, 1}\n"
                         "@4 = get_tuple_elem[index=1](@2) -> float_type, {2, 3}, {3, 1}\n"
                         "@5 = relu(@3)");
    CHECK_CONTAINS(text, "main:fused0:@5 = @return(main:fused0:@2,main:fused0:@4)\n");
    /* The written graph reads back and writes the same text. */
    graph *back = text ? parse(text) : NULL;
    CHECK(back != NULL);
    if (back) {
        char *again = dump_of(back);
        CHECK_STR(again, text);
        free(again);
        CHECK(same_values(orig, back));
    }
    kernel_counts kc;
    graph_kernel_counts(g, &kc);
    CHECK_INT(kc.kernels, 3); /* fused, relu, sub */
    /* A second run finds nothing to do (and does not enter the body). */
    driver_result r2;
    CHECK(run_region_set(g, REGION_COMMIT, &r2));
    CHECK_INT(r2.rewrites, 0);
    CHECK_INT(g->nmodules, 2);
    driver_result_free(&r2);
    graph_free(back);
    free(text);
    driver_result_free(&r);
    graph_free(g);
    graph_free(orig);
}

/* Each way of not committing leaves the graph as it was: no instruction and
 * no module left behind. */
static void check_not_committed(const char *text, enum region_mode m, bool built)
{
    graph *g = parse(text);
    CHECK(g != NULL);
    if (!g)
        return;
    char *before = dump_of(g);
    driver_result r;
    CHECK(run_region_set(g, m, &r));
    CHECK(r.converged);
    CHECK_INT(r.rewrites, 0);
    CHECK(r.aborted >= 1);
    CHECK_INT(body_modules_seen, built ? 2 : 0);
    CHECK_INT(g->nmodules, 1);
    CHECK(graph_find_module(g, "main:fused0") == NULL);
    CHECK(verifies(g));
    char *after = dump_of(g);
    CHECK_STR(after, before);
    free(before);
    free(after);
    driver_result_free(&r);
    graph_free(g);
}

static void test_rw_region_abort_unlinks_body(void)
{
    check_not_committed(fusable, REGION_ABORT, true);
}

static void test_rw_region_refuses_bad_regions(void)
{
    check_not_committed(fusable, REGION_BAD_OUTPUT, false);
    check_not_committed(fusable, REGION_UNUSED_OUTPUT, false);
}

/* An input (the exp) defined after an outside user of an output (the
 * relu): no position is after every input and before every user, so
 * nothing is built. */
static void test_rw_region_refuses_without_a_position(void)
{
    static const char late_input[] =
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "y = @param:y -> float_type, {2}, {1}\n"
        "@2 = add(x,y) -> float_type, {2}, {1}\n"
        "@3 = relu(@2) -> float_type, {2}, {1}\n"
        "@4 = exp(x) -> float_type, {2}, {1}\n"
        "@5 = mul(@2,@4) -> float_type, {2}, {1}\n"
        "@6 = @return(@5,@3)\n";
    check_not_committed(late_input, REGION_LATE_INPUT, false);
}

/* A region whose value nobody reads dies with its body. */
static void test_dead_region_takes_its_body(void)
{
    static const char dead[] =
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "@1 = fused(x), [main:fused0] -> float_type, {2}, {1}\n"
        "@2 = relu(x) -> float_type, {2}, {1}\n"
        "@3 = @return(@2)\n"
        "\n"
        "module: \"main:fused0\"\n"
        "x0 = @param:x0 -> float_type, {2}, {1}\n"
        "main:fused0:@1 = exp(x0) -> float_type, {2}, {1}\n"
        "main:fused0:@2 = @return(main:fused0:@1)\n";
    graph *g = parse(dead);
    CHECK(g != NULL);
    if (!g)
        return;
    driver_result r;
    CHECK(run_region_set(g, REGION_COMMIT, &r));
    CHECK_INT(count_op(g, "fused"), 0);
    CHECK_INT(g->nmodules, 1);
    CHECK(verifies(g));
    char *text = dump_of(g);
    CHECK(text && !strstr(text, "fused0"));
    free(text);
    driver_result_free(&r);
    graph_free(g);
}

int main(void)
{
    RUN(test_dump_reads_and_writes_a_region);
    RUN(test_dump_rejects_mismatched_regions);
    RUN(test_exec_two_output_region_matches_unfused);
    RUN(test_exec_one_output_region_matches_unfused);
    RUN(test_rw_region_commits_two_outputs);
    RUN(test_rw_region_abort_unlinks_body);
    RUN(test_rw_region_refuses_bad_regions);
    RUN(test_rw_region_refuses_without_a_position);
    RUN(test_dead_region_takes_its_body);
    return tests_finish();
}
