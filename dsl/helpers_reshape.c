/* helpers_reshape.c: common dims of two shapes related by a reshape, and the
 * rule helpers that move pointwise ops and reductions into them.
 *
 * rules/reshape.rules moves a pointwise op across a reshape by running it in
 * the common dims of the reshape's two sides (see helpers_reshape.h). The
 * rules need three answers, each computed here from one walk over the two
 * lens lists: the common dims themselves (common_dims), how a broadcast
 * operand looks in them (view_in_common: the lens to reshape the broadcast's
 * operand to before broadcasting it to the common dims), and where a
 * reduction's axes go (axes_in_common, splits_reduced_axes). Every helper
 * refuses what it cannot express, and the rule then does not fire.
 */
#include "helpers_reshape.h"
#include "helpers_views.h"

#include "ir.h"

#include <string.h>

/* ---- the common dims ---- */

static bool push_axis(common_dims *out, int64_t len, int from_a, int from_b)
{
    if (out->rank >= SHAPE_MAX_RANK)
        return false;
    out->lens[out->rank] = len;
    out->from_a[out->rank] = from_a;
    out->from_b[out->rank] = from_b;
    out->rank++;
    return true;
}

/* Walks both lists at once. ra and rb are what is left of a[i] and b[j]
 * after the parts already emitted; an axis is started when part of it has
 * been emitted (ra < a[i]). Length-1 axes are emitted as they come; two
 * non-1 remainders emit the smaller, which must divide the larger (the
 * prefix products of the common dims form a chain under divisibility, so
 * there is no other choice). */
bool common_dims_of(const int64_t *a, int na, const int64_t *b, int nb, common_dims *out)
{
    memset(out, 0, sizeof *out);
    if (na < 0 || nb < 0)
        return false;
    for (int k = 0; k < na; k++)
        if (a[k] < 1)
            return false;
    for (int k = 0; k < nb; k++)
        if (b[k] < 1)
            return false;
    int i = 0, j = 0;
    int64_t ra = na > 0 ? a[0] : 0, rb = nb > 0 ? b[0] : 0;
    while (i < na || j < nb) {
        bool a_one = i < na && a[i] == 1, b_one = j < nb && b[j] == 1;
        if (a_one || b_one) {
            int fa = a_one || (i < na && ra != a[i]) ? i : -1;
            int fb = b_one || (j < nb && rb != b[j]) ? j : -1;
            if (!push_axis(out, 1, fa, fb))
                return false;
            if (a_one)
                ra = ++i < na ? a[i] : 0;
            if (b_one)
                rb = ++j < nb ? b[j] : 0;
            continue;
        }
        if (i >= na || j >= nb)
            return false;
        int64_t part = ra < rb ? ra : rb, whole = ra < rb ? rb : ra;
        if (whole % part != 0 || !push_axis(out, part, i, j))
            return false;
        ra /= part;
        rb /= part;
        if (ra == 1)
            ra = ++i < na ? a[i] : 0;
        if (rb == 1)
            rb = ++j < nb ? b[j] : 0;
    }
    return true;
}

bool refines(const int64_t *c, int nc, const int64_t *lens, int nlens)
{
    common_dims cd;
    if (!common_dims_of(lens, nlens, c, nc, &cd) || cd.rank != nc)
        return false;
    for (int k = 0; k < nc; k++)
        if (cd.lens[k] != c[k])
            return false;
    return true;
}

bool ints_have_zero(const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] == 0)
            return true;
    return false;
}

/* ---- rule values ---- */

bool ints_result(arena *mem, const int64_t *v, int n, rule_value *out)
{
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!r)
        return false;
    memcpy(r, v, sizeof(int64_t) * (size_t)n);
    rule_value x = {RV_INTS, n, {.ints = r}};
    *out = x;
    return true;
}

/* mark_axes: see helpers_reshape.h. */
bool mark_axes(const int64_t *axes, int naxes, int rank, bool *in)
{
    for (int k = 0; k < rank; k++)
        in[k] = false;
    for (int k = 0; k < naxes; k++) {
        int64_t ax = axes[k] < 0 ? axes[k] + rank : axes[k];
        if (ax < 0 || ax >= rank)
            return false;
        in[ax] = true;
    }
    return true;
}

/* ---- helpers ---- */

bool helper_common_dims(arena *mem, const rule_value *args, int nargs, rule_value *out)
{
    (void)nargs;
    common_dims cd;
    if (!common_dims_of(args[0].u.ints, args[0].n, args[1].u.ints, args[1].n, &cd))
        return false;
    return ints_result(mem, cd.lens, cd.rank, out);
}

/* Which axes of m's result are broadcast (not read from k's own axes). */
static bool broadcast_axes(const ins *m, bool *bcast)
{
    const shape *ms = &m->sh, *ks = &m->args[0]->sh;
    int first;
    if (strcmp(m->opname, "multibroadcast") == 0) {
        first = ms->rank - ks->rank; /* k's axes align with the last ones */
    } else if (strcmp(m->opname, "broadcast") == 0) {
        const attr_value *axis = ins_attr(m, "axis");
        if (!axis || axis->kind != ATTR_INT)
            return false;
        first = (int)axis->u.i;
    } else {
        return false;
    }
    if (first < 0 || first + ks->rank > ms->rank)
        return false;
    for (int d = 0; d < ms->rank; d++) {
        if (d < first || d >= first + ks->rank) {
            bcast[d] = true;
            continue;
        }
        int64_t kl = ks->lens[d - first];
        if (kl != 1 && kl != ms->lens[d])
            return false;
        bcast[d] = kl == 1;
    }
    return true;
}

static bool view_in_common(arena *mem, const rule_value *args, bool own, rule_value *out);

bool helper_view_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out)
{
    (void)nargs;
    return view_in_common(mem, args, false, out);
}

bool helper_own_view_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out)
{
    (void)nargs;
    return view_in_common(mem, args, true, out);
}

static bool view_in_common(arena *mem, const rule_value *args, bool own, rule_value *out)
{
    const ins *m = args[0].u.in;
    const int64_t *c = args[1].u.ints;
    int nc = args[1].n;
    if (!m || m->nargs != 1 || !shape_standard_p(&m->args[0]->sh) || m->sh.rank > SHAPE_MAX_RANK)
        return false;
    /* a broadcast of one element is a view in any lens c: k reshaped to
     * 1s of c's rank, as reshape_of_multibroadcast spells a reshape of the
     * broadcast to c (broadcast_view_lens), so that a binary op of it run
     * in c reads the same broadcast whichever rule put it there (seed
     * 1027427: sub(reshape(s), reshape(reshape(mb[{6}](p2)))) of a {1} p2
     * ended as sub(s, mb(p2)) where binary_above_reshape_unit_first fired
     * and as sub(s, mb(reshape[{1, 1}](p2))) where reshape_of_multibroadcast
     * had made the reshape of the broadcast one first; also 1028642,
     * 1007248). With `own` (own_view_in_common): the lens of the value of
     * c's rank below k's shape ops of one element (unit_shape_chain_base),
     * else k's own lens where they fit c's rank, else {1}, for binary_above_unit_reshape_under_multibroadcast_*,
     * whose broadcast the multibroadcast below must take as it is
     * (multibroadcast_of_unit_reshape drops no reshape of one element) */
    int64_t celements = 1;
    for (int k = 0; k < nc; k++)
        celements *= c[k];
    if (shape_elements(&m->args[0]->sh) == 1 && shape_elements(&m->sh) > 1 && celements == shape_elements(&m->sh)) {
        const shape *k1 = &m->args[0]->sh;
        /* through a chain of shape ops of one element over a value of
         * c's rank (unit_shape_chain_base): the reshape to its lens
         * composes with the chain and goes, as binary_above_reshape_unit_*
         * spell the same move once the chain stands between (seed 4012391:
         * max(mb(squeeze(p6)), squeeze(p4)) of a {1, 1} p6 kept
         * mb(reshape[{1}](p6)) where this rule fired first, and
         * mb(p6) where binary_above_reshape_unit_second did) */
        const ins *k0 = own ? unit_shape_chain_base(m->args[0], nc) : NULL;
        if (k0)
            return ints_result(mem, k0->sh.lens, k0->sh.rank, out);
        if (own && k1->rank <= nc)
            return ints_result(mem, k1->lens, k1->rank, out);
        if (own)
            return ints_result(mem, (const int64_t[]){1}, 1, out);
        int64_t ones[SHAPE_MAX_RANK];
        if (nc > SHAPE_MAX_RANK || nc < 1)
            return false;
        for (int k = 0; k < nc; k++)
            ones[k] = 1;
        return ints_result(mem, ones, nc, out);
    }
    bool bcast[SHAPE_MAX_RANK];
    if (!broadcast_axes(m, bcast))
        return false;
    common_dims cd;
    if (!refines(c, nc, m->sh.lens, m->sh.rank) ||
        !common_dims_of(m->sh.lens, m->sh.rank, c, nc, &cd))
        return false;
    int64_t kc[SHAPE_MAX_RANK], elements = 1;
    for (int k = 0; k < nc; k++) {
        kc[k] = cd.from_a[k] < 0 || bcast[cd.from_a[k]] ? 1 : c[k];
        elements *= kc[k];
    }
    if (elements != shape_elements(&m->args[0]->sh))
        return false;
    /* multibroadcast aligns the last axes: leading 1s are not needed. */
    int lead = 0;
    while (lead < nc - 1 && kc[lead] == 1)
        lead++;
    /* ... and where k's own lens are kc but for leading 1s, they are kc:
     * the reshape of k to them is no reshape (it folds), not one view more */
    const shape *k = &m->args[0]->sh;
    int extra = k->rank - (nc - lead);
    bool same = extra >= 0 && k->rank <= nc;
    for (int i = 0; same && i < k->rank; i++)
        same = i < extra ? k->lens[i] == 1 : k->lens[i] == kc[lead + i - extra];
    if (same)
        return ints_result(mem, k->lens, k->rank, out);
    return ints_result(mem, kc + lead, nc - lead, out);
}

bool helper_axes_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out)
{
    (void)nargs;
    const int64_t *lens = args[0].u.ints, *c = args[2].u.ints;
    int nlens = args[0].n, nc = args[2].n;
    if (nlens > SHAPE_MAX_RANK)
        return false;
    bool reduced[SHAPE_MAX_RANK];
    common_dims cd;
    if (!mark_axes(args[1].u.ints, args[1].n, nlens, reduced) || !refines(c, nc, lens, nlens) ||
        !common_dims_of(lens, nlens, c, nc, &cd))
        return false;
    int64_t axes[SHAPE_MAX_RANK];
    int n = 0;
    for (int k = 0; k < cd.rank; k++)
        if (cd.from_a[k] >= 0 && reduced[cd.from_a[k]])
            axes[n++] = k;
    return ints_result(mem, axes, n, out);
}

bool helper_splits_reduced_axes(arena *mem, const rule_value *args, int nargs, rule_value *out)
{
    (void)mem, (void)nargs;
    const int64_t *in = args[0].u.ints, *o = args[1].u.ints;
    int nin = args[0].n, nout = args[1].n;
    bool reduced[SHAPE_MAX_RANK];
    common_dims cd;
    if (nout > SHAPE_MAX_RANK || !mark_axes(args[2].u.ints, args[2].n, nout, reduced))
        return false;
    if (!common_dims_of(in, nin, o, nout, &cd)) {
        *out = rule_bool(false);
        return true;
    }
    bool split = false;
    for (int i = 0; i < nin && !split; i++) {
        bool some = false, all = true;
        for (int k = 0; k < cd.rank; k++) {
            if (cd.from_a[k] != i || cd.lens[k] == 1)
                continue;
            bool r = cd.from_b[k] >= 0 && reduced[cd.from_b[k]];
            some = some || r;
            all = all && r;
        }
        split = some && !all;
    }
    *out = rule_bool(split);
    return true;
}

/* reduce_axes_map: see helpers_reshape.h. A reshape from in_lens to
 * out_lens splits and merges groups of axes (a group is a run of axes on
 * each side with equal products, cut as finely as possible). */
bool reduce_axes_map(const int64_t *in, int nin, const int64_t *o, int nout, const int64_t *axes, int naxes,
                     int64_t *r, int *nr_out)
{
    if (nin > SHAPE_MAX_RANK || nout > SHAPE_MAX_RANK)
        return false;
    bool reduced[SHAPE_MAX_RANK];
    if (!mark_axes(axes, naxes, nout, reduced))
        return false;
    int nr = 0, i = 0, j = 0;
    while (i < nin || j < nout) {
        /* Length-1 axes form groups of their own. */
        if (i < nin && in[i] == 1 && (j >= nout || o[j] != 1)) {
            i++;
            continue;
        }
        if (j < nout && o[j] == 1 && (i >= nin || in[i] != 1)) {
            j++;
            continue;
        }
        if (i >= nin || j >= nout)
            return false;
        int i0 = i, j0 = j;
        int64_t pi = in[i++], po = o[j++];
        while (pi != po) {
            if (pi < po) {
                if (i >= nin)
                    return false;
                pi *= in[i++];
            } else {
                if (j >= nout)
                    return false;
                po *= o[j++];
            }
        }
        int nred = 0;
        for (int k = j0; k < j; k++)
            nred += reduced[k] && o[k] != 1;
        int nbig = 0;
        for (int k = j0; k < j; k++)
            nbig += o[k] != 1;
        if (nred != 0 && nred != nbig)
            return false;
        if (nred)
            for (int k = i0; k < i; k++)
                r[nr++] = k;
    }
    *nr_out = nr;
    return true;
}
