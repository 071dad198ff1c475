// The math library (OpenCL C 3.0 section 6.15.2) for half (cl_khr_fp16),
// every vector width, with the pointer forms in every address space.
//
// Each function is the float function of the same arguments (exact: every
// half is a float) rounded once to half by the float to half conversion
// (F16C). The float functions are within a few float ulps, 2^-13 of a half
// ulp each, so the half results are within 0.5 ulp plus a sliver: inside
// the spec's half bounds (2 to 4 ulp, or correctly rounded). Those the spec
// wants correctly rounded are so: sqrt, fdim and the exact functions through
// float (a float has 24 >= 2 * 11 + 2 bits, so rounding twice is rounding
// once), fma as the float product (exact) plus the addend rounded to odd,
// then to half. The float functions are branch-free per width, so a half
// vector form is the float one between two conversions and a work-item
// loop calling a half function vectorizes as it does for float.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// The two-sum of fma's rounding is only exact as written.
#pragma OPENCL FP_CONTRACT OFF
#include "half.h"

#define TO_F(N, x) CONV(N, float##N, x)
#define TO_H(N, x) CONV(N, half##N, x)

// half name(half x), and the other shapes, through float.
#define VIA_FLOAT1(N, name)                                                   \
  half##N OVERLOAD name(half##N x) { return TO_H(N, name(TO_F(N, x))); }
#define VIA_FLOAT2(N, name)                                                   \
  half##N OVERLOAD name(half##N x, half##N y) {                               \
    return TO_H(N, name(TO_F(N, x), TO_F(N, y)));                             \
  }
#define VIA_FLOAT_INT(N, name)                                                \
  half##N OVERLOAD name(half##N x, int##N n) {                                \
    return TO_H(N, name(TO_F(N, x), n));                                      \
  }
#define VIA_FLOAT_ALL(N, ...)                                                 \
  VIA_FLOAT1(N, acos)                                                         \
  VIA_FLOAT1(N, acosh)                                                        \
  VIA_FLOAT1(N, acospi)                                                       \
  VIA_FLOAT1(N, asin)                                                         \
  VIA_FLOAT1(N, asinh)                                                        \
  VIA_FLOAT1(N, asinpi)                                                       \
  VIA_FLOAT1(N, atan)                                                         \
  VIA_FLOAT1(N, atanh)                                                        \
  VIA_FLOAT1(N, atanpi)                                                       \
  VIA_FLOAT1(N, cbrt)                                                         \
  VIA_FLOAT1(N, ceil)                                                         \
  VIA_FLOAT1(N, cos)                                                          \
  VIA_FLOAT1(N, cosh)                                                         \
  VIA_FLOAT1(N, cospi)                                                        \
  VIA_FLOAT1(N, erf)                                                          \
  VIA_FLOAT1(N, erfc)                                                         \
  VIA_FLOAT1(N, exp)                                                          \
  VIA_FLOAT1(N, exp2)                                                         \
  VIA_FLOAT1(N, exp10)                                                        \
  VIA_FLOAT1(N, expm1)                                                        \
  VIA_FLOAT1(N, fabs)                                                         \
  VIA_FLOAT1(N, floor)                                                        \
  VIA_FLOAT1(N, lgamma)                                                       \
  VIA_FLOAT1(N, log)                                                          \
  VIA_FLOAT1(N, log2)                                                         \
  VIA_FLOAT1(N, log10)                                                        \
  VIA_FLOAT1(N, log1p)                                                        \
  VIA_FLOAT1(N, logb)                                                         \
  VIA_FLOAT1(N, rint)                                                         \
  VIA_FLOAT1(N, round)                                                        \
  VIA_FLOAT1(N, rsqrt)                                                        \
  VIA_FLOAT1(N, sin)                                                          \
  VIA_FLOAT1(N, sinh)                                                         \
  VIA_FLOAT1(N, sinpi)                                                        \
  VIA_FLOAT1(N, sqrt)                                                         \
  VIA_FLOAT1(N, tan)                                                          \
  VIA_FLOAT1(N, tanh)                                                         \
  VIA_FLOAT1(N, tanpi)                                                        \
  VIA_FLOAT1(N, tgamma)                                                       \
  VIA_FLOAT1(N, trunc)                                                        \
  VIA_FLOAT2(N, atan2)                                                        \
  VIA_FLOAT2(N, atan2pi)                                                      \
  VIA_FLOAT2(N, copysign)                                                     \
  VIA_FLOAT2(N, fdim)                                                         \
  VIA_FLOAT2(N, fmax)                                                         \
  VIA_FLOAT2(N, fmin)                                                         \
  VIA_FLOAT2(N, fmod)                                                         \
  VIA_FLOAT2(N, hypot)                                                        \
  VIA_FLOAT2(N, maxmag)                                                       \
  VIA_FLOAT2(N, minmag)                                                       \
  VIA_FLOAT2(N, pow)                                                          \
  VIA_FLOAT2(N, powr)                                                         \
  VIA_FLOAT2(N, remainder)                                                    \
  VIA_FLOAT_INT(N, ldexp)                                                     \
  VIA_FLOAT_INT(N, pown)                                                      \
  VIA_FLOAT_INT(N, rootn)                                                     \
  int##N OVERLOAD ilogb(half##N x) { return ilogb(TO_F(N, x)); }              \
  /* a * b is exact in float; the sum rounded to odd there, then to half,    \
     is the exact result rounded once. */                                     \
  half##N OVERLOAD fma(half##N a, half##N b, half##N c) {                     \
    return TO_H(N, sum_rounded_to_odd(TO_F(N, a) * TO_F(N, b), TO_F(N, c)));  \
  }                                                                           \
  half##N OVERLOAD mad(half##N a, half##N b, half##N c) {                     \
    return TO_H(N, TO_F(N, a) * TO_F(N, b) + TO_F(N, c));                     \
  }                                                                           \
  half##N OVERLOAD nan(ushort##N c) {                                         \
    return as_half##N((ushort##N)((ushort##N)0x7e00 | c));                                 \
  }                                                                           \
  /* One step of the bits towards y: up or down by the signs; from zero the   \
     smallest subnormal of y's sign. */                                       \
  half##N OVERLOAD nextafter(half##N x, half##N y) {                          \
    short##N ix = as_short##N(x), iy = as_short##N(y);                        \
    short##N up = ix + (short##N)1, dn = ix - (short##N)1;                    \
    short##N r = (x < y) == (x > (half##N)0) ? up : dn;                       \
    short##N sm = (iy & (short##N)(-0x8000)) | (short##N)1;                   \
    r = x == (half##N)0 ? sm : r;                                             \
    r = x == y ? iy : r;                                                      \
    return x != x || y != y ? x + y : as_half##N(r);                          \
  }
WIDTHS(VIA_FLOAT_ALL)

// The (vector, scalar) forms.
#define VEC_SCALAR(N, ...)                                                    \
  half##N OVERLOAD fmax(half##N x, half y) { return fmax(x, (half##N)y); }    \
  half##N OVERLOAD fmin(half##N x, half y) { return fmin(x, (half##N)y); }    \
  half##N OVERLOAD ldexp(half##N x, int n) { return ldexp(x, (int##N)n); }
VWIDTHS(VEC_SCALAR)

// ---------------------------------------------------------------------------
// Pointer forms, one body for every address space.

// A private temporary passed to a float function as the generic pointer
// that function is declared with: as a private one it would match this
// file's half forms as well as the float ones.
#if defined(__opencl_c_generic_address_space)
#define GENERIC(T, p) ((__generic T *)(p))
#else
#define GENERIC(T, p) (p)
#endif

#define PTR_FORMS(N, AS)                                                      \
  /* x - floor(x) is exact in float; rounded to half it may reach 1 (for a    \
     tiny negative x), hence the spec's bound below 1. */                     \
  half##N OVERLOAD fract(half##N x, AS half##N *ip) {                         \
    float##N fl = __builtin_elementwise_floor(TO_F(N, x));                    \
    half##N r = __builtin_elementwise_min(TO_H(N, TO_F(N, x) - fl),           \
                                          (half##N)0x1.ffcp-1f);              \
    half##N a = __builtin_elementwise_abs(x);                                 \
    r = a == (half##N)0 || a == (half##N)INFINITY                             \
            ? __builtin_elementwise_copysign((half##N)0, x)                   \
            : r;                                                              \
    *ip = TO_H(N, fl);                                                        \
    return x != x ? x : r;                                                    \
  }                                                                           \
  half##N OVERLOAD modf(half##N x, AS half##N *ip) {                          \
    half##N i = __builtin_elementwise_trunc(x);                               \
    half##N f = __builtin_elementwise_abs(x) == (half##N)INFINITY             \
                    ? (half##N)0                                              \
                    : x - i;                                                  \
    *ip = i;                                                                  \
    return __builtin_elementwise_copysign(f, x);                              \
  }                                                                           \
  half##N OVERLOAD frexp(half##N x, AS int##N *e) {                           \
    int##N k;                                                                 \
    half##N m = TO_H(N, frexp(TO_F(N, x), GENERIC(int##N, &k)));                               \
    *e = k;                                                                   \
    return m;                                                                 \
  }                                                                           \
  half##N OVERLOAD lgamma_r(half##N x, AS int##N *sign) {                     \
    int##N s;                                                                 \
    half##N r = TO_H(N, lgamma_r(TO_F(N, x), GENERIC(int##N, &s)));                            \
    *sign = s;                                                                \
    return r;                                                                 \
  }                                                                           \
  half##N OVERLOAD remquo(half##N x, half##N y, AS int##N *q) {               \
    int##N k;                                                                 \
    half##N r = TO_H(N, remquo(TO_F(N, x), TO_F(N, y), GENERIC(int##N, &k)));                  \
    *q = k;                                                                   \
    return r;                                                                 \
  }                                                                           \
  half##N OVERLOAD sincos(half##N x, AS half##N *c) {                         \
    *c = cos(x);                                                              \
    return sin(x);                                                            \
  }

#define PTR_ALL_AS(N, ...)                                                    \
  PTR_FORMS(N, __private)                                                     \
  PTR_FORMS(N, __global)                                                      \
  PTR_FORMS(N, __local)                                                       \
  PTR_GENERIC(N)
#if defined(__opencl_c_generic_address_space)
#define PTR_GENERIC(N) PTR_FORMS(N, )
#else
#define PTR_GENERIC(N)
#endif
WIDTHS(PTR_ALL_AS)
