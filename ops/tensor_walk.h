/* tensor_walk.h: visiting a shape's elements in row-major order, row by row.
 *
 * Every dense conversion and every layout-changing copy in the reference
 * executor walks a shape in row-major order of its lens while following its
 * strides. Doing that with one division per element (shape_index_of_linear)
 * is slow for real models, so the walk hands out one innermost row at a time:
 * the offset of the row's first element and the stride along it. Moving to
 * the next row carries through the outer indices like an odometer.
 *
 * Internal to ops/ and ops/exec.c; not part of the public API.
 */
#ifndef GRAFT_TENSOR_WALK_H
#define GRAFT_TENSOR_WALK_H

#include "shape.h"

#include <stdint.h>

typedef struct tensor_walk {
    int outer_rank;                 /* axes other than the innermost */
    int64_t lens[SHAPE_MAX_RANK];   /* outer axes */
    int64_t strides[SHAPE_MAX_RANK];
    int64_t index[SHAPE_MAX_RANK];
    int64_t rows;                   /* number of innermost rows */
    int64_t row_len;                /* elements per row */
    int64_t row_stride;             /* stride along a row, in elements */
    int64_t offset;                 /* offset of the current row's first element */
} tensor_walk;

/* Prepares a walk over lens/strides (rank may be 0: one element). */
static inline void tensor_walk_init_raw(tensor_walk *w, int rank, const int64_t *lens,
                                        const int64_t *strides)
{
    w->offset = 0;
    if (rank == 0) {
        w->outer_rank = 0;
        w->rows = 1;
        w->row_len = 1;
        w->row_stride = 0;
        return;
    }
    w->outer_rank = rank - 1;
    w->row_len = lens[rank - 1];
    w->row_stride = strides[rank - 1];
    w->rows = 1;
    for (int i = 0; i < rank - 1; i++) {
        w->lens[i] = lens[i];
        w->strides[i] = strides[i];
        w->index[i] = 0;
        w->rows *= lens[i];
    }
    if (w->row_len == 0)
        w->rows = 0;
}

static inline void tensor_walk_init(tensor_walk *w, const shape *s)
{
    tensor_walk_init_raw(w, s->rank, s->lens, s->strides);
}

/* Advances to the next row (call once after each row). */
static inline void tensor_walk_next_row(tensor_walk *w)
{
    for (int i = w->outer_rank - 1; i >= 0; i--) {
        if (++w->index[i] < w->lens[i]) {
            w->offset += w->strides[i];
            return;
        }
        w->offset -= (w->lens[i] - 1) * w->strides[i];
        w->index[i] = 0;
    }
}

#endif
