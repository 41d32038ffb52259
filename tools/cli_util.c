/* cli_util.c: option parsing and error reporting shared by the graft
 * subcommands (see cli_util.h for the conventions they follow).
 */
#include "cli_util.h"

#include "ir.h"

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

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "graft %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_help_pointer(command);
    return EXIT_USAGE;
}

int cli_fail(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "graft %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
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

graft_graph *cli_load_graph(const char *command, const char *path)
{
    graft_error err = {0};
    graft_graph *g = graft_graph_read_file(path, &err);
    if (!g) {
        cli_report(command, &err);
        return NULL;
    }
    if (!graph_verify(g, &err)) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", path);
        cli_report(command, &err);
        graph_free(g);
        return NULL;
    }
    return g;
}
