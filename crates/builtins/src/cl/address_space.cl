// The address space qualifier functions (OpenCL C 3.0 section 6.15.10):
// to_global, to_local, to_private and get_fence. Clang turns to_global and
// friends into calls of __to_global and friends, defined here. On the host
// every memory is one address space, so what a generic pointer points to is
// told by where it points: into the work-group's local memory, into the
// work-item's private memory, or else into global memory (which constant
// memory is part of).
#include "mux.h"

__global void *__to_global(__generic void *p) {
  return __mux_is_local(p) || __mux_is_private(p) ? NULL : (__global void *)p;
}

__local void *__to_local(__generic void *p) {
  return __mux_is_local(p) ? (__local void *)p : NULL;
}

__private void *__to_private(__generic void *p) {
  return __mux_is_private(p) ? (__private void *)p : NULL;
}

// Private memory needs no fence between work-items: any value is valid for
// it, and the global fence is what a pointer of unknown space would take.
cl_mem_fence_flags OVERLOAD get_fence(__generic void *p) {
  return __mux_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

cl_mem_fence_flags OVERLOAD get_fence(const __generic void *p) {
  return __mux_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}
