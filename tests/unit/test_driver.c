/* test_driver.c: the worklist driver, the rw_* transaction, DCE and CSE,
 * exercised with rule sets written by hand in C (rule_sets_by_hand.h), the
 * way the rule compiler's generated code calls the engine.
 */
#include "check.h"

#include "cse.h"
#include "dce.h"
#include "driver.h"
#include "driver_internal.h"
#include "dump.h"
#include "graph_test_helpers.h"
#include "lazy_shapes.h"
#include "pipeline.h"
#include "rule_sets_by_hand.h"

#include <stdlib.h>

static char *dump_of(const graph *g)
{
    graft_error err = {0};
    size_t len;
    return dump_write(g, &len, &err);
}

/* The dump with every instruction named by its position, so that graphs
 * that differ only in which of two identical instructions survived compare
 * equal. */
static char *canonical_dump(graph *g)
{
    for (module *m = g->first_module; m; m = m->next)
        for (ins *i = m->first; i; i = i->next)
            if (!i->param)
                ins_set_name(i, NULL);
    return dump_of(g);
}

static const rule_stat *stat_of(const driver_result *r, const char *name)
{
    for (int k = 0; k < r->nrules; k++)
        if (strcmp(r->rules[k].name, name) == 0)
            return &r->rules[k];
    return NULL;
}

static bool run_sets(graph *g, const rule_set *const *sets, int n, const driver_options *o,
                     driver_result *r)
{
    graft_error err = {0};
    bool ok = driver_run(g, sets, n, o, r, &err);
    if (!ok)
        printf("driver: %s\n", err.message);
    return ok;
}

static const char transpose_pair[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}\n"
    "@1 = transpose[permutation={1, 0, 2}](x)\n"
    "@2 = transpose[permutation={1, 0, 2}](@1)\n"
    "@3 = relu(@2)\n"
    "@4 = @return(@3)\n";

/* ---- the worklist ---- */

static void test_worklist_set_semantics(void)
{
    graph *g = parse(transpose_pair);
    CHECK(g != NULL);
    if (!g)
        return;
    module *m = graph_main(g);
    ins *a = m->first, *b = a->next, *c = b->next;
    worklist w;
    worklist_init(&w, 0);
    worklist_push(&w, a);
    worklist_push(&w, b);
    worklist_push(&w, a); /* already there: no-op */
    worklist_push(&w, c);
    CHECK(worklist_contains(&w, a));
    worklist_drop(&w, b);
    CHECK(!worklist_contains(&w, b));
    CHECK(worklist_pop(&w) == c); /* LIFO */
    CHECK(worklist_pop(&w) == a); /* b was dropped */
    CHECK(worklist_pop(&w) == NULL);
    worklist_push(&w, b);
    CHECK(worklist_pop(&w) == b); /* pushable again after a pop */
    worklist_free(&w);

    /* Shuffled: every entry comes out exactly once. */
    worklist_init(&w, 42);
    int n = 0;
    for (ins *i = m->first; i; i = i->next, n++)
        worklist_push(&w, i);
    worklist_drop(&w, b);
    int seen = 0;
    ins *i;
    while ((i = worklist_pop(&w))) {
        CHECK(i != b);
        seen++;
    }
    CHECK_INT(seen, n - 1);
    worklist_free(&w);
    graph_free(g);
}

/* ---- firing, re-queueing, erasing ---- */

static void test_transpose_pair_folds_to_nothing(void)
{
    graph *g = parse(transpose_pair);
    if (!g)
        return;
    const rule_set *sets[] = {&fold_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged);
    CHECK_INT(r.stop, DRIVER_CONVERGED);
    CHECK_INT(r.rewrites, 2); /* transpose_of_transpose, then identity_transpose */
    CHECK_INT(stat_of(&r, "transpose_of_transpose")->fires, 1);
    CHECK_INT(stat_of(&r, "identity_transpose")->fires, 1);
    CHECK(stat_of(&r, "identity_transpose")->attempts >= 1);
    CHECK_INT(count_op(g, "transpose"), 0);
    CHECK_INT(graph_count(g), 3); /* x, relu, @return: the dead transposes went at once */
    CHECK(r.erased >= 3);
    CHECK(graph_main(g)->first->next->args[0] == graph_main(g)->first); /* relu(x) */
    CHECK(verifies(g));
    driver_result_free(&r);
    graph_free(g);
}

static void test_abort_leaves_graph_unchanged(void)
{
    graph *g = parse(transpose_pair);
    if (!g)
        return;
    char *before = dump_of(g);
    const rule_set *sets[] = {&abort_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged);
    CHECK_INT(r.rewrites, 0);
    CHECK(r.aborted >= 1);
    CHECK(stat_of(&r, "insert_then_abort")->attempts >= 1);
    CHECK_INT(stat_of(&r, "insert_then_abort")->fires, 0);
    CHECK_INT(graph_count(g), 5);
    char *after = dump_of(g);
    CHECK_STR(after, before);
    CHECK(verifies(g));
    free(before);
    free(after);
    driver_result_free(&r);
    graph_free(g);
}

static void test_disable_rule(void)
{
    graph *g = parse(transpose_pair);
    if (!g)
        return;
    const rule_set *sets[] = {&fold_set};
    const char *off[] = {"identity_transpose"};
    driver_options o;
    driver_options_init(&o);
    o.disabled = off;
    o.ndisabled = 1;
    driver_result r;
    CHECK(run_sets(g, sets, 1, &o, &r));
    CHECK(r.converged);
    CHECK_INT(r.rewrites, 1);
    CHECK(stat_of(&r, "identity_transpose")->disabled);
    CHECK_INT(stat_of(&r, "identity_transpose")->fires, 0);
    CHECK_INT(count_op(g, "transpose"), 1); /* the identity transpose stays */
    driver_result_free(&r);

    /* An unknown name is an error, not silently ignored. */
    const char *bad[] = {"no_such_rule"};
    o.disabled = bad;
    graft_error err = {0};
    CHECK(!driver_run(g, sets, 1, &o, &r, &err));
    CHECK_CONTAINS(err.message, "no_such_rule");
    graph_free(g);
}

static const char four_pairs[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "@1 = transpose[permutation={1, 0}](x)\n"
    "@2 = transpose[permutation={1, 0}](@1)\n"
    "@3 = transpose[permutation={1, 0}](@2)\n"
    "@4 = transpose[permutation={1, 0}](@3)\n"
    "@5 = relu(@4)\n"
    "@6 = @return(@5)\n";

static void test_max_rewrites(void)
{
    for (int limit = 0; limit <= 3; limit++) {
        graph *g = parse(four_pairs);
        if (!g)
            return;
        const rule_set *sets[] = {&fold_set};
        driver_options o;
        driver_options_init(&o);
        o.max_rewrites = limit;
        driver_result r;
        CHECK(run_sets(g, sets, 1, &o, &r));
        CHECK_INT(r.rewrites, limit);
        CHECK_INT(r.stop, DRIVER_MAX_REWRITES);
        CHECK(!r.converged);
        CHECK(verifies(g));
        driver_result_free(&r);
        graph_free(g);
    }
    /* Enough budget: converges with no transpose left. */
    graph *g = parse(four_pairs);
    const rule_set *sets[] = {&fold_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged);
    CHECK_INT(count_op(g, "transpose"), 0);
    driver_result_free(&r);
    graph_free(g);
}

static const char add_graph[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4}, {1}\n"
    "y = @param:y -> float_type, {4}, {1}\n"
    "@2 = add(x,y)\n"
    "@3 = @return(@2)\n";

static void test_nondecreasing_budget(void)
{
    graph *g = parse(add_graph);
    if (!g)
        return;
    const rule_set *sets[] = {&swap_set};
    driver_options o;
    driver_options_init(&o);
    o.nondecreasing_budget = 5;
    driver_result r;
    CHECK(run_sets(g, sets, 1, &o, &r));
    CHECK_INT(r.stop, DRIVER_RULE_BUDGET);
    CHECK(!r.converged);
    CHECK_INT(stat_of(&r, "swap_add_operands")->fires, 5);
    CHECK(verifies(g));
    CHECK_STR(driver_stop_name(r.stop), "rule budget");
    driver_result_free(&r);
    graph_free(g);
}

static void test_success_without_change_is_caught(void)
{
#ifndef NDEBUG
    graph *g = parse(add_graph);
    if (!g)
        return;
    const rule_set *sets[] = {&broken_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK_INT(r.stop, DRIVER_ERROR);
    CHECK_CONTAINS(r.error.message, "no_change");
    CHECK_CONTAINS(r.error.message, "reported success but the graph did not change");
    CHECK_INT(graph_count(g), 4); /* the identical add was taken back out */
    CHECK(verifies(g));
    driver_result_free(&r);
    graph_free(g);
#endif
}

/* A graph of many independent chains of foldable ops. */
static char *many_chains(int chains)
{
    size_t cap = 256 + (size_t)chains * 400, at = 0;
    char *s = malloc(cap);
    at += (size_t)snprintf(s + at, cap - at,
                           "module: \"main\"\nx = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}\n");
    static const char *const perms[] = {"{1, 0, 2}", "{0, 2, 1}", "{2, 1, 0}", "{1, 2, 0}",
                                        "{2, 0, 1}"};
    int id = 1;
    char outs[4096] = "";
    size_t outs_at = 0;
    for (int c = 0; c < chains; c++) {
        int t1 = id++;
        at += (size_t)snprintf(s + at, cap - at, "@%d = transpose[permutation=%s](x)\n", t1,
                               perms[c % 5]);
        int t2 = id++;
        at += (size_t)snprintf(s + at, cap - at, "@%d = transpose[permutation=%s](@%d)\n", t2,
                               perms[(c / 5) % 5], t1);
        int t3 = id++;
        at += (size_t)snprintf(s + at, cap - at, "@%d = transpose[permutation=%s](@%d)\n", t3,
                               perms[(c * 3) % 5], t2);
        int r = id++;
        at += (size_t)snprintf(s + at, cap - at, "@%d = contiguous(@%d)\n", r, t3);
        int e = id++;
        at += (size_t)snprintf(s + at, cap - at, "@%d = relu(@%d)\n", e, r);
        outs_at += (size_t)snprintf(outs + outs_at, sizeof outs - outs_at, "%s@%d",
                                    c ? "," : "", e);
    }
    at += (size_t)snprintf(s + at, cap - at, "@%d = @return(%s)\n", id, outs);
    return s;
}

static void test_shuffled_order_reaches_same_graph(void)
{
    char *text = many_chains(25);
    graph *g = parse(text);
    if (!g) {
        free(text);
        return;
    }
    const rule_set *sets[] = {&fold_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged);
    CHECK(r.rewrites > 25);
    char *expect = canonical_dump(g);
    driver_result_free(&r);
    graph_free(g);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        g = parse(text);
        driver_options o;
        driver_options_init(&o);
        o.shuffle_seed = seed;
        CHECK(run_sets(g, sets, 1, &o, &r));
        CHECK(r.converged);
        CHECK(verifies(g));
        char *got = canonical_dump(g);
        CHECK_STR(got, expect);
        free(got);
        driver_result_free(&r);
        graph_free(g);
    }
    free(expect);
    free(text);
}

typedef struct text_buf {
    char s[8192];
    size_t n;
} text_buf;

static void collect(void *ctx, const char *text)
{
    text_buf *b = ctx;
    b->n += (size_t)snprintf(b->s + b->n, sizeof b->s - b->n, "%s", text);
}

static void test_trace_names_rule_and_instructions(void)
{
    graph *g = parse(transpose_pair);
    if (!g)
        return;
    static text_buf buf;
    buf.n = 0;
    buf.s[0] = 0;
    const rule_set *sets[] = {&fold_set};
    driver_options o;
    driver_options_init(&o);
    o.trace = collect;
    o.trace_ctx = &buf;
    driver_result r;
    CHECK(run_sets(g, sets, 1, &o, &r));
    CHECK_CONTAINS(buf.s, "fire transpose_of_transpose (tests/unit/rule_sets_by_hand.h:1) [fold] at @2");
    CHECK_CONTAINS(buf.s, "  - @1 = transpose[permutation={1, 0, 2}](x)");
    CHECK_CONTAINS(buf.s, "  - @2 = transpose[permutation={1, 0, 2}](@1)");
    CHECK_CONTAINS(buf.s, "  + %");
    CHECK_CONTAINS(buf.s, "= transpose[permutation={0, 1, 2}](x)");
    CHECK_CONTAINS(buf.s, "fire identity_transpose (tests/unit/rule_sets_by_hand.h:2)");
    CHECK_CONTAINS(buf.s, "now read x");
    driver_result_free(&r);
    graph_free(g);
}

/* ---- DCE and CSE ---- */

static void test_dce(void)
{
    graph *g = parse("module: \"main\"\n"
                     "x = @param:x -> float_type, {4}, {1}\n"
                     "unused = @param:unused -> float_type, {4}, {1}\n"
                     "@2 = relu(x)\n"
                     "@3 = neg(@2)\n"
                     "@4 = abs(x)\n"
                     "@5 = @return(@4)\n");
    if (!g)
        return;
    CHECK_INT(dce_run(g), 2); /* neg, then the relu only it read */
    CHECK_INT(graph_count(g), 4); /* both params stay: they are the interface */
    CHECK_INT(count_op(g, "relu"), 0);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_cse(void)
{
    graph *g = parse("module: \"main\"\n"
                     "x = @param:x -> float_type, {4}, {1}\n"
                     "@1 = @literal{1, 2, 3, 4} -> float_type, {4}, {1}\n"
                     "@2 = @literal{1, 2, 3, 4} -> float_type, {4}, {1}\n"
                     "@3 = @literal{1, 2, 3, 5} -> float_type, {4}, {1}\n"
                     "@4 = add(x,@1)\n"
                     "@5 = add(x,@2)\n"
                     "@6 = add(@1,x)\n"
                     "@7 = relu(@4)\n"
                     "@8 = relu(@5)\n"
                     "@9 = mul(@7,@8)\n"
                     "@10 = mul(@9,@3)\n"
                     "@11 = @return(@10,@6)\n");
    if (!g)
        return;
    size_t merged = 0;
    graft_error err = {0};
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 3); /* literal @2, add @5, relu @8 */
    CHECK_INT(count_op(g, "@literal"), 2);
    CHECK_INT(count_op(g, "add"), 2); /* operand order matters: add(@1,x) stays */
    CHECK_INT(count_op(g, "relu"), 1);
    ins *mul = NULL;
    for (ins *i = graph_main(g)->first; i; i = i->next)
        if (ins_is(i, "mul") && !mul)
            mul = i;
    CHECK(mul && mul->args[0] == mul->args[1]);
    CHECK(verifies(g));
    /* Idempotent. */
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 0);
    graph_free(g);
}

/* Two literals of one value whose strides differ only on length-1 axes
 * (constant folding of a transposed literal leaves such strides) are one;
 * strides of a longer axis still tell two literals apart. */
static void test_cse_literal_unit_strides(void)
{
    graph *g = parse("module: \"main\"\n"
                     "x = @param:x -> float_type, {1, 4}, {4, 1}\n"
                     "@1 = @literal{1, 2, 3, 4} -> float_type, {1, 4}, {4, 1}\n"
                     "@2 = @literal{1, 2, 3, 4} -> float_type, {1, 4}, {1, 1}\n"
                     "@3 = @literal{1, 2, 3, 4} -> float_type, {2, 2}, {2, 1}\n"
                     "@4 = @literal{1, 2, 3, 4} -> float_type, {2, 2}, {1, 2}\n"
                     "@5 = add(x,@1)\n"
                     "@6 = sub(x,@2)\n"
                     "@7 = mul(@3,@4)\n"
                     "@8 = @return(@5,@6,@7)\n");
    if (!g)
        return;
    size_t merged = 0;
    graft_error err = {0};
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 1); /* @2 */
    CHECK_INT(count_op(g, "@literal"), 3);
    CHECK(verifies(g));
    graph_free(g);
}

/* A literal merged into a twin that differs from it only in the strides of
 * length-1 axes changes what its readers compute for their layout
 * (ops_binary_layout): sub(k, k') is strided {2, 2, 1} with k' standard
 * and {2, 1, 1} with k for k'. CSE hands the readers the twin through a
 * pending op and settles their shapes with the lazy pass, so the recorded
 * shapes are the computed ones (graph_verify compares them exactly; seeds
 * 1016397 and 1093933 of test_view_normal_form failed it). */
static void test_cse_literal_unit_strides_readers(void)
{
    graph *g = parse("module: \"main\"\n"
                     "@1 = @literal{1, 2, 3, 4, 5, 6} -> float_type, {3, 1, 2}, {2, 1, 1}\n"
                     "@2 = @literal{1, 2, 3, 4, 5, 6} -> float_type, {3, 1, 2}, {2, 2, 1}\n"
                     "@3 = sub(@1,@2)\n"
                     "@4 = neg(@3)\n"
                     "@5 = @return(@4)\n");
    if (!g)
        return;
    ins *sub = NULL;
    for (ins *i = graph_main(g)->first; i; i = i->next)
        if (ins_is(i, "sub"))
            sub = i;
    CHECK(sub && sub->sh.strides[1] == 2); /* before: the standard layout */
    size_t merged = 0;
    graft_error err = {0};
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 1); /* @2 */
    CHECK_INT(count_op(g, "@literal"), 1);
    CHECK_INT((long long)shapes_pending_count(g), 0);
    CHECK(sub && sub->args[1] == sub->args[0]);
    CHECK(sub && sub->sh.strides[1] == 1); /* recomputed (the lazy pass goes on to neg) */
    CHECK(verifies(g));
    graph_free(g);
}

/* Offers every instruction of g's main module to a fresh probe. */
static bool probe_says_maybe(graph *g)
{
    cse_probe p = {0};
    for (ins *i = graph_main(g)->first; i; i = i->next)
        cse_probe_ins(&p, i);
    return p.maybe;
}

/* cse_probe says `maybe` wherever cse_run would merge, and after it has
 * merged, says none on a graph with one literal and first operands read a
 * few times; a second literal, or a first operand read more often than the
 * twin scan looks (cse_run's table), is a `maybe` whatever they compute. */
static void test_cse_probe(void)
{
    static const char twins[] = "module: \"main\"\n"
                                "x = @param:x -> float_type, {4}, {1}\n"
                                "@1 = @literal{1, 2, 3, 4} -> float_type, {4}, {1}\n"
                                "@2 = add(x,@1)\n"
                                "@3 = relu(@2)\n"
                                "@4 = add(x,@1)\n"
                                "@5 = relu(@4)\n"
                                "@6 = mul(@3,@5)\n"
                                "@7 = @return(@6)\n";
    graph *g = parse(twins);
    if (!g)
        return;
    size_t merged = 0;
    graft_error err = {0};
    CHECK(probe_says_maybe(g));
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 2);
    CHECK(!probe_says_maybe(g));
    graph_free(g);
    g = parse("module: \"main\"\n"
              "x = @param:x -> float_type, {4}, {1}\n"
              "@1 = @literal{1, 2, 3, 4} -> float_type, {4}, {1}\n"
              "@2 = @literal{1, 2, 3, 5} -> float_type, {4}, {1}\n"
              "@3 = add(@1,@2)\n"
              "@4 = @return(@3)\n");
    if (g) {
        CHECK(probe_says_maybe(g)); /* two literals */
        graph_free(g);
    }
    char text[2048];
    int at = snprintf(text, sizeof text, "module: \"main\"\nx = @param:x -> float_type, {4}, {1}\n");
    for (int k = 1; k <= 17; k++)
        at += snprintf(text + at, sizeof text - (size_t)at, "@%d = %s(x)\n", k,
                       k % 2 ? "relu" : "neg");
    snprintf(text + at, sizeof text - (size_t)at, "@18 = @return(@1)\n");
    g = parse(text);
    if (g) {
        CHECK(probe_says_maybe(g)); /* x read 17 times */
        graph_free(g);
    }
}

/* relu(x) once through a transpose pair that folds away, once directly:
 * twins only after the rewrite. */
static const char twins_after_fold[] = "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}\n"
    "@1 = transpose[permutation={1, 0, 2}](x)\n"
    "@2 = transpose[permutation={1, 0, 2}](@1)\n"
    "@3 = relu(@2)\n"
    "@4 = relu(x)\n"
    "@5 = mul(@3,@4)\n"
    "@6 = @return(@5)\n";

/* driver_result.cse_clean: a run whose rewrites leave two instructions
 * computing the same value (relu(x) once through a folded transpose pair,
 * once directly) is not clean, and the pipeline's CSE merges them; one
 * that leaves none is. */
static void test_cse_clean(void)
{
    graph *g = parse(twins_after_fold);
    if (!g)
        return;
    const rule_set *sets[] = {&fold_set};
    driver_result r;
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged && !r.cse_clean);
    driver_result_free(&r);
    CHECK(run_sets(g, sets, 1, NULL, &r)); /* the twins are still there */
    CHECK(r.converged && !r.cse_clean);
    driver_result_free(&r);
    size_t merged = 0;
    graft_error err = {0};
    CHECK(cse_run(g, &merged, &err));
    CHECK_INT(merged, 1);
    CHECK(run_sets(g, sets, 1, NULL, &r));
    CHECK(r.converged && r.cse_clean);
    driver_result_free(&r);
    graph_free(g);
    /* Through the pipeline: the twins the rewrites made are merged. */
    g = parse(twins_after_fold);
    optimize_result res;
    if (g) {
        CHECK(optimize_run(g, sets, 1, NULL, &res, &err));
        CHECK_INT(res.cse_merged, 1);
        CHECK_INT(count_op(g, "relu"), 1);
        CHECK(verifies(g));
        optimize_result_free(&res);
        graph_free(g);
    }
    /* A shuffled run does not probe. */
    g = parse(transpose_pair);
    if (g) {
        driver_options o;
        driver_options_init(&o);
        o.shuffle_seed = 7;
        CHECK(run_sets(g, sets, 1, &o, &r));
        CHECK(r.converged && !r.cse_clean);
        driver_result_free(&r);
        CHECK(run_sets(g, sets, 1, NULL, &r));
        CHECK(r.converged && r.cse_clean);
        driver_result_free(&r);
        graph_free(g);
    }
}

/* The pipeline's rounds go on while CSE merges. A transpose rising through
 * tanh toward the dot builds t(dot), which the graph already computes for
 * max: only CSE merges the two, and until then the dot has two readers and
 * transpose_into_dot (dot:once) waits. Each step up costs a round; with at
 * most three, the last transpose stayed beside the dot (seed 5009064 of
 * test_view_normal_form, --ops 20). */
static void test_rounds_while_cse_merges(void)
{
    graph *g = parse("module: \"main\"\n"
                     "a = @param:a -> float_type, {2, 4}, {4, 1}\n"
                     "b = @param:b -> float_type, {2, 2}, {2, 1}\n"
                     "@1 = dot(b,a)\n"
                     "@2 = tanh(@1)\n"
                     "@3 = relu(@2)\n"
                     "@4 = mul(@2,@3)\n"
                     "@5 = max(@3,@1)\n"
                     "@6 = mul(@4,@5)\n"
                     "@7 = transpose[permutation={1, 0}](@6)\n"
                     "@8 = @return(@7)\n");
    const pipeline *p = pipeline_find("normalize");
    optimize_plan plan;
    optimize_result res;
    graft_error err = {0};
    if (!g || !p || !pipeline_plan(p, &plan, &err)) {
        CHECK(false);
        graph_free(g);
        return;
    }
    CHECK(optimize_plan_run(g, &plan, NULL, &res, &err));
    CHECK(res.rounds > 3);
    CHECK_INT(count_op(g, "transpose"), 0); /* it went into the dot */
    CHECK(verifies(g));
    optimize_result_free(&res);
    graph_free(g);
}

int main(void)
{
    RUN(test_worklist_set_semantics);
    RUN(test_transpose_pair_folds_to_nothing);
    RUN(test_abort_leaves_graph_unchanged);
    RUN(test_disable_rule);
    RUN(test_max_rewrites);
    RUN(test_nondecreasing_budget);
    RUN(test_success_without_change_is_caught);
    RUN(test_shuffled_order_reaches_same_graph);
    RUN(test_trace_names_rule_and_instructions);
    RUN(test_dce);
    RUN(test_cse_literal_unit_strides);
    RUN(test_cse_literal_unit_strides_readers);
    RUN(test_cse);
    RUN(test_cse_probe);
    RUN(test_cse_clean);
    RUN(test_rounds_while_cse_merges);
    return tests_finish();
}
