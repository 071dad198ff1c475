// Synchronization (OpenCL C 3.0 section 6.15.9).
#include "mux.h"

void OVERLOAD barrier(cl_mem_fence_flags flags) { __mux_work_group_barrier(flags); }
void OVERLOAD work_group_barrier(cl_mem_fence_flags flags) { __mux_work_group_barrier(flags); }
void OVERLOAD work_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  __mux_work_group_barrier(flags);
}

// All address spaces are one coherent memory on the host: a fence is a fence.
void OVERLOAD mem_fence(cl_mem_fence_flags flags) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void OVERLOAD read_mem_fence(cl_mem_fence_flags flags) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
void OVERLOAD write_mem_fence(cl_mem_fence_flags flags) { __atomic_thread_fence(__ATOMIC_RELEASE); }
