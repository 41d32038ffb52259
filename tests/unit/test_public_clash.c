/* test_public_clash.c: a host program that has its own functions named like
 * graft's internals links with the shipped libgraft.a (built with graft.h
 * alone on the include path) and keeps them, while graft keeps its own. The
 * Makefile also links it with libgraft.so (test_public_clash_shared).
 *
 * libgraft.a is one object whose only global symbols are graft.h's entry
 * points, so the link below would fail with "multiple definition of
 * error_set" if an internal name leaked. A user's rule file (-r) still
 * loads: compiled rules reach graft through the graft_rule_api table, never
 * by symbol.
 */
#include "graft.h"

#include "check.h"

#include <stdlib.h>
#include <unistd.h>

/* Names of functions inside graft (ir/error.h, ir/ir.h, dsl/sema.c, ...),
 * defined with other meanings, as any host program might. */
int error_set(int x);
int module_add(int x);
int refines(int x);
int op_find(int x);
int dump_read(int x);
int error_set(int x) { return x + 1; }
int module_add(int x) { return x + 2; }
int refines(int x) { return x + 3; }
int op_find(int x) { return x + 4; }
int dump_read(int x) { return x + 5; }

static const char *chain =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "@1 = transpose[permutation={1, 0}](x)\n"
    "@2 = transpose[permutation={1, 0}](@1)\n"
    "@3 = neg(@2)\n"
    "@4 = neg(@3)\n"
    "@5 = @return(@4)\n";

static void test_host_keeps_its_functions(void)
{
    CHECK_INT(error_set(1), 2);
    CHECK_INT(module_add(1), 3);
    CHECK_INT(refines(1), 4);
    CHECK_INT(op_find(1), 5);
    CHECK_INT(dump_read(1), 6);
}

static void test_graft_keeps_its_functions(void)
{
    graft_error err;
    graft_graph *g = graft_graph_read_dump(chain, strlen(chain), "chain.txt", &err);
    CHECK(g != NULL);
    if (!g)
        return;
    graft_opt_stats st;
    CHECK(graft_graph_optimize(g, "default", &st, &err));
    /* The transposes cancel, then fusion (phase 2) makes neg(neg(x)) one
     * region: the main graph keeps x, the fused op and @return (the
     * region's body is counted apart, as instructions in region bodies). */
    CHECK_INT(st.instructions_after, 3);
    CHECK_INT(st.kernels, 1);
    graft_graph_free(g);
    /* graft's own error_set fills the message */
    CHECK(graft_graph_read_dump("@1 = nope(", 10, "bad.txt", &err) == NULL);
    CHECK(err.message[0] != 0);
    CHECK_INT(err.line, 1);
}

static void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
}

static void test_user_rules_load(void)
{
    char dir[] = "/tmp/graft_test_public_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    char rules[300];
    snprintf(rules, sizeof rules, "%s/negneg.rules", dir);
    FILE *fp = fopen(rules, "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs("rule double_negation\n    neg(neg(x))\n    => x\n", fp);
    fclose(fp);
    setenv("XDG_CACHE_HOME", dir, 1);
    graft_error err;
    graft_graph *g = graft_graph_read_dump(chain, strlen(chain), "chain.txt", &err);
    CHECK(g != NULL);
    graft_opt_stats st;
    bool ok = g && graft_graph_optimize_with_rules(g, rules, &st, &err);
    if (!ok && g && strstr(err.message, "no C compiler")) {
        printf("# skipped: %s\n", err.message);
    } else {
        CHECK(ok);
        if (!ok)
            printf("# %s\n", err.message);
        else
            CHECK_INT(st.rewrites, 1);
    }
    graft_graph_free(g);
    remove_tree(dir);
}

int main(void)
{
    RUN(test_host_keeps_its_functions);
    RUN(test_graft_keeps_its_functions);
    RUN(test_user_rules_load);
    return tests_finish();
}
