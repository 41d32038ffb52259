/* onnx_ops_einsum.c: Einsum as a graph of existing ops.
 *
 * Each axis of each operand carries a label: a letter, or one of the
 * ellipsis' axes (aligned from the right across operands, so "...ij" and
 * "...j" share their leading axes as numpy broadcasting does). Without "->"
 * the output is the ellipsis axes, then the letters used once, in
 * alphabetical order. Each operand first loses repeated labels (the
 * diagonal: where(eye, x, 0) summed over the second axis, exact) and the
 * labels no other operand and not the output uses (reduce_sum). Operands
 * then combine left to right as one batched dot: labels both sides share
 * and something later needs are batch axes, the rest they share are
 * contracted, and each side's own labels become the rows and columns;
 * transposes and reshapes put them in place. A last transpose gives the
 * output's order.
 */
#include "onnx_private.h"

#include <string.h>

enum { EIN_LETTERS = 52, EIN_MAX_OPERANDS = 8 };

typedef struct term {
    ins *x;
    int n;                        /* labels (axes); 0: x is one element, lens {1} */
    int label[SHAPE_MAX_RANK];
} term;

static int letter_label(char ch)
{
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a';
    if (ch >= 'A' && ch <= 'Z')
        return 26 + ch - 'A';
    return -1;
}

/* Parses one term's labels: letters and at most one "..." standing for
 * `ell` axes, whose labels are EIN_LETTERS + (ell_total - ell) + k. */
static bool parse_term(onnx_ctx *c, const char *s, size_t len, int rank, int ell_total, int *labels,
                       int *n)
{
    int letters = 0, dots = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.')
            dots++;
        else if (letter_label(s[i]) >= 0)
            letters++;
        else
            return onnx_fail(c, "unexpected '%c' in the equation", s[i]);
    if (dots != 0 && dots != 3)
        return onnx_fail(c, "an ellipsis must be three dots");
    int ell = dots ? rank - letters : 0;
    if (rank >= 0 && (ell < 0 || (!dots && letters != rank)))
        return onnx_fail(c, "a term names %d axes for an operand of rank %d", letters, rank);
    *n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.') {
                for (int k = 0; k < ell; k++)
                    labels[(*n)++] = EIN_LETTERS + (ell_total - ell) + k;
                i += 2;
                continue;
            }
            return onnx_fail(c, "an ellipsis must be three dots");
        }
        if (*n >= SHAPE_MAX_RANK)
            return onnx_fail(c, "a term has more than %d axes", SHAPE_MAX_RANK);
        labels[(*n)++] = letter_label(s[i]);
    }
    return true;
}

static int find_label(const term *t, int label)
{
    for (int i = 0; i < t->n; i++)
        if (t->label[i] == label)
            return i;
    return -1;
}

/* Removes axis `axis` of t (length 1 after a reduction). */
static bool drop_axis(onnx_ctx *c, term *t, int axis)
{
    if (t->n == 1) {
        int64_t one = 1;
        t->x = onnx_reshape(c, t->x, 1, &one);
    } else {
        int64_t a = axis;
        t->x = onnx_emit_ints(c, "squeeze", "axes", &a, 1, t->x);
    }
    for (int i = axis; i + 1 < t->n; i++)
        t->label[i] = t->label[i + 1];
    t->n--;
    return t->x != NULL;
}

static bool sum_axis(onnx_ctx *c, term *t, int axis)
{
    int64_t a = axis;
    t->x = onnx_emit_ints(c, "reduce_sum", "axes", &a, 1, t->x);
    return t->x && drop_axis(c, t, axis);
}

/* Keeps the diagonal of axes p < q (same label): x where p == q, else 0,
 * summed over q. */
static bool take_diagonal(onnx_ctx *c, term *t, int p, int q)
{
    const shape *s = &t->x->sh;
    int64_t n = s->lens[p];
    if (s->lens[q] != n)
        return onnx_fail(c, "a repeated label spans axes of %lld and %lld", (long long)n,
                         (long long)s->lens[q]);
    if (n > 4096)
        return onnx_fail(c, "a diagonal of %lld is too large", (long long)n);
    unsigned char *eye = calloc((size_t)(n * n), 1);
    if (!eye)
        return onnx_fail(c, "out of memory");
    for (int64_t i = 0; i < n; i++)
        eye[i * n + i] = 1;
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < s->rank; a++)
        lens[a] = a == p || a == q ? n : 1;
    shape es = shape_standard(GRAFT_BOOL, s->rank, lens);
    ins *mask = onnx_broadcast_to(c, onnx_literal(c, &es, eye), s->rank, s->lens);
    free(eye);
    ins *args[3] = {mask, t->x, onnx_broadcast_to(c, onnx_scalar(c, s->type, 0), s->rank, s->lens)};
    t->x = onnx_emit(c, "where", NULL, 0, args, 3);
    return t->x && sum_axis(c, t, q);
}

/* Whether a label is needed past operand `after`: by the output or a later
 * operand. */
static bool needed(int label, const term *terms, int nterms, int after, const term *output)
{
    if (find_label(output, label) >= 0)
        return true;
    for (int j = after + 1; j < nterms; j++)
        if (find_label(&terms[j], label) >= 0)
            return true;
    return false;
}

static bool transpose_to(onnx_ctx *c, term *t, const int *labels, int n)
{
    int64_t perm[SHAPE_MAX_RANK];
    bool identity = true;
    for (int i = 0; i < n; i++) {
        perm[i] = find_label(t, labels[i]);
        identity = identity && perm[i] == i;
    }
    if (!identity)
        t->x = onnx_emit_ints(c, "transpose", "permutation", perm, n, t->x);
    memcpy(t->label, labels, (size_t)n * sizeof *labels);
    return t->x != NULL;
}

static int64_t product(const int64_t *lens, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= lens[i];
    return p;
}

/* a, b -> one batched dot over their shared labels; the result's labels are
 * batch, a's own, b's own. */
static bool combine(onnx_ctx *c, term *a, term *b, const term *terms, int nterms, int bi,
                    const term *output)
{
    int batch[SHAPE_MAX_RANK], contract[SHAPE_MAX_RANK], aonly[SHAPE_MAX_RANK], bonly[SHAPE_MAX_RANK];
    int nb = 0, nc = 0, na = 0, nn = 0;
    int64_t lb[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK], la[SHAPE_MAX_RANK], ln[SHAPE_MAX_RANK];
    for (int i = 0; i < a->n; i++) {
        int l = a->label[i], j = find_label(b, l);
        int64_t len = a->x->sh.lens[i];
        if (j >= 0) {
            int64_t other = b->x->sh.lens[j];
            if (len != other && len != 1 && other != 1)
                return onnx_fail(c, "label spans axes of %lld and %lld", (long long)len,
                                 (long long)other);
            len = len == 1 ? other : len;
            if (needed(l, terms, nterms, bi, output)) {
                lb[nb] = len;
                batch[nb++] = l;
            } else {
                lc[nc] = len;
                contract[nc++] = l;
            }
        } else {
            la[na] = len;
            aonly[na++] = l;
        }
    }
    for (int j = 0; j < b->n; j++)
        if (find_label(a, b->label[j]) < 0) {
            ln[nn] = b->x->sh.lens[j];
            bonly[nn++] = b->label[j];
        }
    if (nb + na + nn > SHAPE_MAX_RANK)
        return onnx_fail(c, "the product has more than %d axes", SHAPE_MAX_RANK);
    /* a as [batch, aonly, contract], b as [batch, contract, bonly], both
     * broadcast to the shared lengths */
    int order[SHAPE_MAX_RANK];
    int64_t lens[SHAPE_MAX_RANK];
    int n = 0;
    for (int i = 0; i < nb; i++)
        order[n] = batch[i], lens[n++] = lb[i];
    for (int i = 0; i < na; i++)
        order[n] = aonly[i], lens[n++] = la[i];
    for (int i = 0; i < nc; i++)
        order[n] = contract[i], lens[n++] = lc[i];
    if (!transpose_to(c, a, order, n))
        return false;
    a->x = onnx_broadcast_to(c, a->x, n, lens);
    n = 0;
    for (int i = 0; i < nb; i++)
        order[n] = batch[i], lens[n++] = lb[i];
    for (int i = 0; i < nc; i++)
        order[n] = contract[i], lens[n++] = lc[i];
    for (int i = 0; i < nn; i++)
        order[n] = bonly[i], lens[n++] = ln[i];
    if (!transpose_to(c, b, order, n))
        return false;
    b->x = onnx_broadcast_to(c, b->x, n, lens);
    int64_t B = product(lb, nb), M = product(la, na), K = product(lc, nc), N = product(ln, nn);
    int64_t a3[3] = {B, M, K}, b3[3] = {B, K, N};
    ins *d = onnx_emit2(c, "dot", onnx_reshape(c, a->x, 3, a3), onnx_reshape(c, b->x, 3, b3));
    int64_t rl[SHAPE_MAX_RANK];
    n = 0;
    for (int i = 0; i < nb; i++)
        order[n] = batch[i], rl[n++] = lb[i];
    for (int i = 0; i < na; i++)
        order[n] = aonly[i], rl[n++] = la[i];
    for (int i = 0; i < nn; i++)
        order[n] = bonly[i], rl[n++] = ln[i];
    int64_t one = 1;
    a->x = n ? onnx_reshape(c, d, n, rl) : onnx_reshape(c, d, 1, &one);
    a->n = n;
    memcpy(a->label, order, (size_t)n * sizeof *order);
    return a->x != NULL;
}

/* Diagonals, then the labels nothing past operand i needs, summed out. */
static bool reduce_term(onnx_ctx *c, term *t, const term *terms, int nterms, int i,
                        const term *output)
{
    for (int p = 0; p < t->n; p++)
        for (int q = p + 1; q < t->n; q++)
            if (t->label[p] == t->label[q]) {
                if (!take_diagonal(c, t, p, q))
                    return false;
                q = p;
            }
    for (int p = t->n - 1; p >= 0; p--) {
        /* kept: the output or a later operand needs it, or it is shared
         * with the operands already combined (a contraction) */
        bool elsewhere = needed(t->label[p], terms, nterms, i, output) ||
                         (i > 0 && find_label(&terms[0], t->label[p]) >= 0);
        if (!elsewhere && !sum_axis(c, t, p))
            return false;
    }
    return true;
}

static bool h_einsum(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (nin < 1 || nin > EIN_MAX_OPERANDS)
        return onnx_fail(c, "needs 1 to %d inputs, has %d", EIN_MAX_OPERANDS, nin);
    if (!onnx_need_inputs(c, in, nin, nin))
        return false;
    char eq[256], clean[256];
    onnx_attr_string(c, "equation", "", eq, sizeof eq);
    size_t len = 0;
    for (size_t i = 0; eq[i]; i++)
        if (eq[i] != ' ')
            clean[len++] = eq[i];
    clean[len] = 0;
    const char *arrow = strstr(clean, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - clean) : len;

    /* the ellipsis' rank: the most axes any operand leaves to it */
    term terms[EIN_MAX_OPERANDS];
    const char *starts[EIN_MAX_OPERANDS];
    size_t lens[EIN_MAX_OPERANDS];
    int nt = 0, ell_total = 0;
    for (size_t i = 0, from = 0; i <= lhs_len; i++)
        if (i == lhs_len || clean[i] == ',') {
            if (nt == nin)
                return onnx_fail(c, "the equation has more terms than the %d inputs", nin);
            starts[nt] = clean + from;
            lens[nt] = i - from;
            int letters = 0;
            for (size_t k = from; k < i; k++)
                letters += letter_label(clean[k]) >= 0;
            if (memchr(starts[nt], '.', lens[nt]) && in[nt]->sh.rank - letters > ell_total)
                ell_total = in[nt]->sh.rank - letters;
            nt++;
            from = i + 1;
        }
    if (nt != nin)
        return onnx_fail(c, "the equation has %d terms for %d inputs", nt, nin);
    for (int i = 0; i < nt; i++) {
        terms[i].x = in[i];
        if (!parse_term(c, starts[i], lens[i], in[i]->sh.rank, ell_total, terms[i].label,
                        &terms[i].n))
            return false;
        /* an operand of one element and rank 1 may stand for a scalar term */
        if (terms[i].n == 0 && shape_elements(&in[i]->sh) != 1)
            return onnx_fail(c, "term %d names no axes for an operand of rank %d", i,
                             in[i]->sh.rank);
    }
    term output = {0};
    if (arrow) {
        if (!parse_term(c, arrow + 2, strlen(arrow + 2), -1, ell_total, output.label, &output.n))
            return false;
        if (strstr(arrow + 2, "...")) {
            /* "..." in the output stands for all ell_total axes */
            int labels[SHAPE_MAX_RANK], n = 0;
            for (const char *p = arrow + 2; *p; p++) {
                if (n + (*p == '.' ? ell_total : 1) > SHAPE_MAX_RANK)
                    return onnx_fail(c, "the output has more than %d axes", SHAPE_MAX_RANK);
                if (*p == '.') {
                    for (int k = 0; k < ell_total; k++)
                        labels[n++] = EIN_LETTERS + k;
                    p += 2;
                } else {
                    labels[n++] = letter_label(*p);
                }
            }
            memcpy(output.label, labels, (size_t)n * sizeof *labels);
            output.n = n;
        }
    } else {
        for (int k = 0; k < ell_total; k++)
            output.label[output.n++] = EIN_LETTERS + k;
        for (int l = 0; l < EIN_LETTERS; l++) {
            int uses = 0;
            for (int i = 0; i < nt; i++)
                for (int a = 0; a < terms[i].n; a++)
                    uses += terms[i].label[a] == l;
            if (uses == 1) {
                if (output.n == SHAPE_MAX_RANK)
                    return onnx_fail(c, "the output has more than %d axes", SHAPE_MAX_RANK);
                output.label[output.n++] = l;
            }
        }
    }
    for (int i = 0; i < output.n; i++) {
        bool found = false;
        for (int j = 0; j < nt && !found; j++)
            found = find_label(&terms[j], output.label[i]) >= 0;
        if (!found)
            return onnx_fail(c, "an output label appears in no input");
    }

    for (int i = 0; i < nt; i++) {
        if (!reduce_term(c, &terms[i], terms, nt, i, &output))
            return false;
        if (i == 0)
            continue;
        if (!combine(c, &terms[0], &terms[i], terms, nt, i, &output))
            return false;
    }
    term *acc = &terms[0];
    for (int p = acc->n - 1; p >= 0; p--)
        if (find_label(&output, acc->label[p]) < 0 && !sum_axis(c, acc, p))
            return false;
    if (acc->n != output.n)
        return onnx_fail(c, "the result has %d axes, the output names %d", acc->n, output.n);
    if (output.n && !transpose_to(c, acc, output.label, output.n))
        return false;
    return (out[0] = acc->x) != NULL;
}

static const onnx_op_entry entries[] = {
    {"Einsum", h_einsum, "dot", {"transpose", "reduce_sum", "where", "reshape"}, 0},
};

const onnx_op_table onnx_ops_einsum = {entries, (int)(sizeof entries / sizeof entries[0])};
