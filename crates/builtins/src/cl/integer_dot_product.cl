// cl_khr_integer_dot_product 2.0: dot products of four 8-bit components,
// as vectors (char4, uchar4) or packed in a uint (component 0 in the least
// significant byte), plain or added to an accumulator with saturation. The
// four products and their sum are exact in 32 bits (at most 4 * 255 * 255),
// so only the accumulation can saturate.
#include "gentype.h"

// The sum of the lane products of a and b widened to R4 (int4 or uint4).
#define DOT4(R4, a, b)                                                        \
  ({                                                                          \
    R4 p_ = __builtin_convertvector((a), R4) * __builtin_convertvector((b), R4); \
    p_.x + p_.y + p_.z + p_.w;                                                \
  })

#define DOT_PAIR(R, A, B)                                                     \
  R OVERLOAD dot(A##4 a, B##4 b) { return DOT4(R##4, a, b); }                 \
  R OVERLOAD dot_acc_sat(A##4 a, B##4 b, R acc) {                             \
    return __builtin_elementwise_add_sat(DOT4(R##4, a, b), acc);              \
  }

DOT_PAIR(uint, uchar, uchar)
DOT_PAIR(int, char, char)
DOT_PAIR(int, uchar, char)
DOT_PAIR(int, char, uchar)

// Packed: the signedness of a then b in the name (u: uchar, s: char).
#define DOT_PACKED(AB, R, A, B)                                               \
  R OVERLOAD dot_4x8packed_##AB##_##R(uint a, uint b) {                       \
    return dot(as_##A##4(a), as_##B##4(b));                                   \
  }                                                                           \
  R OVERLOAD dot_acc_sat_4x8packed_##AB##_##R(uint a, uint b, R acc) {        \
    return dot_acc_sat(as_##A##4(a), as_##B##4(b), acc);                      \
  }

DOT_PACKED(uu, uint, uchar, uchar)
DOT_PACKED(ss, int, char, char)
DOT_PACKED(us, int, uchar, char)
DOT_PACKED(su, int, char, uchar)
