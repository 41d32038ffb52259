/* cmd_compile.c: `graft compile GRAPH -o DIR`: a graph to HIP kernels,
 * code objects and a launch plan.
 *
 * The graph is optimised with a pipeline first (`default` unless -p says
 * otherwise, `-p none` for the graph as it is), then lowered (codegen/),
 * its memory planned, and DIR written: NAME.hip per kernel with
 * graft_kernel.h beside them, weights.bin, plan.json, and the code objects
 * DIR/<arch>/NAME.co that hiprtc compiles in child processes (cached). The
 * summary names every kernel and gives the memory plan's three figures.
 */
#include "commands.h"

#include "cli_util.h"
#include "codegen.h"
#include "ir.h"
#include "output_format.h"
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char compile_help[] =
    "usage: graft compile GRAPH -o DIR [-p PIPELINE] [--arch LIST] [--jobs N]\n"
    "                     [--no-code-objects] [--output-format F] [--dim NAME=VALUE ...]\n"
    "\n"
    "Optimises GRAPH with PIPELINE (default: default; none: as it is), lowers every\n"
    "fused region and compute op to one HIP kernel, plans memory and writes DIR:\n"
    "  DIR/NAME.hip         one kernel each, with DIR/graft_kernel.h they include\n"
    "  DIR/<arch>/NAME.co   code objects compiled by hiprtc, per architecture\n"
    "  DIR/weights.bin      the graph's literals, as plan.json places them\n"
    "  DIR/plan.json        launch order, grid and block, buffers with offsets,\n"
    "                       bindings of inputs, weights and outputs, memory figures\n"
    "\n"
    "  -o DIR            the output directory (created)\n"
    "  -p PIPELINE       rule pipeline to run first (default: default)\n"
    "  --arch LIST       comma-separated architectures (default gfx90a,gfx1030;\n"
    "                    also gfx908, gfx906, gfx900)\n"
    "  --jobs N          hiprtc child processes at once (default 2)\n"
    "  --no-code-objects write the sources and the plan only\n"
    "  --output-format F the outputs' memory format: standard or a permutation of\n"
    "                    the axes, slowest first (0,2,3,1: NHWC), as graft opt takes\n"
    CLI_DIM_HELP
    "\n"
    "Code objects are cached under $XDG_CACHE_HOME/graft/hip (~/.cache/graft/hip).\n"
    "Exit status: 0 ok, 1 bad input, an op not lowered yet or a kernel that fails to\n"
    "compile (named, with the hiprtc log and its source), 2 usage.\n";

static void human(size_t n, char *buf, size_t size)
{
    if (n >= (size_t)10 << 20)
        snprintf(buf, size, "%.1f MiB", (double)n / (1 << 20));
    else if (n >= (size_t)10 << 10)
        snprintf(buf, size, "%.1f KiB", (double)n / (1 << 10));
    else
        snprintf(buf, size, "%zu B", n);
}

static int optimize_with(graph *g, const char *name)
{
    if (strcmp(name, "none") == 0)
        return EXIT_OK;
    const pipeline *p = cli_find_pipeline("compile", name);
    if (!p)
        return EXIT_USAGE;
    optimize_plan plan;
    graft_error err = {0};
    if (!pipeline_plan(p, &plan, &err))
        return cli_report("compile", &err);
    optimize_result res;
    if (!optimize_plan_run(g, &plan, NULL, &res, &err))
        return cli_report("compile", &err);
    int st = EXIT_OK;
    if (res.driver.stop != DRIVER_CONVERGED)
        st = cli_fail("compile", "-p %s did not converge (%s)", name,
                      driver_stop_name(res.driver.stop));
    else if (!graph_verify(g, &err))
        st = cli_report("compile", &err);
    optimize_result_free(&res);
    return st;
}

int cmd_compile(int argc, char **argv)
{
    const char *out = NULL, *pipe = NULL, *arch = NULL, *jobs = NULL, *format = NULL;
    bool no_co = false;
    const cli_option options[] = {
        {"output", 'o', &out, NULL},        {"pipeline", 'p', &pipe, NULL},
        {"arch", 0, &arch, NULL},           {"jobs", 0, &jobs, NULL},
        {"no-code-objects", 0, NULL, &no_co},
        {"output-format", 0, &format, NULL},
    };
    cli_args args;
    cli_dims dims;
    int st = cli_parse_graph_command("compile", &argc, argv, options,
                                     (int)(sizeof options / sizeof options[0]), &args, &dims);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(compile_help, stdout);
        return EXIT_OK;
    }
    if (!out)
        return cli_usage_error("compile", "-o DIR is required");
    uint64_t njobs = 2;
    if (jobs && (!cli_parse_u64(jobs, &njobs) || njobs < 1 || njobs > 64))
        return cli_usage_error("compile", "--jobs wants a number from 1 to 64, not '%s'", jobs);
    graft_error err = {0};
    const char *archs[8];
    char arch_text[256];
    int narchs = cg_parse_archs(arch ? arch : "gfx90a,gfx1030", archs, 8, arch_text,
                                sizeof arch_text, &err);
    if (narchs < 0)
        return cli_report("compile", &err);
    const char *path = args.positional[0];
    graph *g = cli_load_graph_with("compile", path, &dims);
    if (!g)
        return EXIT_FAIL;
    if (format) {
        output_format f;
        if (!output_format_parse(format, &f, &err)) {
            graph_free(g);
            return cli_usage_error("compile", "%s", err.message);
        }
        if (!graph_request_output_format(g, &f, NULL, &err)) {
            graph_free(g);
            return cli_report("compile", &err);
        }
    }
    st = optimize_with(g, pipe ? pipe : "default");
    cg_program *p = NULL;
    if (st == EXIT_OK && !(p = cg_lower(g, &err)))
        st = cli_report("compile", &err);
    if (st == EXIT_OK && (!cg_plan(p, &err) || !cg_write_dir(p, out, archs, narchs, &err)))
        st = cli_report("compile", &err);
    if (st == EXIT_OK) {
        printf("%s: %d kernel%s (-p %s) -> %s/\n", path, p->nkernels, p->nkernels == 1 ? "" : "s",
               pipe ? pipe : "default", out);
        for (int k = 0; k < p->nkernels; k++)
            printf("  %-36s %-14s grid %5u x %4u  from %.60s\n", p->kernels[k].name,
                   p->kernels[k].kind, p->kernels[k].grid, p->kernels[k].block,
                   p->kernels[k].origin);
        const cg_memory *m = &p->mem;
        char a[32], s[32], pk[32], in[32], w[32];
        human(m->arena, a, sizeof a);
        human(m->sum, s, sizeof s);
        human(m->peak, pk, sizeof pk);
        human(m->inputs, in, sizeof in);
        human(m->weights, w, sizeof w);
        printf("  memory: arena %s, sum of buffers %s, peak live %s (arena/peak %.2f, "
               "arena/sum %.2f); inputs %s, weights %s\n",
               a, s, pk, m->peak ? (double)m->arena / (double)m->peak : 1.0,
               m->sum ? (double)m->arena / (double)m->sum : 1.0, in, w);
        fflush(stdout);
    }
    if (st == EXIT_OK && !no_co) {
        cg_compile_options co = {archs, narchs, out, NULL, (int)njobs};
        cg_compile_stats cs;
        if (!cg_compile(p, &co, &cs, &err)) {
            st = cli_report("compile", &err);
        } else {
            printf("  hiprtc: %d code object%s for", p->nkernels * narchs,
                   p->nkernels * narchs == 1 ? "" : "s");
            for (int a = 0; a < narchs; a++)
                printf("%s %s", a ? "," : "", archs[a]);
            printf(" (%d compiled, %d cached) in %.2f s", cs.compiled, cs.cached, cs.seconds);
            if (cs.compiled)
                printf(", %.2f s per compile", cs.compile_seconds / cs.compiled);
            printf("\n");
        }
    }
    cg_program_free(p);
    graph_free(g);
    return st;
}
