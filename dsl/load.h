/* load.h: rule sets at run time: the built-in ones compiled into graft and a
 * user's .rules file compiled, built into a shared object and loaded.
 *
 * `graft opt -r mine.rules` must not need a rebuild of graft: the file is
 * compiled to C (dsl/compile.h), built with the system C compiler against the
 * IR headers graft carries inside itself, cached and loaded with dlopen. The
 * loaded code reaches graft only through graft_rule_api (dsl/api.h), exactly
 * like the built-in sets.
 *
 * The cache: ROOT/KEY/ holds rules.so, rules.so.record, and the rules.c,
 * headers and compile.log it was built from. ROOT is cache_dir, or
 * $XDG_CACHE_HOME/graft, or ~/.cache/graft; it must belong to the user and
 * not be writable by group or others (it is created 0700). KEY is the
 * SHA-256 of graft's build id (dsl_rules_build_id: the cache format, graft's
 * version, the rule API version and the embedded headers), the compiler (its
 * path, the file that path resolves to, the SHA-256 of its `--version`
 * output, the flags), the rule file's path and text, and the C generated from
 * it. So a graft upgrade, a new compiler or an edited rule file gets a new
 * entry by itself. The record is four lines:
 *     graft-rules-cache 1
 *     build <build id, 64 hex digits>
 *     key <KEY>
 *     sha256 <SHA-256 of rules.so>
 * An entry is loaded only when its directory (0700), object and record
 * (regular files, not symbolic links) belong to the user and are not
 * writable by others and the record equals the one this graft would write
 * for this object; anything else is discarded and compiled again, before
 * dlopen runs any of the object's code (see load.c).
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
    char cache_note[300];  /* why a cached object was not used ("" when none
                              was found or it was used) */
} loaded_rules;

/* Compiles (or finds in the cache) and loads a user's rule file. Static errors
 * name file:line:col; a missing compiler says so. cache_dir NULL: the default
 * ($XDG_CACHE_HOME/graft or ~/.cache/graft). */
bool dsl_load_rules(const char *path, const char *cache_dir, loaded_rules *out, graft_error *err);
/* Unloads a rule set loaded by dsl_load_rules (its rule_set is gone after). */
void dsl_unload_rules(loaded_rules *l);

/* graft's build id for the cache (64 hex digits and a NUL). */
void dsl_rules_build_id(char hex[65]);
/* The cache entry (ROOT/KEY) dsl_load_rules would use for the rule file at
 * path; creates and checks ROOT, needs a compiler. For tests and tools. */
bool dsl_rules_cache_entry(const char *path, const char *cache_dir, char *out, size_t size,
                           graft_error *err);

#endif
