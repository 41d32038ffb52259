/* cmd_rules.c: `graft rules FILE.rules [--emit-c OUT.c]`: compile and check a
 * rule file; `graft rules -p PIPELINE --list`: a shipped pipeline's rules;
 * `graft rules --ranks`: the canonical order of ops (ops/op_rank.h).
 *
 * It runs the whole rule compiler (dsl/compile.h): syntax, names and types,
 * the termination measure, duplicate and shadowed rules, the decision trees
 * and the C emitter, and reports each error as file:line:col: message (every
 * rule's first error, up to DSL_MAX_ERRORS; a syntax error stops at once).
 * On success it warns about nonterminating rules that undo each other
 * (dsl/undo_pairs.c), prints one line per rule (name, file:line, and whether
 * it is marked nonterminating) and, with --emit-c, writes the generated C,
 * whose branches name their rule and its file:line.
 */
#include "commands.h"

#include "cli_util.h"
#include "cmd_rules_check.h"
#include "compile.h"
#include "fileio.h"
#include "op_rank.h"
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char rules_help[] =
    "usage: graft rules FILE.rules [--emit-c OUT.c]\n"
    "       graft rules FILE.rules... --check [--check-candidates N] [--check-fires N] [--seed N]\n"
    "       graft rules --ranks\n"
    "       graft rules -p PIPELINE --list\n"
    "\n"
    "Compiles and checks a rule file: syntax, unknown ops, attributes and op\n"
    "classes, arities, captures, guard types, duplicate and shadowed rules, and\n"
    "the termination measure (a rule that does not decrease it must be marked\n"
    "`nonterminating`). Prints the rules it accepted, one per line.\n"
    "\n"
    "  --emit-c OUT.c   also write the generated C (one decision tree per root\n"
    "                   op; each branch names its rule and file:line)\n"
    "  --check          test each rule of FILE... for soundness: build its pattern\n"
    "                   as small random graphs, run each before and after the\n"
    "                   rule alone on the reference executor, print the smallest\n"
    "                   counterexample found; exit 1 if a rule is unsound. A rule\n"
    "                   that never fired within the budget is listed as not\n"
    "                   checked, with the reason (docs/rules.md, \"--check\").\n"
    "  --check-candidates N  graphs built per rule at most (default 20000)\n"
    "  --check-fires N  stop a rule after N graphs it fired on (default 40)\n"
    "  --seed N         the first candidate's seed (default 0)\n"
    "  -p PIPELINE --list\n"
    "                   list a shipped pipeline's rules, phase by phase, with\n"
    "                   their set and file:line (the names --disable, --explain\n"
    "                   and --stats use)\n"
    "  --ranks          print the canonical order of ops the termination measure\n"
    "                   uses (a rule may replace an op by a lower-ranked one)\n"
    "\n"
    "Two nonterminating rules without guards that undo each other (each builds\n"
    "what the other matches) get a warning naming the pair on stderr.\n"
    "\n"
    "Errors print as file:line:col: message (docs/rules.md explains each), one\n"
    "line each: every rule's first error, up to 20 (a syntax error stops at once).\n"
    "Exit status: 0 accepted, 1 rejected or unreadable, 2 usage.\n";

/* Warns (stderr, exit status unchanged) about nonterminating rules that
 * undo each other (dsl/undo_pairs.c). */
static void print_undo_pairs(const dsl_file *f)
{
    dsl_undo_pair pairs[16];
    int n = dsl_find_undo_pairs(f, pairs, 16);
    for (int k = 0; k < n && k < 16; k++) {
        const dsl_rule *a = pairs[k].first, *b = pairs[k].second;
        fprintf(stderr,
                "%s:%d:%d: warning: rules '%s' (line %d) and '%s' undo each other: each "
                "builds what the other matches, so they ping-pong until the fire budget of "
                "nonterminating rules stops them\n",
                f->path, b->loc.line, b->loc.col, a->name, a->loc.line, b->name);
    }
    if (n > 16)
        fprintf(stderr, "%s: warning: %d more pairs of rules that undo each other\n", f->path,
                n - 16);
}

/* --ranks: the canonical order of ops the termination measure uses. */
static int print_ranks(void)
{
    char *table = op_rank_table_markdown();
    if (!table)
        return cli_fail("rules", "out of memory");
    fputs(table, stdout);
    free(table);
    return EXIT_OK;
}

/* -p PIPELINE --list: every rule a shipped pipeline runs. */
static int list_pipeline(const char *name)
{
    const pipeline *p = cli_find_pipeline("rules", name);
    if (!p)
        return EXIT_USAGE;
    optimize_plan plan;
    graft_error err = {0};
    if (!pipeline_plan(p, &plan, &err))
        return cli_report("rules", &err);
    int nrules = 0;
    for (int ph = 0; ph < plan.nphases; ph++) {
        printf("phase %d of %d:", ph + 1, plan.nphases);
        for (int k = 0; k < plan.nsets[ph]; k++)
            printf("%s %s", k ? "," : "", plan.sets[ph][k]->name);
        putchar('\n');
        for (int k = 0; k < plan.nsets[ph]; k++) {
            const rule_set *s = plan.sets[ph][k];
            for (int r = 0; r < s->nrules; r++) {
                const rule_info *ri = &s->rules[r];
                printf("  %-8s %-44s %s:%d%s\n", s->name, ri->name, ri->file ? ri->file : "?",
                       ri->line, ri->flags & RULE_NONDECREASING ? " (nonterminating)" : "");
                nrules++;
            }
        }
    }
    printf("%d rules in pipeline %s\n", nrules, p->name);
    return EXIT_OK;
}

int cmd_rules(int argc, char **argv)
{
    const char *emit_c = NULL, *check_candidates = NULL, *check_fires = NULL, *seed = NULL;
    const char *pipeline_name = NULL;
    bool check = false, ranks = false, list = false;
    cli_option options[] = {{"emit-c", 0, &emit_c, NULL},
                            {"check", 0, NULL, &check},
                            {"check-candidates", 0, &check_candidates, NULL},
                            {"check-fires", 0, &check_fires, NULL},
                            {"seed", 0, &seed, NULL},
                            {"ranks", 0, NULL, &ranks},
                            {"pipeline", 'p', &pipeline_name, NULL},
                            {"list", 0, NULL, &list}};
    cli_args args;
    int st = cli_parse("rules", argc, argv, options, 8, &args);
    if (st != EXIT_OK)
        return st;
    if (args.help) {
        fputs(rules_help, stdout);
        return EXIT_OK;
    }
    if (ranks)
        return print_ranks();
    if (pipeline_name && !list)
        return cli_usage_error("rules", "-p %s lists a pipeline's rules: add --list",
                               pipeline_name);
    if (pipeline_name)
        return list_pipeline(pipeline_name);
    if (check) {
        st = cli_expect_positional("rules", &args, 1, 8, "a rule file");
        return st != EXIT_OK ? st : rules_check_files(args.positional, args.npositional, check_candidates,
                                                      check_fires, seed);
    }
    st = cli_expect_positional("rules", &args, 1, 1, "a rule file");
    if (st != EXIT_OK)
        return st;
    const char *path = args.positional[0];

    char *text;
    dsl_file *f = rules_read_checked(path, &text, &st);
    if (!f)
        return st;
    graft_error err = {0};
    /* The set's name in generated code: the file's base name. */
    char name[256];
    const char *base = strrchr(path, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    char *dot = strstr(name, ".rules");
    if (dot && dot[6] == '\0')
        *dot = '\0';
    dsl_emit_options opt = {.set_name = name, .entry_name = "graft_rules_entry", .exported = true};
    dsl_trees *trees = dsl_build_trees(f, &err);
    char *c = trees ? dsl_emit(f, trees, &opt, &err) : NULL;
    if (!c) {
        dsl_file_free(f);
        free(text);
        return cli_report("rules", &err);
    }
    print_undo_pairs(f);
    for (int i = 0; i < f->nrules; i++) {
        const dsl_rule *r = f->rules[i];
        printf("%s:%d: rule %s%s\n", path, r->loc.line, r->name,
               r->flags & DSL_RULE_NONTERMINATING ? " (nonterminating)" : "");
    }
    int nops = 0; /* ops with identical rule lists share a tree: count the ops */
    for (int i = 0; i < trees->nroots; i++)
        nops += trees->roots[i].nops;
    printf("%d rule%s, %d root op%s, %d variants (one per operand order of :c)\n", f->nrules, f->nrules == 1 ? "" : "s",
           nops, nops == 1 ? "" : "s", trees->nvariants);
    if (emit_c) {
        FILE *fp = fopen(emit_c, "w");
        bool ok = fp && fputs(c, fp) >= 0;
        if (fp)
            ok = fclose(fp) == 0 && ok;
        if (!ok)
            st = cli_fail("rules", "cannot write %s", emit_c);
    }
    free(c);
    dsl_file_free(f);
    free(text);
    return st;
}
