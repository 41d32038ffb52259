/* emit_resample.c: ops where each output element interpolates a few input
 * elements at positions computed from its own index or from data: resize,
 * grid_sample and roialign.
 *
 * One thread per output element in a grid-stride loop, computing in double
 * precision and rounding once on store, as the reference executor
 * (ops/kernels_resize.c, ops/kernels_vision.c) does.
 *  - resize: the per-axis plans (window start, coefficients, extrapolation)
 *    depend on shapes and attributes only, so they are computed here by the
 *    reference's own planner (ops/resize_plan.h) and written into the kernel
 *    as `static const` tables. The kernel sums the window of each
 *    non-identity axis as nested loops, the first axis outermost, so the
 *    sums associate exactly as the reference's axis-by-axis passes do.
 *  - grid_sample: per output element, the grid's coordinates become a
 *    first tap and 1, 2 or 4 weights per axis; the taps are nested loops
 *    over the axes with the padding rule applied to each position.
 *  - roialign: per output bin, the roi's box and sampling grid are read from
 *    the rois and batch index operands; the sample loop is data-dependent.
 */
#include "cg_emit.h"

#include "ops_util.h"
#include "resize_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "(long long)((i / inner) % len)": dimension d of a row-major index i
 * over lens. */
static void dim_of(const shape *s, int d, char *out, size_t size)
{
    snprintf(out, size, "(long long)((i / %lldull) %% %lldull)",
             (long long)cg_product(s->lens, d + 1, s->rank), (long long)s->lens[d]);
}

static void store_result(cg_kgen *g, const cg_access *out, graft_type t, const char *v,
                         int indent)
{
    char off[1400], conv[1600];
    cg_offset_linear(g, out, "i", indent, off, sizeof off);
    cg_store_conversion(t, "double", v, conv, sizeof conv);
    cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", cg_param(g, out->buffer, true), off,
              conv);
}

/* ---- resize ---- */

typedef struct resize_emit {
    cg_kgen *g;
    const cg_access *in;
    int r;
    int naxes, axes[SHAPE_MAX_RANK]; /* the non-identity axes, first one outermost */
    resize_axis_plan plan[SHAPE_MAX_RANK];
    bool any_extrap[SHAPE_MAX_RANK];
    const shape *x;
    char extrap[64];
} resize_emit;

static void resize_tables(resize_emit *e, int a, int64_t out_len)
{
    cg_text *b = &e->g->body;
    const resize_axis_plan *p = &e->plan[a];
    cg_printf(b, "    static const long long first%d[%lld] = {", a, (long long)out_len);
    for (int64_t o = 0; o < out_len; o++)
        cg_printf(b, "%s%lld", o ? (o % 16 ? ", " : ",\n        ") : "", (long long)p->first[o]);
    cg_printf(b, "};\n    static const double coef%d[%lld] = {", a, (long long)out_len * p->n);
    for (int64_t k = 0; k < out_len * p->n; k++) {
        char lit[64];
        cg_double_literal(p->coef[k], lit, sizeof lit);
        cg_printf(b, "%s%s", k ? (k % 6 ? ", " : ",\n        ") : "", lit);
    }
    cg_puts(b, "};\n");
    e->any_extrap[a] = false;
    for (int64_t o = 0; o < out_len; o++)
        e->any_extrap[a] = e->any_extrap[a] || p->extrap[o];
    if (e->any_extrap[a]) {
        cg_printf(b, "    static const unsigned char extrap%d[%lld] = {", a, (long long)out_len);
        for (int64_t o = 0; o < out_len; o++)
            cg_printf(b, "%s%d", o ? (o % 32 ? ", " : ",\n        ") : "", p->extrap[o] ? 1 : 0);
        cg_puts(b, "};\n");
    }
}

/* The value of level L (axis axes[L] and the ones inside it) into `v<L>`,
 * with the positions of the outer levels fixed in h<axis>. */
static void resize_level(resize_emit *e, int level, int indent)
{
    cg_kgen *g = e->g;
    cg_text *b = &g->body;
    if (level == e->naxes) {
        const char *idx[SHAPE_MAX_RANK];
        char names[SHAPE_MAX_RANK][16];
        for (int d = 0; d < e->r; d++) {
            snprintf(names[d], sizeof names[d], "h%d", d);
            idx[d] = names[d];
        }
        char off[1400], el[1500];
        cg_offset_multi(g, e->in, idx, indent, off, sizeof off);
        cg_element(g, e->in, off, el, sizeof el);
        cg_printf(b, "%*sconst double v%d = (double)%s;\n", indent, "", level, el);
        return;
    }
    int a = e->axes[level];
    const resize_axis_plan *p = &e->plan[a];
    int64_t len = e->x->lens[a];
    cg_printf(b, "%*sdouble v%d = 0;\n", indent, "", level);
    if (e->any_extrap[a])
        cg_printf(b, "%*sif (extrap%d[o%d]) v%d = %s; else\n", indent, "", a, a, level,
                  e->extrap);
    cg_printf(b, "%*sfor (int k%d = 0; k%d < %d; k%d++) {\n", indent, "", a, a, p->n, a);
    cg_printf(b, "%*s    const double c%d = coef%d[o%d * %d + k%d];\n", indent, "", a, a, a, p->n,
              a);
    cg_printf(b, "%*s    if (c%d == 0) continue;\n", indent, "", a);
    cg_printf(b, "%*s    long long h%d = first%d[o%d] + k%d;\n", indent, "", a, a, a, a);
    cg_printf(b, "%*s    h%d = h%d < 0 ? 0 : h%d >= %lldLL ? %lldLL : h%d;\n", indent, "", a, a, a,
              (long long)len, (long long)len - 1, a);
    resize_level(e, level + 1, indent + 4);
    cg_printf(b, "%*s    v%d += c%d * v%d;\n%*s}\n", indent, "", level, a, level + 1, indent, "");
}

bool cg_emit_resize(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "resize";
    const shape *x = &i->args[0]->sh, *o = &i->sh;
    shape inputs[1] = {*x};
    op_call call;
    ins_op_call(i, &call, inputs);
    resize_emit e;
    memset(&e, 0, sizeof e);
    e.g = g;
    e.in = &in[0];
    e.r = x->rank;
    e.x = x;
    cg_double_literal(op_attr_float(&call, "extrapolation_value"), e.extrap, sizeof e.extrap);
    bool ok = true;
    for (int a = 0; a < e.r && ok; a++) {
        double s = resize_axis_scale(&call, a, x->lens[a], o->lens[a]);
        ok = resize_plan_axis(&call, &e.plan[a], a, x->lens[a], o->lens[a], s);
        if (ok && !e.plan[a].identity)
            e.axes[e.naxes++] = a;
    }
    if (ok) {
        cg_text *b = &g->body;
        for (int k = 0; k < e.naxes; k++)
            resize_tables(&e, e.axes[k], o->lens[e.axes[k]]);
        cg_open_loop(g, shape_elements(o), 256);
        for (int d = 0; d < e.r; d++) {
            char dim[128];
            dim_of(o, d, dim, sizeof dim);
            bool planned = !e.plan[d].identity;
            cg_printf(b, "        %s %s%d = %s;\n", planned ? "const long long" : "long long",
                      planned ? "o" : "h", d, dim);
        }
        resize_level(&e, 0, 8);
        store_result(g, out, o->type, "v0", 8);
        cg_puts(b, "    }\n");
    }
    for (int a = 0; a < e.r; a++)
        resize_plan_free(&e.plan[a]);
    if (!ok)
        return cg_fail(g, "out of memory");
    return !g->failed;
}

/* ---- grid_sample ---- */

enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

/* Statements reflecting double variable v off [lo, hi] in place, as the
 * reference's gs_reflect does. */
static void reflect_into(cg_text *b, const char *v, double lo, double hi, int indent)
{
    double range = hi - lo;
    if (range <= 0) {
        cg_printf(b, "%*s%s = %.17g;\n", indent, "", v, lo);
        return;
    }
    cg_printf(b,
              "%*sif (%s < %.17g) {\n"
              "%*s    const double dx = %.17g - %s, n = floor(dx / %.17g), r = dx - n * %.17g;\n"
              "%*s    %s = fmod(n, 2.0) == 0 ? %.17g + r : %.17g - r;\n"
              "%*s} else if (%s > %.17g) {\n"
              "%*s    const double dx = %s - %.17g, n = floor(dx / %.17g), r = dx - n * %.17g;\n"
              "%*s    %s = fmod(n, 2.0) == 0 ? %.17g - r : %.17g + r;\n"
              "%*s}\n",
              indent, "", v, lo, indent, "", lo, v, range, range, indent, "", v, lo, hi, indent,
              "", v, hi, indent, "", v, hi, range, range, indent, "", v, hi, lo, indent, "");
}

bool cg_emit_grid_sample(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "grid_sample";
    const shape *x = &i->args[0]->sh, *o = &i->sh;
    int k = x->rank - 2;
    if (k < 1)
        return cg_fail(g, "grid_sample: the input needs a spatial axis");
    int mode = (int)ins_attr(i, "mode")->u.i, pad = (int)ins_attr(i, "padding_mode")->u.i;
    bool align = ins_attr(i, "align_corners")->u.i != 0;
    int taps = mode == GS_NEAREST ? 1 : mode == GS_LINEAR ? 2 : 4;
    cg_text *b = &g->body;
    cg_open_loop(g, shape_elements(o), 256);
    char dim[128];
    for (int d = 0; d < o->rank; d++) {
        dim_of(o, d, dim, sizeof dim);
        cg_printf(b, "        const long long q%d = %s;\n", d, dim);
    }
    for (int a = 0; a < k; a++) {
        int64_t len = x->lens[a + 2];
        double lo = align ? 0 : -0.5, hi = align ? (double)(len - 1) : (double)len - 0.5;
        /* the grid element (batch, output position..., k - 1 - a) */
        const char *gidx[SHAPE_MAX_RANK];
        char names[SHAPE_MAX_RANK][16], last[16];
        snprintf(names[0], sizeof names[0], "q0");
        gidx[0] = names[0];
        for (int d = 0; d < k; d++) {
            snprintf(names[d + 1], sizeof names[d + 1], "q%d", d + 2);
            gidx[d + 1] = names[d + 1];
        }
        snprintf(last, sizeof last, "%d", k - 1 - a);
        gidx[k + 1] = last;
        char off[1400], el[1500];
        cg_offset_multi(g, &in[1], gidx, 8, off, sizeof off);
        cg_element(g, &in[1], off, el, sizeof el);
        cg_printf(b, "        long long f%d;\n        double w%d[4];\n        {\n", a, a);
        cg_printf(b, "            const double v = (double)%s;\n", el);
        if (align)
            cg_printf(b, "            double c = (v + 1) / 2 * %.17g;\n", (double)(len - 1));
        else
            cg_printf(b, "            double c = ((v + 1) * %.17g - 1) / 2;\n", (double)len);
        if (pad == GS_BORDER)
            cg_printf(b, "            if (c < %.17g || c > %.17g)\n"
                         "                c = c < 0 ? 0 : c > %.17g ? %.17g : c;\n",
                      lo, hi, (double)(len - 1), (double)(len - 1));
        else if (pad == GS_REFLECTION)
            reflect_into(b, "c", lo, hi, 12);
        cg_puts(b, "            if (!(c > -1e9)) c = -1e9;\n            if (c > 1e9) c = 1e9;\n");
        if (mode == GS_NEAREST)
            cg_printf(b, "            f%d = (long long)rint(c);\n            w%d[0] = 1;\n", a, a);
        else if (mode == GS_LINEAR)
            cg_printf(b, "            const double fl = floor(c);\n"
                         "            f%d = (long long)fl;\n"
                         "            w%d[0] = 1 - (c - fl);\n            w%d[1] = c - fl;\n",
                      a, a, a);
        else
            cg_printf(b,
                      "            const double fl = floor(c), t = c - fl, a = -0.75;\n"
                      "            const double t1 = t + 1, u = 1 - t, u1 = 2 - t;\n"
                      "            f%d = (long long)fl - 1;\n"
                      "            w%d[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;\n"
                      "            w%d[1] = ((a + 2) * t - (a + 3)) * t * t + 1;\n"
                      "            w%d[2] = ((a + 2) * u - (a + 3)) * u * u + 1;\n"
                      "            w%d[3] = ((a * u1 - 5 * a) * u1 + 8 * a) * u1 - 4 * a;\n",
                      a, a, a, a, a);
        cg_puts(b, "        }\n");
    }
    cg_puts(b, "        double acc = 0;\n");
    for (int a = 0; a < k; a++)
        cg_printf(b, "%*sfor (int t%d = 0; t%d < %d; t%d++) {\n", 8 + 4 * a, "", a, a, taps, a);
    int ind = 8 + 4 * k;
    cg_printf(b, "%*sint zero = 0;\n%*sdouble weight = 1;\n", ind, "", ind, "");
    for (int a = k - 1; a >= 0; a--) {
        int64_t len = x->lens[a + 2];
        double lo = align ? 0 : -0.5, hi = align ? (double)(len - 1) : (double)len - 0.5;
        cg_printf(b, "%*slong long h%d = f%d + t%d;\n", ind, "", a, a, a);
        cg_printf(b, "%*sif (h%d < 0 || h%d >= %lldLL) {\n", ind, "", a, a, (long long)len);
        if (pad == GS_ZEROS) {
            cg_printf(b, "%*s    zero = 1;\n%*s    h%d = 0;\n", ind, "", ind, "", a);
        } else if (pad == GS_BORDER) {
            cg_printf(b, "%*s    h%d = h%d < 0 ? 0 : %lldLL;\n", ind, "", a, a,
                      (long long)len - 1);
        } else {
            cg_printf(b, "%*s    double c = (double)h%d;\n", ind, "", a);
            reflect_into(b, "c", lo, hi, ind + 4);
            cg_printf(b, "%*s    h%d = (long long)c;\n", ind, "", a);
            cg_printf(b, "%*s    h%d = h%d < 0 ? 0 : h%d >= %lldLL ? %lldLL : h%d;\n", ind, "", a,
                      a, a, (long long)len, (long long)len - 1, a);
        }
        cg_printf(b, "%*s}\n%*sweight *= w%d[t%d];\n", ind, "", ind, "", a, a);
    }
    const char *idx[SHAPE_MAX_RANK];
    char names[SHAPE_MAX_RANK][16];
    snprintf(names[0], sizeof names[0], "q0");
    snprintf(names[1], sizeof names[1], "q1");
    idx[0] = names[0];
    idx[1] = names[1];
    for (int a = 0; a < k; a++) {
        snprintf(names[a + 2], sizeof names[a + 2], "h%d", a);
        idx[a + 2] = names[a + 2];
    }
    char off[1400], el[1500];
    cg_offset_multi(g, &in[0], idx, ind, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(b, "%*sif (!zero)\n%*s    acc += weight * (double)%s;\n", ind, "", ind, "", el);
    for (int a = k - 1; a >= 0; a--)
        cg_printf(b, "%*s}\n", 8 + 4 * a, "");
    store_result(g, out, o->type, "acc", 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}

/* ---- roialign ---- */

bool cg_emit_roialign(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "roialign";
    const shape *x = &i->args[0]->sh, *o = &i->sh;
    if (x->rank != 4 || o->rank != 4)
        return cg_fail(g, "roialign: expects 4-d input and output");
    int64_t height = x->lens[2], width = x->lens[3], oh = o->lens[2], ow = o->lens[3];
    int64_t ratio = ins_attr(i, "sampling_ratio")->u.i;
    double scale = ins_attr(i, "spatial_scale")->u.f;
    bool half_pixel = ins_attr(i, "coordinate_transformation_mode")->u.i == 0;
    bool avg = ins_attr(i, "mode")->u.i == 0;
    cg_text *b = &g->body;
    cg_open_loop(g, shape_elements(o), 256);
    char dim[128];
    for (int d = 0; d < 4; d++) {
        dim_of(o, d, dim, sizeof dim);
        cg_printf(b, "        const long long q%d = %s;\n", d, dim);
    }
    char off[1400], el[1500], roi[4][1500], bidx[1500];
    for (int c = 0; c < 4; c++) {
        char col[16];
        snprintf(col, sizeof col, "%d", c);
        const char *ridx[2] = {"q0", col};
        cg_offset_multi(g, &in[1], ridx, 8, off, sizeof off);
        cg_element(g, &in[1], off, roi[c], sizeof roi[c]);
    }
    const char *bi[1] = {"q0"};
    cg_offset_multi(g, &in[2], bi, 8, off, sizeof off);
    cg_element(g, &in[2], off, bidx, sizeof bidx);
    double offset = half_pixel ? 0.5 : 0;
    cg_printf(b, "        const long long n = (long long)%s;\n", bidx);
    cg_printf(b,
              "        const double x0 = (double)%s * %.17g - %.17g, y0 = (double)%s * %.17g - "
              "%.17g;\n"
              "        const double x1 = (double)%s * %.17g - %.17g, y1 = (double)%s * %.17g - "
              "%.17g;\n",
              roi[0], scale, offset, roi[1], scale, offset, roi[2], scale, offset, roi[3], scale,
              offset);
    cg_puts(b, "        double rw = x1 - x0, rh = y1 - y0;\n");
    if (!half_pixel)
        cg_puts(b, "        rw = fmax(rw, 1.0);\n        rh = fmax(rh, 1.0);\n");
    cg_printf(b, "        const double bh = rh / %.17g, bw = rw / %.17g;\n", (double)oh,
              (double)ow);
    if (ratio > 0)
        cg_printf(b, "        const double ghd = %.17g, gwd = %.17g;\n", (double)ratio,
                  (double)ratio);
    else
        cg_printf(b, "        const double ghd = ceil(rh / %.17g), gwd = ceil(rw / %.17g);\n",
                  (double)oh, (double)ow);
    /* a batch index out of range or a sampling grid beyond the reference's
     * bound (where the reference reports an error) gives NaN */
    cg_printf(b,
              "        double acc = 0;\n"
              "        if (!(n >= 0 && n < %lldLL && ghd >= 0 && gwd >= 0 && ghd <= 4096 && "
              "gwd <= 4096)) {\n"
              "            acc = GRAFT_INF_D - GRAFT_INF_D;\n"
              "        } else {\n"
              "            const long long gh = (long long)ghd, gw = (long long)gwd;\n"
              "            const double count = (double)(gh * gw > 1 ? gh * gw : 1);\n"
              "            int any = 0;\n"
              "            for (long long iy = 0; iy < gh; iy++)\n"
              "                for (long long ix = 0; ix < gw; ix++) {\n"
              "                    double yy = y0 + (double)q2 * bh + ((double)iy + 0.5) * bh / "
              "(double)gh;\n"
              "                    double xx = x0 + (double)q3 * bw + ((double)ix + 0.5) * bw / "
              "(double)gw;\n"
              "                    double v = 0;\n"
              "                    if (yy >= -1.0 && yy <= %.17g && xx >= -1.0 && xx <= %.17g) "
              "{\n"
              "                        yy = yy <= 0 ? 0 : yy;\n"
              "                        xx = xx <= 0 ? 0 : xx;\n"
              "                        long long ylo = (long long)yy, xlo = (long long)xx, yhi, "
              "xhi;\n"
              "                        if (ylo >= %lldLL) {\n"
              "                            yhi = ylo = %lldLL;\n"
              "                            yy = (double)ylo;\n"
              "                        } else {\n"
              "                            yhi = ylo + 1;\n"
              "                        }\n"
              "                        if (xlo >= %lldLL) {\n"
              "                            xhi = xlo = %lldLL;\n"
              "                            xx = (double)xlo;\n"
              "                        } else {\n"
              "                            xhi = xlo + 1;\n"
              "                        }\n"
              "                        const double ly = yy - (double)ylo, lx = xx - (double)xlo;\n"
              "                        const double hy = 1 - ly, hx = 1 - lx;\n",
              (long long)x->lens[0], (double)height, (double)width, (long long)height - 1,
              (long long)height - 1, (long long)width - 1, (long long)width - 1);
    const char *corner[4][2] = {{"ylo", "xlo"}, {"ylo", "xhi"}, {"yhi", "xlo"}, {"yhi", "xhi"}};
    const char *wt[4] = {"hy * hx", "hy * lx", "ly * hx", "ly * lx"};
    for (int c = 0; c < 4; c++) {
        const char *idx[4] = {"n", "q1", corner[c][0], corner[c][1]};
        cg_offset_multi(g, &in[0], idx, 24, off, sizeof off);
        cg_element(g, &in[0], off, el, sizeof el);
        cg_printf(b, "                        const double v%d = %s * (double)%s;\n", c + 1, wt[c],
                  el);
    }
    if (avg)
        cg_puts(b, "                        v = v1 + v2 + v3 + v4;\n");
    else
        cg_puts(b, "                        v = fmax(fmax(v1, v2), fmax(v3, v4));\n");
    cg_puts(b, "                    }\n");
    if (avg)
        cg_puts(b, "                    acc += v;\n");
    else
        cg_puts(b, "                    acc = any ? fmax(acc, v) : v;\n");
    cg_puts(b, "                    any = 1;\n                }\n");
    cg_puts(b, avg ? "            acc = acc / count;\n            (void)any;\n"
                   : "            (void)count;\n");
    cg_puts(b, "        }\n");
    store_result(g, out, o->type, "acc", 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}
