// Explicit conversions (OpenCL C 3.0 section 6.4.3):
// convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn](<src>) for every pair of scalar
// types and every width, and shuffle/shuffle2 (section 6.15.7... "Vector
// data" miscellaneous functions, 6.15.16 in 3.0).
//
// Each pair gets one implementation taking the rounding mode and saturation
// as constants, which fold away once inlined; the public functions only
// name them. The bodies are lane-wise (masks and selects), so one serves the
// scalar and every width. half (cl_khr_fp16) converts through float where
// that is exact: half to anything is float's conversion of the same value;
// to half, float's own rounding (F16C) or, from double, a float rounded to
// odd first, so that the value is rounded once.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "half.h"

#define CAT(a, b) CAT_(a, b)
#define CAT_(a, b) a##b
// The signed integer vector of D's element size and width N; as_<T>(x).
#define SIV(N, D) CAT(CAT(SI_, D), N)
#define AS(T, x) CAT(as_, T)(x)

// Per type: integer (I) or floating (F); the signed integer of its size;
// for integers the range; for floats the precision.
#define KIND_char I
#define KIND_uchar I
#define KIND_short I
#define KIND_ushort I
#define KIND_int I
#define KIND_uint I
#define KIND_long I
#define KIND_ulong I
#define KIND_float F
#define KIND_double F
#define KIND_half H
#define SI_char char
#define SI_uchar char
#define SI_short short
#define SI_ushort short
#define SI_int int
#define SI_uint int
#define SI_long long
#define SI_ulong long
#define SI_float int
#define SI_double long
#define SI_half short
#define MIN_char CHAR_MIN
#define MIN_uchar 0
#define MIN_short SHRT_MIN
#define MIN_ushort 0
#define MIN_int INT_MIN
#define MIN_uint 0
#define MIN_long LONG_MIN
#define MIN_ulong 0
#define MAX_char CHAR_MAX
#define MAX_uchar UCHAR_MAX
#define MAX_short SHRT_MAX
#define MAX_ushort USHRT_MAX
#define MAX_int INT_MAX
#define MAX_uint UINT_MAX
#define MAX_long LONG_MAX
#define MAX_ulong ULONG_MAX
// The range of an integer type as powers of two: [LO, HI).
#define LO_char -0x1p7
#define LO_uchar 0.0
#define LO_short -0x1p15
#define LO_ushort 0.0
#define LO_int -0x1p31
#define LO_uint 0.0
#define LO_long -0x1p63
#define LO_ulong 0.0
#define HI_char 0x1p7
#define HI_uchar 0x1p8
#define HI_short 0x1p15
#define HI_ushort 0x1p16
#define HI_int 0x1p31
#define HI_uint 0x1p32
#define HI_long 0x1p63
#define HI_ulong 0x1p64
// Value bits of an integer type; significand bits of a float type.
#define VBITS_char 7
#define VBITS_uchar 8
#define VBITS_short 15
#define VBITS_ushort 16
#define VBITS_int 31
#define VBITS_uint 32
#define VBITS_long 63
#define VBITS_ulong 64
#define PREC_float 24
#define PREC_double 53
#define PREC_half 11
// Half an ulp of 1 (2^-PREC).
#define EPS_float 0x1p-24f
#define EPS_double 0x1p-53

// A lane mask, -1 where m holds and 0 elsewhere, as the signed integer type
// I of the result's element size (vector ?: wants the condition's elements
// as wide as the operands'). Scalars get -1/0 too, so masks combine with
// ~, & and | the same way at every width.
#define MASK(N, I, m) MASK_##N(I, m)
#define MASK_(I, m) ((m) ? (I)-1 : (I)0)
#define MASK_2(I, m) __builtin_convertvector((m), CAT(I, 2))
#define MASK_3(I, m) __builtin_convertvector((m), CAT(I, 3))
#define MASK_4(I, m) __builtin_convertvector((m), CAT(I, 4))
#define MASK_8(I, m) __builtin_convertvector((m), CAT(I, 8))
#define MASK_16(I, m) __builtin_convertvector((m), CAT(I, 16))

// Integer to integer: rounding modes change nothing; saturation clamps in
// the source type to the bounds of the destination that the source can
// exceed (constant conditions, folded).
#define CVT_II(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    if (sat) {                                                                \
      if ((i128)MIN_##D > (i128)MIN_##S)                                      \
        x = x < (S##N)MIN_##D ? (S##N)MIN_##D : x;                            \
      if ((i128)MAX_##D < (i128)MAX_##S)                                      \
        x = x > (S##N)MAX_##D ? (S##N)MAX_##D : x;                            \
    }                                                                         \
    return CONV(N, D##N, x);                                                  \
  }

// Float to integer: round to an integer in `mode` (the conversion itself
// truncates, which is _rtz). Saturation: NaN gives 0, values beyond the range
// its ends. Where every value of the type is exact in S (char and short
// from float or double), the clamp to [LO, MAX] is the whole of it: max
// with a number gives that number for NaN, so only a signed type needs
// NaN's 0 chosen. Otherwise in range values are first clamped to just below HI so the
// conversion is defined, then the out-of-range lanes are replaced.
#define CVT_IF(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    S##N r = mode == RTE   ? __builtin_elementwise_rint(x)                    \
             : mode == RTP ? __builtin_elementwise_ceil(x)                    \
             : mode == RTN ? __builtin_elementwise_floor(x)                   \
                           : x;                                               \
    if (!sat)                                                                 \
      return CONV(N, D##N, r);                                                \
    if (HI_##D <= 0x1p16 && sizeof(S) >= 4) {                                 \
      D##N c = CONV(N, D##N,                                                  \
                    __builtin_elementwise_min(                                \
                        __builtin_elementwise_max(r, (S##N)(S)LO_##D),        \
                        (S##N)(S)MAX_##D));                                   \
      if (LO_##D == 0.0)                                                      \
        return c;                                                             \
      return MASK(N, CAT(SI_, D), r != r) ? (D##N)0 : c;                      \
    }                                                                         \
    const S hi = (S)HI_##D;                                                   \
    const S below_hi = hi - hi * EPS_##S;                \
    S##N rc = __builtin_elementwise_min(                                      \
        __builtin_elementwise_max(r, (S##N)(S)LO_##D), (S##N)below_hi);       \
    D##N v = CONV(N, D##N, rc);                                               \
    v = MASK(N, CAT(SI_, D), r >= (S##N)hi) ? (D##N)MAX_##D : v;                   \
    return MASK(N, CAT(SI_, D), r != r) ? (D##N)0 : v;                             \
  }

// The neighbours of a float F (as bits) towards +inf and -inf: one step of
// the magnitude, up or down by the sign.
// (The cast: a scalar short's arithmetic is int's.)
#define NEXT_UP(N, F, f) NEXT_(N, F, f, -, +)
#define NEXT_DOWN(N, F, f) NEXT_(N, F, f, +, -)
#define NEXT_(N, F, f, NEG, POS)                                              \
  AS(F##N, (SIV(N, F))(AS(SIV(N, F), f) < (SIV(N, F))0                       \
                           ? AS(SIV(N, F), f) NEG(SIV(N, F)) 1               \
                           : AS(SIV(N, F), f) POS(SIV(N, F)) 1))

// Corrects f, the round-to-nearest result, to a directed mode given masks
// of the lanes where f is above (gt) or below (lt) the exact value. The
// sign is f's sign bit: a negative value too small for D rounds to -0,
// which towards zero stays -0.
#define DIRECTED(N, D, f, gt, lt, mode)                                       \
  {                                                                           \
    SIV(N, D) neg = MASK(N, CAT(SI_, D), AS(SIV(N, D), f) < (SIV(N, D))0);    \
    SIV(N, D) down = mode == RTN   ? (SIV(N, D))(gt)                          \
                     : mode == RTZ ? (SIV(N, D))(gt) & ~neg                   \
                                   : (SIV(N, D))0;                            \
    SIV(N, D) up = mode == RTP   ? (SIV(N, D))(lt)                            \
                   : mode == RTZ ? (SIV(N, D))(lt) & neg                      \
                                 : (SIV(N, D))0;                              \
    f = up ? NEXT_UP(N, D, f) : down ? NEXT_DOWN(N, D, f) : f;                \
  }

// Integer to float: the conversion rounds to nearest (_rte). For a directed
// mode, when the type may be inexact, the result is compared with the source
// in the integer type (f is integral; f >= HI only when above the source).
#define CVT_FI(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    D##N f = CONV(N, D##N, x);                                                \
    if (mode == RTE || VBITS_##S <= PREC_##D)                                 \
      return f;                                                               \
    SIV(N, D) big = MASK(N, CAT(SI_, D), f >= (D##N)(D)HI_##S);                    \
    S##N fi = CONV(N, S##N, big ? (D##N)0 : f);                               \
    SIV(N, D) gt = big | MASK(N, CAT(SI_, D), fi > x);                             \
    SIV(N, D) lt = ~big & MASK(N, CAT(SI_, D), fi < x);                            \
    DIRECTED(N, D, f, gt, lt, mode)                                           \
    return f;                                                                 \
  }

// Float to float: widening is exact; narrowing rounds to nearest, and for a
// directed mode is compared back in the wider type (NaN compares false).
#define CVT_FF(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    D##N f = CONV(N, D##N, x);                                                \
    if (sizeof(D) >= sizeof(S) || mode == RTE)                                \
      return f;                                                               \
    S##N back = CONV(N, S##N, f);                                             \
    SIV(N, D) gt = MASK(N, CAT(SI_, D), back > x);                                 \
    SIV(N, D) lt = MASK(N, CAT(SI_, D), back < x);                                 \
    DIRECTED(N, D, f, gt, lt, mode)                                           \
    return f;                                                                 \
  }

// half to an integer: exactly float's conversion of the same value.
#define CVT_IH(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    return cvt_##D##N(CONV(N, float##N, x), mode, sat);                       \
  }
// half to float or double is exact; half to half the identity.
#define CVT_FH(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    return CONV(N, D##N, x);                                                  \
  }
#define CVT_HH CVT_FH
// An integer to half: the conversion rounds to nearest (through float,
// which rounds only beyond 2^24, where every value is past the largest
// half and rounds to infinity either way). For a directed mode it is
// compared with the source as CVT_FI does; a result the source type cannot
// hold (2^15 from a short, or an infinity) is beyond the source in its own
// direction.
#define CVT_HI(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    D##N f = CONV(N, D##N, x);                                                \
    if (mode == RTE || VBITS_##S <= PREC_##D)                                 \
      return f;                                                               \
    SIV(N, D) above = MASK(N, CAT(SI_, D), f >= (D##N)(D)HI_##S);             \
    SIV(N, D) below = MASK(N, CAT(SI_, D), f == -(D##N)INFINITY);             \
    SIV(N, D) big = above | below;                                            \
    S##N fi = CONV(N, S##N, big ? (D##N)0 : f);                               \
    SIV(N, D) gt = above | (~big & MASK(N, CAT(SI_, D), fi > x));             \
    SIV(N, D) lt = below | (~big & MASK(N, CAT(SI_, D), fi < x));             \
    DIRECTED(N, D, f, gt, lt, mode)                                           \
    return f;                                                                 \
  }
// float or double to half: to nearest through a float rounded to odd
// (exact for float), then corrected for a directed mode as CVT_FF does.
#define CVT_HF(N, D, S)                                                       \
  static D##N OVERLOAD cvt_##D##N(S##N x, int mode, int sat) {                \
    D##N f = CONV(N, D##N, float_rounded_to_odd(x));                          \
    if (mode == RTE)                                                          \
      return f;                                                               \
    S##N back = CONV(N, S##N, f);                                             \
    SIV(N, D) gt = MASK(N, CAT(SI_, D), back > x);                            \
    SIV(N, D) lt = MASK(N, CAT(SI_, D), back < x);                            \
    DIRECTED(N, D, f, gt, lt, mode)                                           \
    return f;                                                                 \
  }

#define CVT_IMPL(N, D, S) CAT(CVT_, CAT(KIND_##D, KIND_##S))(N, D, S)

#define CONVERT_MODES(N, D, S, SAT, SAT_SUFFIX)                               \
  D##N OVERLOAD convert_##D##N##SAT_SUFFIX(S##N x) {                          \
    return cvt_##D##N(x, CAT(DEFAULT_MODE_, CAT(KIND_##D, KIND_##S)), SAT);   \
  }                                                                           \
  D##N OVERLOAD convert_##D##N##SAT_SUFFIX##_rte(S##N x) {                    \
    return cvt_##D##N(x, RTE, SAT);                                           \
  }                                                                           \
  D##N OVERLOAD convert_##D##N##SAT_SUFFIX##_rtz(S##N x) {                    \
    return cvt_##D##N(x, RTZ, SAT);                                           \
  }                                                                           \
  D##N OVERLOAD convert_##D##N##SAT_SUFFIX##_rtp(S##N x) {                    \
    return cvt_##D##N(x, RTP, SAT);                                           \
  }                                                                           \
  D##N OVERLOAD convert_##D##N##SAT_SUFFIX##_rtn(S##N x) {                    \
    return cvt_##D##N(x, RTN, SAT);                                           \
  }
// The default: to an integer, _rtz; to a float, _rte.
#define DEFAULT_MODE_II RTZ
#define DEFAULT_MODE_IF RTZ
#define DEFAULT_MODE_FI RTE
#define DEFAULT_MODE_FF RTE
#define DEFAULT_MODE_IH RTZ
#define DEFAULT_MODE_FH RTE
#define DEFAULT_MODE_HI RTE
#define DEFAULT_MODE_HF RTE
#define DEFAULT_MODE_HH RTE

// Saturated forms exist for integer destinations only.
#define SAT_FORMS_I(N, D, S) CONVERT_MODES(N, D, S, 1, _sat)
#define SAT_FORMS_F(N, D, S)
#define SAT_FORMS_H(N, D, S)

#define CONVERT_PAIR(N, D, S)                                                 \
  CVT_IMPL(N, D, S)                                                           \
  CONVERT_MODES(N, D, S, 0, )                                                 \
  CAT(SAT_FORMS_, KIND_##D)(N, D, S)

#define CONVERT_TO(N, D)                                                      \
  CONVERT_PAIR(N, D, char)                                                    \
  CONVERT_PAIR(N, D, uchar)                                                   \
  CONVERT_PAIR(N, D, short)                                                   \
  CONVERT_PAIR(N, D, ushort)                                                  \
  CONVERT_PAIR(N, D, int)                                                     \
  CONVERT_PAIR(N, D, uint)                                                    \
  CONVERT_PAIR(N, D, long)                                                    \
  CONVERT_PAIR(N, D, ulong)                                                   \
  CONVERT_PAIR(N, D, float)                                                   \
  CONVERT_PAIR(N, D, double)                                                  \
  CONVERT_PAIR(N, D, half)

#define CONVERT_ALL(N, ...)                                                   \
  CONVERT_TO(N, char)                                                         \
  CONVERT_TO(N, uchar)                                                        \
  CONVERT_TO(N, short)                                                        \
  CONVERT_TO(N, ushort)                                                       \
  CONVERT_TO(N, int)                                                          \
  CONVERT_TO(N, uint)                                                         \
  CONVERT_TO(N, long)                                                         \
  CONVERT_TO(N, ulong)                                                        \
  CONVERT_TO(N, float)                                                        \
  CONVERT_TO(N, double)                                                       \
  CONVERT_TO(N, half)

WIDTHS(CONVERT_ALL)

// shuffle(x, mask): lane i of the result is x[mask[i] mod M]; shuffle2 picks
// from x then y (mask mod 2M). Only the low bits of each mask element count.
// Indices are run-time values, so the lanes are gathered by subscript.
#define SHUFFLE(M, N, T, U)                                                   \
  T##N OVERLOAD shuffle(T##M x, U##N mask) {                                  \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++)                                               \
      r[i] = x[mask[i] & (M - 1)];                                            \
    return r;                                                                 \
  }                                                                           \
  T##N OVERLOAD shuffle2(T##M x, T##M y, U##N mask) {                         \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++) {                                             \
      uint k = mask[i] & (2 * M - 1);                                         \
      r[i] = k < M ? x[k] : y[k - M];                                         \
    }                                                                         \
    return r;                                                                 \
  }
#define SHUFFLE_FROM(M, T, U)                                                 \
  SHUFFLE(M, 2, T, U)                                                         \
  SHUFFLE(M, 4, T, U)                                                         \
  SHUFFLE(M, 8, T, U)                                                         \
  SHUFFLE(M, 16, T, U)
#define SHUFFLE_TYPE(T, U)                                                    \
  SHUFFLE_FROM(2, T, U)                                                       \
  SHUFFLE_FROM(4, T, U)                                                       \
  SHUFFLE_FROM(8, T, U)                                                       \
  SHUFFLE_FROM(16, T, U)

SHUFFLE_TYPE(char, uchar)
SHUFFLE_TYPE(uchar, uchar)
SHUFFLE_TYPE(short, ushort)
SHUFFLE_TYPE(ushort, ushort)
SHUFFLE_TYPE(int, uint)
SHUFFLE_TYPE(uint, uint)
SHUFFLE_TYPE(long, ulong)
SHUFFLE_TYPE(ulong, ulong)
SHUFFLE_TYPE(float, uint)
SHUFFLE_TYPE(double, ulong)
SHUFFLE_TYPE(half, ushort)
