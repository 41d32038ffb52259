/* test_const_fold.c: constant folding, from the kernel call to the rule form.
 *
 * exec_eval_op (ops/exec.c) runs one instruction's kernel outside the
 * executor: a pointwise op gets a fresh buffer, a view aliases its operand,
 * an op without a kernel is refused. The `=> fold(c)` replacement is checked
 * by the compiler (sema: RP_FOLD, a fallible rule; termination: one literal
 * instead of the op and its operands; emit: a call through graft_rule_api)
 * and run: the built-in fold set folds a constant chain to one literal of
 * the root's exact shape (a broadcast keeps its zero strides and stores one
 * value), refuses an operand that is not a literal and a value over the
 * rule's size bound, and a user rule file using fold(r), compiled to a
 * shared object as `graft opt -r` does, folds the same way.
 */
#include "check.h"

#include "api.h"
#include "compile.h"
#include "driver.h"
#include "exec.h"
#include "load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dsl_file *check_text(const char *text, graft_error *err)
{
    return dsl_check("t.rules", text, strlen(text), err);
}

static module *new_main(graph **g)
{
    *g = graph_new();
    return graph_add_module(*g, "main", NULL);
}

static shape float_shape(int rank, const int64_t *lens) { return shape_standard(GRAFT_FLOAT, rank, lens); }

static float literal_at(const ins *lit, int64_t i)
{
    float v;
    memcpy(&v, lit->data + shape_index_of_linear(&lit->sh, i) * 4, 4);
    return v;
}

/* ---- exec_eval_op ---- */

static void test_eval_pointwise_view_and_refusal(void)
{
    graph *g;
    module *m = new_main(&g);
    int64_t lens[2] = {2, 3};
    shape sh = float_shape(2, lens);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    ins *ka = module_add_literal(m, &sh, a);
    ins *kb = module_add_literal(m, &sh, b);
    ins *args[2] = {ka, kb};
    ins *sub = module_add_op(m, "sub", NULL, 0, args, 2, NULL);
    int64_t perm[2] = {1, 0};
    attr pa = {"permutation", attr_ints(perm, 2)};
    ins *tr = module_add_op(m, "transpose", &pa, 1, &ka, 1, NULL);
    CHECK(sub && tr);
    if (!sub || !tr) {
        graph_free(g);
        return;
    }
    tensor in[2] = {{ka->sh, ka->data}, {kb->sh, kb->data}};
    tensor out;
    graft_error err = {0};
    CHECK(exec_eval_op(sub, in, &out, &err));
    CHECK(shape_equal(&out.sh, &sub->sh));
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(tensor_get_f64(&out, i), a[i] - b[i], 0);
    free(out.data);

    /* A view aliases its operand: no buffer of its own. */
    CHECK(exec_eval_op(tr, in, &out, &err));
    CHECK(out.data == ka->data);
    CHECK_INT(out.sh.strides[0], 1);
    CHECK_NEAR(tensor_get_f64(&out, 1), 4, 0); /* transposed (0, 1) is a[1][0] */

    /* @literal has no kernel. */
    CHECK(!exec_eval_op(ka, in, &out, &err));
    CHECK_CONTAINS(err.message, "cannot run on the reference executor");
    graph_free(g);
}

/* ---- the fold(c) form in the compiler ---- */

static void test_fold_form_compiles(void)
{
    graft_error err = {0};
    dsl_file *f = check_text("rule fold_add\n"
                             "    r = add(@literal, @literal)  if r.elements <= 16\n"
                             "    => fold(r)\n"
                             "rule fold_broadcast_operand\n"
                             "    a = add(x, m = multibroadcast(@literal))\n"
                             "    => add(x, fold(m))\n",
                             &err);
    CHECK(f != NULL);
    if (!f) {
        printf("  %s\n", err.message);
        return;
    }
    const dsl_rule *r = f->rules[0];
    CHECK_INT(r->repl->kind, RP_FOLD);
    CHECK_STR(r->captures[r->repl->capture].name, "r");
    CHECK(r->fallible);
    int lhs[DSL_MEASURE_COUNT], rhs[DSL_MEASURE_COUNT];
    dsl_rule_measure(r, lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_INSTRUCTIONS], 3);
    CHECK_INT(rhs[DSL_MEASURE_INSTRUCTIONS], 1);
    /* Nested: add(x, fold(m)) loses a view. */
    dsl_rule_measure(f->rules[1], lhs, rhs);
    CHECK_INT(lhs[DSL_MEASURE_VIEWS], 1);
    CHECK_INT(rhs[DSL_MEASURE_VIEWS], 0);
    CHECK_INT(f->rules[1]->repl->args[1]->kind, RP_FOLD);
    dsl_file_free(f);

    const char *text = "rule fold_add\n    r = add(@literal, @literal)\n    => fold(r)\n";
    char *c = dsl_compile("t.rules", text, strlen(text), NULL, &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_CONTAINS(c, "A->fold(rw, r, r); /* fold(r) */");
        CHECK_CONTAINS(c, "A->abort(rw)");
    }
    free(c);

    /* fold is fallible, so it does not shadow a later rule. */
    f = check_text("rule first\n    r = relu(@literal)\n    => fold(r)\n"
                   "rule second\n    relu(k = @literal)\n    => k\n",
                   &err);
    CHECK(f != NULL);
    dsl_file_free(f);
    /* A capture named fold cannot be rebuilt as fold(...). */
    f = check_text("rule r\n    fold = relu(x)\n    => fold(x)\n", &err);
    CHECK(f == NULL);
    CHECK_CONTAINS(err.message, "rename the capture 'fold'");
}

/* ---- folding graphs ---- */

static bool run_set(graph *g, const rule_set *set, driver_result *res)
{
    driver_options o;
    driver_options_init(&o);
    graft_error err = {0};
    return driver_run(g, &set, 1, &o, res, &err);
}

/* x + sqrt(k1 * multibroadcast(half) + k2), k1 and k2 {2, 3} literals:
 * the constant part folds to one literal. */
static graph *chain_graph(ins **out_param)
{
    graph *g;
    module *m = new_main(&g);
    int64_t lens[2] = {2, 3}, one[1] = {1};
    shape sh = float_shape(2, lens);
    shape scalar = float_shape(1, one);
    scalar.strides[0] = 0;
    float k1[6] = {1, 2, 3, 4, 5, 6}, k2[6] = {3, 4, 5, 6, 7, 8}, half = 0.5f;
    ins *x = module_add_param(m, "x", &sh);
    ins *a = module_add_literal(m, &sh, k1);
    ins *h = module_add_literal(m, &scalar, &half);
    attr ol = {"out_lens", attr_ints(lens, 2)};
    ins *mb = module_add_op(m, "multibroadcast", &ol, 1, &h, 1, NULL);
    ins *mul_args[2] = {a, mb};
    ins *mul = module_add_op(m, "mul", NULL, 0, mul_args, 2, NULL);
    ins *b = module_add_literal(m, &sh, k2);
    ins *add_args[2] = {mul, b};
    ins *add = module_add_op(m, "add", NULL, 0, add_args, 2, NULL);
    ins *root = module_add_op(m, "sqrt", NULL, 0, &add, 1, NULL);
    ins *last_args[2] = {x, root};
    ins *last = module_add_op(m, "add", NULL, 0, last_args, 2, NULL);
    module_add_return(m, &last, 1);
    *out_param = x;
    return g;
}

static void check_chain_folded(graph *g, const ins *x)
{
    module *m = graph_main(g);
    CHECK_INT(m->count, 4); /* x, the literal, add, @return */
    ins *ret = module_return(m);
    ins *add = ret ? ret->args[0] : NULL;
    CHECK(add && strcmp(add->op->name, "add") == 0 && add->args[0] == x);
    if (!add || add->nargs != 2)
        return;
    const ins *lit = add->args[1];
    CHECK_STR(lit->op->name, "@literal");
    CHECK(shape_standard_p(&lit->sh));
    float k1[6] = {1, 2, 3, 4, 5, 6}, k2[6] = {3, 4, 5, 6, 7, 8};
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(literal_at(lit, i), sqrtf(k1[i] * 0.5f + k2[i]), 1e-6);
    CHECK(graph_verify(g, NULL));
}

static void test_builtin_fold_folds_a_chain(void)
{
    const rule_set *fold = builtin_rule_set("fold");
    CHECK(fold != NULL);
    if (!fold)
        return;
    ins *x;
    graph *g = chain_graph(&x);
    driver_result res;
    CHECK(run_set(g, fold, &res));
    CHECK(res.converged);
    check_chain_folded(g, x);
    driver_result_free(&res);
    graph_free(g);
}

/* A folded broadcast keeps its zero strides: one stored value. */
static void test_folded_broadcast_keeps_its_layout(void)
{
    graph *g;
    module *m = new_main(&g);
    int64_t lens[2] = {4, 5}, one[1] = {1};
    shape sh = float_shape(2, lens);
    shape scalar = float_shape(1, one);
    scalar.strides[0] = 0;
    float seven = 7;
    ins *x = module_add_param(m, "x", &sh);
    ins *k = module_add_literal(m, &scalar, &seven);
    attr ol = {"out_lens", attr_ints(lens, 2)};
    ins *mb = module_add_op(m, "multibroadcast", &ol, 1, &k, 1, NULL);
    ins *args[2] = {x, mb};
    ins *mul = module_add_op(m, "mul", NULL, 0, args, 2, NULL);
    module_add_return(m, &mul, 1);
    driver_result res;
    CHECK(run_set(g, builtin_rule_set("fold"), &res));
    CHECK_INT(m->count, 4);
    const ins *lit = mul->args[1];
    CHECK_STR(lit->op->name, "@literal");
    CHECK_INT(lit->sh.strides[0], 0);
    CHECK_INT(lit->sh.strides[1], 0);
    CHECK_INT((int64_t)shape_bytes(&lit->sh), 4);
    CHECK_NEAR(literal_at(lit, 19), 7, 0);
    driver_result_free(&res);
    graph_free(g);
}

/* Not folded: an operand that is not a literal (fold refuses, the match is
 * undone), and a value over the rule's 4096 elements. */
static void test_fold_refusals_leave_the_graph(void)
{
    graph *g;
    module *m = new_main(&g);
    int64_t lens[2] = {64, 80};
    shape sh = float_shape(2, lens);
    float *ones = malloc(sizeof(float) * 64 * 80);
    for (int i = 0; ones && i < 64 * 80; i++)
        ones[i] = (float)(i % 7);
    ins *x = module_add_param(m, "x", &sh);
    ins *k = module_add_literal(m, &sh, ones);
    free(ones);
    ins *sub_args[2] = {k, x};
    ins *sub = module_add_op(m, "sub", NULL, 0, sub_args, 2, NULL);
    ins *neg = module_add_op(m, "neg", NULL, 0, &k, 1, NULL);
    ins *args[2] = {sub, neg};
    ins *add = module_add_op(m, "add", NULL, 0, args, 2, NULL);
    module_add_return(m, &add, 1);
    driver_result res;
    CHECK(run_set(g, builtin_rule_set("fold"), &res));
    CHECK_INT(res.rewrites, 0);
    CHECK_INT(m->count, 6);
    CHECK(add->args[0] == sub && add->args[1] == neg);
    CHECK(graph_verify(g, NULL));
    driver_result_free(&res);
    graph_free(g);
}

/* The same fold through a user rule file: compiled to C, built into a
 * shared object and loaded, as `graft opt -r` does. */
static void test_user_rules_fold(void)
{
    char dir[] = "/tmp/graft_test_const_fold_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/mine.rules", dir);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs("rule mine_view\n    r = <view>(@literal)  if r.elements <= 64\n    => fold(r)\n"
          "rule mine_pointwise\n    r = <pointwise>(@literal, xs...)  if r.elements <= 64\n"
          "    => fold(r)\n",
          fp);
    fclose(fp);
    graft_error err = {0};
    loaded_rules l;
    bool ok = dsl_load_rules(path, dir, &l, &err);
    CHECK(ok);
    if (ok) {
        ins *x;
        graph *g = chain_graph(&x);
        driver_result res;
        CHECK(run_set(g, l.set, &res));
        CHECK(res.converged);
        CHECK_INT(res.rewrites, 4);
        check_chain_folded(g, x);
        driver_result_free(&res);
        graph_free(g);
        dsl_unload_rules(&l);
    } else {
        printf("  %s\n", err.message);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

int main(void)
{
    RUN(test_eval_pointwise_view_and_refusal);
    RUN(test_fold_form_compiles);
    RUN(test_builtin_fold_folds_a_chain);
    RUN(test_folded_broadcast_keeps_its_layout);
    RUN(test_fold_refusals_leave_the_graph);
    RUN(test_user_rules_fold);
    return tests_finish();
}
