/* test_mgx_import.c: the MIGraphX script and JSON importers (import/mgx.h).
 *
 * The script of seed 000 is the acceptance case: it is cut out of
 * ../shared/seeds/000_*.txt at run time (both its multi-line copy and the
 * copy flattened onto one line; the test fails when the seed is missing) and
 * must import to the same graph. Beyond it: the print_py form, literal data
 * (create_argument values, strides, scalars, generate_argument's generator),
 * attribute kinds (enum names, bools, floats, types, negative ints),
 * numbers through the executor, every error naming file:line:col, and a
 * small hand-written MIGraphX JSON program with each form of literal data.
 */
#include "check.h"
#include "corpus_replay.h"
#include "formats.h"
#include "exec.h"
#include "mgx.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---- */

static graph *py(const char *text, graft_error *err)
{
    memset(err, 0, sizeof *err);
    return mgx_py_import(text, strlen(text), "t.py", err);
}

static graph *json(const char *text, graft_error *err)
{
    memset(err, 0, sizeof *err);
    return mgx_json_import(text, strlen(text), "t.json", err);
}

static const char *formatted(const graft_error *err)
{
    static char buf[1400];
    return graft_error_format(err, buf, sizeof buf);
}

/* The instruction at position k of main (0-based). */
static ins *nth(graph *g, int k)
{
    ins *i = graph_main(g)->first;
    while (i && k-- > 0)
        i = i->next;
    return i;
}

static float f32_at(const ins *i, int k) { return ((const float *)i->data)[k]; }

/* ---- the seed ---- */

/* The repository root: $TOP, or the first directory above the test binary
 * that holds this test's source. */
static bool find_top(char *out, size_t size)
{
    const char *env = getenv("TOP");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return true;
    }
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return false;
    path[n] = 0;
    for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
        *slash = 0;
        char probe[PATH_MAX + 64];
        snprintf(probe, sizeof probe, "%s/tests/unit/test_mgx_import.c", path);
        if (access(probe, R_OK) == 0) {
            snprintf(out, size, "%s", path);
            return true;
        }
    }
    return false;
}

/* Reads ../shared/seeds/000_*.txt (malloc'd), or NULL. */
static char *read_seed(char *name, size_t size)
{
    char top[PATH_MAX], dir[PATH_MAX + 32];
    size_t room = size;
    if (!find_top(top, sizeof top))
        return NULL;
    snprintf(dir, sizeof dir, "%s/../shared/seeds", top);
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *text = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "000_", 4) != 0)
            continue;
        if (strlen(dir) + strlen(e->d_name) + 2 > room)
            break;
        strcpy(name, dir);
        strcat(name, "/");
        strcat(name, e->d_name);
        size_t len;
        text = read_file_all(name, &len, NULL);
        break;
    }
    closedir(d);
    return text;
}

/* The multi-line script: from the line "p = migraphx.program()" to the
 * first unassigned "mmain.add_instruction(" line. malloc'd. */
static char *seed_multiline(const char *seed)
{
    const char *start = strstr(seed, "\np = migraphx.program()\n");
    if (!start)
        return NULL;
    start++;
    const char *last = strstr(start, "\nmmain.add_instruction(");
    if (!last)
        return NULL;
    const char *end = strchr(last + 1, '\n');
    if (!end)
        end = last + strlen(last);
    return strndup(start, (size_t)(end - start) + 1);
}

/* The copy flattened onto one line. malloc'd. */
static char *seed_flat(const char *seed)
{
    const char *start = strstr(seed, "\np = migraphx.program() mmain");
    if (!start)
        return NULL;
    start++;
    const char *end = strchr(start, '\n');
    if (!end)
        end = start + strlen(start);
    return strndup(start, (size_t)(end - start));
}

static void test_seed_000_both_forms(void)
{
    char name[PATH_MAX + 64] = "";
    char *seed = read_seed(name, sizeof name);
    CHECK(seed != NULL); /* ../shared/seeds/000_*.txt must be there */
    if (!seed)
        return;
    char *multi = seed_multiline(seed), *flat = seed_flat(seed);
    CHECK(multi != NULL);
    CHECK(flat != NULL);
    CHECK(flat && !strchr(flat, '\n'));
    graft_error err;
    graph *a = multi ? py(multi, &err) : NULL;
    CHECK_STR(a ? "" : formatted(&err), "");
    graph *b = flat ? py(flat, &err) : NULL;
    CHECK_STR(b ? "" : formatted(&err), "");
    if (a && b) {
        CHECK_INT(graph_count(a), 32); /* 1 param, 6 literals, 24 ops, the return */
        module *m = graph_main(a);
        CHECK_STR(m->name, "main");
        ins *ret = module_return(m);
        CHECK(ret != NULL);
        CHECK(ret && ret->nargs == 1 && ins_is(ret->args[0], "convolution"));
        if (ret && ret->nargs == 1) {
            char s[128];
            shape_print(&ret->args[0]->sh, s, sizeof s);
            CHECK_STR(s, "float_type, {2, 320, 64, 64}, {1310720, 4096, 64, 1}");
        }
        ins *eps = nth(a, 0);
        CHECK(ins_is(eps, "@literal"));
        CHECK_NEAR(f32_at(eps, 0), 1e-4, 1e-10);
        ins *sample = nth(a, 1);
        CHECK_STR(sample->param, "sample");
        ins *reshape = nth(a, 11); /* reshape[dims={0, 32, -1}] */
        CHECK(ins_is(reshape, "reshape"));
        const attr_value *dims = ins_attr(reshape, "dims");
        CHECK(dims && dims->n == 3 && dims->u.ints[2] == -1);
        /* the flattened copy is the same program */
        char *da = dump_write(a, NULL, &err), *db = dump_write(b, NULL, &err);
        CHECK(da && db && strcmp(da, db) == 0);
        free(da);
        free(db);
        /* and it runs */
        tensor_list in = {0}, out = {0};
        CHECK(exec_random_inputs(m, 1, &in, &err));
        CHECK(exec_run(m, &in, &out, &err));
        CHECK_INT(out.n, 1);
        tensor_list_free(&in);
        tensor_list_free(&out);
    }
    graph_free(a);
    graph_free(b);
    free(multi);
    free(flat);
    free(seed);
}

/* ---- the script form ---- */

/* MIGraphX's print_py output: `m` for main, p_/x_ names, shape comments,
 * JSON-style values (true), strides, the return of two values. */
static const char print_py_text[] =
    "p = migraphx.program()\n"
    "m = p.get_main_module()\n"
    "p_x = m.add_parameter(\"x\", migraphx.shape(type=\"float_type\", lens=[2,3]))\n"
    "x_main_module_1 = m.add_literal(migraphx.create_argument(migraphx.shape(type=\"float_type\", "
    "lens=[2,3]), [1, 2, 3, 4, 5, 6]))\n"
    "x_main_module_2 = m.add_instruction(migraphx.op(\"add\"), [p_x, x_main_module_1]) # "
    "migraphx.shape(type=\"float_type\", lens=[2,3])\n"
    "x_main_module_3 = m.add_instruction(migraphx.op(\"transpose\", permutation=[1,0]), "
    "[x_main_module_2]) # migraphx.shape(type=\"float_type\", lens=[3,2], strides=[1,3])\n"
    "x_main_module_4 = m.add_instruction(migraphx.op(\"pooling\", mode=\"max\", lengths=[1,1], "
    "ceil_mode=true), [m.add_instruction(migraphx.op(\"unsqueeze\", axes=[0,1]), "
    "[x_main_module_2])])\n"
    "m.add_return([x_main_module_3, x_main_module_2])\n";

static void test_print_py_form(void)
{
    graft_error err;
    graph *g = py(print_py_text, &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    if (!g)
        return;
    module *m = graph_main(g);
    ins *ret = module_return(m);
    CHECK(ret && ret->nargs == 2);
    ins *pool = nth(g, 5);
    CHECK(ins_is(pool, "pooling"));
    const attr_value *mode = ins_attr(pool, "mode");
    CHECK(mode && mode->u.i == 1); /* max */
    const attr_value *ceil = ins_attr(pool, "ceil_mode");
    CHECK(ceil && ceil->u.i == 1);
    /* x + [1..6] through the executor */
    float xs[6] = {10, 20, 30, 40, 50, 60};
    tensor x = {nth(g, 0)->sh, (char *)xs};
    tensor_list in = {0}, out = {0};
    CHECK(tensor_list_add(&in, "x", &x, &err));
    CHECK(exec_run(m, &in, &out, &err));
    CHECK_INT(out.n, 2);
    if (out.n == 2) {
        /* output0 is the transpose: [[11, 44], [22, 55], [33, 66]] */
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 0), 11, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 1), 44, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 5), 66, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[1].t, 3), 44, 0);
    }
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_literals(void)
{
    graft_error err;
    graph *g = py("import migraphx\n"
                  "p = migraphx.program(); mm = p.get_main_module()\n"
                  "a = mm.add_literal(migraphx.create_argument(migraphx.shape(type='int32_type', "
                  "lens=[2,2], strides=[1,2]), [[1, 2], [3, -4]]))\n"
                  "s = mm.add_literal(migraphx.create_argument(migraphx.shape(type='half_type', "
                  "lens=[1], scalar=True), [0.5]))\n"
                  "g1 = mm.add_literal(migraphx.generate_argument(migraphx.shape(type=\"float\", "
                  "lens=[64]), 7))\n"
                  "g2 = mm.add_literal(migraphx.generate_argument(migraphx.shape(type=\"float\", "
                  "lens=[64]), 7))\n"
                  "g3 = mm.add_literal(migraphx.generate_argument(migraphx.shape(type=\"float\", "
                  "lens=[64]), 8))\n"
                  "i = mm.add_literal(migraphx.create_argument(migraphx.shape("
                  "type=migraphx.shape.type_t.float_type, lens=[3]), [float('-inf'), -1.5e3, nan]))\n",
                  &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    if (!g)
        return;
    const int32_t *a = nth(g, 0)->data;
    /* logical [[1, 2], [3, -4]] in column-major memory */
    CHECK(a[0] == 1 && a[1] == 3 && a[2] == 2 && a[3] == -4);
    ins *s = nth(g, 1);
    CHECK(shape_scalar_p(&s->sh));
    CHECK_INT(((const uint16_t *)s->data)[0], 0x3800);
    ins *g1 = nth(g, 2), *g2 = nth(g, 3), *g3 = nth(g, 4);
    CHECK(memcmp(g1->data, g2->data, 64 * 4) == 0);
    CHECK(memcmp(g1->data, g3->data, 64 * 4) != 0);
    CHECK(g1->flags & INS_ELIDED_LITERAL);
    bool in_range = true, varied = false;
    for (int k = 0; k < 64; k++) {
        in_range &= f32_at(g1, k) >= -1 && f32_at(g1, k) < 1;
        varied |= f32_at(g1, k) != f32_at(g1, 0);
    }
    CHECK(in_range && varied);
    ins *inf = nth(g, 5);
    CHECK(isinf(f32_at(inf, 0)) && f32_at(inf, 0) < 0);
    CHECK_NEAR(f32_at(inf, 1), -1500, 0);
    CHECK(isnan(f32_at(inf, 2)));
    graph_free(g);
}

static void test_attribute_kinds(void)
{
    graft_error err;
    graph *g = py("p = migraphx.program()\nm = p.get_main_module()\n"
                  "x = m.add_parameter('x', migraphx.shape(type='float_type', lens=[1,2,4,4]))\n"
                  "a = m.add_instruction(migraphx.op('pooling', mode=0, padding=[1, 1], "
                  "lengths=[3,3], count_include_pad=False), [x])\n"
                  "b = m.add_instruction(migraphx.op('convert', target_type='half_type'), [a])\n"
                  "c = m.add_instruction(migraphx.op('convert', target_type=2), [b])\n"
                  "d = m.add_instruction(migraphx.op('leaky_relu', alpha=0.25), [c])\n"
                  "e = m.add_instruction(migraphx.op(\"reshape\", dims=[-1]), [d])\n",
                  &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    if (!g)
        return;
    CHECK(nth(g, 2)->sh.type == GRAFT_HALF);
    CHECK(nth(g, 3)->sh.type == GRAFT_FLOAT);
    const attr_value *alpha = ins_attr(nth(g, 4), "alpha");
    CHECK(alpha && alpha->u.f == 0.25);
    CHECK_INT(nth(g, 5)->sh.lens[0], 32);
    CHECK(ins_is(module_return(graph_main(g))->args[0], "reshape"));
    graph_free(g);
}

/* Each bad script and the start of the message it must give. */
static void expect_error(const char *text, const char *where, const char *what)
{
    graft_error err;
    graph *g = py(text, &err);
    CHECK(g == NULL);
    graph_free(g);
    CHECK_CONTAINS(formatted(&err), where);
    CHECK_CONTAINS(formatted(&err), what);
}

#define HEAD "p = migraphx.program()\nmm = p.get_main_module()\n"
#define PARAM "x = mm.add_parameter('x', migraphx.shape(type='float_type', lens=[2,3]))\n"

static void test_errors(void)
{
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('frobnicate'), [x])\n",
                 "t.py:4:36: ", "unknown op 'frobnicate'");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('relu'), [x_nope])\n",
                 "t.py:4:46: ", "undefined variable 'x_nope'");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('relu') [x])\n", "t.py:4:",
                 "expected ");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('relu', [x])\n", "t.py:5:1: ",
                 "found end of file");
    expect_error(HEAD "x = mm.add_parameter('x)\n", "t.py:3:22: ", "unterminated string");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('transpose', perm=[1,0]), [x])\n",
                 "t.py:4:", "transpose has no attribute 'perm' (its attributes: permutation)");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('pooling', mode='maxx'), [x])\n",
                 "t.py:4:", "unknown value \"maxx\"");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('transpose', permutation=1), [x])\n",
                 "t.py:4:", "expects a list of integers");
    expect_error(HEAD PARAM "y = mm.add_instruction(migraphx.op('add'), [x])\n", "t.py:4:8: ",
                 "add takes 2 operands, got 1");
    expect_error(HEAD PARAM "z = mm.add_parameter('z', migraphx.shape(type='float_type', "
                 "lens=[3,2]))\ny = mm.add_instruction(migraphx.op('add'), [x, z])\n",
                 "t.py:5:8: ", "add: operand shapes differ");
    expect_error(HEAD PARAM "mm.add_return([x])\nmm.add_instruction(migraphx.op('relu'), [x])\n",
                 "t.py:5:4: ", "add_instruction after add_return");
    expect_error(HEAD "x = mm.add_parameter('x', migraphx.shape(type='complex', lens=[2]))\n",
                 "t.py:3:", "unknown element type \"complex\"");
    expect_error(HEAD "x = mm.add_literal(migraphx.create_argument(migraphx.shape(type='float',"
                 " lens=[2]), [1, 2, 3]))\n", "t.py:3:", "3 values given");
    expect_error(HEAD "x = mm.add_literal(migraphx.create_argument(migraphx.shape(type='int8',"
                 " lens=[1]), [300]))\n", "t.py:3:", "out of range for int8_type");
    expect_error(HEAD "x = mm.add_parameter('x', migraphx.shape(type='float', lens=[1,2,3,4,5,"
                 "6,7,8,9]))\n", "t.py:3:", "longer than 8");
    expect_error(HEAD "mm.print_graph()\n", "t.py:3:4: ", "module.print_graph is not supported");
    expect_error(HEAD "y = np.ones([2])\n", "t.py:3:5: ", "undefined variable 'np'");
    expect_error("import numpy as np\n" HEAD "y = np.ones([2])\n", "t.py:4:8: ",
                 "numpy.ones is not supported");
    expect_error("x = 1\n", "t.py:1:1: ", "no migraphx.program()");
    expect_error(HEAD, "t.py:1:1: ", "adds no instruction to the main module");
    expect_error(HEAD "p2 = migraphx.program()\n", "t.py:3:15: ", "a second migraphx.program()");
    expect_error(HEAD PARAM "sub = p.create_module('sub')\n"
                 "y = sub.add_instruction(migraphx.op('relu'), [x])\n",
                 "t.py:5:", "operand 0 belongs to module \"main\", not \"sub\"");
    expect_error(HEAD PARAM "x = 2 +\n", "t.py:4:", "expected ");
    expect_error("p = migraphx.program()\x01\n", "t.py:1:23: ", "unexpected byte 0x01");
}

static void test_format_detection(void)
{
    graft_error err = {0};
    graph *g = graph_read_any(print_py_text, strlen(print_py_text), "x.txt", &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    graph_free(g);
    const char *j = "\n  {\"modules\": {\"main\": {\"nodes\": [{\"output\": \"x\", \"name\": "
                    "\"@param\", \"operator\": {\"parameter\": \"x\"}, \"shape\": {\"type\": "
                    "\"float_type\", \"lens\": [2], \"strides\": [1]}}]}}}";
    g = graph_read_any(j, strlen(j), "x.txt", &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    CHECK(g && graph_count(g) == 1);
    graph_free(g);
}

/* ---- JSON ---- */

/* A small program in program::to_value's shape, written by hand: a
 * parameter, literals in each data form, ops with attributes, the return,
 * and a second module listed but unused. */
static const char json_text[] =
    "{\n"
    "  \"version\": 7, \"migraphx_version\": \"2.11.0\", \"targets\": [], \"contexts\": [],\n"
    "  \"modules\": {\n"
    "    \"main\": {\"name\": \"main\", \"nodes\": [\n"
    "      {\"output\": \"x\", \"name\": \"@param\", \"normalized\": false,\n"
    "       \"operator\": {\"parameter\": \"x\", \"order\": 0},\n"
    "       \"shape\": {\"type\": \"float_type\", \"lens\": [2, 2], \"strides\": [2, 1]},\n"
    "       \"inputs\": []},\n"
    "      {\"output\": \"@1\", \"name\": \"@literal\", \"operator\": {},\n"
    "       \"shape\": {\"type\": \"float_type\", \"lens\": [2, 2], \"strides\": [2, 1]},\n"
    "       \"literal\": {\"shape\": {\"type\": \"float_type\", \"lens\": [2, 2], \"strides\": [2, 1]},\n"
    "                   \"data\": {\"bytes\": [0, 0, -128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64]}},\n"
    "       \"inputs\": []},\n"
    "      {\"output\": \"@2\", \"name\": \"@literal\", \"operator\": {},\n"
    "       \"literal\": {\"shape\": {\"type\": 2, \"lens\": [2], \"strides\": [1]}, \"data\": [0.5, -2]},\n"
    "       \"inputs\": []},\n"
    "      {\"output\": \"@3\", \"name\": \"@literal\", \"operator\": {},\n"
    "       \"literal\": {\"shape\": {\"type\": \"int32_type\", \"lens\": [2], \"strides\": [1]},\n"
    "                   \"data\": \"BwAAAPn///8=\"}, \"inputs\": []},\n"
    "      {\"output\": \"@4\", \"name\": \"@literal\", \"operator\": {},\n"
    "       \"shape\": {\"type\": \"float_type\", \"lens\": [16], \"strides\": [1]}, \"inputs\": []},\n"
    "      {\"output\": \"@5\", \"name\": \"add\", \"operator\": {},\n"
    "       \"shape\": {\"type\": \"float_type\", \"lens\": [2, 2], \"strides\": [2, 1]},\n"
    "       \"inputs\": [\"x\", \"@1\"]},\n"
    "      {\"output\": \"@6\", \"name\": \"multibroadcast\",\n"
    "       \"operator\": {\"out_lens\": [2, 2], \"out_dyn_dims\": []},\n"
    "       \"shape\": {\"type\": \"float_type\", \"lens\": [2, 2], \"strides\": [0, 1]},\n"
    "       \"inputs\": [\"@2\"]},\n"
    "      {\"output\": \"@7\", \"name\": \"mul\", \"operator\": {\"name\": \"mul\"},\n"
    "       \"inputs\": [\"@5\", \"@6\"]},\n"
    "      {\"output\": \"@8\", \"name\": \"transpose\", \"operator\": {\"permutation\": [1, 0]},\n"
    "       \"inputs\": [\"@7\"]},\n"
    "      {\"output\": \"@9\", \"name\": \"@return\", \"operator\": {}, \"inputs\": [\"@8\"]}\n"
    "    ]},\n"
    "    \"other\": {\"nodes\": [\n"
    "      {\"output\": \"y\", \"name\": \"@param\", \"operator\": {\"parameter\": \"y\"},\n"
    "       \"shape\": {\"type\": \"half_type\", \"lens\": [3]}},\n"
    "      {\"output\": \"z\", \"name\": \"gpu::code_object\", \"operator\": {\"symbol_name\": \"k\","
    " \"global\": 64, \"ratio\": 0.5, \"flags\": [1, 2]},\n"
    "       \"shape\": {\"type\": \"half_type\", \"lens\": [3]}, \"inputs\": [\"y\"]}\n"
    "    ]}\n"
    "  }\n"
    "}\n";

static void test_json_program(void)
{
    graft_error err;
    graph *g = json(json_text, &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    if (!g)
        return;
    CHECK_INT(g->nmodules, 2);
    CHECK_STR(g->first_module->name, "main");
    const float *l1 = nth(g, 1)->data;
    CHECK(l1[0] == 1 && l1[1] == 2 && l1[2] == 3 && l1[3] == 4);
    const float *l2 = nth(g, 2)->data;
    CHECK(l2[0] == 0.5f && l2[1] == -2);
    const int32_t *l3 = nth(g, 3)->data;
    CHECK(l3[0] == 7 && l3[1] == -7);
    CHECK(nth(g, 4)->flags & INS_ELIDED_LITERAL);
    module *other = graph_find_module(g, "other");
    CHECK(other && other->last && (other->last->op->classes & OPC_OPAQUE));
    if (other && other->last)
        CHECK_STR(other->last->opname, "gpu::code_object");
    /* ((x + l1) * broadcast(l2)) transposed, for x = 1 */
    float ones[4] = {1, 1, 1, 1};
    tensor x = {nth(g, 0)->sh, (char *)ones};
    tensor_list in = {0}, out = {0};
    CHECK(tensor_list_add(&in, "x", &x, &err));
    CHECK(exec_run(graph_main(g), &in, &out, &err));
    if (out.n == 1) {
        /* [[2*.5, 3*-2], [4*.5, 5*-2]] transposed: [[1, 2], [-6, -10]] */
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 0), 1, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 1), 2, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 2), -6, 0);
        CHECK_NEAR(tensor_get_f64(&out.items[0].t, 3), -10, 0);
    }
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_json_list_of_modules(void)
{
    graft_error err;
    graph *g = json("{\"modules\": [{\"name\": \"main\", \"nodes\": [\n"
                    "{\"output\": \"a\", \"name\": \"@param\", \"operator\": {\"parameter\": \"a\"},"
                    " \"shape\": {\"type\": \"float_type\", \"lens\": [4]}},\n"
                    "{\"output\": \"b\", \"name\": \"relu\", \"inputs\": [\"a\"]}]}]}",
                    &err);
    CHECK_STR(g ? "" : formatted(&err), "");
    CHECK(g && ins_is(graph_main(g)->last, "relu"));
    graph_free(g);
}

static void expect_json_error(const char *text, const char *where, const char *what)
{
    graft_error err;
    graph *g = json(text, &err);
    CHECK(g == NULL);
    graph_free(g);
    CHECK_CONTAINS(formatted(&err), where);
    CHECK_CONTAINS(formatted(&err), what);
}

#define JHEAD "{\"modules\": {\"main\": {\"nodes\": [\n"
#define JPARAM "{\"output\": \"a\", \"name\": \"@param\", \"shape\": {\"type\": \"float_type\", " \
               "\"lens\": [4]}}"

static void test_json_errors(void)
{
    expect_json_error("{\"modules\": {\"main\": {\"nodes\": [}}}", "t.json:1:33: ",
                      "expected a value, found '}'");
    expect_json_error("{\"modules\": 1", "t.json:1:14: ", "expected ',' or '}', found end of file");
    expect_json_error("{\"version\": 7}", "t.json:1:1: ", "has no \"modules\"");
    expect_json_error("[1, 2]", "t.json:1:1: ", "expected an object with \"modules\"");
    expect_json_error(JHEAD JPARAM ",\n{\"output\": \"b\", \"name\": \"relu\", \"inputs\": [\"c\"]}]}}}",
                      "t.json:3:", "input \"c\" is not defined");
    expect_json_error(JHEAD JPARAM ",\n{\"output\": \"b\", \"name\": \"relu\", \"inputs\": [\"a\"],"
                      " \"shape\": {\"type\": \"float_type\", \"lens\": [5]}}]}}}",
                      "t.json:3:", "the recorded shape float_type, {5}, {1} differs from the computed "
                      "float_type, {4}, {1}");
    expect_json_error(JHEAD JPARAM ",\n{\"output\": \"b\", \"name\": \"mystery\", \"inputs\": [\"a\"]}]}}}",
                      "t.json:3:", "unknown op 'mystery'");
    expect_json_error(JHEAD JPARAM ",\n{\"output\": \"b\", \"name\": \"transpose\", \"operator\": "
                      "{\"perm\": [0]}, \"inputs\": [\"a\"]}]}}}",
                      "t.json:3:", "transpose has no attribute 'perm'");
    expect_json_error(JHEAD "{\"output\": \"l\", \"name\": \"@literal\", \"literal\": {\"shape\": "
                      "{\"type\": \"float_type\", \"lens\": [2]}, \"data\": {\"bytes\": [1, 2]}}}]}}}",
                      "t.json:2:", "2 bytes given, its shape needs 8");
    expect_json_error(JHEAD JPARAM ",\n" JPARAM "]}}}", "t.json:3:", "defined twice");
    expect_json_error("{\"modules\": {\"main\": {\"nodes\": [{\"output\": \"a\", \"name\": \"relu\","
                      " \"module_inputs\": [\"main\"]}]}}}", "t.json:1:", "refers to itself");
    expect_json_error("{\"a\": \"\\q\"}", "t.json:1:8: ", "bad escape");
}

/* The fuzz target's contract for one input, read as a script and as JSON:
 * it fails with a message or gives a graph that verifies and writes as a
 * dump. */
static void check_mgx_input(const char *path, const char *text, size_t len)
{
    mgx_import_options opt = {1u << 22};
    for (int form = 0; form < 2; form++) {
        graft_error err;
        memset(&err, 0, sizeof err);
        graph *g = form ? mgx_json_import_with(text, len, path, &opt, &err)
                        : mgx_py_import_with(text, len, path, &opt, &err);
        if (!g) {
            CHECK(err.message[0] != 0);
            continue;
        }
        CHECK(graph_verify(g, &err));
        char *dump = dump_write(g, NULL, &err);
        CHECK_STR(dump ? "" : formatted(&err), "");
        free(dump);
        graph_free(g);
    }
}

/* The fuzz corpus and the fixed crashers (tests/fuzz/SUB). */
static int replay_dir(const char *top, const char *sub)
{
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/%s", top, sub);
    int n = corpus_replay(dir, check_mgx_input);
    CHECK(n >= 0);
    return n;
}

static void test_fuzz_corpus_replays(void)
{
    char top[PATH_MAX];
    CHECK(find_top(top, sizeof top));
    CHECK(replay_dir(top, "corpus_mgx_py") >= 3);
    CHECK(replay_dir(top, "regress_mgx_py") >= 1);
}

int main(void)
{
    RUN(test_seed_000_both_forms);
    RUN(test_print_py_form);
    RUN(test_literals);
    RUN(test_attribute_kinds);
    RUN(test_errors);
    RUN(test_format_detection);
    RUN(test_json_program);
    RUN(test_json_list_of_modules);
    RUN(test_json_errors);
    RUN(test_fuzz_corpus_replays);
    return tests_finish();
}
