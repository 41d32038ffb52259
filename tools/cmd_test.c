/* cmd_test.c: `graft test DIR...`: ONNX backend-test directories, run and
 * compared.
 *
 * A test directory holds model.onnx and test_data_set_N/input_N.pb and
 * output_N.pb (TensorProto files); a directory without model.onnx is searched
 * one level down for test directories, in name order. Each test imports the
 * model (symbolic dimensions bound from the input files' shapes), runs every
 * data set on the reference executor, with input_N matched to the model's N-th
 * graph input that is not an initializer, and compares each output with
 * ONNX's rule |actual - expected| <= atol + rtol * |expected| (defaults rtol
 * 1e-3, atol 1e-7, as ONNX's backend tests). One line per test: PASS, FAIL
 * with the worst element, or SKIP naming the op or type graft does not
 * support; the closing line is "N passed, M failed, K skipped". Exit 1 when any
 * test failed.
 */
#include "commands.h"

#include "cli_util.h"
#include "codegen.h"
#include "dump.h"
#include "exec.h"
#include "ir.h"
#include "onnx.h"
#include "onnx.pb-c.h"
#include "pipeline.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char test_help[] =
    "usage: graft test DIR... [-p PIPELINE] [--device ref|emu|hip] [--wave N] [--rtol R]\n"
    "                         [--atol A]\n"
    "                         [--dim NAME=VALUE ...]\n"
    "\n"
    "Runs ONNX backend-test directories (model.onnx plus test_data_set_N/input_N.pb\n"
    "and output_N.pb); a DIR without model.onnx is searched for test directories\n"
    "one level down. Prints PASS, FAIL or SKIP (an op or type graft does not\n"
    "support, named) per test and closes with \"N passed, M failed, K skipped\".\n"
    "\n"
    "  -p PIPELINE   optimize each model with PIPELINE before running it\n"
    "  --device D    ref: the reference executor (default); emu: graft's generated\n"
    "                HIP kernels run on the CPU (an op not lowered yet is a SKIP);\n"
    "                hip: on a GPU\n"
    "  --wave N      emu: the wave size the kernels see, 64 (default) or 32\n"
    "  --rtol R      relative tolerance (default 1e-3)\n"
    "  --atol A      absolute tolerance (default 1e-7)\n"
    "  --dim NAME=VALUE  bind a symbolic dimension the test data does not fix\n"
    "                (repeatable; the input files' shapes bind the others)\n"
    "\n"
    "An output matches when every |actual - expected| <= atol + rtol * |expected|.\n"
    "Exit status: 0 all passed or skipped, 1 a test failed or a DIR is not a test, 2 usage.\n";

typedef struct test_options {
    double rtol, atol;
    const char *pipeline;
    optimize_plan plan; /* the pipeline's rule sets (-p), phase by phase */
    cli_dims dims; /* --dim NAME=VALUE: for names the data sets do not bind */
    const char *device; /* ref, emu or hip */
    unsigned wave;      /* emu's wave size */
} test_options;

typedef struct test_counts {
    int passed, failed, skipped;
} test_counts;

/* snprintf that may cut long paths short (they then fail to open, which is
 * reported); kept apart so the compiler's truncation warning stays on
 * elsewhere. */
static void format_text(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sub-directory names of dir starting with prefix (NULL: any), sorted;
 * *n gets the count. Caller frees each and the array. */
static char **list_dirs(const char *dir, const char *prefix, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    int cap = 16;
    char **names = malloc((size_t)cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char path[4096];
        format_text(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!is_dir(path))
            continue;
        if (*n == cap) {
            cap *= 2;
            char **bigger = realloc(names, (size_t)cap * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, compare_names);
    return names;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static unsigned char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = read_stream_bytes(f, 0, len, NULL);
    fclose(f);
    return buf;
}

/* The model's graph inputs that are not initializers, in order (names point
 * into mp). */
static int runtime_inputs(const Onnx__ModelProto *mp, const Onnx__ValueInfoProto **out, int cap)
{
    const Onnx__GraphProto *gp = mp->graph;
    int n = 0;
    for (size_t i = 0; gp && i < gp->n_input && n < cap; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi || !vi->name)
            continue;
        bool init = false;
        for (size_t k = 0; k < gp->n_initializer && !init; k++)
            init = gp->initializer[k] && gp->initializer[k]->name &&
                   strcmp(gp->initializer[k]->name, vi->name) == 0;
        if (!init)
            out[n++] = vi;
    }
    return n;
}

/* Symbolic dimensions named in the model's inputs, bound to the sizes the
 * first data set's input files have. */
typedef struct dim_binding {
    int n;
    const char *names[64];
    int64_t values[64];
} dim_binding;

static void bind_dims(const Onnx__ValueInfoProto *const *inputs, int ninputs, const char *set_dir,
                      dim_binding *b)
{
    b->n = 0;
    for (int k = 0; k < ninputs; k++) {
        const Onnx__TypeProto *tp = inputs[k]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
            !tp->tensor_type->shape)
            continue;
        const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
        bool symbolic = false;
        for (size_t d = 0; d < sp->n_dim; d++)
            symbolic = symbolic || (sp->dim[d] && sp->dim[d]->value_case ==
                                                      ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
        if (!symbolic)
            continue;
        char path[4096];
        format_text(path, sizeof path, "%s/input_%d.pb", set_dir, k);
        tensor t;
        if (!onnx_read_tensor_file(path, &t, NULL, NULL))
            continue;
        for (size_t d = 0; d < sp->n_dim && (int)d < t.sh.rank && b->n < 64; d++)
            if (sp->dim[d] &&
                sp->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                sp->dim[d]->dim_param) {
                b->names[b->n] = sp->dim[d]->dim_param;
                b->values[b->n++] = t.sh.lens[d];
            }
        free(t.data);
    }
}

/* --dim bindings for the symbolic dimensions the data set left unbound. */
static void add_user_dims(const cli_dims *user, dim_binding *b)
{
    for (int k = 0; k < user->n && b->n < 64; k++) {
        bool bound = false;
        for (int j = 0; j < b->n && !bound; j++)
            bound = strcmp(b->names[j], user->names[k]) == 0;
        if (!bound) {
            b->names[b->n] = user->names[k];
            b->values[b->n++] = user->values[k];
        }
    }
}

/* Whether each input file of a data set has the shape the model declares
 * for that input (symbolic and unknown dimensions match anything). A model
 * whose declared shape disagrees with its own test data has that input bound
 * as a constant instead. */
static void check_declared(const Onnx__ValueInfoProto *const *inputs, int ninputs,
                           const char *set_dir, bool *ok)
{
    for (int k = 0; k < ninputs && k < 256; k++) {
        ok[k] = true;
        const Onnx__TypeProto *tp = inputs[k]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
            !tp->tensor_type->shape)
            continue;
        const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
        char path[4096];
        format_text(path, sizeof path, "%s/input_%d.pb", set_dir, k);
        tensor t;
        if (!onnx_read_tensor_file(path, &t, NULL, NULL))
            continue;
        int64_t declared = 1;
        bool known = true;
        for (size_t d = 0; d < sp->n_dim; d++) {
            if (sp->dim[d] &&
                sp->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
                declared *= sp->dim[d]->dim_value;
            else
                known = false;
        }
        if (known && declared != shape_elements(&t.sh))
            ok[k] = false;
        free(t.data);
    }
}

/* Lens with the 1s dropped, so that an ONNX scalar ([]) and graft's {1}
 * compare equal, and nothing else does. */
static int squeezed(const shape *s, int64_t *lens)
{
    int n = 0;
    for (int i = 0; i < s->rank; i++)
        if (s->lens[i] != 1)
            lens[n++] = s->lens[i];
    return n;
}

/* Compares one output; on mismatch writes why into msg. */
static bool compare_output(int k, const tensor *got, const tensor *want, const test_options *o,
                           char *msg, size_t size)
{
    int64_t lg[SHAPE_MAX_RANK], lw[SHAPE_MAX_RANK];
    int ng = squeezed(&got->sh, lg), nw = squeezed(&want->sh, lw);
    bool same = ng == nw && shape_elements(&got->sh) == shape_elements(&want->sh);
    for (int i = 0; same && i < ng; i++)
        same = lg[i] == lw[i];
    if (!same) {
        char a[128], b[128];
        ints_print(got->sh.lens, got->sh.rank, a, sizeof a);
        ints_print(want->sh.lens, want->sh.rank, b, sizeof b);
        format_text(msg, size, "output%d has lens %s, expected %s", k, a, b);
        return false;
    }
    if (got->sh.type != want->sh.type) {
        format_text(msg, size, "output%d has type %s, expected %s", k, type_name(got->sh.type),
                 type_name(want->sh.type));
        return false;
    }
    int64_t n = shape_elements(&want->sh), worst = -1, bad = 0;
    double worst_err = 0;
    bool ints = !type_is_float(want->sh.type);
    for (int64_t i = 0; i < n; i++) {
        double a, e;
        if (ints) {
            a = (double)tensor_get_i64(got, i);
            e = (double)tensor_get_i64(want, i);
        } else {
            a = tensor_get_f64(got, i);
            e = tensor_get_f64(want, i);
        }
        if (isnan(e) && isnan(a))
            continue;
        if (isinf(e) && a == e)
            continue;
        double err = fabs(a - e);
        bool ok = ints ? a == e : err <= o->atol + o->rtol * fabs(e);
        if (!ok || isnan(err)) {
            bad++;
            if (worst < 0 || err > worst_err || isnan(err)) {
                worst = i;
                worst_err = err;
            }
        }
    }
    if (!bad)
        return true;
    double a = ints ? (double)tensor_get_i64(got, worst) : tensor_get_f64(got, worst);
    double e = ints ? (double)tensor_get_i64(want, worst) : tensor_get_f64(want, worst);
    format_text(msg, size,
             "output%d max abs err %.3g at element %lld (got %.9g, expected %.9g); %lld of %lld "
             "elements off",
             k, worst_err, (long long)worst, a, e, (long long)bad, (long long)n);
    return false;
}

/* The @param named name in m, or NULL. */
static const ins *find_param(const module *m, const char *name)
{
    for (const ins *i = m->first; i; i = i->next)
        if (i->param && strcmp(i->param, name) == 0)
            return i;
    return NULL;
}

/* One data set's input files, in graph-input order. */
typedef struct data_set {
    int n;
    tensor values[256];
} data_set;

static void data_set_free(data_set *d)
{
    for (int k = 0; k < d->n; k++)
        free(d->values[k].data);
    d->n = 0;
}

static bool read_data_set(const char *set_dir, int ninputs, data_set *d, char *msg, size_t size)
{
    d->n = 0;
    for (int k = 0; k < ninputs && k < 256; k++) {
        char path[4096];
        graft_error err = {0};
        format_text(path, sizeof path, "%s/input_%d.pb", set_dir, k);
        if (!is_file(path)) {
            format_text(msg, size, "missing %s", path);
            return false;
        }
        if (!onnx_read_tensor_file(path, &d->values[k], NULL, &err)) {
            format_text(msg, size, "%s", err.message);
            return false;
        }
        d->n++;
    }
    return true;
}

/* Runs one data set on m; false with msg set on failure. Inputs that were
 * bound as constants at import (no @param of that name) are left out. */
static bool run_data_set(const module *m, const char *const *input_names, const data_set *d,
                         const char *set_dir, const test_options *o, char *msg, size_t size)
{
    graft_error err = {0};
    tensor_list inputs = {0}, outputs = {0};
    bool ok = true;
    for (int k = 0; ok && k < d->n; k++) {
        const ins *p = find_param(m, input_names[k]);
        if (!p)
            continue;
        ok = tensor_list_add(&inputs, input_names[k], &d->values[k], &err);
        if (!ok)
            format_text(msg, size, "%s", err.message);
    }
    cg_emu_options emu = {o->wave, NULL, 0, 0};
    bool ref = strcmp(o->device, "ref") == 0;
    if (ok && !(ref ? exec_run(m, &inputs, &outputs, &err)
                    : cg_run_graph(m->g, o->device, &emu, &inputs, &outputs, NULL, &err))) {
        format_text(msg, size, "run: %s", err.message);
        ok = false;
    }
    for (int k = 0; ok; k++) {
        char path[4096];
        format_text(path, sizeof path, "%s/output_%d.pb", set_dir, k);
        if (!is_file(path)) {
            if (k != outputs.n) {
                format_text(msg, size, "the model has %d outputs, the test expects %d", outputs.n,
                            k);
                ok = false;
            }
            break;
        }
        if (k >= outputs.n) {
            format_text(msg, size, "the model has %d outputs, the test expects more", outputs.n);
            ok = false;
            break;
        }
        tensor want;
        if (!onnx_read_tensor_file(path, &want, NULL, &err)) {
            format_text(msg, size, "%s", err.message);
            ok = false;
            break;
        }
        if (want.sh.type == GRAFT_UINT16 && outputs.items[k].t.sh.type == GRAFT_BF16)
            want.sh.type = GRAFT_BF16;
        ok = compare_output(k, &outputs.items[k].t, &want, o, msg, size);
        free(want.data);
    }
    tensor_list_free(&inputs);
    tensor_list_free(&outputs);
    return ok;
}

/* Everything one test needs between data sets. */
typedef struct test_model {
    const unsigned char *bytes;
    size_t len;
    const char *path;
    const char *input_names[256];
    int ninputs;
    dim_binding dims;
    bool declared_ok[256]; /* the first data set's input k has the declared shape */
    bool declared_bf16[256]; /* input k is declared bfloat16 */
} test_model;

/* Imports the model; with d, the data set's integer inputs are bound as
 * constants (shape, axes, pads inputs), and every input's value is known to
 * the importer for operands that must be constants (Resize's float scales). */
static graph *import_for(const test_model *tm, const data_set *d, graft_error *err)
{
    const char *names[256];
    tensor values[256];
    int n = 0;
    for (int k = 0; d && k < d->n; k++)
        if (d->values[k].sh.type == GRAFT_INT64 || d->values[k].sh.type == GRAFT_INT32 ||
            d->values[k].sh.type == GRAFT_BOOL || shape_elements(&d->values[k].sh) == 1 ||
            !tm->declared_ok[k]) {
            names[n] = tm->input_names[k];
            values[n++] = d->values[k];
        }
    onnx_options opt = {tm->dims.n, tm->dims.names, tm->dims.values, n, names, values,
                        d ? d->n : 0, tm->input_names, d ? d->values : NULL, 0, NULL};
    return onnx_import(tm->bytes, tm->len, tm->path, &opt, err);
}

/* -p PIPELINE: optimises an imported graph in place before it runs. False
 * with msg set when the driver fails, stops without converging, or leaves
 * an invalid graph: each is a failure of the test. */
static bool optimize_for_test(graph *g, const test_options *o, char *msg, size_t size)
{
    if (!o->pipeline)
        return true;
    optimize_result res;
    graft_error err = {0};
    if (!optimize_plan_run(g, &o->plan, NULL, &res, &err)) {
        format_text(msg, size, "-p %s: %s", o->pipeline, err.message);
        return false;
    }
    bool ok = true;
    if (res.driver.stop == DRIVER_ERROR) {
        format_text(msg, size, "-p %s: %s", o->pipeline, res.driver.error.message);
        ok = false;
    } else if (res.driver.stop != DRIVER_CONVERGED) {
        format_text(msg, size, "-p %s: the driver did not converge (%s)", o->pipeline,
                    driver_stop_name(res.driver.stop));
        ok = false;
    } else if (!graph_verify(g, &err)) {
        format_text(msg, size, "-p %s: the optimised graph is invalid: %s", o->pipeline,
                    err.message);
        ok = false;
    }
    optimize_result_free(&res);
    return ok;
}

/* Runs every data set; false with msg set at the first failure. bind: the
 * model needs some inputs as constants, so it is imported per data set. */
static bool run_sets(const test_model *tm, graph *g, bool bind, const char *dir, char **sets,
                     int nsets, const test_options *o, char *msg, size_t size, bool *skipped)
{
    *skipped = false;
    for (int s = 0; s < nsets; s++) {
        char set_dir[4096];
        format_text(set_dir, sizeof set_dir, "%s/%s", dir, sets[s]);
        data_set d = {0};
        bool ok = read_data_set(set_dir, tm->ninputs, &d, msg, size);
        /* Older backend tests store bfloat16 as uint16 bits. */
        for (int k = 0; ok && k < d.n; k++)
            if (tm->declared_bf16[k] && d.values[k].sh.type == GRAFT_UINT16)
                d.values[k].sh.type = GRAFT_BF16;
        graph *own = NULL;
        if (ok && bind) {
            graft_error err = {0};
            own = import_for(tm, &d, &err);
            if (!own) {
                format_text(msg, size, "%s", err.message);
                *skipped = strstr(err.message, "unsupported") != NULL;
                ok = false;
            } else {
                ok = optimize_for_test(own, o, msg, size);
            }
        }
        if (ok)
            ok = run_data_set(graph_main(own ? own : g), tm->input_names, &d, set_dir, o, msg,
                              size);
        if (own)
            graph_free(own);
        data_set_free(&d);
        if (!ok) {
            if (nsets > 1) {
                char with_set[1400];
                format_text(with_set, sizeof with_set, "%s: %s", sets[s], msg);
                format_text(msg, size, "%s", with_set);
            }
            return false;
        }
    }
    return true;
}

static void run_test(const char *dir, const char *name, const test_options *o, test_counts *counts)
{
    char path[4096], msg[1200];
    format_text(path, sizeof path, "%s/model.onnx", dir);
    size_t len = 0;
    unsigned char *bytes = read_bytes(path, &len);
    if (!bytes) {
        printf("FAIL %s: cannot read %s\n", name, path);
        counts->failed++;
        return;
    }
    int nsets = 0;
    char **sets = list_dirs(dir, "test_data_set_", &nsets);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
    const Onnx__ValueInfoProto *inputs[256];
    test_model tm = {bytes, len, path, {0}, 0, {0}, {false}, {false}};
    tm.ninputs = mp ? runtime_inputs(mp, inputs, 256) : 0;
    for (int k = 0; k < tm.ninputs; k++) {
        tm.input_names[k] = inputs[k]->name;
        const Onnx__TypeProto *tp = inputs[k]->type;
        tm.declared_bf16[k] = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                              tp->tensor_type &&
                              tp->tensor_type->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
    }
    if (mp && nsets > 0) {
        char set_dir[4096];
        format_text(set_dir, sizeof set_dir, "%s/%s", dir, sets[0]);
        bind_dims(inputs, tm.ninputs, set_dir, &tm.dims);
        check_declared(inputs, tm.ninputs, set_dir, tm.declared_ok);
    }
    add_user_dims(&o->dims, &tm.dims);
    graft_error err = {0};
    graph *g = import_for(&tm, NULL, &err);
    bool mismatch = false;
    for (int k = 0; k < tm.ninputs; k++)
        mismatch = mismatch || !tm.declared_ok[k];
    bool bind = (!g && strstr(err.message, "must be a constant") != NULL && nsets > 0) ||
                (g && mismatch);
    if (!g && !bind) {
        if (strstr(err.message, "unsupported")) {
            printf("SKIP %s: %s\n", name, err.message);
            counts->skipped++;
        } else {
            printf("FAIL %s: %s\n", name, err.message);
            counts->failed++;
        }
    } else if (nsets == 0) {
        printf("FAIL %s: no test_data_set_* directory\n", name);
        counts->failed++;
    } else {
        bool skipped = false;
        bool optimized = bind || optimize_for_test(g, o, msg, sizeof msg);
        if (optimized && run_sets(&tm, g, bind, dir, sets, nsets, o, msg, sizeof msg, &skipped)) {
            printf("PASS %s\n", name);
            counts->passed++;
        } else if (skipped || strstr(msg, "not lowered yet")) {
            printf("SKIP %s: %s\n", name, msg);
            counts->skipped++;
        } else {
            printf("FAIL %s: %s\n", name, msg);
            counts->failed++;
        }
    }
    fflush(stdout);
    if (g)
        graph_free(g);
    if (mp)
        onnx__model_proto__free_unpacked(mp, NULL);
    free(bytes);
    free_names(sets, nsets);
}

/* A test directory, or a directory of them. */
static bool run_dir(const char *dir, const test_options *o, test_counts *counts)
{
    char path[4096];
    format_text(path, sizeof path, "%s/model.onnx", dir);
    if (is_file(path)) {
        char name[1024];
        snprintf(name, sizeof name, "%s", dir);
        size_t l = strlen(name);
        while (l > 1 && name[l - 1] == '/')
            name[--l] = 0;
        const char *base = strrchr(name, '/');
        run_test(dir, base ? base + 1 : name, o, counts);
        return true;
    }
    int n = 0;
    char **subs = list_dirs(dir, NULL, &n);
    int found = 0;
    for (int i = 0; i < n; i++) {
        format_text(path, sizeof path, "%s/%s/model.onnx", dir, subs[i]);
        if (!is_file(path))
            continue;
        found++;
        format_text(path, sizeof path, "%s/%s", dir, subs[i]);
        run_test(path, subs[i], o, counts);
    }
    free_names(subs, n);
    return found > 0;
}

int cmd_test(int argc, char **argv)
{
    test_options o = {.rtol = 1e-3, .atol = 1e-7, .device = "ref", .wave = 64};
    const char *device = "ref";
    int st = cli_take_dims("test", &argc, argv, &o.dims);
    if (st != EXIT_OK)
        return st;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int ndirs = 0;
    if (!dirs)
        return cli_fail("test", "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(test_help, stdout);
            free(dirs);
            return EXIT_OK;
        }
        bool takes = strcmp(a, "-p") == 0 || strcmp(a, "--pipeline") == 0 ||
                     strcmp(a, "--device") == 0 || strcmp(a, "--rtol") == 0 ||
                     strcmp(a, "--wave") == 0 ||
                     strcmp(a, "--atol") == 0;
        if (takes) {
            if (i + 1 >= argc) {
                free(dirs);
                return cli_usage_error("test", "%s needs a value", a);
            }
            value = argv[++i];
        } else if (strncmp(a, "--", 2) == 0 && strchr(a, '=')) {
            free(dirs);
            return cli_usage_error("test", "write '%.*s VALUE', not '%s'",
                                   (int)(strchr(a, '=') - a), a, a);
        } else if (a[0] == '-' && a[1]) {
            free(dirs);
            return cli_usage_error("test", "unknown option '%s'", a);
        } else {
            dirs[ndirs++] = a;
            continue;
        }
        if (strcmp(a, "-p") == 0 || strcmp(a, "--pipeline") == 0) {
            o.pipeline = value;
        } else if (strcmp(a, "--device") == 0) {
            device = value;
        } else if (strcmp(a, "--wave") == 0) {
            if (strcmp(value, "32") != 0 && strcmp(value, "64") != 0) {
                free(dirs);
                return cli_usage_error("test", "--wave wants 32 or 64, not '%s'", value);
            }
            o.wave = (unsigned)atoi(value);
        } else if (strcmp(a, "--rtol") == 0) {
            if (!cli_parse_double(value, &o.rtol) || o.rtol < 0) {
                free(dirs);
                return cli_usage_error("test", "--rtol wants a non-negative number, not '%s'",
                                       value);
            }
        } else if (!cli_parse_double(value, &o.atol) || o.atol < 0) {
            free(dirs);
            return cli_usage_error("test", "--atol wants a non-negative number, not '%s'", value);
        }
    }
    if (ndirs == 0) {
        free(dirs);
        return cli_usage_error("test", "expected at least one DIR");
    }
    if (strcmp(device, "ref") != 0 && strcmp(device, "emu") != 0 && strcmp(device, "hip") != 0) {
        free(dirs);
        return cli_usage_error("test", "unknown device '%s' (expected ref, emu or hip)", device);
    }
    o.device = device;
    graft_error derr = {0};
    if (strcmp(device, "hip") == 0 && !cg_hip_device_available(&derr)) {
        free(dirs);
        return cli_report("test", &derr);
    }
    if (o.pipeline) {
        const pipeline *p = cli_find_pipeline("test", o.pipeline);
        if (!p) {
            free(dirs);
            return EXIT_USAGE;
        }
        graft_error err = {0};
        if (!pipeline_plan(p, &o.plan, &err)) {
            free(dirs);
            return cli_report("test", &err);
        }
    }
    test_counts counts = {0, 0, 0};
    for (int i = 0; i < ndirs; i++)
        if (!run_dir(dirs[i], &o, &counts)) {
            printf("FAIL %s: not an ONNX backend test directory (no model.onnx in it or one level "
                   "down)\n",
                   dirs[i]);
            counts.failed++;
        }
    free(dirs);
    printf("%d passed, %d failed, %d skipped\n", counts.passed, counts.failed, counts.skipped);
    return counts.failed ? EXIT_FAIL : EXIT_OK;
}
