/* cmd_rules_check.c: `graft rules FILE... --check`: every rule of the files
 * tested for soundness on graphs of its own pattern (dsl/rule_check.h).
 *
 * It lives apart from cmd_rules.c, which only hands over to it, and owns the
 * report: one line per rule (checked, with how many graphs it fired on out
 * of how many were built; not checked, with the reason; or unsound, with the
 * counterexample), a summary, and the exit status: 1 when a rule is unsound
 * or a file is rejected or cannot be compiled, else 0.
 */
#include "cmd_rules_check.h"

#include "rule_check.h"
#include "cli_util.h"
#include "compile.h"
#include "fileio.h"
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dsl_file *rules_read_checked(const char *path, char **text, int *status)
{
    graft_error err = {0};
    size_t len;
    *text = read_file_all(path, &len, &err);
    if (!*text) {
        *status = cli_report("rules", &err);
        return NULL;
    }
    dsl_diags *diags = calloc(1, sizeof *diags);
    if (!diags) {
        free(*text);
        *text = NULL;
        *status = cli_fail("rules", "out of memory");
        return NULL;
    }
    dsl_file *f = dsl_check_all(path, *text, len, diags, &err);
    if (!f) {
        *status = EXIT_OK;
        if (diags->n == 0)
            *status = cli_report("rules", &err);
        for (int k = 0; k < diags->n; k++)
            *status = cli_report("rules", &diags->items[k]);
        if (diags->total >= DSL_MAX_ERRORS)
            fprintf(stderr, "%s: stopped after %d errors\n", path, DSL_MAX_ERRORS);
        free(*text);
        *text = NULL;
    }
    free(diags);
    return f;
}

/* One file: 0 when every rule that could be checked is sound. */
static int check_file(const char *path, const dsl_check_options *opt, int *nsound, int *nunsound,
                      int *nunchecked)
{
    char *text;
    int st = EXIT_OK;
    dsl_file *f = rules_read_checked(path, &text, &st);
    if (!f)
        return st;
    graft_error err = {0};
    loaded_rules loaded;
    if (!dsl_load_rules(path, NULL, &loaded, &err)) {
        dsl_file_free(f);
        free(text);
        return cli_report("rules", &err);
    }
    for (int i = 0; i < f->nrules; i++) {
        const dsl_rule *r = f->rules[i];
        dsl_check_result res;
        if (!dsl_check_rule(r, loaded.set, opt, &res, &err)) {
            st = cli_report("rules", &err);
            break;
        }
        switch (res.verdict) {
        case CHECK_SOUND:
            (*nsound)++;
            printf("%s:%d: rule %s: sound on %d graph%s (fired on %d of %d built, %.1f%%; %d candidates)\n",
                   path, r->loc.line, r->name, res.fired, res.fired == 1 ? "" : "s", res.fired,
                   res.built, res.built ? 100.0 * res.fired / res.built : 0.0, res.candidates);
            break;
        case CHECK_NOT_CHECKED:
            (*nunchecked)++;
            printf("%s:%d: rule %s: not checked: %s\n", path, r->loc.line, r->name, res.reason);
            break;
        case CHECK_UNSOUND:
            (*nunsound)++;
            st = EXIT_FAIL;
            printf("%s:%d: rule %s: UNSOUND (fired on %d graph%s, %d differ%s; the smallest:)\n%s", path,
                   r->loc.line, r->name, res.fired, res.fired == 1 ? "" : "s", res.differed,
                   res.differed == 1 ? "s" : "", res.counterexample);
            fprintf(stderr, "graft rules: rule %s at %s:%d is unsound\n", r->name, path, r->loc.line);
            break;
        }
        dsl_check_result_free(&res);
    }
    dsl_unload_rules(&loaded);
    dsl_file_free(f);
    free(text);
    return st;
}

int rules_check_files(const char *const *paths, int npaths, const char *candidates,
                      const char *fires, const char *seed)
{
    dsl_check_options opt = {0};
    uint64_t v;
    if (candidates) {
        if (!cli_parse_u64(candidates, &v) || v == 0 || v > 1000000)
            return cli_usage_error("rules", "--check-candidates takes a count from 1 to 1000000, not '%s'",
                                   candidates);
        opt.candidates = (int)v;
    }
    if (fires) {
        if (!cli_parse_u64(fires, &v) || v == 0 || v > 1000000)
            return cli_usage_error("rules", "--check-fires takes a count from 1 to 1000000, not '%s'", fires);
        opt.fires = (int)v;
    }
    if (seed && !cli_parse_u64(seed, &opt.seed))
        return cli_usage_error("rules", "--seed takes a number, not '%s'", seed);
    int st = EXIT_OK, nsound = 0, nunsound = 0, nunchecked = 0;
    for (int k = 0; k < npaths; k++) {
        int s = check_file(paths[k], &opt, &nsound, &nunsound, &nunchecked);
        if (s != EXIT_OK)
            st = s;
    }
    printf("%d rule%s checked: %d sound, %d unsound; %d not checked\n", nsound + nunsound,
           nsound + nunsound == 1 ? "" : "s", nsound, nunsound, nunchecked);
    return st;
}
