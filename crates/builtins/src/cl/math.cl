// A first part of the math library (OpenCL C 3.0 section 6.15.2). Functions
// LLVM has intrinsics for use them, so they vectorize and fold.
#include "mux.h"

#define UNARY_INTRINSIC(name, builtin)                                        \
  float OVERLOAD name(float x) { return builtin##f(x); }                      \
  double OVERLOAD name(double x) { return builtin(x); }                       \
  float2 OVERLOAD name(float2 x) { return (float2)(name(x.s0), name(x.s1)); } \
  float4 OVERLOAD name(float4 x) { return (float4)(name(x.lo), name(x.hi)); } \
  float8 OVERLOAD name(float8 x) { return (float8)(name(x.lo), name(x.hi)); } \
  float16 OVERLOAD name(float16 x) { return (float16)(name(x.lo), name(x.hi)); }

UNARY_INTRINSIC(sqrt, __builtin_sqrt)
UNARY_INTRINSIC(fabs, __builtin_fabs)
UNARY_INTRINSIC(floor, __builtin_floor)
UNARY_INTRINSIC(ceil, __builtin_ceil)
UNARY_INTRINSIC(trunc, __builtin_trunc)
UNARY_INTRINSIC(rint, __builtin_rint)
UNARY_INTRINSIC(round, __builtin_round)
UNARY_INTRINSIC(sin, __builtin_sin)
UNARY_INTRINSIC(cos, __builtin_cos)
UNARY_INTRINSIC(exp, __builtin_exp)
UNARY_INTRINSIC(log, __builtin_log)

float OVERLOAD rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
double OVERLOAD rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }

float OVERLOAD fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
double OVERLOAD fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
float OVERLOAD mad(float a, float b, float c) { return a * b + c; }
double OVERLOAD mad(double a, double b, double c) { return a * b + c; }
float OVERLOAD fmin(float a, float b) { return __builtin_fminf(a, b); }
double OVERLOAD fmin(double a, double b) { return __builtin_fmin(a, b); }
float OVERLOAD fmax(float a, float b) { return __builtin_fmaxf(a, b); }
double OVERLOAD fmax(double a, double b) { return __builtin_fmax(a, b); }
float OVERLOAD pow(float a, float b) { return __builtin_powf(a, b); }
double OVERLOAD pow(double a, double b) { return __builtin_pow(a, b); }
