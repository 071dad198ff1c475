// Work-group collective functions (OpenCL C 3.0 section 6.15.16,
// __opencl_c_work_group_collective_functions): all, any, broadcast, and
// reduce and scans by add, min and max, combined as work_group.h describes:
// the same result run after run.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "work_group.h"

int OVERLOAD work_group_all(int predicate)
    WG_REDUCE_BODY(int, WG_LOGICAL_AND, predicate != 0)
int OVERLOAD work_group_any(int predicate)
    WG_REDUCE_BODY(int, WG_LOGICAL_OR, predicate != 0)

// The work-item named by its local id (in as many dimensions as given; the
// others are 0) stores a; every work-item reads it after the barrier.
#define WG_BROADCAST_FROM(T, x, y, z)                                         \
  {                                                                           \
    __local T *slot = WG_SLOT(T);                                             \
    size_t from = ((z) * get_local_size(1) + (y)) * get_local_size(0) + (x);  \
    WG_BARRIER();                                                             \
    if (get_local_linear_id() == from)                                        \
      *slot = a;                                                              \
    WG_BARRIER();                                                             \
    return *slot;                                                             \
  }

#define WG_BROADCAST(T)                                                       \
  T OVERLOAD work_group_broadcast(T a, size_t x)                              \
      WG_BROADCAST_FROM(T, x, 0, 0)                                           \
  T OVERLOAD work_group_broadcast(T a, size_t x, size_t y)                    \
      WG_BROADCAST_FROM(T, x, y, 0)                                           \
  T OVERLOAD work_group_broadcast(T a, size_t x, size_t y, size_t z)          \
      WG_BROADCAST_FROM(T, x, y, z)

#define WG_COLLECTIVES(T, ARITHMETIC, ADD)                                    \
  WG_BROADCAST(T)                                                             \
  ARITHMETIC(add, T, ADD, 0)                                                  \
  WG_ARITHMETIC(min, T, WG_MIN, WG_LARGEST_##T)                               \
  WG_ARITHMETIC(max, T, WG_MAX, WG_SMALLEST_##T)

WG_COLLECTIVES(int, WG_ARITHMETIC, WG_ADD_INT)
WG_COLLECTIVES(uint, WG_ARITHMETIC, WG_ADD_INT)
WG_COLLECTIVES(long, WG_ARITHMETIC, WG_ADD_INT)
WG_COLLECTIVES(ulong, WG_ARITHMETIC, WG_ADD_INT)
WG_COLLECTIVES(float, WG_ARITHMETIC_FLOAT, WG_ADD_FLOAT)
WG_COLLECTIVES(double, WG_ARITHMETIC_FLOAT, WG_ADD_FLOAT)
#define WG_LARGEST_half ((half)INFINITY)
#define WG_SMALLEST_half (-(half)INFINITY)
WG_COLLECTIVES(half, WG_ARITHMETIC_FLOAT, WG_ADD_FLOAT)
