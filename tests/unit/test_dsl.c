/* test_dsl.c: the rule compiler phase by phase, and compiled rules running.
 *
 * Snippets go through the parser (AST shape), sema (resolved ops, attribute
 * indexes, types), the termination measure, the decision trees (shared tests,
 * switches on operand ops) and the emitter (rule names and file:line in the
 * C). Then rules run on graphs built with ir/ir.h: the built-in fold set
 * and the same rules loaded from a user file through dsl/load.c (a real
 * compiler, a real shared object), driven by the engine's worklist driver.
 */
#include "check.h"
#include "corpus_replay.h"

#include "api.h"
#include "compile.h"
#include "dump.h"
#include "driver.h"
#include "load.h"
#include "op_rank.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message as a plain pointer (keeps CHECK_STR's buffer sizes apart). */
__attribute__((noinline)) static const char *message_of(const graft_error *e) { return e->message; }

static dsl_file *check_text(const char *text, graft_error *err)
{
    return dsl_check("t.rules", text, strlen(text), err);
}

static void test_parse_shapes_the_tree(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule pad_into_convolution\n"
                             "    c = convolution[padding=p](pad[pads=q, mode=constant, value=0](x):once, w)\n"
                             "    if spatial_only(q)\n"
                             "    => c[padding = add_padding(p, q)](x, w)\n",
                             &err);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_INT(f->nrules, 1);
    const dsl_rule *r = f->rules[0];
    CHECK_STR(r->name, "pad_into_convolution");
    CHECK_INT(r->loc.line, 1);
    CHECK_INT(r->loc.col, 6);
    const dsl_pattern *c = r->pattern;
    CHECK_INT(c->kind, PAT_OP);
    CHECK_STR(c->bind, "c");
    CHECK(c->op == op_find("convolution"));
    CHECK_INT(c->nargs, 2);
    const dsl_pattern *pad = c->args[0];
    CHECK(pad->once);
    CHECK(pad->op == op_find("pad"));
    CHECK_INT(pad->args[0]->kind, PAT_CAPTURE);
    /* attributes: pads binds q, mode=constant is the enum value 0, value=0 is a float */
    const dsl_attr_pat *a = pad->attrs;
    CHECK_STR(a->key, "pads");
    CHECK_STR(a->bind, "q");
    CHECK_INT(a->next->lit.kind, ATTR_INT);
    CHECK_INT(a->next->lit.u.i, 0);
    CHECK_INT(a->next->next->lit.kind, ATTR_FLOAT);
    CHECK(r->fallible);
    CHECK_INT(r->repl->kind, RP_REUSE);
    CHECK_INT(r->repl->sets->index, op_attr_index(op_find("convolution"), "padding"));
    CHECK_INT(r->repl->sets->expr->type, TY_INTS);
    /* captures: c, p, q, x, w */
    CHECK_INT(r->ncaptures, 5);
    dsl_file_free(f);
}

static void test_sema_types(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule r1\n"
                             "    t = transpose(x)\n"
                             "    let n = len(t.permutation) + 1\n"
                             "    if n > 2 && t.rank == x.rank && x.type == float_type\n"
                             "    => x\n",
                             &err);
    CHECK(f != NULL);
    if (f) {
        const dsl_clause *let = f->rules[0]->clauses;
        CHECK(let->is_let);
        CHECK_INT(let->expr->type, TY_INT);
        CHECK_INT(let->next->expr->type, TY_BOOL);
        dsl_file_free(f);
    }
    f = check_text("rule r2\n    t = transpose(x)  if t.lens == 2.0\n    => x\n", &err);
    CHECK(f == NULL);
    CHECK_STR(message_of(&err), "cannot compare ints with float");
    CHECK_INT(err.line, 2);
    CHECK_INT(err.col, 26);
}

static void test_termination_measure(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule tt\n"
                             "    transpose[permutation=o](transpose[permutation=i](x))\n"
                             "    => transpose[permutation = compose(i, o)](x)\n"
                             "rule order\n"
                             "    add(k = @literal, x = !@literal)\n"
                             "    => add(x, k)\n"
                             "rule move nonterminating\n"
                             "    u = <unary>(r = reshape(x):once)\n"
                             "    => r(u(x))\n",
                             &err);
    CHECK(f != NULL);
    if (!f)
        return;
    int lhs[DSL_MEASURE_COUNT], rhs[DSL_MEASURE_COUNT];
    dsl_rule_measure(f->rules[0], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_VIEWS], 2);
    CHECK_INT(rhs[DSL_MEASURE_VIEWS], 1);
    dsl_rule_measure(f->rules[1], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_INSTRUCTIONS], 2);
    CHECK_INT(rhs[DSL_MEASURE_INSTRUCTIONS], 2);
    CHECK_INT(lhs[DSL_MEASURE_ORDER], 1);
    CHECK_INT(rhs[DSL_MEASURE_ORDER], 0);
    dsl_rule_measure(f->rules[2], lhs, rhs);
    CHECK(memcmp(lhs, rhs, sizeof lhs) == 0);
    CHECK(f->rules[2]->flags & DSL_RULE_NONTERMINATING);
    dsl_file_free(f);
    /* add(x, k) with x possibly a literal could swap back: not accepted. */
    f = check_text("rule order\n    add(k = @literal, x)\n    => add(x, k)\n", &err);
    CHECK(f == NULL);
    CHECK_CONTAINS(err.message, "does not decrease the termination measure");
}

/* The canonical order of ops: a total order, by cost class, then code. */
static void test_op_ranks(void)
{
    int n;
    const op_def *const *ranked = op_ranked(&n);
    int nops;
    op_all(&nops);
    CHECK_INT(n, nops);
    for (int k = 0; k < n; k++) {
        CHECK_INT(op_rank(ranked[k]), k + 1);
        if (k)
            CHECK(op_cost_class_of(ranked[k - 1]) < op_cost_class_of(ranked[k]) ||
                  (op_cost_class_of(ranked[k - 1]) == op_cost_class_of(ranked[k]) &&
                   ranked[k - 1]->code < ranked[k]->code));
    }
    const char *up[] = {"@literal", "fused", "transpose", "add", "mul", "sigmoid", "pad",
                        "reduce_sum", "dot"};
    for (int k = 1; k < (int)(sizeof up / sizeof up[0]); k++)
        CHECK(op_rank(op_find(up[k - 1])) < op_rank(op_find(up[k])));
    CHECK_INT(op_rank(op_opaque()), n + 1);
    int lo, hi;
    CHECK(op_rank_range(OPC_UNARY, &lo, &hi));
    CHECK_INT(lo, op_rank(op_find("relu")));
    CHECK(hi >= op_rank(op_find("convert")));
    CHECK(!op_rank_range(OPC_BUILTIN, &lo, &hi)); /* classes never match builtins */

    /* The measure's rank component: op for op down the order, a region of
     * one op, a class node on both sides (cancels), a class rewritten to a
     * fixed op (bounded by the class's lowest rank). */
    graft_error err = {0};
    dsl_file *f = check_text("rule down\n    mul(x, k) if all_equal(k, 2.0)\n    => add(x, x)\n"
                             "rule one_op_region\n    s = sigmoid(x)\n    => region(s) -> (s)\n"
                             "rule moves nonterminating\n    u = <unary>(r = reshape(x))\n"
                             "    => r(u(x))\n"
                             "rule class_to_op nonterminating\n    <unary>(x)\n    => neg(x)\n",
                             &err);
    CHECK(f != NULL);
    if (!f)
        return;
    int lhs[DSL_MEASURE_COUNT], rhs[DSL_MEASURE_COUNT];
    dsl_rule_measure(f->rules[0], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_RANK], op_rank(op_find("mul")));
    CHECK_INT(rhs[DSL_MEASURE_RANK], op_rank(op_find("add")));
    dsl_rule_measure(f->rules[1], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_RANK], op_rank(op_find("sigmoid")));
    CHECK_INT(rhs[DSL_MEASURE_RANK], op_rank(op_find("fused")));
    dsl_rule_measure(f->rules[2], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_RANK], op_rank(op_find("reshape")));
    CHECK_INT(rhs[DSL_MEASURE_RANK], op_rank(op_find("reshape")));
    dsl_rule_measure(f->rules[3], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_RANK], op_rank(op_find("relu")));
    CHECK_INT(rhs[DSL_MEASURE_RANK], op_rank(op_find("neg")));
    dsl_file_free(f);
}

/* Unguarded nonterminating rules that undo each other are found in pairs;
 * a guarded pair, or a pair where one side is terminating, is not. */
static void test_undo_pairs(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule a nonterminating\n    neg(transpose(x))\n    => transpose(neg(x))\n"
                             "rule b nonterminating\n    t = transpose(neg(x))\n    => neg(t(x))\n"
                             "rule c nonterminating\n    exp(r = reshape(x)) if x.rank > 1\n"
                             "    => r(exp(x))\n"
                             "rule d nonterminating\n    r = reshape(exp(x)) if x.rank > 1\n"
                             "    => exp(r(x))\n"
                             "rule e nonterminating\n    abs(squeeze(x))\n    => squeeze(abs(x))\n",
                             &err);
    CHECK(f != NULL);
    if (!f)
        return;
    dsl_undo_pair pairs[4];
    CHECK_INT(dsl_find_undo_pairs(f, pairs, 4), 1);
    CHECK_STR(pairs[0].first->name, "a");
    CHECK_STR(pairs[0].second->name, "b");
    dsl_file_free(f);
}

static void test_tree_shares_and_switches(void)
{
    /* Ten rules under one root op, told apart by the operand's op: one
     * switch, not ten tests. */
    static const char *const inner[] = {"exp", "log", "sin", "cos", "tan",
                                        "abs", "neg", "floor", "ceil", "sqrt"};
    char text[4096];
    size_t n = 0;
    for (int i = 0; i < 10; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "rule r%d\n    relu(%s(x))\n    => x\n", i,
                              inner[i]);
    graft_error err = {0};
    dsl_file *f = check_text(text, &err);
    CHECK(f != NULL);
    if (!f)
        return;
    dsl_trees *t = dsl_build_trees(f, &err);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->nroots, 1);
        CHECK_INT(t->roots[0].nops, 1);
        CHECK(t->roots[0].ops[0] == op_find("relu"));
        CHECK(!t->roots[0].by_class);
        /* the shared arity test, then one child per operand op */
        const dsl_tnode *root = &t->roots[0].tree;
        CHECK_INT(root->nitems, 1);
        CHECK_INT(root->items[0].child->test.kind, TEST_NARGS);
        CHECK_INT(root->items[0].child->nitems, 10);
        dsl_emit_options opt = {"t", "entry_t", false};
        char *c = dsl_emit(f, t, &opt, &err);
        CHECK(c != NULL);
        CHECK_CONTAINS(c, "if (op_in(OPSET_0, r->args[0]->op->code)) {");
        CHECK_CONTAINS(c, "switch (r->args[0]->op->code) {");
        CHECK_CONTAINS(c, "case OP_exp: {");
        CHECK_CONTAINS(c, "/* rule r3 at t.rules:10 */");
        CHECK_CONTAINS(c, "const rule_set *entry_t(const graft_rule_api *api)");
        free(c);
    }
    dsl_file_free(f);
}

static void test_overlap_and_duplicates(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule a\n    relu(x)\n    => x\nrule b\n    relu(exp(y))\n    => y\n", &err);
    CHECK(f == NULL);
    CHECK_CONTAINS(err.message, "rule 'b' can never fire: rule 'a' (t.rules:1:6)");
    CHECK_INT(err.line, 4);
    /* A guard on the earlier rule means the later one can still fire. */
    f = check_text("rule a\n    r = relu(x)  if r.rank == 4\n    => x\nrule b\n    relu(exp(y))\n    => y\n", &err);
    CHECK(f != NULL);
    dsl_file_free(f);
    /* :c patterns subsume both operand orders. */
    f = check_text("rule a\n    add:c(x, @literal)\n    => x\nrule b\n    add(@literal, y)\n    => y\n", &err);
    CHECK(f == NULL);
    CHECK_CONTAINS(err.message, "can never fire");
}

/* ---- running compiled rules ---- */

static module *new_main(graph **g)
{
    *g = graph_new();
    return graph_add_module(*g, "main", NULL);
}

/* x -> transpose{1,0,2} -> transpose{1,0,2} -> add(zeros) -> relu -> return */
static graph *fold_graph(void)
{
    graph *g;
    module *m = new_main(&g);
    int64_t lens[3] = {2, 3, 4};
    shape sh = shape_standard(GRAFT_FLOAT, 3, lens);
    ins *x = module_add_param(m, "x", &sh);
    int64_t perm[3] = {1, 0, 2};
    attr a = {"permutation", attr_ints(perm, 3)};
    ins *t1 = module_add_op(m, "transpose", &a, 1, &x, 1, NULL);
    ins *t2 = module_add_op(m, "transpose", &a, 1, &t1, 1, NULL);
    float zeros[24] = {0};
    ins *k = module_add_literal(m, &sh, zeros);
    ins *args[2] = {k, t2};
    ins *add = module_add_op(m, "add", NULL, 0, args, 2, NULL);
    ins *relu = module_add_op(m, "relu", NULL, 0, &add, 1, NULL);
    module_add_return(m, &relu, 1);
    return g;
}

/* What fold leaves of fold_graph: x -> relu -> return. */
static void check_folded(graph *g)
{
    module *m = graph_main(g);
    CHECK_INT(m->count, 3);
    ins *ret = module_return(m);
    CHECK(ret && ret->nargs == 1 && strcmp(ret->args[0]->op->name, "relu") == 0);
    if (ret && ret->nargs == 1)
        CHECK(ret->args[0]->args[0]->param && strcmp(ret->args[0]->args[0]->param, "x") == 0);
    CHECK(graph_verify(g, NULL));
}

static bool run_set(graph *g, const rule_set *set, driver_result *res)
{
    driver_options o;
    driver_options_init(&o);
    graft_error err = {0};
    return driver_run(g, &set, 1, &o, res, &err);
}

static void test_builtin_fold_runs(void)
{
    const rule_set *fold = builtin_rule_set("fold");
    CHECK(fold != NULL);
    if (!fold)
        return;
    CHECK_STR(fold->name, "fold");
    CHECK(builtin_rule_set("no_such_set") == NULL);
    graph *g = fold_graph();
    driver_result res;
    CHECK(run_set(g, fold, &res));
    CHECK(res.converged);
    check_folded(g);
    driver_result_free(&res);
    graph_free(g);
}

static const char *user_rules =
    "# a user's own copy of three fold rules\n"
    "rule identity_transpose\n"
    "    t = transpose(x)  if is_identity(t.permutation)\n"
    "    => x\n"
    "rule transpose_of_transpose\n"
    "    transpose[permutation=outer](transpose[permutation=inner](x))\n"
    "    => transpose[permutation = compose(inner, outer)](x)\n"
    "rule add_zero\n"
    "    a = add:c(x, k = @literal)  if all_equal(k, 0.0) && a.shape == x.shape\n"
    "    => x\n";

static char cache_dir[256];
static char rules_path[300];

static bool write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    fputs(text, fp);
    return fclose(fp) == 0;
}

static void test_load_user_rules(void)
{
    graft_error err = {0};
    loaded_rules l;
    bool ok = dsl_load_rules(rules_path, cache_dir, &l, &err);
    CHECK(ok);
    if (!ok) {
        printf("  %s\n", err.message);
        return;
    }
    CHECK(!l.from_cache);
    CHECK_INT(l.set->nrules, 3);
    CHECK_STR(l.set->rules[1].name, "transpose_of_transpose");
    CHECK_INT(l.set->rules[1].line, 5);
    graph *g = fold_graph();
    driver_result res;
    CHECK(run_set(g, l.set, &res));
    CHECK(res.converged);
    check_folded(g);
    driver_result_free(&res);
    graph_free(g);
    dsl_unload_rules(&l);
    /* The second load comes from the cache. */
    ok = dsl_load_rules(rules_path, cache_dir, &l, &err);
    CHECK(ok);
    if (ok) {
        CHECK(l.from_cache);
        dsl_unload_rules(&l);
    }
}

static void test_load_reports_static_errors(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/bad.rules", cache_dir);
    CHECK(write_text(path, "rule bad\n    transpos(x)\n    => x\n"));
    graft_error err = {0};
    loaded_rules l;
    CHECK(!dsl_load_rules(path, cache_dir, &l, &err));
    CHECK_STR(message_of(&err), "unknown op 'transpos' (did you mean 'transpose'?)");
    CHECK_INT(err.line, 2);
    CHECK_INT(err.col, 5);
}

static void test_load_without_compiler(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/nocc.rules", cache_dir);
    CHECK(write_text(path, "rule relu_relu\n    relu(r = relu(x))\n    => r\n"));
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    const char *cc = getenv("GRAFT_CC");
    char *saved_cc = cc ? strdup(cc) : NULL;
    setenv("PATH", cache_dir, 1); /* a directory without a compiler */
    unsetenv("GRAFT_CC");
    graft_error err = {0};
    loaded_rules l;
    CHECK(!dsl_load_rules(path, cache_dir, &l, &err));
    CHECK_STR(message_of(&err),
              "no C compiler found (tried cc, gcc, clang): install gcc or use a built-in pipeline");
    if (saved)
        setenv("PATH", saved, 1);
    if (saved_cc)
        setenv("GRAFT_CC", saved_cc, 1);
    free(saved);
    free(saved_cc);
}

/* Finds rules/fold.rules by walking up from the test binary
 * (TOP/BUILD/tests/test_dsl, whatever BUILD is). */
static bool find_fold_rules(char *out, size_t size)
{
    char dir[4096];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
        *slash = '\0';
        snprintf(out, size, "%s/rules/fold.rules", dir);
        if (access(out, R_OK) == 0)
            return true;
    }
    return false;
}

/* The rule fuzz target's contract for one input: it compiles all the way
 * to C or is rejected with a located message. */
static void check_rules_input(const char *path, const char *text, size_t len)
{
    graft_error err = {0};
    dsl_emit_options opt = {"fuzz", "graft_rules_entry", true};
    char *c = dsl_compile(path, text, len, &opt, &err);
    CHECK(c != NULL || err.message[0] != '\0');
    free(c);
}

static void test_fuzz_corpus_replay(void)
{
    char fold[4200];
    CHECK(find_fold_rules(fold, sizeof fold));
    char *top_end = strstr(fold, "/rules/fold.rules");
    if (!top_end)
        return;
    *top_end = '\0';
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus_rules", fold);
    CHECK(corpus_replay(dir, check_rules_input) >= 3);
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regress_rules", fold);
    corpus_replay(dir, check_rules_input); /* may not exist: no crasher found so far */
}

/* The shipped rules/fold.rules itself, compiled into a .so and run: the same
 * result as the copy linked into graft. */
static void test_load_shipped_fold(void)
{
    char path[4200];
    CHECK(find_fold_rules(path, sizeof path));
    graft_error err = {0};
    loaded_rules l;
    bool ok = dsl_load_rules(path, cache_dir, &l, &err);
    CHECK(ok);
    if (!ok) {
        printf("  %s\n", err.message);
        return;
    }
    const rule_set *builtin = builtin_rule_set("fold");
    CHECK(builtin && builtin->nrules == l.set->nrules);
    graph *g = fold_graph();
    driver_result res;
    CHECK(run_set(g, l.set, &res));
    CHECK(res.converged);
    check_folded(g);
    driver_result_free(&res);
    graph_free(g);
    dsl_unload_rules(&l);
}

/* A failing helper (compose of permutations of different lengths cannot
 * happen in a valid graph, so use add_padding on a pad of batch axes) makes
 * the rule not fire and leaves the graph alone. */
static void test_failing_helper_aborts(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/pad.rules", cache_dir);
    CHECK(write_text(path, "rule pad_into_convolution\n"
                           "    c = convolution[padding=p](pad[pads=q, value=0](x):once, w)\n"
                           "    => c[padding = add_padding(p, q)](x, w)\n"));
    graft_error err = {0};
    loaded_rules l;
    bool ok = dsl_load_rules(path, cache_dir, &l, &err);
    CHECK(ok);
    if (!ok) {
        printf("  %s\n", err.message);
        return;
    }
    for (int batch_pad = 0; batch_pad < 2; batch_pad++) {
        graph *g;
        module *m = new_main(&g);
        int64_t xl[4] = {1, 2, 5, 5}, wl[4] = {3, 2, 3, 3};
        shape xs = shape_standard(GRAFT_FLOAT, 4, xl), ws = shape_standard(GRAFT_FLOAT, 4, wl);
        ins *x = module_add_param(m, "x", &xs);
        ins *w = module_add_param(m, "w", &ws);
        int64_t pads[8] = {batch_pad, 0, 1, 2, 0, 0, 1, 0};
        attr pa = {"pads", attr_ints(pads, 8)};
        ins *pad = module_add_op(m, "pad", &pa, 1, &x, 1, NULL);
        ins *args[2] = {pad, w};
        ins *conv = module_add_op(m, "convolution", NULL, 0, args, 2, NULL);
        CHECK(conv != NULL);
        module_add_return(m, &conv, 1);
        driver_result res;
        CHECK(run_set(g, l.set, &res));
        ins *ret = module_return(m);
        ins *c = ret->args[0];
        if (batch_pad) {
            CHECK_INT(res.rewrites, 0);
            CHECK(c->args[0] == pad);
        } else {
            CHECK_INT(res.rewrites, 1);
            CHECK(c->args[0] == x);
            const attr_value *padding = ins_attr(c, "padding");
            CHECK(padding && padding->n == 4);
            if (padding && padding->n == 4) {
                CHECK_INT(padding->u.ints[0], 1);
                CHECK_INT(padding->u.ints[1], 2);
                CHECK_INT(padding->u.ints[2], 1);
                CHECK_INT(padding->u.ints[3], 0);
            }
        }
        CHECK(graph_verify(g, NULL));
        driver_result_free(&res);
        graph_free(g);
    }
    dsl_unload_rules(&l);
}

/* literal_second_in_add swaps operands of equal shapes in place. */
static void test_in_place_commit(void)
{
    const rule_set *fold = builtin_rule_set("fold");
    if (!fold)
        return;
    graph *g;
    module *m = new_main(&g);
    int64_t lens[2] = {2, 2};
    shape sh = shape_standard(GRAFT_FLOAT, 2, lens);
    ins *x = module_add_param(m, "x", &sh);
    float data[4] = {1, 2, 3, 4};
    ins *k = module_add_literal(m, &sh, data);
    ins *args[2] = {k, x};
    ins *add = module_add_op(m, "add", NULL, 0, args, 2, NULL);
    module_add_return(m, &add, 1);
    driver_result res;
    CHECK(run_set(g, fold, &res));
    CHECK_INT(res.rewrites, 1);
    ins *ret = module_return(m);
    CHECK(ret->args[0] == add); /* same instruction, changed in place */
    CHECK(add->args[0] == x && add->args[1] == k);
    driver_result_free(&res);
    graph_free(g);
}

static void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

/* dsl_check_all: every rule's first error, in order, err the first; the
 * suggestions by edit distance; dsl_check still stops at the first. */
static void test_all_errors_and_suggestions(void)
{
    const char *text = "rule a\n    sigmoidd(x) => x\n"
                       "rule b\n    relu(x) => x\n"
                       "rule c\n    t = transpose[perm={1, 0}](x) => x\n";
    static dsl_diags d;
    memset(&d, 0, sizeof d);
    graft_error err = {0};
    dsl_file *f = dsl_check_all("t.rules", text, strlen(text), &d, &err);
    CHECK(f == NULL);
    CHECK_INT(d.n, 2);
    CHECK_INT(d.total, 2);
    CHECK_STR(message_of(&d.items[0]), "unknown op 'sigmoidd' (did you mean 'sigmoid'?)");
    CHECK_INT(d.items[0].line, 2);
    CHECK_STR(message_of(&d.items[1]),
              "unknown attribute 'perm' for op 'transpose' (its attributes: permutation)");
    CHECK_INT(d.items[1].line, 6);
    CHECK_STR(message_of(&err), message_of(&d.items[0]));
    graft_error first = {0};
    CHECK(check_text(text, &first) == NULL);
    CHECK_STR(message_of(&first), "unknown op 'sigmoidd' (did you mean 'sigmoid'?)");
    dsl_file_free(f);
}

int main(void)
{
    RUN(test_parse_shapes_the_tree);
    RUN(test_fuzz_corpus_replay);
    RUN(test_sema_types);
    RUN(test_termination_measure);
    RUN(test_op_ranks);
    RUN(test_undo_pairs);
    RUN(test_tree_shares_and_switches);
    RUN(test_overlap_and_duplicates);
    RUN(test_builtin_fold_runs);
    RUN(test_in_place_commit);
    RUN(test_all_errors_and_suggestions);

    snprintf(cache_dir, sizeof cache_dir, "/tmp/graft_test_dsl_XXXXXX");
    if (!mkdtemp(cache_dir)) {
        printf("FAIL setup: mkdtemp\n");
        return 1;
    }
    snprintf(rules_path, sizeof rules_path, "%s/mine.rules", cache_dir);
    write_text(rules_path, user_rules);
    RUN(test_load_user_rules);
    RUN(test_load_shipped_fold);
    RUN(test_load_reports_static_errors);
    RUN(test_load_without_compiler);
    RUN(test_failing_helper_aborts);
    remove_tree(cache_dir);
    return tests_finish();
}
