// cl_khr_extended_bit_ops: bitfield_insert, bitfield_extract_signed,
// bitfield_extract_unsigned and bit_reverse for every integer type and
// width. A field is `count` bits from bit `offset`; the spec leaves
// offset + count beyond the type's width undefined. Shifts are done in the
// unsigned type, with explicit casts back, as char and short promote to int.
#include "gentype.h"

// The low `count` bits set, in the scalar unsigned type U of BITS bits
// (count 0 is handled apart: a shift by BITS would wrap).
#define FIELD_MASK(U, BITS, count)                                            \
  ((count) == 0 ? (U)0 : (U)((U)~(U)0 >> (BITS - (count))))

// N: width suffix; T: the type; S and U: its signed and unsigned forms.
#define BIT_OPS(N, T, S, U, BITS)                                             \
  T##N OVERLOAD bitfield_insert(T##N base, T##N insert, uint offset,          \
                                uint count) {                                 \
    U##N field = (U##N)(U)(FIELD_MASK(U, BITS, count) << offset);             \
    U##N kept = as_##U##N(base) & (U##N)~field;                               \
    U##N put = (U##N)(as_##U##N(insert) << offset) & field;                   \
    return as_##T##N((U##N)(kept | put));                                     \
  }                                                                           \
  U##N OVERLOAD bitfield_extract_unsigned(T##N base, uint offset,             \
                                          uint count) {                       \
    U##N low = (U##N)(as_##U##N(base) >> offset);                             \
    return low & (U##N)FIELD_MASK(U, BITS, count);                            \
  }                                                                           \
  /* the field moved to the top, then shifted down arithmetically */         \
  S##N OVERLOAD bitfield_extract_signed(T##N base, uint offset, uint count) { \
    if (count == 0)                                                           \
      return (S##N)0;                                                         \
    S##N top = as_##S##N((U##N)(as_##U##N(base) << (BITS - offset - count))); \
    return (S##N)(top >> (BITS - count));                                     \
  }                                                                           \
  T##N OVERLOAD bit_reverse(T##N base) {                                      \
    return as_##T##N(__builtin_elementwise_bitreverse(as_##U##N(base)));      \
  }

#define BIT_OPS_BOTH(N, S, U, BITS)                                           \
  BIT_OPS(N, S, S, U, BITS)                                                   \
  BIT_OPS(N, U, S, U, BITS)

WIDTHS(BIT_OPS_BOTH, char, uchar, 8)
WIDTHS(BIT_OPS_BOTH, short, ushort, 16)
WIDTHS(BIT_OPS_BOTH, int, uint, 32)
WIDTHS(BIT_OPS_BOTH, long, ulong, 64)
