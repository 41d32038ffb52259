/* load.h: rule sets at run time: the built-in ones compiled into graft and a
 * user's .rules file compiled, built into a shared object and loaded.
 *
 * `graft opt -r mine.rules` must not need a rebuild of graft: the file is
 * compiled to C (dsl/compile.h), built with the system C compiler against the
 * IR headers graft carries inside itself, cached by content hash and loaded
 * with dlopen. The loaded code reaches graft only through graft_rule_api
 * (dsl/api.h), exactly like the built-in sets.
 */
#ifndef GRAFT_DSL_LOAD_H
#define GRAFT_DSL_LOAD_H

#include "rewrite.h"

#include <stdbool.h>

/* The built-in rule set of rules/NAME.rules, NULL if there is none
 * (build/gen/rules_registry.c, generated from the list of rules files). */
const rule_set *builtin_rule_set(const char *name);
/* Names of the built-in rule sets, in file-name order. */
const char *const *builtin_rule_set_names(int *count);

/* A header graft embeds for compiling user rules (build/gen/embedded_headers.c). */
typedef struct embedded_header {
    const char *name; /* "ir.h" */
    const char *text;
} embedded_header;
const embedded_header *graft_embedded_headers(int *count);

typedef struct loaded_rules {
    void *handle;          /* dlopen handle */
    const rule_set *set;
    char so_path[4400];    /* the cached shared object */
    bool from_cache;       /* true when no compiler had to run */
} loaded_rules;

/* Compiles (or finds in the cache) and loads a user's rule file. Static errors
 * name file:line:col; a missing compiler says so. cache_dir NULL: the default
 * ($XDG_CACHE_HOME/graft or ~/.cache/graft). */
bool dsl_load_rules(const char *path, const char *cache_dir, loaded_rules *out, graft_error *err);
/* Unloads a rule set loaded by dsl_load_rules (its rule_set is gone after). */
void dsl_unload_rules(loaded_rules *l);

#endif
