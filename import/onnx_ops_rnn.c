/* onnx_ops_rnn.c: RNN, GRU and LSTM, unrolled over the (static) sequence
 * into graphs of existing ops: dot, add, mul, sub, slice, concat, where and
 * the activations, following the ONNX equations term by term.
 *
 * Per direction, the input projection X * W^T + Wb + Rb is one dot over all
 * time steps; each step adds H(t-1) * R^T, splits the gates with slices and
 * applies the activations (forward: f, g[, h]; the reverse direction takes
 * the next ones in `activations`, with alpha and beta consumed in order by
 * the functions that use them). `clip` bounds every activation's input.
 * sequence_lens must be constant: a batch entry past its length keeps its
 * state and outputs 0 (a where on a constant mask), and the reverse
 * direction runs over each entry's sequence reversed within its length
 * (gather_elements with constant positions, as ReverseSequence), its output
 * reversed back the same way. layout 1 (batch first) transposes in and out.
 * Every step is a few small ops, so a long sequence gives a large graph.
 */
#include "onnx_private.h"

#include <string.h>
#include <strings.h>

typedef enum cell { CELL_RNN, CELL_GRU, CELL_LSTM } cell;

typedef struct activation {
    char name[24];
    double alpha, beta;
} activation;

typedef struct rnn {
    onnx_ctx *c;
    cell kind;
    int64_t seq, batch, input, hidden;
    int ndir, gates;
    graft_type t;
    double clip;        /* 0: none */
    bool linear_before_reset, input_forget;
    activation act[6];  /* per direction: f, g, h */
    int nact;           /* per direction */
    const int64_t *lens; /* sequence_lens, or NULL when every entry runs the full sequence */
} rnn;

static ins *slice_axis(onnx_ctx *c, ins *x, int64_t axis, int64_t start, int64_t end)
{
    attr a[3] = {{"axes", attr_ints(&axis, 1)}, {"starts", attr_ints(&start, 1)},
                 {"ends", attr_ints(&end, 1)}};
    return onnx_emit(c, "slice", a, 3, &x, 1);
}

/* x[d] of a [dirs, ...] tensor, the leading axis dropped. */
static ins *direction_of(onnx_ctx *c, ins *x, int d)
{
    ins *s = slice_axis(c, x, 0, d, d + 1);
    if (!s)
        return NULL;
    int64_t lens[SHAPE_MAX_RANK];
    for (int i = 1; i < s->sh.rank; i++)
        lens[i - 1] = s->sh.lens[i];
    return onnx_reshape(c, s, s->sh.rank - 1, lens);
}

static ins *scalar_op(onnx_ctx *c, const char *op, ins *x, double v)
{
    return x ? onnx_binary(c, op, x, onnx_scalar(c, x->sh.type, v)) : NULL;
}

static ins *apply(rnn *r, const activation *a, ins *x)
{
    onnx_ctx *c = r->c;
    if (r->clip > 0 && x) {
        ins *args[3] = {x, NULL, NULL};
        args[1] = onnx_broadcast_to(c, onnx_scalar(c, r->t, -r->clip), x->sh.rank, x->sh.lens);
        args[2] = onnx_broadcast_to(c, onnx_scalar(c, r->t, r->clip), x->sh.rank, x->sh.lens);
        x = onnx_emit(c, "clip", NULL, 0, args, 3);
    }
    if (!x)
        return NULL;
    const char *n = a->name;
    if (strcasecmp(n, "Tanh") == 0)
        return onnx_emit1(c, "tanh", x);
    if (strcasecmp(n, "Sigmoid") == 0)
        return onnx_emit1(c, "sigmoid", x);
    if (strcasecmp(n, "Relu") == 0)
        return onnx_emit1(c, "relu", x);
    if (strcasecmp(n, "Softsign") == 0)
        return onnx_emit1(c, "softsign", x);
    if (strcasecmp(n, "Softplus") == 0)
        return onnx_emit1(c, "log", scalar_op(c, "add", onnx_emit1(c, "exp", x), 1));
    if (strcasecmp(n, "Affine") == 0)
        return scalar_op(c, "add", scalar_op(c, "mul", x, a->alpha), a->beta);
    if (strcasecmp(n, "ScaledTanh") == 0)
        return scalar_op(c, "mul", onnx_emit1(c, "tanh", scalar_op(c, "mul", x, a->beta)), a->alpha);
    if (strcasecmp(n, "LeakyRelu") == 0 || strcasecmp(n, "Elu") == 0) {
        attr at = {"alpha", attr_float(a->alpha)};
        return onnx_emit(c, strcasecmp(n, "Elu") == 0 ? "elu" : "leaky_relu", &at, 1, &x, 1);
    }
    if (strcasecmp(n, "HardSigmoid") == 0) {
        attr at[2] = {{"alpha", attr_float(a->alpha)}, {"beta", attr_float(a->beta)}};
        return onnx_emit(c, "hard_sigmoid", at, 2, &x, 1);
    }
    if (strcasecmp(n, "ThresholdedRelu") == 0) {
        ins *args[3] = {onnx_convert(c, scalar_op(c, "greater", x, a->alpha), GRAFT_BOOL), x,
                        onnx_broadcast_to(c, onnx_scalar(c, r->t, 0), x->sh.rank, x->sh.lens)};
        return onnx_emit(c, "where", NULL, 0, args, 3);
    }
    return onnx_fail(c, "unknown activation '%s'", n), NULL;
}

/* activations, activation_alpha and activation_beta, with the defaults */
static bool read_activations(rnn *r)
{
    onnx_ctx *c = r->c;
    static const char *const defaults[3][3] = {
        {"Tanh", NULL, NULL}, {"Sigmoid", "Tanh", NULL}, {"Sigmoid", "Tanh", "Tanh"}};
    r->nact = r->kind == CELL_RNN ? 1 : r->kind == CELL_GRU ? 2 : 3;
    const Onnx__AttributeProto *names = onnx_attr(c, "activations");
    int na = 0, nb = 0, ia = 0, ib = 0;
    const float *alphas = onnx_attr_floats(c, "activation_alpha", &na);
    const float *betas = onnx_attr_floats(c, "activation_beta", &nb);
    int want = r->nact * r->ndir;
    if (names && names->n_strings != 0 && (int)names->n_strings != want &&
        !((int)names->n_strings == r->nact && r->ndir == 2))
        return onnx_fail(c, "activations has %zu names; %d are needed", names->n_strings, want);
    for (int k = 0; k < want; k++) {
        activation *a = &r->act[k];
        size_t len = 0;
        const char *s = defaults[r->kind][k % r->nact];
        if (names && names->n_strings) {
            const ProtobufCBinaryData *b = &names->strings[k % names->n_strings];
            len = b->len < sizeof a->name - 1 ? b->len : sizeof a->name - 1;
            memcpy(a->name, b->data, len);
            a->name[len] = 0;
        } else {
            strcpy(a->name, s);
        }
        bool uses_alpha = strcasecmp(a->name, "Affine") == 0 || strcasecmp(a->name, "LeakyRelu") == 0 ||
                          strcasecmp(a->name, "ThresholdedRelu") == 0 ||
                          strcasecmp(a->name, "ScaledTanh") == 0 ||
                          strcasecmp(a->name, "HardSigmoid") == 0 || strcasecmp(a->name, "Elu") == 0;
        bool uses_beta = strcasecmp(a->name, "Affine") == 0 || strcasecmp(a->name, "ScaledTanh") == 0 ||
                         strcasecmp(a->name, "HardSigmoid") == 0;
        a->alpha = strcasecmp(a->name, "LeakyRelu") == 0     ? 0.01
                   : strcasecmp(a->name, "HardSigmoid") == 0 ? 0.2
                                                             : 1.0;
        a->beta = strcasecmp(a->name, "HardSigmoid") == 0 ? 0.5 : strcasecmp(a->name, "Affine") == 0 ? 0 : 1.0;
        if (uses_alpha && ia < na)
            a->alpha = alphas[ia++];
        if (uses_beta && ib < nb)
            a->beta = betas[ib++];
    }
    return true;
}

/* The constant mask [batch, hidden]: entry b is still running at step t. */
static ins *step_mask(rnn *r, int64_t t)
{
    onnx_ctx *c = r->c;
    unsigned char *m = arena_alloc(&c->scratch, (size_t)r->batch);
    if (!m)
        return onnx_fail(c, "out of memory"), NULL;
    for (int64_t b = 0; b < r->batch; b++)
        m[b] = t < r->lens[b];
    int64_t l[2] = {r->batch, 1}, full[2] = {r->batch, r->hidden};
    shape sh = shape_standard(GRAFT_BOOL, 2, l);
    return onnx_broadcast_to(c, onnx_literal(c, &sh, m), 2, full);
}

/* x [seq, batch, n] reversed along time within each entry's length. */
static ins *reverse_within(rnn *r, ins *x)
{
    onnx_ctx *c = r->c;
    int64_t *idx = arena_alloc(&c->scratch, (size_t)(r->seq * r->batch) * sizeof *idx);
    if (!idx || !x)
        return x ? onnx_fail(c, "out of memory"), NULL : NULL;
    for (int64_t t = 0; t < r->seq; t++)
        for (int64_t b = 0; b < r->batch; b++) {
            int64_t len = r->lens ? r->lens[b] : r->seq;
            idx[t * r->batch + b] = t < len ? len - 1 - t : t;
        }
    int64_t l[3] = {r->seq, r->batch, 1};
    shape sh = shape_standard(GRAFT_INT64, 3, l);
    ins *il = onnx_broadcast_to(c, onnx_literal(c, &sh, idx), 3, x->sh.lens);
    attr a = {"axis", attr_int(0)};
    ins *args[2] = {x, il};
    return onnx_emit(c, "gather_elements", &a, 1, args, 2);
}

/* One direction over the sequence: x [seq, batch, input] (already reversed
 * for the reverse direction), w [G*H, I], rr [G*H, H], bias [2*G*H] or NULL,
 * h0/c0 [batch, hidden] or NULL, p [3*H] or NULL. Writes y [seq, batch, H]
 * and the last h (and c). */
static bool run_direction(rnn *r, int d, ins *x, ins *w, ins *rr, ins *bias, ins *h0, ins *c0,
                          ins *p, ins **y_out, ins **h_out, ins **c_out)
{
    onnx_ctx *c = r->c;
    int64_t H = r->hidden, G = r->gates, S = r->seq, B = r->batch;
    int64_t perm[2] = {1, 0};
    ins *wt = onnx_emit_ints(c, "transpose", "permutation", perm, 2, w);
    ins *rt = onnx_emit_ints(c, "transpose", "permutation", perm, 2, rr);
    int64_t sb[2] = {S * B, r->input}, sbg3[3] = {S, B, G * H};
    ins *proj = onnx_emit2(c, "dot", onnx_reshape(c, x, 2, sb), wt);
    ins *rbias = NULL; /* GRU with linear_before_reset: Rbh stays inside */
    if (bias) {
        ins *wb = slice_axis(c, bias, 0, 0, G * H), *rb = slice_axis(c, bias, 0, G * H, 2 * G * H);
        ins *sum = onnx_emit2(c, "add", wb, rb);
        if (r->kind == CELL_GRU) {
            /* the h gate's Rb joins after the reset gate (linear_before_reset)
             * or with (r . H) * Rh^T; either way not in the projection */
            sum = onnx_emit(c, "concat", (attr[]){{"axis", attr_int(0)}}, 1,
                            (ins *[]){slice_axis(c, sum, 0, 0, 2 * H), slice_axis(c, wb, 0, 2 * H, 3 * H)},
                            2);
            rbias = slice_axis(c, rb, 0, 2 * H, 3 * H);
        }
        proj = onnx_binary(c, "add", proj, sum);
    }
    proj = onnx_reshape(c, proj, 3, sbg3);
    int64_t bh[2] = {B, H};
    ins *zero = onnx_broadcast_to(c, onnx_scalar(c, r->t, 0), 2, bh);
    ins *h = h0 ? h0 : zero, *cs = c0 ? c0 : zero;
    const activation *f = &r->act[d * r->nact], *g = f + 1, *hh = f + 2;
    ins *steps[4096];
    if (S > 4096)
        return onnx_unsupported(c, "a sequence of %lld steps (at most 4096 unroll)", (long long)S);
    ins *pi = NULL, *po = NULL, *pf = NULL;
    if (p) {
        pi = onnx_broadcast_to(c, onnx_reshape(c, slice_axis(c, p, 0, 0, H), 2, (int64_t[]){1, H}), 2, bh);
        po = onnx_broadcast_to(c, onnx_reshape(c, slice_axis(c, p, 0, H, 2 * H), 2, (int64_t[]){1, H}), 2, bh);
        pf = onnx_broadcast_to(c, onnx_reshape(c, slice_axis(c, p, 0, 2 * H, 3 * H), 2, (int64_t[]){1, H}), 2, bh);
    }
    ins *rbias_b = rbias ? onnx_broadcast_to(c, onnx_reshape(c, rbias, 2, (int64_t[]){1, H}), 2, bh) : NULL;
    int64_t bg[2] = {B, G * H};
    for (int64_t t = 0; t < S; t++) {
        ins *xt = onnx_reshape(c, slice_axis(c, proj, 0, t, t + 1), 2, bg);
        ins *hn = NULL, *cn = NULL;
        if (r->kind == CELL_RNN) {
            hn = apply(r, f, onnx_emit2(c, "add", xt, onnx_emit2(c, "dot", h, rt)));
        } else if (r->kind == CELL_GRU) {
            ins *rzr = slice_axis(c, rt, 1, 0, 2 * H), *rh = slice_axis(c, rt, 1, 2 * H, 3 * H);
            ins *zr = onnx_emit2(c, "add", slice_axis(c, xt, 1, 0, 2 * H), onnx_emit2(c, "dot", h, rzr));
            ins *z = apply(r, f, slice_axis(c, zr, 1, 0, H));
            ins *rg = apply(r, f, slice_axis(c, zr, 1, H, 2 * H));
            ins *xh = slice_axis(c, xt, 1, 2 * H, 3 * H), *inner;
            if (r->linear_before_reset) {
                ins *hr = onnx_emit2(c, "dot", h, rh);
                if (rbias_b)
                    hr = onnx_emit2(c, "add", hr, rbias_b);
                inner = onnx_emit2(c, "mul", rg, hr);
            } else {
                inner = onnx_emit2(c, "dot", onnx_emit2(c, "mul", rg, h), rh);
                if (rbias_b)
                    inner = onnx_emit2(c, "add", inner, rbias_b);
            }
            ins *cand = apply(r, g, onnx_emit2(c, "add", xh, inner));
            /* (1 - z) . cand + z . h */
            ins *one_minus = onnx_emit2(c, "sub", onnx_broadcast_to(c, onnx_scalar(c, r->t, 1), 2, bh), z);
            hn = onnx_emit2(c, "add", onnx_emit2(c, "mul", one_minus, cand), onnx_emit2(c, "mul", z, h));
        } else {
            ins *gates = onnx_emit2(c, "add", xt, onnx_emit2(c, "dot", h, rt));
            ins *gi = slice_axis(c, gates, 1, 0, H), *go = slice_axis(c, gates, 1, H, 2 * H);
            ins *gf = slice_axis(c, gates, 1, 2 * H, 3 * H), *gc = slice_axis(c, gates, 1, 3 * H, 4 * H);
            if (pi) {
                gi = onnx_emit2(c, "add", gi, onnx_emit2(c, "mul", pi, cs));
                gf = onnx_emit2(c, "add", gf, onnx_emit2(c, "mul", pf, cs));
            }
            ins *it = apply(r, f, gi);
            ins *ft = r->input_forget
                          ? onnx_emit2(c, "sub", onnx_broadcast_to(c, onnx_scalar(c, r->t, 1), 2, bh), it)
                          : apply(r, f, gf);
            ins *ct = apply(r, g, gc);
            cn = onnx_emit2(c, "add", onnx_emit2(c, "mul", ft, cs), onnx_emit2(c, "mul", it, ct));
            if (po)
                go = onnx_emit2(c, "add", go, onnx_emit2(c, "mul", po, cn));
            /* the cell output's activation is not clipped */
            double saved = r->clip;
            ins *ot = apply(r, f, go);
            r->clip = 0;
            hn = onnx_emit2(c, "mul", ot, apply(r, hh, cn));
            r->clip = saved;
        }
        if (!hn || (r->kind == CELL_LSTM && !cn))
            return false;
        ins *yt = hn;
        if (r->lens) {
            ins *m = step_mask(r, t);
            ins *a1[3] = {m, hn, h};
            ins *a2[3] = {m, hn, zero};
            ins *a3[3] = {m, cn, cs};
            yt = onnx_emit(c, "where", NULL, 0, a2, 3);
            hn = onnx_emit(c, "where", NULL, 0, a1, 3);
            if (cn)
                cn = onnx_emit(c, "where", NULL, 0, a3, 3);
        }
        h = hn;
        if (cn)
            cs = cn;
        int64_t one_bh[3] = {1, B, H};
        steps[t] = onnx_reshape(c, yt, 3, one_bh);
        if (!steps[t])
            return false;
    }
    attr cat = {"axis", attr_int(0)};
    *y_out = S > 1 ? onnx_emit(c, "concat", &cat, 1, steps, (int)S) : steps[0];
    *h_out = h;
    *c_out = cs;
    return *y_out != NULL;
}

static bool h_rnn(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    rnn r = {0};
    r.c = c;
    const char *op = c->node->op_type;
    r.kind = strcmp(op, "GRU") == 0 ? CELL_GRU : strcmp(op, "LSTM") == 0 ? CELL_LSTM : CELL_RNN;
    r.gates = r.kind == CELL_RNN ? 1 : r.kind == CELL_GRU ? 3 : 4;
    ins *x = in[0], *w = in[1], *rr = in[2];
    ins *bias = nin > 3 ? in[3] : NULL, *seq_lens = nin > 4 ? in[4] : NULL;
    ins *h0 = nin > 5 ? in[5] : NULL, *c0 = NULL, *p = NULL;
    if (r.kind == CELL_LSTM) {
        c0 = nin > 6 ? in[6] : NULL;
        p = nin > 7 ? in[7] : NULL;
    }
    bool batch_first = onnx_attr_int(c, "layout", 0) != 0;
    if (x->sh.rank != 3 || w->sh.rank != 3 || rr->sh.rank != 3)
        return onnx_fail(c, "X, W and R must have rank 3");
    r.t = x->sh.type;
    if (!type_is_float(r.t))
        return onnx_fail(c, "X must be floating point, not %s", type_name(r.t));
    if (batch_first)
        x = onnx_emit_ints(c, "transpose", "permutation", (int64_t[]){1, 0, 2}, 3, x);
    if (!x)
        return false;
    r.seq = x->sh.lens[0];
    r.batch = x->sh.lens[1];
    r.input = x->sh.lens[2];
    r.hidden = onnx_attr_int(c, "hidden_size", rr->sh.lens[2]);
    char dir[16];
    onnx_attr_string(c, "direction", "forward", dir, sizeof dir);
    bool bidir = strcmp(dir, "bidirectional") == 0, reverse = strcmp(dir, "reverse") == 0;
    if (!bidir && !reverse && strcmp(dir, "forward") != 0)
        return onnx_fail(c, "unknown direction '%s'", dir);
    r.ndir = bidir ? 2 : 1;
    int64_t H = r.hidden, G = r.gates;
    if (w->sh.lens[0] != r.ndir || w->sh.lens[1] != G * H || w->sh.lens[2] != r.input ||
        rr->sh.lens[0] != r.ndir || rr->sh.lens[1] != G * H || rr->sh.lens[2] != H)
        return onnx_fail(c, "W or R does not fit %d direction(s), %lld gates, hidden size %lld",
                         r.ndir, (long long)G, (long long)H);
    if (bias && (bias->sh.rank != 2 || bias->sh.lens[1] != 2 * G * H))
        return onnx_fail(c, "B must be {%d, %lld}", r.ndir, (long long)(2 * G * H));
    r.clip = onnx_attr_float(c, "clip", 0);
    r.linear_before_reset = onnx_attr_int(c, "linear_before_reset", 0) != 0;
    r.input_forget = onnx_attr_int(c, "input_forget", 0) != 0;
    if (!read_activations(&r))
        return false;
    if (seq_lens) {
        int64_t *v;
        int n;
        if (!onnx_const_ints(c, seq_lens, "sequence_lens", &v, &n))
            return false;
        if (n != r.batch)
            return onnx_fail(c, "sequence_lens has %d entries for a batch of %lld", n,
                             (long long)r.batch);
        bool all = true;
        for (int b = 0; b < n; b++) {
            if (v[b] < 0 || v[b] > r.seq)
                return onnx_fail(c, "sequence length %lld is outside 0..%lld", (long long)v[b],
                                 (long long)r.seq);
            all = all && v[b] == r.seq;
        }
        r.lens = all ? NULL : v;
    }
    if (batch_first) {
        int64_t perm[3] = {1, 0, 2};
        if (h0)
            h0 = onnx_emit_ints(c, "transpose", "permutation", perm, 3, h0);
        if (c0)
            c0 = onnx_emit_ints(c, "transpose", "permutation", perm, 3, c0);
    }
    ins *ys[2], *hs[2], *cs[2];
    for (int d = 0; d < r.ndir; d++) {
        bool back = reverse || d == 1;
        ins *xd = back ? reverse_within(&r, x) : x;
        ins *y = NULL, *hl = NULL, *cl = NULL;
        if (!run_direction(&r, d, xd, direction_of(c, w, d), direction_of(c, rr, d),
                           bias ? direction_of(c, bias, d) : NULL, h0 ? direction_of(c, h0, d) : NULL,
                           c0 ? direction_of(c, c0, d) : NULL, p ? direction_of(c, p, d) : NULL, &y,
                           &hl, &cl))
            return false;
        ys[d] = back ? reverse_within(&r, y) : y;
        int64_t one[3] = {1, r.batch, H}, y4[4] = {r.seq, 1, r.batch, H};
        ys[d] = onnx_reshape(c, ys[d], 4, y4);
        hs[d] = onnx_reshape(c, hl, 3, one);
        cs[d] = onnx_reshape(c, cl, 3, one);
    }
    attr a1 = {"axis", attr_int(1)}, a0 = {"axis", attr_int(0)};
    ins *y = r.ndir > 1 ? onnx_emit(c, "concat", &a1, 1, ys, 2) : ys[0];
    ins *yh = r.ndir > 1 ? onnx_emit(c, "concat", &a0, 1, hs, 2) : hs[0];
    ins *yc = r.ndir > 1 ? onnx_emit(c, "concat", &a0, 1, cs, 2) : cs[0];
    if (batch_first) {
        y = onnx_emit_ints(c, "transpose", "permutation", (int64_t[]){2, 0, 1, 3}, 4, y);
        yh = onnx_emit_ints(c, "transpose", "permutation", (int64_t[]){1, 0, 2}, 3, yh);
        yc = onnx_emit_ints(c, "transpose", "permutation", (int64_t[]){1, 0, 2}, 3, yc);
    }
    out[0] = y;
    if (nout > 1)
        out[1] = yh;
    if (nout > 2 && r.kind == CELL_LSTM)
        out[2] = yc;
    return y && yh && yc;
}

static const onnx_op_entry entries[] = {
    {"RNN", h_rnn, "dot", {"slice", "concat", "tanh", "where"}, 3},
    {"GRU", h_rnn, "dot", {"slice", "concat", "sigmoid", "where"}, 3},
    {"LSTM", h_rnn, "dot", {"slice", "concat", "sigmoid", "where"}, 3},
};

const onnx_op_table onnx_ops_rnn = {entries, (int)(sizeof entries / sizeof entries[0])};
