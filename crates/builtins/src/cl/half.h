// half <-> float, in integer arithmetic: exact for every rounding mode,
// vectorizable, and independent of the CPU's half-conversion instructions.
// Shared by vload_half/vstore_half and the half-float images.
#ifndef FERROCL_HALF_H
#define FERROCL_HALF_H

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "gentype.h"

// half bits -> float, exactly: normals rebias the exponent, subnormals are
// m * 2^-24 (exact in float), infinities and NaNs keep their payload.
#define HALF_TO_FLOAT(N, ...)                                                 \
  static float##N OVERLOAD half_bits_to_float(ushort##N h) {                  \
    uint##N u = CONV(N, uint##N, h);                                          \
    uint##N sign = (u & 0x8000u) << 16;                                       \
    uint##N e = (u >> 10) & 0x1fu;                                            \
    uint##N m = u & 0x3ffu;                                                   \
    uint##N normal = sign | ((e + 112u) << 23) | (m << 13);                   \
    uint##N special = sign | 0x7f800000u | (m << 13);                         \
    uint##N sub = as_uint##N(CONV(N, float##N, m) * 0x1p-24f) | sign;         \
    return as_float##N(e == 0u ? sub : e == 31u ? special : normal);          \
  }
WIDTHS(HALF_TO_FLOAT)

#define RTE 0
#define RTZ 1
#define RTP 2
#define RTN 3

// float or double -> half bits, rounded by `mode` (a constant once inlined).
// F: the type; U: the unsigned integer of its size; MANT, BIAS: its
// mantissa width and exponent bias.
// The result is first truncated: for a normal half, the top bits of the
// magnitude rebiased; for a subnormal one, the significand shifted right.
// The dropped bits r, against half an ulp hf, decide the rounding; a carry
// out of the mantissa correctly bumps the exponent.
#define FLOAT_TO_HALF(N, F, U, MANT, BIAS)                                    \
  static ushort##N OVERLOAD float_to_half_bits(F##N x, int mode) {            \
    const U one = 1;                                                          \
    U##N u = as_##U##N(x);                                                    \
    U##N sign = u >> (sizeof(U) * 8 - 1);                                     \
    U##N a = u & ~(one << (sizeof(U) * 8 - 1));                               \
    U##N E = a >> MANT;                                                       \
    U##N mant = a & ((one << MANT) - 1);                                      \
    U##N hn = (a >> (MANT - 10)) - ((U)(BIAS - 15) << 10);                    \
    U##N rn = a & ((one << (MANT - 10)) - 1);                                 \
    U##N m = E != (U##N)0 ? mant | (one << MANT) : mant;                      \
    /* Beyond MANT + 2 the shift gives 0 with every bit dropped. */           \
    U##N s = __builtin_elementwise_min((U)(BIAS - 14 + MANT - 10) - E,        \
                                       (U##N)(MANT + 2));                     \
    U##N hs = m >> s;                                                         \
    U##N rs = m & (((U##N)one << s) - 1);                                          \
    U##N h = E >= (U##N)(BIAS - 14) ? hn : hs;                                \
    U##N r = E >= (U##N)(BIAS - 14) ? rn : rs;                                \
    U##N hf = E >= (U##N)(BIAS - 14) ? (U##N)(one << (MANT - 11))             \
                                     : ((U##N)one << s) >> 1;                  \
    U##N nz = r != (U##N)0 ? (U##N)1 : (U##N)0;                               \
    U##N tie = r == hf ? h & one : (U##N)0;                                   \
    U##N nearest = r > hf ? (U##N)1 : tie;                                    \
    h += mode == RTE   ? nearest                                              \
         : mode == RTP ? nz & (sign ^ one)                                    \
         : mode == RTN ? nz & sign                                            \
                       : (U##N)0;                                             \
    /* Too large for a half: infinity or the largest finite half. */         \
    U##N to_inf = mode == RTE   ? (U##N)1                                     \
                  : mode == RTP ? sign ^ one                                  \
                  : mode == RTN ? sign                                        \
                                : (U##N)0;                                    \
    h = h >= (U##N)0x7c00 ? (U##N)0x7bff + to_inf : h;                        \
    /* Infinities stay; NaNs stay NaNs (quiet, top payload bits kept). */     \
    U##N inf = (U##N)(((one << (sizeof(U) * 8 - 1 - MANT)) - 1) << MANT);     \
    h = a == inf ? (U##N)0x7c00 : h;                                          \
    h = a > inf ? (U##N)0x7e00 | (mant >> (MANT - 10)) : h;                   \
    return CONV(N, ushort##N, (sign << 15) | h);                              \
  }
WIDTHS(FLOAT_TO_HALF, float, uint, 23, 127)
WIDTHS(FLOAT_TO_HALF, double, ulong, 52, 1023)

// x as a float rounded to odd: truncated, with the lowest bit set when
// that dropped anything. With more than 11 + 2 bits, a value rounded to odd
// and then to half is the value rounded once, so a double (or a result
// computed in double) becomes a half correctly through the float
// conversion F16C does. Overflow gives FLT_MAX (odd), which still rounds
// to infinity.
#define ROUND_TO_ODD(N, ...)                                                  \
  static float##N OVERLOAD float_rounded_to_odd(float##N x) { return x; }     \
  static float##N OVERLOAD float_rounded_to_odd(double##N x) {                \
    float##N f = CONV(N, float##N, x);                                        \
    double##N back = CONV(N, double##N, f);                                   \
    int##N bits = as_int##N(f);                                               \
    int##N over = CONV(N, int##N, __builtin_elementwise_abs(back) >           \
                                      __builtin_elementwise_abs(x));          \
    int##N inexact = CONV(N, int##N, back != x);                              \
    bits = over ? bits - 1 : bits;                                            \
    return as_float##N(inexact ? bits | 1 : bits);                            \
  }
WIDTHS(ROUND_TO_ODD)

// p + c rounded to odd, for floats whose sum and its error float holds
// (every bit a multiple of 2^-48 and below 2^33, as a product of two
// halves and a half are): the sum rounded to nearest and its exact error
// (Knuth's two-sum); where that is not zero and the sum is even, the odd
// neighbour on the error's side. Infinities and NaNs stay.
#define SUM_TO_ODD(N, ...)                                                    \
  static float##N OVERLOAD sum_rounded_to_odd(float##N p, float##N c) {       \
    float##N s = p + c;                                                       \
    float##N bp = s - c;                                                      \
    float##N bc = s - bp;                                                     \
    float##N e = (p - bp) + (c - bc);                                         \
    int##N bits = as_int##N(s);                                               \
    int##N adjust = (e != (float##N)0) & ((bits & (int##N)1) == (int##N)0) &  \
                    (__builtin_elementwise_abs(s) < (float##N)INFINITY);      \
    int##N step =                                                             \
        (bits ^ as_int##N(e)) >= (int##N)0 ? (int##N)1 : (int##N)-1;          \
    return as_float##N(adjust ? bits + step : bits);                          \
  }
WIDTHS(SUM_TO_ODD)

#endif
