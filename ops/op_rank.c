/* op_rank.c: the canonical order of ops (op_rank.h), built once from the op
 * table: by cost class, then by code. It exists so that the rule compiler's
 * termination measure can accept an op-for-op rewrite that goes down a fixed,
 * documented order, and so that the order follows the table instead of a
 * hand-written list that new ops would fall out of.
 */
#include "op_rank.h"
#include "strbuf.h"

#include <pthread.h>

enum { RANK_MAX = 1024 };

static const op_def *ranked[RANK_MAX];
static int rank_of_code[RANK_MAX + 1]; /* by op_def.code */
static int nranked;
static pthread_once_t ranked_once = PTHREAD_ONCE_INIT;

op_cost_class op_cost_class_of(const op_def *op)
{
    unsigned c = op ? op->classes : 0;
    if (c & OPC_OPAQUE)
        return OP_COST_OTHER;
    if (c & (OPC_BUILTIN | OPC_REGION))
        return OP_COST_FREE;
    if (c & (OPC_VIEW | OPC_SHAPE))
        return OP_COST_VIEW;
    if (c & OPC_POINTWISE)
        return OP_COST_POINTWISE;
    if (c & OPC_MOVE)
        return OP_COST_MOVE;
    if (c & OPC_REDUCE)
        return OP_COST_REDUCE;
    if (c & OPC_COMPUTE)
        return OP_COST_COMPUTE;
    return OP_COST_OTHER;
}

const char *op_cost_class_name(op_cost_class c)
{
    static const char *const names[OP_COST_COUNT] = {"free",   "view",    "pointwise", "move",
                                                     "reduce", "compute", "other"};
    return c >= 0 && c < OP_COST_COUNT ? names[c] : "?";
}

/* Ops by code are already in code order: a stable pass per cost class
 * gives the order by (class, code). */
static void build_ranks(void)
{
    int n;
    op_all(&n);
    for (int c = 0; c < OP_COST_COUNT; c++)
        for (int code = 1; code <= n && code <= RANK_MAX; code++) {
            const op_def *d = op_by_code(code);
            if (d && (int)op_cost_class_of(d) == c && nranked < RANK_MAX) {
                ranked[nranked++] = d;
                rank_of_code[code] = nranked;
            }
        }
}

int op_rank(const op_def *op)
{
    pthread_once(&ranked_once, build_ranks);
    if (!op || op->code < 1 || op->code > RANK_MAX || !rank_of_code[op->code])
        return nranked + 1;
    return rank_of_code[op->code];
}

bool op_rank_range(unsigned classes, int *lo, int *hi)
{
    pthread_once(&ranked_once, build_ranks);
    bool any = false;
    for (int k = 0; k < nranked; k++) {
        const op_def *d = ranked[k];
        if ((d->classes & (OPC_BUILTIN | OPC_OPAQUE)) || !(d->classes & classes))
            continue;
        if (!any)
            *lo = k + 1;
        *hi = k + 1;
        any = true;
    }
    return any;
}

const op_def *const *op_ranked(int *count)
{
    pthread_once(&ranked_once, build_ranks);
    if (count)
        *count = nranked;
    return ranked;
}

char *op_rank_table_markdown(void)
{
    int n;
    const op_def *const *ops = op_ranked(&n);
    strbuf s = {0};
    bool other = false;
    strbuf_appendf(&s, "| cost class | ranks | ops, lowest rank first |\n|---|---|---|\n");
    for (int k = 0; k < n;) {
        op_cost_class c = op_cost_class_of(ops[k]);
        int end = k;
        while (end < n && op_cost_class_of(ops[end]) == c)
            end++;
        bool last = c == OP_COST_OTHER; /* opaque ops rank after every known op */
        strbuf_appendf(&s, "| %s | %d to %d | ", op_cost_class_name(c), k + 1, end + last);
        for (int j = k; j < end; j++)
            strbuf_appendf(&s, "%s`%s`", j > k ? ", " : "", ops[j]->name);
        strbuf_appendf(&s, "%s |\n", last ? ", then any opaque (unknown) op" : "");
        k = end;
        other = other || last;
    }
    if (!other)
        strbuf_appendf(&s, "| other | %d | any opaque (unknown) op |\n", n + 1);
    return strbuf_take(&s, NULL);
}
