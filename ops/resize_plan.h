/* resize_plan.h: resize's per-axis plans (kernels_resize.c), shared by the
 * reference kernel and the HIP lowering (codegen/emit_resample.c), so the
 * generated kernel reads the very windows and coefficients the reference
 * computes: for every output index of an axis, the first input position of
 * its window, the window's coefficients, and whether the result is
 * extrapolation_value.
 */
#ifndef GRAFT_RESIZE_PLAN_H
#define GRAFT_RESIZE_PLAN_H

#include "op.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct resize_axis_plan {
    int n;           /* window width */
    int64_t *first;  /* per output index: the window's first position (may be < 0) */
    double *coef;    /* per output index: n coefficients */
    bool *extrap;    /* per output index: the result is extrapolation_value */
    bool identity;   /* output index i reads input i alone */
} resize_axis_plan;

/* The scale of axis `axis`: the scales attribute's, else out_len / in_len. */
double resize_axis_scale(const op_call *call, int axis, int64_t in_len, int64_t out_len);
/* Fills p for axis `axis` (false: out of memory; free p either way). */
bool resize_plan_axis(const op_call *call, resize_axis_plan *p, int axis, int64_t in_len,
                      int64_t out_len, double s);
void resize_plan_free(resize_axis_plan *p);

#endif
