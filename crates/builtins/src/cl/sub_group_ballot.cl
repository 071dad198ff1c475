// cl_khr_subgroup_ballot: broadcasts from any active lane, ballots and the
// bit operations on them, and the masks of the lanes around the caller's.
// A ballot is 128 bits; sub-groups are at most 64 lanes, so its upper half
// is 0.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "sub_group.h"

#define SG_NU_BROADCAST(T)                                                    \
  T OVERLOAD sub_group_non_uniform_broadcast(T x, uint lane)                  \
      SG_BROADCAST_BODY(T, x, lane)

#define SG_NU_BROADCASTS(T)                                                   \
  SG_NU_BROADCAST(T)                                                          \
  SG_NU_BROADCAST(T##2)                                                       \
  SG_NU_BROADCAST(T##3)                                                       \
  SG_NU_BROADCAST(T##4)                                                       \
  SG_NU_BROADCAST(T##8)                                                       \
  SG_NU_BROADCAST(T##16)                                                      \
  T OVERLOAD sub_group_broadcast_first(T x) {                                 \
    T value = x;                                                              \
    SG_BARRIER();                                                             \
    __local T *slot = SG_SLOTS(T);                                            \
    if (SG_FIRST())                                                           \
      *slot = value;                                                          \
    SG_BARRIER();                                                             \
    return *slot;                                                             \
  }

SG_NU_BROADCASTS(char)
SG_NU_BROADCASTS(uchar)
SG_NU_BROADCASTS(short)
SG_NU_BROADCASTS(ushort)
SG_NU_BROADCASTS(int)
SG_NU_BROADCASTS(uint)
SG_NU_BROADCASTS(long)
SG_NU_BROADCASTS(ulong)
SG_NU_BROADCASTS(float)
SG_NU_BROADCASTS(double)
SG_NU_BROADCASTS(half)

static uint4 as_ballot(ulong bits) { return (uint4)((uint)bits, (uint)(bits >> 32), 0, 0); }

// The ballot's lanes below 64 (a sub-group has no others).
static ulong low_bits(uint4 value) { return (ulong)value.x | ((ulong)value.y << 32); }

// Bits 0..n-1.
static ulong below(uint n) { return n >= 64 ? ~0ul : (1ul << n) - 1; }

uint4 OVERLOAD sub_group_ballot(int predicate) {
  ulong bit = predicate ? 1ul << SG_LANE() : 0ul;
  SG_BARRIER();
  __local ulong *acc = SG_SLOTS(ulong);
  *acc = SG_FIRST() ? bit : (*acc | bit);
  SG_BARRIER();
  return as_ballot(*acc);
}

int OVERLOAD sub_group_inverse_ballot(uint4 value) {
  return (low_bits(value) >> SG_LANE()) & 1;
}

int OVERLOAD sub_group_ballot_bit_extract(uint4 value, uint index) {
  uint word = index < 128 ? index / 32 : 0;
  uint bits = word == 0 ? value.x : word == 1 ? value.y : word == 2 ? value.z : value.w;
  return index < 128 ? (bits >> (index % 32)) & 1 : 0;
}

// The lanes a sub-group of the dispatch may have (the Khronos CTS counts
// the bits below the largest sub-group's size for every sub-group).
static ulong lanes(void) { return below(get_max_sub_group_size()); }

uint OVERLOAD sub_group_ballot_bit_count(uint4 value) {
  return popcount(low_bits(value) & lanes());
}

uint OVERLOAD sub_group_ballot_inclusive_scan(uint4 value) {
  return popcount(low_bits(value) & below(SG_LANE() + 1));
}

uint OVERLOAD sub_group_ballot_exclusive_scan(uint4 value) {
  return popcount(low_bits(value) & below(SG_LANE()));
}

// The lowest and highest set bit among the sub-group's lanes (undefined,
// here 64 or ~0, when none is set).
uint OVERLOAD sub_group_ballot_find_lsb(uint4 value) {
  ulong bits = low_bits(value) & lanes();
  return bits ? (uint)ctz(bits) : 64u;
}

uint OVERLOAD sub_group_ballot_find_msb(uint4 value) {
  ulong bits = low_bits(value) & lanes();
  return bits ? 63u - (uint)clz(bits) : ~0u;
}

uint4 OVERLOAD get_sub_group_eq_mask(void) { return as_ballot(1ul << SG_LANE()); }
uint4 OVERLOAD get_sub_group_le_mask(void) { return as_ballot(below(SG_LANE() + 1)); }
uint4 OVERLOAD get_sub_group_lt_mask(void) { return as_ballot(below(SG_LANE())); }
// Up to the largest sub-group of the dispatch.
uint4 OVERLOAD get_sub_group_ge_mask(void) {
  return as_ballot(below(get_max_sub_group_size()) & ~below(SG_LANE()));
}
uint4 OVERLOAD get_sub_group_gt_mask(void) {
  return as_ballot(below(get_max_sub_group_size()) & ~below(SG_LANE() + 1));
}
