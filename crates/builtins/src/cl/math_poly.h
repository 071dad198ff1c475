// Shorthands shared by math_float.cl and math_double.cl: element-wise
// builtins that work at every width, Horner's scheme with explicit FMA,
// lane tests, and sincos as the two calls.
#ifndef FERROCL_MATH_POLY_H
#define FERROCL_MATH_POLY_H

#define FMA __builtin_elementwise_fma
#define RINT __builtin_elementwise_rint
#define ABS __builtin_elementwise_abs
#define MIN __builtin_elementwise_min // minNum: a NaN operand loses
#define MAX __builtin_elementwise_max
#define AS(T, v) __builtin_astype((v), T)

// ANY(N, c): condition c holds in some lane.
#define ANY(N, c) ANY_##N(c)
#define ANY_(c) (c)
#define ANY_V(c) (__builtin_reduce_or(c) != 0)
#define ANY_2(c) ANY_V(c)
#define ANY_3(c) ANY_V(c)
#define ANY_4(c) ANY_V(c)
#define ANY_8(c) ANY_V(c)
#define ANY_16(c) ANY_V(c)

// LANES(N): the number of lanes.
#define LANES(N) LANES_##N
#define LANES_ 1
#define LANES_2 2
#define LANES_3 3
#define LANES_4 4
#define LANES_8 8
#define LANES_16 16

// Horner's scheme with FMA: c0 + x (c1 + x (c2 + ...)), constants of type F.
#define H2(F, x, c0, c1, c2) FMA(FMA((F)(c2), x, (F)(c1)), x, (F)(c0))
#define H3(F, x, c0, c1, c2, c3) FMA(H2(F, x, c1, c2, c3), x, (F)(c0))
#define H4(F, x, c0, c1, c2, c3, c4) FMA(H3(F, x, c1, c2, c3, c4), x, (F)(c0))
#define H5(F, x, c0, c1, c2, c3, c4, c5)                                      \
  FMA(H4(F, x, c1, c2, c3, c4, c5), x, (F)(c0))
#define H6(F, x, c0, c1, c2, c3, c4, c5, c6)                                  \
  FMA(H5(F, x, c1, c2, c3, c4, c5, c6), x, (F)(c0))
#define H7(F, x, c0, c1, c2, c3, c4, c5, c6, c7)                              \
  FMA(H6(F, x, c1, c2, c3, c4, c5, c6, c7), x, (F)(c0))
#define H8(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8)                          \
  FMA(H7(F, x, c1, c2, c3, c4, c5, c6, c7, c8), x, (F)(c0))
#define H9(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9)                      \
  FMA(H8(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9), x, (F)(c0))
#define H10(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10)                \
  FMA(H9(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10), x, (F)(c0))
#define H11(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11)           \
  FMA(H10(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11), x, (F)(c0))
#define H12(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12)      \
  FMA(H11(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12), x,        \
      (F)(c0))

#define H13(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13) \
  FMA(H12(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12,            \
      c13), x, (F)(c0))
#define H14(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14)                                                                        \
  FMA(H13(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13,       \
      c14), x, (F)(c0))
#define H15(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15)                                                                   \
  FMA(H14(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15), x, (F)(c0))
#define H16(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15, c16)                                                              \
  FMA(H15(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15, c16), x, (F)(c0))
#define H17(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15, c16, c17)                                                         \
  FMA(H16(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15, c16, c17), x, (F)(c0))
#define H18(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15, c16, c17, c18)                                                    \
  FMA(H17(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15, c16, c17, c18), x, (F)(c0))
#define H19(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15, c16, c17, c18, c19)                                               \
  FMA(H18(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15, c16, c17, c18, c19), x, (F)(c0))
#define H20(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, \
  c14, c15, c16, c17, c18, c19, c20)                                          \
  FMA(H19(F, x, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,  \
      c15, c16, c17, c18, c19, c20), x, (F)(c0))

// sincos(x, c) for T##N in every address space: the two functions (each a
// call the vectorizer can widen). Stamped out by WIDTHS(SINCOS, T).
#define SINCOS_AS(T, N, AS)                                                   \
  T##N OVERLOAD sincos(T##N x, AS T##N *c) {                                  \
    *c = cos(x);                                                              \
    return sin(x);                                                            \
  }
#if defined(__opencl_c_generic_address_space)
#define SINCOS_GENERIC(T, N) SINCOS_AS(T, N, )
#else
#define SINCOS_GENERIC(T, N)
#endif
#define SINCOS(N, T)                                                          \
  SINCOS_AS(T, N, __private)                                                  \
  SINCOS_AS(T, N, __global)                                                   \
  SINCOS_AS(T, N, __local)                                                    \
  SINCOS_GENERIC(T, N)

// sin(q pi/2 + r), cos(q pi/2 + r) and tan(q pi/2 + r) from s = sin(r) and
// c = cos(r); tan(r + pi/2) = -cos(r) / sin(r).
#define SIN_OF_QUADRANT(q, s, c)                                              \
  (((q) & 2) != 0 ? -(((q) & 1) != 0 ? (c) : (s))                             \
                  : (((q) & 1) != 0 ? (c) : (s)))
#define COS_OF_QUADRANT(q, s, c)                                              \
  ((((q) + 1) & 2) != 0 ? -(((q) & 1) != 0 ? (s) : (c))                       \
                        : (((q) & 1) != 0 ? (s) : (c)))
#define TAN_OF_QUADRANT(q, s, c)                                              \
  ((((q) & 1) != 0 ? -(c) : (s)) / (((q) & 1) != 0 ? (s) : (c)))

// Estrin's scheme: the same polynomials as H5, H7, H9 and H10 with the terms
// paired (c0 + c1 x, c2 + c3 x, ...) and the pairs combined by x^2, x^4,
// x^8: about half the chain of dependent FMAs of Horner's, for the
// functions whose vector loops wait on that chain.
#define E_PAIR(F, x, a, b) FMA((F)(b), x, (F)(a))
#define E5(F, x, c0, c1, c2, c3, c4, c5)                                      \
  ({                                                                          \
    F ex_ = (x);                                                              \
    F ex2_ = ex_ * ex_;                                                       \
    FMA(E_PAIR(F, ex_, c4, c5), ex2_ * ex2_,                                  \
        E_LOW4(F, ex_, ex2_, c0, c1, c2, c3));                                \
  })
#define E7(F, x, c0, c1, c2, c3, c4, c5, c6, c7)                              \
  ({                                                                          \
    F ex_ = (x);                                                              \
    F ex2_ = ex_ * ex_;                                                       \
    E_LOW8(F, ex_, ex2_, ex2_ * ex2_, c0, c1, c2, c3, c4, c5, c6, c7);        \
  })
// c0 + ... + c3 x^3 from x and x^2.
#define E_LOW4(F, x, x2, c0, c1, c2, c3)                                      \
  FMA(E_PAIR(F, x, c2, c3), x2, E_PAIR(F, x, c0, c1))
// c0 + ... + c7 x^7 from x, x^2 and x^4.
#define E_LOW8(F, x, x2, x4, c0, c1, c2, c3, c4, c5, c6, c7)                  \
  FMA(E_LOW4(F, x, x2, c4, c5, c6, c7), x4, E_LOW4(F, x, x2, c0, c1, c2, c3))
#define E9(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9)                      \
  ({                                                                          \
    F ex_ = (x);                                                              \
    F ex2_ = ex_ * ex_;                                                       \
    F ex4_ = ex2_ * ex2_;                                                     \
    FMA(E_PAIR(F, ex_, c8, c9), ex4_ * ex4_,                                  \
        E_LOW8(F, ex_, ex2_, ex4_, c0, c1, c2, c3, c4, c5, c6, c7));          \
  })
#define E10(F, x, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10)                \
  ({                                                                          \
    F ex_ = (x);                                                              \
    F ex2_ = ex_ * ex_;                                                       \
    F ex4_ = ex2_ * ex2_;                                                     \
    FMA(FMA((F)(c10), ex2_, E_PAIR(F, ex_, c8, c9)), ex4_ * ex4_,             \
        E_LOW8(F, ex_, ex2_, ex4_, c0, c1, c2, c3, c4, c5, c6, c7));          \
  })

#endif
