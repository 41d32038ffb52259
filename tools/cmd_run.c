/* cmd_run.c: `graft run GRAPH ...`: run a graph on the reference executor.
 *
 * Inputs are seeded random values (exec_random_inputs) or ONNX TensorProto
 * files from --inputs DIR, one per parameter, named PARAM.pb or input_N.pb
 * (N = the parameter's position, as in ONNX backend-test directories). Each
 * output is summarised on one line: name, type and lens, min, max, mean and a
 * checksum, so two runs can be compared by eye or by grep. --outputs DIR
 * writes output0.pb, output1.pb, ...; --compare GRAPH2 runs a second graph on
 * the very same inputs and reports the error per output, failing above the
 * tolerance.
 *
 * The checksum is FNV-1a (64-bit) over the IEEE-754 float32 bytes,
 * little-endian, of every element converted to float32 in row-major order;
 * -0.0 counts as +0.0 and every NaN as the quiet NaN 0x7fc00000, so the
 * checksum depends only on the values, not on layout or on how a kernel
 * produced a zero or a NaN. It identifies a result exactly; use --compare for
 * "close enough".
 */
#include "commands.h"

#include "cli_util.h"
#include "codegen.h"
#include "exec.h"
#include "hash.h"
#include "ir.h"
#include "onnx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char run_help[] =
    "usage: graft run GRAPH [--device ref|emu|hip] [--inputs DIR] [--outputs DIR]\n"
    "                 [--seed N] [--compare GRAPH2] [--rtol R] [--atol A]\n"
    "                 [--dim NAME=VALUE ...]\n"
    "\n"
    "Runs GRAPH's main module and prints, per output, its shape, min, max, mean\n"
    "and a checksum (FNV-1a 64 over the float32 bytes of the values in row-major\n"
    "order; -0.0 counts as 0.0 and every NaN as one NaN).\n"
    "\n"
    "  --device D      ref: the reference executor (default); emu: the generated\n"
    "                  HIP kernels (graft compile's) run on the CPU; hip: on a GPU\n"
    "  --wave N        emu: the wave size the kernels see, 64 (gfx90a, default)\n"
    "                  or 32 (gfx1030)\n"
    "  --inputs DIR    read each parameter from DIR/PARAM.pb, or DIR/input_N.pb\n"
    "                  for the N-th parameter (ONNX TensorProto files)\n"
    "  --seed N        seed for random inputs when --inputs is not given\n"
    "                  (default 0): floats uniform in [-1, 1), integers in [0, 4)\n"
    "  --outputs DIR   write the outputs as DIR/output0.pb, output1.pb, ...\n"
    "                  (created if missing; each file written atomically)\n"
    "  --compare G2    run G2 on the same inputs; print max abs and max rel error\n"
    "                  per output; fail when any |a - b| > atol + rtol * |b|,\n"
    "                  a from GRAPH, b from G2\n"
    "  --rtol R        relative tolerance (default 1e-3)\n"
    "  --atol A        absolute tolerance (default 1e-5)\n"
    "  --ulps U        an element also passes within U units in the last place of\n"
    "                  the output's largest |b| (default 0 on ref, 64 on emu and hip:\n"
    "                  kernels sum in another order, and hiprtc fuses a*b+c)\n"
    CLI_DIM_HELP
    "\n"
    "Exit status: 0 ok, 1 bad input, refused graph or outputs that differ, 2 usage.\n";

typedef struct run_options {
    const char *graph_path;
    const char *inputs_dir;
    const char *outputs_dir;
    const char *compare_path;
    uint64_t seed;
    double rtol, atol;
    cli_dims dims; /* --dim NAME=VALUE, for GRAPH and G2 */
    const char *device; /* ref, emu or hip */
    unsigned wave;      /* emu's wave size */
    double ulps;        /* also pass within this many ULPs of the output's largest |b| */
} run_options;

/* Summary statistics of one tensor, over its values in row-major order. */
typedef struct tensor_stats {
    double min, max, mean;
    uint64_t checksum;
    int64_t nans;
} tensor_stats;

static uint64_t checksum_add_value(uint64_t h, double v)
{
    float f = (float)v;
    uint32_t bits;
    if (isnan(f)) {
        bits = 0x7fc00000u;
    } else {
        if (f == 0.0f)
            f = 0.0f; /* -0.0 becomes +0.0 */
        memcpy(&bits, &f, sizeof bits);
    }
    unsigned char le[4] = {(unsigned char)bits, (unsigned char)(bits >> 8),
                           (unsigned char)(bits >> 16), (unsigned char)(bits >> 24)};
    return hash_bytes(h, le, sizeof le);
}

static tensor_stats compute_stats(const tensor *t)
{
    tensor_stats s = {0};
    uint64_t h = HASH_FNV_OFFSET;
    int64_t n = shape_elements(&t->sh);
    double sum = 0;
    bool first = true;
    for (int64_t i = 0; i < n; i++) {
        double v = tensor_get_f64(t, i);
        h = checksum_add_value(h, v);
        if (isnan(v)) {
            s.nans++;
            continue;
        }
        if (first || v < s.min)
            s.min = v;
        if (first || v > s.max)
            s.max = v;
        first = false;
        sum += v;
    }
    int64_t counted = n - s.nans;
    s.mean = counted ? sum / (double)counted : NAN;
    if (first)
        s.min = s.max = NAN;
    s.checksum = h;
    return s;
}

static void describe_shape(const shape *sh, char *buf, size_t size)
{
    char lens[512];
    ints_print(sh->lens, sh->rank, lens, sizeof lens);
    snprintf(buf, size, "%s %s", type_name(sh->type), lens);
}

static void print_outputs(const tensor_list *outs)
{
    for (int k = 0; k < outs->n; k++) {
        const named_tensor *o = &outs->items[k];
        tensor_stats s = compute_stats(&o->t);
        char sh[600];
        describe_shape(&o->t.sh, sh, sizeof sh);
        if (shape_elements(&o->t.sh) == 0)
            printf("  %s: %s  no elements  checksum %016llx", o->name, sh,
                   (unsigned long long)s.checksum);
        else
            printf("  %s: %s  min %.6g  max %.6g  mean %.6g  checksum %016llx", o->name, sh,
                   s.min, s.max, s.mean, (unsigned long long)s.checksum);
        if (s.nans)
            printf("  (%lld NaN)", (long long)s.nans);
        printf("\n");
    }
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the tensor for parameter p (the n-th parameter) from dir. */
static bool read_param_input(const char *dir, const ins *p, int n, tensor_list *inputs,
                             graft_error *err)
{
    char path[4096], alt[4096];
    snprintf(path, sizeof path, "%s/%s.pb", dir, p->param);
    snprintf(alt, sizeof alt, "%s/input_%d.pb", dir, n);
    const char *use = file_exists(path) ? path : file_exists(alt) ? alt : NULL;
    if (!use)
        return error_set(err, "no input for parameter '%s': expected %s or %s", p->param, path,
                         alt);
    tensor t = {0};
    if (!onnx_read_tensor_file(use, &t, NULL, err))
        return false;
    bool ok = true;
    if (t.sh.type != p->sh.type || !shape_same_lens(&t.sh, &p->sh)) {
        char got[600], want[600];
        describe_shape(&t.sh, got, sizeof got);
        describe_shape(&p->sh, want, sizeof want);
        ok = error_set(err, "%s holds %s but parameter '%s' is %s", use, got, p->param, want);
    }
    if (ok)
        ok = tensor_list_add(inputs, p->param, &t, err);
    free(t.data);
    return ok;
}

static bool read_inputs(const module *m, const char *dir, tensor_list *inputs, graft_error *err)
{
    int n = 0;
    for (const ins *i = m->first; i; i = i->next)
        if (i->param && !read_param_input(dir, i, n++, inputs, err))
            return false;
    return true;
}

static void print_inputs(const module *m, const run_options *o)
{
    int n = 0;
    for (const ins *i = m->first; i; i = i->next)
        n += i->param != NULL;
    if (o->inputs_dir)
        printf("  inputs: %d parameter%s read from %s\n", n, n == 1 ? "" : "s", o->inputs_dir);
    else
        printf("  inputs: %d parameter%s, random with seed %llu\n", n, n == 1 ? "" : "s",
               (unsigned long long)o->seed);
}

static bool write_outputs(const char *dir, const tensor_list *outs, graft_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return error_set(err, "cannot create directory %s: %s", dir, strerror(errno));
    for (int k = 0; k < outs->n; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/output%d.pb", dir, k);
        if (!onnx_write_tensor_file(path, outs->items[k].name, &outs->items[k].t, err))
            return false;
    }
    return true;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Compares output a (from GRAPH) with b (from GRAPH2) element by element.
 * Returns the number of elements beyond tolerance; -1 if shapes differ. */
/* One unit in the last place of scale in type t (float32 for integers). */
static double ulp_of(double scale, graft_type t)
{
    int bits = t == GRAFT_DOUBLE ? 52 : t == GRAFT_HALF ? 10 : t == GRAFT_BF16 ? 7 : 23;
    int e;
    frexp(scale > 0 ? scale : 1, &e);
    return ldexp(1.0, e - 1 - bits);
}

static int64_t compare_tensors(const tensor *a, const tensor *b, const run_options *o,
                               double *max_abs, double *max_rel)
{
    *max_abs = 0;
    *max_rel = 0;
    if (!shape_same_lens(&a->sh, &b->sh))
        return -1;
    int64_t n = shape_elements(&a->sh), bad = 0;
    double scale = 0;
    for (int64_t i = 0; o->ulps > 0 && i < n; i++) {
        double y = fabs(tensor_get_f64(b, i));
        if (y > scale && !isinf(y))
            scale = y;
    }
    double floor_abs = o->ulps > 0 ? o->ulps * ulp_of(scale, a->sh.type) : 0;
    for (int64_t i = 0; i < n; i++) {
        double x = tensor_get_f64(a, i), y = tensor_get_f64(b, i);
        if (isnan(x) || isnan(y)) {
            if (!(isnan(x) && isnan(y))) {
                bad++;
                *max_abs = INFINITY;
                *max_rel = INFINITY;
            }
            continue;
        }
        if (x == y)
            continue; /* also equal infinities */
        if (isinf(x) || isinf(y)) { /* atol + rtol * |inf| would let anything through */
            bad++;
            *max_abs = INFINITY;
            *max_rel = INFINITY;
            continue;
        }
        double diff = fabs(x - y);
        double scale = fmax(fabs(x), fabs(y));
        double rel = scale > 0 ? diff / scale : 0;
        if (diff > *max_abs)
            *max_abs = diff;
        if (rel > *max_rel)
            *max_rel = rel;
        if (!(diff <= o->atol + o->rtol * fabs(y)) && !(diff <= floor_abs))
            bad++;
    }
    return bad;
}

static int compare_with(const run_options *o, const tensor_list *inputs, const tensor_list *outs)
{
    graph *g2 = cli_load_graph_with("run", o->compare_path, &o->dims);
    if (!g2)
        return EXIT_FAIL;
    graft_error err = {0};
    tensor_list outs2 = {0};
    const module *m2 = graph_main(g2);
    bool ran = m2 && exec_run(m2, inputs, &outs2, &err);
    graph_free(g2);
    if (!ran) {
        tensor_list_free(&outs2);
        if (!m2)
            return cli_fail("run", "%s has no module to run", o->compare_path);
        error_prefix(&err, "%s", o->compare_path);
        return cli_report("run", &err);
    }
    printf("compare with %s (fail when |a - b| > %g + %g * |b|", o->compare_path, o->atol,
           o->rtol);
    if (o->ulps > 0)
        printf(" and > %g ULPs of the output's largest |b|", o->ulps);
    printf("):\n");
    int failures = 0;
    if (outs->n != outs2.n) {
        printf("  %d output%s here, %d in %s\n", outs->n, outs->n == 1 ? "" : "s", outs2.n,
               o->compare_path);
        failures++;
    }
    int n = outs->n < outs2.n ? outs->n : outs2.n;
    for (int k = 0; k < n; k++) {
        const tensor *a = &outs->items[k].t, *b = &outs2.items[k].t;
        double max_abs, max_rel;
        int64_t bad = compare_tensors(a, b, o, &max_abs, &max_rel);
        if (bad < 0) {
            char sa[600], sb[600];
            describe_shape(&a->sh, sa, sizeof sa);
            describe_shape(&b->sh, sb, sizeof sb);
            printf("  %s: shapes differ: %s vs %s  FAIL\n", outs->items[k].name, sa, sb);
            failures++;
            continue;
        }
        printf("  %s: max abs %.3g  max rel %.3g  ", outs->items[k].name, max_abs, max_rel);
        if (bad) {
            printf("FAIL (%lld of %lld elements beyond tolerance)\n", (long long)bad,
                   (long long)shape_elements(&a->sh));
            failures++;
        } else {
            printf("ok\n");
        }
    }
    tensor_list_free(&outs2);
    if (failures)
        return cli_fail("run", "outputs differ from %s", o->compare_path);
    return EXIT_OK;
}

static int check_device(const char *device)
{
    if (!device || strcmp(device, "ref") == 0 || strcmp(device, "emu") == 0 ||
        strcmp(device, "hip") == 0)
        return EXIT_OK;
    return cli_usage_error("run", "unknown device '%s' (expected ref, emu or hip)", device);
}

static int parse_run_options(int argc, char **argv, run_options *o, bool *help)
{
    const char *device = NULL, *seed = NULL, *rtol = NULL, *atol = NULL, *wave = NULL;
    const char *ulps = NULL;
    const cli_option options[] = {
        {"wave", 0, &wave, NULL},             {"ulps", 0, &ulps, NULL},
        {"device", 0, &device, NULL},         {"inputs", 0, &o->inputs_dir, NULL},
        {"outputs", 0, &o->outputs_dir, NULL}, {"seed", 0, &seed, NULL},
        {"compare", 0, &o->compare_path, NULL}, {"rtol", 0, &rtol, NULL},
        {"atol", 0, &atol, NULL},
    };
    cli_args args;
    int st = cli_parse_graph_command("run", &argc, argv, options,
                                     (int)(sizeof options / sizeof options[0]), &args, &o->dims);
    if (st != EXIT_OK)
        return st;
    *help = args.help;
    if (args.help)
        return EXIT_OK;
    o->graph_path = args.positional[0];
    o->rtol = 1e-3;
    o->atol = 1e-5;
    if (seed && !cli_parse_u64(seed, &o->seed))
        return cli_usage_error("run", "--seed wants a non-negative integer, not '%s'", seed);
    if (rtol && (!cli_parse_double(rtol, &o->rtol) || o->rtol < 0))
        return cli_usage_error("run", "--rtol wants a non-negative number, not '%s'", rtol);
    if (atol && (!cli_parse_double(atol, &o->atol) || o->atol < 0))
        return cli_usage_error("run", "--atol wants a non-negative number, not '%s'", atol);
    if (seed && o->inputs_dir)
        return cli_usage_error("run", "--seed and --inputs exclude each other");
    o->device = device ? device : "ref";
    o->wave = 64;
    if (wave && strcmp(wave, "32") != 0 && strcmp(wave, "64") != 0)
        return cli_usage_error("run", "--wave wants 32 or 64, not '%s'", wave);
    if (wave)
        o->wave = (unsigned)atoi(wave);
    o->ulps = strcmp(o->device, "ref") == 0 ? 0 : 64;
    if (ulps && (!cli_parse_double(ulps, &o->ulps) || o->ulps < 0))
        return cli_usage_error("run", "--ulps wants a non-negative number, not '%s'", ulps);
    return check_device(device);
}

int cmd_run(int argc, char **argv)
{
    run_options o = {0};
    bool help = false;
    int st = parse_run_options(argc, argv, &o, &help);
    if (st != EXIT_OK)
        return st;
    if (help) {
        fputs(run_help, stdout);
        return EXIT_OK;
    }
    graph *g = cli_load_graph_with("run", o.graph_path, &o.dims);
    if (!g)
        return EXIT_FAIL;
    const module *m = graph_main(g);
    if (!m) {
        graph_free(g);
        return cli_fail("run", "%s has no module to run", o.graph_path);
    }
    graft_error err = {0};
    tensor_list inputs = {0}, outs = {0};
    bool ok = o.inputs_dir ? read_inputs(m, o.inputs_dir, &inputs, &err)
                           : exec_random_inputs(m, o.seed, &inputs, &err);
    double start = seconds_now();
    bool ref = strcmp(o.device, "ref") == 0;
    int nkernels = 0;
    cg_emu_options emu = {o.wave, NULL, 0, 0};
    if (ok)
        ok = ref ? exec_run(m, &inputs, &outs, &err)
                 : cg_run_graph(g, o.device, &emu, &inputs, &outs, &nkernels, &err);
    double elapsed = seconds_now() - start;
    if (!ok) {
        st = cli_report("run", &err);
    } else if (!ref) {
        printf("%s: ran %d kernel%s on %s", o.graph_path, nkernels, nkernels == 1 ? "" : "s",
               o.device);
        if (strcmp(o.device, "emu") == 0)
            printf(" (wave %u)", o.wave);
        printf(" in %.2f s\n", elapsed);
    } else {
        printf("%s: ran %zu instructions on the reference executor in %.2f s\n", o.graph_path,
               graph_count(g), elapsed);
    }
    if (ok) {
        print_inputs(m, &o);
        print_outputs(&outs);
        if (o.outputs_dir) {
            if (write_outputs(o.outputs_dir, &outs, &err))
                printf("  wrote %d output%s to %s\n", outs.n, outs.n == 1 ? "" : "s",
                       o.outputs_dir);
            else
                st = cli_report("run", &err);
        }
    }
    graph_free(g);
    if (ok && st == EXIT_OK && o.compare_path)
        st = compare_with(&o, &inputs, &outs);
    tensor_list_free(&inputs);
    tensor_list_free(&outs);
    return st;
}
