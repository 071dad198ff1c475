// Common functions (OpenCL C 3.0 section 6.15.4) for float, double and half,
// every vector width. Vector comparisons yield lane masks and ?: selects per
// lane, so each body serves the scalar and the vectors.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "gentype.h"

// N: width suffix; F: float or double; PI: pi in F.
#define COMMON_FUNCS(N, F, PI)                                                \
  /* The spec's definitions: max is y if x < y, else x; min is y if y < x. */ \
  F##N OVERLOAD max(F##N x, F##N y) { return x < y ? y : x; }                 \
  F##N OVERLOAD min(F##N x, F##N y) { return y < x ? y : x; }                 \
  /* clamp is fmin(fmax(x, lo), hi): LLVM's minnum/maxnum. */                 \
  F##N OVERLOAD clamp(F##N x, F##N lo, F##N hi) {                             \
    return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);   \
  }                                                                           \
  F##N OVERLOAD degrees(F##N r) { return r * (F##N)(180 / PI); }              \
  F##N OVERLOAD radians(F##N d) { return d * (F##N)(PI / 180); }              \
  F##N OVERLOAD mix(F##N x, F##N y, F##N a) { return x + (y - x) * a; }       \
  F##N OVERLOAD step(F##N edge, F##N x) {                                     \
    return x < edge ? (F##N)0 : (F##N)1;                                      \
  }                                                                           \
  F##N OVERLOAD smoothstep(F##N e0, F##N e1, F##N x) {                        \
    F##N t = clamp((x - e0) / (e1 - e0), (F##N)0, (F##N)1);                   \
    return t * t * ((F##N)3 - (F##N)2 * t);                                  \
  }                                                                           \
  /* 1 for x > 0, -1 for x < 0, x itself for +-0, and 0 for NaN. */          \
  F##N OVERLOAD sign(F##N x) {                                                \
    return x > (F##N)0 ? (F##N)1                                              \
                       : x < (F##N)0 ? (F##N)-1 : x == x ? x : (F##N)0;       \
  }

// The forms taking a scalar for some arguments of a vector call.
#define COMMON_VEC_SCALAR(N, F)                                               \
  F##N OVERLOAD max(F##N x, F y) { return max(x, (F##N)y); }                  \
  F##N OVERLOAD min(F##N x, F y) { return min(x, (F##N)y); }                  \
  F##N OVERLOAD clamp(F##N x, F lo, F hi) {                                   \
    return clamp(x, (F##N)lo, (F##N)hi);                                      \
  }                                                                           \
  F##N OVERLOAD mix(F##N x, F##N y, F a) { return mix(x, y, (F##N)a); }       \
  F##N OVERLOAD step(F edge, F##N x) { return step((F##N)edge, x); }          \
  F##N OVERLOAD smoothstep(F e0, F e1, F##N x) {                              \
    return smoothstep((F##N)e0, (F##N)e1, x);                                 \
  }

WIDTHS(COMMON_FUNCS, float, M_PI_F)
VWIDTHS(COMMON_VEC_SCALAR, float)
WIDTHS(COMMON_FUNCS, double, M_PI)
VWIDTHS(COMMON_VEC_SCALAR, double)

// half: max, min, clamp, step and sign are exact in half; degrees, radians,
// mix and smoothstep are float's of the same arguments rounded once to half.
#define TO_F(N, x) CONV(N, float##N, x)
#define TO_H(N, x) CONV(N, half##N, x)
#define COMMON_HALF(N, ...)                                                   \
  half##N OVERLOAD max(half##N x, half##N y) { return x < y ? y : x; }        \
  half##N OVERLOAD min(half##N x, half##N y) { return y < x ? y : x; }        \
  half##N OVERLOAD clamp(half##N x, half##N lo, half##N hi) {                 \
    return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);   \
  }                                                                           \
  half##N OVERLOAD degrees(half##N r) { return TO_H(N, degrees(TO_F(N, r))); } \
  half##N OVERLOAD radians(half##N d) { return TO_H(N, radians(TO_F(N, d))); } \
  half##N OVERLOAD mix(half##N x, half##N y, half##N a) {                     \
    return TO_H(N, mix(TO_F(N, x), TO_F(N, y), TO_F(N, a)));                  \
  }                                                                           \
  half##N OVERLOAD step(half##N edge, half##N x) {                            \
    return x < edge ? (half##N)0 : (half##N)1;                                \
  }                                                                           \
  half##N OVERLOAD smoothstep(half##N e0, half##N e1, half##N x) {            \
    return TO_H(N, smoothstep(TO_F(N, e0), TO_F(N, e1), TO_F(N, x)));         \
  }                                                                           \
  half##N OVERLOAD sign(half##N x) {                                          \
    return x > (half##N)0 ? (half##N)1                                        \
                          : x < (half##N)0 ? (half##N)-1                      \
                                           : x == x ? x : (half##N)0;         \
  }
WIDTHS(COMMON_HALF)
VWIDTHS(COMMON_VEC_SCALAR, half)
