/* graft_api_optimize.c: the public optimise and run entry points of graft.h.
 *
 * Thin adapters: a library user gets the same pipelines as `graft opt -p`,
 * the same user-rule loading as `graft opt -r`, and the same reference
 * executor as `graft run`, through types that do not expose the IR. The
 * kernel counts and bytes_moved are the launch plan's, as `graft opt
 * --stats` gives them (docs/codegen.md), or the op classes' when the graph
 * does not lower.
 */
#include "codegen.h"
#include "exec.h"
#include "kernel_counts.h"
#include "load.h"
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool optimize_with(graph *g, const optimize_plan *plan, graft_opt_stats *stats,
                          graft_error *err)
{
    driver_options opt;
    driver_options_init(&opt);
    optimize_result res;
    memset(&res, 0, sizeof res);
    bool ok = optimize_plan_run(g, plan, &opt, &res, err);
    if (ok && res.driver.stop == DRIVER_ERROR) {
        if (err)
            *err = res.driver.error;
        ok = false;
    }
    if (ok && stats) {
        kernel_counts counts;
        graph_kernel_counts(g, &counts);
        memset(stats, 0, sizeof *stats);
        stats->instructions_before = res.instructions_before;
        stats->instructions_after = res.instructions_after;
        stats->kernels = counts.kernels;
        stats->fills = counts.fills;
        stats->copies = counts.copies;
        stats->bytes_moved = counts.bytes_moved;
        stats->bytes_lower_bound = counts.bytes_lower_bound;
        graft_error lower_err;
        cg_counts planned;
        if (cg_graph_counts(g, &planned, &lower_err)) {
            stats->kernels = planned.kernels;
            stats->fills = planned.fills;
            stats->copies = planned.copies;
            stats->bytes_moved = planned.bytes_moved;
        }
        stats->rewrites = res.driver.rewrites;
        stats->compute_shape_calls = res.compute_shape_calls;
        stats->converged = res.driver.converged;
        stats->ms = res.ms;
    }
    optimize_result_free(&res);
    return ok;
}

bool graft_graph_optimize(graft_graph *g, const char *pipeline_name, graft_opt_stats *stats,
                          graft_error *err)
{
    const pipeline *p = pipeline_find(pipeline_name ? pipeline_name : "default");
    if (!p)
        return error_set(err, "unknown pipeline '%s'", pipeline_name);
    optimize_plan plan;
    if (!pipeline_plan(p, &plan, err))
        return false;
    return optimize_with(g, &plan, stats, err);
}

bool graft_graph_optimize_with_rules(graft_graph *g, const char *rules_path, graft_opt_stats *stats,
                                     graft_error *err)
{
    loaded_rules rules;
    if (!dsl_load_rules(rules_path, NULL, &rules, err))
        return false;
    optimize_plan plan = {.nphases = 1, .nsets = {1}, .sets = {{rules.set}}};
    bool ok = optimize_with(g, &plan, stats, err);
    dsl_unload_rules(&rules);
    return ok;
}

void graft_tensors_free(graft_tensor *tensors, int n)
{
    if (!tensors)
        return;
    for (int k = 0; k < n; k++) {
        free((char *)tensors[k].name);
        free(tensors[k].data);
    }
    free(tensors);
}

bool graft_graph_run(const graft_graph *g, const graft_tensor *inputs, int ninputs,
                     graft_tensor **outputs, int *noutputs, graft_error *err)
{
    *outputs = NULL;
    *noutputs = 0;
    const module *m = graph_main(g);
    if (!m)
        return error_set(err, "the graph has no module");
    tensor_list in = {0}, out = {0};
    bool ok = true;
    for (int k = 0; k < ninputs && ok; k++) {
        const graft_tensor *t = &inputs[k];
        if (t->rank < 1 || t->rank > GRAFT_MAX_RANK || (unsigned)t->type >= GRAFT_TUPLE) {
            ok = error_set(err, "input %d ('%s'): bad rank or type", k, t->name ? t->name : "");
            break;
        }
        tensor view = {shape_standard(t->type, t->rank, t->lens), t->data};
        ok = tensor_list_add(&in, t->name ? t->name : "", &view, err);
    }
    if (ok)
        ok = exec_run(m, &in, &out, err);
    if (ok && out.n) {
        graft_tensor *res = calloc((size_t)out.n, sizeof *res);
        ok = res != NULL || error_set(err, "out of memory");
        for (int k = 0; ok && k < out.n; k++) {
            const tensor *t = &out.items[k].t;
            size_t bytes = shape_bytes(&t->sh);
            res[k].name = strdup(out.items[k].name);
            res[k].type = t->sh.type;
            res[k].rank = t->sh.rank;
            memcpy(res[k].lens, t->sh.lens, sizeof t->sh.lens[0] * (size_t)t->sh.rank);
            char what[300];
            snprintf(what, sizeof what, "output '%.200s'", out.items[k].name);
            if (!res[k].name) {
                ok = error_set(err, "out of memory");
                break;
            }
            if (!(res[k].data = exec_alloc(&t->sh, false, what, err))) {
                ok = false;
                break;
            }
            memcpy(res[k].data, t->data, bytes);
        }
        if (ok) {
            *outputs = res;
            *noutputs = out.n;
        } else {
            graft_tensors_free(res, out.n);
        }
    }
    tensor_list_free(&in);
    tensor_list_free(&out);
    return ok;
}
