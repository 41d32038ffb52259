/* cmd_dot.c: `graft dot GRAPH -o OUT.svg|OUT.dot [-p PIPELINE]`: a picture
 * of the graph, each fused region a labelled cluster with its ops inside.
 *
 * It exists so that a fusion result can be seen rather than read: which ops
 * each kernel holds, and what crosses between kernels. The graph (optimised
 * first with -p, as `graft opt` would) is written as Graphviz dot text; an
 * OUT ending in .svg is rendered by Graphviz's `dot -Tsvg` (Debian package
 * graphviz, installed by `make deps`). Either way OUT is written atomically
 * (write_file_atomic: a temporary file renamed into place), so a failure
 * leaves no half-written picture.
 *
 * What is drawn: every instruction of the main module and of each region
 * body, except the regions' own parameters and returns and the tuple reads
 * of region outputs, which are drawn as the edges they stand for: an edge
 * leaves the instruction inside a body that computes a region output and
 * enters the instruction inside a body that reads a region input. Views
 * (no data moved) are dashed, compute ops bold, parameters and literals
 * grey notes.
 */
#include "commands.h"

#include "cli_util.h"
#include "fileio.h"
#include "kernel_counts.h"
#include "pipeline.h"
#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char dot_help[] =
    "usage: graft dot GRAPH -o OUT.svg|OUT.dot [-p PIPELINE] [--dim NAME=VALUE ...]\n"
    "\n"
    "Draws GRAPH (optimised with PIPELINE first, if given) with Graphviz: each\n"
    "fused region is a labelled cluster holding its ops; edges are values.\n"
    "\n"
    "  -o, --output OUT   OUT.svg: rendered with Graphviz's `dot -Tsvg` (Debian\n"
    "                     package graphviz); OUT.dot or OUT.gv: the dot text.\n"
    "                     Written atomically (temp file + rename)\n"
    "  -p, --pipeline P   run the rule pipeline P first (as graft opt -p P)\n"
    CLI_DIM_HELP
    "\n"
    "Exit status: 0 ok, 1 bad input, a pipeline that fails or Graphviz missing or\n"
    "failing, 2 usage.\n";

/* ---- which instruction stands for a value ---- */

typedef struct region_index {
    const ins **regions; /* the main module's regions */
    int n;
} region_index;

static const ins *region_of_body(const region_index *ri, const module *body)
{
    for (int k = 0; k < ri->n; k++)
        if (ri->regions[k]->mods[0] == body)
            return ri->regions[k];
    return NULL;
}

static bool is_region(const ins *i)
{
    return i->nmods > 0;
}

static bool is_region_output_read(const ins *i)
{
    return (i->op->classes & OPC_VIEW) && i->nargs == 1 && is_region(i->args[0]) &&
           shape_is_tuple(&i->args[0]->sh);
}

static int64_t tuple_index(const ins *read)
{
    const attr *a = attr_find(read->attrs, read->nattrs, "index");
    return a ? a->v.u.i : -1;
}

/* The body parameter's operand index (x<k>), -1 for another name. */
static int param_slot(const ins *p)
{
    if (!p->param || p->param[0] != 'x' || !p->param[1])
        return -1;
    char *end;
    long k = strtol(p->param + 1, &end, 10);
    return *end || k < 0 || k > 1000000 ? -1 : (int)k;
}

/* The drawn instruction an edge for value v leaves from (see above). Regions
 * do not nest, so this goes at most into one body and out through one
 * region's operand. */
static const ins *drawn_source(const region_index *ri, const ins *v)
{
    for (int guard = 0; guard < 8; guard++) {
        const ins *r = NULL;
        int64_t slot = 0;
        if (is_region(v) && !shape_is_tuple(&v->sh)) {
            r = v;
        } else if (is_region_output_read(v)) {
            r = v->args[0];
            slot = tuple_index(v);
        } else if (v->param && v->mod != graph_main(v->mod->g)) {
            const ins *owner = region_of_body(ri, v->mod);
            int k = param_slot(v);
            if (!owner || k < 0 || k >= owner->nargs)
                return v;
            v = owner->args[k];
            continue;
        }
        if (!r)
            return v;
        const ins *ret = module_return(r->mods[0]);
        if (!ret || slot < 0 || slot >= ret->nargs)
            return v;
        v = ret->args[slot];
    }
    return v;
}

/* ---- dot text ---- */

static void quoted(strbuf *b, const char *s)
{
    strbuf_append_string(b, "\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            strbuf_append(b, "\\", 1);
        if (*s == '\n')
            strbuf_append_string(b, "\\n");
        else
            strbuf_append(b, s, 1);
    }
    strbuf_append_string(b, "\"");
}

/* "@5" of "main:fused5:@5" (body names carry their module's); "#ID" for an
 * instruction a rewrite made, which has no name until a dump names it. */
static const char *short_name(const ins *i, char *buf, size_t size)
{
    if (!i->name) {
        snprintf(buf, size, "#%u", i->id);
        return buf;
    }
    const char *colon = strrchr(i->name, ':');
    return colon && colon[1] ? colon + 1 : i->name;
}

static void node(strbuf *b, const ins *i)
{
    char lens[256], label[512], name[32];
    unsigned c = i->op->classes;
    if (shape_is_tuple(&i->sh))
        snprintf(lens, sizeof lens, "tuple of %d", i->sh.ntuple);
    else {
        int n = snprintf(lens, sizeof lens, "%s ", type_name(i->sh.type));
        ints_print(i->sh.lens, i->sh.rank, lens + n, sizeof lens - (size_t)n);
    }
    const char *style;
    if (i->param)
        style = "shape=note, style=filled, fillcolor=\"#dddddd\"";
    else if (c & OPC_BUILTIN)
        style = i->nargs ? "shape=doubleoctagon" : "shape=note, style=filled, fillcolor=\"#eeeeee\"";
    else if ((c & OPC_VIEW) || ((c & OPC_SHAPE) && !instruction_is_kernel(i)))
        style = "shape=box, style=\"rounded,dashed\"";
    else if (c & OPC_COMPUTE)
        style = "shape=box, style=\"bold,filled\", fillcolor=\"#ffe0b0\"";
    else
        style = "shape=box, style=\"rounded,filled\", fillcolor=\"#d8ecff\"";
    if (i->param && i->mod == graph_main(i->mod->g))
        snprintf(label, sizeof label, "%s\n%s", i->param, lens);
    else if ((c & OPC_BUILTIN) && i->nargs)
        snprintf(label, sizeof label, "outputs");
    else if (c & OPC_BUILTIN)
        snprintf(label, sizeof label, "%s = literal\n%s", short_name(i, name, sizeof name), lens);
    else
        snprintf(label, sizeof label, "%s = %s\n%s", short_name(i, name, sizeof name), i->opname,
                 lens);
    strbuf_appendf(b, "  n%u [", i->id);
    strbuf_append_string(b, style);
    strbuf_append_string(b, ", label=");
    quoted(b, label);
    strbuf_append_string(b, "];\n");
}

static bool drawn(const ins *i)
{
    if (is_region(i) || is_region_output_read(i))
        return false;
    bool in_body = i->mod != graph_main(i->mod->g);
    if (in_body && (i->param || i == module_return(i->mod)))
        return false;
    return true;
}

static void edges_into(strbuf *b, const region_index *ri, const ins *u)
{
    for (int k = 0; k < u->nargs; k++) {
        const ins *from = drawn_source(ri, u->args[k]);
        strbuf_appendf(b, "  n%u -> n%u;\n", from->id, u->id);
    }
}

/* The graph as dot text (malloc'd), NULL when memory ran out. */
static char *graph_dot_text(const graph *g, size_t *len)
{
    const module *m = graph_main(g);
    region_index ri = {0};
    for (const ins *i = m->first; i; i = i->next)
        ri.n += is_region(i);
    ri.regions = calloc((size_t)(ri.n ? ri.n : 1), sizeof *ri.regions);
    if (!ri.regions)
        return NULL;
    int n = 0;
    for (const ins *i = m->first; i; i = i->next)
        if (is_region(i))
            ri.regions[n++] = i;

    strbuf b = {0};
    strbuf_append_string(&b, "digraph graft {\n  rankdir=TB;\n"
                             "  graph [fontname=\"Helvetica\", fontsize=11];\n"
                             "  node [fontname=\"Helvetica\", fontsize=10];\n"
                             "  edge [arrowsize=0.6];\n");
    for (const ins *i = m->first; i; i = i->next) {
        if (drawn(i)) {
            node(&b, i);
            continue;
        }
        if (!is_region(i))
            continue;
        const module *body = i->mods[0];
        int ops = 0;
        for (const ins *j = body->first; j; j = j->next)
            ops += drawn(j) && !(j->op->classes & OPC_BUILTIN);
        char label[256], name[32];
        snprintf(label, sizeof label, "%s: region %s, %d op%s, one kernel",
                 short_name(i, name, sizeof name),
                 body->name, ops, ops == 1 ? "" : "s");
        strbuf_appendf(&b, "  subgraph cluster_%u {\n    style=\"rounded,filled\"; "
                           "fillcolor=\"#f4f4f4\"; color=\"#888888\"; label=",
                       i->id);
        quoted(&b, label);
        strbuf_append_string(&b, ";\n");
        for (const ins *j = body->first; j; j = j->next)
            if (drawn(j)) {
                strbuf_append_string(&b, "  ");
                node(&b, j);
            }
        strbuf_append_string(&b, "  }\n");
    }
    for (const ins *i = m->first; i; i = i->next) {
        if (drawn(i))
            edges_into(&b, &ri, i);
        else if (is_region(i))
            for (const ins *j = i->mods[0]->first; j; j = j->next)
                if (drawn(j))
                    edges_into(&b, &ri, j);
    }
    strbuf_append_string(&b, "}\n");
    free(ri.regions);
    return strbuf_take(&b, len);
}

/* ---- rendering ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Runs `dot -Tsvg FILE` and returns what it printed (malloc'd), NULL after
 * printing why. */
static unsigned char *render_svg(const char *dot_file, size_t *len)
{
    int fds[2];
    if (pipe(fds) != 0) {
        cli_fail("dot", "cannot make a pipe: %s", strerror(errno));
        return NULL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        cli_fail("dot", "cannot start Graphviz: %s", strerror(errno));
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp("dot", "dot", "-Tsvg", dot_file, (char *)NULL);
        fprintf(stderr, "graft dot: cannot run Graphviz's dot (%s): install the Debian package "
                        "graphviz (make deps), or write OUT.dot instead\n",
                strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    unsigned char *svg = NULL;
    bool read_error = false;
    if (f) {
        svg = read_stream_bytes(f, 0, len, &read_error);
        fclose(f);
    } else {
        close(fds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!svg || read_error || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) != 127)
            cli_fail("dot", "Graphviz's dot failed (exit status %d)", WEXITSTATUS(status));
        else if (!WIFEXITED(status))
            cli_fail("dot", "Graphviz's dot was killed");
        free(svg);
        return NULL;
    }
    return svg;
}

static int write_svg(const char *text, size_t len, const char *out)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/graft-dot-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return cli_fail("dot", "cannot make a temporary file in %s: %s",
                        dir && *dir ? dir : "/tmp", strerror(errno));
    bool wrote = write(fd, text, len) == (ssize_t)len;
    close(fd);
    if (!wrote) {
        unlink(path);
        return cli_fail("dot", "cannot write the temporary file %s", path);
    }
    size_t svg_len = 0;
    unsigned char *svg = render_svg(path, &svg_len);
    unlink(path);
    if (!svg)
        return EXIT_FAIL;
    graft_error err = {0};
    bool ok = write_file_atomic(out, svg, svg_len, &err);
    free(svg);
    return ok ? EXIT_OK : cli_report("dot", &err);
}

static int optimize_with(graph *g, const char *name)
{
    const pipeline *p = cli_find_pipeline("dot", name);
    if (!p)
        return EXIT_USAGE;
    optimize_plan plan;
    graft_error err = {0};
    if (!pipeline_plan(p, &plan, &err))
        return cli_report("dot", &err);
    optimize_result res;
    if (!optimize_plan_run(g, &plan, NULL, &res, &err))
        return cli_report("dot", &err);
    int st = EXIT_OK;
    if (res.driver.stop == DRIVER_ERROR)
        st = cli_report("dot", &res.driver.error);
    else if (res.driver.stop != DRIVER_CONVERGED)
        st = cli_fail("dot", "-p %s did not converge (%s)", name,
                      driver_stop_name(res.driver.stop));
    else if (!graph_verify(g, &err))
        st = cli_report("dot", &err);
    optimize_result_free(&res);
    return st;
}

int cmd_dot(int argc, char **argv)
{
    const char *out = NULL, *pipe_name = NULL;
    const cli_option options[] = {{"output", 'o', &out, NULL}, {"pipeline", 'p', &pipe_name, NULL}};
    cli_args args;
    cli_dims dims;
    int st = cli_parse_graph_command("dot", &argc, argv, options, 2, &args, &dims);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(dot_help, stdout);
        return EXIT_OK;
    }
    if (!out)
        return cli_usage_error("dot", "-o OUT.svg or -o OUT.dot is required");
    bool svg = ends_with(out, ".svg");
    if (!svg && !ends_with(out, ".dot") && !ends_with(out, ".gv"))
        return cli_usage_error("dot", "OUT must end in .svg, .dot or .gv, not '%s'", out);
    graph *g = cli_load_graph_with("dot", args.positional[0], &dims);
    if (!g)
        return EXIT_FAIL;
    st = pipe_name ? optimize_with(g, pipe_name) : EXIT_OK;
    size_t len = 0;
    char *text = st == EXIT_OK ? graph_dot_text(g, &len) : NULL;
    graph_free(g);
    if (st != EXIT_OK)
        return st;
    if (!text)
        return cli_fail("dot", "out of memory");
    if (svg) {
        st = write_svg(text, len, out);
    } else {
        graft_error err = {0};
        st = write_file_atomic(out, text, len, &err) ? EXIT_OK : cli_report("dot", &err);
    }
    free(text);
    return st;
}
