// How a work-group collective combines its work-items' values: the bodies
// work_group_collectives.cl and work_group_uniform_arithmetic.cl stamp out.
//
// The work-items of a group run on one thread. The work-group compiler
// makes each stretch of the kernel between two barriers a region that runs
// for every work-item in turn, in linear local-id order (passes::barriers,
// passes::work_item_loops), and it inlines these functions first. So a
// collective combines the values in a slot of the group's local memory
// (__mux_get_work_group_scratch) as the work-items pass one after the
// other: linear id 0 stores its value, every later work-item combines what
// the one before it left with its own. That order is the one the spec
// defines the scans by, and the one a sequential reference sums floats in.
//
// Every collective starts with a barrier: no work-item writes the slot
// before every work-item has read what the collective before left there
// (in a loop, the same collective one iteration earlier). A scan has its
// result as its work-item passes; a reduction or broadcast waits at a
// second barrier for the last work-item, then reads the slot.
#ifndef FERROCL_WORK_GROUP_H
#define FERROCL_WORK_GROUP_H

#include "mux.h"

#define WG_SLOT(T) ((__local T *)__mux_get_work_group_scratch())
#define WG_BARRIER() __mux_work_group_barrier(CLK_LOCAL_MEM_FENCE)
#define WG_FIRST() (get_local_linear_id() == 0)

// Statement bodies over the value `v` (of type T), combined by OP(acc, v);
// ID is OP's identity, what an exclusive scan gives linear id 0.
#define WG_REDUCE_BODY(T, OP, v)                                              \
  {                                                                           \
    __local T *acc = WG_SLOT(T);                                              \
    T value = (v);                                                            \
    WG_BARRIER();                                                             \
    *acc = WG_FIRST() ? value : OP(*acc, value);                              \
    WG_BARRIER();                                                             \
    return *acc;                                                              \
  }

#define WG_LANES 8

#define WG_REDUCE_LANES_BODY(T, OP, v)                                        \
  {                                                                           \
    __local T *acc = WG_SLOT(T);                                              \
    T value = (v);                                                            \
    size_t id = get_local_linear_id();                                        \
    WG_BARRIER();                                                             \
    size_t lane = id % WG_LANES;                                              \
    acc[lane] = id < WG_LANES ? value : OP(acc[lane], value);                 \
    WG_BARRIER();                                                             \
    size_t items = get_local_size(0) * get_local_size(1) * get_local_size(2); \
    T lanes[WG_LANES];                                                        \
    for (int j = 0; j < WG_LANES; j++)                                        \
      lanes[j] = acc[j];                                                      \
    for (int apart = WG_LANES / 2; apart > 0; apart /= 2)                     \
      for (int j = 0; j < apart; j++)                                         \
        if (j + apart < items)                                                \
          lanes[j] = OP(lanes[j], lanes[j + apart]);                          \
    return lanes[0];                                                          \
  }

#define WG_SCAN_INCLUSIVE_BODY(T, OP, v)                                      \
  {                                                                           \
    __local T *acc = WG_SLOT(T);                                              \
    T value = (v);                                                            \
    WG_BARRIER();                                                             \
    T through = WG_FIRST() ? value : OP(*acc, value);                         \
    *acc = through;                                                           \
    return through;                                                           \
  }

#define WG_SCAN_EXCLUSIVE_BODY(T, OP, ID, v)                                  \
  {                                                                           \
    __local T *acc = WG_SLOT(T);                                              \
    T value = (v);                                                            \
    WG_BARRIER();                                                             \
    bool first = WG_FIRST();                                                  \
    T before = first ? (T)(ID) : *acc;                                        \
    *acc = first ? value : OP(before, value);                                 \
    return before;                                                            \
  }

// work_group_reduce_NAME, work_group_scan_inclusive_NAME and
// work_group_scan_exclusive_NAME for T, the reduction's body REDUCE.
#define WG_ARITHMETIC_WITH(REDUCE, NAME, T, OP, ID)                           \
  T OVERLOAD work_group_reduce_##NAME(T x) REDUCE(T, OP, x)                   \
  T OVERLOAD work_group_scan_inclusive_##NAME(T x)                            \
      WG_SCAN_INCLUSIVE_BODY(T, OP, x)                                        \
  T OVERLOAD work_group_scan_exclusive_##NAME(T x)                            \
      WG_SCAN_EXCLUSIVE_BODY(T, OP, ID, x)
#define WG_ARITHMETIC(NAME, T, OP, ID)                                        \
  WG_ARITHMETIC_WITH(WG_REDUCE_BODY, NAME, T, OP, ID)
// A floating-point sum or product, reduced lane by lane.
#define WG_ARITHMETIC_FLOAT(NAME, T, OP, ID)                                  \
  WG_ARITHMETIC_WITH(WG_REDUCE_LANES_BODY, NAME, T, OP, ID)

// The same three over an int predicate: a non-zero one is true (1).
#define WG_LOGICAL(NAME, OP, ID)                                              \
  int OVERLOAD work_group_reduce_##NAME(int predicate)                        \
      WG_REDUCE_BODY(int, OP, predicate != 0)                                 \
  int OVERLOAD work_group_scan_inclusive_##NAME(int predicate)                \
      WG_SCAN_INCLUSIVE_BODY(int, OP, predicate != 0)                         \
  int OVERLOAD work_group_scan_exclusive_##NAME(int predicate)                \
      WG_SCAN_EXCLUSIVE_BODY(int, OP, ID, predicate != 0)

// Integer sums and products wrap, as unsigned arithmetic does (a signed
// overflow would be undefined in C); the builtins compute the wrapped value.
#define WG_ADD_INT(a, b)                                                      \
  ({                                                                          \
    __typeof__(b) sum_;                                                       \
    __builtin_add_overflow((a), (b), &sum_);                                  \
    sum_;                                                                     \
  })
#define WG_MUL_INT(a, b)                                                      \
  ({                                                                          \
    __typeof__(b) product_;                                                   \
    __builtin_mul_overflow((a), (b), &product_);                              \
    product_;                                                                 \
  })
#define WG_ADD_FLOAT(a, b) ((a) + (b))
#define WG_MUL_FLOAT(a, b) ((a) * (b))
// OpenCL C's min and max: for floats, min(x, y) is y if y < x, else x.
#define WG_MIN(a, b) min((a), (b))
#define WG_MAX(a, b) max((a), (b))
#define WG_AND(a, b) ((a) & (b))
#define WG_OR(a, b) ((a) | (b))
#define WG_XOR(a, b) ((a) ^ (b))
#define WG_LOGICAL_AND(a, b) ((a) && (b))
#define WG_LOGICAL_OR(a, b) ((a) || (b))
#define WG_LOGICAL_XOR(a, b) ((a) != (b))

// The identities of min and max: each type's largest and smallest value.
#define WG_LARGEST_int INT_MAX
#define WG_LARGEST_uint UINT_MAX
#define WG_LARGEST_long LONG_MAX
#define WG_LARGEST_ulong ULONG_MAX
#define WG_LARGEST_float INFINITY
#define WG_LARGEST_double ((double)INFINITY)
#define WG_SMALLEST_int INT_MIN
#define WG_SMALLEST_uint 0
#define WG_SMALLEST_long LONG_MIN
#define WG_SMALLEST_ulong 0
#define WG_SMALLEST_float (-INFINITY)
#define WG_SMALLEST_double (-(double)INFINITY)

#endif
