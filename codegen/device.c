/* device.c: one call that runs a graph on a device through generated
 * kernels, for the command line's --device emu|hip.
 *
 * It lowers the graph's main module (codegen/lower.c), plans its memory
 * (codegen/plan.c) and hands the program to the emu device (codegen/emu.c)
 * or the hip one (codegen/hip_runtime.c). For hip the device is checked
 * before anything else, so the answer on a machine without a GPU is always
 * "no HIP device found (...)".
 */
#include "codegen.h"

#include <string.h>

bool cg_run_graph(const graph *g, const char *device, const cg_emu_options *o,
                  const struct tensor_list *inputs, struct tensor_list *outputs, int *nkernels,
                  graft_error *err)
{
    bool hip = strcmp(device, "hip") == 0;
    if (!hip && strcmp(device, "emu") != 0)
        return error_set(err, "unknown device '%s' (expected emu or hip)", device);
    if (hip && !cg_hip_device_available(err))
        return false;
    cg_program *p = cg_lower(g, err);
    if (!p)
        return false;
    bool ok = cg_plan(p, err);
    if (ok && nkernels)
        *nkernels = p->nkernels;
    if (ok)
        ok = hip ? cg_run_hip(p, o ? o->cache_dir : NULL, inputs, outputs, err)
                 : cg_run_emu(p, o, inputs, outputs, err);
    cg_program_free(p);
    return ok;
}
