/* test_codegen_loop.c: the lowering of the `loop` instruction (lower.c's
 * lower_loop, emit_loop.c, the plan's cg_loop entry and codegen/loop_run.c).
 *
 * Each graph runs on the emu device at both wave sizes and must equal the
 * reference executor exactly, for chosen trip counts and conditions: zero
 * iterations (trip count 0, a false condition), fewer than max_iterations
 * (scan rows that stay zero), more (max_iterations stops it), a condition
 * computed by the body, loop-carried values swapped every iteration (the
 * staging kernel's reason to exist) and a loop inside a loop's body. The
 * plan entry is checked directly: the body's kernels lie between the init
 * kernel and the stage and commit kernels, every buffer the body touches
 * is live over the whole loop, and plan.json describes the loop. hiprtc
 * compiles every kernel (skipped without hiprtc).
 */
#include "check.h"

#include "codegen.h"
#include "exec.h"
#include "graph_test_helpers.h"
#include "emu_check.h"

#include <stdio.h>
#include <string.h>

/* y += x each iteration, scanning y * i (i the iteration number); state 2
 * (k) counts. trips and go are parameters. */
static const char scan_loop[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "trips = @param:trips -> int64_type, {1}, {1}\n"
    "go = @param:go -> bool_type, {1}, {1}\n"
    "y0 = @literal{0, 1, 2, 3, 4, 5} -> float_type, {2, 3}, {3, 1}\n"
    "k0 = @literal{7} -> int64_type, {1}, {1}\n"
    "xt = transpose[permutation={1, 0}](x) -> float_type, {3, 2}, {1, 3}\n"
    "r = loop[states=2,max_iterations=4](trips,go,y0,k0,xt), [body] -> "
    "[float_type, {2, 3}, {3, 1}, int64_type, {1}, {1}, float_type, {4, 3, 2}, {6, 2, 1}]\n"
    "y = get_tuple_elem[index=0](r) -> float_type, {2, 3}, {3, 1}\n"
    "k = get_tuple_elem[index=1](r) -> int64_type, {1}, {1}\n"
    "s = get_tuple_elem[index=2](r) -> float_type, {4, 3, 2}, {6, 2, 1}\n"
    "@11 = @return(y,k,s)\n"
    "\n"
    "module: \"body\"\n"
    "x0 = @param:x0 -> int64_type, {1}, {1}\n"
    "x1 = @param:x1 -> bool_type, {1}, {1}\n"
    "x2 = @param:x2 -> float_type, {2, 3}, {3, 1}\n"
    "x3 = @param:x3 -> int64_type, {1}, {1}\n"
    "x4 = @param:x4 -> float_type, {3, 2}, {1, 3}\n"
    "one = @literal{1} -> int64_type, {1}, {1}\n"
    "xb = transpose[permutation={1, 0}](x4) -> float_type, {2, 3}, {3, 1}\n"
    "y = add(x2,xb) -> float_type, {2, 3}, {3, 1}\n"
    "i = convert[target_type=2](x0) -> float_type, {1}, {1}\n"
    "ib = multibroadcast[out_lens={3, 2}](i) -> float_type, {3, 2}, {0, 0}\n"
    "yt = transpose[permutation={1, 0}](y) -> float_type, {3, 2}, {1, 3}\n"
    "s = mul(yt,ib) -> float_type, {3, 2}, {1, 3}\n"
    "n = add(x3,one) -> int64_type, {1}, {1}\n"
    "@13 = @return(x1,y,n,s)\n";

/* Two states swapped every iteration, a third doubled; the body's
 * condition is whether the sum of the third is below 50. */
static const char swap_loop[] =
    "module: \"main\"\n"
    "a = @param:a -> float_type, {4}, {1}\n"
    "b = @param:b -> float_type, {4}, {1}\n"
    "trips = @param:trips -> int64_type, {1}, {1}\n"
    "go = @literal{1} -> bool_type, {1}, {1}\n"
    "c0 = @literal{1, 1, 1, 1} -> float_type, {4}, {1}\n"
    "limit = @literal{50} -> float_type, {1}, {1}\n"
    "r = loop[states=3,max_iterations=-1](trips,go,a,b,c0,limit), [body] -> "
    "[float_type, {4}, {1}, float_type, {4}, {1}, float_type, {4}, {1}]\n"
    "y = get_tuple_elem[index=0](r) -> float_type, {4}, {1}\n"
    "z = get_tuple_elem[index=1](r) -> float_type, {4}, {1}\n"
    "c = get_tuple_elem[index=2](r) -> float_type, {4}, {1}\n"
    "@10 = @return(y,z,c)\n"
    "\n"
    "module: \"body\"\n"
    "x2 = @param:x2 -> float_type, {4}, {1}\n"
    "x3 = @param:x3 -> float_type, {4}, {1}\n"
    "x4 = @param:x4 -> float_type, {4}, {1}\n"
    "x5 = @param:x5 -> float_type, {1}, {1}\n"
    "c = add(x4,x4) -> float_type, {4}, {1}\n"
    "s = reduce_sum[axes={0}](c) -> float_type, {1}, {1}\n"
    "go = less(s,x5) -> float_type, {1}, {1}\n"
    "@7 = @return(go,x3,x2,c)\n";

/* A loop in a loop's body: the inner one adds x three times, the outer one
 * runs trips times and scans each result. */
static const char nested_loop[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {5}, {1}\n"
    "trips = @param:trips -> int64_type, {1}, {1}\n"
    "go = @literal{1} -> bool_type, {1}, {1}\n"
    "y0 = @literal{0, 0, 0, 0, 0} -> float_type, {5}, {1}\n"
    "r = loop[states=1,max_iterations=3](trips,go,y0,x), [outer] -> "
    "[float_type, {5}, {1}, float_type, {3, 5}, {5, 1}]\n"
    "y = get_tuple_elem[index=0](r) -> float_type, {5}, {1}\n"
    "s = get_tuple_elem[index=1](r) -> float_type, {3, 5}, {5, 1}\n"
    "@7 = @return(y,s)\n"
    "\n"
    "module: \"outer\"\n"
    "x1 = @param:x1 -> bool_type, {1}, {1}\n"
    "x2 = @param:x2 -> float_type, {5}, {1}\n"
    "x3 = @param:x3 -> float_type, {5}, {1}\n"
    "three = @literal{3} -> int64_type, {1}, {1}\n"
    "q = loop[states=1,max_iterations=-1](three,x1,x2,x3), [inner] -> float_type, {5}, {1}\n"
    "m = mul(q,q) -> float_type, {5}, {1}\n"
    "@6 = @return(x1,q,m)\n"
    "\n"
    "module: \"inner\"\n"
    "x1 = @param:x1 -> bool_type, {1}, {1}\n"
    "x2 = @param:x2 -> float_type, {5}, {1}\n"
    "x3 = @param:x3 -> float_type, {5}, {1}\n"
    "y = add(x2,x3) -> float_type, {5}, {1}\n"
    "@4 = @return(x1,y)\n";

/* The trip count computed by a kernel (twice the parameter) and read by no
 * kernel of the loop, only by the host: a temp that must stay live, with
 * temps after it that could take its space. */
static const char computed_trips[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {8}, {1}\n"
    "trips = @param:trips -> int64_type, {1}, {1}\n"
    "go = @literal{1} -> bool_type, {1}, {1}\n"
    "t2 = add(trips,trips) -> int64_type, {1}, {1}\n"
    "e = exp(x) -> float_type, {8}, {1}\n"
    "r = loop[states=1,max_iterations=-1](t2,go,e,x), [body] -> float_type, {8}, {1}\n"
    "u = sin(r) -> float_type, {8}, {1}\n"
    "v = cos(u) -> float_type, {8}, {1}\n"
    "@9 = @return(v)\n"
    "\n"
    "module: \"body\"\n"
    "x1 = @param:x1 -> bool_type, {1}, {1}\n"
    "x2 = @param:x2 -> float_type, {8}, {1}\n"
    "x3 = @param:x3 -> float_type, {8}, {1}\n"
    "a = add(x2,x3) -> float_type, {8}, {1}\n"
    "m = mul(a,x3) -> float_type, {8}, {1}\n"
    "@5 = @return(x1,m)\n";

/* Random floats from the graph's parameters, with trips and go set. */
static bool make_inputs(graph *g, int64_t trips, int go, tensor_list *in)
{
    graft_error err = {0};
    tensor_list rnd = {0, NULL};
    bool ok = exec_random_inputs(graph_main(g), 11, &rnd, &err);
    for (int k = 0; ok && k < rnd.n; k++) {
        tensor t = rnd.items[k].t;
        if (strcmp(rnd.items[k].name, "trips") == 0)
            tensor_set_i64(&t, 0, trips);
        else if (strcmp(rnd.items[k].name, "go") == 0)
            tensor_set_i64(&t, 0, go);
        ok = tensor_list_add(in, rnd.items[k].name, &t, &err);
    }
    tensor_list_free(&rnd);
    return ok;
}

/* Runs text on emu at both waves with the given trip count and condition
 * and compares every output element with the reference. */
static void check_loop(const char *text, int64_t trips, int go)
{
    graph *g = parse(text);
    CHECK(g != NULL);
    if (!g)
        return;
    graft_error err = {0};
    cg_program *p = cg_lower(g, &err);
    if (!p)
        printf("lower: %s\n", err.message);
    CHECK(p != NULL);
    tensor_list in = {0, NULL}, want = {0, NULL};
    CHECK(make_inputs(g, trips, go, &in));
    CHECK(exec_run(graph_main(g), &in, &want, &err));
    CHECK(p && cg_plan(p, &err) && cg_plan_check(p, &err));
    if (p) {
        int failed_before = check_failures_in_test;
        check_emu_outputs(p, &in, &want, 0);
        if (check_failures_in_test != failed_before)
            printf("(the case above: trips %lld, go %d)\n", (long long)trips, go);
    }
    tensor_list_free(&in);
    tensor_list_free(&want);
    cg_program_free(p);
    graph_free(g);
}

static void test_scan_loop(void)
{
    check_loop(scan_loop, 0, 1);  /* zero iterations: initial values, zero scans */
    check_loop(scan_loop, 3, 0);  /* a false condition: zero iterations too */
    check_loop(scan_loop, 2, 1);  /* rows 2 and 3 stay zero */
    check_loop(scan_loop, 9, 1);  /* max_iterations stops it at 4 */
}

static void test_swapped_states(void)
{
    check_loop(swap_loop, 1000, 1); /* the condition stops it */
    check_loop(swap_loop, 3, 1);    /* an odd number of swaps */
    check_loop(swap_loop, 0, 1);
}

static void test_nested_loops(void)
{
    check_loop(nested_loop, 2, 1);
    check_loop(nested_loop, 5, 1);
}

static void test_computed_trips(void)
{
    check_loop(computed_trips, 2, 1);
    graph *g = parse(computed_trips);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p != NULL && p->nloops == 1);
    if (p && p->nloops == 1) {
        const cg_buffer *t = &p->buffers[p->loops[0].trips_buffer];
        CHECK(t->kind == CG_TEMP);
        CHECK(t->last >= p->loops[0].end - 1);
    }
    cg_program_free(p);
    graph_free(g);
}

static void test_loop_plan_entry(void)
{
    graph *g = parse(scan_loop);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p != NULL);
    if (!p) {
        graph_free(g);
        return;
    }
    CHECK_INT(p->nloops, 1);
    const cg_loop *lp = &p->loops[0];
    CHECK(lp->first >= 1 && lp->end - lp->first >= 3 && lp->end == p->nkernels);
    CHECK_STR(p->kernels[lp->first - 1].kind, "loop_init");
    CHECK_STR(p->kernels[lp->end - 2].kind, "loop_stage");
    CHECK_STR(p->kernels[lp->end - 1].kind, "loop_commit");
    CHECK(lp->max_iterations == 4);
    CHECK(p->buffers[lp->trips_buffer].kind == CG_INPUT);
    CHECK_STR(p->buffers[lp->trips_buffer].ins->param, "trips");
    CHECK(p->buffers[lp->cond_buffer].sh.type == GRAFT_BOOL);
    /* the body's kernels: the add, and the mul over the transposed sum */
    int body_kernels = 0;
    for (int k = lp->first; k < lp->end - 2; k++)
        body_kernels += p->kernels[k].ins && !strcmp(p->kernels[k].ins->opname, "loop") ? 0 : 1;
    CHECK(body_kernels >= 2);
    /* every buffer a body kernel touches is live over the whole loop */
    for (int k = lp->first; k < lp->end; k++)
        for (int a = 0; a < p->kernels[k].nargs; a++) {
            const cg_buffer *b = &p->buffers[p->kernels[k].args[a]];
            if (b->kind == CG_TEMP)
                CHECK(b->first <= lp->first && b->last >= lp->end - 1);
        }
    CHECK(cg_plan(p, &err));
    CHECK(cg_plan_check(p, &err));
    char *json = cg_plan_json(p, NULL, 0);
    CHECK(json != NULL);
    if (json) {
        char want[200];
        snprintf(want, sizeof want, "\"body\": [%d, %d], \"trip_count\": {\"buffer\": %d",
                 lp->first, lp->end, lp->trips_buffer);
        CHECK_CONTAINS(json, "\"loops\": [");
        CHECK_CONTAINS(json, want);
        CHECK_CONTAINS(json, "\"max_iterations\": 4}");
    }
    free(json);
    cg_program_free(p);
    graph_free(g);
}

/* The walk cg_run_launches makes, without a device: launches are recorded,
 * trip count and condition come from the test. */
typedef struct fake_device {
    const cg_program *p;
    int order[64];
    int n;
    int64_t trips;
    int cond_reads;
} fake_device;

static bool fake_launch(void *ctx, int k, graft_error *err)
{
    fake_device *d = ctx;
    (void)err;
    if (d->n < 64)
        d->order[d->n] = k;
    d->n++;
    return true;
}

static bool fake_read(void *ctx, int buffer, int64_t offset, void *dst, size_t bytes,
                      graft_error *err)
{
    fake_device *d = ctx;
    (void)err, (void)offset;
    if (buffer == d->p->loops[0].trips_buffer) {
        memcpy(dst, &d->trips, bytes < sizeof d->trips ? bytes : sizeof d->trips);
    } else {
        /* the condition holds for two iterations */
        unsigned char c = d->cond_reads++ < 2;
        memcpy(dst, &c, 1);
    }
    return true;
}

static void test_launch_order(void)
{
    graph *g = parse(scan_loop);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p != NULL && p->nloops == 1);
    if (!p || p->nloops != 1) {
        cg_program_free(p);
        graph_free(g);
        return;
    }
    const cg_loop *lp = &p->loops[0];
    int body = lp->end - lp->first;
    for (int64_t trips = 0; trips <= 6; trips += 3) {
        fake_device d = {p, {0}, 0, trips, 0};
        cg_launcher l = {&d, fake_launch, fake_read};
        long long n = 0;
        CHECK(cg_run_launches(p, &l, &n, &err));
        /* trips 0: no iteration; 3 and 6: the condition ends it after 2 */
        int iterations = trips == 0 ? 0 : 2;
        CHECK_INT((int)n, p->nkernels - body + iterations * body);
        CHECK_INT(d.n, (int)n);
        CHECK_INT(d.cond_reads, trips == 0 ? 0 : 3);
        for (int k = 0; k < lp->first && k < d.n; k++)
            CHECK_INT(d.order[k], k);
        for (int it = 0; it < iterations; it++)
            for (int k = 0; k < body; k++)
                CHECK_INT(d.order[lp->first + it * body + k], lp->first + k);
    }
    cg_program_free(p);
    graph_free(g);
}

static void test_hiprtc_compiles_loop_kernels(void)
{
    const char *texts[] = {scan_loop, swap_loop, nested_loop};
    check_hiprtc_compiles("test_hiprtc_compiles_loop_kernels", texts, sizeof texts / sizeof texts[0]);
}

int main(void)
{
    RUN(test_scan_loop);
    RUN(test_swapped_states);
    RUN(test_nested_loops);
    RUN(test_computed_trips);
    RUN(test_loop_plan_entry);
    RUN(test_launch_order);
    RUN(test_hiprtc_compiles_loop_kernels);
    return tests_finish();
}
