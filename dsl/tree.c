/* tree.c: turns checked rules into one decision tree per root op.
 *
 * Matching must not cost more per instruction as rules are added, so rules
 * are not tried one after another. Each rule (and each operand order of its
 * :c nodes, a "variant") becomes a sequence of tests on paths from the root
 * (op at r->args[0], operand count, single use, attribute values, equal
 * captures). Variants are inserted, in file order, into the tree of every
 * op their root can be, sharing a prefix of tests with earlier variants.
 * Ops to which exactly the same variants apply share one tree (a root), so a
 * <unary> rule makes one tree for the 37 unary ops, not 37 copies; a root
 * whose ops are exactly those a class test picks out (after the ops with
 * rules of their own) is reached by that one test instead of case labels.
 *
 * Two constraints, as in GCC's genmatch and ISLE's serializer:
 *   1. first match wins in file order: a variant is merged into an earlier
 *      subtree only across siblings that are mutually exclusive with it (tests
 *      of the same path for a different op, operand count or attribute
 *      value); a leaf is a barrier nothing moves across;
 *   2. tests of one path for different ops form runs that emit.c turns into a
 *      switch, so choosing among N operand ops costs one lookup, not N tests.
 */
#include "compile.h"

#include <stdio.h>
#include <string.h>

typedef struct builder {
    dsl_file *f;
    graft_error *err;
    dsl_variant *cur;
    dsl_test *tests;      /* scratch for the variant being built */
    int ntests, cap;
    bool failed;
} builder;

static bool path_equal(const dsl_path *a, const dsl_path *b)
{
    return a->depth == b->depth && memcmp(a->arg, b->arg, (size_t)a->depth) == 0;
}

void dsl_path_c(const dsl_path *p, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "r");
    for (int i = 0; i < p->depth && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "->args[%d]", p->arg[i]);
}

bool dsl_test_equal(const dsl_test *a, const dsl_test *b)
{
    if (a->kind != b->kind || !path_equal(&a->path, &b->path))
        return false;
    switch (a->kind) {
    case TEST_OP:
    case TEST_NOT_OP: return a->op == b->op;
    case TEST_CLASS:
    case TEST_NOT_CLASS: return a->classes == b->classes;
    case TEST_NARGS:
    case TEST_NARGS_MIN: return a->n == b->n;
    case TEST_ONCE: return true;
    case TEST_ATTR:
        return a->op == b->op && a->attr_index == b->attr_index && attr_value_equal(*a->lit, *b->lit);
    case TEST_SAME: return path_equal(&a->path2, &b->path2);
    case TEST_SAME_ATTR:
        return a->attr_index == b->attr_index && path_equal(&a->path2, &b->path2) &&
               a->attr_index2 == b->attr_index2;
    }
    return false;
}

/* True when no instruction can pass both tests. */
static bool exclusive(const dsl_test *a, const dsl_test *b)
{
    if (!path_equal(&a->path, &b->path))
        return false;
    if (a->kind == TEST_OP && b->kind == TEST_OP)
        return a->op != b->op;
    if (a->kind == TEST_NARGS && b->kind == TEST_NARGS)
        return a->n != b->n;
    if (a->kind == TEST_ATTR && b->kind == TEST_ATTR)
        return a->op == b->op && a->attr_index == b->attr_index && !attr_value_equal(*a->lit, *b->lit);
    return false;
}

static void push_test(builder *b, dsl_test t)
{
    if (b->ntests == b->cap) {
        int cap = b->cap ? b->cap * 2 : 32;
        dsl_test *n = dsl_alloc(b->f, sizeof *n * (size_t)cap);
        if (b->ntests)
            memcpy(n, b->tests, sizeof *n * (size_t)b->ntests);
        b->tests = n;
        b->cap = cap;
    }
    b->tests[b->ntests++] = t;
}

/* Index of the :c node in pre-order, for choosing a variant's swaps. */
static void count_commutative(const dsl_pattern *p, int *n)
{
    if (p->commutative)
        (*n)++;
    for (int i = 0; i < p->nargs; i++)
        count_commutative(p->args[i], n);
}

static int capture_index(const dsl_rule *r, const char *name)
{
    for (int i = 0; i < r->ncaptures; i++)
        if (strcmp(r->captures[i].name, name) == 0)
            return i;
    return -1;
}

/* Binds an instruction capture, or tests it equal to its first binding. */
static void bind_ins(builder *b, const char *name, const dsl_path *path, dsl_loc loc, bool *bound)
{
    const dsl_rule *r = b->cur->rule;
    int k = capture_index(r, name);
    if (k < 0)
        return;
    if (bound[k]) {
        dsl_test t = {.kind = TEST_SAME, .path = *path, .path2 = b->cur->bindings[k].path,
                      .loc = loc, .name = name};
        push_test(b, t);
        return;
    }
    bound[k] = true;
    b->cur->bindings[k].path = *path;
}

static bool walk(builder *b, const dsl_pattern *p, dsl_path path, unsigned swaps, int *cnode,
                 bool *bound, bool is_root)
{
    if (path.depth >= DSL_MAX_DEPTH) {
        b->failed = true;
        return dsl_error(b->err, b->f, p->loc, "pattern nests deeper than %d operands", DSL_MAX_DEPTH);
    }
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD) {
        if (p->once) {
            dsl_test t = {.kind = TEST_ONCE, .path = path, .loc = p->loc};
            push_test(b, t);
        }
        if (p->kind == PAT_CAPTURE)
            bind_ins(b, p->name, &path, p->loc, bound);
        if (p->bind)
            bind_ins(b, p->bind, &path, p->bind_loc, bound);
        return true;
    }
    if (!is_root) {
        dsl_test t = {.path = path, .loc = p->loc};
        if (p->kind == PAT_OP) {
            t.kind = p->negated ? TEST_NOT_OP : TEST_OP;
            t.op = p->op;
        } else {
            t.kind = p->negated ? TEST_NOT_CLASS : TEST_CLASS;
            t.classes = p->classes;
        }
        push_test(b, t);
    }
    /* At the root, the switch on the root's op (emit.c) has already chosen
     * among the ops this pattern's op or class allows. */
    if (p->has_args) {
        dsl_test t = {.kind = p->rest ? TEST_NARGS_MIN : TEST_NARGS, .path = path, .n = p->nargs,
                      .loc = p->loc};
        push_test(b, t);
    }
    if (p->once) {
        dsl_test t = {.kind = TEST_ONCE, .path = path, .loc = p->loc};
        push_test(b, t);
    }
    const dsl_rule *r = b->cur->rule;
    for (const dsl_attr_pat *a = p->attrs; a; a = a->next) {
        if (!a->bind) {
            dsl_test t = {.kind = TEST_ATTR, .path = path, .op = p->attr_op, .attr_index = a->index,
                          .lit = &a->lit, .loc = a->loc, .name = a->key};
            push_test(b, t);
            continue;
        }
        int k = capture_index(r, a->bind);
        if (bound[k]) {
            dsl_test t = {.kind = TEST_SAME_ATTR, .path = path, .op = p->attr_op, .attr_index = a->index,
                          .path2 = b->cur->bindings[k].path, .op2 = b->cur->bindings[k].op,
                          .attr_index2 = b->cur->bindings[k].attr_index, .loc = a->loc,
                          .name = a->bind};
            push_test(b, t);
        } else {
            bound[k] = true;
            b->cur->bindings[k].path = path;
            b->cur->bindings[k].op = p->attr_op;
            b->cur->bindings[k].attr_index = a->index;
        }
    }
    if (p->bind)
        bind_ins(b, p->bind, &path, p->bind_loc, bound);
    bool swap = false;
    if (p->commutative) {
        swap = (swaps >> *cnode) & 1u;
        (*cnode)++;
    }
    for (int i = 0; i < p->nargs; i++) {
        dsl_path child = path;
        int at = swap && i < 2 ? 1 - i : i;
        child.arg[child.depth++] = (unsigned char)at;
        if (!walk(b, p->args[i], child, swaps, cnode, bound, false))
            return false;
    }
    if (p->rest) {
        int k = capture_index(r, p->rest);
        bound[k] = true;
        b->cur->bindings[k].path = path;
        b->cur->bindings[k].rest_start = p->nargs;
    }
    return true;
}

static dsl_variant *make_variant(builder *b, const dsl_rule *r, unsigned swaps, int number)
{
    dsl_variant *v = dsl_alloc(b->f, sizeof *v);
    v->rule = r;
    v->number = number;
    v->bindings = dsl_alloc(b->f, sizeof(dsl_binding) * (size_t)(r->ncaptures + 1));
    b->cur = v;
    b->ntests = 0;
    bool bound[64] = {false};
    int cnode = 0;
    dsl_path root = {0, {0}};
    if (!walk(b, r->pattern, root, swaps, &cnode, bound, true))
        return NULL;
    v->ntests = b->ntests;
    v->tests = dsl_alloc(b->f, sizeof(dsl_test) * (size_t)(b->ntests + 1));
    if (b->ntests)
        memcpy(v->tests, b->tests, sizeof(dsl_test) * (size_t)b->ntests);
    return v;
}

static dsl_titem *push_item(dsl_file *f, dsl_tnode *n)
{
    if (n->nitems == n->cap) {
        int cap = n->cap ? n->cap * 2 : 4;
        dsl_titem *items = dsl_alloc(f, sizeof *items * (size_t)cap);
        if (n->nitems)
            memcpy(items, n->items, sizeof *items * (size_t)n->nitems);
        n->items = items;
        n->cap = cap;
    }
    dsl_titem *it = &n->items[n->nitems++];
    memset(it, 0, sizeof *it);
    return it;
}

static void insert(dsl_file *f, dsl_tnode *node, const dsl_variant *v, int at)
{
    while (at < v->ntests) {
        const dsl_test *t = &v->tests[at];
        dsl_tnode *into = NULL;
        for (int i = node->nitems - 1; i >= 0; i--) {
            const dsl_titem *it = &node->items[i];
            if (it->leaf)
                break;
            if (dsl_test_equal(&it->child->test, t)) {
                into = it->child;
                break;
            }
            if (!exclusive(&it->child->test, t))
                break;
        }
        if (!into) {
            dsl_titem *it = push_item(f, node);
            it->child = dsl_alloc(f, sizeof(dsl_tnode));
            it->child->test = *t;
            into = it->child;
        }
        node = into;
        at++;
    }
    push_item(f, node)->leaf = v;
}

/* ---- roots ---- */

/* Whether op can be at the root of rule r. */
static bool root_matches(const dsl_pattern *p, const op_def *op)
{
    if (p->kind == PAT_OP)
        return p->op == op;
    if (op->classes & (OPC_BUILTIN | OPC_OPAQUE))
        return false;
    return (op->classes & p->classes) != 0;
}

/* A root being built: the variants that apply to its ops, by index. */
typedef struct group {
    int *variants;
    int nvariants;
    bool specific;       /* some variant's root is an op, not a class */
} group;

static bool class_test_holds(const dsl_root *root, const op_def *op)
{
    for (int m = 0; m < root->nmasks; m++)
        if ((op->classes & root->masks[m]) == 0)
            return false;
    return true;
}

/* The class root the class tests route op to, in test order; -1 if none. */
static int routed_to(const dsl_trees *t, const int *order, int norder, const op_def *op)
{
    for (int k = 0; k < norder; k++)
        if (t->roots[order[k]].by_class && class_test_holds(&t->roots[order[k]], op))
            return order[k];
    return -1;
}

/* Checks the class tests against every op of the table (and the opaque
 * def): an op that is a case label never reaches them; any other op must be
 * routed to its own root, or to none when no rule applies to it. Returns a
 * root that must become case labels to fix a misrouting, or -1 when every
 * op is routed right. */
static int misrouted(const dsl_trees *t, const int *order, int norder, const int *root_of,
                     const op_def *const *ops, int nops)
{
    for (int k = 0; k <= nops; k++) {
        const op_def *op = k < nops ? ops[k] : op_opaque();
        int own = k < nops ? root_of[k] : -1;
        if (own >= 0 && !t->roots[own].by_class)
            continue;
        int got = routed_to(t, order, norder, op);
        if (got != own)
            return got >= 0 ? got : own;
    }
    return -1;
}

/* Groups the ops by the list of variants that apply to them, decides which
 * groups a class test can reach, and inserts each group's variants into its
 * tree once. */
static bool build_roots(dsl_file *f, dsl_trees *t)
{
    int nops;
    const op_def *const *ops = op_all(&nops);
    group *groups = dsl_alloc(f, sizeof(group) * (size_t)(nops + 1));
    int *root_of = dsl_alloc(f, sizeof(int) * (size_t)(nops + 1));
    int *scratch = dsl_alloc(f, sizeof(int) * (size_t)(t->nvariants + 1));
    t->roots = dsl_alloc(f, sizeof(dsl_root) * (size_t)(nops + 1));
    t->nroots = 0;
    for (int k = 0; k < nops; k++) {
        int n = 0;
        for (int i = 0; i < t->nvariants; i++)
            if (root_matches(t->variants[i]->rule->pattern, ops[k]))
                scratch[n++] = i;
        root_of[k] = -1;
        if (n == 0)
            continue;
        int g = 0;
        while (g < t->nroots &&
               (groups[g].nvariants != n || memcmp(groups[g].variants, scratch, sizeof(int) * (size_t)n) != 0))
            g++;
        if (g == t->nroots) {
            groups[g].variants = dsl_alloc(f, sizeof(int) * (size_t)n);
            memcpy(groups[g].variants, scratch, sizeof(int) * (size_t)n);
            groups[g].nvariants = n;
            groups[g].specific = false;
            dsl_root *root = &t->roots[g];
            memset(root, 0, sizeof *root);
            root->ops = dsl_alloc(f, sizeof(const op_def *) * (size_t)nops);
            root->nvariants = n;
            root->masks = dsl_alloc(f, sizeof(unsigned) * (size_t)n);
            for (int i = 0; i < n; i++) {
                const dsl_pattern *p = t->variants[scratch[i]]->rule->pattern;
                if (p->kind == PAT_OP) {
                    groups[g].specific = true;
                    continue;
                }
                bool dup = false;
                for (int m = 0; m < root->nmasks; m++)
                    dup = dup || root->masks[m] == p->classes;
                if (!dup)
                    root->masks[root->nmasks++] = p->classes;
            }
            root->by_class = !groups[g].specific;
            t->nroots++;
        }
        t->roots[g].ops[t->roots[g].nops++] = ops[k];
        root_of[k] = g;
    }

    /* Test order of the class roots: more variants first. An op every test
     * of a root passes matches every class rule of that root, so its own
     * list contains that root's list: testing longer lists first routes it
     * to its own. misrouted() checks the result anyway. */
    int *order = dsl_alloc(f, sizeof(int) * (size_t)(t->nroots + 1));
    int norder = 0;
    for (int g = 0; g < t->nroots; g++) {
        int at = norder++;
        while (at > 0 && t->roots[order[at - 1]].nvariants < t->roots[g].nvariants) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = g;
    }
    for (int bad; (bad = misrouted(t, order, norder, root_of, ops, nops)) >= 0;)
        t->roots[bad].by_class = false;
    /* Fewer tests where they still route every op right: <unary> rules next
     * to <pointwise> ones need only the unary test. */
    for (int g = 0; g < t->nroots; g++) {
        dsl_root *root = &t->roots[g];
        for (int m = 0; root->by_class && m < root->nmasks && root->nmasks > 1;) {
            unsigned dropped = root->masks[m];
            root->masks[m] = root->masks[root->nmasks - 1];
            root->nmasks--;
            if (misrouted(t, order, norder, root_of, ops, nops) < 0)
                continue;
            root->masks[root->nmasks++] = root->masks[m];
            root->masks[m] = dropped;
            m++;
        }
    }

    for (int g = 0; g < t->nroots; g++)
        for (int i = 0; i < groups[g].nvariants; i++)
            insert(f, &t->roots[g].tree, t->variants[groups[g].variants[i]], 0);

    /* Case-label roots first (op-table order), then class roots in test order. */
    dsl_root *sorted = dsl_alloc(f, sizeof(dsl_root) * (size_t)(t->nroots + 1));
    int n = 0;
    for (int g = 0; g < t->nroots; g++)
        if (!t->roots[g].by_class)
            sorted[n++] = t->roots[g];
    for (int k = 0; k < norder; k++)
        if (t->roots[order[k]].by_class)
            sorted[n++] = t->roots[order[k]];
    t->roots = sorted;
    return true;
}

dsl_trees *dsl_build_trees(dsl_file *f, graft_error *err)
{
    builder b = {.f = f, .err = err};
    dsl_trees *t = dsl_alloc(f, sizeof *t);
    int cap = 16;
    t->variants = dsl_alloc(f, sizeof(dsl_variant *) * (size_t)cap);
    for (int i = 0; i < f->nrules; i++) {
        const dsl_rule *r = f->rules[i];
        int ncomm = 0;
        count_commutative(r->pattern, &ncomm);
        if (ncomm > 4)
            return dsl_error(err, f, r->loc, "rule '%s' has %d ':c' markers (at most 4)", r->name, ncomm),
                   NULL;
        for (unsigned swaps = 0; swaps < (1u << ncomm); swaps++) {
            dsl_variant *v = make_variant(&b, r, swaps, (int)swaps);
            if (!v)
                return NULL;
            if (t->nvariants == cap) {
                cap *= 2;
                dsl_variant **n = dsl_alloc(f, sizeof *n * (size_t)cap);
                memcpy(n, t->variants, sizeof *n * (size_t)t->nvariants);
                t->variants = n;
            }
            t->variants[t->nvariants++] = v;
        }
    }
    if (!build_roots(f, t))
        return NULL;
    return t;
}
