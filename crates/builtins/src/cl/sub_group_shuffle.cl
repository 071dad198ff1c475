// cl_khr_subgroup_shuffle, cl_khr_subgroup_shuffle_relative and
// cl_khr_subgroup_rotate: each lane reads another lane's value (sub_group.h's
// exchange). A lane named outside the sub-group gives an undefined value
// (some lane's), as the spec allows; rotations wrap around the sub-group
// or the cluster.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "sub_group.h"

// The lane `delta` after `self` in a ring of `size` lanes from `base`.
static uint ring(uint self, int delta, uint base, uint size) {
  long at = ((long)(self - base) + delta % (long)size + size) % size;
  return base + (uint)at;
}

#define SG_SHUFFLES(T)                                                        \
  T OVERLOAD sub_group_shuffle(T x, uint lane)                                \
      SG_EXCHANGE_BODY(T, x, lane)                                            \
  T OVERLOAD sub_group_shuffle_xor(T x, uint mask)                            \
      SG_EXCHANGE_BODY(T, x, self ^ mask)                                     \
  T OVERLOAD sub_group_shuffle_up(T x, uint delta)                            \
      SG_EXCHANGE_BODY(T, x, self - delta)                                    \
  T OVERLOAD sub_group_shuffle_down(T x, uint delta)                          \
      SG_EXCHANGE_BODY(T, x, self + delta)                                    \
  T OVERLOAD sub_group_rotate(T x, int delta)                                 \
      SG_EXCHANGE_BODY(T, x, ring(self, delta, 0, get_sub_group_size()))     \
  T OVERLOAD sub_group_clustered_rotate(T x, int delta, uint size)            \
      SG_EXCHANGE_BODY(T, x, ring(self, delta, self / size * size, size))

SG_SHUFFLES(char)
SG_SHUFFLES(uchar)
SG_SHUFFLES(short)
SG_SHUFFLES(ushort)
SG_SHUFFLES(int)
SG_SHUFFLES(uint)
SG_SHUFFLES(long)
SG_SHUFFLES(ulong)
SG_SHUFFLES(float)
SG_SHUFFLES(double)
SG_SHUFFLES(half)
