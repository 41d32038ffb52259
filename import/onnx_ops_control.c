/* onnx_ops_control.c: If, Loop and Scan, resolved at import.
 *
 * graft's graphs have no control flow yet, so the importer settles it:
 *   If     its condition must be a constant (a literal, a folded
 *          subgraph, or a known input): only the taken branch is imported.
 *   Loop   unrolled: the trip count and the condition must be constants,
 *          and the condition the body computes must fold to a constant each
 *          iteration; at most ONNX_UNROLL_LIMIT iterations. Scan outputs are
 *          the per-iteration values stacked on a new first axis.
 *   Scan   unrolled over the scanned axis (its length is static): each step
 *          slices the scan inputs, runs the body on the states, and the scan
 *          outputs are stacked along their axes, in either direction. Scan-8
 *          (a batch axis, sequence_lens) runs the same per batch entry.
 * Anything else is refused as unsupported, naming what is not constant.
 */
#include "onnx_private.h"

#include <stdlib.h>
#include <string.h>

enum { ONNX_UNROLL_LIMIT = 1024, MAX_VALUES = 64 };

static const Onnx__GraphProto *graph_attr(onnx_ctx *c, const char *name)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    return a ? a->g : NULL;
}

static bool const_bool(onnx_ctx *c, ins *x, const char *what, bool *v)
{
    int64_t *vals;
    int n;
    if (!onnx_const_ints(c, x, what, &vals, &n))
        return false;
    if (n != 1)
        return onnx_fail(c, "%s must have one element, has %d", what, n);
    *v = vals[0] != 0;
    return true;
}

/* Imports body into a new submodule of the instruction being built (kind
 * names it): inputs[0..ninputs) are the parameters x<k> for operands
 * first..first+ninputs of the given shapes, outputs the body's values in
 * the submodule, which returns them. */
static module *import_submodule(onnx_ctx *c, const Onnx__GraphProto *body, const char *kind,
                                struct onnx_operands *ops, const shape *inputs, int first,
                                int ninputs, ins **outputs, int noutputs)
{
    onnx_capture cap;
    if (!onnx_capture_begin(c, &cap, ops, kind))
        return NULL;
    ins *params[MAX_VALUES + 2];
    bool ok = ninputs <= MAX_VALUES + 2;
    for (int k = 0; ok && k < ninputs; k++)
        ok = (params[k] = onnx_capture_param(c, first + k, &inputs[k])) != NULL;
    ok = ok && onnx_import_body(c, body, params, ninputs, outputs, noutputs);
    ok = ok && module_add_return(c->m, outputs, noutputs) != NULL;
    module *m = cap.m;
    onnx_capture_end(c, &cap);
    return ok ? m : NULL;
}

/* The instruction's results: itself for one, get_tuple_elem for several. */
static bool split_results(onnx_ctx *c, ins *x, ins **out, int nout)
{
    if (!x)
        return false;
    if (nout == 1) {
        out[0] = x;
        return true;
    }
    for (int k = 0; k < nout; k++) {
        attr a = {"index", attr_int(k)};
        if (!(out[k] = onnx_emit(c, "get_tuple_elem", &a, 1, &x, 1)))
            return false;
    }
    return true;
}

/* An If whose condition is not known at import: an `if` instruction whose
 * two submodules are the branches. */
static bool if_instruction(onnx_ctx *c, ins *cond, ins **out, int nout)
{
    if (nout > MAX_VALUES)
        return onnx_fail(c, "more than %d outputs", MAX_VALUES);
    struct onnx_operands ops = {0};
    ins *then_out[MAX_VALUES], *else_out[MAX_VALUES];
    bool ok = shape_elements(&cond->sh) == 1 ||
              onnx_fail(c, "the condition has %lld elements, not 1",
                        (long long)shape_elements(&cond->sh));
    /* operand 0 is the condition */
    ok = ok && (ops.v = malloc(sizeof *ops.v)) != NULL;
    if (ok) {
        ops.v[0] = cond;
        ops.n = ops.cap = 1;
    }
    module *mods[2] = {NULL, NULL};
    ok = ok && (mods[0] = import_submodule(c, graph_attr(c, "then_branch"), "then", &ops, NULL,
                                           0, 0, then_out, nout)) != NULL;
    ok = ok && (mods[1] = import_submodule(c, graph_attr(c, "else_branch"), "else", &ops, NULL,
                                           0, 0, else_out, nout)) != NULL;
    ins *x = NULL;
    if (ok) {
        graft_error local = {0};
        x = module_insert_with_modules(c->m, NULL, op_find("if"), NULL, 0, ops.v, ops.n, mods, 2,
                                       &local);
        if (!x)
            ok = onnx_unsupported(c, "%s", local.message);
    }
    free(ops.v);
    return ok && split_results(c, x, out, nout);
}

static bool h_if(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nin;
    /* a condition not known at import decides at run time */
    if (!onnx_value_known(c, in[0]))
        return if_instruction(c, in[0], out, nout);
    bool cond;
    if (!const_bool(c, in[0], "the condition", &cond))
        return false;
    const Onnx__GraphProto *branch = graph_attr(c, cond ? "then_branch" : "else_branch");
    return onnx_import_body(c, branch, NULL, 0, out, nout);
}

/* x with a new axis of length 1 at `axis`. */
static ins *unsqueeze_at(onnx_ctx *c, ins *x, int axis)
{
    int64_t a = axis;
    return onnx_emit_ints(c, "unsqueeze", "axes", &a, 1, x);
}

/* values[0..n) stacked on a new axis (reversed order when reverse). */
static ins *stack(onnx_ctx *c, ins **values, int n, int axis, bool reverse)
{
    ins **u = calloc((size_t)n + 1, sizeof *u);
    if (!u)
        return onnx_fail(c, "out of memory"), NULL;
    bool ok = true;
    for (int t = 0; t < n && ok; t++)
        ok = (u[t] = unsqueeze_at(c, values[reverse ? n - 1 - t : t], axis)) != NULL;
    attr a = {"axis", attr_int(axis)};
    ins *r = !ok ? NULL : n == 1 ? u[0] : onnx_emit(c, "concat", &a, 1, u, n);
    free(u);
    return r;
}

static ins *int64_scalar(onnx_ctx *c, int64_t v)
{
    return onnx_int64_literal(c, &v, 1);
}

/* Unrolls the loop when its trip count and condition are constants and the
 * condition the body computes folds to a constant each iteration, for at
 * most ONNX_UNROLL_LIMIT iterations; *gave_up (with nothing of the loop's
 * results set) when one of those does not hold. */
static bool unroll_loop(onnx_ctx *c, const Onnx__GraphProto *body, ins **in, int nstates,
                        int nscans, ins **out, bool *gave_up)
{
    int nout = nstates + nscans;
    *gave_up = false;
    int64_t trips = -1;
    if (in[0]) {
        int64_t *v;
        int n;
        if (!onnx_const_ints(c, in[0], "the trip count", &v, &n))
            return false;
        if (n != 1)
            return onnx_fail(c, "the trip count must have one element");
        trips = v[0];
    }
    bool cond = true;
    if (in[1] && !const_bool(c, in[1], "the initial condition", &cond))
        return false;
    ins *states[MAX_VALUES], *body_in[MAX_VALUES + 2], *body_out[MAX_VALUES + 1];
    for (int k = 0; k < nstates; k++)
        states[k] = in[2 + k];
    ins **scans = calloc((size_t)(nscans * ONNX_UNROLL_LIMIT) + 1, sizeof *scans);
    if (!scans)
        return onnx_fail(c, "out of memory");
    int64_t i = 0;
    bool ok = true;
    for (; ok && cond && (trips < 0 || i < trips); i++) {
        if (i >= ONNX_UNROLL_LIMIT) {
            *gave_up = true;
            break;
        }
        body_in[0] = int64_scalar(c, i);
        body_in[1] = onnx_scalar(c, GRAFT_BOOL, 1);
        for (int k = 0; k < nstates; k++)
            body_in[2 + k] = states[k];
        if (!(ok = body_in[0] && body_in[1] &&
                   onnx_import_body(c, body, body_in, nstates + 2, body_out, nout + 1)))
            break;
        if (!onnx_is_const(body_out[0])) {
            *gave_up = true;
            break;
        }
        ok = const_bool(c, body_out[0], "the loop condition", &cond);
        for (int k = 0; k < nstates; k++)
            states[k] = body_out[1 + k];
        for (int k = 0; k < nscans; k++)
            scans[k * ONNX_UNROLL_LIMIT + i] = body_out[1 + nstates + k];
    }
    if (*gave_up) {
        /* what was imported of the iterations so far is unused, and goes */
        free(scans);
        return true;
    }
    for (int k = 0; ok && k < nstates; k++)
        out[k] = states[k];
    if (ok && nscans && i == 0)
        ok = onnx_unsupported(c, "no iteration runs: the scan outputs are empty");
    for (int k = 0; ok && k < nscans; k++)
        ok = (out[nstates + k] = stack(c, scans + k * ONNX_UNROLL_LIMIT, (int)i, 0, false)) != NULL;
    free(scans);
    return ok;
}

/* A Loop that does not unroll: a `loop` instruction whose submodule is the
 * body. Operands: the trip count (absent: the largest int64), the condition
 * (absent: true), the loop-carried values, then what the body reads of the
 * enclosing modules. The body's condition input is always true when it
 * runs, so it is imported as the constant true. Scan outputs need the
 * number of iterations known at import: a constant trip count, a true
 * initial condition and a body whose condition folds to true. */
static bool loop_instruction(onnx_ctx *c, const Onnx__GraphProto *body, ins **in, int nstates,
                             int nscans, ins **out)
{
    int nout = nstates + nscans;
    struct onnx_operands ops = {0};
    ops.cap = nstates + 2;
    if (!(ops.v = malloc((size_t)ops.cap * sizeof *ops.v)))
        return onnx_fail(c, "out of memory");
    ops.v[0] = in[0] ? onnx_convert(c, in[0], GRAFT_INT64) : int64_scalar(c, INT64_MAX);
    ops.v[1] = in[1] ? onnx_convert(c, in[1], GRAFT_BOOL) : onnx_scalar(c, GRAFT_BOOL, 1);
    bool ok = ops.v[0] && ops.v[1];
    for (int k = 0; ok && k < nstates; k++)
        if (!(ops.v[2 + k] = in[2 + k]))
            ok = onnx_fail(c, "loop-carried value %d is missing", k);
    ops.n = 2 + nstates;
    int64_t one = 1, iterations = -1;
    onnx_capture cap;
    ins *body_in[MAX_VALUES + 2], *body_out[MAX_VALUES + 1];
    module *m = NULL;
    if (ok && onnx_capture_begin(c, &cap, &ops, "body")) {
        shape counter = shape_standard(GRAFT_INT64, 1, &one);
        ok = (body_in[0] = onnx_capture_param(c, 0, &counter)) != NULL &&
             (body_in[1] = onnx_scalar(c, GRAFT_BOOL, 1)) != NULL;
        for (int k = 0; ok && k < nstates; k++)
            ok = (body_in[2 + k] = onnx_capture_param(c, 2 + k, &ops.v[2 + k]->sh)) != NULL;
        ok = ok && onnx_import_body(c, body, body_in, nstates + 2, body_out, nout + 1) &&
             module_add_return(c->m, body_out, nout + 1) != NULL;
        if (ok && nscans > 0) {
            int64_t *v;
            int n;
            bool again = false, start = true;
            bool forever = onnx_is_const(body_out[0]) &&
                           const_bool(c, body_out[0], "the loop condition", &again) && again;
            bool starts = !in[1] || (onnx_value_known(c, in[1]) &&
                                     const_bool(c, in[1], "the initial condition", &start) &&
                                     start);
            if (!in[0] || !onnx_value_known(c, in[0]))
                ok = onnx_unsupported(c, "the trip count must be a constant for scan outputs "
                                         "(they need the number of iterations at import)");
            else if (!forever || !starts)
                ok = onnx_unsupported(c, "scan outputs of a loop whose condition may stop it "
                                         "early (they need the number of iterations at import)");
            else if (!onnx_const_ints(c, in[0], "the trip count", &v, &n))
                ok = false;
            else if (n != 1)
                ok = onnx_fail(c, "the trip count must have one element");
            else
                iterations = v[0] > 0 ? v[0] : 0;
        }
        m = cap.m;
        onnx_capture_end(c, &cap);
    } else {
        ok = false;
    }
    ins *x = NULL;
    if (ok) {
        attr a[2] = {{"states", attr_int(nstates)}, {"max_iterations", attr_int(iterations)}};
        graft_error local = {0};
        x = module_insert_with_modules(c->m, NULL, op_find("loop"), a, 2, ops.v, ops.n, &m, 1,
                                       &local);
        if (!x)
            ok = onnx_unsupported(c, "%s", local.message);
    }
    free(ops.v);
    return ok && split_results(c, x, out, nout);
}

static bool h_loop(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    const Onnx__GraphProto *body = graph_attr(c, "body");
    int nstates = nin - 2;
    if (!body || nstates < 0 || nstates > MAX_VALUES || nout < nstates || nout > MAX_VALUES)
        return onnx_fail(c, "needs a body, a trip count and a condition input (may be empty)");
    int nscans = nout - nstates;
    bool gave_up = true;
    if ((!in[0] || onnx_value_known(c, in[0])) && (!in[1] || onnx_value_known(c, in[1])) &&
        !unroll_loop(c, body, in, nstates, nscans, out, &gave_up))
        return false;
    return !gave_up || loop_instruction(c, body, in, nstates, nscans, out);
}

/* x's slice t along axis, the axis removed ({1} when nothing is left). */
static ins *take(onnx_ctx *c, ins *x, int axis, int64_t t)
{
    int64_t a = axis, s = t, e = t + 1;
    attr at[3] = {{"axes", attr_ints(&a, 1)}, {"starts", attr_ints(&s, 1)}, {"ends", attr_ints(&e, 1)}};
    ins *y = onnx_emit(c, "slice", at, 3, &x, 1);
    if (!y)
        return NULL;
    if (y->sh.rank == 1) {
        int64_t one = 1;
        return onnx_reshape(c, y, 1, &one);
    }
    return onnx_emit_ints(c, "squeeze", "axes", &a, 1, y);
}

typedef struct scan_spec {
    const Onnx__GraphProto *body;
    int nstates, nscan_in, nscan_out;
    int in_axis[MAX_VALUES], in_rev[MAX_VALUES], out_axis[MAX_VALUES], out_rev[MAX_VALUES];
} scan_spec;

/* One scan over states and scan inputs; results: final states, then the
 * stacked scan outputs. */
static bool run_scan(onnx_ctx *c, const scan_spec *s, ins **states_in, ins **scan_in, ins **results)
{
    ins *states[MAX_VALUES], *body_in[MAX_VALUES], *body_out[MAX_VALUES];
    int n = s->nstates, m = s->nscan_in, k = s->nscan_out;
    int64_t seq = -1;
    for (int j = 0; j < m; j++) {
        int axis;
        if (!onnx_normalize_axis(c, s->in_axis[j], scan_in[j]->sh.rank, &axis))
            return false;
        int64_t len = scan_in[j]->sh.lens[axis];
        if (seq >= 0 && len != seq)
            return onnx_fail(c, "scan inputs differ in length: %lld and %lld", (long long)seq,
                             (long long)len);
        seq = len;
    }
    if (seq < 1)
        return onnx_unsupported(c, "an empty scan");
    if (seq > ONNX_UNROLL_LIMIT)
        return onnx_unsupported(c, "more than %d steps to unroll", ONNX_UNROLL_LIMIT);
    ins **outs = calloc((size_t)(k * seq) + 1, sizeof *outs);
    if (!outs)
        return onnx_fail(c, "out of memory");
    for (int j = 0; j < n; j++)
        states[j] = states_in[j];
    bool ok = true;
    for (int64_t t = 0; ok && t < seq; t++) {
        for (int j = 0; j < n; j++)
            body_in[j] = states[j];
        for (int j = 0; ok && j < m; j++) {
            int axis = s->in_axis[j] < 0 ? s->in_axis[j] + scan_in[j]->sh.rank : s->in_axis[j];
            ok = (body_in[n + j] = take(c, scan_in[j], axis, s->in_rev[j] ? seq - 1 - t : t)) != NULL;
        }
        if (!ok || !(ok = onnx_import_body(c, s->body, body_in, n + m, body_out, n + k)))
            break;
        for (int j = 0; j < n; j++)
            states[j] = body_out[j];
        for (int j = 0; j < k; j++)
            outs[j * seq + t] = body_out[n + j];
    }
    for (int j = 0; ok && j < n; j++)
        results[j] = states[j];
    for (int j = 0; ok && j < k; j++) {
        int axis = s->out_axis[j], rank = outs[j * seq]->sh.rank + 1;
        if (!onnx_normalize_axis(c, axis, rank, &axis))
            ok = false;
        else
            ok = (results[n + j] = stack(c, outs + j * seq, (int)seq, axis, s->out_rev[j] != 0)) != NULL;
    }
    free(outs);
    return ok;
}

/* an ints attribute into v[0..n), default dflt */
static bool ints_attr(onnx_ctx *c, const char *name, int n, int dflt, int *v)
{
    int given;
    const int64_t *a = onnx_attr_ints(c, name, &given);
    if (given > 0 && given != n)
        return onnx_fail(c, "%s has %d entries, expected %d", name, given, n);
    for (int i = 0; i < n; i++)
        v[i] = given > 0 ? (int)a[i] : dflt;
    return true;
}

static bool h_scan(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    scan_spec s = {0};
    s.body = graph_attr(c, "body");
    bool v8 = c->opset < 9;
    int first = v8 ? 1 : 0;
    int64_t m = onnx_attr_int(c, "num_scan_inputs", 0);
    if (!s.body || m < 1 || m > nin - first || nin > MAX_VALUES || nout > MAX_VALUES)
        return onnx_fail(c, "needs a body and num_scan_inputs between 1 and the inputs");
    s.nscan_in = (int)m;
    s.nstates = nin - first - s.nscan_in;
    s.nscan_out = nout - s.nstates;
    if (s.nscan_out < 0)
        return onnx_fail(c, "has fewer outputs than states");
    for (int k = first; k < nin; k++)
        if (!in[k])
            return onnx_fail(c, "input %d is missing", k);
    if (!ints_attr(c, "scan_input_axes", s.nscan_in, 0, s.in_axis) ||
        !ints_attr(c, v8 ? "directions" : "scan_input_directions", s.nscan_in, 0, s.in_rev) ||
        !ints_attr(c, "scan_output_axes", s.nscan_out, 0, s.out_axis) ||
        !ints_attr(c, "scan_output_directions", s.nscan_out, 0, s.out_rev))
        return false;
    ins **states = in + first, **scans = in + first + s.nstates;
    if (!v8)
        return run_scan(c, &s, states, scans, out);

    /* Scan-8: axis 0 is a batch axis everywhere; the body sees one entry */
    if (in[0]) {
        int64_t *lens;
        int n;
        if (!onnx_const_ints(c, in[0], "sequence_lens", &lens, &n))
            return false;
        for (int b = 0; b < n; b++)
            if (lens[b] != scans[0]->sh.lens[1])
                return onnx_unsupported(c, "sequence_lens shorter than the sequence");
    }
    int64_t batch = scans[0]->sh.lens[0];
    if (batch > ONNX_UNROLL_LIMIT)
        return onnx_unsupported(c, "a batch of %lld", (long long)batch);
    ins *per[MAX_VALUES][64], *st[MAX_VALUES], *sc[MAX_VALUES], *res[MAX_VALUES];
    if (batch > 64)
        return onnx_unsupported(c, "a batch of %lld (at most 64 for Scan-8)", (long long)batch);
    for (int64_t b = 0; b < batch; b++) {
        for (int j = 0; j < s.nstates; j++)
            if (!(st[j] = take(c, states[j], 0, b)))
                return false;
        for (int j = 0; j < s.nscan_in; j++)
            if (!(sc[j] = take(c, scans[j], 0, b)))
                return false;
        if (!run_scan(c, &s, st, sc, res))
            return false;
        for (int j = 0; j < nout; j++)
            per[j][b] = res[j];
    }
    for (int j = 0; j < nout; j++)
        if (!(out[j] = stack(c, per[j], (int)batch, 0, false)))
            return false;
    return true;
}

static const onnx_op_entry entries[] = {
    {"If", h_if, "if", {"get_tuple_elem"}, 1},
    {"Loop", h_loop, "concat", {"unsqueeze", "loop", "get_tuple_elem"}, 0},
    {"Scan", h_scan, "slice", {"squeeze", "concat", "unsqueeze"}, 0},
};

const onnx_op_table onnx_ops_control = {entries, (int)(sizeof entries / sizeof entries[0])};

bool onnx_takes_subgraphs(const onnx_op_entry *e)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (e == &entries[i])
            return true;
    return false;
}
