/* ast.c: allocation and small utilities for the syntax tree of ast.h.
 *
 * Every node of a parsed .rules file comes from the file's arena, so a
 * compile frees everything in one call (dsl_file_free). This file also owns
 * the one function that formats a diagnostic at a location in the file, so
 * every phase reports errors the same way: "FILE:LINE:COL: message".
 */
#include "ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dsl_type_name(dsl_type t)
{
    switch (t) {
    case TY_ERROR: return "error";
    case TY_BOOL: return "bool";
    case TY_INT: return "int";
    case TY_FLOAT: return "float";
    case TY_INTS: return "ints";
    case TY_FLOATS: return "floats";
    case TY_TYPE: return "type";
    case TY_SHAPE: return "shape";
    case TY_INS: return "instruction";
    case TY_STRING: return "string";
    }
    return "?";
}

dsl_type dsl_type_of_attr_kind(attr_kind k)
{
    switch (k) {
    case ATTR_INT: return TY_INT;
    case ATTR_FLOAT: return TY_FLOAT;
    case ATTR_BOOL: return TY_BOOL;
    case ATTR_STRING: return TY_STRING;
    case ATTR_INTS: return TY_INTS;
    case ATTR_FLOATS: return TY_FLOATS;
    case ATTR_TYPE: return TY_TYPE;
    }
    return TY_ERROR;
}

dsl_file *dsl_file_new(const char *path, const char *text, size_t len)
{
    dsl_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    arena_init(&f->mem);
    f->path = arena_strdup(&f->mem, path ? path : "<rules>");
    f->text = arena_strndup(&f->mem, text, len);
    if (!f->path || !f->text) {
        dsl_file_free(f);
        return NULL;
    }
    return f;
}

void dsl_file_free(dsl_file *f)
{
    if (!f)
        return;
    arena_free(&f->mem);
    free(f);
}

void *dsl_alloc(dsl_file *f, size_t size) { return arena_alloc(&f->mem, size ? size : 1); }

const char *dsl_strndup(dsl_file *f, const char *s, size_t n) { return arena_strndup(&f->mem, s, n); }

/* An array of n pointers with room for *cap, given room for one more: a
 * copy twice as large (first_cap to start) in f's arena when it is full. */
static void *room_for_one_more(dsl_file *f, void *items, int n, int *cap, int first_cap)
{
    if (n < *cap)
        return items;
    int bigger = *cap ? *cap * 2 : first_cap;
    void **copy = dsl_alloc(f, sizeof *copy * (size_t)bigger);
    if (n)
        memcpy(copy, items, sizeof *copy * (size_t)n);
    *cap = bigger;
    return copy;
}

void dsl_file_add_rule(dsl_file *f, dsl_rule *r)
{
    f->rules = room_for_one_more(f, f->rules, f->nrules, &f->rules_cap, 16);
    r->index = f->nrules;
    f->rules[f->nrules++] = r;
}

void dsl_file_add_predicate(dsl_file *f, dsl_predicate *p)
{
    f->predicates = room_for_one_more(f, f->predicates, f->npredicates, &f->predicates_cap, 8);
    p->index = f->npredicates;
    f->predicates[f->npredicates++] = p;
}

dsl_list *dsl_list_new(dsl_file *f) { return dsl_alloc(f, sizeof(dsl_list)); }

void dsl_list_push(dsl_file *f, dsl_list *l, void *item)
{
    l->items = room_for_one_more(f, l->items, l->n, &l->cap, 4);
    l->items[l->n++] = item;
}

bool dsl_error(graft_error *err, const dsl_file *f, dsl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_atv(err, f->path, loc.line, loc.col, fmt, ap);
    va_end(ap);
    return false;
}

const dsl_rule *dsl_find_rule(const dsl_file *f, const char *name)
{
    for (int i = 0; i < f->nrules; i++)
        if (strcmp(f->rules[i]->name, name) == 0)
            return f->rules[i];
    return NULL;
}

const dsl_predicate *dsl_find_predicate(const dsl_file *f, const char *name)
{
    for (int i = 0; i < f->npredicates; i++)
        if (strcmp(f->predicates[i]->name, name) == 0)
            return f->predicates[i];
    return NULL;
}
