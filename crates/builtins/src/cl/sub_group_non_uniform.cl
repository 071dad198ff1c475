// cl_khr_subgroup_non_uniform_vote and cl_khr_subgroup_non_uniform_arithmetic:
// over the active work-items of the sub-group, the lanes the work-group
// function runs together (sub_group.h); reductions and scans in
// sub-group local id order.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "sub_group.h"

int OVERLOAD sub_group_elect(void) {
  SG_BARRIER();
  return SG_FIRST();
}

int OVERLOAD sub_group_non_uniform_all(int predicate)
    SG_REDUCE_BODY(int, WG_LOGICAL_AND, predicate != 0)
int OVERLOAD sub_group_non_uniform_any(int predicate)
    SG_REDUCE_BODY(int, WG_LOGICAL_OR, predicate != 0)

// Whether every active lane holds the first active lane's value; floats
// compare as the == operator does.
#define SG_ALL_EQUAL(T)                                                       \
  int OVERLOAD sub_group_non_uniform_all_equal(T x) {                         \
    T value = x;                                                              \
    SG_BARRIER();                                                             \
    __local T *first = SG_SLOTS(T);                                           \
    __local int *same = (__local int *)(SG_SLOTS(ulong) + 1);                 \
    if (SG_FIRST()) {                                                         \
      *first = value;                                                         \
      *same = 1;                                                              \
    }                                                                         \
    *same = *same && value == *first;                                         \
    SG_BARRIER();                                                             \
    return *same;                                                             \
  }

SG_ALL_EQUAL(char)
SG_ALL_EQUAL(uchar)
SG_ALL_EQUAL(short)
SG_ALL_EQUAL(ushort)
SG_ALL_EQUAL(int)
SG_ALL_EQUAL(uint)
SG_ALL_EQUAL(long)
SG_ALL_EQUAL(ulong)
SG_ALL_EQUAL(float)
SG_ALL_EQUAL(double)
SG_ALL_EQUAL(half)

#define SG_NU_ARITHMETIC(NAME, T, OP, ID)                                     \
  T OVERLOAD sub_group_non_uniform_reduce_##NAME(T x)                         \
      SG_REDUCE_BODY(T, OP, x)                                                \
  T OVERLOAD sub_group_non_uniform_scan_inclusive_##NAME(T x)                 \
      SG_SCAN_INCLUSIVE_BODY(T, OP, x)                                        \
  T OVERLOAD sub_group_non_uniform_scan_exclusive_##NAME(T x)                 \
      SG_SCAN_EXCLUSIVE_BODY(T, OP, ID, x)

#define SG_NU_NUMERIC(T, ADD, MUL)                                            \
  SG_NU_ARITHMETIC(add, T, ADD, 0)                                            \
  SG_NU_ARITHMETIC(mul, T, MUL, 1)                                            \
  SG_NU_ARITHMETIC(min, T, WG_MIN, WG_LARGEST_##T)                            \
  SG_NU_ARITHMETIC(max, T, WG_MAX, WG_SMALLEST_##T)

#define SG_NU_INTEGER(T)                                                      \
  SG_NU_NUMERIC(T, WG_ADD_INT, WG_MUL_INT)                                    \
  SG_NU_ARITHMETIC(and, T, WG_AND, ~(T)0)                                     \
  SG_NU_ARITHMETIC(or, T, WG_OR, 0)                                           \
  SG_NU_ARITHMETIC(xor, T, WG_XOR, 0)

SG_NU_INTEGER(char)
SG_NU_INTEGER(uchar)
SG_NU_INTEGER(short)
SG_NU_INTEGER(ushort)
SG_NU_INTEGER(int)
SG_NU_INTEGER(uint)
SG_NU_INTEGER(long)
SG_NU_INTEGER(ulong)
SG_NU_NUMERIC(float, WG_ADD_FLOAT, WG_MUL_FLOAT)
SG_NU_NUMERIC(double, WG_ADD_FLOAT, WG_MUL_FLOAT)
SG_NU_NUMERIC(half, WG_ADD_FLOAT, WG_MUL_FLOAT)

// The logical ones take an int predicate: a non-zero one is true (1).
#define SG_NU_LOGICAL(NAME, OP, ID)                                           \
  int OVERLOAD sub_group_non_uniform_reduce_logical_##NAME(int predicate)     \
      SG_REDUCE_BODY(int, OP, predicate != 0)                                 \
  int OVERLOAD sub_group_non_uniform_scan_inclusive_logical_##NAME(           \
      int predicate) SG_SCAN_INCLUSIVE_BODY(int, OP, predicate != 0)          \
  int OVERLOAD sub_group_non_uniform_scan_exclusive_logical_##NAME(           \
      int predicate) SG_SCAN_EXCLUSIVE_BODY(int, OP, ID, predicate != 0)

SG_NU_LOGICAL(and, WG_LOGICAL_AND, 1)
SG_NU_LOGICAL(or, WG_LOGICAL_OR, 0)
SG_NU_LOGICAL(xor, WG_LOGICAL_XOR, 0)
