// How the sub-group functions exchange their work-items' values: the
// bodies the sub_group_*.cl files stamp out.
//
// A sub-group is a run of __mux_get_sub_group_width() consecutive
// work-items along dimension 0 (fewer at the end of a row). A kernel that
// calls a sub-group collective is cut into regions at each
// __mux_sub_group_barrier (passes::barriers), and the work-group function
// runs the work-items of one sub-group region by region
// (passes::sub_group_loops): the lanes that reached the same barrier run
// the region after it together, one after the other in increasing
// sub-group local id, and before they do, the work-group function writes
// their mask (bit i: sub-group local id i) to the scratch's first word.
// Lanes that a branch left elsewhere are not in the mask: that is what
// the non-uniform functions call the active work-items.
//
// So a collective starts at a barrier, where the active lanes meet; the
// first of them stores its value in a slot and every later one combines
// what the one before left with its own (a sequential sum, in sub-group
// local id order); a reduction waits at a second barrier for the last,
// then every lane reads the slot. A shuffle writes every lane's value to
// its own slot, meets again, then reads the slot it names.
#ifndef FERROCL_SUB_GROUP_H
#define FERROCL_SUB_GROUP_H

#include "mux.h"
#include "work_group.h"

#define SG_SCRATCH() ((__local ulong *)__mux_get_sub_group_scratch())
// The lanes running the current region.
#define SG_MASK() (SG_SCRATCH()[64])
// The lanes' slots, as an array of T (the scratch is aligned for any T).
#define SG_SLOTS(T) ((__local T *)SG_SCRATCH())
#define SG_BARRIER() __mux_sub_group_barrier()
#define SG_LANE() ((uint)(__mux_get_local_id(0) % __mux_get_sub_group_width()))
#define SG_FIRST() (SG_LANE() == (uint)ctz(SG_MASK()))
// An index kept inside the slots whatever the caller passes (a lane the
// spec leaves undefined reads some lane's slot, never memory beyond).
#define SG_INDEX(i) ((uint)(i) & (__mux_get_sub_group_width() - 1))

#define SG_REDUCE_BODY(T, OP, v)                                              \
  {                                                                           \
    T value = (v);                                                            \
    SG_BARRIER();                                                             \
    __local T *acc = SG_SLOTS(T);                                             \
    *acc = SG_FIRST() ? value : OP(*acc, value);                              \
    SG_BARRIER();                                                             \
    return *acc;                                                              \
  }

#define SG_SCAN_INCLUSIVE_BODY(T, OP, v)                                      \
  {                                                                           \
    T value = (v);                                                            \
    SG_BARRIER();                                                             \
    __local T *acc = SG_SLOTS(T);                                             \
    T through = SG_FIRST() ? value : OP(*acc, value);                         \
    *acc = through;                                                           \
    return through;                                                           \
  }

#define SG_SCAN_EXCLUSIVE_BODY(T, OP, ID, v)                                  \
  {                                                                           \
    T value = (v);                                                            \
    SG_BARRIER();                                                             \
    __local T *acc = SG_SLOTS(T);                                             \
    bool first = SG_FIRST();                                                  \
    T before = first ? (T)(ID) : *acc;                                        \
    *acc = first ? value : OP(before, value);                                 \
    return before;                                                            \
  }

// The value of lane `from` (which must be active), to every active lane.
#define SG_BROADCAST_BODY(T, v, from)                                         \
  {                                                                           \
    T value = (v);                                                            \
    uint from_ = (from);                                                      \
    SG_BARRIER();                                                             \
    __local T *slot = SG_SLOTS(T);                                            \
    if (SG_LANE() == from_)                                                   \
      *slot = value;                                                          \
    SG_BARRIER();                                                             \
    return *slot;                                                             \
  }

// Every lane's value to its slot; then `lane` (an expression of `self`,
// the caller's own lane) names the slot each reads.
#define SG_EXCHANGE_BODY(T, v, lane)                                          \
  {                                                                           \
    T value = (v);                                                            \
    SG_BARRIER();                                                             \
    uint self = SG_LANE();                                                    \
    SG_SLOTS(T)[self] = value;                                                \
    SG_BARRIER();                                                             \
    return SG_SLOTS(T)[SG_INDEX(lane)];                                       \
  }

// Combines the values of the active lanes of the caller's cluster (of
// `size` lanes, a power of two), in lane order.
#define SG_CLUSTERED_BODY(T, OP, v, size)                                     \
  {                                                                           \
    T value = (v);                                                            \
    uint size_ = (size);                                                      \
    SG_BARRIER();                                                             \
    uint self = SG_LANE();                                                    \
    SG_SLOTS(T)[self] = value;                                                \
    SG_BARRIER();                                                             \
    ulong mask = SG_MASK();                                                   \
    uint start = self / size_ * size_;                                        \
    T acc = value;                                                            \
    bool any = false;                                                         \
    for (uint i = start; i < start + size_ && i < 64; i++) {                  \
      if ((mask >> i) & 1) {                                                  \
        T x = SG_SLOTS(T)[i];                                                 \
        acc = any ? OP(acc, x) : x;                                           \
        any = true;                                                           \
      }                                                                       \
    }                                                                         \
    return acc;                                                               \
  }

// The identities of min and max for the types work_group.h lacks.
#define WG_LARGEST_char CHAR_MAX
#define WG_LARGEST_uchar UCHAR_MAX
#define WG_LARGEST_short SHRT_MAX
#define WG_LARGEST_ushort USHRT_MAX
#define WG_SMALLEST_char CHAR_MIN
#define WG_SMALLEST_uchar 0
#define WG_SMALLEST_short SHRT_MIN
#define WG_SMALLEST_ushort 0
#define WG_LARGEST_half ((half)INFINITY)
#define WG_SMALLEST_half (-(half)INFINITY)

#endif
