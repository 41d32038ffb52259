/* output_format.h: asking for a memory format at the graph's outputs.
 *
 * graft's shape rules carry the inputs' memory format (a stride
 * permutation) through pointwise, broadcast, reduction and window ops, so a
 * channels-last graph computes channels-last throughout and its outputs come
 * out channels-last (nvFuser's allocation-order inference, seed 004). A
 * caller who needs another format at the outputs asks for it here: each
 * output of the main module's return whose stride order differs gets a
 * `layout[permutation=P]` in front of the return. rules/layout.rules then
 * lets the region that computes the output write it in that format
 * directly, so the request costs no kernel of its own when a pointwise
 * region computes the output.
 *
 * A format is "standard" (row-major: every output, any rank) or a
 * permutation "P0,P1,..." naming the axes from the slowest in memory to
 * the fastest (NHWC for NCHW lens is 0,2,3,1); a permutation applies to the
 * outputs of its rank and leaves the others as they are.
 */
#ifndef GRAFT_OUTPUT_FORMAT_H
#define GRAFT_OUTPUT_FORMAT_H

#include "ir.h"

typedef struct output_format {
    bool standard;
    int rank;
    int64_t perm[SHAPE_MAX_RANK];
} output_format;

/* Parses "standard" or "P0,P1,...". */
bool output_format_parse(const char *text, output_format *out, graft_error *err);

/* Inserts the layouts; *changed (may be NULL) counts them. A graph with no
 * return is left alone. */
bool graph_request_output_format(graph *g, const output_format *f, int *changed, graft_error *err);

#endif
