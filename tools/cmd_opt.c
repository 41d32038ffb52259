/* cmd_opt.c: `graft opt`: optimise a graph with rule sets and report.
 *
 *   graft opt GRAPH [-p PIPELINE | -r FILE.rules ...] [-o OUT] [--stats [json]]
 *             [--trace] [--disable RULE] [--max-rewrites N] [--max-sweeps N]
 *             [--shapes lazy|eager]
 *             [--verify] [--seed-order N] [--allow-nonconvergence]
 *
 * It loads GRAPH, runs the pipeline's rule sets, phase by phase, through the
 * worklist driver (dsl/pipeline.h: driver, lazy shape resolution, CSE, DCE;
 * rule files join the first phase), checks the result with graph_verify,
 * and writes the optimised dump. --stats prints
 * what happened (as one JSON object with `--stats json`), --trace every
 * firing, --verify runs the original and the result on the reference
 * executor and fails on a numeric difference, naming the first rule firing
 * after which the values differ (found by bisecting over --max-rewrites). Options that may repeat
 * (-r, --disable) and `--stats`'s optional argument are taken out of argv
 * here before the shared option parser sees the rest.
 */
#include "commands.h"

#include "cli_util.h"
#include "codegen.h"
#include "dump.h"
#include "exec.h"
#include "kernel_counts.h"
#include "load.h"
#include "output_format.h"
#include "pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char opt_help[] =
    "usage: graft opt GRAPH [-p PIPELINE | -r FILE.rules ...] [-o OUT] [--stats [json]]\n"
    "                 [--trace] [--disable RULE] [--max-rewrites N] [--max-sweeps N]\n"
    "                 [--shapes lazy|eager]\n"
    "                 [--verify] [--seed-order N] [--dim NAME=VALUE ...]\n"
    "                 [--allow-nonconvergence] [--explain RULE]\n"
    "                 [--output-format standard|P0,P1,...]\n"
    "\n"
    "Rewrites GRAPH to a fixpoint with rule sets, then prints the optimised dump\n"
    "(to OUT with -o; to stdout unless --stats is given).\n"
    "\n"
    "  -p, --pipeline NAME  built-in rule sets to run (see below)\n"
    "  -r, --rules FILE     a rule file of your own (may repeat)\n"
    "  -o, --output OUT     write the optimised dump to OUT\n"
    "  --stats [json]       what happened: instructions (of the main graph; those in\n"
    "                       fused region bodies apart), kernels, fills, copies,\n"
    "                       recomputed_flops (element ops computed beyond the input),\n"
    "                       bytes_moved (bytes the kernels read and write) and\n"
    "                       bytes_lower_bound (the least any fusion moves), before\n"
    "                       and after (docs/architecture.md defines them); kernels,\n"
    "                       fills, copies and bytes_moved come from the launch plan\n"
    "                       (lowered, not compiled) when the graph lowers, else from\n"
    "                       op classes, and the kernels row says which (docs/codegen.md),\n"
    "                       rewrites, fires per rule, compute_shape calls, time\n"
    "  --trace              every firing on stderr: rule, file:line, instructions\n"
    "                       before (-) and after (+)\n"
    "  --disable RULE       never fire RULE (may repeat)\n"
    "  --explain RULE       why RULE does not fire: at the fixpoint of each phase\n"
    "                       that runs it, for every instruction it applies to (each\n"
    "                       one the last sweep tried it on), the first test that\n"
    "                       failed (op, operand count, :once, attribute, guard,\n"
    "                       let, or a replacement that was refused, e.g. a region\n"
    "                       that could not be placed) with its file:line:col, on\n"
    "                       stderr\n"
    "  --max-rewrites N     stop after N rewrites (for bisecting a bad rule)\n"
    "  --max-sweeps N       full sweeps over the graph each phase may take (default\n"
    "                       10; the last must change nothing): a graph whose\n"
    "                       rewrites feed each other in a long chain may need more\n"
    "  --shapes lazy|eager  shape changes deferred (default) or recomputed through\n"
    "                       all users at once (only to measure against)\n"
    "  --verify             run the original and the result on the reference\n"
    "                       executor with random inputs; fail on a difference\n"
    "                       beyond rtol 1e-3 / atol 1e-5, and then bisect over the\n"
    "                       number of rewrites to name the first rule firing\n"
    "                       (rule, file:line, instruction) after which the values\n"
    "                       differ\n"
    "  --dim NAME=VALUE     bind the ONNX symbolic dimension NAME (repeatable;\n"
    "                       unbound symbolic dimensions are 1)\n"
    "  --seed-order N       visit instructions in a seeded random order (testing:\n"
    "                       the fold rules must reach the same graph)\n"
    "  --output-format F    the memory format the graph's outputs must have:\n"
    "                       standard (row-major) or a permutation of the axes from\n"
    "                       slowest to fastest in memory (0,2,3,1: NHWC for NCHW\n"
    "                       lens; outputs of other ranks keep theirs). Without it\n"
    "                       outputs keep the format the inputs' layout propagates\n"
    "  --allow-nonconvergence\n"
    "                       a run that does not converge (a nonterminating rule\n"
    "                       used up its fire budget, e.g. two rules that undo each\n"
    "                       other, or the sweep limit) is a warning and exits 0\n"
    "                       instead of an error; the dump is written either way\n"
    "\n"
    "Exit status: 0 ok, 1 failure (bad input, a rule misbehaved, the rewriting did\n"
    "not converge without --allow-nonconvergence, --verify found a difference),\n"
    "2 usage. Stopping at --max-rewrites N is asked for and is not a failure.\n";

typedef struct string_list {
    const char **items;
    int n;
} string_list;

static bool list_add(string_list *l, const char *s)
{
    const char **p = realloc(l->items, (size_t)(l->n + 1) * sizeof *p);
    if (!p)
        return false;
    p[l->n++] = s;
    l->items = p;
    return true;
}

/* ---- output ---- */

static void trace_to_stderr(void *ctx, const char *text)
{
    (void)ctx;
    fputs(text, stderr);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* One side (before or after) of the kernel figures: from the launch plan
 * when the graph lowers (codegen/plan_counts.c), else from the op classes
 * (ops/kernel_counts.c) with the reason it did not lower. */
typedef struct kernel_side {
    kernel_counts kc;
    cg_counts plan; /* when from_plan */
    bool from_plan;
    char why[256]; /* why the plan was not used */
} kernel_side;

typedef struct report {
    const optimize_result *res;
    kernel_side before_side, after_side;
    kernel_counts before, after;
    const char *pipeline;
} report;

/* Fills side from g: the op-class counts, then the plan's when g lowers. */
static void count_kernels(const graph *g, kernel_side *side)
{
    graph_kernel_counts(g, &side->kc);
    side->from_plan = false;
    graft_error err = {0};
    cg_counts c;
    if (!cg_graph_counts(g, &c, &err)) {
        snprintf(side->why, sizeof side->why, "%.250s", err.message);
        return;
    }
    side->plan = c;
    side->kc.kernels = c.kernels;
    side->kc.fills = c.fills;
    side->kc.copies = c.copies;
    side->kc.bytes_moved = c.bytes_moved;
    side->from_plan = true;
}

/* The text after the kernels row: "(plan)", "(op classes: WHY)", or each
 * side's source when they differ. */
static void print_kernel_sources(FILE *f, const report *r)
{
    const kernel_side *b = &r->before_side, *a = &r->after_side;
    if (b->from_plan && a->from_plan)
        fputs(" (plan)", f);
    else if (!b->from_plan && !a->from_plan && strcmp(a->why, b->why) == 0)
        fprintf(f, " (op classes: %s)", a->why);
    else
        fprintf(f, " (before: %s%s; after: %s%s)", b->from_plan ? "plan" : "op classes: ",
                b->from_plan ? "" : b->why, a->from_plan ? "plan" : "op classes: ",
                a->from_plan ? "" : a->why);
}

/* Element operations the result computes beyond the original (0 when it
 * computes fewer, e.g. after folding). */
static int64_t recomputed(const report *r)
{
    int64_t grew = r->after.pointwise_flops - r->before.pointwise_flops;
    return grew > 0 ? grew : 0;
}

static void print_json(const report *r)
{
    const optimize_result *o = r->res;
    const driver_result *d = &o->driver;
    FILE *f = stdout;
    fprintf(f, "{\"pipeline\":");
    json_string(f, r->pipeline);
    fprintf(f,
            ",\"instructions_before\":%zu,\"instructions_after\":%zu,"
            "\"instructions_in_regions_before\":%zu,\"instructions_in_regions\":%zu,"
            "\"kernels_before\":%d,"
            "\"kernels\":%d,\"fills\":%d,\"copies\":%d,\"rewrites\":%llu,\"rules\":{",
            o->instructions_before, o->instructions_after, o->region_instructions_before,
            o->region_instructions_after, r->before.kernels, r->after.kernels,
            r->after.fills, r->after.copies, (unsigned long long)d->rewrites);
    for (int k = 0; k < d->nrules; k++) {
        if (k)
            fputc(',', f);
        json_string(f, d->rules[k].name);
        fprintf(f, ":%llu", (unsigned long long)d->rules[k].fires);
    }
    fprintf(f, "},\"rule_stats\":{");
    for (int k = 0; k < d->nrules; k++) {
        const rule_stat *s = &d->rules[k];
        if (k)
            fputc(',', f);
        json_string(f, s->name);
        fprintf(f, ":{\"set\":");
        json_string(f, s->set);
        fprintf(f, ",\"file\":");
        json_string(f, s->file);
        fprintf(f, ",\"line\":%d,\"attempts\":%llu,\"fires\":%llu,\"ms\":%.3f,\"disabled\":%s}",
                s->line, (unsigned long long)s->attempts, (unsigned long long)s->fires,
                (double)s->ns / 1e6, s->disabled ? "true" : "false");
    }
    fprintf(f,
            "},\"compute_shape_calls\":%llu,\"converged\":%s,\"stop\":\"%s\",\"iterations\":%d,"
            "\"phases\":%d,\"pending_inserted\":%llu,\"pending_materialised\":%llu,"
            "\"cse_merged\":%zu,\"dce_erased\":%zu,\"recomputed_flops\":%lld,"
            "\"bytes_moved_before\":%lld,\"bytes_moved\":%lld,"
            "\"bytes_lower_bound_before\":%lld,\"bytes_lower_bound\":%lld,",
            (unsigned long long)o->compute_shape_calls, d->converged ? "true" : "false",
            driver_stop_name(d->stop), d->iterations, o->phases,
            (unsigned long long)d->pending_inserted,
            (unsigned long long)o->shapes.materialised, o->cse_merged, o->dce_erased,
            (long long)recomputed(r), (long long)r->before.bytes_moved,
            (long long)r->after.bytes_moved, (long long)r->before.bytes_lower_bound,
            (long long)r->after.bytes_lower_bound);
    fprintf(f, "\"kernels_from_before\":\"%s\",\"kernels_from\":\"%s\",\"not_lowered_before\":",
            r->before_side.from_plan ? "plan" : "op_classes",
            r->after_side.from_plan ? "plan" : "op_classes");
    if (r->before_side.from_plan)
        fputs("null", f);
    else
        json_string(f, r->before_side.why);
    fputs(",\"not_lowered\":", f);
    if (r->after_side.from_plan)
        fputs("null", f);
    else
        json_string(f, r->after_side.why);
    if (r->after_side.from_plan)
        fprintf(f, ",\"gemm_kernels\":%d,\"gemm_flops\":%lld,\"gemm_bytes_moved\":%lld",
                r->after_side.plan.gemm_kernels, (long long)r->after_side.plan.gemm_flops,
                (long long)r->after_side.plan.gemm_bytes);
    fprintf(f, ",\"ms\":%.3f}\n", o->ms);
}

/* "12345678 (11.8 MiB)", or "unknown" when counting ran out of memory. */
static const char *bytes_text(int64_t n, char *buf, size_t size)
{
    if (n < 0)
        snprintf(buf, size, "unknown");
    else
        snprintf(buf, size, "%lld (%.1f MiB)", (long long)n, (double)n / (1024.0 * 1024.0));
    return buf;
}

static void print_bytes_row(FILE *f, const char *label, int64_t before, int64_t after)
{
    char a[64], b[64];
    fprintf(f, "%-20s %s -> %s\n", label, bytes_text(before, a, sizeof a),
            bytes_text(after, b, sizeof b));
}

static void print_table(const report *r)
{
    const optimize_result *o = r->res;
    const driver_result *d = &o->driver;
    FILE *f = stdout;
    fprintf(f, "pipeline             %s\n", r->pipeline);
    fprintf(f, "instructions         %zu -> %zu", o->instructions_before, o->instructions_after);
    if (o->region_instructions_before)
        fprintf(f, " (+ %zu -> %zu in region bodies)", o->region_instructions_before,
                o->region_instructions_after);
    else if (o->region_instructions_after)
        fprintf(f, " (+ %zu in region bodies)", o->region_instructions_after);
    fputc('\n', f);
    fprintf(f, "kernels              %d -> %d (fills %d, copies %d)", r->before.kernels,
            r->after.kernels, r->after.fills, r->after.copies);
    print_kernel_sources(f, r);
    fputc('\n', f);
    fprintf(f, "recomputed_flops     %lld (pointwise and reduction element ops %lld -> %lld)\n",
            (long long)recomputed(r), (long long)r->before.pointwise_flops,
            (long long)r->after.pointwise_flops);
    print_bytes_row(f, "bytes_moved", r->before.bytes_moved, r->after.bytes_moved);
    print_bytes_row(f, "bytes_lower_bound", r->before.bytes_lower_bound,
                    r->after.bytes_lower_bound);
    if (r->after.bytes_moved >= 0 && r->after.bytes_lower_bound > 0)
        fprintf(f, "moved / lower bound  %.3f\n",
                (double)r->after.bytes_moved / (double)r->after.bytes_lower_bound);
    fprintf(f, "rewrites             %llu\n", (unsigned long long)d->rewrites);
    fprintf(f, "converged            %s (%s after %d sweeps", d->converged ? "yes" : "no",
            driver_stop_name(d->stop), d->iterations);
    if (o->phases > 1)
        fprintf(f, " in %d phases", o->phases);
    fputs(")\n", f);
    fprintf(f, "compute_shape calls  %llu\n", (unsigned long long)o->compute_shape_calls);
    fprintf(f, "pending shapes       %llu inserted, %llu materialised\n",
            (unsigned long long)d->pending_inserted, (unsigned long long)o->shapes.materialised);
    fprintf(f, "cse / dce            %zu merged, %zu erased\n", o->cse_merged, o->dce_erased);
    fprintf(f, "time                 %.3f ms\n", o->ms);
    if (d->nrules) {
        fprintf(f, "\n%-32s %-10s %10s %8s %10s  %s\n", "rule", "set", "attempts", "fires", "ms",
                "where");
        for (int k = 0; k < d->nrules; k++) {
            const rule_stat *s = &d->rules[k];
            fprintf(f, "%-32s %-10s %10llu %8llu %10.3f  %s:%d%s\n", s->name, s->set,
                    (unsigned long long)s->attempts, (unsigned long long)s->fires,
                    (double)s->ns / 1e6, s->file ? s->file : "?", s->line,
                    s->disabled ? " (disabled)" : "");
        }
    }
}

/* Why the driver stopped short, in words, with the nonterminating rules that
 * used up their fire budget (two that undo each other ping-pong until both
 * have). */
static void nonconvergence_reason(const driver_result *d, char *buf, size_t size)
{
    size_t n = 0;
    switch (d->stop) {
    case DRIVER_RULE_BUDGET:
        n = (size_t)snprintf(buf, size, "a nonterminating rule used up its fire budget");
        break;
    case DRIVER_MAX_ITERATIONS:
        n = (size_t)snprintf(buf, size, "every one of %d sweeps changed the graph (--max-sweeps)",
                             d->iterations);
        break;
    default:
        n = (size_t)snprintf(buf, size, "stopped at %s", driver_stop_name(d->stop));
        break;
    }
    if (d->stop != DRIVER_RULE_BUDGET)
        return;
    uint64_t most = 0;
    for (int k = 0; k < d->nrules; k++)
        if ((d->rules[k].flags & RULE_NONDECREASING) && d->rules[k].fires > most)
            most = d->rules[k].fires;
    const char *sep = " (";
    for (int k = 0; k < d->nrules && n < size; k++) {
        const rule_stat *r = &d->rules[k];
        if (!(r->flags & RULE_NONDECREASING) || !r->fires || r->fires < most)
            continue;
        n += (size_t)snprintf(buf + n, size - n, "%s%s at %s:%d fired %llu times", sep, r->name,
                              r->file ? r->file : "?", r->line, (unsigned long long)r->fires);
        sep = ", ";
    }
    if (n < size && sep[0] == ',')
        snprintf(buf + n, size - n, ")");
}

/* ---- --verify ---- */

/* Whether got matches want within rtol 1e-3 / atol 1e-5; unless quiet, prints
 * each output's largest errors (the bisection below compares quietly). */
static bool compare_outputs(const tensor_list *want, const tensor_list *got, bool quiet)
{
    const double rtol = 1e-3, atol = 1e-5;
    bool ok = want->n == got->n;
    if (!ok && !quiet)
        fprintf(stderr, "graft opt: --verify: %d outputs before, %d after\n", want->n, got->n);
    for (int k = 0; ok && k < want->n; k++) {
        const tensor *a = &want->items[k].t, *b = &got->items[k].t;
        int64_t n = shape_elements(&a->sh);
        if (n != shape_elements(&b->sh) || !shape_same_lens(&a->sh, &b->sh)) {
            if (!quiet)
                fprintf(stderr, "graft opt: --verify: %s changed shape\n", want->items[k].name);
            ok = false;
            break;
        }
        double max_abs = 0, max_rel = 0;
        bool bad = false;
        for (int64_t i = 0; i < n; i++) {
            double x = tensor_get_f64(a, i), y = tensor_get_f64(b, i);
            if ((isnan(x) && isnan(y)) || x == y)
                continue; /* equal values, equal infinities */
            if (isinf(x) || isinf(y)) { /* atol + rtol * |inf| would let anything through */
                max_abs = max_rel = INFINITY;
                bad = true;
                continue;
            }
            double d = fabs(x - y);
            if (isnan(d))
                d = INFINITY;
            double rel = x != 0 ? d / fabs(x) : (d ? INFINITY : 0);
            if (d > max_abs)
                max_abs = d;
            if (rel > max_rel)
                max_rel = rel;
            if (!(d <= atol + rtol * fabs(x)))
                bad = true;
        }
        if (!quiet)
            fprintf(stderr, "verify %s: max abs error %.3g, max rel error %.3g%s\n",
                    want->items[k].name, max_abs, max_rel, bad ? "  MISMATCH" : "");
        if (bad)
            ok = false;
    }
    return ok;
}

/* What --verify needs to rerun the optimisation a rewrite at a time: the
 * graph's file, the plan and the driver options of the run being checked. */
typedef struct rerun {
    const char *path;
    const cli_dims *dims;
    const optimize_plan *plan;
    const driver_options *options;
} rerun;

/* Keeps the last "fire ..." record of a trace (phase lines are skipped). */
static void keep_last_fire(void *ctx, const char *text)
{
    char **last = ctx;
    if (strncmp(text, "fire ", 5) != 0)
        return;
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (!copy)
        return;
    memcpy(copy, text, n);
    free(*last);
    *last = copy;
}

/* Optimises a fresh copy of the graph, stopping after `rewrites` rewrites;
 * with last_fire, the trace record of the last of them lands there. */
static graph *optimise_prefix(const rerun *r, int64_t rewrites, char **last_fire,
                              graft_error *err)
{
    graph *g = cli_load_graph_with("opt", r->path, r->dims);
    if (!g) {
        error_set(err, "--verify: cannot read %s again", r->path);
        return NULL;
    }
    driver_options o = *r->options;
    o.max_rewrites = rewrites;
    o.explain_rule = NULL; /* --explain reports on the run being checked, not on these */
    o.trace = last_fire ? keep_last_fire : NULL;
    o.trace_ctx = last_fire;
    optimize_result res;
    bool ok = optimize_plan_run(g, r->plan, &o, &res, err);
    if (ok && res.driver.stop == DRIVER_ERROR) {
        *err = res.driver.error;
        ok = false;
    }
    if (ok)
        optimize_result_free(&res);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* 1 when the graph after `rewrites` rewrites computes other values than
 * `want` on `inputs`, 0 when the same, -1 on an error (err says which). */
static int differs_after(const rerun *r, int64_t rewrites, const tensor_list *inputs,
                         const tensor_list *want, graft_error *err)
{
    graph *g = optimise_prefix(r, rewrites, NULL, err);
    if (!g)
        return -1;
    tensor_list got = {0};
    int d = exec_run(graph_main(g), inputs, &got, err) ? !compare_outputs(want, &got, true) : -1;
    tensor_list_free(&got);
    graph_free(g);
    return d;
}

/* Prints "rule NAME (FILE:LINE) [SET] at LABEL (OP)" from a trace record
 * "fire NAME (FILE:LINE) [SET] at LABEL\n  - LABEL = OP..." and then the
 * record's instruction lines. */
static void print_guilty_firing(const char *record)
{
    const char *eol = strchr(record, '\n');
    int head = eol ? (int)(eol - record) : (int)strlen(record);
    const char *at = strstr(record, " at ");
    const char *label = at && at < record + head ? at + 4 : NULL;
    int nlabel = label ? (int)(record + head - label) : 0;
    char op[64] = "";
    for (const char *line = eol; label && line; line = strchr(line + 1, '\n')) {
        if (strncmp(line, "\n  - ", 5) != 0 || strncmp(line + 5, label, (size_t)nlabel) != 0 ||
            strncmp(line + 5 + nlabel, " = ", 3) != 0)
            continue;
        const char *name = line + 5 + nlabel + 3;
        size_t n = strcspn(name, "[( \n");
        snprintf(op, sizeof op, "%.*s", (int)(n < sizeof op ? n : sizeof op - 1), name);
        break;
    }
    fprintf(stderr, "  rule %.*s%s%s%s\n", head - 5, record + 5, op[0] ? " (" : "", op,
            op[0] ? ")" : "");
    if (eol)
        fputs(eol + 1, stderr);
}

/* Bisects over the number of rewrites for the first after which the values
 * differ from the original's (assuming, as a bisection must, that once they
 * differ they keep differing) and names that rewrite's rule, its file:line
 * and the instruction it fired at. `total` rewrites gave a mismatch. */
static void name_guilty_rule(const rerun *r, uint64_t total, const tensor_list *inputs,
                             const tensor_list *want)
{
    graft_error err = {0};
    int d0 = differs_after(r, 0, inputs, want, &err);
    if (d0 != 0) {
        if (d0 > 0)
            fprintf(stderr, "graft opt: --verify: the values differ with no rewrite at all "
                            "(the shape pass, CSE or DCE changed them)\n");
        else
            cli_report("opt", &err);
        return;
    }
    int64_t good = 0, bad = (int64_t)total; /* good: same values; bad: differ */
    while (bad - good > 1) {
        int64_t mid = good + (bad - good) / 2;
        int d = differs_after(r, mid, inputs, want, &err);
        if (d < 0) {
            cli_report("opt", &err);
            return;
        }
        if (d)
            bad = mid;
        else
            good = mid;
    }
    char *record = NULL;
    graph *g = optimise_prefix(r, bad, &record, &err);
    if (!g) {
        cli_report("opt", &err);
        free(record);
        return;
    }
    graph_free(g);
    fprintf(stderr, "graft opt: --verify: the values first differ after rewrite %lld of %llu:\n",
            (long long)bad, (unsigned long long)total);
    if (record)
        print_guilty_firing(record);
    free(record);
}

static int verify(const rerun *r, const graph *optimised, uint64_t rewrites)
{
    graph *orig = cli_load_graph_with("opt", r->path, r->dims);
    if (!orig)
        return EXIT_FAIL;
    graft_error err = {0};
    tensor_list inputs = {0}, want = {0}, got = {0};
    int st = EXIT_OK;
    if (!exec_random_inputs(graph_main(orig), 1, &inputs, &err) ||
        !exec_run(graph_main(orig), &inputs, &want, &err)) {
        error_prefix(&err, "--verify: running the original");
        st = cli_report("opt", &err);
    } else if (!exec_run(graph_main(optimised), &inputs, &got, &err)) {
        error_prefix(&err, "--verify: running the result");
        st = cli_report("opt", &err);
    } else if (!compare_outputs(&want, &got, false)) {
        if (rewrites)
            name_guilty_rule(r, rewrites, &inputs, &want);
        st = cli_fail("opt", "--verify: the optimised graph computes different values");
    }
    tensor_list_free(&inputs);
    tensor_list_free(&want);
    tensor_list_free(&got);
    graph_free(orig);
    return st;
}

/* ---- --explain ---- */

static bool plan_has_rule(const optimize_plan *plan, const char *name)
{
    for (int ph = 0; ph < plan->nphases; ph++)
        for (int k = 0; k < plan->nsets[ph]; k++)
            for (int r = 0; r < plan->sets[ph][k]->nrules; r++)
                if (strcmp(plan->sets[ph][k]->rules[r].name, name) == 0)
                    return true;
    return false;
}

static void print_explain_summary(const char *rule, const explain_counts *c)
{
    if (!c->tried)
        fprintf(stderr, "explain %s: no instruction at a fixpoint has an op the rule applies to\n",
                rule);
    else
        fprintf(stderr, "explain %s: tried on %d instruction%s: %d failed a test or guard, %d "
                        "matched but the replacement was refused\n",
                rule, c->tried, c->tried == 1 ? "" : "s", c->failed, c->matched);
}

/* ---- the command ---- */

typedef struct opt_args {
    string_list rules_files, disabled;
    bool stats, stats_json;
    bool allow_nonconvergence;
    const char *output_format; /* --output-format */
    char **rest;
    int nrest;
    cli_dims dims; /* --dim NAME=VALUE */
} opt_args;

/* Takes -r/--rules, --disable (repeatable) and --stats [json] out of argv. */
static int pre_parse(int argc, char **argv, opt_args *a)
{
    a->rest = malloc((size_t)(argc + 1) * sizeof *a->rest);
    if (!a->rest)
        return cli_fail("opt", "out of memory");
    a->rest[a->nrest++] = argv[0];
    for (int k = 1; k < argc; k++) {
        const char *s = argv[k];
        if (strcmp(s, "--") == 0) {
            while (k < argc)
                a->rest[a->nrest++] = argv[k++];
            break;
        }
        string_list *target = NULL;
        if (strcmp(s, "-r") == 0 || strcmp(s, "--rules") == 0)
            target = &a->rules_files;
        else if (strcmp(s, "--disable") == 0)
            target = &a->disabled;
        if (target) {
            if (k + 1 >= argc)
                return cli_usage_error("opt", "%s needs an argument", s);
            if (!list_add(target, argv[++k]))
                return cli_fail("opt", "out of memory");
            continue;
        }
        if (strncmp(s, "--rules=", 8) == 0 || strncmp(s, "--disable=", 10) == 0) {
            target = s[2] == 'r' ? &a->rules_files : &a->disabled;
            if (!list_add(target, strchr(s, '=') + 1))
                return cli_fail("opt", "out of memory");
            continue;
        }
        if (strcmp(s, "--stats") == 0) {
            a->stats = true;
            if (k + 1 < argc && strcmp(argv[k + 1], "json") == 0) {
                a->stats_json = true;
                k++;
            }
            continue;
        }
        if (strncmp(s, "--stats=", 8) == 0) {
            a->stats = true;
            if (strcmp(s + 8, "json") == 0)
                a->stats_json = true;
            else if (strcmp(s + 8, "table") != 0)
                return cli_usage_error("opt", "--stats takes 'json' or nothing, not '%s'", s + 8);
            continue;
        }
        a->rest[a->nrest++] = argv[k];
    }
    a->rest[a->nrest] = NULL;
    return EXIT_OK;
}

static void opt_args_free(opt_args *a)
{
    free(a->rules_files.items);
    free(a->disabled.items);
    free(a->rest);
}

static int run_sets(opt_args *a, const char *path, const optimize_plan *plan, const char *label,
                    driver_options *o_in, const char *out, bool trace,
                    bool verify_flag, bool bisecting);

static int run(opt_args *a)
{
    const char *pipeline_name = NULL, *out = NULL, *max_rewrites = NULL, *max_sweeps = NULL,
               *shapes = NULL, *seed_order = NULL, *explain = NULL;
    bool trace = false, verify_flag = false;
    const cli_option options[] = {
        {"pipeline", 'p', &pipeline_name, NULL}, {"output", 'o', &out, NULL},
        {"max-rewrites", 0, &max_rewrites, NULL}, {"max-sweeps", 0, &max_sweeps, NULL},
        {"shapes", 0, &shapes, NULL},
        {"seed-order", 0, &seed_order, NULL},   {"trace", 0, NULL, &trace},
        {"verify", 0, NULL, &verify_flag},      {"explain", 0, &explain, NULL},
        {"allow-nonconvergence", 0, NULL, &a->allow_nonconvergence},
        {"output-format", 0, &a->output_format, NULL},
    };
    cli_args args;
    int st = cli_parse("opt", a->nrest, a->rest, options, (int)(sizeof options / sizeof options[0]),
                       &args);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(opt_help, stdout);
        int n;
        const pipeline *all = pipeline_all(&n);
        fputs("\npipelines:\n", stdout);
        for (int k = 0; k < n; k++) {
            char phases[256];
            pipeline_describe(&all[k], phases, sizeof phases);
            printf("  %-9s %s\n            sets: %s\n", all[k].name, all[k].summary, phases);
        }
        fputs("\nA pipeline runs in phases (\"; then\"): the sets of a phase run together to\n"
              "a fixpoint, the next phase starts on its result. Rule files (-r) join the\n"
              "first phase.\n",
              stdout);
        return EXIT_OK;
    }
    st = cli_expect_positional("opt", &args, 1, 1, "GRAPH");
    if (st != EXIT_OK)
        return st;
    driver_options o;
    driver_options_init(&o);
    if (max_rewrites) {
        uint64_t v;
        if (!cli_parse_u64(max_rewrites, &v) || v > INT64_MAX)
            return cli_usage_error("opt", "--max-rewrites needs a count, not '%s'", max_rewrites);
        o.max_rewrites = (int64_t)v;
    }
    if (max_sweeps) {
        uint64_t v;
        if (!cli_parse_u64(max_sweeps, &v) || v < 1 || v > INT32_MAX)
            return cli_usage_error("opt", "--max-sweeps needs a count of at least 1, not '%s'", max_sweeps);
        o.max_iterations = (int)v;
    }
    if (seed_order) {
        uint64_t v;
        if (!cli_parse_u64(seed_order, &v))
            return cli_usage_error("opt", "--seed-order needs a number, not '%s'", seed_order);
        o.shuffle_seed = v;
    }
    if (shapes) {
        if (strcmp(shapes, "lazy") == 0)
            o.shapes = SHAPES_LAZY;
        else if (strcmp(shapes, "eager") == 0)
            o.shapes = SHAPES_EAGER;
        else
            return cli_usage_error("opt", "--shapes takes lazy or eager, not '%s'", shapes);
    }
    optimize_plan plan = {.nphases = 1};
    const char *label = "none";
    if (pipeline_name) {
        const pipeline *p = cli_find_pipeline("opt", pipeline_name);
        if (!p)
            return EXIT_USAGE;
        graft_error err = {0};
        if (!pipeline_plan(p, &plan, &err))
            return cli_report("opt", &err);
        label = p->name;
    }
    if (plan.nsets[0] + a->rules_files.n > PIPELINE_MAX_SETS)
        return cli_usage_error("opt", "too many rule sets (at most %d)", PIPELINE_MAX_SETS);
    loaded_rules loaded[16];
    int nloaded = 0;
    for (int k = 0; k < a->rules_files.n; k++) {
        graft_error err = {0};
        if (!dsl_load_rules(a->rules_files.items[k], NULL, &loaded[nloaded], &err)) {
            for (int j = 0; j < nloaded; j++)
                dsl_unload_rules(&loaded[j]);
            return cli_report("opt", &err);
        }
        graft_error perr = {0};
        (void)optimize_plan_add(&plan, 0, loaded[nloaded++].set, &perr); /* room checked above */
        label = pipeline_name ? "pipeline + rule files" : "rule files";
    }
    if (explain && !plan_has_rule(&plan, explain))
        st = cli_fail("opt", "--explain %s: no rule of that name in the rule sets run", explain);
    else {
        o.explain_rule = explain;
        st = run_sets(a, args.positional[0], &plan, label, &o, out, trace, verify_flag,
                      max_rewrites != NULL);
    }
    for (int j = 0; j < nloaded; j++)
        dsl_unload_rules(&loaded[j]);
    return st;
}

static int run_sets(opt_args *a, const char *path, const optimize_plan *plan, const char *label,
                    driver_options *o_in, const char *out, bool trace,
                    bool verify_flag, bool bisecting)
{
    driver_options o = *o_in;
    int st;
    o.disabled = a->disabled.items;
    o.ndisabled = a->disabled.n;
    if (trace) {
        o.trace = trace_to_stderr;
        o.trace_ctx = NULL;
    }
    if (o.explain_rule)
        o.explain = trace_to_stderr;

    /* A dump's reader probes each instruction for a CSE twin as it builds it
     * (cli_load_graph_probed): with none, the first CSE is skipped. */
    bool maybe_twins = true;
    graph *g = cli_load_graph_probed("opt", path, &a->dims, &maybe_twins);
    if (!g)
        return EXIT_FAIL;
    if (a->output_format) {
        /* The requested layout may add copies: the probe no longer holds. */
        maybe_twins = true;
        output_format f;
        graft_error ferr = {0};
        if (!output_format_parse(a->output_format, &f, &ferr)) {
            graph_free(g);
            return cli_usage_error("opt", "%s", ferr.message);
        }
        if (!graph_request_output_format(g, &f, NULL, &ferr)) {
            graph_free(g);
            return cli_report("opt", &ferr);
        }
    }
    report r = {0};
    r.pipeline = label;
    /* Kernel counts are for --stats only: each is a walk over the graph. */
    if (a->stats) {
        count_kernels(g, &r.before_side);
        r.before = r.before_side.kc;
    }
    optimize_result res;
    graft_error err = {0};
    if (!optimize_plan_run_probed(g, plan, &o, maybe_twins, &res, &err)) {
        graph_free(g);
        return cli_report("opt", &err);
    }
    r.res = &res;
    if (o.explain_rule)
        print_explain_summary(o.explain_rule, &res.explained);
    if (a->stats) {
        count_kernels(g, &r.after_side);
        r.after = r.after_side.kc;
    }
    st = EXIT_OK;
    if (res.driver.stop == DRIVER_ERROR) {
        st = cli_report("opt", &res.driver.error);
    } else if (!graph_verify(g, &err)) {
        error_prefix(&err, "the optimised graph is invalid (a rule is wrong)");
        st = cli_report("opt", &err);
    }
    bool nonconverged = st == EXIT_OK && res.driver.stop != DRIVER_CONVERGED &&
                        !(bisecting && res.driver.stop == DRIVER_MAX_REWRITES);
    if (nonconverged) {
        char why[512];
        nonconvergence_reason(&res.driver, why, sizeof why);
        if (a->allow_nonconvergence)
            fprintf(stderr, "graft opt: warning: did not converge: %s\n", why);
        else
            st = cli_fail("opt", "did not converge: %s (--allow-nonconvergence accepts this)",
                          why);
    }
    if (a->stats) {
        if (a->stats_json)
            print_json(&r);
        else
            print_table(&r);
    }
    if ((st == EXIT_OK || nonconverged) && (out || !a->stats)) {
        if (!dump_write_file(g, out ? out : "-", &err))
            st = cli_report("opt", &err);
    }
    if (st == EXIT_OK && verify_flag) {
        rerun again = {path, &a->dims, plan, &o};
        st = verify(&again, g, res.driver.rewrites);
    }
    optimize_result_free(&res);
    graph_free(g);
    return st;
}

int cmd_opt(int argc, char **argv)
{
    opt_args a = {0};
    int st = cli_take_dims("opt", &argc, argv, &a.dims);
    if (st == EXIT_OK)
        st = pre_parse(argc, argv, &a);
    if (st == EXIT_OK)
        st = run(&a);
    opt_args_free(&a);
    return st;
}
