/* test_ops_doc.c: docs/ops.md, the list of supported ops, is generated from
 * the op table (ops/) and the ONNX importer's handler tables
 * (import/onnx_ops*.c), so it cannot drift from them:
 *
 *     build/tests/test_ops_doc --write docs/ops.md
 *
 * writes it; run without arguments (as `make test` does, from the source
 * tree's top) the program fails when docs/ops.md differs from what the
 * tables give.
 */
#include "check.h"
#include "onnx_private.h"
#include "op.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {
    "pointwise", "unary", "binary", "reduce", "view", "compute", "move", "builtin",
    "opaque", "shape", "region", "fill", "copy", "never-negative", "zero-preserving"};

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const onnx_op_entry *const *)a)->onnx_name,
                  (*(const onnx_op_entry *const *)b)->onnx_name);
}

/* The whole document; malloc'd. */
static char *generate(void)
{
    strbuf s = {0};
    int nops;
    const op_def *const *ops = op_all(&nops);
    int ntables, nonnx = 0;
    const onnx_op_table *const *tables = onnx_op_tables(&ntables);
    for (int t = 0; t < ntables; t++)
        nonnx += tables[t]->count;
    strbuf_appendf(&s,
                  "# Supported ops\n\n"
                  "Generated from the op table (`ops/`) and the ONNX importer's handler tables\n"
                  "(`import/onnx_ops*.c`) by `build/tests/test_ops_doc --write docs/ops.md`;\n"
                  "`make test` fails when this file and the tables disagree, so edit the tables,\n"
                  "not this file.\n\n");
    strbuf_appendf(&s, "## graft ops (%d)\n\n", nops);
    strbuf_appendf(&s, "Names and attributes are MIGraphX's where MIGraphX has the op.\n\n");
    strbuf_appendf(&s, "| op | classes | operands | attributes |\n|---|---|---|---|\n");
    for (int i = 0; i < nops; i++) {
        const op_def *d = ops[i];
        strbuf_appendf(&s, "| `%s` | ", d->name);
        int listed = 0;
        for (int b = 0; b < (int)(sizeof class_names / sizeof class_names[0]); b++)
            if (d->classes & (1u << b))
                strbuf_appendf(&s, "%s%s", listed++ ? ", " : "", class_names[b]);
        if (d->max_args < 0)
            strbuf_appendf(&s, " | %d or more | ", d->min_args);
        else if (d->min_args == d->max_args)
            strbuf_appendf(&s, " | %d | ", d->min_args);
        else
            strbuf_appendf(&s, " | %d to %d | ", d->min_args, d->max_args);
        for (int a = 0; a < d->nattrs; a++)
            strbuf_appendf(&s, "%s%s", a ? ", " : "", d->attrs[a].name);
        strbuf_appendf(&s, " |\n");
    }
    const onnx_op_entry **entries = malloc((size_t)(nonnx + 1) * sizeof *entries);
    int n = 0;
    for (int t = 0; t < ntables && entries; t++)
        for (int i = 0; i < tables[t]->count; i++)
            entries[n++] = &tables[t]->entries[i];
    if (entries)
        qsort(entries, (size_t)n, sizeof *entries, by_name);
    strbuf_appendf(&s, "\n## ONNX ops the importer takes (%d)\n\n", n);
    strbuf_appendf(&s, "Each becomes the graft ops listed (the first is the main one; a handler may "
                      "emit\nothers, such as broadcasts and converts, too).\n\n");
    strbuf_appendf(&s, "| ONNX op | graft ops |\n|---|---|\n");
    for (int i = 0; i < n; i++) {
        const onnx_op_entry *e = entries[i];
        strbuf_appendf(&s, "| %s | ", e->onnx_name);
        int listed = 0;
        if (e->graft_op)
            strbuf_appendf(&s, "%s`%s`", listed++ ? ", " : "", e->graft_op);
        for (int k = 0; k < 4 && e->needs[k]; k++)
            strbuf_appendf(&s, "%s`%s`", listed++ ? ", " : "", e->needs[k]);
        strbuf_appendf(&s, "%s |\n", listed ? "" : "(constants or a subgraph only)");
    }
    free(entries);
    return strbuf_take(&s, NULL);
}

static void test_ops_doc_current(void)
{
    char *want = generate();
    FILE *f = fopen("docs/ops.md", "rb");
    CHECK(f != NULL);
    if (!f) {
        free(want);
        return;
    }
    size_t cap = strlen(want) + 65536, len;
    char *have = calloc(1, cap + 1);
    len = have ? fread(have, 1, cap, f) : 0;
    fclose(f);
    if (!have || len != strlen(want) || memcmp(have, want, len) != 0)
        check_fail(__FILE__, __LINE__,
                   "docs/ops.md differs from the op tables: run build/tests/test_ops_doc --write "
                   "docs/ops.md");
    free(have);
    free(want);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        char *doc = generate();
        FILE *f = fopen(argv[2], "wb");
        bool ok = doc && f && fputs(doc, f) >= 0;
        if (f)
            ok = fclose(f) == 0 && ok;
        free(doc);
        if (!ok)
            fprintf(stderr, "test_ops_doc: cannot write %s\n", argv[2]);
        return ok ? 0 : 1;
    }
    RUN(test_ops_doc_current);
    return tests_finish();
}
