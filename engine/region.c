/* region.c: outlining instructions into a fused region (see region.h). */
#include "region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int index_of(ins *const *list, int n, const ins *x)
{
    for (int k = 0; k < n; k++)
        if (list[k] == x)
            return k;
    return -1;
}

/* Whether an instruction of module m can be copied into a region body. */
static bool copyable(const ins *i, const module *m)
{
    if (i->mod != m || (i->flags & INS_REMOVED) || i->nmods || shape_is_tuple(&i->sh))
        return false;
    if (i->op->classes & OPC_OPAQUE)
        return false;
    if (i->op->classes & OPC_BUILTIN)
        return ins_is(i, "@literal");
    return true;
}

void region_plan_free(region_plan *p)
{
    free(p->members);
    free(p->inputs);
    memset(p, 0, sizeof *p);
}

bool region_plan_members(region_plan *p, ins *before, ins *const *members, int nmembers,
                         ins *const *outputs, int noutputs)
{
    memset(p, 0, sizeof *p);
    if (!before || nmembers < 1 || noutputs < 1 || !members || !outputs)
        return false;
    module *mod = before->mod;
    /* Members: distinct, copyable, in program order. */
    ins **set = malloc((size_t)nmembers * sizeof *set);
    int n = 0, total_args = 0;
    bool ok = set != NULL;
    for (int k = 0; ok && k < nmembers; k++) {
        ok = members[k] && copyable(members[k], mod);
        if (ok && index_of(set, n, members[k]) < 0) {
            int at = n++;
            while (at > 0 && ins_before(members[k], set[at - 1])) {
                set[at] = set[at - 1];
                at--;
            }
            set[at] = members[k];
            total_args += members[k]->nargs;
        }
    }
    for (int k = 0; ok && k < noutputs; k++)
        ok = outputs[k] && index_of(set, n, outputs[k]) >= 0;
    /* Inputs: operands from outside, deduplicated, in order of first use. */
    ins **inputs = ok ? malloc((size_t)(total_args ? total_args : 1) * sizeof *inputs) : NULL;
    int ninputs = 0;
    ok = ok && inputs;
    for (int k = 0; ok && k < n; k++)
        for (int a = 0; a < set[k]->nargs; a++) {
            ins *x = set[k]->args[a];
            if (index_of(set, n, x) < 0 && index_of(inputs, ninputs, x) < 0)
                inputs[ninputs++] = x;
        }
    /* Position: before `before` and every outside user of an output. */
    ins *pos = before;
    bool used_outside = false;
    for (int k = 0; ok && k < noutputs; k++)
        for (int u = 0; u < outputs[k]->nusers; u++) {
            ins *user = outputs[k]->users[u];
            if (index_of(set, n, user) >= 0)
                continue;
            used_outside = true;
            if (ins_before(user, pos))
                pos = user;
        }
    ok = ok && used_outside;
    for (int k = 0; ok && k < ninputs; k++)
        ok = ins_before(inputs[k], pos);
    if (!ok) {
        free(set);
        free(inputs);
        return false;
    }
    *p = (region_plan){mod, set, n, inputs, ninputs, outputs, noutputs, pos};
    return true;
}

module *region_add_body_module(graph *g, const module *parent, int *next_index)
{
    for (int tries = 0; tries < 1000000; tries++) {
        char name[512];
        snprintf(name, sizeof name, "%s:fused%d", parent->name, (*next_index)++);
        graft_error e;
        module *m = graph_add_module(g, name, &e); /* NULL when the name is taken */
        if (m || !graph_find_module(g, name))
            return m; /* made, or out of memory */
    }
    return NULL;
}

/* Copies the members (program order) into body, reading inputs[k] as x<k>,
 * and returns the outputs' copies. */
static bool fill_body(const region_plan *p, module *body)
{
    int max_args = 1;
    for (int k = 0; k < p->nmembers; k++)
        max_args = p->members[k]->nargs > max_args ? p->members[k]->nargs : max_args;
    ins **params = malloc((size_t)(p->ninputs ? p->ninputs : 1) * sizeof *params);
    ins **copies = malloc((size_t)p->nmembers * sizeof *copies);
    ins **args = malloc((size_t)max_args * sizeof *args);
    ins **rets = malloc((size_t)p->noutputs * sizeof *rets);
    bool ok = params && copies && args && rets;
    for (int k = 0; ok && k < p->ninputs; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        ok = (params[k] = module_add_param(body, name, &p->inputs[k]->sh)) != NULL;
    }
    for (int k = 0; ok && k < p->nmembers; k++) {
        const ins *m = p->members[k];
        if (ins_is(m, "@literal")) {
            ok = (copies[k] = module_add_literal(body, &m->sh, m->data)) != NULL;
            continue;
        }
        for (int a = 0; a < m->nargs; a++) {
            int j = index_of(p->members, p->nmembers, m->args[a]);
            args[a] = j >= 0 ? copies[j] : params[index_of(p->inputs, p->ninputs, m->args[a])];
        }
        graft_error e;
        ok = (copies[k] = module_add(body, m->op, m->attrs, m->nattrs, args, m->nargs, &e));
        ok = ok && shape_equal(&copies[k]->sh, &m->sh);
    }
    for (int k = 0; ok && k < p->noutputs; k++)
        rets[k] = copies[index_of(p->members, p->nmembers, p->outputs[k])];
    ok = ok && module_add_return(body, rets, p->noutputs);
    free(rets);
    free(args);
    free(copies);
    free(params);
    return ok;
}

ins *region_insert(module *mod, ins *pos, ins *const *inputs, int ninputs, module *body,
                   int noutputs, ins **replacements)
{
    const op_def *fused = op_find("fused");
    graft_error e;
    ins *region = fused ? module_insert_with_modules(mod, pos, fused, NULL, 0, inputs, ninputs,
                                                     &body, 1, &e)
                        : NULL;
    if (!region)
        return NULL;
    if (noutputs == 1) {
        replacements[0] = region;
        return region;
    }
    const op_def *get = op_find("get_tuple_elem");
    for (int k = 0; k < noutputs; k++) {
        attr index = {"index", {.kind = ATTR_INT, .u.i = k}};
        ins *elem = get ? module_insert(mod, pos, get, &index, 1, &region, 1, &e) : NULL;
        if (!elem) {
            while (k-- > 0)
                module_remove(replacements[k]);
            module_remove(region);
            return NULL;
        }
        replacements[k] = elem;
    }
    return region;
}

ins *region_outline(const region_plan *p, module *body, ins **replacements)
{
    if (!fill_body(p, body))
        return NULL;
    return region_insert(p->mod, p->pos, p->inputs, p->ninputs, body, p->noutputs, replacements);
}

void region_take_over_uses(ins *const *members, int nmembers, ins *const *outputs,
                           ins *const *replacements, int noutputs)
{
    for (int k = 0; k < noutputs; k++) {
        ins *old = outputs[k], *rep = replacements[k];
        for (int u = 0; u < old->nusers;) {
            ins *user = old->users[u];
            if (user == rep || index_of(members, nmembers, user) >= 0) {
                u++;
                continue;
            }
            ins_set_arg(user, old->user_slot[u], rep); /* moves another use into slot u */
        }
    }
}
