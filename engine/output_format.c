/* output_format.c: a memory format asked for at the graph's outputs (see
 * output_format.h). */
#include "output_format.h"

#include <stdlib.h>
#include <string.h>

bool output_format_parse(const char *text, output_format *out, graft_error *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(text, "standard") == 0) {
        out->standard = true;
        return true;
    }
    const char *s = text;
    bool seen[SHAPE_MAX_RANK] = {false};
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v >= SHAPE_MAX_RANK || out->rank == SHAPE_MAX_RANK)
            return error_set(err, "output format '%s': expected 'standard' or a permutation "
                                  "of axes such as 0,2,3,1", text);
        out->perm[out->rank++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return error_set(err, "output format '%s': expected 'standard' or a permutation "
                                  "of axes such as 0,2,3,1", text);
    }
    for (int k = 0; k < out->rank; k++) {
        if (out->perm[k] >= out->rank || seen[out->perm[k]])
            return error_set(err, "output format '%s' is not a permutation of %d axes", text,
                             out->rank);
        seen[out->perm[k]] = true;
    }
    if (!out->rank)
        return error_set(err, "output format '%s': empty", text);
    return true;
}

/* Whether sh is already laid out in the order perm asks for (axes of length
 * 1 and broadcast outputs, whose order is free, count as laid out). */
static bool laid_out(const shape *sh, const int64_t *perm)
{
    int order[SHAPE_MAX_RANK];
    for (int k = 0; k < sh->rank; k++)
        order[k] = (int)perm[k];
    shape want = shape_from_permutation(sh->type, sh->rank, sh->lens, order);
    for (int d = 0; d < sh->rank; d++)
        if (sh->lens[d] > 1 && sh->strides[d] != want.strides[d])
            return false;
    return true;
}

bool graph_request_output_format(graph *g, const output_format *f, int *changed, graft_error *err)
{
    if (changed)
        *changed = 0;
    module *m = graph_main(g);
    ins *ret = NULL;
    for (ins *i = m ? m->first : NULL; i; i = i->next)
        if (ins_is(i, "@return"))
            ret = i;
    if (!ret)
        return true;
    const op_def *layout = op_find("layout");
    if (!layout)
        return error_set(err, "this graft has no layout op");
    for (int k = 0; k < ret->nargs; k++) {
        ins *v = ret->args[k];
        if (shape_is_tuple(&v->sh) || v->sh.rank == 0)
            continue;
        int64_t perm[SHAPE_MAX_RANK];
        if (f->standard) {
            for (int d = 0; d < v->sh.rank; d++)
                perm[d] = d;
        } else if (f->rank == v->sh.rank) {
            memcpy(perm, f->perm, sizeof perm);
        } else {
            continue;
        }
        if (laid_out(&v->sh, perm))
            continue;
        attr a = {"permutation", attr_ints(perm, v->sh.rank)};
        ins *l = module_insert(m, ret, layout, &a, 1, &v, 1, err);
        if (!l)
            return false;
        ins_set_arg(ret, k, l);
        if (changed)
            (*changed)++;
    }
    return true;
}
