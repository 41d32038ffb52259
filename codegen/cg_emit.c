/* cg_emit.c: the pieces every kernel emitter uses: growing text, kernel
 * parameters, C spellings of types, index arithmetic and pointwise op
 * expressions.
 *
 * Index arithmetic is where views become free. A value's access (cg_access)
 * is a chain of strided maps; a consumer asks for the element at a linear
 * index or at a multi-index and gets an offset expression with every length
 * and stride a literal. Dimensions of length 1 drop out, and runs of
 * dimensions that are contiguous in the access merge, so an operand that
 * shares the iteration's standard layout is read as p[i] (linear indexing)
 * and a broadcast or transposed one with one division and one modulo per run
 * of dimensions (per-dimension index math).
 *
 * Pointwise expressions come from the op table's point_op templates (float
 * math); double kernels use the same templates with the double functions,
 * and integer kernels an integer form that wraps like the reference
 * executor's, where the op has one.
 */
#include "cg_emit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

void cg_puts(cg_text *t, const char *s) { strbuf_append_string(t, s); }

void cg_printf(cg_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_appendv(t, fmt, ap);
    va_end(ap);
}

void cg_text_free(cg_text *t) { strbuf_free(t); }

char *cg_text_take(cg_text *t) { return strbuf_take(t, NULL); }

/* ---- the kernel being built ---- */

bool cg_fail(cg_kgen *g, const char *fmt, ...)
{
    if (!g->failed) {
        va_list ap;
        va_start(ap, fmt);
        error_setv(g->err, fmt, ap);
        va_end(ap);
        g->failed = true;
    }
    return false;
}

int cg_param(cg_kgen *g, int buffer, bool writes)
{
    for (int k = 0; k < g->nparams; k++)
        if (g->param_buffer[k] == buffer && !writes && !g->param_writes[k])
            return k;
    if (g->nparams == CG_MAX_PARAMS) {
        cg_fail(g, "kernel %s: more than %d parameters", g->name, CG_MAX_PARAMS);
        return 0;
    }
    g->param_buffer[g->nparams] = buffer;
    g->param_writes[g->nparams] = writes;
    return g->nparams++;
}

const char *cg_fresh(cg_kgen *g, char *buf, size_t size)
{
    snprintf(buf, size, "t%d", g->tmp++);
    return buf;
}

const char *cg_label(const cg_program *p, const ins *i, char *buf, size_t size)
{
    if (p && i->id < p->nlabels && p->labels[i->id])
        return p->labels[i->id];
    if (i->name)
        return i->name;
    snprintf(buf, size, "@%u", i->id);
    return buf;
}

void cg_cite(cg_kgen *g, const ins *i)
{
    if (g->p && g->p->sourceless)
        return; /* the comment and origin are source text */
    char args[512] = "", l[160];
    size_t used = 0;
    for (int k = 0; k < i->nargs && used < sizeof args - 40; k++)
        used += (size_t)snprintf(args + used, sizeof args - used, "%s%s", k ? ", " : "",
                                 cg_label(g->p, i->args[k], l, sizeof l));
    char sh[256];
    shape_print(&i->sh, sh, sizeof sh);
    const char *me = cg_label(g->p, i, l, sizeof l);
    cg_printf(&g->head, " *   %s = %s(%s) -> %s\n", me, i->opname, args, sh);
    cg_printf(&g->origin, "%s%s", g->origin.len ? " " : "", me);
}

void cg_cite_body(cg_kgen *g, const module *body)
{
    for (const ins *b = body->first; b; b = b->next)
        if (!b->param && !ins_is(b, "@literal") && !ins_is(b, "@return"))
            cg_cite(g, b);
}

/* ---- types ---- */

const char *cg_storage_type(graft_type t)
{
    switch (t) {
    case GRAFT_BOOL: return "unsigned char";
    case GRAFT_HALF: return "__half";
    case GRAFT_FLOAT: return "float";
    case GRAFT_DOUBLE: return "double";
    case GRAFT_UINT8: return "unsigned char";
    case GRAFT_INT8: return "signed char";
    case GRAFT_UINT16: return "unsigned short";
    case GRAFT_INT16: return "short";
    case GRAFT_INT32: return "int";
    case GRAFT_INT64: return "long long";
    case GRAFT_UINT32: return "unsigned";
    case GRAFT_UINT64: return "unsigned long long";
    case GRAFT_BF16: return "unsigned short";
    default: return NULL;
    }
}

bool cg_type_supported(graft_type t) { return cg_storage_type(t) != NULL; }

const char *cg_compute_type(graft_type t)
{
    switch (t) {
    case GRAFT_HALF:
    case GRAFT_BF16:
    case GRAFT_FLOAT: return "float";
    case GRAFT_DOUBLE: return "double";
    default: return "long long";
    }
}

static void int_range(graft_type t, const char **lo, const char **hi)
{
    switch (t) {
    case GRAFT_UINT8: *lo = "0.0"; *hi = "255.0"; return;
    case GRAFT_INT8: *lo = "-128.0"; *hi = "127.0"; return;
    case GRAFT_UINT16: *lo = "0.0"; *hi = "65535.0"; return;
    case GRAFT_INT16: *lo = "-32768.0"; *hi = "32767.0"; return;
    case GRAFT_INT32: *lo = "-2147483648.0"; *hi = "2147483647.0"; return;
    case GRAFT_UINT32: *lo = "0.0"; *hi = "4294967295.0"; return;
    case GRAFT_UINT64: *lo = "0.0"; *hi = "9223372036854775807.0"; return;
    default: *lo = "-9223372036854775808.0"; *hi = "9223372036854775807.0"; return;
    }
}

void cg_store_conversion(graft_type t, const char *from, const char *v, char *out, size_t size)
{
    const char *st = cg_storage_type(t);
    bool from_float = strcmp(from, "long long") != 0;
    if (t == GRAFT_BOOL)
        snprintf(out, size, "(unsigned char)((%s) != 0)", v);
    else if (t == GRAFT_BF16)
        snprintf(out, size, "graft_f_to_bf16((float)(%s))", v);
    else if (type_is_float(t) || !from_float)
        snprintf(out, size, "(%s)(%s)", st, v);
    else {
        const char *lo, *hi;
        int_range(t, &lo, &hi);
        snprintf(out, size, "(%s)graft_f2i((double)(%s), %s, %s)", st, v, lo, hi);
    }
}

/* ---- index arithmetic ---- */

void cg_standard_strides(int rank, const int64_t *lens, int64_t *strides)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= lens[d] > 0 ? lens[d] : 1;
    }
}

int64_t cg_product(const int64_t *lens, int from, int to)
{
    int64_t n = 1;
    for (int d = from; d < to; d++)
        n *= lens[d];
    return n;
}

static const char *suffix(const char *idx_type)
{
    return strcmp(idx_type, "unsigned") == 0 ? "u" : "ull";
}

void cg_level_linear(const cg_level *lv, const char *j, const char *idx_type, char *out,
                     size_t size)
{
    /* non-unit dimensions, outermost first */
    int dims[SHAPE_MAX_RANK], n = 0;
    for (int d = 0; d < lv->rank; d++)
        if (lv->lens[d] != 1)
            dims[n++] = d;
    const char *u = suffix(idx_type);
    size_t used = (size_t)snprintf(out, size, "%lld%s", (long long)lv->offset, u);
    bool any = lv->offset != 0;
    if (!any)
        used = 0, out[0] = 0;
    int64_t inner = 1;
    int b = n - 1;
    while (b >= 0) {
        /* the run a..b of dimensions contiguous in this access */
        int a = b;
        int64_t len = lv->lens[dims[b]];
        while (a > 0 && lv->strides[dims[a - 1]] == lv->strides[dims[a]] * lv->lens[dims[a]]) {
            a--;
            len *= lv->lens[dims[a]];
        }
        int64_t stride = lv->strides[dims[b]];
        if (stride != 0 && used < size) {
            char term[256];
            char div[64] = "", mod[64] = "", mul[64] = "";
            if (inner != 1)
                snprintf(div, sizeof div, " / %lld%s", (long long)inner, u);
            if (a != 0)
                snprintf(mod, sizeof mod, " %% %lld%s", (long long)len, u);
            if (stride != 1)
                snprintf(mul, sizeof mul, " * %lld%s", (long long)stride, u);
            if (div[0] || mod[0])
                snprintf(term, sizeof term, "((%s)%s%s)%s", j, div, mod, mul);
            else
                snprintf(term, sizeof term, "(%s)%s", j, mul);
            used += (size_t)snprintf(out + used, size - used, "%s%s", any ? " + " : "", term);
            any = true;
        }
        inner *= len;
        b = a - 1;
    }
    if (!any)
        snprintf(out, size, "0%s", u);
}

/* Levels 1.. of a: the previous result s is a linear index over each level. */
static void later_levels(cg_kgen *g, const cg_access *a, const char *first, int indent, char *out,
                         size_t size)
{
    char cur[1024];
    snprintf(cur, sizeof cur, "%s", first);
    for (int k = 1; k < a->nlevels; k++) {
        char name[32], expr[1024];
        cg_fresh(g, name, sizeof name);
        cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, name, cur);
        cg_level_linear(&a->lv[k], name, g->idx, expr, sizeof expr);
        snprintf(cur, sizeof cur, "%s", expr);
    }
    snprintf(out, size, "%s", cur);
}

void cg_offset_linear(cg_kgen *g, const cg_access *a, const char *j, int indent, char *out,
                      size_t size)
{
    char first[1024];
    cg_level_linear(&a->lv[0], j, g->idx, first, sizeof first);
    later_levels(g, a, first, indent, out, size);
}

void cg_offset_multi(cg_kgen *g, const cg_access *a, const char *const *idx, int indent,
                     char *out, size_t size)
{
    const cg_level *lv = &a->lv[0];
    const char *u = suffix(g->idx);
    char first[1024];
    size_t used = (size_t)snprintf(first, sizeof first, "%lld%s", (long long)lv->offset, u);
    for (int d = 0; d < lv->rank && used < sizeof first; d++) {
        if (!idx[d] || lv->lens[d] == 1 || lv->strides[d] == 0)
            continue;
        if (lv->strides[d] == 1)
            used += (size_t)snprintf(first + used, sizeof first - used, " + (%s)(%s)", g->idx,
                                     idx[d]);
        else
            used += (size_t)snprintf(first + used, sizeof first - used, " + (%s)(%s) * %lld%s",
                                     g->idx, idx[d], (long long)lv->strides[d], u);
    }
    later_levels(g, a, first, indent, out, size);
}

void cg_element(cg_kgen *g, const cg_access *a, const char *off, char *out, size_t size)
{
    int k = cg_param(g, a->buffer, false);
    if (a->type == GRAFT_BF16)
        snprintf(out, size, "graft_bf16_to_f(p%d[%s])", k, off);
    else
        snprintf(out, size, "p%d[%s]", k, off);
}

void cg_load_linear(cg_kgen *g, const cg_access *a, const char *j, const char *ctype, int indent,
                    char *out, size_t size)
{
    char off[1100], el[1200];
    cg_offset_linear(g, a, j, indent, off, sizeof off);
    cg_element(g, a, off, el, sizeof el);
    cg_fresh(g, out, size);
    cg_printf(&g->body, "%*sconst %s %s = (%s)%s;\n", indent, "", ctype, out, ctype, el);
}

cg_access cg_access_of_buffer(const cg_program *p, int b)
{
    cg_access a;
    memset(&a, 0, sizeof a);
    const shape *s = &p->buffers[b].sh;
    a.buffer = b;
    a.type = s->type;
    a.nlevels = 1;
    a.lv[0].rank = s->rank;
    memcpy(a.lv[0].lens, s->lens, sizeof s->lens);
    memcpy(a.lv[0].strides, s->strides, sizeof s->strides);
    return a;
}

unsigned cg_grid_for(int64_t n, unsigned block)
{
    int64_t blocks = (n + block - 1) / block;
    if (blocks < 1)
        blocks = 1;
    return blocks > CG_MAX_GRID ? CG_MAX_GRID : (unsigned)blocks;
}

void cg_double_literal(double v, char *out, size_t size)
{
    if (isnan(v))
        snprintf(out, size, "(GRAFT_INF_D - GRAFT_INF_D)");
    else if (isinf(v))
        snprintf(out, size, "%sGRAFT_INF_D", v < 0 ? "-" : "");
    else
        snprintf(out, size, "%.17g", v);
}

void cg_grid_stride_loop(cg_kgen *g, int64_t n)
{
    cg_printf(&g->body,
              "    for (%s i = (%s)blockIdx.x * blockDim.x + threadIdx.x; i < (%s)%lldull;\n"
              "         i += (%s)gridDim.x * blockDim.x) {\n",
              g->idx, g->idx, g->idx, (long long)n, g->idx);
}

void cg_open_loop(cg_kgen *g, int64_t n, unsigned block)
{
    g->block = block;
    g->grid = cg_grid_for(n, g->block);
    cg_grid_stride_loop(g, n);
}

/* ---- pointwise expressions ---- */

/* Integer forms (wrapping, division by 0 gives 0), as the reference. */
static const struct {
    const char *op, *expr;
} int_forms[] = {
    {"add", "(long long)((unsigned long long)(${0}) + (unsigned long long)(${1}))"},
    {"sub", "(long long)((unsigned long long)(${0}) - (unsigned long long)(${1}))"},
    {"mul", "(long long)((unsigned long long)(${0}) * (unsigned long long)(${1}))"},
    {"div", "((${1}) == 0 ? 0LL : (${1}) == -1 ? (long long)(0ull - (unsigned long long)(${0})) "
            ": (${0}) / (${1}))"},
    {"fmod", "((${1}) == 0 || (${1}) == -1 ? 0LL : (${0}) % (${1}))"},
    {"mod", "((${1}) == 0 || (${1}) == -1 ? 0LL : (((${0}) % (${1})) != 0 && ((((${0}) % (${1})) "
            "< 0) != ((${1}) < 0)) ? ((${0}) % (${1})) + (${1}) : (${0}) % (${1})))"},
    {"sqdiff", "(long long)(((unsigned long long)(${0}) - (unsigned long long)(${1})) * "
               "((unsigned long long)(${0}) - (unsigned long long)(${1})))"},
    {"max", "((${0}) < (${1}) ? (${1}) : (${0}))"},
    {"min", "((${1}) < (${0}) ? (${1}) : (${0}))"},
    {"equal", "(long long)((${0}) == (${1}))"},
    {"greater", "(long long)((${0}) > (${1}))"},
    {"less", "(long long)((${0}) < (${1}))"},
    {"logical_and", "(long long)((${0}) != 0 && (${1}) != 0)"},
    {"logical_or", "(long long)((${0}) != 0 || (${1}) != 0)"},
    {"logical_xor", "(long long)(((${0}) != 0) != ((${1}) != 0))"},
    {"bitwise_and", "((${0}) & (${1}))"},
    /* the operand's bits as unsigned (logical); by 64 or more, or by a
     * negative amount, nothing is left */
    {"shift_left", "((${1}) < 0 || (${1}) >= 64 ? 0LL : (long long)((unsigned long long)(${0}) "
                   "<< (${1})))"},
    {"shift_right", "((${1}) < 0 || (${1}) >= 64 ? 0LL : (long long)((unsigned long long)(${0}) "
                    ">> (${1})))"},
    {"prelu", "((${0}) < 0 ? (long long)((unsigned long long)(${0}) * (unsigned long long)(${1})) "
              ": (${0}))"},
    {"relu", "((${0}) > 0 ? (${0}) : 0LL)"},
    {"neg", "(long long)(0ull - (unsigned long long)(${0}))"},
    {"abs", "((${0}) < 0 ? (long long)(0ull - (unsigned long long)(${0})) : (${0}))"},
    {"sign", "(long long)(((${0}) > 0) - ((${0}) < 0))"},
    {"not", "(long long)((${0}) == 0)"},
    {"floor", "(${0})"},
    {"ceil", "(${0})"},
    {"round", "(${0})"},
    {"nearbyint", "(${0})"},
    {"recip", "((${0}) == 1 ? 1LL : (${0}) == -1 ? -1LL : 0LL)"},
    {"isnan", "0LL"},
    {"isinf", "0LL"},
    {"convert", "(${0})"},
    {"where", "((${0}) ? (${1}) : (${2}))"},
    {"clip", "((${0}) < (${1}) ? (${1}) : (${0}) > (${2}) ? (${2}) : (${0}))"},
};

/* Float forms where the op table's template is not what the reference does
 * for float (NaN handling of max/min follows fmaxf/fminf there too). */
static const struct {
    const char *op, *expr;
} float_forms[] = {
    {"not", "(float)((${0}) == 0)"},
    {"logical_and", "(float)((${0}) != 0 && (${1}) != 0)"},
    {"logical_or", "(float)((${0}) != 0 || (${1}) != 0)"},
    {"logical_xor", "(float)(((${0}) != 0) != ((${1}) != 0))"},
    {"sign", "(float)(((${0}) > 0) - ((${0}) < 0))"},
    {"round", "rintf(${0})"},
    {"gelu", "0.5f * (${0}) * (1.0f + erff((${0}) * 0.70710678118654752f))"},
    {"where", "((${0}) != 0 ? (${1}) : (${2}))"},
};

static const char *lookup(const char *op, int which)
{
    if (which == 0) {
        for (size_t k = 0; k < sizeof int_forms / sizeof int_forms[0]; k++)
            if (strcmp(int_forms[k].op, op) == 0)
                return int_forms[k].expr;
    } else {
        for (size_t k = 0; k < sizeof float_forms / sizeof float_forms[0]; k++)
            if (strcmp(float_forms[k].op, op) == 0)
                return float_forms[k].expr;
    }
    return NULL;
}

static const char *const float_functions[] = {
    "expf", "logf", "sqrtf", "powf", "fmaxf", "fminf", "fmodf", "tanhf", "erff", "fabsf",
    "sinf", "cosf", "tanf", "floorf", "ceilf", "rintf", "asinf", "acosf", "atanf", "sinhf",
    "coshf", "asinhf", "acoshf", "atanhf", "nearbyintf", "log1pf", "log2f", "atan2f", NULL,
};

/* Appends n bytes of s at out[*o], leaving room for the NUL; false (and
 * nothing written) when they do not fit in size. */
static bool put_text(char *out, size_t size, size_t *o, const char *s, size_t n)
{
    if (*o + n + 1 >= size)
        return false;
    memcpy(out + *o, s, n);
    *o += n;
    return true;
}

/* Rewrites a float template for double: expf -> exp, 1.0f -> 1.0, (float) -> (double). */
static void to_double(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const char *s = in; *s && o + 8 < size;) {
        if (isalpha((unsigned char)*s) || *s == '_') {
            const char *e = s;
            while (isalnum((unsigned char)*e) || *e == '_')
                e++;
            size_t n = (size_t)(e - s);
            bool fn = false;
            for (int k = 0; float_functions[k]; k++)
                if (strlen(float_functions[k]) == n && strncmp(float_functions[k], s, n) == 0)
                    fn = true;
            if (n == 5 && strncmp(s, "float", 5) == 0) {
                memcpy(out + o, "double", 6);
                o += 6;
            } else {
                if (!put_text(out, size, &o, s, fn ? n - 1 : n))
                    break;
            }
            s = e;
        } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
            const char *e = s;
            while (isalnum((unsigned char)*e) || *e == '.')
                e++;
            size_t n = (size_t)(e - s);
            bool fsuffix = n > 1 && e[-1] == 'f' && strchr(s, '.') && strchr(s, '.') < e;
            if (!put_text(out, size, &o, s, fsuffix ? n - 1 : n))
                break;
            s = e;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = 0;
}

/* Substitutes ${k} and ${attr} in tmpl. */
static bool substitute(const ins *i, const char *tmpl, const char *const *args, int nargs,
                       char *out, size_t size)
{
    size_t o = 0;
    for (const char *s = tmpl; *s;) {
        if (s[0] == '$' && s[1] == '{') {
            const char *e = strchr(s, '}');
            if (!e)
                return false;
            char key[64];
            size_t n = (size_t)(e - s - 2);
            if (n >= sizeof key)
                return false;
            memcpy(key, s + 2, n);
            key[n] = 0;
            char val[512];
            if (isdigit((unsigned char)key[0])) {
                int k = atoi(key);
                if (k >= nargs)
                    return false;
                snprintf(val, sizeof val, "(%s)", args[k]);
            } else {
                const attr_value *v = ins_attr(i, key);
                if (!v)
                    return false;
                char f[64];
                cg_double_literal(v->kind == ATTR_FLOAT ? v->u.f : (double)v->u.i, f, sizeof f);
                snprintf(val, sizeof val, "(%s)", f);
            }
            if (!put_text(out, size, &o, val, strlen(val)))
                return false;
            s = e + 1;
        } else {
            if (o + 2 >= size)
                return false;
            out[o++] = *s++;
        }
    }
    out[o] = 0;
    return true;
}

bool cg_pointwise_expr(const ins *i, const char *ctype, const char *const *args, int nargs,
                       char *out, size_t size)
{
    const char *name = i->op->name;
    if (strcmp(ctype, "long long") == 0) {
        const char *t = lookup(name, 0);
        return t && substitute(i, t, args, nargs, out, size);
    }
    const char *t = lookup(name, 1);
    if (!t)
        t = i->op->point_op;
    if (!t)
        return false;
    char tmpl[1024];
    if (strcmp(ctype, "double") == 0) {
        to_double(t, tmpl, sizeof tmpl);
        t = tmpl;
    }
    char body[2048];
    if (!substitute(i, t, args, nargs, body, sizeof body))
        return false;
    /* comparisons and logic give int in C: back to the compute type */
    snprintf(out, size, "(%s)(%s)", ctype, body);
    return true;
}
