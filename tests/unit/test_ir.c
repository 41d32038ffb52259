/* test_ir.c: the graph IR (ir/ir.h): building, mutation, order keys, the
 * verifier and the topological sort.
 *
 * These tests hold the IR to the invariants every rewrite relies on: users
 * lists always mirror operands, "is a before b" agrees with list order after
 * any sequence of inserts and moves (including the relabelling that kicks in
 * when keys run out), and graph_verify catches each kind of corruption it
 * promises to catch.
 */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static shape float_2x3(void)
{
    int64_t lens[] = {2, 3};
    return shape_standard(GRAFT_FLOAT, 2, lens);
}

static ins *unary(module *m, const char *op, ins *x)
{
    graft_error err = {0};
    ins *i = module_add_op(m, op, NULL, 0, &x, 1, &err);
    if (!i)
        printf("# %s failed: %s\n", op, err.message);
    return i;
}

static ins *binary(module *m, const char *op, ins *x, ins *y)
{
    graft_error err = {0};
    ins *args[] = {x, y};
    ins *i = module_add_op(m, op, NULL, 0, args, 2, &err);
    if (!i)
        printf("# %s failed: %s\n", op, err.message);
    return i;
}

static int count_users_equal_to(const ins *def, const ins *user)
{
    int n = 0;
    for (int k = 0; k < def->nusers; k++)
        n += def->users[k] == user;
    return n;
}

/* Position of i in its module's list, by walking (the slow truth that order
 * keys must agree with). */
static int list_position(const ins *i)
{
    int pos = 0;
    for (const ins *p = i->mod->first; p && p != i; p = p->next)
        pos++;
    return pos;
}

static bool keys_increase(const module *m)
{
    for (const ins *i = m->first; i && i->next; i = i->next)
        if (!(i->order < i->next->order))
            return false;
    return true;
}

static bool verifies(const graph *g)
{
    graft_error err = {0};
    bool ok = graph_verify(g, &err);
    if (!ok)
        printf("# graph_verify: %s\n", err.message);
    return ok;
}

static void test_builder(void)
{
    graph *g = graph_new();
    graft_error err = {0};
    module *m = graph_add_module(g, "main", &err);
    CHECK(m != NULL);
    CHECK(graph_add_module(g, "main", &err) == NULL);
    CHECK(graph_main(g) == m);
    CHECK(graph_find_module(g, "main") == m);
    CHECK(graph_find_module(g, "other") == NULL);

    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *y = module_add_param(m, "y", &s);
    ins *sum = binary(m, "add", x, y);
    ins *r = unary(m, "relu", sum);
    ins *ret = module_add_return(m, &r, 1);
    CHECK(x && y && sum && r && ret);
    CHECK_STR(x->param, "x");
    CHECK(ins_is(x, "@param"));
    CHECK(ins_is(sum, "add"));
    CHECK(shape_equal(&sum->sh, &s));
    CHECK(shape_equal(&r->sh, &s));
    CHECK_INT(m->count, 5);
    CHECK_INT(graph_count(g), 5);
    CHECK_INT(x->nusers, 1);
    CHECK(x->users[0] == sum);
    CHECK_INT(sum->nargs, 2);
    CHECK(sum->args[0] == x && sum->args[1] == y);
    CHECK(module_return(m) == ret);
    CHECK(m->first == x && m->last == ret);
    CHECK(ins_before(x, y) && ins_before(y, sum) && ins_before(sum, r) && ins_before(r, ret));
    CHECK(!ins_before(r, sum));
    CHECK(x->id != y->id && y->id != sum->id);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_builder_errors(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    int64_t other_lens[] = {3, 2};
    shape t = shape_standard(GRAFT_FLOAT, 2, other_lens);
    ins *x = module_add_param(m, "x", &s);
    ins *y = module_add_param(m, "y", &t);
    graft_error err = {0};
    ins *args[] = {x, y};
    CHECK(module_add_op(m, "add", NULL, 0, args, 2, &err) == NULL);
    CHECK(err.message[0] != 0);
    graft_error err2 = {0};
    CHECK(module_add_op(m, "no_such_op", NULL, 0, args, 1, &err2) == NULL);
    CHECK_CONTAINS(err2.message, "no_such_op");
    graft_error err3 = {0};
    attr bogus = {"bogus", attr_int(1)};
    CHECK(module_add_op(m, "relu", &bogus, 1, args, 1, &err3) == NULL);
    CHECK_CONTAINS(err3.message, "bogus");
    /* Failed builds leave the module as it was. */
    CHECK_INT(m->count, 2);
    CHECK_INT(x->nusers, 0);
    CHECK(verifies(g));
    graph_free(g);
}

/* An integer attribute given as a float is taken only where it is a whole
 * number int64_t holds: 1e300, NaN and 2.5 are refused with a message
 * (ir.c's test converted 1e300 to int64_t first, which C leaves
 * undefined), 1.0 is taken as 1. */
static void test_float_for_integer_attribute(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *args[] = {x};
    const double refused[] = {1e300, -1e300, NAN, 2.5};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        graft_error err = {0};
        attr axis = {"axis", attr_float(refused[k])};
        CHECK(module_add_op(m, "softmax", &axis, 1, args, 1, &err) == NULL);
        CHECK_CONTAINS(err.message, "axis");
    }
    graft_error err = {0};
    attr one = {"axis", attr_float(1.0)};
    ins *y = module_add_op(m, "softmax", &one, 1, args, 1, &err);
    CHECK(y != NULL);
    CHECK(y && ins_attr(y, "axis")->kind == ATTR_INT && ins_attr(y, "axis")->u.i == 1);
    int64_t v = 0;
    CHECK(!double_to_int64(9223372036854775808.0, &v));
    CHECK(double_to_int64(-9223372036854775808.0, &v) && v == INT64_MIN);
    CHECK(double_to_int64(-2.75, &v) && v == -2);
    graph_free(g);
}

static void test_literal_copies_data(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    float values[6] = {1, 2, 3, 4, 5, 6};
    ins *lit = module_add_literal(m, &s, values);
    values[0] = 100;
    CHECK(lit != NULL);
    CHECK(ins_is(lit, "@literal"));
    CHECK(((const float *)lit->data)[0] == 1.0f);
    CHECK(((const float *)lit->data)[5] == 6.0f);
    graph_free(g);
}

static void test_insert_before(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *r = unary(m, "relu", x);
    ins *ret = module_add_return(m, &r, 1);
    graft_error err = {0};
    ins *n = module_insert(m, r, op_find("neg"), NULL, 0, &x, 1, &err);
    CHECK(n != NULL);
    CHECK(x->next == n && n->next == r);
    CHECK(ins_before(x, n) && ins_before(n, r) && ins_before(n, ret));
    CHECK_INT(x->nusers, 2);
    CHECK_INT(m->count, 4);
    /* pos NULL appends. */
    ins *t = module_insert(m, NULL, op_find("tanh"), NULL, 0, &x, 1, &err);
    CHECK(t != NULL && m->last == t);
    module_remove(t);
    CHECK(verifies(g));
    graph_free(g);
}

/* A body module computing relu(x0) and neg(x0), for a `fused` instruction. */
static module *two_output_body(graph *g, const char *name, const shape *s)
{
    module *body = graph_add_module(g, name, NULL);
    ins *p = module_add_param(body, "x0", s);
    ins *outs[] = {unary(body, "relu", p), unary(body, "neg", p)};
    module_add_return(body, outs, 2);
    return body;
}

static void test_insert_with_modules(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *r = unary(m, "relu", x);
    module_add_return(m, &r, 1);
    module *body = two_output_body(g, "main:fused0", &s);
    module *mods[] = {body};
    graft_error err = {0};
    ins *f = module_insert_with_modules(m, r, op_find("fused"), NULL, 0, &x, 1, mods, 1, &err);
    mods[0] = NULL; /* the instruction keeps its own list */
    CHECK(f != NULL);
    CHECK(f->op == op_find("fused"));
    CHECK_STR(f->opname, "fused");
    CHECK_INT(f->nmods, 1);
    CHECK(f->mods[0] == body);
    CHECK(x->next == f && f->next == r);
    /* The shape comes from the body's @return: a tuple of two. */
    CHECK(shape_is_tuple(&f->sh));
    CHECK_INT(f->sh.ntuple, 2);
    CHECK(shape_equal(&f->sh.tuple[0], &s));
    CHECK_INT(x->nusers, 2);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_insert_with_modules_errors(void)
{
    graph *g = graph_new(), *other = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    const op_def *fused = op_find("fused");
    graft_error err = {0};
    /* No submodule. */
    CHECK(module_insert_with_modules(m, NULL, fused, NULL, 0, &x, 1, NULL, 0, &err) == NULL);
    CHECK_CONTAINS(err.message, "no submodule");
    /* A module of another graph, or the module itself. */
    module *foreign = two_output_body(other, "main:fused0", &s);
    CHECK(module_insert_with_modules(m, NULL, fused, NULL, 0, &x, 1, &foreign, 1, &err) == NULL);
    CHECK_CONTAINS(err.message, "submodule 0");
    CHECK(module_insert_with_modules(m, NULL, fused, NULL, 0, &x, 1, &m, 1, &err) == NULL);
    CHECK_CONTAINS(err.message, "submodule 0");
    /* The op's shape rule reads the body: two operands for one @param. */
    module *body = two_output_body(g, "main:fused0", &s);
    ins *args[] = {x, x};
    CHECK(module_insert_with_modules(m, NULL, fused, NULL, 0, args, 2, &body, 1, &err) == NULL);
    CHECK_CONTAINS(err.message, "@param");
    /* An unknown attribute, as module_insert checks. */
    attr bogus = {"bogus", attr_int(1)};
    CHECK(module_insert_with_modules(m, NULL, fused, &bogus, 1, &x, 1, &body, 1, &err) == NULL);
    CHECK_CONTAINS(err.message, "bogus");
    /* Failures insert nothing. */
    CHECK_INT(m->count, 1);
    CHECK_INT(x->nusers, 0);
    graph_free(other);
    graph_free(g);
}

static void test_replace_all_uses(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = binary(m, "add", a, a);
    ins *c = unary(m, "neg", a);
    ins *ret_args[] = {b, c};
    module_add_return(m, ret_args, 2);
    graft_error err = {0};
    ins *d = module_insert(m, b, op_find("tanh"), NULL, 0, &x, 1, &err);
    CHECK(d != NULL);
    ins_replace_all_uses(a, d);
    CHECK(b->args[0] == d && b->args[1] == d);
    CHECK(c->args[0] == d);
    CHECK_INT(a->nusers, 0);
    CHECK_INT(d->nusers, 3);
    CHECK_INT(count_users_equal_to(d, b), 2);
    CHECK_INT(count_users_equal_to(d, c), 1);
    CHECK(verifies(g));
    module_remove(a);
    CHECK(a->flags & INS_REMOVED);
    CHECK_INT(x->nusers, 1); /* only d now */
    CHECK_INT(m->count, 5);
    CHECK(verifies(g));
    graph_free(g);
}

/* "Put f(x) after x and let every other user read f(x)": the replacement's
 * own use of x survives. */
static void test_replace_keeps_replacements_own_use(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = unary(m, "neg", x);
    module_add_return(m, &b, 1);
    graft_error err = {0};
    ins *f = module_insert(m, a, op_find("exp"), NULL, 0, &x, 1, &err);
    CHECK(f != NULL);
    ins_replace_all_uses(x, f);
    CHECK(f->args[0] == x);
    CHECK(a->args[0] == f && b->args[0] == f);
    CHECK_INT(x->nusers, 1);
    CHECK_INT(f->nusers, 2);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_set_arg(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *y = module_add_param(m, "y", &s);
    ins *sum = binary(m, "add", x, x);
    ins_set_arg(sum, 1, y);
    CHECK(sum->args[0] == x && sum->args[1] == y);
    CHECK_INT(count_users_equal_to(x, sum), 1);
    CHECK_INT(count_users_equal_to(y, sum), 1);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_remove(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = binary(m, "mul", x, a);
    module_add_return(m, &a, 1);
    CHECK_INT(x->nusers, 2);
    CHECK_INT(a->nusers, 2);
    module_remove(b);
    CHECK_INT(x->nusers, 1);
    CHECK_INT(a->nusers, 1);
    CHECK_INT(m->count, 3);
    CHECK(a->next == m->last);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_move(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = unary(m, "neg", x);
    ins *c = binary(m, "add", a, b);
    module_add_return(m, &c, 1);
    /* b does not depend on a: it may move in front of it. */
    module_move_before(b, a);
    CHECK(x->next == b && b->next == a && a->next == c);
    CHECK(ins_before(b, a));
    CHECK(keys_increase(m));
    CHECK_INT(m->count, 5);
    CHECK(verifies(g));
    /* Moving an operand behind its user breaks the graph, and verify says so. */
    module_move_before(a, m->last);
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "precede");
    graph_free(g);
}

/* A module counts its ops (builtins aside) as they come and go, and
 * module_move_all moves a whole body to another module, in order, with its
 * counts; graph_verify catches a count that is wrong. */
static void test_op_counts_and_move_all(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    module *from = graph_add_module(g, "main:fused0", NULL);
    module *to = graph_add_module(g, "main:fused1", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *outer = unary(m, "relu", x);
    module_add_return(m, &outer, 1);
    CHECK_INT(m->ops, 1);
    ins *p = module_add_param(from, "x0", &s);
    ins *a = unary(from, "relu", p);
    ins *b = unary(from, "neg", a);
    ins *ret = module_add_return(from, &b, 1);
    CHECK_INT(from->count, 4);
    CHECK_INT(from->ops, 2);
    module_remove(ret);
    module_remove(b);
    CHECK_INT(from->ops, 1);
    module_move_all(to, from);
    CHECK(from->first == NULL && from->last == NULL && from->count == 0 && from->ops == 0);
    CHECK(to->first == p && p->next == a && to->last == a && a->mod == to && p->mod == to);
    CHECK_INT(to->count, 2);
    CHECK_INT(to->ops, 1);
    CHECK(keys_increase(to));
    ins *c = unary(to, "exp", a);
    module_add_return(to, &c, 1);
    CHECK(ins_before(a, c) && keys_increase(to));
    CHECK(verifies(g));
    to->ops++;
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "ops");
    graph_free(g);
}

/* Every insert at one spot halves the key gap there; after ~60 of them the
 * module must relabel, and order must still be exact. */
static void test_order_keys_many_inserts_at_one_spot(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *end = unary(m, "relu", x);
    module_add_return(m, &end, 1);
    graft_error err = {0};
    const op_def *neg = op_find("neg");
    /* Always just before `end`: the gap below end shrinks. */
    ins *last = NULL;
    for (int k = 0; k < 5000; k++) {
        ins *n = module_insert(m, end, neg, NULL, 0, &x, 1, &err);
        CHECK(n != NULL);
        CHECK(last == NULL || ins_before(last, n));
        CHECK(ins_before(n, end));
        last = n;
    }
    /* Always just before the newest: the gap above x shrinks. */
    ins *pos = x->next;
    for (int k = 0; k < 5000; k++) {
        ins *n = module_insert(m, pos, neg, NULL, 0, &x, 1, &err);
        CHECK(n != NULL);
        CHECK(ins_before(x, n) && ins_before(n, pos));
        pos = n;
    }
    CHECK_INT(m->count, 10003);
    CHECK(keys_increase(m));
    CHECK(verifies(g));
    graph_free(g);
}

/* ins_before agrees with list order for random pairs after random inserts,
 * moves and removals. */
static void test_ins_before_matches_list_order(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    enum { N = 2000 };
    ins **all = malloc(N * sizeof *all);
    int n = 0;
    all[n++] = x;
    uint64_t rng = 12345;
    const op_def *neg = op_find("neg");
    graft_error err = {0};
    while (n < N) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        /* Anywhere after x (every instruction reads x); index n appends. */
        uint64_t at = 1 + (rng >> 33) % (uint64_t)n;
        ins *pos = at < (uint64_t)n ? all[at] : NULL;
        ins *i = module_insert(m, pos, neg, NULL, 0, &x, 1, &err);
        CHECK(i != NULL);
        if (!i)
            break;
        all[n++] = i;
    }
    for (int k = 0; k < 200; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        ins *i = all[1 + (rng >> 33) % (N - 1)];
        ins *j = all[1 + (rng >> 17) % (N - 1)];
        if (i != j)
            module_move_before(i, j);
    }
    CHECK(keys_increase(m));
    int mismatches = 0;
    for (int k = 0; k < 3000; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        ins *a = all[(rng >> 33) % N], *b = all[(rng >> 13) % N];
        bool by_list = list_position(a) < list_position(b);
        mismatches += ins_before(a, b) != by_list;
    }
    CHECK_INT(mismatches, 0);
    CHECK(verifies(g));
    free(all);
    graph_free(g);
}

static void test_verify_catches_bad_shape(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *r = unary(m, "relu", x);
    module_add_return(m, &r, 1);
    CHECK(verifies(g));
    r->sh.lens[0] = 7;
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "relu");
    CHECK_CONTAINS(err.message, "shape");
    graph_free(g);
}

static void test_verify_catches_operand_after_user(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = unary(m, "neg", a);
    module_add_return(m, &b, 1);
    module_move_before(b, a);
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "precede");
    graph_free(g);
}

static void test_verify_catches_dangling_user(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *y = module_add_param(m, "y", &s);
    ins *a = unary(m, "relu", x);
    module_add_return(m, &a, 1);
    /* Rewire behind the API's back: x still lists a as a user. */
    a->args[0] = y;
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "dangling");
    graph_free(g);
}

static void test_verify_catches_missing_user(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    module_add_return(m, &a, 1);
    x->nusers = 0; /* a uses x, but x does not know */
    graft_error err = {0};
    CHECK(!graph_verify(g, &err));
    CHECK_CONTAINS(err.message, "user");
    graph_free(g);
}

static void test_graph_sort_restores_order(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = unary(m, "neg", a);
    ins *c = binary(m, "add", a, b);
    ins *ret = module_add_return(m, &c, 1);
    module_move_before(c, x);
    module_move_before(b, c);
    CHECK(!graph_verify(g, NULL));
    graft_error err = {0};
    CHECK(graph_sort(g, &err));
    CHECK(m->first == x && x->next == a && a->next == b && b->next == c && c->next == ret);
    CHECK(m->last == ret);
    CHECK(keys_increase(m));
    CHECK(verifies(g));
    graph_free(g);
}

/* Instructions already in a valid order stay where they are. */
static void test_graph_sort_is_stable(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *y = module_add_param(m, "y", &s);
    ins *p = unary(m, "neg", y);
    ins *q = unary(m, "relu", x);
    ins *r = binary(m, "add", p, q);
    module_add_return(m, &r, 1);
    ins *before[6];
    int n = 0;
    for (ins *i = m->first; i; i = i->next)
        before[n++] = i;
    CHECK(graph_sort(g, NULL));
    int k = 0;
    for (ins *i = m->first; i && k < n; i = i->next, k++)
        CHECK(i == before[k]);
    CHECK_INT(k, 6);
    CHECK(verifies(g));
    graph_free(g);
}

static void test_graph_sort_finds_cycle(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *a = unary(m, "relu", x);
    ins *b = unary(m, "neg", a);
    module_add_return(m, &b, 1);
    ins_set_arg(a, 0, b);
    graft_error err = {0};
    CHECK(!graph_sort(g, &err));
    CHECK_CONTAINS(err.message, "cycle");
    graph_free(g);
}

static void test_deep_chain_sorts_without_recursion(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape s = float_2x3();
    ins *x = module_add_param(m, "x", &s);
    ins *prev = x;
    for (int k = 0; k < 200000 && prev; k++)
        prev = unary(m, (k & 1) ? "relu" : "neg", prev);
    CHECK(prev != NULL);
    module_add_return(m, &prev, 1);
    /* Move the param to the end: the sort must walk the whole chain. */
    module_move_before(x, m->last);
    graft_error err = {0};
    CHECK(graph_sort(g, &err));
    CHECK(m->first == x);
    CHECK(verifies(g));
    graph_free(g);
}

/* Shape rules run for a graph's instructions are counted in that graph:
 * building and ins_recompute_shape count (failed calls too), graph_verify
 * (which reads a const graph) does not, and another graph's count is its own. */
static void test_shape_calls_per_graph(void)
{
    graph *g = graph_new(), *h = graph_new();
    graft_error err = {0};
    module *m = graph_add_module(g, "main", &err), *n = graph_add_module(h, "main", &err);
    shape sh = float_2x3();
    ins *x = module_add_param(m, "x", &sh);
    ins *y = module_add_param(n, "y", &sh);
    CHECK_INT(g->shape_calls, 0);
    ins *r = unary(m, "relu", x);
    ins *args[] = {x, x};
    CHECK(module_add_op(m, "relu", NULL, 0, args, 2, &err) == NULL);
    CHECK_INT(g->shape_calls, 2);
    CHECK(r && ins_recompute_shape(r, &err));
    CHECK_INT(g->shape_calls, 3);
    CHECK(graph_verify(g, &err));
    CHECK_INT(g->shape_calls, 3);
    unary(n, "neg", y);
    CHECK_INT(h->shape_calls, 1);
    CHECK_INT(g->shape_calls, 3);
    graph_free(g);
    graph_free(h);
}

int main(void)
{
    RUN(test_builder);
    RUN(test_builder_errors);
    RUN(test_float_for_integer_attribute);
    RUN(test_literal_copies_data);
    RUN(test_insert_before);
    RUN(test_insert_with_modules);
    RUN(test_insert_with_modules_errors);
    RUN(test_replace_all_uses);
    RUN(test_replace_keeps_replacements_own_use);
    RUN(test_set_arg);
    RUN(test_remove);
    RUN(test_move);
    RUN(test_op_counts_and_move_all);
    RUN(test_order_keys_many_inserts_at_one_spot);
    RUN(test_ins_before_matches_list_order);
    RUN(test_verify_catches_bad_shape);
    RUN(test_verify_catches_operand_after_user);
    RUN(test_verify_catches_dangling_user);
    RUN(test_verify_catches_missing_user);
    RUN(test_graph_sort_restores_order);
    RUN(test_graph_sort_is_stable);
    RUN(test_graph_sort_finds_cycle);
    RUN(test_deep_chain_sorts_without_recursion);
    RUN(test_shape_calls_per_graph);
    return tests_finish();
}
