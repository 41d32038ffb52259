/* ir.h: the graph IR: graphs own modules, modules own instructions.
 *
 * An instruction has an op (ir/op.h), attributes, operands, users, a shape
 * and a stable name. @param, @literal and @return are ordinary instructions
 * whose ops are builtins. A fused region is an instruction that owns one or
 * more submodules (ins->mods); a multi-output region has a tuple shape read
 * with get_tuple_elem.
 *
 * Order: a module is a doubly linked list of instructions, each carrying an
 * order key that increases along the list. "Is a before b" compares keys in
 * O(1). Insertion takes the midpoint of the neighbours' keys and relabels the
 * module (O(n), amortised rare) only when no gap is left.
 *
 * Invariants, checked by graph_verify:
 *  - every operand of an instruction precedes it in the same module;
 *  - b appears in a->users once for every time a appears in b->args;
 *  - a known op's recorded shape equals what its shape rule computes;
 *  - a module has at most one @return and it is last.
 *
 * Memory: everything lives in the graph's arena (ir/arena.h) and is freed
 * with the graph. Removing an instruction unlinks it; its memory stays until
 * graph_free, unless its owner hands it back with graph_recycle_ins (the
 * driver does, for what its rewrites built and erased), and then the next
 * instruction built lives in it.
 */
#ifndef GRAFT_IR_H
#define GRAFT_IR_H

#include "arena.h"
#include "attr.h"
#include "error.h"
#include "op.h"
#include "shape.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ins ins;
typedef struct module module;
typedef struct graph graph;

struct ins {
    /* What a walk over a module reads comes first, in one cache line: a
     * graph of 100k instructions is far bigger than the caches, and every
     * line a walk touches per instruction is a trip to memory. */
    const op_def *op;     /* never NULL; op_opaque() for unknown ops */
    ins *next;
    uint64_t order;       /* increases along the module's list */
    module *mod;          /* owning module */
    uint32_t flags;       /* INS_* bits */
    uint32_t id;          /* unique in the graph, never reused */
    int nargs;
    int nusers;
    ins **args;           /* operands */
    ins **users;          /* one entry per use (an ins using x twice appears twice);
                             unordered: removing a use moves the last entry */
    ins *prev;
    int users_cap;
    int nattrs;
    int *user_slot;       /* parallel to users: which operand of users[j] is this */
    int *use_pos;         /* parallel to args: where this use sits in args[k]->users,
                             so that removing a use is O(1) whatever the fan-out */
    const char *opname;   /* op->name, or the name as written for opaque ops */
    attr *attrs;          /* known ops: op->nattrs entries in declaration order */
    module **mods;        /* submodules (fused regions) */
    int nmods;
    int line, col;        /* where it was read from, 0 if built */
    int attrs_cap;        /* > 0: attrs is the start of a block of this many
                             bytes that only this instruction reads (its
                             attribute array, then the lists and strings its
                             given attributes point at), which the next
                             instruction built in its storage may reuse
                             (graph_recycle_ins). 0: attrs is not such a
                             block. Whoever points attrs elsewhere sets 0. */
    const char *name;     /* stable name: "@7", "sample", "main:pointwise0:@2" */
    const char *param;    /* @param: the parameter name; else NULL */
    void *data;           /* @literal: shape_bytes(&sh) bytes in sh's layout */
    void *aux;            /* scratch for one pass at a time; NULL between passes */
    shape sh;
};

enum {
    INS_REMOVED = 1u << 0,
    INS_ELIDED_LITERAL = 1u << 1, /* read as "{ ... }": data was filled deterministically */
};

struct module {
    const char *name;     /* "main", "main:pointwise0" */
    graph *g;
    ins *first, *last;
    int count;            /* live instructions */
    int ops;              /* live instructions other than builtins (@param, @literal,
                             @return): what a region body computes, known in O(1) */
    module *next;         /* graph's module list, in creation order */
    module *name_next;    /* the graph's name index: next in this bucket */
};

struct graph {
    arena mem;
    module *first_module, *last_module;
    int nmodules;
    module **name_buckets; /* name index (graph_find_module): chained hash */
    size_t nbuckets;
    uint32_t next_id;
    const char *source;   /* file it was read from, or NULL */
    uint64_t shape_calls; /* shape rules run for this graph's instructions
                             (building, ins_recompute_shape, shape
                             resolution); --stats reports the difference */
    ins *spare;           /* removed instructions whose storage the next ones
                             built reuse (graph_recycle_ins), linked by next */
};

/* ---- graphs and modules ---- */
graph *graph_new(void);
void graph_free(graph *g);
/* Creates an empty module; name is copied. NULL if the name exists. */
module *graph_add_module(graph *g, const char *name, graft_error *err);
module *graph_find_module(const graph *g, const char *name);
module *graph_main(const graph *g); /* "main", or the first module */
/* Unlinks m from the graph's module list (its memory stays in the arena). */
void graph_remove_module(graph *g, module *m);
/* Removes every module that no live instruction of the main module, or of a
 * module it reaches, refers to (the bodies of regions that were erased).
 * Returns how many were removed. O(instructions). */
int graph_prune_modules(graph *g);
size_t graph_count(const graph *g); /* live instructions over all modules */

/* Gives the graph the storage of i, a removed instruction (module_remove)
 * that nothing will read again: no list, worklist or local variable still
 * holds a pointer to it or to its attribute values. The next instruction
 * built takes i's memory, and its operand, users and attribute storage
 * (attrs_cap) when they are big enough, instead of new
 * arena memory (a rewrite that builds an instruction which a later one
 * erases costs no page of memory, and no trip to one). The new instruction
 * gets a new id: ids are never reused. */
void graph_recycle_ins(graph *g, ins *i);
/* Forgets the storage given by graph_recycle_ins (it stays in the arena
 * until graph_free): for an owner that can no longer vouch for it. */
void graph_drop_recycled(graph *g);

/* ---- building ---- */
/* Appends a parameter. */
ins *module_add_param(module *m, const char *param_name, const shape *sh);
/* Appends a literal; data (shape_bytes(sh) bytes, in sh's layout) is copied. */
ins *module_add_literal(module *m, const shape *sh, const void *data);
/* Appends an instruction of a known op. attrs may omit any attribute that has
 * a default and may be in any order; unknown attribute names, wrong kinds,
 * wrong arity and shape-rule failures are errors. The shape is computed. */
ins *module_add(module *m, const op_def *op, const attr *attrs, int nattrs, ins *const *args,
                int nargs, graft_error *err);
/* Convenience: looks the op up by name. */
ins *module_add_op(module *m, const char *opname, const attr *attrs, int nattrs, ins *const *args,
                   int nargs, graft_error *err);
/* Same, inserted before `pos` (pos NULL: append). */
ins *module_insert(module *m, ins *pos, const op_def *op, const attr *attrs, int nattrs,
                   ins *const *args, int nargs, graft_error *err);
/* Same, for an instruction that owns submodules (a fused region, `fused`):
 * inserted before `pos` (pos NULL: append) with everything module_insert
 * checks, the submodules attached before its shape is computed, since the
 * op's shape rule reads them. Also checked: at least one submodule, each a
 * module of m's graph other than m. Ownership: the graph owns the
 * submodules (they stay in its module list, and graph_prune_modules drops
 * them once no live instruction refers to them); the instruction keeps its
 * own copy of the list of pointers. NULL with err set on failure, and then
 * nothing is inserted. */
ins *module_insert_with_modules(module *m, ins *pos, const op_def *op, const attr *attrs,
                                int nattrs, ins *const *args, int nargs, module *const *mods,
                                int nmods, graft_error *err);
/* Appends an opaque op with a given shape; attrs are kept as written. */
ins *module_add_opaque(module *m, const char *opname, const attr *attrs, int nattrs,
                       ins *const *args, int nargs, const shape *sh);
ins *module_add_return(module *m, ins *const *args, int nargs);
/* Attaches submodules to an opaque instruction (an unknown op read with
 * its modules; known ops get theirs from module_insert_with_modules). */
void ins_set_modules(ins *i, module *const *mods, int nmods);
/* Sets the stable name (copied). Names default to "@<position>" when written. */
void ins_set_name(ins *i, const char *name);

/* Normalises attributes for op: fills defaults, puts them in declaration
 * order, checks names and kinds. out must hold op->nattrs entries. */
bool attrs_normalize(arena *a, const op_def *op, const attr *given, int ngiven, attr *out,
                     graft_error *err);

/* ---- mutation (keeps users and order consistent) ---- */
/* Every use of old becomes a use of rep (rep must precede those users). */
void ins_replace_all_uses(ins *old, ins *rep);
/* Replaces operand k of i. */
void ins_set_arg(ins *i, int k, ins *v);
/* Unlinks i; it must have no users. Its operands lose one use each. */
void module_remove(ins *i);
/* Moves i to just before pos (same module). */
void module_move_before(ins *i, ins *pos);
/* Moves every instruction of `from`, in order, to the end of `to` (another
 * module of the same graph), leaving `from` empty. Operands and users are
 * untouched, so the caller moves a set that reads only itself (a region
 * body, which fusion grows by moving it into the grown region's new body
 * instead of copying it) or fixes the operands after. O(instructions). */
void module_move_all(module *to, module *from);
/* Recomputes i's shape from its operands with its op's rule. */
bool ins_recompute_shape(ins *i, graft_error *err);
/* The op_call view of an instruction (attrs/inputs point into `inputs`). */
void ins_op_call(const ins *i, op_call *call, shape *inputs);

/* ---- queries ---- */
static inline bool ins_before(const ins *a, const ins *b) { return a->order < b->order; }

/* Walks over a big module are bound by memory latency: every instruction
 * is a cache miss, found only through the previous one's next pointer.
 * Instructions built one after another lie one after another in the
 * graph's arena (with their operand and users arrays, about 600 bytes
 * each when read from a dump), so the next few are usually 2 KB further on
 * (or before, walking backwards): a walk asks for the 640 bytes there, an
 * instruction's worth, while it works on this one (5x faster walks of a
 * 100k-instruction graph). A wrong guess costs nothing but the prefetch. */
enum { INS_PREFETCH_DISTANCE = 2048, INS_PREFETCH_LINES = 10 };

static inline void ins_prefetch_ahead(const ins *i)
{
    uintptr_t at = (uintptr_t)i + INS_PREFETCH_DISTANCE;
    for (int k = 0; k < INS_PREFETCH_LINES; k++)
        __builtin_prefetch((const void *)(at + 64 * (uintptr_t)k));
}

static inline void ins_prefetch_behind(const ins *i)
{
    uintptr_t at = (uintptr_t)i - INS_PREFETCH_DISTANCE;
    for (int k = 0; k < INS_PREFETCH_LINES; k++)
        __builtin_prefetch((const void *)(at + 64 * (uintptr_t)k));
}
bool ins_is(const ins *i, const char *opname);
/* Dead: live, no users, and not something kept for its own sake (@return,
 * @param, an opaque op whose effects graft cannot know). */
bool ins_is_dead(const ins *i);
ins *module_return(const module *m); /* NULL if none */
const attr_value *ins_attr(const ins *i, const char *key);

/* ---- whole-graph checks ---- */
bool graph_verify(const graph *g, graft_error *err);
/* Reorders each module topologically (stable: keeps order where valid).
 * Fails on a cycle. */
bool graph_sort(graph *g, graft_error *err);

#endif
