/* cli_util.c: option parsing and error reporting shared by the graft
 * subcommands (see cli_util.h for the conventions they follow).
 */
#include "cli_util.h"
#include "cse.h"

#include "ir.h"
#include "pipeline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_help_pointer(const char *command)
{
    fprintf(stderr, "try 'graft %s --help'\n", command);
}

/* "graft COMMAND: MESSAGE" on stderr, the line cli_usage_error and cli_fail
 * both print. */
static void print_complaint(const char *command, const char *fmt, va_list ap)
{
    fprintf(stderr, "graft %s: ", command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_complaint(command, fmt, ap);
    va_end(ap);
    print_help_pointer(command);
    return EXIT_USAGE;
}

int cli_fail(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_complaint(command, fmt, ap);
    va_end(ap);
    return EXIT_FAIL;
}

int cli_report(const char *command, const graft_error *err)
{
    char buf[2048];
    if (err->file[0] && err->line > 0) {
        fprintf(stderr, "%s\n", graft_error_format(err, buf, sizeof buf));
    } else if (err->file[0]) {
        fprintf(stderr, "graft %s: %s: %s\n", command, err->file, err->message);
    } else {
        fprintf(stderr, "graft %s: %s\n", command, err->message[0] ? err->message : "failed");
    }
    return EXIT_FAIL;
}

static const cli_option *find_long(const cli_option *options, int n, const char *name,
                                   size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(options[i].long_name) == len && strncmp(options[i].long_name, name, len) == 0)
            return &options[i];
    return NULL;
}

static const cli_option *find_short(const cli_option *options, int n, char c)
{
    for (int i = 0; i < n; i++)
        if (options[i].short_name == c)
            return &options[i];
    return NULL;
}

/* Stores the option's value (from inline "=VALUE" or the next argument).
 * *i is advanced past a consumed argument. */
static int take_value(const char *command, const char *spelled, const cli_option *opt,
                      const char *inline_value, int argc, char **argv, int *i)
{
    if (!opt->value) {
        if (inline_value)
            return cli_usage_error(command, "option '%s' takes no value", spelled);
        *opt->flag = true;
        return EXIT_OK;
    }
    if (inline_value) {
        *opt->value = inline_value;
        return EXIT_OK;
    }
    if (*i + 1 >= argc)
        return cli_usage_error(command, "option '%s' needs a value", spelled);
    *opt->value = argv[++*i];
    return EXIT_OK;
}

int cli_parse(const char *command, int argc, char **argv, const cli_option *options,
              int noptions, cli_args *out)
{
    memset(out, 0, sizeof *out);
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            out->help = true;
            continue;
        }
        if (!options_done && a[0] == '-' && a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const cli_option *opt = find_long(options, noptions, name, len);
            if (!opt)
                return cli_usage_error(command, "unknown option '%.*s'", (int)(len + 2), a);
            int st = take_value(command, a, opt, eq ? eq + 1 : NULL, argc, argv, &i);
            if (st != EXIT_OK)
                return st;
            continue;
        }
        if (!options_done && a[0] == '-' && a[1] != 0) {
            /* "-" alone is a positional (stdout/stdin); "-o OUT" or "-oOUT". */
            const cli_option *opt = find_short(options, noptions, a[1]);
            if (!opt)
                return cli_usage_error(command, "unknown option '%s'", a);
            char spelled[3] = {'-', a[1], 0};
            int st = take_value(command, spelled, opt, a[2] ? a + 2 : NULL, argc, argv, &i);
            if (st != EXIT_OK)
                return st;
            continue;
        }
        if (out->npositional == (int)(sizeof out->positional / sizeof out->positional[0]))
            return cli_usage_error(command, "too many arguments");
        out->positional[out->npositional++] = a;
    }
    return EXIT_OK;
}

int cli_expect_positional(const char *command, const cli_args *args, int min, int max,
                          const char *what)
{
    if (args->npositional < min)
        return cli_usage_error(command, "missing %s", what);
    if (args->npositional > max)
        return cli_usage_error(command, "unexpected argument '%s'", args->positional[max]);
    return EXIT_OK;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static int dim_index(const cli_dims *dims, const char *name)
{
    for (int k = 0; k < dims->n; k++)
        if (strcmp(dims->names[k], name) == 0)
            return k;
    return -1;
}

/* One NAME=VALUE binding into dims. */
static int add_dim(const char *command, const char *binding, cli_dims *dims)
{
    const char *eq = binding ? strchr(binding, '=') : NULL;
    if (!eq || eq == binding)
        return cli_usage_error(command, "--dim wants NAME=VALUE, not '%s'",
                               binding ? binding : "");
    size_t len = (size_t)(eq - binding);
    if (len >= CLI_MAX_DIM_NAME)
        return cli_usage_error(command, "--dim: the name '%.*s...' is too long", 32, binding);
    uint64_t v;
    if (!cli_parse_u64(eq + 1, &v) || v > ((uint64_t)1 << 32))
        return cli_usage_error(command, "--dim %.*s: '%s' is not a dimension (0 to 2^32)",
                               (int)len, binding, eq + 1);
    char name[CLI_MAX_DIM_NAME];
    memcpy(name, binding, len);
    name[len] = 0;
    int k = dim_index(dims, name);
    if (k < 0) {
        if (dims->n == CLI_MAX_DIMS)
            return cli_usage_error(command, "too many --dim bindings (at most %d)", CLI_MAX_DIMS);
        k = dims->n++;
        memcpy(dims->name_text[k], name, len + 1);
        dims->names[k] = dims->name_text[k];
    }
    dims->values[k] = (int64_t)v;
    return EXIT_OK;
}

/* One NAME=D0,D1,... shape into dims. */
static int add_input_dim(const char *command, const char *binding, cli_dims *dims)
{
    const char *eq = binding ? strchr(binding, '=') : NULL;
    if (!eq || eq == binding)
        return cli_usage_error(command, "--input-dim wants NAME=D0,D1,..., not '%s'",
                               binding ? binding : "");
    size_t len = (size_t)(eq - binding);
    if (len >= CLI_MAX_DIM_NAME)
        return cli_usage_error(command, "--input-dim: the name '%.*s...' is too long", 32,
                               binding);
    onnx_input_shape shape = {NULL, 0, {0}};
    const char *p = eq + 1;
    while (true) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char num[32];
        uint64_t v;
        if (n == 0 || n >= sizeof num)
            return cli_usage_error(command, "--input-dim %.*s: '%s' is not a list of dimensions",
                                   (int)len, binding, eq + 1);
        memcpy(num, p, n);
        num[n] = 0;
        if (!cli_parse_u64(num, &v) || v < 1 || v > ((uint64_t)1 << 32))
            return cli_usage_error(command, "--input-dim %.*s: '%s' is not a dimension (1 to 2^32)",
                                   (int)len, binding, num);
        if (shape.rank == SHAPE_MAX_RANK)
            return cli_usage_error(command, "--input-dim %.*s: more than %d dimensions", (int)len,
                                   binding, SHAPE_MAX_RANK);
        shape.lens[shape.rank++] = (int64_t)v;
        if (!comma)
            break;
        p = comma + 1;
    }
    int k = 0;
    while (k < dims->ninputs && !(strlen(dims->input_text[k]) == len &&
                                   memcmp(dims->input_text[k], binding, len) == 0))
        k++;
    if (k == dims->ninputs) {
        if (dims->ninputs == CLI_MAX_DIMS)
            return cli_usage_error(command, "too many --input-dim shapes (at most %d)",
                                   CLI_MAX_DIMS);
        dims->ninputs++;
        memcpy(dims->input_text[k], binding, len);
        dims->input_text[k][len] = 0;
    }
    shape.name = dims->input_text[k];
    dims->inputs[k] = shape;
    return EXIT_OK;
}

int cli_take_dims(const char *command, int *argc, char **argv, cli_dims *dims)
{
    dims->n = 0;
    dims->ninputs = 0;
    int kept = 1;
    bool options_done = false;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0)
            options_done = true;
        bool input = !options_done && strncmp(a, "--input-dim", 11) == 0 &&
                     (a[11] == 0 || a[11] == '=');
        size_t olen = input ? 11 : 5;
        if (options_done ||
            (!input && (strncmp(a, "--dim", 5) != 0 || (a[5] != 0 && a[5] != '=')))) {
            argv[kept++] = argv[i];
            continue;
        }
        const char *binding = a[olen] == '=' ? a + olen + 1 : NULL;
        if (!binding) {
            if (i + 1 >= *argc)
                return cli_usage_error(command, "option '%s' needs a value",
                                       input ? "--input-dim" : "--dim");
            binding = argv[++i];
        }
        int st = input ? add_input_dim(command, binding, dims) : add_dim(command, binding, dims);
        if (st != EXIT_OK)
            return st;
    }
    *argc = kept;
    argv[kept] = NULL; /* argv[*argc] stays NULL, as main's does */
    return EXIT_OK;
}

void cli_dims_options(const cli_dims *dims, graph_read_options *out)
{
    out->ndims = dims ? dims->n : 0;
    out->dim_names = dims ? dims->names : NULL;
    out->dim_values = dims ? dims->values : NULL;
    out->ninput_shapes = dims ? dims->ninputs : 0;
    out->input_shapes = dims ? dims->inputs : NULL;
    out->built = NULL;
    out->built_ctx = NULL;
}

graft_graph *cli_load_graph(const char *command, const char *path)
{
    return cli_load_graph_with(command, path, NULL);
}

graft_graph *cli_load_graph_with(const char *command, const char *path, const cli_dims *dims)
{
    return cli_load_graph_probed(command, path, dims, NULL);
}

graft_graph *cli_load_graph_probed(const char *command, const char *path, const cli_dims *dims,
                                   bool *maybe_twins)
{
    graft_error err = {0};
    size_t len;
    char *bytes = read_file_all(path, &len, &err);
    if (!bytes) {
        cli_report(command, &err);
        return NULL;
    }
    graft_graph *g = cli_load_graph_bytes_probed(command, bytes, len, path, dims, maybe_twins);
    free(bytes);
    return g;
}

graft_graph *cli_load_graph_bytes(const char *command, const char *bytes, size_t len,
                                  const char *path, const cli_dims *dims)
{
    return cli_load_graph_bytes_probed(command, bytes, len, path, dims, NULL);
}

/* graph_read_options.built for *maybe_twins: each instruction read goes
 * to CSE's probe (cse.h) as it is built, when a dump's reader has just
 * written its lines and its operand's users array, so the probe costs
 * little beside the reading; NULL starts it over. */
static void probe_built(void *ctx, const ins *i)
{
    cse_probe *p = ctx;
    if (!i)
        *p = (cse_probe){0};
    else
        cse_probe_next(p, i);
}

graft_graph *cli_load_graph_bytes_probed(const char *command, const char *bytes, size_t len,
                                         const char *path, const cli_dims *dims,
                                         bool *maybe_twins)
{
    graft_error err = {0};
    graph_read_options opts;
    cli_dims_options(dims, &opts);
    cse_probe probe = {0};
    if (maybe_twins) {
        opts.built = probe_built;
        opts.built_ctx = &probe;
    }
    graft_graph *g = graph_read_any_with(bytes, len, path, &opts, &err);
    if (maybe_twins)
        *maybe_twins = !g || probe.maybe;
    if (!g) {
        cli_report(command, &err);
        return NULL;
    }
    /* A dump is verified as it is read (graph_bytes_are_dump): the
     * whole-graph check runs again for the other formats, and in debug
     * builds for dumps too, as a self-check of the reader. */
    bool verified = false;
#ifdef NDEBUG
    verified = graph_bytes_are_dump(bytes, len);
#endif
    if (!verified && !graph_verify(g, &err)) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", path);
        cli_report(command, &err);
        graph_free(g);
        return NULL;
    }
    return g;
}

int cli_parse_graph_command(const char *command, int *argc, char **argv,
                            const cli_option *options, int noptions, cli_args *args,
                            cli_dims *dims)
{
    int st = cli_take_dims(command, argc, argv, dims);
    if (st == EXIT_OK)
        st = cli_parse(command, *argc, argv, options, noptions, args);
    if (st != EXIT_OK || args->help)
        return st;
    return cli_expect_positional(command, args, 1, 1, "GRAPH");
}

const pipeline *cli_find_pipeline(const char *command, const char *name)
{
    const pipeline *p = pipeline_find(name);
    if (p)
        return p;
    int n;
    const pipeline *all = pipeline_all(&n);
    char names[256] = "";
    size_t at = 0;
    for (int k = 0; k < n && at < sizeof names; k++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", k ? ", " : "", all[k].name);
    cli_usage_error(command, "unknown pipeline '%s' (pipelines: %s)", name, names);
    return NULL;
}
