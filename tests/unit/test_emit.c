/* test_emit.c: the shape of generated rule code and its contract.
 *
 * Op codes (op_def.code) are dense and op_by_code inverts them; the root
 * dispatch is a switch on the op code; a class root is one class test, not a
 * case per op of the class; leaves that differ only in constants are one
 * function; attribute slots, comparison kinds, fields and helpers appear
 * as names, never as bare numbers; a compiled set refuses a graft whose
 * numbering differs; and loading one rule file from several threads at once
 * gives every thread a working set.
 */
#include "check.h"

#include "api.h"
#include "compile.h"
#include "driver.h"
#include "load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *emit_text(const char *text, dsl_trees **trees_out, dsl_file **file_out)
{
    graft_error err = {0};
    dsl_file *f = dsl_check("t.rules", text, strlen(text), &err);
    if (!f) {
        printf("  %s\n", err.message);
        return NULL;
    }
    dsl_trees *t = dsl_build_trees(f, &err);
    char *c = NULL;
    if (t) {
        dsl_emit_options opt = {"t", "entry_t", false};
        c = dsl_emit(f, t, &opt, &err);
    }
    if (!c)
        printf("  %s\n", err.message);
    if (trees_out)
        *trees_out = t;
    if (file_out)
        *file_out = f;
    else
        dsl_file_free(f);
    return c;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static int count_class(unsigned bits)
{
    int nops, n = 0;
    const op_def *const *ops = op_all(&nops);
    for (int k = 0; k < nops; k++)
        n += (ops[k]->classes & bits) != 0 && !(ops[k]->classes & (OPC_BUILTIN | OPC_OPAQUE));
    return n;
}

static void test_op_codes_are_dense(void)
{
    int nops;
    const op_def *const *ops = op_all(&nops);
    CHECK(nops > 0);
    char seen[1024] = {0};
    CHECK(nops < 1024);
    for (int k = 0; k < nops && nops < 1024; k++) {
        int code = ops[k]->code;
        CHECK(code >= 1 && code <= nops);
        if (code >= 1 && code <= nops) {
            CHECK(!seen[code]);
            seen[code] = 1;
        }
        CHECK(op_by_code(code) == ops[k]);
    }
    /* the ops of a family get neighbouring codes */
    CHECK_INT(op_find("sub")->code, op_find("add")->code + 1);
    CHECK(op_by_code(0) == NULL);
    CHECK(op_by_code(nops + 1) == NULL);
    CHECK_INT(op_opaque()->code, 0);
}

/* A <unary> root is one class test in apply: no case label per unary op. */
static void test_class_root_is_one_test(void)
{
    dsl_trees *t;
    dsl_file *f;
    char *c = emit_text("rule u_of_pad nonterminating\n"
                        "    u = <unary>(p = pad[mode=constant, value=0](x):once)\n"
                        "    => p(u(x))\n",
                        &t, &f);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_INT(t->nroots, 1);
    CHECK(t->roots[0].by_class);
    CHECK_INT(t->roots[0].nops, count_class(OPC_UNARY));
    CHECK_INT(count(c, "(r->op->classes & OPC_UNARY) != 0"), 1);
    CHECK_INT(count(c, "case OP_"), 0);
    CHECK_INT(count(c, "OP_abs"), 0);
    CHECK_INT(count(c, "fire_u_of_pad("), 2); /* the definition and one call */
    CHECK_CONTAINS(c, "/* rule u_of_pad at t.rules:1 */");
    free(c);
    dsl_file_free(f);
}

/* An op with a rule of its own gets a case; the rest of its class still
 * shares one test, and the op's own tree keeps the class rule in order. */
static void test_op_rule_beside_class_rule(void)
{
    dsl_trees *t;
    dsl_file *f;
    char *c = emit_text("rule relu_relu\n"
                        "    relu(r = relu(x))\n"
                        "    => r\n"
                        "rule u_of_pad nonterminating\n"
                        "    u = <unary>(p = pad[mode=constant, value=0](x):once)\n"
                        "    => p(u(x))\n",
                        &t, &f);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_INT(t->nroots, 2);
    CHECK(!t->roots[0].by_class);
    CHECK(t->roots[0].ops[0] == op_find("relu"));
    CHECK_INT(t->roots[0].nvariants, 2);
    CHECK(t->roots[1].by_class);
    CHECK_INT(t->roots[1].nops, count_class(OPC_UNARY) - 1);
    CHECK_INT(count(c, "switch (r->op->code) {"), 1);
    CHECK_INT(count(c, "    case OP_relu:\n        return match_relu(A, rw, r);"), 1);
    CHECK_INT(count(c, "(r->op->classes & OPC_UNARY) != 0"), 1);
    /* relu's tree and the class tree both reach the shared leaf */
    CHECK_INT(count(c, "if (fire_u_of_pad("), 2);
    free(c);
    dsl_file_free(f);
}

/* Classes that nest (<unary> inside <pointwise>) are told apart by testing
 * the longer rule list first, with one test each. */
static void test_nested_classes(void)
{
    dsl_trees *t;
    char *c = emit_text("rule fold_pw\n"
                        "    r = <pointwise>(@literal, xs...)  if r.elements <= 16\n"
                        "    => fold(r)\n"
                        "rule u_of_pad nonterminating\n"
                        "    u = <unary>(p = pad[mode=constant, value=0](x):once)\n"
                        "    => p(u(x))\n",
                        &t, NULL);
    CHECK(c != NULL);
    if (!c)
        return;
    const char *unary = strstr(c, "if ((r->op->classes & OPC_UNARY) != 0)");
    const char *pointwise = strstr(c, "if ((r->op->classes & OPC_POINTWISE) != 0)");
    CHECK(unary && pointwise && unary < pointwise);
    CHECK_INT(count(c, "case OP_"), 0);
    free(c);
}

/* Rules whose leaves differ only in constants share one function; the
 * constants that differ are its parameters. */
static void test_identical_leaves_shared(void)
{
    char *c = emit_text("rule add_zero\n"
                        "    a = add(x, k = @literal)  if all_equal(k, 0.0) && a.shape == x.shape\n"
                        "    => x\n"
                        "rule mul_one\n"
                        "    m = mul(x, k = @literal)  if all_equal(k, 1.0) && m.shape == x.shape\n"
                        "    => x\n"
                        "rule sub_zero\n"
                        "    s = sub(x, k = @literal)  if all_equal(k, 0.0) && s.shape == x.shape\n"
                        "    => x\n",
                        NULL, NULL);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_INT(count(c, "static bool fire_"), 1);
    CHECK_CONTAINS(c, "fire_add_zero(const graft_rule_api *A, rewriter *rw, ins *r, int rule, double f)");
    CHECK_CONTAINS(c, "if (fire_add_zero(A, rw, r, RULE_mul_one, 1)) /* rule mul_one at t.rules:4 */");
    CHECK_CONTAINS(c, "if (fire_add_zero(A, rw, r, RULE_sub_zero, 0)) /* rule sub_zero at t.rules:7 */");
    CHECK_CONTAINS(c, "/* if t.rules:2, 5, 8 */");
    free(c);
}

/* Whether every occurrence of `call` in the leaves and trees of c has,
 * after `skip` commas, an argument starting with `prefix`. */
static bool arguments_named(const char *c, const char *call, int skip, const char *prefix)
{
    const char *code = strstr(c, "__attribute__((noinline))");
    if (!code)
        return false;
    for (const char *p = code; (p = strstr(p, call)) != NULL; p += strlen(call)) {
        const char *a = p + strlen(call);
        for (int k = 0; k < skip && a; k++) {
            a = strchr(a, ',');
            if (a)
                a++;
        }
        if (!a)
            return false;
        while (*a == ' ')
            a++;
        if (strncmp(a, prefix, strlen(prefix)) != 0)
            return false;
    }
    return true;
}

/* Attribute slots, comparisons, fields, helpers, ops and types are names. */
static void test_no_bare_numbers(void)
{
    char *c = emit_text("rule tt\n"
                        "    t = transpose[permutation=o](transpose[permutation=i](x))\n"
                        "    if t.rank <= 4 && x.type == float_type\n"
                        "    => transpose[permutation = compose(i, o)](x)\n"
                        "rule pads\n"
                        "    c = convolution[padding=p, padding_mode=default](pad[pads=q, mode=constant, value=0](x):once, w)\n"
                        "    if spatial_only(q)\n"
                        "    => c[padding = add_padding(p, q)](x, w)\n"
                        "rule same\n"
                        "    concat[axis=a](concat[axis=a](ys...):once, xs...)\n"
                        "    => concat[axis=a](ys..., xs...)\n",
                        NULL, NULL);
    CHECK(c != NULL);
    if (!c)
        return;
    for (const char *p = c; (p = strstr(p, "attrs[")) != NULL; p += 6)
        CHECK(strncmp(p + 6, "ATTR_", 5) == 0);
    CHECK(arguments_named(c, "A->attr_get(", 1, "ATTR_"));
    CHECK(arguments_named(c, "A->compare(", 1, "RULE_OP_"));
    CHECK(arguments_named(c, "A->field(", 1, "RULE_FIELD_"));
    CHECK(arguments_named(c, "rule_attr(", 1, "ATTR_"));
    CHECK(arguments_named(c, "rule_compare(A,", 1, "RULE_OP_"));
    CHECK(arguments_named(c, "rule_field(", 1, "RULE_FIELD_"));
    CHECK_CONTAINS(c, "if (same_attr(A, ");
    CHECK(arguments_named(c, "same_attr(A,", 1, "ATTR_"));
    CHECK(arguments_named(c, "same_attr(A,", 3, "ATTR_"));
    CHECK(arguments_named(c, "A->helpers[", 0, "HELPER_"));
    CHECK(arguments_named(c, "A->op_by_code(", 0, "OP_"));
    CHECK(arguments_named(c, "A->attempt(rw,", 0, "RULE_"));
    CHECK(arguments_named(c, "rule_type(", 0, "GRAFT_"));
    CHECK_CONTAINS(c, "ATTR_transpose_permutation = ");
    CHECK_CONTAINS(c, "rule_compare(A, t1, RULE_OP_LE, ");
    CHECK_CONTAINS(c, ".v.u.i == 0 /* constant */");
    CHECK_CONTAINS(c, "->op->code == OP_transpose");
    CHECK_INT(count(c, "AX["), 0);
    CHECK_INT(count(c, "OPS["), 0);
    CHECK_INT(count(c, "op_case"), 0);
    free(c);
}

/* ---- compiled rule sets ---- */

static char cache_dir[256];

static bool write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    fputs(text, fp);
    return fclose(fp) == 0;
}

static const char *mine =
    "rule identity_transpose\n"
    "    t = transpose(x)  if is_identity(t.permutation)\n"
    "    => x\n"
    "rule relu_relu\n"
    "    relu(r = relu(x))\n"
    "    => r\n";

/* x -> transpose{0, 1} -> relu -> relu -> return: both rules fire. */
static void check_set_runs(const rule_set *set)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    int64_t lens[2] = {2, 3}, perm[2] = {0, 1};
    shape sh = shape_standard(GRAFT_FLOAT, 2, lens);
    ins *x = module_add_param(m, "x", &sh);
    attr a = {"permutation", attr_ints(perm, 2)};
    ins *t = module_add_op(m, "transpose", &a, 1, &x, 1, NULL);
    ins *r1 = module_add_op(m, "relu", NULL, 0, &t, 1, NULL);
    ins *r2 = module_add_op(m, "relu", NULL, 0, &r1, 1, NULL);
    module_add_return(m, &r2, 1);
    driver_options o;
    driver_options_init(&o);
    driver_result res;
    graft_error err = {0};
    CHECK(driver_run(g, &set, 1, &o, &res, &err));
    CHECK_INT(res.rewrites, 2);
    CHECK(module_return(m)->args[0]->args[0] == x);
    driver_result_free(&res);
    graph_free(g);
}

static const op_def *wrong_find(const char *name)
{
    /* transpose's code is someone else's in this "graft" */
    return strcmp(name, "transpose") == 0 ? op_find("relu") : op_find(name);
}

static int wrong_attr_index(const op_def *op, const char *name)
{
    return op_attr_index(op, name) + 1;
}

/* The entry function hands the set out only to a graft numbered as the one
 * that compiled it. */
static void test_entry_checks_numbering(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/numbering.rules", cache_dir);
    CHECK(write_text(path, mine));
    graft_error err = {0};
    loaded_rules l;
    bool ok = dsl_load_rules(path, cache_dir, &l, &err);
    CHECK(ok);
    if (!ok) {
        printf("  %s\n", err.message);
        return;
    }
    check_set_runs(l.set);
    graft_rules_entry_fn entry;
    void *sym = dlsym(l.handle, GRAFT_RULES_ENTRY);
    memcpy(&entry, &sym, sizeof entry);
    CHECK(entry != NULL);
    if (entry) {
        /* Tables other than graft's own (copies, each at its own address:
         * the entry function trusts a table it has checked before). */
        graft_rule_api ops = *graft_rule_api_get(), slots = ops, version = ops;
        ops.op_find = wrong_find;
        CHECK(entry(&ops) == NULL);
        slots.op_attr_index = wrong_attr_index;
        CHECK(entry(&slots) == NULL);
        version.version++;
        CHECK(entry(&version) == NULL);
        CHECK(entry(graft_rule_api_get()) == l.set);
        check_set_runs(l.set);
    }
    dsl_unload_rules(&l);
}

typedef struct load_job {
    char path[400];
    bool ok;
    const rule_set *builtin;
    loaded_rules l;
    char message[1024];
} load_job;

static void *load_one(void *arg)
{
    load_job *j = arg;
    graft_error err = {0};
    j->builtin = builtin_rule_set("fold");
    j->ok = dsl_load_rules(j->path, cache_dir, &j->l, &err);
    if (!j->ok)
        snprintf(j->message, sizeof j->message, "%s", err.message);
    return NULL;
}

/* Four threads load the same new rule file (one compile race) and ask for a
 * built-in set at once: every one gets a working set. */
static void test_concurrent_loads(void)
{
    enum { N = 4 };
    load_job jobs[N];
    pthread_t th[N];
    memset(jobs, 0, sizeof jobs);
    for (int k = 0; k < N; k++) {
        snprintf(jobs[k].path, sizeof jobs[k].path, "%s/together.rules", cache_dir);
        if (k == 0)
            CHECK(write_text(jobs[k].path, mine));
    }
    for (int k = 0; k < N; k++)
        CHECK(pthread_create(&th[k], NULL, load_one, &jobs[k]) == 0);
    for (int k = 0; k < N; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < N; k++) {
        CHECK(jobs[k].ok);
        if (!jobs[k].ok) {
            printf("  %s\n", jobs[k].message);
            continue;
        }
        CHECK(jobs[k].builtin == builtin_rule_set("fold"));
        check_set_runs(jobs[k].l.set);
    }
    for (int k = 0; k < N; k++)
        if (jobs[k].ok)
            dsl_unload_rules(&jobs[k].l);
}

int main(void)
{
    RUN(test_op_codes_are_dense);
    RUN(test_class_root_is_one_test);
    RUN(test_op_rule_beside_class_rule);
    RUN(test_nested_classes);
    RUN(test_identical_leaves_shared);
    RUN(test_no_bare_numbers);

    snprintf(cache_dir, sizeof cache_dir, "/tmp/graft_test_emit_XXXXXX");
    if (!mkdtemp(cache_dir)) {
        printf("FAIL setup: mkdtemp\n");
        return 1;
    }
    RUN(test_entry_checks_numbering);
    RUN(test_concurrent_loads);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", cache_dir);
    return tests_finish();
}
