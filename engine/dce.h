/* dce.h: dead code elimination.
 *
 * An instruction is dead when nothing reads it and it is not a root: not
 * @return, not @param (the program's interface) and not an opaque op (whose
 * effects graft cannot know). The worklist driver erases dead instructions
 * as they appear; this pass is for graphs that arrive with dead code and for
 * the end of a pipeline.
 */
#ifndef GRAFT_DCE_H
#define GRAFT_DCE_H

#include "ir.h"

#include <stddef.h>

/* Erases every dead instruction of every module (an instruction that dies
 * because its last user died goes too). Returns how many were erased. */
size_t dce_run(graph *g);

#endif
