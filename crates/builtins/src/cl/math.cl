// The math library (OpenCL C 3.0 section 6.15.2) for float and double, every
// vector width, with the pointer forms in every address space.
//
// The float forms of sin, cos, tan, asin, acos, atan, atan2 and their pi
// forms, sinpi, cospi, tanpi, sinh, cosh, tanh, asinh, acosh, atanh, exp,
// exp2, exp10, expm1, log, log2, log10, log1p, pow, powr, pown, rootn,
// cbrt, hypot, erf, erfc and sincos are in math_float.cl; the double forms
// of these, and tgamma, lgamma, lgamma_r, fmod, remainder and remquo for
// both types (the float ones through the double ones, rounded once), are
// in math_double.cl: one body per width, written to vectorize. Here: the
// exact and simple functions (one body per width too), the other address
// spaces of the pointer forms (through a private temporary), and frexp,
// fract, modf, ilogb, logb and ldexp, whose vector forms run the scalar
// function lane by lane, so every lane equals the scalar result bit for
// bit.
#include "gentype.h"

// ---------------------------------------------------------------------------
// Lane-by-lane vector forms of scalar functions.

// HT(T, N): the type of half a T##N vector.
#define HT(T, N) HT_##N(T)
#define HT_2(T) T
#define HT_4(T) T##2
#define HT_8(T) T##4
#define HT_16(T) T##8

#define SPLIT_WIDTHS(M, ...)                                                  \
  M(2, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)

// R name(F x)
#define V1_N(N, name, R, F)                                                   \
  R##N OVERLOAD name(F##N x) { return (R##N)(name(x.lo), name(x.hi)); }
#define V1(name, R, F)                                                        \
  SPLIT_WIDTHS(V1_N, name, R, F)                                              \
  R##3 OVERLOAD name(F##3 x) {                                                \
    return (R##3)(name(x.s0), name(x.s1), name(x.s2));                        \
  }
// F name(F x, G y)
#define V2_N(N, name, F, G)                                                   \
  F##N OVERLOAD name(F##N x, G##N y) {                                        \
    return (F##N)(name(x.lo, y.lo), name(x.hi, y.hi));                        \
  }
#define V2(name, F, G)                                                        \
  SPLIT_WIDTHS(V2_N, name, F, G)                                              \
  F##3 OVERLOAD name(F##3 x, G##3 y) {                                        \
    return (F##3)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2));      \
  }
// F name(F x, F y, F z)
#define V3_N(N, name, F)                                                      \
  F##N OVERLOAD name(F##N x, F##N y, F##N z) {                                \
    return (F##N)(name(x.lo, y.lo, z.lo), name(x.hi, y.hi, z.hi));            \
  }
#define V3(name, F)                                                           \
  SPLIT_WIDTHS(V3_N, name, F)                                                 \
  F##3 OVERLOAD name(F##3 x, F##3 y, F##3 z) {                                \
    return (F##3)(name(x.s0, y.s0, z.s0), name(x.s1, y.s1, z.s1),             \
                  name(x.s2, y.s2, z.s2));                                    \
  }
// F##N name(F##N x, G y): a scalar second operand for every lane.
#define VS_N(N, name, F, G)                                                   \
  F##N OVERLOAD name(F##N x, G y) { return name(x, (G##N)y); }
#define VS(name, F, G)                                                        \
  VWIDTHS(VS_N, name, F, G)

// F name(F x, private P *p), then the other address spaces through a
// private temporary.
#define VP1_N(N, name, F, P)                                                  \
  F##N OVERLOAD name(F##N x, __private P##N *p) {                             \
    HT(P, N) a, b;                                                            \
    F##N r = (F##N)(name(x.lo, &a), name(x.hi, &b));                          \
    *p = (P##N)(a, b);                                                        \
    return r;                                                                 \
  }
#define VP1_AS(N, name, F, P, AS)                                             \
  F##N OVERLOAD name(F##N x, AS P##N *p) {                                    \
    P##N t;                                                                   \
    F##N r = name(x, &t);                                                     \
    *p = t;                                                                   \
    return r;                                                                 \
  }
#define VP1_ALL_AS(N, name, F, P)                                             \
  VP1_AS(N, name, F, P, __global)                                             \
  VP1_AS(N, name, F, P, __local) VP1_GENERIC(N, name, F, P)
#if defined(__opencl_c_generic_address_space)
#define VP1_GENERIC(N, name, F, P) VP1_AS(N, name, F, P, )
#define VP2_GENERIC(N, name, F, P) VP2_AS(N, name, F, P, )
#else
#define VP1_GENERIC(N, name, F, P)
#define VP2_GENERIC(N, name, F, P)
#endif
#define VP1(name, F, P)                                                       \
  SPLIT_WIDTHS(VP1_N, name, F, P)                                             \
  F##3 OVERLOAD name(F##3 x, __private P##3 *p) {                             \
    P a, b, c;                                                                \
    F##3 r = (F##3)(name(x.s0, &a), name(x.s1, &b), name(x.s2, &c));          \
    *p = (P##3)(a, b, c);                                                     \
    return r;                                                                 \
  }                                                                           \
  WIDTHS(VP1_ALL_AS, name, F, P)

// F name(F x, F y, P *p) (remquo) in the other address spaces, through a
// private temporary.
#define VP2_AS(N, name, F, P, AS)                                             \
  F##N OVERLOAD name(F##N x, F##N y, AS P##N *p) {                            \
    P##N t;                                                                   \
    F##N r = name(x, y, &t);                                                  \
    *p = t;                                                                   \
    return r;                                                                 \
  }
#define VP2_ALL_AS(N, name, F, P)                                             \
  VP2_AS(N, name, F, P, __global)                                             \
  VP2_AS(N, name, F, P, __local) VP2_GENERIC(N, name, F, P)

// ---------------------------------------------------------------------------
// Pointer forms.

#define ISNAN __builtin_isnan
#define ISINF __builtin_isinf

#define SCALAR_PTR_FUNCS(F, I, ONE_MINUS)                                     \
  F OVERLOAD fract(F x, __private F *ip) {                                    \
    F fl = __builtin_elementwise_floor(x);                                    \
    F r = __builtin_elementwise_min(x - fl, ONE_MINUS);                       \
    r = x == (F)0 || ISINF(x) ? __builtin_copysign((F)0, x) : r;              \
    *ip = fl;                                                                 \
    return ISNAN(x) ? x : r;                                                  \
  }                                                                           \
  F OVERLOAD modf(F x, __private F *ip) {                                     \
    F i = __builtin_elementwise_trunc(x);                                     \
    F f = ISINF(x) ? (F)0 : x - i;                                            \
    *ip = i;                                                                  \
    return __builtin_copysign(f, x);                                          \
  }                                                                           \
  F OVERLOAD frexp(F x, __private int *e) {                                   \
    int k;                                                                    \
    F m = __builtin_frexp(x, &k);                                             \
    *e = ISINF(x) || ISNAN(x) ? 0 : k;                                        \
    return m;                                                                 \
  }                                                                           \
  int OVERLOAD ilogb(F x) {                                                   \
    int k;                                                                    \
    __builtin_frexp(x, &k);                                                   \
    return x == (F)0 ? FP_ILOGB0 : ISINF(x) || ISNAN(x) ? FP_ILOGBNAN : k - 1; \
  }                                                                           \
  F OVERLOAD logb(F x) {                                                      \
    int k;                                                                    \
    __builtin_frexp(x, &k);                                                   \
    F r = (F)(k - 1);                                                         \
    r = x == (F)0 ? -(F)INFINITY : r;                                         \
    return ISINF(x) ? (F)INFINITY : ISNAN(x) ? x : r;                         \
  }                                                                           \
  F OVERLOAD ldexp(F x, int n) { return __builtin_ldexp(x, n); }

SCALAR_PTR_FUNCS(float, int, 0x1.fffffep-1f)
SCALAR_PTR_FUNCS(double, long, 0x1.fffffffffffffp-1)

// The private forms of remquo and lgamma_r are in math_double.cl.
#define PRIVATE_DECLS(N, F)                                                   \
  F##N OVERLOAD remquo(F##N x, F##N y, __private int##N *q);                  \
  F##N OVERLOAD lgamma_r(F##N x, __private int##N *sign);
WIDTHS(PRIVATE_DECLS, float)
WIDTHS(PRIVATE_DECLS, double)

#define PTR_TYPE(F)                                                           \
  VP1(fract, F, F)                                                            \
  VP1(modf, F, F)                                                             \
  VP1(frexp, F, int)                                                          \
  WIDTHS(VP1_ALL_AS, lgamma_r, F, int)                                        \
  WIDTHS(VP2_ALL_AS, remquo, F, int)                                          \
  V1(ilogb, int, F)                                                           \
  V1(logb, F, F)                                                              \
  V2(ldexp, F, int)                                                           \
  VS(ldexp, F, int)
PTR_TYPE(float)
PTR_TYPE(double)

// ---------------------------------------------------------------------------
// Exact and simple functions: one body for the scalar and every vector.

#define AS_T(T, v) __builtin_astype((v), T)

// N: width; F, I: float and its same-size integer; SIGN, ONE: bit patterns.
#define SIMPLE_FUNCS(N, F, I, U, QNAN)                                        \
  F##N OVERLOAD fabs(F##N x) { return __builtin_elementwise_abs(x); }         \
  F##N OVERLOAD copysign(F##N x, F##N y) {                                    \
    return __builtin_elementwise_copysign(x, y);                              \
  }                                                                           \
  F##N OVERLOAD floor(F##N x) { return __builtin_elementwise_floor(x); }      \
  F##N OVERLOAD ceil(F##N x) { return __builtin_elementwise_ceil(x); }        \
  F##N OVERLOAD trunc(F##N x) { return __builtin_elementwise_trunc(x); }      \
  F##N OVERLOAD rint(F##N x) { return __builtin_elementwise_rint(x); }        \
  F##N OVERLOAD round(F##N x) { return __builtin_elementwise_round(x); }      \
  F##N OVERLOAD sqrt(F##N x) { return __builtin_elementwise_sqrt(x); }        \
  F##N OVERLOAD fma(F##N a, F##N b, F##N c) {                                 \
    return __builtin_elementwise_fma(a, b, c);                                \
  }                                                                           \
  F##N OVERLOAD mad(F##N a, F##N b, F##N c) { return a * b + c; }             \
  F##N OVERLOAD fmin(F##N x, F##N y) {                                        \
    return __builtin_elementwise_min(x, y);                                   \
  }                                                                           \
  F##N OVERLOAD fmax(F##N x, F##N y) {                                        \
    return __builtin_elementwise_max(x, y);                                   \
  }                                                                           \
  F##N OVERLOAD fdim(F##N x, F##N y) {                                        \
    F##N r = x > y ? x - y : (F##N)0;                                         \
    return x != x || y != y ? x + y : r;                                      \
  }                                                                           \
  F##N OVERLOAD maxmag(F##N x, F##N y) {                                      \
    F##N ax = fabs(x), ay = fabs(y);                                          \
    return ax > ay ? x : ay > ax ? y : fmax(x, y);                            \
  }                                                                           \
  F##N OVERLOAD minmag(F##N x, F##N y) {                                      \
    F##N ax = fabs(x), ay = fabs(y);                                          \
    return ax < ay ? x : ay < ax ? y : fmin(x, y);                            \
  }                                                                           \
  F##N OVERLOAD nan(U##N c) {                                                 \
    return AS_T(F##N, AS_T(I##N, (U##N)QNAN | c));                            \
  }                                                                           \
  F##N OVERLOAD nextafter(F##N x, F##N y) {                                   \
    I##N ix = AS_T(I##N, x), iy = AS_T(I##N, y);                              \
    I##N up = ix + (I##N)1, dn = ix - (I##N)1;                                \
    I##N r = (x < y) == (x > (F##N)0) ? up : dn;                              \
    I##N sm = (iy & ((I##N)1 << (sizeof(I) * 8 - 1))) | (I##N)1;             \
    r = x == (F##N)0 ? sm : r;                                                \
    r = x == y ? iy : r;                                                      \
    return x != x || y != y ? x + y : AS_T(F##N, r);                          \
  }                                                                           \
  F##N OVERLOAD rsqrt(F##N x) { return RSQRT_##F(N, x); }                     \
  F##N OVERLOAD half_##divide(F##N x, F##N y) { return x / y; }               \
  F##N OVERLOAD native_##divide(F##N x, F##N y) { return x / y; }             \
  F##N OVERLOAD half_##recip(F##N x) { return (F##N)1 / x; }                  \
  F##N OVERLOAD native_##recip(F##N x) { return (F##N)1 / x; }

// Two correctly rounded steps: within 1.5 ulp (the bound is 2), and it
// stays in float lanes. Marked `arcp` for `passes::reciprocal_estimates`, which
// makes it AVX-512's estimate and a Newton step, or removes the mark.
#define RSQRT_float(N, x)                                                     \
  ({                                                                          \
    _Pragma("clang fp reciprocal(on)");                                       \
    (float##N)1 / __builtin_elementwise_sqrt(x);                              \
  })
#define RSQRT_double(N, x) ((double##N)1 / __builtin_elementwise_sqrt(x))

WIDTHS(SIMPLE_FUNCS, float, int, uint, 0x7fc00000u)
WIDTHS(SIMPLE_FUNCS, double, long, ulong, 0x7ff8000000000000ul)

// fmax/fmin with a scalar second operand.
VS(fmax, float, float)
VS(fmin, float, float)
VS(fmax, double, double)
VS(fmin, double, double)

// half_ and native_ forms (float only): the full-precision functions.
#define HALF_NATIVE1(N, name)                                                 \
  float##N OVERLOAD half_##name(float##N x) { return name(x); }               \
  float##N OVERLOAD native_##name(float##N x) { return name(x); }
#define HALF_NATIVE_ALL(N)                                                    \
  HALF_NATIVE1(N, cos)                                                        \
  HALF_NATIVE1(N, sin)                                                        \
  HALF_NATIVE1(N, tan)                                                        \
  HALF_NATIVE1(N, exp)                                                        \
  HALF_NATIVE1(N, exp2)                                                       \
  HALF_NATIVE1(N, exp10)                                                      \
  HALF_NATIVE1(N, log)                                                        \
  HALF_NATIVE1(N, log2)                                                       \
  HALF_NATIVE1(N, log10)                                                      \
  HALF_NATIVE1(N, rsqrt)                                                      \
  HALF_NATIVE1(N, sqrt)                                                       \
  float##N OVERLOAD half_powr(float##N x, float##N y) { return powr(x, y); }  \
  float##N OVERLOAD native_powr(float##N x, float##N y) { return powr(x, y); }
#define HALF_NATIVE_W(N, unused) HALF_NATIVE_ALL(N)
WIDTHS(HALF_NATIVE_W, 0)
