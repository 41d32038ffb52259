/* test_region_merge.c: the engine's region-growing merge (engine/region_merge.h)
 * below the rule language: a producer with another user becomes an extra
 * output, region parts are inlined in program order with their tuple
 * readers, and the legality check refuses the merge a naive fuser would make
 * in a graph where it creates a cycle (softmax: exp feeds the division
 * directly and through a reduction), unless the views between the parts
 * join them. Then the same graphs through -p fuse,
 * checked on the reference executor. A region that absorbs the
 * instructions reading it grows in place: its body's instructions move into
 * the new body (no copy), which comes out as the body a merge of all the
 * parts at once copies, and a merge that fails leaves the region as it was.
 */
#include "check.h"

#include "dump.h"
#include "exec.h"
#include "graph_test_helpers.h"
#include "kernel_counts.h"
#include "pipeline.h"
#include "region.h"
#include "region_merge.h"

#include <stdlib.h>

static ins *named(const graph *g, const char *name)
{
    for (ins *i = graph_main(g)->first; i; i = i->next)
        if (i->name && strcmp(i->name, name) == 0)
            return i;
    return NULL;
}

/* exp(x) is read by the division directly and through reduce_sum and a
 * broadcast: merging exp with the division would put the reduction on an
 * outside path from the region's output (exp) back to its input (the
 * broadcast). */
static const char softmax[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "@1 = exp(x)\n"
    "@2 = reduce_sum[axes={1}](@1)\n"
    "@3 = multibroadcast[out_lens={2, 3}](@2)\n"
    "@4 = div(@1,@3)\n"
    "@5 = @return(@4)\n";

static void test_merge_refuses_a_cycle(void)
{
    graph *g = parse(softmax);
    CHECK(g != NULL);
    if (!g)
        return;
    ins *parts[2] = {named(g, "@4"), named(g, "@1")};
    CHECK(parts[0] && parts[1]);
    region_merge_plan p;
    CHECK_INT(region_merge_plan_make(&p, parts, 2), MERGE_CYCLE);
    /* The check on its own: output exp, inputs x and the broadcast. */
    ins *inside[2] = {named(g, "@1"), named(g, "@4")};
    ins *inputs[2] = {named(g, "x"), named(g, "@3")};
    ins *outputs[1] = {named(g, "@1")};
    CHECK(region_merge_cycle(inside, 2, inputs, 2, outputs, 1));
    /* Without the broadcast among the inputs there is no path back. */
    CHECK(!region_merge_cycle(inside, 2, inputs, 1, outputs, 1));
    /* Merging the reduction too is fine: the path is inside then. */
    ins *three[4] = {named(g, "@1"), named(g, "@2"), named(g, "@3"), named(g, "@4")};
    CHECK_INT(region_merge_plan_make(&p, three, 4), MERGE_OK);
    CHECK_INT(p.ninputs, 1);
    CHECK_INT(p.noutputs, 1);
    region_merge_plan_free(&p);
    /* Naming only the ops: the broadcast between the reduction and the
     * division joins the parts (left outside it would read the region and
     * feed it, a cycle). */
    ins *ops[3] = {named(g, "@4"), named(g, "@2"), named(g, "@1")};
    CHECK_INT(region_merge_plan_make(&p, ops, 3), MERGE_OK);
    CHECK_INT(p.nparts, 4);
    CHECK(p.nparts == 4 && p.parts[2] == named(g, "@3"));
    CHECK_INT(p.ninputs, 1);
    CHECK_INT(p.noutputs, 1);
    region_merge_plan_free(&p);
    graph_free(g);
}

/* add feeds relu and mul; merging add and relu keeps add as an output. */
static const char shared[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
    "@2 = add(x,y)\n"
    "@3 = relu(@2)\n"
    "@4 = mul(@2,@3)\n"
    "@5 = @return(@4)\n";

static void test_merge_plans_outputs(void)
{
    graph *g = parse(shared);
    CHECK(g != NULL);
    if (!g)
        return;
    ins *parts[2] = {named(g, "@3"), named(g, "@2")};
    region_merge_plan p;
    CHECK_INT(region_merge_plan_make(&p, parts, 2), MERGE_OK);
    CHECK_INT(p.nparts, 2);
    CHECK(p.parts[0] == named(g, "@2")); /* program order */
    CHECK_INT(p.ninputs, 2);
    CHECK_INT(p.noutputs, 2); /* the mul reads both */
    CHECK(p.pos == named(g, "@3"));
    region_merge_plan_free(&p);
    /* A parameter cannot be a part; nothing read outside: no region. */
    ins *bad[1] = {named(g, "x")};
    CHECK_INT(region_merge_plan_make(&p, bad, 1), MERGE_BAD_PART);
    ins *all[3] = {named(g, "@2"), named(g, "@3"), named(g, "@4")};
    CHECK_INT(region_merge_plan_make(&p, all, 3), MERGE_OK);
    CHECK_INT(p.noutputs, 1);
    region_merge_plan_free(&p);
    graph_free(g);
}

/* Runs g (already optimised copy h) and the original on the same inputs. */
static bool same_values(const graph *a, const graph *b)
{
    graft_error err = {0};
    tensor_list in = {0, NULL}, oa = {0, NULL}, ob = {0, NULL};
    bool ok = exec_random_inputs(graph_main(a), 3, &in, &err) &&
              exec_run(graph_main(a), &in, &oa, &err) && exec_run(graph_main(b), &in, &ob, &err);
    ok = ok && oa.n == ob.n && oa.n > 0;
    for (int k = 0; ok && k < oa.n; k++)
        for (int64_t e = 0; ok && e < shape_elements(&oa.items[k].t.sh); e++)
            ok = tensor_get_f64(&oa.items[k].t, e) == tensor_get_f64(&ob.items[k].t, e);
    tensor_list_free(&in);
    tensor_list_free(&oa);
    tensor_list_free(&ob);
    return ok;
}

static int kernels_after_fuse(const char *text, bool *same)
{
    graph *g = parse(text), *ref = parse(text);
    const pipeline *p = pipeline_find("fuse");
    optimize_plan plan;
    graft_error err = {0};
    optimize_result res;
    int kernels = -1;
    *same = false;
    if (g && ref && p && pipeline_plan(p, &plan, &err) &&
        optimize_plan_run(g, &plan, NULL, &res, &err)) {
        kernel_counts kc;
        graph_kernel_counts(g, &kc);
        kernels = kc.kernels;
        *same = verifies(g) && same_values(ref, g);
        optimize_result_free(&res);
    }
    graph_free(g);
    graph_free(ref);
    return kernels;
}

static void test_fuse_pipeline(void)
{
    bool same;
    /* softmax: exp + div alone would be a cycle (the unit tests above);
     * the reduction rules take the reduction in between, and the whole
     * softmax is one kernel. */
    CHECK_INT(kernels_after_fuse(softmax, &same), 1);
    CHECK(same);
    CHECK_INT(kernels_after_fuse(shared, &same), 1);
    CHECK(same);
}

/* A binary op reading one region twice: the two parts are one
 * instruction, so there is nothing to merge (the rule would otherwise
 * rebuild the region and fire again on its own result, forever). */
static const char square_of_region[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "@1 = relu(x)\n"
    "@2 = mul(@1,@1)\n"
    "@3 = @return(@2)\n";

static void test_merge_of_one_part_is_refused(void)
{
    graph *g = parse(square_of_region);
    CHECK(g != NULL);
    if (!g)
        return;
    ins *parts[2] = {named(g, "@1"), named(g, "@1")};
    CHECK(parts[0] != NULL);
    region_merge_plan p;
    CHECK_INT(region_merge_plan_make(&p, parts, 2), MERGE_ONE_PART);
    graph_free(g);
}


/* Merges parts as a rule's absorb does (plan, outline into a new body,
 * take over the uses, erase what is dead); the region, or NULL. */
static ins *merge(graph *g, ins *const *parts, int nparts, int *next_index)
{
    region_merge_plan p;
    if (region_merge_plan_make(&p, parts, nparts) != MERGE_OK)
        return NULL;
    module *body = region_add_body_module(g, graph_main(g), next_index);
    ins **reps = malloc((size_t)p.noutputs * sizeof *reps);
    ins *region = body && reps ? region_merge_outline(&p, body, reps) : NULL;
    if (region) {
        region_take_over_uses(p.inside, p.ninside, p.outputs, reps, p.noutputs);
        for (int k = p.ninside - 1; k >= 0; k--)
            if (!(p.inside[k]->flags & INS_REMOVED) && ins_is_dead(p.inside[k]))
                module_remove(p.inside[k]);
    } else if (body) {
        graph_remove_module(g, body);
    }
    free(reps);
    region_merge_plan_free(&p);
    return region;
}

/* A chain whose last op reads a value no earlier op reads (z): growing the
 * region adds a parameter. */
static const char chain[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
    "z = @param:z -> float_type, {2, 3}, {3, 1}\n"
    "@3 = add(x,y)\n"
    "@4 = relu(@3)\n"
    "@5 = exp(@4)\n"
    "@6 = mul(@5,z)\n"
    "@7 = @return(@6)\n";

static void test_region_grows_in_place(void)
{
    graph *g = parse(chain), *once = parse(chain), *ref = parse(chain);
    CHECK(g && once && ref);
    if (!g || !once || !ref)
        return;
    int next = 0;
    ins *first[2] = {named(g, "@3"), named(g, "@4")};
    ins *r1 = merge(g, first, 2, &next); /* from plain instructions: copied */
    CHECK(r1 != NULL);
    if (!r1)
        return;
    module *b1 = r1->mods[0];
    ins *add = b1->first->next->next; /* after x0, x1 */
    CHECK(add && ins_is(add, "add"));
    ins *second[2] = {r1, named(g, "@5")};
    ins *r2 = merge(g, second, 2, &next);
    CHECK(r2 != NULL);
    if (!r2)
        return;
    /* moved, not copied: the old body is empty, the add is the same */
    CHECK(b1->first == NULL && b1->count == 0 && b1->ops == 0);
    CHECK(r2->mods[0]->first->next->next == add && add->mod == r2->mods[0]);
    CHECK_INT(r2->mods[0]->ops, 3);
    ins *third[2] = {r2, named(g, "@6")};
    ins *r3 = merge(g, third, 2, &next);
    CHECK(r3 != NULL);
    if (!r3)
        return;
    CHECK_INT(r3->nargs, 3);
    CHECK(r3->mods[0]->first->next->next != NULL &&
          strcmp(r3->mods[0]->first->next->next->param, "x2") == 0); /* z's, with the others */
    CHECK(add->mod == r3->mods[0]);
    graph_prune_modules(g);
    CHECK(verifies(g));
    CHECK(same_values(ref, g));
    /* The same four ops merged at once (every part copied), its body given
     * the name the last step's got: the same graph, byte for byte. */
    int at = next - 1;
    ins *all[4] = {named(once, "@3"), named(once, "@4"), named(once, "@5"), named(once, "@6")};
    CHECK(merge(once, all, 4, &at) != NULL);
    graph_prune_modules(once);
    graft_error err = {0};
    char *a = dump_write(g, NULL, &err), *b = dump_write(once, NULL, &err);
    CHECK(a && b && strcmp(a, b) == 0);
    if (a && b && strcmp(a, b) != 0)
        printf("grown in place:\n%s\nmerged at once:\n%s\n", a, b);
    free(a);
    free(b);
    graph_free(g);
    graph_free(once);
    graph_free(ref);
}

/* A merge that fails after the body has moved (the absorbed op's recorded
 * shape is not what its operands give, as a pending shape change leaves
 * it) puts the region's body back as it was. */
static void test_failed_growth_leaves_the_region(void)
{
    graph *g = parse(chain);
    CHECK(g != NULL);
    if (!g)
        return;
    int next = 0;
    ins *first[2] = {named(g, "@3"), named(g, "@4")};
    ins *r1 = merge(g, first, 2, &next);
    CHECK(r1 != NULL);
    if (!r1)
        return;
    module *b1 = r1->mods[0];
    ins *ret = module_return(b1), *relu = ret ? ret->args[0] : NULL;
    int count = b1->count, ops = b1->ops;
    ins *e = named(g, "@5");
    shape good = e->sh;
    e->sh.lens[1] = 4; /* recorded {2, 4}: the copy computes {2, 3} */
    ins *second[2] = {r1, e};
    CHECK(merge(g, second, 2, &next) == NULL);
    e->sh = good;
    CHECK_INT(b1->count, count);
    CHECK_INT(b1->ops, ops);
    CHECK(module_return(b1) != NULL && module_return(b1)->args[0] == relu);
    CHECK(!(r1->flags & INS_REMOVED) && r1->mods[0] == b1);
    CHECK(verifies(g));
    /* and it still grows */
    CHECK(merge(g, second, 2, &next) != NULL);
    graph_prune_modules(g);
    CHECK(verifies(g));
    graph_free(g);
}

int main(void)
{
    RUN(test_merge_refuses_a_cycle);
    RUN(test_merge_plans_outputs);
    RUN(test_fuse_pipeline);
    RUN(test_merge_of_one_part_is_refused);
    RUN(test_region_grows_in_place);
    RUN(test_failed_growth_leaves_the_region);
    return tests_finish();
}
