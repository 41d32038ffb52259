/* emit_dense.c: ops where each output element is a sum (or an elimination)
 * over many input elements with no tiling to share: convolution_backwards
 * (ConvTranspose), dft and det.
 *
 * All compute in double precision and round once on store, as the reference
 * executor does (ops/kernels_deconv.c, kernels_signal.c, kernels_linalg.c),
 * visiting terms in the reference's order so the sums match it.
 *  - convolution_backwards: one thread per output element gathers its
 *    contributions: for each input channel of its group and each kernel
 *    offset (row-major), the input position it comes from, if the stride
 *    divides it and it lies inside the input.
 *  - dft: one thread per output frequency (both parts); the twiddles
 *    e^(-+2 pi i m / N) for m < N are a `static const` table computed here
 *    with detmath.h's sine and cosine, the reference's very values.
 *  - det: one thread per matrix, Gaussian elimination with partial pivoting
 *    on the thread's own copy of its matrix in a scratch buffer.
 */
#include "cg_emit.h"

#include "detmath.h"
#include "ops_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void dim_of(const shape *s, int d, const char *j, char *out, size_t size)
{
    snprintf(out, size, "(long long)((%s / %lldull) %% %lldull)", j,
             (long long)cg_product(s->lens, d + 1, s->rank), (long long)s->lens[d]);
}

static void store_at(cg_kgen *g, const cg_access *out, graft_type t, const char *j,
                     const char *v, int indent)
{
    char off[1400], conv[1600];
    cg_offset_linear(g, out, j, indent, off, sizeof off);
    cg_store_conversion(t, "double", v, conv, sizeof conv);
    cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", cg_param(g, out->buffer, true), off,
              conv);
}

/* ---- convolution_backwards ---- */

bool cg_emit_convolution_backwards(cg_kgen *g, const ins *i, const cg_access *in,
                                   const cg_access *out)
{
    g->kind = "convolution_backwards";
    const shape *x = &i->args[0]->sh, *w = &i->args[1]->sh, *o = &i->sh;
    int k = x->rank - 2;
    const attr_value *pad = ins_attr(i, "padding"), *stride = ins_attr(i, "stride");
    const attr_value *dil = ins_attr(i, "dilation");
    int64_t group = ins_attr(i, "group")->u.i;
    if (k < 1 || stride->n != k || dil->n != k || (pad->n != k && pad->n != 2 * k) || group < 1)
        return cg_fail(g, "convolution_backwards: attributes do not fit the operands");
    int64_t cin_g = x->lens[1] / group, cout_g = w->lens[1];
    cg_text *b = &g->body;
    cg_open_loop(g, shape_elements(o), 256);
    char dim[160];
    for (int d = 0; d < o->rank; d++) {
        dim_of(o, d, "i", dim, sizeof dim);
        cg_printf(b, "        const long long q%d = %s;\n", d, dim);
    }
    cg_printf(b, "        const long long grp = q1 / %lldLL, ocg = q1 %% %lldLL;\n",
              (long long)cout_g, (long long)cout_g);
    cg_printf(b, "        double acc = 0;\n");
    cg_printf(b, "        for (long long icg = 0; icg < %lldLL; icg++) {\n", (long long)cin_g);
    cg_printf(b, "            const long long ic = grp * %lldLL + icg;\n", (long long)cin_g);
    int ind = 12;
    for (int a = 0; a < k; a++) {
        cg_printf(b, "%*sfor (long long k%d = 0; k%d < %lldLL; k%d++) {\n", ind, "", a, a,
                  (long long)w->lens[a + 2], a);
        ind += 4;
        cg_printf(b, "%*sconst long long t%d = q%d + %lldLL - k%d * %lldLL;\n", ind, "", a, a + 2,
                  (long long)pad->u.ints[a], a, (long long)dil->u.ints[a]);
        cg_printf(b, "%*sif (t%d < 0 || t%d %% %lldLL != 0 || t%d / %lldLL >= %lldLL) continue;\n",
                  ind, "", a, a, (long long)stride->u.ints[a], a, (long long)stride->u.ints[a],
                  (long long)x->lens[a + 2]);
    }
    const char *xi[SHAPE_MAX_RANK], *wi[SHAPE_MAX_RANK];
    char xn[SHAPE_MAX_RANK][32], wn[SHAPE_MAX_RANK][16];
    xi[0] = "q0";
    xi[1] = "ic";
    wi[0] = "ic";
    wi[1] = "ocg";
    for (int a = 0; a < k; a++) {
        snprintf(xn[a], sizeof xn[a], "t%d / %lldLL", a, (long long)stride->u.ints[a]);
        snprintf(wn[a], sizeof wn[a], "k%d", a);
        xi[a + 2] = xn[a];
        wi[a + 2] = wn[a];
    }
    char xoff[1400], woff[1400], xe[1500], we[1500];
    cg_offset_multi(g, &in[0], xi, ind, xoff, sizeof xoff);
    cg_offset_multi(g, &in[1], wi, ind, woff, sizeof woff);
    cg_element(g, &in[0], xoff, xe, sizeof xe);
    cg_element(g, &in[1], woff, we, sizeof we);
    cg_printf(b, "%*sacc += (double)%s * (double)%s;\n", ind, "", xe, we);
    for (; ind > 8; ind -= 4)
        cg_printf(b, "%*s}\n", ind - 4, "");
    store_at(g, out, o->type, "i", "acc", 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}

/* ---- dft ---- */

bool cg_emit_dft(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "dft";
    const shape *s = &i->args[0]->sh, *o = &i->sh;
    shape inputs[1] = {*s};
    op_call call;
    ins_op_call(i, &call, inputs);
    int r = s->rank, axis;
    if (!ops_normalize_axis(&call, "axis", op_attr_int(&call, "axis"), r, &axis, g->err))
        return cg_fail(g, "dft: %s", g->err ? g->err->message : "bad axis");
    bool inverse = op_attr_int(&call, "inverse") != 0;
    int64_t n = op_attr_int(&call, "length"), in_len = s->lens[axis], parts = s->lens[r - 1];
    if (n == 0)
        n = in_len;
    int64_t used = in_len < n ? in_len : n;
    const double two_pi = 6.283185307179586476925286766559;
    double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / (double)n : 1;
    cg_text *b = &g->body;
    cg_printf(b, "    static const double twiddle[%lld] = {", (long long)(2 * n));
    for (int64_t m = 0; m < n; m++) {
        double angle = sign * two_pi * (double)m / (double)n;
        cg_printf(b, "%s%.17g, %.17g", m ? (m % 3 ? ", " : ",\n        ") : "", det_cos(angle),
                  det_sin(angle));
    }
    cg_puts(b, "};\n");
    /* one thread per complex output: the output's index without its last axis */
    int64_t count = shape_elements(o) / 2;
    cg_open_loop(g, count, 256);
    int64_t inner = cg_product(s->lens, axis + 1, r - 1);
    cg_printf(b, "        const long long outer = (long long)(i / %lldull), k = (long long)(i / "
                 "%lldull %% %lldull), in = (long long)(i %% %lldull);\n",
              (long long)(o->lens[axis] * inner), (long long)inner, (long long)o->lens[axis],
              (long long)inner);
    cg_puts(b, "        double re = 0, im = 0;\n");
    cg_printf(b, "        for (long long t = 0; t < %lldLL; t++) {\n", (long long)used);
    /* x's linear index of (outer, t, in, part) */
    char j[256], off[1400], el[1500];
    snprintf(j, sizeof j, "(%s)(((outer * %lldLL + t) * %lldLL + in) * %lldLL)", g->idx,
             (long long)in_len, (long long)inner, (long long)parts);
    cg_offset_linear(g, &in[0], j, 12, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(b, "            const double xr = (double)%s;\n", el);
    if (parts == 2) {
        char j1[300];
        snprintf(j1, sizeof j1, "%s + 1u", j);
        cg_offset_linear(g, &in[0], j1, 12, off, sizeof off);
        cg_element(g, &in[0], off, el, sizeof el);
        cg_printf(b, "            const double xi = (double)%s;\n", el);
    } else {
        cg_puts(b, "            const double xi = 0;\n");
    }
    cg_printf(b, "            const long long m = (k * t) %% %lldLL;\n", (long long)n);
    cg_puts(b, "            const double c = twiddle[2 * m], sn = twiddle[2 * m + 1];\n"
               "            re += xr * c - xi * sn;\n"
               "            im += xr * sn + xi * c;\n        }\n");
    if (inverse) {
        cg_printf(b, "        re = re * %.17g;\n        im = im * %.17g;\n", scale, scale);
    }
    store_at(g, out, o->type, "2u * i", "re", 8);
    store_at(g, out, o->type, "2u * i + 1u", "im", 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}

/* ---- det ---- */

bool cg_emit_det(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "det";
    const shape *s = &i->args[0]->sh, *o = &i->sh;
    int64_t m = s->lens[s->rank - 1], mm = m * m;
    int64_t count = shape_elements(s) / (mm > 0 ? mm : 1);
    int scratch = cg_scratch_buffer(g, i, 0, GRAFT_DOUBLE, count * (mm > 0 ? mm : 1));
    if (scratch < 0)
        return false;
    int sp = cg_param(g, scratch, true);
    cg_text *b = &g->body;
    cg_open_loop(g, count, 256);
    cg_printf(b, "        double *mat = p%d + (unsigned long long)i * %lldull;\n", sp,
              (long long)mm);
    cg_printf(b, "        for (long long e = 0; e < %lldLL; e++) {\n", (long long)mm);
    char j[200], off[1400], el[1500];
    snprintf(j, sizeof j, "(%s)(i * %lldull + (unsigned long long)e)", g->idx, (long long)mm);
    cg_offset_linear(g, &in[0], j, 12, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(b, "            mat[e] = (double)%s;\n        }\n", el);
    cg_printf(b,
              "        double det = 1;\n"
              "        for (long long col = 0; col < %lldLL && det != 0; col++) {\n"
              "            long long pivot = col;\n"
              "            for (long long r = col + 1; r < %lldLL; r++)\n"
              "                if (fabs(mat[r * %lldLL + col]) > fabs(mat[pivot * %lldLL + col]))\n"
              "                    pivot = r;\n"
              "            if (mat[pivot * %lldLL + col] == 0) {\n"
              "                det = 0;\n"
              "                break;\n"
              "            }\n"
              "            if (pivot != col) {\n"
              "                for (long long c = 0; c < %lldLL; c++) {\n"
              "                    const double t = mat[col * %lldLL + c];\n"
              "                    mat[col * %lldLL + c] = mat[pivot * %lldLL + c];\n"
              "                    mat[pivot * %lldLL + c] = t;\n"
              "                }\n"
              "                det = -det;\n"
              "            }\n"
              "            const double p = mat[col * %lldLL + col];\n"
              "            det *= p;\n"
              "            for (long long r = col + 1; r < %lldLL; r++) {\n"
              "                const double f = mat[r * %lldLL + col] / p;\n"
              "                for (long long c = col; c < %lldLL; c++)\n"
              "                    mat[r * %lldLL + c] -= f * mat[col * %lldLL + c];\n"
              "            }\n"
              "        }\n",
              (long long)m, (long long)m, (long long)m, (long long)m, (long long)m, (long long)m,
              (long long)m, (long long)m, (long long)m, (long long)m, (long long)m, (long long)m,
              (long long)m, (long long)m, (long long)m, (long long)m);
    store_at(g, out, o->type, "i", "det", 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}
