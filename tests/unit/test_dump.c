/* test_dump.c: the dump reader and writer (import/dump_*.c, docs/dump-format.md).
 *
 * Real MIGraphX prints parse as they are (migraphx.md §2: the UNet lines,
 * the YOLOv5 gpu::code_object lines, the driver fragment), round trips are
 * exact (text and literal bytes, for every element type, big and small
 * literals, odd layouts), the optional parts of the format work (shape
 * tails, default attributes, enum names, tuple shapes, submodules defined
 * after use, bare module prints), and every kind of error gives its exact
 * message at the right file:line:col. Last, every seed and every fixed fuzz
 * crasher is replayed through the reader.
 */
#include "check.h"
#include "corpus_replay.h"
#include "cse.h"
#include "formats.h"
#include "tensor.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---- */

static graph *read_text(const char *text)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test.dump", &err);
    if (!g) {
        char buf[1400];
        printf("    read failed: %s\n", graft_error_format(&err, buf, sizeof buf));
    }
    return g;
}

static char *write_graph(const graph *g)
{
    graft_error err = {0};
    char *s = dump_write(g, NULL, &err);
    if (!s)
        printf("    write failed: %s\n", err.message);
    return s;
}

/* Reads text, expecting the error "test.dump:L:C: message". */
static void expect_error(const char *text, const char *expected)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test.dump", &err);
    CHECK(g == NULL);
    graph_free(g);
    char buf[1400];
    CHECK_STR(graft_error_format(&err, buf, sizeof buf), expected);
}

static ins *find_ins(const graph *g, const char *module_name, const char *name)
{
    module *m = graph_find_module(g, module_name);
    for (ins *i = m ? m->first : NULL; i; i = i->next)
        if (i->name && strcmp(i->name, name) == 0)
            return i;
    return NULL;
}

/* write -> read -> write gives the same text; returns the first text. */
static char *check_round_trip(const graph *g)
{
    char *first = write_graph(g);
    CHECK(first != NULL);
    if (!first)
        return NULL;
    graph *back = read_text(first);
    CHECK(back != NULL);
    if (back) {
        char *second = write_graph(back);
        CHECK_STR(second, first);
        CHECK_INT(graph_count(back), graph_count(g));
        /* literal bytes survive (modules and instructions in the same order) */
        const module *mb = back->first_module;
        for (const module *m = g->first_module; m && mb; m = m->next, mb = mb->next) {
            const ins *j = mb->first;
            for (const ins *i = m->first; i && j; i = i->next, j = j->next) {
                if (!ins_is(i, "@literal"))
                    continue;
                CHECK(ins_is(j, "@literal"));
                CHECK(shape_equal(&i->sh, &j->sh));
                if (ins_is(j, "@literal") && shape_equal(&i->sh, &j->sh))
                    CHECK(memcmp(i->data, j->data, shape_bytes(&i->sh)) == 0);
            }
        }
        free(second);
        graph_free(back);
    }
    return first;
}

/* Hides the message buffer's size from the compiler's format-truncation
 * check inside CHECK_STR. */
__attribute__((noinline)) static const char *message_of(const graft_error *err)
{
    return err->message;
}

static void shape_text(const shape *s, char *buf, size_t size) { shape_print(s, buf, size); }

/* ---- real MIGraphX prints ---- */

static const char design_example[] =
    "module: \"main\"\n"
    "@0 = @literal{0.0001} -> float_type, {1}, {0}\n"
    "sample = @param:sample -> float_type, {2, 4, 64, 64}, {65536, 16384, 256, 1}\n"
    "@2 = @literal{ ... } -> float_type, {320, 4, 3, 3}, {36, 9, 3, 1}\n"
    "@3 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0]"
    "(sample,@2) -> float_type, {2, 320, 64, 64}, {1310720, 4096, 64, 1}\n"
    "@4 = @return(@3)\n";

static void reads_the_design_example(void)
{
    graph *g = read_text(design_example);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK_INT(g->nmodules, 1);
    CHECK_INT(graph_count(g), 5);
    ins *lit = find_ins(g, "main", "@0");
    ins *sample = find_ins(g, "main", "sample");
    ins *w = find_ins(g, "main", "@2");
    ins *conv = find_ins(g, "main", "@3");
    CHECK(lit && sample && w && conv);
    if (lit && sample && w && conv) {
        float v;
        memcpy(&v, lit->data, 4);
        CHECK(v == 0.0001f);
        CHECK(shape_scalar_p(&lit->sh));
        CHECK_STR(sample->param, "sample");
        CHECK(w->flags & INS_ELIDED_LITERAL);
        CHECK(!(lit->flags & INS_ELIDED_LITERAL));
        CHECK_STR(conv->opname, "convolution");
        CHECK(conv->nargs == 2 && conv->args[0] == sample && conv->args[1] == w);
        CHECK_INT(conv->sh.lens[1], 320);
        CHECK_INT(conv->line, 5);
        CHECK_INT(conv->col, 1);
        const attr_value *pad = ins_attr(conv, "padding");
        CHECK(pad && pad->kind == ATTR_INTS && pad->n == 4);
        CHECK(module_return(graph_main(g)) != NULL);
    }
    graft_error err = {0};
    CHECK(graph_verify(g, &err));
    /* the canonical form is the input, except that the elided literal now
     * carries its (filled) data */
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "@3 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},"
                         "group=1,padding_mode=0](sample,@2) -> float_type, {2, 320, 64, 64}, "
                         "{1310720, 4096, 64, 1}\n@4 = @return(@3)\n");
    CHECK_CONTAINS(text, "module: \"main\"\n@0 = @literal{0.0001} -> float_type, {1}, {0}\n");
    CHECK_CONTAINS(text, "@2 = @literal{b64:");
    free(text);
    graph_free(g);
}

/* migraphx.md §2 (b): UNet GroupNorm input (PR #3097), with the params and
 * literals it reads defined. */
static const char unet_lines[] =
    "module: \"main\"\n"
    "sample = @param:sample -> float_type, {2, 4, 64, 64}, {65536, 16384, 256, 1}\n"
    "@0 = @literal{ ... } -> float_type, {320, 4, 3, 3}, {36, 9, 3, 1}\n"
    "@1 = @literal{ ... } -> float_type, {320}, {1}\n"
    "@3 = @literal{ ... } -> float_type, {320, 1, 1}, {1, 1, 1}\n"
    "@6 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0]"
    "(sample,@0) -> float_type, {2, 320, 64, 64}, {1310720, 4096, 64, 1}\n"
    "@7 = broadcast[axis=1,out_lens={2, 320, 64, 64}](@1) -> float_type, {2, 320, 64, 64}, "
    "{0, 1, 0, 0}\n"
    "@9 = reshape[dims={2, 32, 10, 64, 64}](@6) -> float_type, {2, 32, 10, 64, 64}, "
    "{1310720, 40960, 4096, 64, 1}\n"
    "@11 = multibroadcast[out_lens={2, 320, 64, 64},out_dyn_dims={}](@3) -> float_type, "
    "{2, 320, 64, 64}, {0, 1, 0, 0}\n"
    "@12 = @return(@7,@9,@11)\n";

static void reads_unet_lines(void)
{
    graph *g = read_text(unet_lines);
    CHECK(g != NULL);
    if (!g)
        return;
    ins *b = find_ins(g, "main", "@7"), *r = find_ins(g, "main", "@9"),
        *mb = find_ins(g, "main", "@11");
    CHECK(b && r && mb);
    if (b && r && mb) {
        CHECK_STR(b->opname, "broadcast");
        CHECK(shape_broadcasted_p(&b->sh));
        CHECK_INT(r->sh.rank, 5);
        CHECK_INT(r->sh.strides[1], 40960);
        CHECK_STR(mb->opname, "multibroadcast");
        CHECK_INT(mb->sh.strides[1], 1);
    }
    free(check_round_trip(g));
    graph_free(g);
}

/* migraphx.md §2 (c): a compiled GPU program (YOLOv5, #2846); the
 * gpu::code_object lines become opaque ops, the rest stays known. */
static const char yolo_lines[] =
    "module: \"main\"\n"
    "@402 = @param:a402 -> half_type, {1, 64, 80, 80}, {409600, 6400, 80, 1}\n"
    "@293 = @param:a293 -> half_type, {255, 64, 1, 1}, {64, 1, 1, 1}\n"
    "@400 = @param:a400 -> half_type, {1, 255, 80, 80}, {1632000, 6400, 80, 1}\n"
    "@403 = @param:a403 -> half_type, {1, 255, 80, 80}, {1632000, 6400, 80, 1}\n"
    "@404 = gpu::code_object[code_object=6464,symbol_name=mlir_convolution_add,global=102400,"
    "local=256,](@402,@293,@400,@403) -> half_type, {1, 255, 80, 80}, {1632000, 6400, 80, 1}, "
    "target_id=0\n"
    "@405 = reshape_lazy[dims={1, 3, 85, 80, 80}](@404) -> half_type, {1, 3, 85, 80, 80}, "
    "{1632000, 544000, 6400, 80, 1}, target_id=0\n"
    "@406 = transpose[permutation={0, 1, 3, 4, 2}](@405) -> half_type, {1, 3, 80, 80, 85}, "
    "{1632000, 544000, 80, 1, 6400}, target_id=0\n"
    "@407 = @return(@406)\n";

static void reads_yolo_code_objects_as_opaque(void)
{
    graph *g = read_text(yolo_lines);
    CHECK(g != NULL);
    if (!g)
        return;
    ins *co = find_ins(g, "main", "@404"), *tr = find_ins(g, "main", "@406");
    CHECK(co && tr);
    if (co && tr) {
        CHECK(co->op == op_opaque());
        CHECK_STR(co->opname, "gpu::code_object");
        CHECK_INT(co->nattrs, 4);
        CHECK_STR(co->attrs[1].key, "symbol_name");
        CHECK(co->attrs[1].v.kind == ATTR_STRING);
        CHECK_STR(co->attrs[1].v.u.s, "mlir_convolution_add");
        CHECK(co->attrs[0].v.kind == ATTR_INT && co->attrs[0].v.u.i == 6464);
        CHECK_INT(co->nargs, 4);
        CHECK(co->sh.type == GRAFT_HALF);
        CHECK_STR(tr->opname, "transpose");
        CHECK(tr->op != op_opaque());
        CHECK(shape_transposed_p(&tr->sh));
    }
    char *text = check_round_trip(g);
    /* the trailing comma and target_id are not written back */
    CHECK_CONTAINS(text, "@404 = gpu::code_object[code_object=6464,symbol_name=mlir_convolution_add,"
                         "global=102400,local=256](@402,@293,@400,@403) -> half_type, "
                         "{1, 255, 80, 80}, {1632000, 6400, 80, 1}\n");
    free(text);
    graph_free(g);
}

/* migraphx.md §2 (a): the migraphx-driver print is a fragment (@6 and @8 are
 * never defined): it fails, naming the line and column of @6. */
static void driver_fragment_fails_at_undefined_operand(void)
{
    expect_error("@4 = @literal{-1, 784} -> int32_type, {2}, {1}\n"
                 "x = @param:x -> float_type, {1, 28, 28}, {784, 28, 1}\n"
                 "@5 = reshape[dims={-1, 784}](x) -> float_type, {1, 784}, {784, 1}\n"
                 "@7 = dot[alpha=1,beta=1](@5,@6) -> float_type, {1, 128}, {128, 1}\n"
                 "@9 = broadcast[axis=1,dims={1, 128}](@8) -> float_type, {1, 128}, {0, 1}\n",
                 "test.dump:4:29: undefined instruction @6");
}

/* A bare module print (no header) is module "main". */
static void bare_print_is_main(void)
{
    graph *g = read_text("@4 = @literal{-1, 784} -> int32_type, {2}, {1}\n"
                         "x = @param:x -> float_type, {1, 28, 28}, {784, 28, 1}\n"
                         "@5 = reshape[dims={-1, 784}](x) -> float_type, {1, 784}, {784, 1}");
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(graph_main(g) && strcmp(graph_main(g)->name, "main") == 0);
    ins *lit = find_ins(g, "main", "@4");
    CHECK(lit != NULL);
    if (lit) {
        int32_t v[2];
        memcpy(v, lit->data, 8);
        CHECK(v[0] == -1 && v[1] == 784);
    }
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "module: \"main\"\n@4 = @literal{-1, 784} -> int32_type, {2}, {1}\n");
    free(text);
    graph_free(g);
}

/* ---- optional parts ---- */

static void computes_omitted_shape_tails(void)
{
    graph *g = read_text("x = @param:x -> float_type, {2, 3}, {3, 1}\n"
                         "@1 = relu(x)\n"
                         "@2 = transpose[permutation={1, 0}](@1)\n"
                         "@3 = @return(@2)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *t = find_ins(g, "main", "@2");
    char s[128] = "";
    if (t)
        shape_text(&t->sh, s, sizeof s);
    CHECK_STR(s, "float_type, {3, 2}, {1, 3}");
    char *text = write_graph(g);
    CHECK_STR(text, "module: \"main\"\n"
                    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
                    "@1 = relu(x) -> float_type, {2, 3}, {3, 1}\n"
                    "@2 = transpose[permutation={1, 0}](@1) -> float_type, {3, 2}, {1, 3}\n"
                    "@3 = @return(@2)\n");
    free(text);
    graph_free(g);
}

static void fills_default_attributes(void)
{
    graph *g = read_text("x = @param:x -> float_type, {1, 3, 8, 8}, {192, 64, 8, 1}\n"
                         "w = @param:w -> float_type, {4, 3, 3, 3}, {27, 9, 3, 1}\n"
                         "@2 = convolution(x,w)\n"
                         "@3 = convolution[ group = 1 , padding={1, 1} ](x,w)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *c = find_ins(g, "main", "@2"), *p = find_ins(g, "main", "@3");
    CHECK(c && p);
    if (c && p) {
        CHECK_INT(c->nattrs, c->op->nattrs);
        CHECK_STR(c->attrs[0].key, "padding");
        CHECK_INT(c->sh.lens[2], 6);
        CHECK_INT(p->sh.lens[2], 8);
    }
    char *text = write_graph(g);
    CHECK_CONTAINS(text, "@2 = convolution[padding={0, 0},stride={1, 1},dilation={1, 1},group=1,"
                         "padding_mode=0](x,w) -> float_type, {1, 4, 6, 6}, {144, 36, 6, 1}\n");
    CHECK_CONTAINS(text, "@3 = convolution[padding={1, 1},");
    free(text);
    graph_free(g);
}

static void reads_enum_attributes_by_name_and_number(void)
{
    graph *g = read_text("x = @param:x -> float_type, {1, 1, 4, 4}, {16, 16, 4, 1}\n"
                         "@1 = pooling[mode=max,lengths={2, 2}](x)\n"
                         "@2 = pooling[mode=1,lengths={2, 2}](x)\n"
                         "@3 = pooling[mode=average,lengths={2, 2}](x)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *a = find_ins(g, "main", "@1"), *b = find_ins(g, "main", "@2"),
        *c = find_ins(g, "main", "@3");
    CHECK(a && b && c);
    if (a && b && c) {
        const attr_value *ma = ins_attr(a, "mode"), *mb = ins_attr(b, "mode"),
                         *mc = ins_attr(c, "mode");
        CHECK(ma && mb && mc);
        if (ma && mb && mc) {
            CHECK(attr_value_equal(*ma, *mb));
            CHECK_INT(ma->u.i, 1);
            CHECK_INT(mc->u.i, 0);
        }
    }
    /* written as numbers, as MIGraphX prints enums */
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "@1 = pooling[mode=1,");
    free(text);
    graph_free(g);
}

static void reads_type_attributes_by_name_and_number(void)
{
    graph *g = read_text("x = @param:x -> float_type, {2}, {1}\n"
                         "@1 = convert[target_type=half_type](x)\n"
                         "@2 = convert[target_type=1](x)\n"
                         "@3 = convert[target_type=15](x)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *a = find_ins(g, "main", "@1"), *b = find_ins(g, "main", "@2"),
        *c = find_ins(g, "main", "@3");
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK(a->sh.type == GRAFT_HALF);
        CHECK(b->sh.type == GRAFT_HALF);
        CHECK(c->sh.type == GRAFT_BF16);
    }
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "@1 = convert[target_type=1](x) -> half_type, {2}, {1}\n");
    CHECK_CONTAINS(text, "@3 = convert[target_type=15](x) -> bf16_type, {2}, {1}\n");
    free(text);
    graph_free(g);
}

static void reads_tuple_shapes(void)
{
    graph *g = read_text("x = @param:x -> float_type, {4}, {1}\n"
                         "@1 = my::split[parts=2](x) -> [float_type, {2}, {1}, half_type, {2}, {1}]\n"
                         "@2 = get_tuple_elem[index=1](@1)\n"
                         "@3 = @return(@2)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *s = find_ins(g, "main", "@1"), *e = find_ins(g, "main", "@2");
    CHECK(s && e);
    if (s && e) {
        CHECK(shape_is_tuple(&s->sh));
        CHECK_INT(s->sh.ntuple, 2);
        CHECK(e->sh.type == GRAFT_HALF);
    }
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "-> [float_type, {2}, {1}, half_type, {2}, {1}]\n");
    free(text);
    graph_free(g);
}

/* Submodules referenced before they are defined, MIGraphX's prefixed names,
 * several modules per instruction, quoted module names. */
static void resolves_submodules_defined_later(void)
{
    graph *g = read_text(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
        "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
        "@2 = gpu::precompile_op[op=pointwise,additional_args=1,ignore_modules=0](x,y), "
        "[main:pointwise0] -> float_type, {2, 3}, {3, 1}\n"
        "@3 = my::if(@2), [main:pointwise0, \"then part\"] -> float_type, {2, 3}, {3, 1}\n"
        "@4 = @return(@3)\n"
        "\n"
        "module: \"main:pointwise0\"\n"
        "main:pointwise0:x0 = @param:x0 -> float_type, {2, 3}, {3, 1}\n"
        "main:pointwise0:x1 = @param:x1 -> float_type, {2, 3}, {3, 1}\n"
        "main:pointwise0:@2 = add(main:pointwise0:x0,x1) -> float_type, {2, 3}, {3, 1}\n"
        "main:pointwise0:@3 = @return(main:pointwise0:@2)\n"
        "\n"
        "module: \"then part\"\n"
        "@0 = @return()\n");
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK_INT(g->nmodules, 3);
    ins *pre = find_ins(g, "main", "@2"), *iff = find_ins(g, "main", "@3");
    module *pw = graph_find_module(g, "main:pointwise0");
    CHECK(pre && iff && pw);
    if (pre && iff && pw) {
        CHECK(pre->nmods == 1 && pre->mods[0] == pw);
        CHECK(iff->nmods == 2 && iff->mods[1] == graph_find_module(g, "then part"));
        ins *add = find_ins(g, "main:pointwise0", "main:pointwise0:@2");
        CHECK(add && add->nargs == 2 && add->args[1] == find_ins(g, "main:pointwise0",
                                                                 "main:pointwise0:x1"));
        CHECK(add && add->args[0]->param && strcmp(add->args[0]->param, "x0") == 0);
    }
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "(x,y), [main:pointwise0] -> float_type");
    CHECK_CONTAINS(text, "(@2), [main:pointwise0, \"then part\"] -> float_type");
    CHECK_CONTAINS(text, "@4 = @return(@3)\n\nmodule: \"main:pointwise0\"\n");
    CHECK_CONTAINS(text, "main:pointwise0:@2 = add(main:pointwise0:x0,main:pointwise0:x1) -> ");
    free(text);
    graph_free(g);
}

static void accepts_spacing_comments_and_crlf(void)
{
    graph *g = read_text("# a comment line\r\n"
                         "module: \"main\"   \r\n"
                         "\r\n"
                         "x = @param:x -> float_type, {2}, {1} # debug symbols: x.py:1\r\n"
                         "  @1 = add( x , x ) -> float_type , { 2 } , { 1 } , target_id=0\r\n"
                         "@2 = @return( @1 )");
    CHECK(g != NULL);
    if (g)
        CHECK_INT(graph_count(g), 3);
    graph_free(g);
}

/* ---- literals ---- */

static void check_literal_round_trip(graft_type t, int64_t n, const char *layout)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    int64_t lens[2] = {n, 1}, strides[2] = {1, 1};
    shape sh = shape_with_strides(t, 1, lens, strides);
    if (strcmp(layout, "transposed") == 0) {
        lens[0] = 2, lens[1] = n / 2, strides[0] = 1, strides[1] = 2;
        sh = shape_with_strides(t, 2, lens, strides);
    } else if (strcmp(layout, "broadcast") == 0) {
        lens[0] = 3, lens[1] = n, strides[0] = 0, strides[1] = 1;
        sh = shape_with_strides(t, 2, lens, strides);
    }
    size_t bytes = shape_bytes(&sh);
    unsigned char *data = malloc(bytes);
    uint64_t state = 12345 + (uint64_t)t * 77 + (uint64_t)n;
    for (size_t k = 0; k < bytes; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        data[k] = (unsigned char)(state >> 56);
    }
    if (t == GRAFT_BOOL)
        for (size_t k = 0; k < bytes; k++)
            data[k] &= 1;
    ins *lit = module_add_literal(m, &sh, data);
    ins *args[1] = {lit};
    module_add_return(m, args, 1);
    char *text = check_round_trip(g);
    bool inline_expected = n <= 64 && strcmp(layout, "standard") == 0;
    if (text && t != GRAFT_FLOAT && t != GRAFT_DOUBLE && t != GRAFT_HALF && t != GRAFT_BF16)
        CHECK(inline_expected == (strstr(text, "b64:") == NULL));
    free(text);
    free(data);
    graph_free(g);
}

static void round_trips_literals_of_every_type(void)
{
    static const graft_type types[] = {GRAFT_BOOL,  GRAFT_HALF,  GRAFT_FLOAT,  GRAFT_DOUBLE,
                                       GRAFT_UINT8, GRAFT_INT8,  GRAFT_UINT16, GRAFT_INT16,
                                       GRAFT_INT32, GRAFT_INT64, GRAFT_UINT32, GRAFT_UINT64,
                                       GRAFT_BF16};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        check_literal_round_trip(types[k], 1, "standard");
        check_literal_round_trip(types[k], 10, "standard");
        check_literal_round_trip(types[k], 64, "standard");
        check_literal_round_trip(types[k], 65, "standard");
        check_literal_round_trip(types[k], 1000, "standard");
        check_literal_round_trip(types[k], 6, "transposed");
        check_literal_round_trip(types[k], 4, "broadcast");
    }
}

static void writes_small_literals_as_decimals(void)
{
    graph *g = read_text("@0 = @literal{0.1, -2.5, 1e-05, 3.4028235e+38} -> float_type, {4}, {1}\n"
                         "@1 = @literal{0.1, 65504, -0} -> half_type, {3}, {1}\n"
                         "@2 = @literal{0.1, 1e+300, inf, -inf} -> double_type, {4}, {1}\n"
                         "@3 = @literal{1.5, 3.140625} -> bf16_type, {2}, {1}\n"
                         "@4 = @literal{-128, 127, 255} -> int16_type, {3}, {1}\n"
                         "@5 = @literal{18446744073709551615, 0} -> uint64_type, {2}, {1}\n"
                         "@6 = @literal{true, 0, 1} -> bool_type, {3}, {1}\n"
                         "@7 = @literal{} -> float_type, {0}, {1}\n");
    CHECK(g != NULL);
    if (!g)
        return;
    char *text = check_round_trip(g);
    CHECK_CONTAINS(text, "@0 = @literal{0.1, -2.5, 1e-05, 3.4028235e+38} -> float_type");
    /* half 0.1 is 0.0999755859375, written as the shortest text of that float */
    CHECK_CONTAINS(text, "@1 = @literal{0.099975586, 65504, -0} -> half_type");
    CHECK_CONTAINS(text, "@2 = @literal{0.1, 1e+300, inf, -inf} -> double_type");
    CHECK_CONTAINS(text, "@3 = @literal{1.5, 3.140625} -> bf16_type");
    CHECK_CONTAINS(text, "@4 = @literal{-128, 127, 255} -> int16_type");
    CHECK_CONTAINS(text, "@5 = @literal{18446744073709551615, 0} -> uint64_type");
    CHECK_CONTAINS(text, "@6 = @literal{1, 0, 1} -> bool_type");
    CHECK_CONTAINS(text, "@7 = @literal{} -> float_type, {0}, {1}");
    ins *h = find_ins(g, "main", "@1");
    if (h) {
        uint16_t v[3];
        memcpy(v, h->data, 6);
        CHECK_INT(v[0], float_to_half(0.1f));
        CHECK_INT(v[2], 0x8000);
    }
    free(text);
    graph_free(g);
}

static void reads_literal_values_in_logical_or_memory_order(void)
{
    /* a transposed literal lists its values in logical (row-major) order;
     * a broadcast one may list its element space */
    graph *g = read_text("@0 = @literal{1, 2, 3, 4, 5, 6} -> int32_type, {2, 3}, {1, 2}\n"
                         "@1 = @literal{7, 8, 9} -> int32_type, {2, 3}, {0, 1}\n"
                         "@2 = @literal{7, 8, 9, 7, 8, 9} -> int32_type, {2, 3}, {0, 1}\n");
    CHECK(g != NULL);
    if (!g)
        return;
    ins *t = find_ins(g, "main", "@0"), *b = find_ins(g, "main", "@1"),
        *c = find_ins(g, "main", "@2");
    if (t && b && c) {
        int32_t v[6];
        memcpy(v, t->data, sizeof v);
        CHECK(v[0] == 1 && v[1] == 4 && v[2] == 2 && v[3] == 5 && v[4] == 3 && v[5] == 6);
        CHECK(memcmp(b->data, c->data, 12) == 0);
    }
    free(check_round_trip(g));
    graph_free(g);
}

static void fills_elided_literals_deterministically(void)
{
    const char *text = "@2 = @literal{ ... } -> float_type, {40}, {1}\n"
                       "@3 = @literal{ ... } -> int8_type, {40}, {1}\n"
                       "@4 = @literal{ ... } -> half_type, {40}, {1}\n";
    graph *a = read_text(text), *b = read_text(text);
    CHECK(a && b);
    if (!a || !b) {
        graph_free(a);
        graph_free(b);
        return;
    }
    ins *fa = find_ins(a, "main", "@2"), *fb = find_ins(b, "main", "@2"),
        *ia = find_ins(a, "main", "@3"), *ha = find_ins(a, "main", "@4");
    CHECK(memcmp(fa->data, fb->data, 160) == 0);
    CHECK(fa->flags & INS_ELIDED_LITERAL);
    const float *f = fa->data;
    int distinct = 0;
    for (int k = 0; k < 40; k++) {
        CHECK(f[k] >= -1.0f && f[k] < 1.0f);
        CHECK(f[k] * 128.0f == (float)(int)(f[k] * 128.0f));
        distinct += k > 0 && f[k] != f[k - 1];
    }
    CHECK(distinct > 20);
    const int8_t *i8 = ia->data;
    for (int k = 0; k < 40; k++)
        CHECK(i8[k] >= 0 && i8[k] < 4);
    const uint16_t *h = ha->data;
    for (int k = 0; k < 40; k++)
        CHECK(half_to_float(h[k]) >= -1.0f && half_to_float(h[k]) < 1.0f);
    /* a different name gives different data */
    graph *c = read_text("@9 = @literal{ ... } -> float_type, {40}, {1}\n");
    if (c)
        CHECK(memcmp(find_ins(c, "main", "@9")->data, fa->data, 160) != 0);
    graph_free(a);
    graph_free(b);
    graph_free(c);
}

/* ---- the writer's names ---- */

static void names_built_instructions(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    module *sub = graph_add_module(g, "main:pointwise0", NULL);
    int64_t lens[1] = {2};
    shape sh = shape_standard(GRAFT_FLOAT, 1, lens);
    ins *x = module_add_param(m, "x", &sh);
    ins *args[2] = {x, x};
    ins *a = module_add_op(m, "add", NULL, 0, args, 2, NULL);
    ins_set_name(a, "@0"); /* clashes with the default name of the next */
    args[0] = a;
    ins *r = module_add_op(m, "relu", NULL, 0, args, 1, NULL);
    ins_set_name(r, NULL);
    ins_set_name(x, NULL);
    args[0] = r;
    module_add_return(m, args, 1);
    ins *p = module_add_param(sub, "p", &sh);
    args[0] = p;
    ins *q = module_add_op(sub, "neg", NULL, 0, args, 1, NULL);
    ins_set_name(q, "bad name");
    args[0] = q;
    module_add_return(sub, args, 1);
    char *text = check_round_trip(g);
    CHECK_STR(text, "module: \"main\"\n"
                    "x = @param:x -> float_type, {2}, {1}\n"
                    "@0 = add(x,x) -> float_type, {2}, {1}\n"
                    "@2 = relu(@0) -> float_type, {2}, {1}\n"
                    "@3 = @return(@2)\n"
                    "\n"
                    "module: \"main:pointwise0\"\n"
                    "p = @param:p -> float_type, {2}, {1}\n"
                    "main:pointwise0:@1 = neg(p) -> float_type, {2}, {1}\n"
                    "main:pointwise0:@2 = @return(main:pointwise0:@1)\n");
    free(text);
    graph_free(g);
}

/* ---- errors: one per kind, exact message and place ---- */

static void reports_syntax_errors(void)
{
    expect_error("module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n"
                 "@1 = relu(x -> float_type, {2}, {1}\n",
                 "test.dump:3:13: expected ')' or ',' after operand, found '->'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = relu(x) float_type\n",
                 "test.dump:2:14: expected '->', end of line or ',' after operand list, found "
                 "'float_type'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n"
                 "@1 = convolution[padding={1, 1} stride={1, 1}](x)\n",
                 "test.dump:2:33: expected ']' or ',' after attribute value, found 'stride'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = foo[a=](x)\n",
                 "test.dump:2:12: expected a value or '{' after '=' in attribute list, found ']'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = relu(x) -> float_type, {2} {1}\n",
                 "test.dump:2:33: expected ',' in shape, found '{'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 relu(x)\n",
                 "test.dump:2:4: expected '=' after instruction name, found 'relu'");
    expect_error("x = @param:x -> float_type, {2}, {1}\n"
                 "@1 = add(x,x), [m1 m2] -> float_type, {2}, {1}\n",
                 "test.dump:2:20: expected ']' or ',' in module list, found 'm2'");
    expect_error("x = @param:x -> float_type, {2}, {1} $\n",
                 "test.dump:1:38: unexpected character '$'");
    expect_error("module: \"main\n", "test.dump:1:9: unterminated string");
    expect_error("x = @param:x\x01 -> float_type, {2}, {1}\n",
                 "test.dump:1:13: unexpected byte 0x01");
    expect_error("", "test.dump:1:1: empty dump: expected `module: \"main\"` or an instruction line");
    expect_error("@1 = foo -> [[[[[[[[[[float_type, {1}, {1}]]]]]]]]]]\n",
                 "test.dump:1:21: tuple shapes nest more than 8 deep");
}

static void reports_name_errors(void)
{
    expect_error("module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = add(x,y)\n",
                 "test.dump:3:12: undefined instruction y");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = relu(x)\n@1 = relu(x)\n",
                 "test.dump:3:1: duplicate instruction name @1 (first defined on line 2)");
    expect_error("x = @param:x -> float_type, {2}, {1}\ny = @param:x -> float_type, {2}, {1}\n",
                 "test.dump:2:12: duplicate parameter 'x' (first defined on line 1)");
    expect_error("x = @param:x -> float_type, {2}, {1}\n"
                 "@1 = foo(x), [main:pointwise0] -> float_type, {2}, {1}\n",
                 "test.dump:2:15: undefined module main:pointwise0");
    expect_error("module: \"main\"\n\nmodule: \"main\"\n",
                 "test.dump:3:9: duplicate module \"main\" (first defined on line 1)");
    expect_error("module: \"a\"\n@1 = foo(), [a] -> float_type, {2}, {1}\n",
                 "test.dump:2:14: module \"a\" uses itself");
    expect_error("module: \"a\"\n@1 = foo(), [b] -> float_type, {2}, {1}\n"
                 "module: \"b\"\n@1 = foo(), [a] -> float_type, {2}, {1}\n",
                 "test.dump:4:14: module \"b\" uses module \"a\", which already uses \"b\" "
                 "(modules cannot form a cycle)");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = @return(x)\n@2 = relu(x)\n",
                 "test.dump:3:1: @2 comes after @1 = @return (the return must be the last line "
                 "of its module)");
}

static void reports_op_errors(void)
{
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = add(x)\n",
                 "test.dump:2:6: @1: add takes 2 operands, got 1");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = foo(x)\n",
                 "test.dump:2:6: unknown op 'foo' (an unknown op needs its shape: add `-> type, "
                 "{lens}, {strides}`)");
    expect_error("x = @param:x -> float_type, {1, 3, 8, 8}, {192, 64, 8, 1}\n"
                 "w = @param:w -> float_type, {4, 3, 3, 3}, {27, 9, 3, 1}\n"
                 "@2 = convolution[pading={1, 1}](x,w)\n",
                 "test.dump:3:18: convolution has no attribute 'pading' (its attributes: padding, "
                 "stride, dilation, group, padding_mode)");
    expect_error("x = @param:x -> float_type, {1, 3, 8, 8}, {192, 64, 8, 1}\n"
                 "@1 = pooling[mode=maximum,lengths={2, 2}](x)\n",
                 "test.dump:2:19: attribute mode of pooling: unknown value 'maximum' (expected "
                 "one of average, max, lpnorm, or its number)");
    expect_error("x = @param:x -> float_type, {2, 3}, {3, 1}\n@1 = transpose[permutation=3](x)\n",
                 "test.dump:2:28: attribute permutation of transpose expects a list of integers "
                 "like {1, 2}, found '3'");
    expect_error("x = @param:x -> float_type, {2, 3}, {3, 1}\n"
                 "@1 = transpose[permutation={1, 0},permutation={0, 1}](x)\n",
                 "test.dump:2:35: attribute 'permutation' is given twice");
    expect_error("x = @param:x -> float_type, {2}, {1}\ny = @param:y -> float_type, {3}, {1}\n"
                 "@2 = add(x,y)\n",
                 "test.dump:3:6: @2: add: operand shapes differ: {2} vs {3}");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = relu(x) -> float_type, {3}, {1}\n",
                 "test.dump:2:17: @1: shape mismatch: dump says float_type, {3}, {1}, computed "
                 "float_type, {2}, {1}");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = relu{1}(x)\n",
                 "test.dump:2:10: only @literal takes values in braces");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = @param(x)\n",
                 "test.dump:2:6: a parameter is written @param:name");
    expect_error("x = @param:x -> float_type, {2}, {1}\n@1 = @return(x) -> float_type, {2}, {1}\n",
                 "test.dump:2:20: @return has no shape; remove the `-> ...` tail");
}

static void reports_shape_errors(void)
{
    expect_error("x = @param:x\n",
                 "test.dump:1:5: parameter 'x' needs its shape: add `-> type, {lens}, {strides}`");
    expect_error("x = @param:x -> flot_type, {2}, {1}\n",
                 "test.dump:1:17: unknown type 'flot_type' (expected bool_type, half_type, "
                 "bf16_type, float_type, double_type, int8_type, uint8_type, int16_type, "
                 "uint16_type, int32_type, uint32_type, int64_type or uint64_type)");
    expect_error("x = @param:x -> float_type, {2, 3}, {1}\n",
                 "test.dump:1:37: the shape has 2 lengths but 1 stride");
    expect_error("x = @param:x -> float_type, {-2}, {1}\n",
                 "test.dump:1:30: a length cannot be negative");
    expect_error("x = @param:x -> float_type, {}, {}\n",
                 "test.dump:1:29: a shape needs at least one length (a scalar is {1}, {0})");
    expect_error("x = @param:x -> float_type, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, "
                 "1, 1}\n",
                 "test.dump:1:54: a shape has at most 8 dimensions");
    expect_error("x = @param:x -> float_type, {1125899906842624, 1125899906842624}, {1, 1}\n",
                 "test.dump:1:29: the shape has too many elements");
}

static void reports_literal_errors(void)
{
    expect_error("x = @literal{1, 2, 3} -> float_type, {2, 2}, {2, 1}\n",
                 "test.dump:1:13: the literal has 3 values, but its shape float_type, {2, 2}, "
                 "{2, 1} holds 4");
    expect_error("x = @literal{300} -> int8_type, {1}, {0}\n",
                 "test.dump:1:14: value 300 is out of range for int8_type");
    expect_error("x = @literal{1.5} -> int32_type, {1}, {0}\n",
                 "test.dump:1:14: expected an integer for int32_type, found '1.5'");
    expect_error("x = @literal{b64:AAA} -> float_type, {1}, {0}\n",
                 "test.dump:1:14: bad base64 data (expected groups of 4 characters from A-Z a-z "
                 "0-9 + /, '=' padding only at the end)");
    expect_error("x = @literal{b64:AAAAAAAA} -> float_type, {1}, {0}\n",
                 "test.dump:1:14: the base64 data holds 6 bytes, but a literal of shape "
                 "float_type, {1}, {0} needs 4");
    expect_error("x = @literal -> float_type, {1}, {0}\n",
                 "test.dump:1:5: a literal needs its values: @literal{1, 2} or @literal{ ... }");
    expect_error("x = @literal{1}\n",
                 "test.dump:1:5: a literal needs its shape: add `-> type, {lens}, {strides}`");
    /* a limit on literal data, for untrusted input */
    dump_read_options opts = {.max_literal_bytes = 1000};
    graft_error err = {0};
    const char *big = "x = @literal{ ... } -> float_type, {1000}, {1}\n";
    graph *g = dump_read_with(big, strlen(big), "big.dump", &opts, &err);
    CHECK(g == NULL);
    char buf[1400];
    CHECK_STR(graft_error_format(&err, buf, sizeof buf),
              "big.dump:1:13: literal data over the limit of 1000 bytes");
    graph_free(g);
}

/* ---- files and formats ---- */

static void reads_and_writes_files(void)
{
    char dir[] = "/tmp/graft_test_dumpXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], tmp_list[256];
    snprintf(path, sizeof path, "%s/g.dump", dir);
    graph *g = read_text(design_example);
    graft_error err = {0};
    CHECK(g && graft_graph_write_file(g, path, &err));
    graph *back = graft_graph_read_file(path, &err);
    CHECK(back != NULL);
    if (g && back) {
        char *a = graft_graph_to_string(g, &err), *b = graft_graph_to_string(back, &err);
        CHECK_STR(a, b);
        free(a);
        free(b);
    }
    CHECK_STR(back && back->source ? back->source : "", path);
    /* no temporary file is left behind */
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        files += e->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK_INT(files, 1);
    /* an unwritable path fails cleanly */
    snprintf(tmp_list, sizeof tmp_list, "%s/no/such/dir/g.dump", dir);
    CHECK(!dump_write_file(g, tmp_list, &err));
    CHECK_CONTAINS(err.message, "cannot create a temporary file for");
    CHECK(graft_graph_read_file(tmp_list, &err) == NULL);
    CHECK_CONTAINS(err.message, "cannot open");
    unlink(path);
    rmdir(dir);
    graph_free(g);
    graph_free(back);
}

/* Routes bytes to the reader for their format: the importers' errors are
 * not the dump reader's. */
static bool routed_elsewhere(const char *bytes, size_t len)
{
    graft_error as_dump = {0}, as_any = {0};
    graph *d = dump_read(bytes, len, "x", &as_dump);
    graph *a = graph_read_any(bytes, len, "x", &as_any);
    bool elsewhere = !d && as_any.message[0] && strcmp(as_dump.message, as_any.message) != 0;
    graph_free(d);
    graph_free(a);
    return elsewhere;
}

static void tells_formats_apart(void)
{
    graft_error err = {0};
    const char onnx[] = "\x08\x07\x12\x04test";
    CHECK(routed_elsewhere(onnx, sizeof onnx - 1));
    const char py[] = "import migraphx\np = migraphx.program()\n";
    CHECK(routed_elsewhere(py, sizeof py - 1));
    graph *g = graph_read_any(design_example, strlen(design_example), "d.dump", &err);
    CHECK(g != NULL);
    graph_free(g);
    /* a dump that starts with blank lines is still text */
    const char blank[] = "\n\nx = @param:x -> float_type, {2}, {1}\n";
    g = graph_read_any(blank, sizeof blank - 1, "b.dump", &err);
    CHECK(g != NULL);
    graph_free(g);
}

/* ---- seeds and fixed crashers ---- */

/* The dump fuzz target's contract for one input: it fails with a message,
 * or it reads, writes and reads back to the same text. */
static void check_dump_input(const char *path, const char *text, size_t len)
{
    graft_error err = {0};
    dump_read_options opts = {.max_literal_bytes = (size_t)1 << 20};
    graph *g = dump_read_with(text, len, path, &opts, &err);
    if (g) {
        char *out = write_graph(g);
        CHECK(out != NULL);
        if (out) {
            graph *back = read_text(out);
            CHECK(back != NULL);
            char *again = back ? write_graph(back) : NULL;
            CHECK_STR(again, out);
            free(again);
            graph_free(back);
        }
        free(out);
    } else {
        CHECK(err.message[0] != 0);
    }
    graph_free(g);
}

/* The repository root: $TOP, the current directory, or a parent of the
 * directory this program is in (build/tests, build/san/tests). */
static bool find_top(char *top, size_t size)
{
    const char *env = getenv("TOP");
    char probe[1200];
    if (env) {
        snprintf(probe, sizeof probe, "%s/tests/fuzz/corpus_dump", env);
        if (access(probe, R_OK) == 0) {
            snprintf(top, size, "%s", env);
            return true;
        }
    }
    if (access("tests/fuzz/corpus_dump", R_OK) == 0) {
        snprintf(top, size, ".");
        return true;
    }
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return false;
        *slash = 0;
        snprintf(probe, sizeof probe, "%s/tests/fuzz/corpus_dump", exe);
        if (access(probe, R_OK) == 0) {
            snprintf(top, size, "%s", exe);
            return true;
        }
    }
    return false;
}

static void replays_fuzz_corpus_and_crashers(void)
{
    char top[1024], corpus[1100], regress[1100];
    CHECK(find_top(top, sizeof top));
    snprintf(corpus, sizeof corpus, "%s/tests/fuzz/corpus_dump", top);
    snprintf(regress, sizeof regress, "%s/tests/fuzz/regress_dump", top);
    CHECK(corpus_replay(corpus, check_dump_input) >= 5);
    CHECK(corpus_replay(regress, check_dump_input) >= 1);
}

/* ---- the fast path against the parser ---- */

/* Reading text through the fast path (the default) and through the parser
 * alone gives the same graph, or the same error. */
/* dump_read_options.built as `graft opt` uses it (tools/cli_util.c): each
 * instruction to CSE's probe as it is built; NULL starts over. */
static void probe_built(void *ctx, const ins *i)
{
    cse_probe *p = ctx;
    if (!i)
        *p = (cse_probe){0};
    else
        cse_probe_next(p, i);
}

static void same_both_ways(const char *path, const char *text, size_t len)
{
    graft_error e1 = {0}, e2 = {0};
    cse_probe probe_fast = {0}, probe_slow = {0};
    dump_read_options fast = {.max_literal_bytes = (size_t)1 << 20, .built = probe_built,
                              .built_ctx = &probe_fast};
    dump_read_options slow = {.max_literal_bytes = (size_t)1 << 20, .parser_only = true,
                              .built = probe_built, .built_ctx = &probe_slow};
    graph *a = dump_read_with(text, len, path, &fast, &e1);
    graph *b = dump_read_with(text, len, path, &slow, &e2);
    bool twins_fast = probe_fast.maybe, twins_slow = probe_slow.maybe;
    CHECK((a == NULL) == (b == NULL));
    if (a && b) {
        char *ta = write_graph(a), *tb = write_graph(b);
        CHECK_STR(ta, tb);
        CHECK(graph_count(a) == graph_count(b));
        /* The probe, offered each instruction as it is built
         * (dump_read_options.built), tells the same both ways, and a graph
         * it finds free of twins is one CSE leaves alone. */
        CHECK(twins_fast == twins_slow);
        size_t merged = 0;
        graft_error e3 = {0};
        CHECK(cse_run(a, &merged, &e3));
        CHECK(twins_fast || merged == 0);
        free(ta);
        free(tb);
    } else if (!a && !b) {
        char m1[1400], m2[1400];
        CHECK_STR(graft_error_format(&e1, m1, sizeof m1), graft_error_format(&e2, m2, sizeof m2));
    } else {
        printf("    %s: read %s only\n", path, a ? "by the fast path" : "by the parser");
    }
    graph_free(a);
    graph_free(b);
}

static void same_in_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[2400];
        snprintf(path, sizeof path, "%.1100s/%.255s", dir, e->d_name);
        size_t len;
        char *bytes = read_file_all(path, &len, NULL);
        if (bytes) {
            same_both_ways(path, bytes, len);
            free(bytes);
        }
    }
    closedir(d);
}

static void fast_path_matches_the_parser(void)
{
    static const char *const texts[] = {
        design_example,
        "x = @param:x -> float_type, {2}, {1}\n@1 = relu(x)\n@2 = @return(@1)",
        "module: \"main\"\r\nx = @param:x-y -> float_type, {2}, {1} # c\r\n\r\n# only\n"
        "@1 = relu ( x ) -> float_type , { 2 } , { 1 } , target_id=0\n@2 = @return(@1)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n"
        "@1 = @literal{1e5, -inf, inf, nan, .5, 1., -0} -> float_type, {7}, {1}\n",
        "module: \"main\"\n@0 = @literal{b64:AACAPw==} -> float_type, {1}, {0}\n",
        "module: \"main\"\n@0 = @literal{b64:AACAPw==x} -> float_type, {1}, {0}\n",
        "module: \"main\"\n@0 = @literal{b64:AA_A} -> float_type, {1}, {0}\n",
        "module: \"main\"\n@0 = @literal{ ... } -> float_type, {12}, {1}\n",
        "module: \"main\"\n@0 = @literal{ ... , 1} -> float_type, {12}, {1}\n",
        "module: \"main\"\nx = @param:x -> float_type, {2, 2}, {2, 1}\n"
        "@1 = transpose[permutation={1, 0},](x)\n@2 = @return(@1)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2, 2}, {2, 1}\n"
        "@1 = transpose[permutation={1, 0},,](x)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n12 = relu(x)\n13 = relu(12)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n1e = relu(x)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(x)x\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(x) -> float_type, {2}, {1}x\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(x)\n@1 = relu(x)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(y)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = @return(x)\n@2 = relu(x)\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\nx = @param:x -> float_type, {2}, {1}\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = foo[a=1,b=2.5,c=w,d={1, 2}](x) "
        "-> float_type, {2}, {1}\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = foo[s=\"q\"](x) -> float_type, {2}, {1}\n",
        "module: \"main:sub\"\na = @param:a -> float_type, {2}, {1}\nmain:sub:@1 = relu(a)\n"
        "@2 = neg(@1)\n@3 = @return(@2)\nmodule: \"main\"\nx = @param:x -> float_type, {2}, {1}\n"
        "@1 = foo(x), [main:sub] -> [float_type, {2}, {1}, half_type, {2}, {1}]\n",
        "module: \"a\"\nmodule: \"a\"\n",
        "module: \"a\\\"b\"\n",
        "",
        "\n# nothing\n",
        "module: \"main\"\n@1 = @param:x -> float_type, {2}, {1}\n@2 = @return(@1\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(x) -> float_type, {3}, {1}\n",
        "module: \"main\"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(x) -> float_type, {2}, {1}\n\0",
    };
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        same_both_ways("test.dump", texts[k], strlen(texts[k]));
    /* The twin probe: two exps of x are twins; an exp and a neg of x, or
     * exp(x) read twice, are not; a literal twice is (cse merges it). */
    static const struct {
        const char *text;
        bool twins;
    } probed[] = {
        {"x = @param:x -> float_type, {2}, {1}\n@1 = exp(x)\n@2 = exp(x)\n@3 = add(@1, @2)\n"
         "@4 = @return(@3)", true},
        {"x = @param:x -> float_type, {2}, {1}\n@1 = exp(x)\n@2 = neg(x)\n@3 = add(@1, @2)\n"
         "@4 = @return(@3)", false},
        {"x = @param:x -> float_type, {2}, {1}\n@1 = exp(x)\n@2 = add(@1, @1)\n"
         "@3 = @return(@2)", false},
        {"@1 = @literal{1, 2} -> float_type, {2}, {1}\n@2 = @literal{1, 2} -> float_type, {2}, {1}\n"
         "@3 = add(@1, @2)\n@4 = @return(@3)", true},
    };
    for (size_t k = 0; k < sizeof probed / sizeof probed[0]; k++) {
        cse_probe probe = {0};
        dump_read_options o = {.built = probe_built, .built_ctx = &probe};
        graft_error e = {0};
        graph *g = dump_read_with(probed[k].text, strlen(probed[k].text), "probe.dump", &o, &e);
        CHECK(g != NULL);
        CHECK(probe.maybe == probed[k].twins);
        size_t merged = 0;
        CHECK(g && cse_run(g, &merged, &e));
        CHECK((merged > 0) == probed[k].twins);
        graph_free(g);
        same_both_ways("probe.dump", probed[k].text, strlen(probed[k].text));
    }
    char top[1024], dir[1200];
    CHECK(find_top(top, sizeof top));
    static const char *const dirs[] = {"tests/fuzz/corpus_dump", "tests/fuzz/regress_dump",
                                       "examples"};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        snprintf(dir, sizeof dir, "%s/%s", top, dirs[k]);
        same_in_dir(dir);
    }
    snprintf(dir, sizeof dir, "%s/tests/golden", top);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char sub[1500];
        snprintf(sub, sizeof sub, "%s/%.255s", dir, e->d_name);
        same_in_dir(sub);
    }
    if (d)
        closedir(d);
}

int main(void)
{
    RUN(reads_the_design_example);
    RUN(reads_unet_lines);
    RUN(reads_yolo_code_objects_as_opaque);
    RUN(driver_fragment_fails_at_undefined_operand);
    RUN(bare_print_is_main);
    RUN(computes_omitted_shape_tails);
    RUN(fills_default_attributes);
    RUN(reads_enum_attributes_by_name_and_number);
    RUN(reads_type_attributes_by_name_and_number);
    RUN(reads_tuple_shapes);
    RUN(resolves_submodules_defined_later);
    RUN(accepts_spacing_comments_and_crlf);
    RUN(round_trips_literals_of_every_type);
    RUN(writes_small_literals_as_decimals);
    RUN(reads_literal_values_in_logical_or_memory_order);
    RUN(fills_elided_literals_deterministically);
    RUN(names_built_instructions);
    RUN(reports_syntax_errors);
    RUN(reports_name_errors);
    RUN(reports_op_errors);
    RUN(reports_shape_errors);
    RUN(reports_literal_errors);
    RUN(reads_and_writes_files);
    RUN(tells_formats_apart);
    RUN(replays_fuzz_corpus_and_crashers);
    RUN(fast_path_matches_the_parser);
    return tests_finish();
}
