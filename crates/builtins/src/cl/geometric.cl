// Geometric functions (OpenCL C 3.0 section 6.15.5) for float, double and
// half, scalars and 2-, 3- and 4-vectors.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "gentype.h"

// Geometric functions take scalars and vectors of up to 4 elements.
#define GWIDTHS(M, ...)                                                       \
  M(, __VA_ARGS__)                                                            \
  M(2, __VA_ARGS__)                                                           \
  M(3, __VA_ARGS__)                                                           \
  M(4, __VA_ARGS__)

// Horizontal reductions over the lanes, in lane order.
#define HSUM(N, v) HSUM_##N(v)
#define HSUM_(v) (v)
#define HSUM_2(v) ((v).x + (v).y)
#define HSUM_3(v) ((v).x + (v).y + (v).z)
#define HSUM_4(v) ((v).x + (v).y + (v).z + (v).w)
#define HMAX(N, v) HMAX_##N(v)
#define HMAX_(v) (v)
#define HMAX_2(v) __builtin_elementwise_max((v).x, (v).y)
#define HMAX_3(v) __builtin_elementwise_max(__builtin_elementwise_max((v).x, (v).y), (v).z)
#define HMAX_4(v)                                                             \
  __builtin_elementwise_max(__builtin_elementwise_max((v).x, (v).y), __builtin_elementwise_max((v).z, (v).w))
// Whether any lane of a comparison mask is set.
#define HANY(N, m) (HANY_##N(m) != 0)
#define HANY_(m) (m)
#define HANY_2(m) ((m).x | (m).y)
#define HANY_3(m) ((m).x | (m).y | (m).z)
#define HANY_4(m) ((m).x | (m).y | (m).z | (m).w)

// N: width suffix; F: float or double; TINY: below this a sum of squares
// has lost precision to underflow.
#define GEOMETRIC(N, F, TINY)                                                 \
  F OVERLOAD dot(F##N p0, F##N p1) { return HSUM(N, p0 * p1); }               \
  /* The plain sqrt of the sum of squares, unless that sum overflowed or      \
     underflowed: then the vector is scaled by its largest magnitude first.   \
   */                                                                         \
  F OVERLOAD length(F##N p) {                                                 \
    F s = dot(p, p);                                                          \
    if (s < (F)INFINITY && s >= (F)(TINY))                                    \
      return __builtin_elementwise_sqrt(s);                                   \
    if (s != s)                                                               \
      return s; /* a NaN element */                                           \
    F m = HMAX(N, __builtin_elementwise_abs(p));                              \
    if (m == (F)0 || m == (F)INFINITY)                                        \
      return m;                                                               \
    F##N q = p / m;                                                           \
    return m * __builtin_elementwise_sqrt(dot(q, q));                         \
  }                                                                           \
  F OVERLOAD distance(F##N p0, F##N p1) { return length(p0 - p1); }           \
  /* The spec's special cases: all zeros stay; infinite elements count as     \
     +-1 and the others as (signed) zeros; NaNs propagate. A vector whose      \
     sum of squares overflows or underflows is first divided by its largest   \
     magnitude: a denormal length would have too few digits to divide by. */  \
  F##N OVERLOAD normalize(F##N p) {                                           \
    F##N a = __builtin_elementwise_abs(p);                                    \
    if (!HANY(N, a != (F##N)0))                                               \
      return p;                                                               \
    if (HANY(N, a == (F##N)INFINITY))                                         \
      p = a == (F##N)INFINITY ? __builtin_elementwise_copysign((F##N)1, p)    \
                              : p * (F##N)0;                                  \
    F s = dot(p, p);                                                          \
    if (!(s < (F)INFINITY && s >= (F)(TINY))) {                               \
      p = p / HMAX(N, __builtin_elementwise_abs(p));                          \
      s = dot(p, p);                                                          \
    }                                                                         \
    return p / __builtin_elementwise_sqrt(s);                                 \
  }

// The fast_ forms are float only: no rescaling, one reciprocal square root.
#define FAST_GEOMETRIC(N, ...)                                                     \
  float OVERLOAD fast_length(float##N p) {                                    \
    return __builtin_elementwise_sqrt(dot(p, p));                             \
  }                                                                           \
  float OVERLOAD fast_distance(float##N p0, float##N p1) {                    \
    return fast_length(p0 - p1);                                              \
  }                                                                           \
  float##N OVERLOAD fast_normalize(float##N p) {                              \
    float s = dot(p, p);                                                      \
    return s == 0.0f ? p : p * (1.0f / __builtin_elementwise_sqrt(s));        \
  }

GWIDTHS(GEOMETRIC, float, 0x1p-100f)
GWIDTHS(GEOMETRIC, double, 0x1p-968)
GWIDTHS(FAST_GEOMETRIC)

#define CROSS(F)                                                              \
  F##3 OVERLOAD cross(F##3 a, F##3 b) {                                       \
    return (F##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,               \
                  a.x * b.y - a.y * b.x);                                     \
  }                                                                           \
  /* The 4-vector form: the w of the result is 0. */                          \
  F##4 OVERLOAD cross(F##4 a, F##4 b) {                                       \
    return (F##4)(cross(a.xyz, b.xyz), 0);                                    \
  }
CROSS(float)
CROSS(double)

// half: the float function of the same vectors (the products are exact in
// float, and no sum of half squares overflows it), rounded once to half.
#define TO_F(N, x) CONV(N, float##N, x)
#define TO_H(N, x) CONV(N, half##N, x)
#define GEOMETRIC_HALF(N, ...)                                                \
  half OVERLOAD dot(half##N p0, half##N p1) {                                 \
    return (half)dot(TO_F(N, p0), TO_F(N, p1));                               \
  }                                                                           \
  half OVERLOAD length(half##N p) { return (half)length(TO_F(N, p)); }        \
  half OVERLOAD distance(half##N p0, half##N p1) {                            \
    return (half)distance(TO_F(N, p0), TO_F(N, p1));                          \
  }                                                                           \
  half##N OVERLOAD normalize(half##N p) {                                     \
    return TO_H(N, normalize(TO_F(N, p)));                                    \
  }
GWIDTHS(GEOMETRIC_HALF)
half3 OVERLOAD cross(half3 a, half3 b) {
  return convert_half3(cross(convert_float3(a), convert_float3(b)));
}
half4 OVERLOAD cross(half4 a, half4 b) {
  return convert_half4(cross(convert_float4(a), convert_float4(b)));
}
