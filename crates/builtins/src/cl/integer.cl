// Integer functions (OpenCL C 3.0 section 6.15.3) for char ... ulong and every
// vector width. The bodies are plain lane-wise arithmetic or Clang's
// __builtin_elementwise_* (LLVM's saturating, funnel-shift, ctlz/cttz/ctpop
// intrinsics), so one body serves the scalar and all vector widths and LLVM
// keeps vector forms in vector registers.
#include "gentype.h"

// --- Functions of the same shape for signed and unsigned types. ---
// N: width suffix; T: element type; U: its unsigned type; W: an element type
// twice as wide (of T's signedness); BITS: element bits; LO/HI: T's range.
#define INT_FUNCS(N, T, U, W, BITS, LO, HI)                                   \
  T##N OVERLOAD add_sat(T##N x, T##N y) {                                     \
    return __builtin_elementwise_add_sat(x, y);                               \
  }                                                                           \
  T##N OVERLOAD sub_sat(T##N x, T##N y) {                                     \
    return __builtin_elementwise_sub_sat(x, y);                               \
  }                                                                           \
  /* (x + y) >> 1 and (x + y + 1) >> 1 without the intermediate overflow. */  \
  T##N OVERLOAD hadd(T##N x, T##N y) {                                        \
    return (x >> 1) + (y >> 1) + (x & y & (T##N)1);                           \
  }                                                                           \
  T##N OVERLOAD rhadd(T##N x, T##N y) {                                       \
    return (x >> 1) + (y >> 1) + ((x | y) & (T##N)1);                         \
  }                                                                           \
  /* The second argument is the result for 0: the type's width. */           \
  T##N OVERLOAD clz(T##N x) {                                                 \
    return as_##T##N(                                                         \
        __builtin_elementwise_clzg(as_##U##N(x), (U##N)BITS));                \
  }                                                                           \
  T##N OVERLOAD ctz(T##N x) {                                                 \
    return as_##T##N(                                                         \
        __builtin_elementwise_ctzg(as_##U##N(x), (U##N)BITS));                \
  }                                                                           \
  T##N OVERLOAD popcount(T##N x) {                                            \
    return as_##T##N(__builtin_elementwise_popcount(as_##U##N(x)));           \
  }                                                                           \
  /* A funnel shift of v with itself is a rotate; the count is taken modulo   \
     the width, as the spec asks. */                                          \
  T##N OVERLOAD rotate(T##N v, T##N i) {                                      \
    return as_##T##N(__builtin_elementwise_fshl(as_##U##N(v), as_##U##N(v),   \
                                                as_##U##N(i)));               \
  }                                                                           \
  T##N OVERLOAD min(T##N x, T##N y) { return __builtin_elementwise_min(x, y); } \
  T##N OVERLOAD max(T##N x, T##N y) { return __builtin_elementwise_max(x, y); } \
  T##N OVERLOAD clamp(T##N x, T##N lo, T##N hi) {                            \
    return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);   \
  }                                                                           \
  /* The product in the double-width type cannot overflow. */                 \
  T##N OVERLOAD mul_hi(T##N x, T##N y) {                                      \
    return CONV(N, T##N,                                                      \
                (CONV(N, W##N, x) * CONV(N, W##N, y)) >> BITS);               \
  }                                                                           \
  /* The sum wraps: added as unsigned (signed overflow is undefined in C). */ \
  T##N OVERLOAD mad_hi(T##N a, T##N b, T##N c) {                              \
    return as_##T##N((U##N)(as_##U##N(mul_hi(a, b)) + as_##U##N(c)));         \
  }                                                                           \
  /* a * b + c fits the double-width type for every T; then saturate. */      \
  T##N OVERLOAD mad_sat(T##N a, T##N b, T##N c) {                             \
    W##N r = CONV(N, W##N, a) * CONV(N, W##N, b) + CONV(N, W##N, c);         \
    r = r > (W##N)(HI) ? (W##N)(HI) : r;                                      \
    r = r < (W##N)(LO) ? (W##N)(LO) : r;                                      \
    return CONV(N, T##N, r);                                                  \
  }

// The (vector, scalar) forms of min, max and clamp.
#define INT_VEC_SCALAR(N, T)                                                  \
  T##N OVERLOAD min(T##N x, T y) { return min(x, (T##N)y); }                  \
  T##N OVERLOAD max(T##N x, T y) { return max(x, (T##N)y); }                  \
  T##N OVERLOAD clamp(T##N x, T lo, T hi) {                                   \
    return clamp(x, (T##N)lo, (T##N)hi);                                      \
  }

// abs and abs_diff return the unsigned type, so abs(INT_MIN) is 2^31 and
// abs_diff never overflows: the difference is taken in unsigned arithmetic.
#define SIGNED_ABS(N, T, U)                                                   \
  U##N OVERLOAD abs(T##N x) { return as_##U##N(__builtin_elementwise_abs(x)); } \
  U##N OVERLOAD abs_diff(T##N x, T##N y) {                                    \
    U##N ux = as_##U##N(x), uy = as_##U##N(y);                                \
    return x > y ? ux - uy : uy - ux;                                         \
  }
#define UNSIGNED_ABS(N, U)                                                    \
  U##N OVERLOAD abs(U##N x) { return x; }                                     \
  U##N OVERLOAD abs_diff(U##N x, U##N y) { return x > y ? x - y : y - x; }

// upsample(hi, lo) = hi << BITS | lo, built in the unsigned wide type so a
// negative hi is not shifted as a signed value.
#define UPSAMPLE(N, H, L, R, UR, BITS)                                        \
  R##N OVERLOAD upsample(H##N hi, L##N lo) {                                  \
    return as_##R##N(                                                         \
        (UR##N)(CONV(N, UR##N, hi) << BITS | CONV(N, UR##N, lo)));            \
  }

#define INTEGER_TYPE(S, U, WS, WU, BITS, SMIN, SMAX, UMAX)                    \
  WIDTHS(INT_FUNCS, S, U, WS, BITS, SMIN, SMAX)                               \
  WIDTHS(INT_FUNCS, U, U, WU, BITS, 0, UMAX)                                  \
  VWIDTHS(INT_VEC_SCALAR, S)                                                  \
  VWIDTHS(INT_VEC_SCALAR, U)                                                  \
  WIDTHS(SIGNED_ABS, S, U)                                                    \
  WIDTHS(UNSIGNED_ABS, U)

INTEGER_TYPE(char, uchar, short, ushort, 8, CHAR_MIN, CHAR_MAX, UCHAR_MAX)
INTEGER_TYPE(short, ushort, int, uint, 16, SHRT_MIN, SHRT_MAX, USHRT_MAX)
INTEGER_TYPE(int, uint, long, ulong, 32, INT_MIN, INT_MAX, UINT_MAX)
INTEGER_TYPE(long, ulong, i128, u128, 64, LONG_MIN, LONG_MAX, ULONG_MAX)

WIDTHS(UPSAMPLE, char, uchar, short, ushort, 8)
WIDTHS(UPSAMPLE, uchar, uchar, ushort, ushort, 8)
WIDTHS(UPSAMPLE, short, ushort, int, uint, 16)
WIDTHS(UPSAMPLE, ushort, ushort, uint, uint, 16)
WIDTHS(UPSAMPLE, int, uint, long, ulong, 32)
WIDTHS(UPSAMPLE, uint, uint, ulong, ulong, 32)

// 24-bit multiplies: the low 24 bits of each operand, sign-extended for int
// (shifted as unsigned first: a left shift into the sign bit is undefined
// in C); the multiply wraps, so it is done unsigned too.
#define MUL24(N, ...)                                                              \
  int##N OVERLOAD mul24(int##N x, int##N y) {                                 \
    int##N x24 = as_int##N(as_uint##N(x) << 8) >> 8;                         \
    int##N y24 = as_int##N(as_uint##N(y) << 8) >> 8;                          \
    return as_int##N(as_uint##N(x24) * as_uint##N(y24));                      \
  }                                                                           \
  uint##N OVERLOAD mul24(uint##N x, uint##N y) {                              \
    return (x & 0xffffffu) * (y & 0xffffffu);                                 \
  }                                                                           \
  int##N OVERLOAD mad24(int##N x, int##N y, int##N z) {                       \
    return as_int##N(as_uint##N(mul24(x, y)) + as_uint##N(z));               \
  }                                                                           \
  uint##N OVERLOAD mad24(uint##N x, uint##N y, uint##N z) {                   \
    return mul24(x, y) + z;                                                   \
  }
WIDTHS(MUL24)
