// Macros that stamp out one definition per vector width. A definition macro
// M takes the width suffix N first ("" for the scalar, then 2, 3, 4, 8, 16)
// and builds its types by pasting: T##N is `int` for N empty, `int4` for 4.
#ifndef FERROCL_GENTYPE_H
#define FERROCL_GENTYPE_H

#include "mux.h"

// The scalar and every vector width.
#define WIDTHS(M, ...)                                                        \
  M(, __VA_ARGS__)                                                            \
  VWIDTHS(M, __VA_ARGS__)

// The vector widths only (for the (vector, scalar) overloads).
#define VWIDTHS(M, ...)                                                       \
  M(2, __VA_ARGS__)                                                           \
  M(3, __VA_ARGS__)                                                           \
  M(4, __VA_ARGS__)                                                           \
  M(8, __VA_ARGS__)                                                           \
  M(16, __VA_ARGS__)

// Lane-wise value conversion to type T of width N (a C cast for scalars:
// casts between vector types are not conversions in OpenCL C).
#define CONV(N, T, x) CONV_##N(T, x)
#define CONV_(T, x) ((T)(x))
#define CONV_2(T, x) __builtin_convertvector((x), T)
#define CONV_3(T, x) __builtin_convertvector((x), T)
#define CONV_4(T, x) __builtin_convertvector((x), T)
#define CONV_8(T, x) __builtin_convertvector((x), T)
#define CONV_16(T, x) __builtin_convertvector((x), T)

// 128-bit integer vectors, for the 64-bit mul_hi/mad_sat: LLVM splits them
// into the scalar multiply-high sequence per lane.
typedef __int128 i128;
typedef unsigned __int128 u128;
#define I128_VEC(N)                                                           \
  typedef __int128 i128##N __attribute__((ext_vector_type(N)));               \
  typedef unsigned __int128 u128##N __attribute__((ext_vector_type(N)));
I128_VEC(2)
I128_VEC(3)
I128_VEC(4)
I128_VEC(8)
I128_VEC(16)

#endif
