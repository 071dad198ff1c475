// Async copies between global and local memory (OpenCL C 3.0 section
// 6.15.11). Every work-item of the group calls them with the same
// arguments; each copies a strided share of the elements (starting at its
// linear local id, stepping by the group's size), and wait_group_events is
// a work-group barrier, after which the whole copy is visible to everyone.
// Events carry nothing: the copy is complete once the barrier is passed.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "gentype.h"

static size_t group_size(void) {
  return __mux_get_local_size(0) * __mux_get_local_size(1) *
         __mux_get_local_size(2);
}

#define ASYNC_COPY(N, T)                                                      \
  event_t OVERLOAD async_work_group_copy(__local T##N *dst,                   \
                                         const __global T##N *src, size_t n,  \
                                         event_t event) {                     \
    for (size_t i = get_local_linear_id(); i < n; i += group_size())          \
      dst[i] = src[i];                                                        \
    return event;                                                             \
  }                                                                           \
  event_t OVERLOAD async_work_group_copy(__global T##N *dst,                  \
                                         const __local T##N *src, size_t n,   \
                                         event_t event) {                     \
    for (size_t i = get_local_linear_id(); i < n; i += group_size())          \
      dst[i] = src[i];                                                        \
    return event;                                                             \
  }                                                                           \
  event_t OVERLOAD async_work_group_strided_copy(                             \
      __local T##N *dst, const __global T##N *src, size_t n,                  \
      size_t src_stride, event_t event) {                                     \
    for (size_t i = get_local_linear_id(); i < n; i += group_size())          \
      dst[i] = src[i * src_stride];                                           \
    return event;                                                             \
  }                                                                           \
  event_t OVERLOAD async_work_group_strided_copy(                             \
      __global T##N *dst, const __local T##N *src, size_t n,                  \
      size_t dst_stride, event_t event) {                                     \
    for (size_t i = get_local_linear_id(); i < n; i += group_size())          \
      dst[i * dst_stride] = src[i];                                           \
    return event;                                                             \
  }                                                                           \
  /* Each cache line of the n elements, towards the core's caches. */       \
  void OVERLOAD prefetch(const __global T##N *p, size_t n) {                  \
    const __global char *b = (const __global char *)p;                        \
    for (size_t i = 0; i < n * sizeof(T##N); i += 64)                         \
      __builtin_prefetch(b + i, 0, 3);                                        \
  }

#define ASYNC_TYPE(T) WIDTHS(ASYNC_COPY, T)
ASYNC_TYPE(char)
ASYNC_TYPE(uchar)
ASYNC_TYPE(short)
ASYNC_TYPE(ushort)
ASYNC_TYPE(int)
ASYNC_TYPE(uint)
ASYNC_TYPE(long)
ASYNC_TYPE(ulong)
ASYNC_TYPE(float)
ASYNC_TYPE(double)
ASYNC_TYPE(half)

// Waiting is a barrier over both memories the copies touch.
void OVERLOAD wait_group_events(int num_events, __private event_t *events) {
  __mux_work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
#if defined(__opencl_c_generic_address_space)
void OVERLOAD wait_group_events(int num_events, event_t *events) {
  __mux_work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
#endif
