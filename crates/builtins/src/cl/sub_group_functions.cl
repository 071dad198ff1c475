// Sub-group functions (OpenCL C 3.0 section 6.15.17, __opencl_c_subgroups
// and cl_khr_subgroups) and cl_khr_subgroup_extended_types: the work-item
// functions, the barrier, all, any, broadcast, and reductions and scans by
// add, min and max, exchanged as sub_group.h describes.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "sub_group.h"

// Sub-groups per row of the work-group (dimension 0 of `size`).
static uint per_row(size_t size) {
  uint w = __mux_get_sub_group_width();
  return (uint)((size + w - 1) / w);
}

uint OVERLOAD get_sub_group_size(void) {
  size_t w = __mux_get_sub_group_width();
  size_t start = __mux_get_local_id(0) / w * w;
  return (uint)min(w, __mux_get_local_size(0) - start);
}

uint OVERLOAD get_max_sub_group_size(void) {
  return (uint)min((size_t)__mux_get_sub_group_width(), __mux_get_enqueued_local_size(0));
}

uint OVERLOAD get_num_sub_groups(void) {
  return per_row(__mux_get_local_size(0)) *
         (uint)(__mux_get_local_size(1) * __mux_get_local_size(2));
}

uint OVERLOAD get_enqueued_num_sub_groups(void) {
  return per_row(__mux_get_enqueued_local_size(0)) *
         (uint)(__mux_get_enqueued_local_size(1) * __mux_get_enqueued_local_size(2));
}

uint OVERLOAD get_sub_group_id(void) {
  size_t row = __mux_get_local_id(2) * __mux_get_local_size(1) + __mux_get_local_id(1);
  return (uint)(row * per_row(__mux_get_local_size(0)) +
                __mux_get_local_id(0) / __mux_get_sub_group_width());
}

uint OVERLOAD get_sub_group_local_id(void) { return SG_LANE(); }

// The work-items of a sub-group run on one thread, one after the other:
// meeting is all a fence needs.
void OVERLOAD sub_group_barrier(cl_mem_fence_flags flags) { SG_BARRIER(); }
void OVERLOAD sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  SG_BARRIER();
}

int OVERLOAD sub_group_all(int predicate)
    SG_REDUCE_BODY(int, WG_LOGICAL_AND, predicate != 0)
int OVERLOAD sub_group_any(int predicate)
    SG_REDUCE_BODY(int, WG_LOGICAL_OR, predicate != 0)

#define SG_BROADCAST(T)                                                       \
  T OVERLOAD sub_group_broadcast(T x, uint lane) SG_BROADCAST_BODY(T, x, lane)

#define SG_BROADCASTS(T)                                                      \
  SG_BROADCAST(T)                                                             \
  SG_BROADCAST(T##2)                                                          \
  SG_BROADCAST(T##3)                                                          \
  SG_BROADCAST(T##4)                                                          \
  SG_BROADCAST(T##8)                                                          \
  SG_BROADCAST(T##16)

#define SG_ARITHMETIC(NAME, T, OP, ID)                                        \
  T OVERLOAD sub_group_reduce_##NAME(T x) SG_REDUCE_BODY(T, OP, x)            \
  T OVERLOAD sub_group_scan_inclusive_##NAME(T x)                             \
      SG_SCAN_INCLUSIVE_BODY(T, OP, x)                                        \
  T OVERLOAD sub_group_scan_exclusive_##NAME(T x)                             \
      SG_SCAN_EXCLUSIVE_BODY(T, OP, ID, x)

#define SG_COLLECTIVES(T, ADD)                                                \
  SG_BROADCASTS(T)                                                            \
  SG_ARITHMETIC(add, T, ADD, 0)                                               \
  SG_ARITHMETIC(min, T, WG_MIN, WG_LARGEST_##T)                               \
  SG_ARITHMETIC(max, T, WG_MAX, WG_SMALLEST_##T)

SG_COLLECTIVES(char, WG_ADD_INT)
SG_COLLECTIVES(uchar, WG_ADD_INT)
SG_COLLECTIVES(short, WG_ADD_INT)
SG_COLLECTIVES(ushort, WG_ADD_INT)
SG_COLLECTIVES(int, WG_ADD_INT)
SG_COLLECTIVES(uint, WG_ADD_INT)
SG_COLLECTIVES(long, WG_ADD_INT)
SG_COLLECTIVES(ulong, WG_ADD_INT)
SG_COLLECTIVES(float, WG_ADD_FLOAT)
SG_COLLECTIVES(double, WG_ADD_FLOAT)
SG_COLLECTIVES(half, WG_ADD_FLOAT)
