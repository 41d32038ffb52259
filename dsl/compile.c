/* compile.c: the rule compiler's pipeline, one phase after another.
 *
 * Reading this file should tell a newcomer the whole shape of the compiler:
 * text -> parse -> sema -> termination -> overlap -> trees -> C, where sema
 * first checks the file's predicates (predicate.c) and then each rule with
 * its predicate calls expanded, so no later phase sees one. Each error
 * has a file:line:col. A syntax error stops the pipeline at once; the
 * checking phases (sema, then termination and overlap together, which need
 * a file sema accepted) go on with the next rule, so that dsl_check_all
 * collects every rule's error, up to DSL_MAX_ERRORS, as ISLE does.
 * The same pipeline serves the build (build/graftc compiling rules/NAME.rules),
 * `graft rules` and `graft opt -r` (dsl/load.c).
 */
#include "compile.h"

#include "fileio.h"

#include <stdlib.h>
#include <string.h>

dsl_file *dsl_check(const char *path, const char *text, size_t len, graft_error *err)
{
    return dsl_check_all(path, text, len, NULL, err);
}

bool dsl_diags_note(dsl_diags *d, const graft_error *e, graft_error *err, int *nerrors)
{
    if (*nerrors == 0 && err && err != e)
        *err = *e;
    (*nerrors)++;
    if (!d)
        return false;
    if (d->n < DSL_MAX_ERRORS)
        d->items[d->n++] = *e;
    d->total++;
    return d->total < DSL_MAX_ERRORS;
}

dsl_file *dsl_check_all(const char *path, const char *text, size_t len, dsl_diags *diags,
                        graft_error *err)
{
    graft_error local = {0};
    if (!err)
        err = &local;
    dsl_file *f = dsl_file_new(path, text, len);
    if (!f) {
        error_set(err, "out of memory");
        return NULL;
    }
    int nerrors = 0;
    if (strlen(f->text) != len) {
        error_at(err, f->path, 0, 0, "rule files are text: found a NUL byte");
        dsl_diags_note(diags, err, err, &nerrors);
        dsl_file_free(f);
        return NULL;
    }
    if (!dsl_parse(f, err)) {
        dsl_diags_note(diags, err, err, &nerrors);
    } else if (dsl_sema_all(f, diags, err)) {
        /* With diags, overlap runs even after a termination error, so that
         * one run reports both; err keeps the first. */
        bool terminates = dsl_check_termination(f, diags, err);
        if ((terminates || diags) && dsl_check_overlap(f, diags, terminates ? err : NULL) &&
            terminates)
            return f;
    }
    dsl_file_free(f);
    return NULL;
}

char *dsl_compile(const char *path, const char *text, size_t len, const dsl_emit_options *opt,
                  graft_error *err)
{
    dsl_file *f = dsl_check(path, text, len, err);
    if (!f)
        return NULL;
    char *c = NULL;
    dsl_trees *trees = dsl_build_trees(f, err);
    if (trees)
        c = dsl_emit(f, trees, opt, err);
    dsl_file_free(f);
    return c;
}

char *dsl_compile_file(const char *path, const dsl_emit_options *opt, graft_error *err)
{
    size_t len;
    char *text = read_file_all(path, &len, err);
    if (!text)
        return NULL;
    char *c = dsl_compile(path, text, len, opt, err);
    free(text);
    return c;
}
