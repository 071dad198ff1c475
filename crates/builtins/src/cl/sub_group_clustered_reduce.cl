// cl_khr_subgroup_clustered_reduce: each cluster of `clustersize`
// consecutive lanes (a power of two no larger than the sub-group) reduces
// the values of its active lanes, in lane order.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "sub_group.h"

#define SG_CLUSTERED(NAME, T, OP)                                             \
  T OVERLOAD sub_group_clustered_reduce_##NAME(T x, uint size)                \
      SG_CLUSTERED_BODY(T, OP, x, size)

#define SG_CLUSTERED_NUMERIC(T, ADD, MUL)                                     \
  SG_CLUSTERED(add, T, ADD)                                                   \
  SG_CLUSTERED(mul, T, MUL)                                                   \
  SG_CLUSTERED(min, T, WG_MIN)                                                \
  SG_CLUSTERED(max, T, WG_MAX)

#define SG_CLUSTERED_INTEGER(T)                                               \
  SG_CLUSTERED_NUMERIC(T, WG_ADD_INT, WG_MUL_INT)                             \
  SG_CLUSTERED(and, T, WG_AND)                                                \
  SG_CLUSTERED(or, T, WG_OR)                                                  \
  SG_CLUSTERED(xor, T, WG_XOR)

SG_CLUSTERED_INTEGER(char)
SG_CLUSTERED_INTEGER(uchar)
SG_CLUSTERED_INTEGER(short)
SG_CLUSTERED_INTEGER(ushort)
SG_CLUSTERED_INTEGER(int)
SG_CLUSTERED_INTEGER(uint)
SG_CLUSTERED_INTEGER(long)
SG_CLUSTERED_INTEGER(ulong)
SG_CLUSTERED_NUMERIC(float, WG_ADD_FLOAT, WG_MUL_FLOAT)
SG_CLUSTERED_NUMERIC(double, WG_ADD_FLOAT, WG_MUL_FLOAT)
SG_CLUSTERED_NUMERIC(half, WG_ADD_FLOAT, WG_MUL_FLOAT)

#define SG_CLUSTERED_LOGICAL(NAME, OP)                                        \
  int OVERLOAD sub_group_clustered_reduce_logical_##NAME(int predicate,       \
                                                         uint size)           \
      SG_CLUSTERED_BODY(int, OP, predicate != 0, size)

SG_CLUSTERED_LOGICAL(and, WG_LOGICAL_AND)
SG_CLUSTERED_LOGICAL(or, WG_LOGICAL_OR)
SG_CLUSTERED_LOGICAL(xor, WG_LOGICAL_XOR)
